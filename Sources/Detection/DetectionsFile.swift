public import Foundation
public import FrameCore

/// A detections file read back as the boxes to draw or redact: the edit format of a
/// redaction review. It is the JSON Lines that `vidfx detect --json` and `--detections`
/// write, one object per tick, `{"tick": N, "detections": [{"kind", "trackID",
/// "bounds": {"x", "y", "width", "height"}, …}]}`; only `tick`, `bounds` and (for
/// faces, the default kind) nothing else are required.
///
/// - A track that is not in the file is not there: removing a track's boxes leaves its
///   face untouched.
/// - A box with `"manual": true` (any `trackID`) is a box a person drew.
/// - Between two ticks that give a box for one track, the ticks that give none for it
///   get a box interpolated between the two, as ``DetectionTimeline`` carries boxes
///   between detections. To end a track early, give its later boxes another `trackID`.
public struct DetectionsFile: Sendable {
    /// Each track's boxes as the file gives them, by tick; the ticks between two of them
    /// are interpolated when asked for, so a gap costs nothing however long it is.
    private let tracks_: [[(tick: Int64, observation: Observation)]]
    /// Boxes without a track, by tick: each its own, never interpolated.
    private let untracked: [Int64: [Observation]]
    /// The file's last tick (-1 when it has none).
    public let lastTick: Int64
    /// Boxes marked manual in the file.
    public let manualBoxes: Int
    /// Distinct tracks (each box without a track counts as one).
    public let tracks: Int

    /// The most boxes one line (one tick) may give.
    public static let mostBoxesPerTick = 1_000
    /// The most tracks a file may have.
    public static let mostTracks = 10_000
    /// The most boxes a file may give in all (a two-hour clip at 30 fps with a face a tick
    /// and some to spare); with interpolation done as ticks are asked for, memory is
    /// bounded by this, not by the clip's length.
    public static let mostBoxes = 2_000_000

    /// The boxes at `tick`: those the file gives there, and those interpolated between
    /// a track's boxes on either side of it.
    public func observations(at tick: Int64) -> [Observation] {
        var out = untracked[tick] ?? []
        for track in tracks_ {
            guard let first = track.first, let last = track.last, first.tick <= tick, tick <= last.tick else { continue }
            // The first entry after `tick`.
            var low = 0, high = track.count
            while low < high {
                let mid = (low + high) / 2
                if track[mid].tick <= tick { low = mid + 1 } else { high = mid }
            }
            let entry = track[low - 1]
            if entry.tick == tick { out.append(entry.observation); continue }
            let next = track[low]
            var o = entry.observation
            o.bounds = entry.observation.bounds.interpolated(to: next.observation.bounds,
                                                             Double(tick - entry.tick) / Double(next.tick - entry.tick))
            o.isInterpolated = true
            o.isManual = entry.observation.isManual || next.observation.isManual
            out.append(o)
        }
        return out
    }

    /// Reads and checks `path`. `tickLimit`, when the render's length is known, is its
    /// number of ticks: a tick at or past it is an error.
    /// - Throws: ``DetectionsFileError`` naming the file, the line and the cause.
    public static func load(path: String, tickLimit: Int64? = nil) throws(DetectionsFileError) -> DetectionsFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DetectionsFileError(path: path, line: nil, cause: "cannot read (\(String(cString: strerror(errno))))")
        }
        return try parse(data, path: path, tickLimit: tickLimit)
    }

    /// Parses the bytes of a detections file (`path` names it in errors). Ticks are at
    /// most 2^40 (and below `tickLimit` when given), a line has at most
    /// ``mostBoxesPerTick`` boxes, the file at most ``mostTracks`` tracks and
    /// ``mostBoxes`` boxes.
    public static func parse(_ data: Data, path: String, tickLimit: Int64? = nil) throws(DetectionsFileError) -> DetectionsFile {
        let decoder = JSONDecoder()
        var given: [TrackKey: [(tick: Int64, observation: Observation)]] = [:]
        var order: [TrackKey] = []
        var seenTicks = Set<Int64>()
        var lastTick: Int64 = -1
        var manual = 0
        var total = 0
        var untracked: [Int64: [Observation]] = [:]
        var lineNumber = 0
        for rawLine in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.last == 0x0D ? rawLine.dropLast() : rawLine
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            func fail(_ cause: String) -> DetectionsFileError { DetectionsFileError(path: path, line: lineNumber, cause: cause) }
            let tick: TickLine
            do { tick = try decoder.decode(TickLine.self, from: Data(line)) } catch {
                throw fail("not a detections line: \(TickLine.describe(error))")
            }
            guard tick.tick >= 0 else { throw fail("tick \(tick.tick) is negative") }
            guard tick.tick < 1 << 40 else { throw fail("tick \(tick.tick) is beyond any clip (2^40 ticks)") }
            if let tickLimit, tick.tick >= tickLimit {
                throw fail("tick \(tick.tick) is beyond the clip, which has \(tickLimit) ticks (0…\(tickLimit - 1))")
            }
            guard seenTicks.insert(tick.tick).inserted else { throw fail("tick \(tick.tick) appears twice") }
            guard tick.detections.count <= mostBoxesPerTick else {
                throw fail("\(tick.detections.count) boxes in one tick; a tick may have up to \(mostBoxesPerTick)")
            }
            total += tick.detections.count
            guard total <= mostBoxes else { throw fail("more than \(mostBoxes) boxes in the file") }
            lastTick = max(lastTick, tick.tick)
            for (i, d) in tick.detections.enumerated() {
                let b = d.bounds
                guard b.x.isFinite, b.y.isFinite, b.width.isFinite, b.height.isFinite, abs(b.x) < 1e6, abs(b.y) < 1e6,
                      b.width < 1e6, b.height < 1e6 else {
                    throw fail("detection \(i + 1): bounds must be finite numbers")
                }
                guard b.width > 0, b.height > 0 else { throw fail("detection \(i + 1): bounds must have a positive width and height") }
                let kind: Observation.Kind
                if let name = d.kind {
                    guard let k = Observation.Kind(rawValue: name) else { throw fail("detection \(i + 1): unknown kind \"\(name)\"") }
                    kind = k
                } else {
                    kind = .face
                }
                var o = Observation(kind: kind, bounds: Rect(x: b.x, y: b.y, width: b.width, height: b.height),
                                    payload: d.payload, payloadBase64: d.payloadBase64,
                                    confidence: d.confidence.map { $0.isFinite ? min(1, max(0, $0)) : 1 } ?? 1,
                                    trackID: d.trackID ?? 0, isInterpolated: false)
                o.isManual = d.manual ?? false
                o.corners = (d.corners ?? []).compactMap { $0.x.isFinite && $0.y.isFinite ? Point(x: $0.x, y: $0.y) : nil }
                if o.isManual { manual += 1 }
                // Boxes without a track are their own track: never interpolated.
                if o.trackID == 0 { untracked[tick.tick, default: []].append(o); continue }
                let key = TrackKey(kind: kind, id: o.trackID)
                if given[key] == nil {
                    guard order.count < mostTracks else { throw fail("more than \(mostTracks) tracks in the file") }
                    order.append(key)
                }
                given[key, default: []].append((tick.tick, o))
            }
        }
        let tracks = order.map { key in given[key]!.sorted { $0.tick < $1.tick } }
        let loose = untracked.values.reduce(0) { $0 + $1.count }
        return DetectionsFile(tracks_: tracks, untracked: untracked, lastTick: lastTick, manualBoxes: manual, tracks: tracks.count + loose)
    }

    private struct TrackKey: Hashable {
        var kind: Observation.Kind
        var id: Int
    }

    private struct TickLine: Decodable {
        struct Box: Decodable { var x: Double; var y: Double; var width: Double; var height: Double }
        struct XY: Decodable { var x: Double; var y: Double }
        struct Detection: Decodable {
            var kind: String?
            var trackID: Int?
            var bounds: Box
            var manual: Bool?
            var confidence: Double?
            var payload: String?
            var payloadBase64: String?
            var corners: [XY]?
        }
        var tick: Int64
        var detections: [Detection]

        static func describe(_ error: any Error) -> String {
            switch error as? DecodingError {
            case .keyNotFound(let key, let context)?:
                return "no \"\(path(context.codingPath + [key]))\""
            case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
                return "\"\(path(context.codingPath))\" has the wrong type"
            case .dataCorrupted(let context)?:
                return context.codingPath.isEmpty ? "not JSON" : "\"\(path(context.codingPath))\": \(context.debugDescription)"
            default:
                return "not JSON"
            }
        }

        private static func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined().trimmingCharacters(in: CharacterSet(charactersIn: "."))
        }
    }
}

/// A detections file that cannot be used: which file, which line, and why.
public struct DetectionsFileError: Error, CustomStringConvertible, Sendable {
    /// The file.
    public let path: String
    /// The line (from 1), when the fault is on one.
    public let line: Int?
    /// What is wrong.
    public let cause: String

    /// One line: `FILE:LINE: cause`.
    public var description: String { line.map { "\(path):\($0): \(cause)" } ?? "\(path): \(cause)" }
}

extension DetectionsFileError: UserFacingError {}
