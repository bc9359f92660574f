import Foundation
public import FrameCore
import Sinks

/// What the frames of a render carried, counted as they pass the detection stage.
public struct RedactionTally: Sendable {
    /// Face boxes a detector reported for their own tick (not carried, not held).
    public var facesFound = 0
    /// Face boxes on all ticks, carried and interpolated ones included.
    public var faceBoxes = 0
    /// Distinct face tracks.
    public var tracks = Set<Int>()
    /// Ticks that had at least one face box.
    public var ticksWithFaces = 0
    /// Ticks in all.
    public var ticks = 0
    /// Manual boxes, one per tick each covers.
    public var manualBoxes = 0
    /// Pixels the chain's redaction replaced, over all ticks (`EffectChain.redactedPixels(in:time:)`).
    public var redactedPixels = 0
    /// Pixels of all ticks.
    public var pixels = 0
    /// The largest share of one tick's picture redacted, 0…1.
    public var largestRedactedShare = 0.0
    /// Per track, the ticks where it was held at its predicted place: a detection that
    /// should have found it did not (a possible miss).
    public var held: [Int: [Int64]] = [:]

    /// Counts `frame`, the render's tick `tick`.
    public mutating func count(_ frame: Frame, tick: Int64, redacted: Int = 0) {
        ticks += 1
        let area = frame.width * frame.height
        pixels += area
        redactedPixels += redacted
        if area > 0 { largestRedactedShare = max(largestRedactedShare, Double(redacted) / Double(area)) }
        var any = false
        for o in frame.observations where o.kind == .face {
            any = true
            faceBoxes += 1
            if o.isManual { manualBoxes += 1 } else { tracks.insert(o.trackID) }
            if !o.isInterpolated && !o.isManual { facesFound += 1 }
            if o.isHeld { held[o.trackID, default: []].append(tick) }
        }
        if any { ticksWithFaces += 1 }
    }
}

/// The report a redacting render writes beside its output (`OUT.redaction.json`, or
/// `redaction.json` in dump's folder) and sums up in one line on stderr: what was found,
/// where a track was expected and not detected, and what was drawn by hand.
public struct RedactionReport: Encodable, Sendable {
    /// A run of ticks where a track was held, not detected.
    public struct Miss: Encodable, Sendable {
        /// The track.
        public var trackID: Int
        /// Its first held tick.
        public var firstTick: Int64
        /// Its last held tick.
        public var lastTick: Int64
        /// Ticks held.
        public var ticks: Int
    }
    /// The input.
    public var input: String
    /// The output.
    public var output: String
    /// "detector", or the detections file the boxes came from.
    public var source: String
    /// Ticks rendered.
    public var ticks: Int
    /// Ticks with a face box.
    public var ticksWithFaces: Int
    /// Boxes a detector found on their own tick.
    public var facesFound: Int
    /// Face boxes on all ticks.
    public var faceBoxes: Int
    /// Distinct face tracks.
    public var tracks: Int
    /// Boxes drawn by hand, one per tick.
    public var manualBoxes: Int
    /// Where a track was expected and not detected.
    public var possibleMisses: [Miss]
    /// The share of the picture the redaction replaced, over all ticks, 0…1 (the union of
    /// the redacted shapes; the rest of each frame is left exactly as it was).
    public var redactedShare: Double
    /// The largest share of one tick's picture it replaced, 0…1.
    public var largestRedactedShare: Double
    /// Boxes the recheck found over heads in redacted detection frames (a blurred head's
    /// outline, still found as a face), each of which widened its face's box.
    public var foundOnRecheck: Int
    /// The input's metadata keys that said where it was filmed and were left out of the
    /// output (`location`, `com.apple.quicktime.location.ISO6709`…); empty when it had
    /// none or `--metadata keep` kept them.
    public var locationRemoved: [String] = []

    /// The report of a render from `input` to `output` (`fromFile`: the reviewed detections file).
    public init(tally: RedactionTally, input: String, output: String, fromFile: String?, foundOnRecheck: Int = 0) {
        self.foundOnRecheck = foundOnRecheck
        self.input = input
        self.output = output
        source = fromFile.map { "detections file \($0)" } ?? "detector"
        ticks = tally.ticks
        ticksWithFaces = tally.ticksWithFaces
        facesFound = tally.facesFound
        faceBoxes = tally.faceBoxes
        tracks = tally.tracks.count
        manualBoxes = tally.manualBoxes
        redactedShare = tally.pixels > 0 ? Double(tally.redactedPixels) / Double(tally.pixels) : 0
        largestRedactedShare = tally.largestRedactedShare
        var misses: [Miss] = []
        for (track, held) in tally.held.sorted(by: { $0.key < $1.key }) {
            // Runs of consecutive held ticks: one possible miss each.
            var start = held[0], last = held[0]
            for t in held.dropFirst() {
                if t != last + 1 {
                    misses.append(Miss(trackID: track, firstTick: start, lastTick: last, ticks: Int(last - start + 1)))
                    start = t
                }
                last = t
            }
            misses.append(Miss(trackID: track, firstTick: start, lastTick: last, ticks: Int(last - start + 1)))
        }
        possibleMisses = misses.sorted { ($0.firstTick, $0.trackID) < ($1.firstTick, $1.trackID) }
    }

    /// The one line for stderr.
    public var line: String {
        func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
        var s = source == "detector" ? "redaction: \(count(facesFound, "face", "faces")) found"
                                     : "redaction: \(count(faceBoxes, "box", "boxes")) from the detections file"
        s += " on \(ticksWithFaces) of \(count(ticks, "tick", "ticks")), \(count(tracks, "track", "tracks"))"
        let missed = possibleMisses.reduce(0) { $0 + $1.ticks }
        s += ", \(count(possibleMisses.count, "possible miss", "possible misses"))"
        if missed > 0 { s += " (\(count(missed, "tick", "ticks")) held)" }
        s += ", \(count(manualBoxes, "manual box", "manual boxes"))"
        s += ", \(Self.percent(redactedShare)) of the picture redacted"
        if largestRedactedShare > redactedShare { s += " (at most \(Self.percent(largestRedactedShare)) of a frame)" }
        if foundOnRecheck > 0 { s += ", \(foundOnRecheck) outlines found again on the redacted frames and covered" }
        if !locationRemoved.isEmpty { s += "; the input's location (\(locationRemoved.joined(separator: ", "))) left out (--metadata keep keeps it)" }
        return s
    }

    /// A share as a percentage with one decimal ("4.2%"); a share above 0 never shows as 0.0%.
    static func percent(_ share: Double) -> String {
        let p = share * 100
        if p > 0 && p < 0.05 { return "<0.1%" }
        return String(format: "%.1f%%", p)
    }

    /// Where the report of a render to `output` goes: `clip.mp4` → `clip.redaction.json`;
    /// a folder (dump) → `folder/redaction.json`; nil for standard output.
    public static func path(for output: String, folder: Bool) -> String? {
        guard output != "-" else { return nil }
        if folder { return (output as NSString).appendingPathComponent("redaction.json") }
        return (output as NSString).deletingPathExtension + ".redaction.json"
    }

    /// Fails before a render when the report would replace a file without `-y`.
    public static func check(_ path: String?, overwrite: Bool) throws {
        if let path, !overwrite, FileManager.default.fileExists(atPath: path) {
            throw RenderError("\(path): already exists (the redaction report; use -y to overwrite)")
        }
    }

    /// Writes the report to `path` (atomically).
    public func write(to path: String, overwrite: Bool) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let data = try encoder.encode(self) + Data("\n".utf8)
        do { try AtomicOutput.write(data, to: path, overwrite: overwrite) } catch {
            throw RenderError("\(path): cannot write the redaction report (\(error.reason))")
        }
    }
}
