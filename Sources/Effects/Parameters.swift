import Foundation
import Synchronization

/// Validated parameter values for one effect: every parameter of its descriptor,
/// given or defaulted.
public struct Parameters: Sendable {
    /// The effect these belong to.
    public let descriptor: EffectDescriptor
    private let values: [String: ParameterValue]
    /// Parameters given as keyframes (`amount=0@0,1@2s`); `values` holds their first key.
    public let tracks: [String: Keyframes]
    /// The names given (rather than defaulted).
    private let given: Set<String>

    /// Whether any parameter changes over time.
    public var isAnimated: Bool { !tracks.isEmpty }

    /// Checks `given` against `descriptor` (names, types, ranges) and fills in defaults.
    public init(_ given: [String: ParameterValue], for descriptor: EffectDescriptor) throws(EffectError) {
        try self.init(given, tracks: [:], for: descriptor)
    }

    /// As ``init(_:for:)``, with some parameters keyframed (their `given` value is the
    /// first key's).
    public init(_ given: [String: ParameterValue], tracks: [String: Keyframes], for descriptor: EffectDescriptor) throws(EffectError) {
        try self.init(given, tracks: tracks, names: Set(given.keys), for: descriptor)
    }

    private init(_ given: [String: ParameterValue], tracks: [String: Keyframes], names: Set<String>, for descriptor: EffectDescriptor) throws(EffectError) {
        self.descriptor = descriptor
        self.tracks = tracks
        self.given = names
        var values: [String: ParameterValue] = [:]
        for (name, value) in given {
            guard let spec = descriptor.parameter(name) else { throw .unknownParameter(name, effect: descriptor) }
            values[name] = try Parameters.check(value, spec, effect: descriptor.name)
        }
        for spec in descriptor.parameters where values[spec.name] == nil {
            guard let d = spec.defaultValue else {
                throw EffectError("\(descriptor.name): parameter '\(spec.name)' is required (\(spec.help))")
            }
            values[spec.name] = d
        }
        self.values = values
    }

    /// Parses text values (`"0.8"`, `"average"`) by each parameter's type, then validates.
    /// Numbers, colours and vectors may be keyframes, `value@time` pairs separated by
    /// commas (`0@0,1@2s`, `#FF0000@0,#0000FF@3`), moving along `ease` between keys.
    public init(parsing given: [(String, String)], for descriptor: EffectDescriptor, ease: Keyframes.Ease = .linear) throws(EffectError) {
        var typed: [String: ParameterValue] = [:]
        var tracks: [String: Keyframes] = [:]
        for (name, text) in given {
            guard let spec = descriptor.parameter(name) else { throw .unknownParameter(name, effect: descriptor) }
            guard typed[name] == nil else { throw EffectError("\(descriptor.name): parameter '\(name)' given twice") }
            if text.contains("@"), spec.isAnimatable {
                let track = try Parameters.keyframes(text, spec, effect: descriptor.name, ease: ease)
                tracks[name] = track
                typed[name] = track.keys[0].value
            } else {
                typed[name] = try Parameters.parse(text, spec, effect: descriptor.name)
            }
        }
        try self.init(typed, tracks: tracks, for: descriptor)
    }

    /// The values at `time` seconds: every keyframed parameter evaluated (whole numbers
    /// rounded), the rest as they are. Without keyframes, the parameters themselves.
    public func at(_ time: Double) -> Parameters {
        guard isAnimated else { return self }
        var snapshot = values
        for (name, track) in tracks {
            var v = track.value(at: time)
            if case .int = descriptor.parameter(name)?.type, case .number(let x) = v { v = .number(x.rounded()) }
            snapshot[name] = v
        }
        // Keys were validated one by one; values between them lie between them.
        return (try? Parameters(snapshot, tracks: [:], names: given, for: descriptor)) ?? self
    }

    /// Whether `name` was given rather than defaulted: for a parameter whose default
    /// the effect picks from the others (``ParameterSpec/defaultFollowsOthers``).
    public func isGiven(_ name: String) -> Bool { given.contains(name) }

    /// The values as a list, for telling two snapshots apart.
    var signature: [ParameterValue] { descriptor.parameters.map { values[$0.name]! } }

    /// `value@time,value@time…`: each value parsed and checked as the parameter's type.
    private static func keyframes(_ text: String, _ spec: ParameterSpec, effect: String, ease: Keyframes.Ease) throws(EffectError) -> Keyframes {
        // Values may hold commas themselves (colours, vectors): a key ends at the piece with its '@'.
        var keys: [Keyframes.Key] = []
        var pending: [Substring] = []
        for piece in text.split(separator: ",", omittingEmptySubsequences: false) {
            pending.append(piece)
            guard let at = piece.lastIndex(of: "@") else { continue }
            let valueText = (pending.dropLast() + [piece[..<at]]).joined(separator: ",")
            let timeText = String(piece[piece.index(after: at)...])
            guard let time = Keyframes.seconds(timeText) else {
                throw EffectError("\(effect): \(spec.name): '\(timeText)' is not a time (seconds, 2s, 500ms or m:ss) in '\(text)'")
            }
            let value = try check(try parse(valueText, spec, effect: effect), spec, effect: effect)
            guard !keys.contains(where: { $0.time == time }) else {
                throw EffectError("\(effect): \(spec.name) has two keys at \(ParameterValue.number(time)) s")
            }
            keys.append(Keyframes.Key(time: time, value: value))
            pending = []
        }
        guard pending.isEmpty, !keys.isEmpty else {
            throw EffectError("\(effect): \(spec.name) keyframes must be value@time pairs separated by commas (0@0,1@2s), not '\(text)'")
        }
        return Keyframes(keys: keys, ease: ease)
    }

    /// One value's text, by the parameter's type.
    private static func parse(_ text: String, _ spec: ParameterSpec, effect: String) throws(EffectError) -> ParameterValue {
        let name = spec.name
        switch spec.type {
        case .float, .int:
            // Angles (unit "deg") also take an explicit unit: 90deg, 90°, 1.57rad.
            var text = text
            var scale = 1.0
            if spec.unit == "deg" {
                for (suffix, factor) in [("deg", 1.0), ("°", 1.0), ("rad", 180 / Double.pi)] where text.hasSuffix(suffix) {
                    text = String(text.dropLast(suffix.count))
                    scale = factor
                    break
                }
            }
            // A switch (a whole number 0…1: a shader's `bool`) also takes the words for it.
            if case .int = spec.type, spec.min == 0, spec.max == 1 {
                switch text.lowercased() {
                case "true", "yes", "on": return .number(1)
                case "false", "no", "off": return .number(0)
                default: break
                }
            }
            guard let parsed = Double(text), parsed.isFinite else {
                throw EffectError("\(effect): \(name) must be a number (\(spec.rangeDescription)), not '\(text)'")
            }
            return .number(parsed * scale)
        case .choice, .file, .text:
            return .text(text)
        case .color:
            return .vector(try Parameters.parseColor(text, name: name, effect: effect))
        case .vector(let n):
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == n, parts.allSatisfy({ $0?.isFinite == true }) else {
                throw EffectError("\(effect): \(name) must be \(n) numbers separated by commas (\(spec.rangeDescription)), not '\(text)'")
            }
            return .vector(parts.map { $0! })
        }
    }

    private static func check(_ value: ParameterValue, _ spec: ParameterSpec, effect: String) throws(EffectError) -> ParameterValue {
        switch (spec.type, value) {
        case (.float, .number(let v)), (.int, .number(let v)):
            if case .int = spec.type, v != v.rounded() {
                throw EffectError("\(effect): \(spec.name) must be a whole number (\(spec.rangeDescription)), not \(v)")
            }
            if let lo = spec.min, v < lo { throw outOfRange(v, spec, effect) }
            if let hi = spec.max, v > hi { throw outOfRange(v, spec, effect) }
            if v.magnitude > ParameterSpec.largestMagnitude { throw tooLarge(v, spec, effect) }
            return value
        case (.choice(let options), .text(let t)):
            guard let match = options.first(where: { $0.lowercased() == t.lowercased() }) else {
                var text = "\(effect): \(spec.name) must be one of \(options.joined(separator: ", ")), not '\(t)'"
                if let guess = EffectError.closest(to: t, in: options) { text += " (did you mean '\(guess)'?)" }
                throw EffectError(text)
            }
            return .text(match)
        case (.file, .text):
            return value
        case (.text, .text(let t)):
            // Control characters have no place on a picture (a newline is written `\n`).
            if let bad = t.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
                throw EffectError("\(effect): \(spec.name) holds the control character U+\(String(bad.value, radix: 16, uppercase: true)); write a new line as \\n")
            }
            return value
        case (.color, .vector(let v)):
            guard v.count == 4 || v.count == 3, v.allSatisfy({ $0 >= 0 && $0 <= 1 }) else {
                throw EffectError("\(effect): \(spec.name) must have 3 or 4 components in 0…1, not \(ParameterValue.vector(v))")
            }
            return .vector(v.count == 3 ? v + [1] : v)
        case (.vector(let n), .vector(let v)):
            guard v.count == n else { throw EffectError("\(effect): \(spec.name) must have \(n) components, not \(v.count)") }
            for x in v {
                if let lo = spec.min, x < lo { throw outOfRange(x, spec, effect) }
                if let hi = spec.max, x > hi { throw outOfRange(x, spec, effect) }
                if x.magnitude > ParameterSpec.largestMagnitude { throw tooLarge(x, spec, effect) }
            }
            return value
        default:
            throw EffectError("\(effect): \(spec.name) has the wrong type (\(spec.type.name) expected)")
        }
    }

    private static func tooLarge(_ v: Double, _ spec: ParameterSpec, _ effect: String) -> EffectError {
        EffectError("\(effect): \(spec.name) \(ParameterValue.number(v)) is too large (at most ±\(Int(ParameterSpec.largestMagnitude)))")
    }

    private static func outOfRange(_ v: Double, _ spec: ParameterSpec, _ effect: String) -> EffectError {
        EffectError("\(effect): \(spec.name) \(ParameterValue.number(v)) is out of range \(spec.rangeDescription)")
    }

    /// Keys an effect read that its descriptor does not have (or has as another type), as
    /// `effect.key`: a mistake of the effect's code. Such a read gives a neutral value
    /// (0, empty) instead of trapping in a user's render; the suite makes every effect and
    /// fails while this is not empty (`ExampleTests`).
    public static var unreadKeys: Set<String> { unreadLog.withLock { $0 } }
    private static let unreadLog = Mutex<Set<String>>([])

    private static func unread<T>(_ name: String, of descriptor: EffectDescriptor, as neutral: T) -> T {
        _ = unreadLog.withLock { $0.insert("\(descriptor.name).\(name)") }
        return neutral
    }

    /// A number parameter's value.
    public func double(_ name: String) -> Double {
        guard case .number(let v)? = values[name] else { return Self.unread(name, of: descriptor, as: 0) }
        return v
    }

    /// A colour or vector parameter's components (colours are always r, g, b, a).
    public func vector(_ name: String) -> [Double] {
        guard case .vector(let v)? = values[name] else { return Self.unread(name, of: descriptor, as: [0, 0, 0, 0]) }
        return v
    }

    /// The colours a parameter (and `--background`) takes by name, as FFmpeg's and CSS's
    /// basic names mean them: RGBA in 0…1.
    public static let colorNames: [String: [Double]] = [
        "black": [0, 0, 0, 1], "white": [1, 1, 1, 1], "grey": [128.0 / 255, 128.0 / 255, 128.0 / 255, 1], "gray": [128.0 / 255, 128.0 / 255, 128.0 / 255, 1],
        "red": [1, 0, 0, 1], "green": [0, 128.0 / 255, 0, 1], "lime": [0, 1, 0, 1], "blue": [0, 0, 1, 1], "yellow": [1, 1, 0, 1],
        "cyan": [0, 1, 1, 1], "magenta": [1, 0, 1, 1], "orange": [1, 165.0 / 255, 0, 1], "transparent": [0, 0, 0, 0], "none": [0, 0, 0, 0],
    ]

    /// `#RRGGBB`, `#RRGGBBAA` (also without `#`, or `0x`), `r,g,b[,a]` in 0…1, or a name
    /// (``colorNames``).
    static func parseColor(_ text: String, name: String, effect: String) throws(EffectError) -> [Double] {
        let failure = EffectError("\(effect): \(name) must be a colour, #RRGGBB[AA], r,g,b[,a] in 0…1 or a name (black, white, red…), not '\(text)'")
        if let named = colorNames[text.trimmingCharacters(in: .whitespaces).lowercased()] { return named }
        var hex = Substring(text.trimmingCharacters(in: .whitespaces))
        if hex.hasPrefix("#") { hex = hex.dropFirst() } else if hex.lowercased().hasPrefix("0x") { hex = hex.dropFirst(2) }
        if !text.contains(","), hex.count == 6 || hex.count == 8, let bits = UInt32(hex, radix: 16) {
            let bytes = hex.count == 6 ? [bits >> 16, bits >> 8, bits, 255] : [bits >> 24, bits >> 16, bits >> 8, bits]
            return bytes.map { Double($0 & 0xFF) / 255 }
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 3 || parts.count == 4, parts.allSatisfy({ $0?.isFinite == true }) else { throw failure }
        let v = parts.map { $0! }
        guard v.allSatisfy({ $0 >= 0 && $0 <= 1 }) else {
            throw EffectError("\(effect): \(name) components must be in 0…1, not '\(text)'")
        }
        return v.count == 3 ? v + [1] : v
    }

    /// A whole-number parameter's value.
    public func int(_ name: String) -> Int { Int(double(name)) }

    /// A choice or file parameter's value.
    public func text(_ name: String) -> String {
        guard case .text(let t)? = values[name] else { return Self.unread(name, of: descriptor, as: "") }
        return t
    }

    /// `name=value` pairs in descriptor order (for display), every parameter but one
    /// whose default follows the others and was not given: written out, it would stop
    /// following them when parsed back.
    public var summary: String {
        descriptor.parameters.filter { !$0.defaultFollowsOthers || given.contains($0.name) }.map { spec in
            if let track = tracks[spec.name] {
                return "\(spec.name)=" + track.keys.map { "\($0.value)@\(ParameterValue.number($0.time))" }.joined(separator: ",")
            }
            let value = values[spec.name]!.description
            if case .text = spec.type { return "\(spec.name)=\(ChainSyntax.quoted(value))" }
            return "\(spec.name)=\(value)"
        }.joined(separator: ":")
    }
}
