import Foundation
public import FrameCore
public import FrameSource
import MediaInput

/// Times in the source where a picture must begin anew (scene cuts, an editor's cuts),
/// and the output ticks they fall on: what `apply --keyframes-at` makes key frames of.
public struct CutTimes: Sendable, Equatable {
    /// What a cut list in JSON holds for this (`vidfx scenes --json`: other fields ignored).
    private struct SceneCuts: Decodable {
        struct Cut: Decodable { let time: Double }
        let cuts: [Cut]
    }

    /// Source times in seconds, ascending, without repeats.
    public let seconds: [Rational]

    /// The times `seconds`, sorted and without repeats.
    public init(_ seconds: [Rational]) {
        seconds.isEmpty ? (self.seconds = []) : (self.seconds = Array(Set(seconds)).sorted())
    }

    /// Reads a cut list: `vidfx scenes --json` (its cuts' times), PySceneDetect's
    /// `list-scenes` CSV (its `Timecode List:` row), or times separated by commas, spaces
    /// or lines, each seconds (`2.5`) or a clock time (`1:02:03.5`, `00:00:02.000`).
    /// - Throws: ``RenderError`` naming the file and, for a word that is not a time, the word.
    public static func parse(_ text: String, file: String) throws(RenderError) -> CutTimes {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("{") {
            guard let list = try? JSONDecoder().decode(SceneCuts.self, from: Data(trimmed.utf8)) else {
                throw RenderError("\(file): not a cut list (JSON with a \"cuts\" list of {\"time\": seconds}, as `vidfx scenes --json` writes)", exitCode: 2)
            }
            var times: [Rational] = []
            for cut in list.cuts {
                guard cut.time.isFinite, cut.time >= 0, cut.time <= 1e8 else { throw RenderError("\(file): a cut at \(cut.time) s", exitCode: 2) }
                times.append(Rational(Int64((cut.time * 1_000_000).rounded()), 1_000_000))
            }
            return CutTimes(times)
        }
        var words: [Substring]
        if let first = trimmed.split(separator: "\n", maxSplits: 1).first, first.hasPrefix("Timecode List:") {
            words = first.dropFirst("Timecode List:".count).split(separator: ",")
        } else {
            words = trimmed.split(whereSeparator: { $0 == "," || $0.isWhitespace })
        }
        var times: [Rational] = []
        for word in words where !word.isEmpty {
            guard let t = time(String(word)) else {
                throw RenderError("\(file): '\(word.prefix(40))' is not a time (seconds, or h:m:s)", exitCode: 2)
            }
            times.append(t)
        }
        return CutTimes(times)
    }

    /// `2.5`, `1/3`, `90`, `1:02:03.5` or `00:00:02.000` as seconds; nil for anything else.
    static func time(_ text: String) -> Rational? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        // At most a hundred million seconds (three years), to the microsecond: the sums
        // below stay far inside 64 bits.
        var approximate = 0.0
        for part in parts {
            guard let v = Double(part), v >= 0 else { return nil }
            approximate = approximate * 60 + v
        }
        guard approximate <= 1e8 else { return nil }
        var total = Rational(0)
        for (i, part) in parts.enumerated() {
            guard let v = Rational(String(part)), v >= Rational(0), v.denominator <= 1_000_000, v.numerator < 1 << 47 else { return nil }
            if i < parts.count - 1 {
                guard v.denominator == 1 else { return nil }
                total = (total + v) * 60
            } else {
                total = total + v
            }
        }
        return total
    }

    /// The ticks of an output at `frameRate` that first show each cut: tick k shows the
    /// source at `start + speed·k/frameRate` (plus `passLength` for each earlier pass of a
    /// loop), so a cut at t is on screen from the first tick at or after it. Cuts outside
    /// `start ..< start + length` (`length` nil: to the end) and tick 0 (a key frame
    /// anyway) are left out; so are ticks from `total` on.
    public func ticks(start: Rational, length: Rational?, speed: Rational, frameRate: Rational, passes: Int = 1,
                      total: Int64? = nil) -> Set<Int64> {
        var ticks = Set<Int64>()
        for pass in 0..<max(1, passes) {
            for t in seconds where t >= start {
                if let length, t.seconds - start.seconds >= length.seconds { continue }
                // The output's seconds to where the cut shows, in ticks. In floating point: the
                // exact sum can outgrow 64 bits (times and a range to the microsecond, a
                // rate in thousandths), and a millionth of a tick decides nothing here (a cut
                // that close after a tick's time belongs to that tick).
                var at = (t.seconds - start.seconds) / speed.seconds
                if pass > 0, let length { at += length.seconds / speed.seconds * Double(pass) }
                let scaled = at * frameRate.seconds
                guard scaled < 9e15 else { continue }
                let k = Int64((scaled - 1e-6).rounded(.up))
                if k > 0 && (total.map { k < $0 } ?? true) { ticks.insert(k) }
            }
        }
        return ticks
    }
}

extension CutTimes {
    /// The ticks of a render (`total` of them, when known) that first show each cut: the
    /// render reads `info`'s input as `configuration` says (its range, speed, loops and rate).
    public func ticks(of configuration: FrameSource.Configuration, info: MediaInfo, total: Int64?) -> Set<Int64> {
        var passes = 1
        if case .count(let n) = configuration.loop { passes = n }
        var length = configuration.duration
        if length == nil, passes > 1, let seconds = info.duration {
            length = Rational(Int64((seconds * 1_000_000).rounded()), 1_000_000) - configuration.start
        }
        return ticks(start: configuration.start, length: length, speed: configuration.speed, frameRate: configuration.frameRate,
                     passes: passes, total: total)
    }
}
