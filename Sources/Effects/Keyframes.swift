/// A parameter's values over time: `value@time` pairs (`0@0,1@2s`), evaluated at each
/// tick's exact time, so a render is the same however fast it runs. Before the first
/// key the first value holds, after the last the last; between two keys the value moves
/// along the chain's easing. Numbers, colours and vectors move component by component;
/// whole numbers are rounded.
public struct Keyframes: Sendable, Equatable {
    /// How a value moves from one key to the next.
    public enum Ease: String, Sendable, CaseIterable {
        /// At a constant rate.
        case linear
        /// Slowly at first (quadratic).
        case `in`
        /// Slowly at the end (quadratic).
        case out
        /// Slowly at both ends (smoothstep).
        case `inout`
        /// Not at all until the next key: steps.
        case hold

        /// The eased fraction of the way for a fraction `t` of the time.
        func apply(_ t: Double) -> Double {
            switch self {
            case .linear: t
            case .in: t * t
            case .out: t * (2 - t)
            case .`inout`: t * t * (3 - 2 * t)
            case .hold: 0
            }
        }
    }

    /// One key: a time in seconds and the value then.
    public struct Key: Sendable, Equatable {
        /// Seconds from the start of the output.
        public var time: Double
        /// The value at that time.
        public var value: ParameterValue
    }

    /// The keys, in time order (at least one).
    public let keys: [Key]
    /// How values move between keys.
    public let ease: Ease

    /// Keys sorted by time; two at the same time are an error for the caller to report.
    public init(keys: [Key], ease: Ease = .linear) {
        self.keys = keys.sorted { $0.time < $1.time }
        self.ease = ease
    }

    /// The value at `time` seconds.
    public func value(at time: Double) -> ParameterValue {
        guard let first = keys.first else { preconditionFailure("keyframes without keys") }
        if time <= first.time { return first.value }
        guard let next = keys.firstIndex(where: { $0.time > time }) else { return keys[keys.count - 1].value }
        let (a, b) = (keys[next - 1], keys[next])
        let f = ease.apply((time - a.time) / (b.time - a.time))
        switch (a.value, b.value) {
        case (.number(let x), .number(let y)): return .number(x + (y - x) * f)
        case (.vector(let x), .vector(let y)) where x.count == y.count:
            return .vector(zip(x, y).map { $0 + ($1 - $0) * f })
        default: return f < 1 ? a.value : b.value
        }
    }

    /// A time as keys and ranges write it: seconds (`2`, `2.5`, `2s`, `500ms`) or
    /// `m:ss[.f]` / `h:mm:ss[.f]`. Nil when it is none of those or negative.
    public static func seconds(_ text: String) -> Double? {
        var t = Substring(text.trimmingCharacters(in: .whitespaces))
        if t.hasSuffix("ms") { return Double(t.dropLast(2)).flatMap { $0 >= 0 && $0.isFinite ? $0 / 1000 : nil } }
        if t.hasSuffix("s") { t = t.dropLast() }
        let parts = t.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (i, part) in parts.enumerated() {
            guard let v = Double(part), v >= 0, v.isFinite, v <= 1e8 else { return nil }
            if i < parts.count - 1 && v != v.rounded() { return nil }
            total = total * 60 + v
        }
        return total
    }
}

/// When an effect runs: ranges of output time, `enable=10-20` or
/// `enable=0:10-0:20,1:00-1:05` (an open end: `enable=30-`). Outside them the effect is
/// skipped and costs nothing.
public struct TimeRanges: Sendable, Equatable {
    /// Start (inclusive) and end (exclusive) in seconds; an end of infinity is open.
    public let ranges: [(start: Double, end: Double)]

    public static func == (a: TimeRanges, b: TimeRanges) -> Bool {
        a.ranges.count == b.ranges.count && zip(a.ranges, b.ranges).allSatisfy { $0.start == $1.start && $0.end == $1.end }
    }

    /// Parses `A-B[,C-D…]`.
    public init(parsing text: String, effect: String) throws(EffectError) {
        var ranges: [(Double, Double)] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let ends = item.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard ends.count == 2, let start = Keyframes.seconds(String(ends[0])),
                  let end = ends[1].isEmpty ? Double.infinity : Keyframes.seconds(String(ends[1])) else {
                throw EffectError("\(effect): enable must be time ranges like 10-20 or 0:10-0:20,1:00-1:05, not '\(item)'")
            }
            guard end > start else { throw EffectError("\(effect): enable range '\(item)' ends before it starts") }
            ranges.append((start, end))
        }
        self.ranges = ranges
    }

    /// Whether `time` lies in a range.
    public func contains(_ time: Double) -> Bool { ranges.contains { time >= $0.start && time < $0.end } }
}
