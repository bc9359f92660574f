import Foundation
public import FrameCore
public import FrameSource
public import MediaInput
import Scenes
import Sinks

/// Frames chosen by content, for `dump --count`, `dump --scenes` and `sheet`: the clip is
/// cut into slots (equal ones, or the stable middles of its scenes), and each slot gives
/// the sharpest of a few pictures in it that is neither dark nor flat (a fade, black, a
/// blank card) nor changing (a dissolve's double exposure, a fade, a whip pan) where a
/// calmer one is usable; where none is, the one with the most contrast, and the reason
/// says so.
public struct RepresentativeFrames {
    /// A stretch of the clip to choose one picture in.
    public struct Slot: Sendable {
        /// Where it starts and ends on the clip's timeline.
        public var from: Rational, to: Rational
        /// What it is, for the reason (e.g. "scene 3 (frames 120–239)").
        public var label: String
        /// The pictures it may choose, each with how much it changes from its
        /// neighbours (a scene scan's content scores); nil for three spread over it,
        /// whose change is measured to the picture after each.
        public var candidates: [(time: Rational, activity: Double)]?

        /// A slot offering `candidates` (or three pictures spread over it when nil).
        public init(from: Rational, to: Rational, label: String, candidates: [(time: Rational, activity: Double)]? = nil) {
            self.from = from
            self.to = to
            self.label = label
            self.candidates = candidates
        }
    }

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
    /// Where it chooses, one picture each.
    public let slots: [Slot]
    /// How many slots (frames) it chooses.
    public var count: Int { slots.count }
    /// Pictures looked at in each slot.
    static let candidates = 3

    /// The slots over [start, start + length) of the clip `info` describes.
    public init(media: MediaInput, configuration: FrameSource.Configuration, info: MediaInfo, count: Int, input: String) throws {
        try self.init(reader: StillReader(input: media, configuration: configuration), configuration: configuration, count: count, input: input)
    }

    /// The slots over [start, start + length) of the clip, looked at through `reader`
    /// (the input opened once, for its length and its pictures).
    public init(reader: StillReader, configuration: FrameSource.Configuration, count: Int, input: String) throws {
        stills = reader
        let info = reader.info
        let start = configuration.start
        guard let total = info.duration else {
            throw RenderError("\(input): its duration is unknown (a live stream?); give --duration")
        }
        let length = configuration.duration.map { min($0.seconds, total - start.seconds) } ?? total - start.seconds
        guard length > 0 else { throw RenderError("\(input): the start is at or past the end (\(String(format: "%.3f", total)) s)", exitCode: 2) }
        let slotLength = length / Double(count)
        func at(_ seconds: Double) -> Rational { Rational(Int64((seconds * 1_000_000).rounded(.down)), 1_000_000) }
        slots = (0..<count).map { slot in
            let (a, b) = (start.seconds + slotLength * Double(slot), start.seconds + slotLength * Double(slot + 1))
            return Slot(from: at(a), to: at(b), label: "\(SceneList.timecode(a))–\(SceneList.timecode(b))")
        }
    }

    /// Chooses in the scenes of `scan` (made with `recordScores`, so that every picture's
    /// content score is known): in each scene's stable middle (its middle 70%; all of a
    /// scene under 10 pictures), split into `perScene` equal slots, the calmest picture
    /// of each third of a slot is looked at. A picture's activity is the largest content
    /// score within two pictures of it: a still shot scores near 0, a dissolve or a
    /// fade several points at every picture.
    public init(reader: StillReader, scenes scan: SceneScan, perScene: Int) {
        stills = reader
        let scores = scan.scores
        var index: [Int: Int] = [:]
        for (i, s) in scores.enumerated() { index[s.frame] = i }
        func activity(_ i: Int) -> Double {
            (max(0, i - 2)...min(scores.count - 1, i + 2)).reduce(0.0) { max($0, $1 == 0 ? 0 : scores[$1].score) }
        }
        var slots: [Slot] = []
        for (n, scene) in scan.list.scenes.enumerated() {
            let label = "scene \(n + 1) (frames \(scene.start.frame)–\(scene.end.frame - 1))"
            guard let first = index[scene.start.frame] else { continue }
            let last = index[scene.end.frame - 1] ?? scores.count - 1
            let pictures = last - first + 1
            let margin = pictures < 10 ? 0 : Int((Double(pictures) * 0.15).rounded())
            let (a, b) = (first + margin, last - margin)
            guard a <= b else { continue }
            let span = b - a + 1
            for k in 0..<perScene {
                let (lo, hi) = (a + span * k / perScene, a + span * (k + 1) / perScene - 1)
                guard lo <= hi else { continue }
                var candidates: [(time: Rational, activity: Double)] = []
                let thirds = min(Self.candidates, hi - lo + 1)
                for t in 0..<thirds {
                    let (p, q) = (lo + (hi - lo + 1) * t / thirds, lo + (hi - lo + 1) * (t + 1) / thirds - 1)
                    // The calmest picture of this third, the one nearest its middle among equals.
                    let middle = Double(p + q) / 2
                    let best = (p...q).min { (activity($0), abs(Double($0) - middle)) < (activity($1), abs(Double($1) - middle)) }!
                    candidates.append((scores[best].time, activity(best)))
                }
                slots.append(Slot(from: scores[lo].time, to: scores[hi].time,
                                  label: perScene == 1 ? label : "\(label), part \(k + 1) of \(perScene)", candidates: candidates))
            }
        }
        self.slots = slots
    }

    /// The choice for slot `slot` (0..<count).
    public func choose(slot: Int) throws -> Choice? {
        let theSlot = slots[slot]
        let offered: [(time: Rational, activity: Double?)] = theSlot.candidates?.map { ($0.time, $0.activity) } ?? (0..<Self.candidates).map { j in
            let seconds = theSlot.from.seconds + (theSlot.to - theSlot.from).seconds * (Double(j) + 0.5) / Double(Self.candidates)
            return (Rational(Int64((seconds * 1_000_000).rounded(.down)), 1_000_000), nil)
        }
        var measured: [(frame: Frame, time: Rational, measures: PictureMeasures, activity: Double?)] = []
        for candidate in offered {
            guard let frame = try stills.picture(at: candidate.time) else { continue }
            let (w, h) = FrameScaler.fit(width: frame.width, height: frame.height, into: (320, 320))
            let small = FrameScaler.resize(frame, width: w, height: h)
            let activity = try candidate.activity ?? activity(after: candidate.time, of: small)
            measured.append((frame, candidate.time, PictureMeasures(small), activity))
        }
        // Changing: well above the calmest picture looked at, and above the noise of a still shot.
        // A picture with nothing after it (the clip's end) has no measure: never changing.
        let calmest = measured.compactMap(\.activity).min() ?? 0
        let calm = max(1.5, 2 * calmest)
        let looked = measured.map { (frame: $0.frame, time: $0.time, measures: $0.measures,
                                     flaw: $0.measures.flaw ?? (($0.activity ?? 0) > calm ? "changing" : nil), activity: $0.activity ?? 0) }
        guard !looked.isEmpty else { return nil }
        let span = theSlot.label
        let usable = looked.filter { $0.flaw == nil }
        let skipped = looked.compactMap { $0.flaw }
        let skippedText = skipped.isEmpty ? "" : "; skipped \(skipped.count) (\(Set(skipped).sorted().joined(separator: ", ")))"
        if let best = usable.max(by: { $0.measures.sharpness < $1.measures.sharpness }) {
            return Choice(frame: best.frame, time: best.time,
                          reason: "sharpest of \(looked.count) in \(span) (\(best.measures.summary))\(skippedText)")
        }
        // None usable, some only changing: the calmest of those (a transition's least mixed picture).
        if let calmer = looked.filter({ $0.measures.flaw == nil }).min(by: { $0.activity < $1.activity }) {
            return Choice(frame: calmer.frame, time: calmer.time,
                          reason: "every picture looked at in \(span) is \(Set(skipped).sorted().joined(separator: " or ")): "
                              + "the calmest (\(calmer.measures.summary))")
        }
        let best = looked.max(by: { $0.measures.contrast < $1.measures.contrast })!
        return Choice(frame: best.frame, time: best.time,
                      reason: "every picture looked at in \(span) is \(Set(skipped).sorted().joined(separator: " or ")): the most contrast (\(best.measures.summary))")
    }
}

extension RepresentativeFrames {
    /// How much the picture at `time` (`small`, shrunk) changes to the next: the content
    /// detector's score between the two. What a scene scan gives each picture of `dump
    /// --scenes`, measured here for slots without one (`sheet`, `dump --count`): near 0 in a
    /// still shot, several points a picture through a dissolve or a fade. The next picture
    /// is decoded on from it, not sought (a second one cost a sheet 12 % more and chose no
    /// better). Nil when no picture follows it (the clip's end).
    func activity(after time: Rational, of small: Frame) throws -> Double? {
        let detector = ContentDetector(minSceneLength: 1)
        _ = detector.measure(small)
        let step = 1 / max(1, stills.info.frameRate ?? 30)
        let next = time + Rational(Int64((step * 1_000_000).rounded()), 1_000_000)
        guard let picture = try stills.picture(at: next) else { return nil }
        return detector.measure(FrameScaler.resize(picture, width: small.width, height: small.height)) ?? 0
    }

    /// The choices in slot order as a ``FrameSupply``: each frame's tick is the cadence's
    /// tick at its time (what a caption's `{tick}` and `{timecode}` show), its note the
    /// reason it was chosen.
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
                let frame = choice.frame
                reasons.append(choice.reason)
                return frame
            }
            return nil
        }

        func note(forFrame index: Int) -> String? { index < reasons.count ? reasons[index] : nil }
    }
}
