import Foundation
public import FrameCore
public import FrameSource
public import MediaInput
import Scenes
import Sinks

/// Frames chosen by content, for `dump --count` and `sheet`: the clip is cut into equal
/// slots, and each slot gives the sharpest of a few pictures spread over it that is
/// neither dark nor flat (a fade, black, a blank card); where all of them are, the one
/// with the most contrast, and the reason says so.
public struct RepresentativeFrames {
    /// A chosen picture, at its time, and why.
    public struct Choice {
        /// The picture.
        public var frame: Frame
        /// Its time in the clip.
        public var time: Rational
        /// Why it was chosen, for the manifest.
        public var reason: String
    }

    /// One decoder for every picture looked at, seeking from one to the next.
    let stills: StillReader
    let start: Rational
    let length: Double
    /// How many slots (frames) it chooses.
    public let count: Int
    /// Pictures looked at in each slot.
    let candidates = 3

    /// The slots over [start, start + length) of the clip `info` describes.
    public init(media: MediaInput, configuration: FrameSource.Configuration, info: MediaInfo, count: Int, input: String) throws {
        try self.init(reader: StillReader(input: media, configuration: configuration), configuration: configuration, count: count, input: input)
    }

    /// The slots over [start, start + length) of the clip, looked at through `reader`
    /// (the input opened once, for its length and its pictures).
    public init(reader: StillReader, configuration: FrameSource.Configuration, count: Int, input: String) throws {
        stills = reader
        let info = reader.info
        self.count = count
        let start = configuration.start
        self.start = start
        guard let total = info.duration else {
            throw RenderError("\(input): its duration is unknown (a live stream?); give --duration")
        }
        let length = configuration.duration.map { min($0.seconds, total - start.seconds) } ?? total - start.seconds
        self.length = length
        guard length > 0 else { throw RenderError("\(input): the start is at or past the end (\(String(format: "%.3f", total)) s)", exitCode: 2) }
    }

    /// The choice for slot `slot` (0..<count).
    public func choose(slot: Int) throws -> Choice? {
        let slotLength = length / Double(count)
        var looked: [(frame: Frame, time: Rational, measures: PictureMeasures)] = []
        for j in 0..<candidates {
            let seconds = start.seconds + slotLength * (Double(slot) + (Double(j) + 0.5) / Double(candidates))
            let t = Rational(Int64((seconds * 1_000_000).rounded(.down)), 1_000_000)
            guard let frame = try stills.picture(at: t) else { continue }
            let (w, h) = FrameScaler.fit(width: frame.width, height: frame.height, into: (320, 320))
            looked.append((frame, t, PictureMeasures(FrameScaler.resize(frame, width: w, height: h))))
        }
        guard !looked.isEmpty else { return nil }
        let span = "\(SceneList.timecode(start.seconds + slotLength * Double(slot)))–\(SceneList.timecode(start.seconds + slotLength * Double(slot + 1)))"
        let usable = looked.filter { $0.measures.flaw == nil }
        let skipped = looked.compactMap { $0.measures.flaw }
        let skippedText = skipped.isEmpty ? "" : "; skipped \(skipped.count) (\(Set(skipped).sorted().joined(separator: ", ")))"
        if let best = usable.max(by: { $0.measures.sharpness < $1.measures.sharpness }) {
            return Choice(frame: best.frame, time: best.time,
                          reason: "sharpest of \(looked.count) in \(span) (\(best.measures.summary))\(skippedText)")
        }
        let best = looked.max(by: { $0.measures.contrast < $1.measures.contrast })!
        return Choice(frame: best.frame, time: best.time,
                      reason: "every picture looked at in \(span) is \(Set(skipped).sorted().joined(separator: " or ")): the most contrast (\(best.measures.summary))")
    }
}

extension RepresentativeFrames {
    /// The choices in slot order as a ``FrameSupply``: each frame's tick is its slot, its
    /// note the reason it was chosen.
    public func frames() -> some FrameSupply { Choices(of: self) }

    private final class Choices: FrameSupply {
        let chooser: RepresentativeFrames
        var slot = 0
        var reasons: [String] = []

        init(of chooser: RepresentativeFrames) { self.chooser = chooser }

        func next() throws -> Frame? {
            while slot < chooser.count {
                defer { slot += 1 }
                guard let choice = try chooser.choose(slot: slot) else { continue }
                var frame = choice.frame
                frame.tick = Int64(slot)
                reasons.append(choice.reason)
                return frame
            }
            return nil
        }

        func note(forFrame index: Int) -> String? { index < reasons.count ? reasons[index] : nil }
    }
}
