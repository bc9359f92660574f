public import FrameCore
import Foundation

/// Scenes from cuts: each runs from a cut (or the first picture) to the next cut (or
/// the end), and prints as text, JSON or PySceneDetect's CSV.
public struct SceneList: Sendable {
    /// A picture's number and time.
    public struct Position: Sendable, Equatable, Codable {
        /// The picture's number, from 0.
        public var frame: Int
        /// Its presentation time in seconds (exact).
        public var time: Rational

        /// The position of picture `frame`, shown at `time`.
        public init(frame: Int, time: Rational) {
            self.frame = frame
            self.time = time
        }

        enum CodingKeys: String, CodingKey { case frame, time }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(frame, forKey: .frame)
            try c.encode(SceneList.rounded(time.seconds), forKey: .time)
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            frame = try c.decode(Int.self, forKey: .frame)
            time = Rational(Int64((try c.decode(Double.self, forKey: .time) * 1_000_000).rounded()), 1_000_000)
        }
    }

    /// One scene: from `start` up to, not including, `end`.
    public struct Scene: Sendable, Equatable, Codable {
        /// Its first picture.
        public var start: Position
        /// The picture after its last (the next scene's first), or the end of the video.
        public var end: Position
    }

    /// The cuts, in order.
    public let cuts: [Cut]
    /// The scenes the cuts make.
    public let scenes: [Scene]

    /// The scenes between `start` (the first picture read) and `end` (where the last
    /// picture stops being shown), cut at `cuts` (which must lie between them, in order).
    public init(cuts: [Cut], start: Position, end: Position) {
        self.cuts = cuts
        var scenes: [Scene] = []
        var from = start
        for cut in cuts {
            let at = Position(frame: cut.frame, time: cut.time)
            scenes.append(Scene(start: from, end: at))
            from = at
        }
        scenes.append(Scene(start: from, end: end))
        self.scenes = scenes
    }

    /// Times to the microsecond, for printing.
    static func rounded(_ seconds: Double) -> Double { (seconds * 1_000_000).rounded() / 1_000_000 }

    /// `{"cuts": [{"frame", "time", "score"}], "scenes": [{"start": {…}, "end": {…}}]}`.
    public func json() -> String {
        struct CutJSON: Encodable { var frame: Int; var time: Double; var score: Double }
        struct Document: Encodable { var cuts: [CutJSON]; var scenes: [Scene] }
        let document = Document(cuts: cuts.map { CutJSON(frame: $0.frame, time: SceneList.rounded($0.time.seconds),
                                                        score: ($0.score * 1000).rounded() / 1000) },
                                scenes: scenes)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: (try? encoder.encode(document)) ?? Data("{}".utf8), as: UTF8.self) + "\n"
    }

    /// PySceneDetect's `list-scenes` CSV: a row of the cuts' timecodes, then one row a
    /// scene with its first picture counted from 1 and its end as the last picture's number.
    public func csv(rate: Double) -> String {
        var lines = [(["Timecode List:"] + cuts.map { SceneList.timecode($0.time.seconds) }).joined(separator: ",")]
        lines.append("Scene Number,Start Frame,Start Timecode,Start Time (seconds),End Frame,End Timecode,End Time (seconds),"
                     + "Length (frames),Length (timecode),Length (seconds)")
        for (i, scene) in scenes.enumerated() {
            let (s, e) = (scene.start.time.seconds, scene.end.time.seconds)
            lines.append([
                "\(i + 1)", "\(scene.start.frame + 1)", SceneList.timecode(s), String(format: "%.3f", s),
                "\(scene.end.frame)", SceneList.timecode(e), String(format: "%.3f", e),
                "\(scene.end.frame - scene.start.frame)", SceneList.timecode(e - s), String(format: "%.3f", e - s),
            ].joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One line a scene: its number, pictures and times.
    public func text() -> String {
        scenes.enumerated().map { i, scene in
            "scene \(i + 1): frames \(scene.start.frame)–\(scene.end.frame - 1), "
                + "\(SceneList.timecode(scene.start.time.seconds))–\(SceneList.timecode(scene.end.time.seconds))"
        }.joined(separator: "\n") + "\n"
    }

    /// HH:MM:SS.mmm, rounded to the millisecond.
    public static func timecode(_ seconds: Double) -> String {
        let ms = Int((max(0, seconds) * 1000).rounded())
        return String(format: "%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }
}
