import ArgumentParser
import Detection
import Effects
import Foundation
import FrameCore
import FrameSource
import Render
import Sinks

/// `vidfx detect INPUT`: what is in each frame — QR codes and barcodes — as JSON Lines
/// or a table.
struct Detect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find QR codes, barcodes and faces in each frame of the cadence: JSON Lines or a table.",
        discussion: """
        One line per tick. With --json, one object a line: {"tick", "time", "sourceTime", "detections": [...]}, \
        each detection with its kind, bounds, corners (codes, reading order: top-left, top-right, bottom-right, \
        bottom-left), payload (or payloadBase64 when it is not UTF-8 text), landmarks, roll and yaw (faces), \
        confidence, trackID (the same while the face or code stays in view) and interpolated (true for ticks \
        between two detections, with --detect-every above 1). \
        Coordinates are the displayed frame's pixels (after rotation, square pixels).
        A summary goes to stderr: ticks, detections by kind, distinct tracks, speed.

        Examples:
          vidfx detect clip.mp4 --json > codes.jsonl
          vidfx detect https://example.com/clip.mp4 --what qr --start 5 --duration 2
          vidfx detect crowd.mp4 --what faces --detect-every 3
        """
    )

    enum What: String, CaseIterable, ExpressibleByArgument {
        case qr, barcodes, codes, faces
    }

    @Argument(help: "Video or image file, http(s) URL, or - for standard input.")
    var input: String

    @Option(help: ArgumentHelp("What to look for: qr, barcodes, codes (both) and faces, comma-separated.", valueName: "list"))
    var what: String = "codes"

    @Flag(help: "JSON Lines on stdout (one object per tick) instead of a table.")
    var json = false

    @Flag(name: .shortAndLong, help: "No summary on stderr.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "The table also shows each face's landmarks (eyes, nose, mouth corners).")
    var verbose = false

    @Flag(name: .customLong("redaction"),
          help: "Detect faces as a redacting render does (score 0.2, small faces 0.1 as faceblur's erase and blurs take them, tracks held through short misses): a detections file to review and render with --use-detections.")
    var redaction = false

    @OptionGroup var detection: DetectionOptions
    @OptionGroup var timeline: TimelineOptions
    @OptionGroup var source: SourceOptions

    func validate() throws {
        _ = try wanted()
    }

    /// What `--what` asks for: the detectors, and which codes.
    func wanted() throws -> (needs: DetectionNeeds, codes: CodeDetector.Symbologies) {
        var codes: CodeDetector.Symbologies = []
        var needs: DetectionNeeds = []
        for item in what.split(separator: ",") {
            let name = item.trimmingCharacters(in: .whitespaces).lowercased()
            switch What(rawValue: name) {
            case .qr: codes.insert(.qr)
            case .barcodes: codes.insert(.barcodes)
            case .codes: codes.formUnion(.all)
            case .faces: needs.insert(.faces)
            case nil: throw ValidationError("--what: '\(name)' is not one of qr, barcodes, codes, faces")
            }
        }
        if !codes.isEmpty { needs.insert(.codes) }
        guard !needs.isEmpty else { throw ValidationError("--what: nothing to look for") }
        return (needs, codes)
    }

    func run() throws {
        let interruption = Interruption()
        defer { interruption.end() }
        let (needs, codes) = try wanted()
        let output = DetectionOutput(json: json, landmarks: verbose)
        var plan = RenderPlan(input: try self.source.input(input, access: .seekable), output: .sink(output, name: "-"))
        plan.source = self.source.configuration(timeline: timeline, quiet: quiet)
        plan.detection = detection.settings
        plan.detecting = .init(needs: needs, codes: codes, redacting: redaction)
        // --detections FILE is this command's output: it is written whole, over an old one.
        plan.overwrite = true
        // Ctrl-C ends the reading: what was found so far is written, as at the end.
        plan.opened = { opening, _ in interruption.arm { opening.stop() } }
        let started = ContinuousClock.now
        let result = try plan.run(stop: StopSignal())
        let elapsed = (ContinuousClock.now - started) / .seconds(1)
        let ticks = result.outcome.frames
        if !quiet, let stage = result.stage {
            let kinds = output.countByKind.sorted { $0.key.rawValue < $1.key.rawValue }.map { kind, n in
                kind == .face ? Console.count(n, "face") : Console.count(n, "\(kind.rawValue) code")
            }
            let rate = elapsed > 0 ? Double(ticks) / elapsed : 0
            // A photo has no real time to compare with: its time is the figure.
            let speed = result.opening.info.isStillImage ? String(format: "%.2f s", elapsed)
                : String(format: "%.1f ticks/s (%.2fx real time)", rate, rate / result.opening.configuration.frameRate.seconds)
            Console.note("\(Console.count(ticks, "tick")), \(kinds.isEmpty ? "nothing found" : kinds.joined(separator: ", ")), "
                         + "\(Console.count(stage.tracksStarted, "track")), \(Console.count(stage.detections, "detection")) run, "
                         + speed)
        }
        if let sig = interruption.signal { throw ExitCode(128 + sig) }
    }
}

/// Writes each tick's detections to standard output: JSON Lines or Detection's table
/// (``DetectionTable``), and counts them. A sink of the render, like a video file.
final class DetectionOutput: FrameSink {
    private let json: Bool
    private let table: DetectionTable
    private var buffer = Data()
    private(set) var countByKind: [Observation.Kind: Int] = [:]
    private let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    init(json: Bool, landmarks: Bool = false) {
        self.json = json
        table = DetectionTable(landmarks: landmarks)
        if !json { buffer.append(contentsOf: DetectionTable.heading.utf8) }
    }

    var name: String { "stdout" }

    /// One tick.
    func write(_ frame: Frame) throws(SinkError) -> Bool {
        for o in frame.observations where !o.isInterpolated { countByKind[o.kind, default: 0] += 1 }
        if json {
            if let data = try? encoder.encode(TickJSON(frame)) { buffer.append(data) }
            buffer.append(0x0A)
        } else {
            buffer.append(contentsOf: table.lines(frame).utf8)
        }
        if buffer.count > 1 << 16 { return try flush() }
        return true
    }

    func finish() throws(SinkError) { try flush() }

    func abandon() { _ = try? flush() }

    /// Writes out what is buffered. False when the reader has gone (`… | head`): the
    /// render then ends there, quietly.
    @discardableResult
    func flush() throws(SinkError) -> Bool {
        defer { buffer.removeAll(keepingCapacity: true) }
        let failure = Console.write(buffer, to: STDOUT_FILENO)
        if failure == EPIPE { return false }
        guard failure == 0 else { throw SinkError(path: "standard output", reason: String(cString: strerror(failure))) }
        return true
    }
}
