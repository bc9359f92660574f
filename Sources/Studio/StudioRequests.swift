package import Foundation
import FrameCore

/// `POST /api/render`'s body, typed: `{"chain", "output", "start"?, "duration"?, "loop"?,
/// "detections"?}`. Every field is checked against its range as it is read; a wrong type,
/// a number out of range or an unknown shape is refused with a line naming the field.
package struct RenderRequest: StudioRequestBody, Sendable, Equatable {
    /// The chain, as the command line's `-e` takes it ("" for none).
    package var chain: String
    /// The file's name in the outputs folder.
    package var output: String
    /// Where in the input to start, in seconds.
    package var start: Double?
    /// How long a piece to render, in seconds.
    package var duration: Double?
    /// How many times the clip plays in all, 1…100000.
    package var loop: Int?
    /// A reviewed detections file in the outputs folder (`--use-detections`).
    package var detections: String?

    private enum CodingKeys: String, CodingKey { case chain, output, start, duration, loop, detections }

    /// What each field must be, for the refusal.
    package static let expected: [String: String] = [
        "chain": "a chain as text",
        "output": "a file name is needed",
        "start": "a number of seconds, 0…\(InputLimits.longestTime)",
        "duration": "a number of seconds, 0…\(InputLimits.longestTime)",
        "loop": "how many times the clip plays in all, 1…100000",
        "detections": "a file name in the outputs folder",
    ]

    package init(chain: String = "", output: String, start: Double? = nil, duration: Double? = nil, loop: Int? = nil, detections: String? = nil) {
        (self.chain, self.output, self.start, self.duration, self.loop, self.detections) = (chain, output, start, duration, loop, detections)
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        chain = try c.decodeIfPresent(String.self, forKey: .chain) ?? ""
        output = try c.decode(String.self, forKey: .output)
        start = try c.decodeIfPresent(Double.self, forKey: .start)
        duration = try c.decodeIfPresent(Double.self, forKey: .duration)
        // Read as a number and then checked whole: Foundation's decoder reports 1.5 read as an
        // integer as "not valid JSON", without naming the field.
        if let count = try c.decodeIfPresent(Double.self, forKey: .loop) {
            guard count == count.rounded(), (1...100_000).contains(count) else { throw Self.refusal("loop") }
            loop = Int(count)
        } else {
            loop = nil
        }
        detections = try c.decodeIfPresent(String.self, forKey: .detections)
        for (key, value) in [(CodingKeys.start, start), (.duration, duration)] {
            // Bounded, not just finite: 9e18 once reached the decoder's and the audio's
            // 64-bit arithmetic and trapped.
            if let value, InputLimits.time(seconds: value) == nil { throw Self.refusal(key.stringValue) }
        }
    }

    /// What the whole body must look like.
    package static let shape = "{\"chain\": …, \"output\": \"NAME.mp4\"}"
}

/// A JSON body the studio reads into a type: every field checked as it is read, and a
/// refusal (400) naming the field that is wrong, or the shape when the body is not one.
package protocol StudioRequestBody: Decodable {
    /// What each field must be, for the refusal.
    static var expected: [String: String] { get }
    /// What the whole body must look like.
    static var shape: String { get }
}

extension StudioRequestBody {
    static func refusal(_ field: String) -> StudioRequestError {
        StudioRequestError(.badRequest, "\(field): \(expected[field] ?? "not understood")")
    }

    /// The request in `body`, or a 400 naming what is wrong.
    package static func decode(_ body: Data) throws(StudioRequestError) -> Self {
        do {
            return try JSONDecoder().decode(Self.self, from: body)
        } catch let error as StudioRequestError {
            throw error
        } catch let DecodingError.keyNotFound(key, context) {
            throw refusal((context.codingPath.first ?? key).stringValue)
        } catch let DecodingError.typeMismatch(_, context) where !context.codingPath.isEmpty {
            throw refusal(context.codingPath[0].stringValue)
        } catch let DecodingError.valueNotFound(_, context) where !context.codingPath.isEmpty {
            throw refusal(context.codingPath[0].stringValue)
        } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
            throw refusal(context.codingPath[0].stringValue)
        } catch {
            throw StudioRequestError(.badRequest, "the body must be a JSON object \(shape)")
        }
    }
}

/// `POST /api/detect`'s body: `{"output": "NAME.jsonl"}`.
package struct DetectRequest: StudioRequestBody, Sendable, Equatable {
    /// The detections file's name in the outputs folder.
    package var output: String

    package static let expected = ["output": "a file name ending in .jsonl is needed"]
    package static let shape = "{\"output\": \"NAME.jsonl\"}"

    private enum CodingKeys: String, CodingKey { case output }

    package init(from decoder: any Decoder) throws {
        output = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .output)
        guard output.hasSuffix(".jsonl") else { throw Self.refusal("output") }
    }
}

/// `POST /api/follow`'s body: `{"tick", "box": {"x", "y", "width", "height"}, "limit"?}`,
/// a box drawn on a tick, in pixels, followed at most `limit` ticks each way.
package struct FollowRequest: StudioRequestBody, Sendable, Equatable {
    /// The tick the box was drawn on.
    package var tick: Int64
    /// The box's left, top, width and height in pixels.
    package var x, y, width, height: Double
    /// Ticks to follow each way, 0…3000 (150 when not given).
    package var limit: Int

    package static let expected = ["tick": "the tick the box was drawn on", "box": "{\"x\", \"y\", \"width\", \"height\"} in pixels",
                           "limit": "0…3000 ticks"]
    package static let shape = "{\"tick\": N, \"box\": {\"x\", \"y\", \"width\", \"height\"}}"

    private enum CodingKeys: String, CodingKey { case tick, box, limit }
    private enum BoxKeys: String, CodingKey { case x, y, width, height }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // Whole numbers read as numbers, then checked: 1.5 or 2^64 are not ticks.
        let t = try c.decode(Double.self, forKey: .tick)
        guard t == t.rounded(), t >= 0, t < Double(1 << 40) else { throw Self.refusal("tick") }
        tick = Int64(t)
        let box = try c.nestedContainer(keyedBy: BoxKeys.self, forKey: .box)
        (x, y, width, height) = (try box.decode(Double.self, forKey: .x), try box.decode(Double.self, forKey: .y),
                                 try box.decode(Double.self, forKey: .width), try box.decode(Double.self, forKey: .height))
        guard [x, y, width, height].allSatisfy(\.isFinite) else { throw Self.refusal("box") }
        let l = try c.decodeIfPresent(Double.self, forKey: .limit) ?? 150
        guard l == l.rounded(), (0...3000).contains(l) else { throw Self.refusal("limit") }
        limit = Int(l)
    }
}

/// One message of the page's WebSocket, typed: a chain edit (`chain`, `edit`), play or
/// pause (`play`), a seek (`seek`, a tick) and the wipe (`split`, 0…1 or null for none).
/// Each field is read on its own: a field of the wrong type or out of range is left out
/// (as if not sent) and the others still apply, since a page sends them together.
package struct LiveCommand: Decodable, Sendable, Equatable {
    /// A new chain for the live preview.
    package var chain: String?
    /// The page's number for that edit, echoed in the answer (0…2^31 − 1).
    package var edit: Int?
    /// Play (true) or pause.
    package var play: Bool?
    /// A tick to show, 0…``StudioPlayback/largestTick``.
    package var seek: Int64?
    /// Whether the message sets the wipe; `split` is then its position, nil for none.
    package var setsSplit = false
    /// The wipe's position.
    package var split: Double?

    private enum CodingKeys: String, CodingKey { case chain, edit, play, seek, split }

    package init(chain: String? = nil, edit: Int? = nil, play: Bool? = nil, seek: Int64? = nil, setsSplit: Bool = false, split: Double? = nil) {
        (self.chain, self.edit, self.play, self.seek, self.setsSplit, self.split) = (chain, edit, play, seek, setsSplit, split)
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        chain = try? c.decodeIfPresent(String.self, forKey: .chain)
        // Whole numbers only: JSON's true, 1.5 or 2^64 are not ticks (2^63 − 1 as a seek
        // once overflowed the tick arithmetic and ended the process).
        edit = (try? c.decodeIfPresent(Int32.self, forKey: .edit)).flatMap { $0.map(Int.init) }.flatMap { $0 >= 0 ? $0 : nil }
        play = try? c.decodeIfPresent(Bool.self, forKey: .play)
        seek = (try? c.decodeIfPresent(Int64.self, forKey: .seek)).flatMap { $0 }.flatMap {
            (0...StudioPlayback.largestTick).contains($0) ? $0 : nil
        }
        setsSplit = c.contains(.split)
        split = (try? c.decodeIfPresent(Double.self, forKey: .split)).flatMap { $0 }
    }

    /// The message in `text`, or nil when it is not a JSON object.
    package static func decode(_ text: String) -> LiveCommand? {
        try? JSONDecoder().decode(LiveCommand.self, from: Data(text.utf8))
    }
}
