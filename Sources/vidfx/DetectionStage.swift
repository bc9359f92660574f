import ArgumentParser
import Detection
import Effects
import Foundation
import FrameCore
import Sinks

/// What the commands that render (apply, dump) and `detect` share about detection.
struct DetectionOptions: ParsableArguments {
    @Option(name: .customLong("detect-every"), parsing: .unconditional,
            help: ArgumentHelp("Run the detectors on every Nth tick and carry the boxes between (default: 1 for codes, 4 for faces).", valueName: "N"))
    var detectEvery: Int?

    @Option(name: .customLong("detections"), help: ArgumentHelp("Also write each tick's detections (JSON Lines, as `vidfx detect --json`) to this file.", valueName: "file.jsonl"))
    var detectionsPath: String?

    @Option(name: .customLong("face-model"), help: ArgumentHelp("The CenterFace ONNX model (default: the one make setup installed).", valueName: "path"))
    var faceModel: String?

    @Option(name: .customLong("face-threshold"), parsing: .unconditional,
            help: ArgumentHelp("Least face score, 0…1: lower finds more (and more false faces). Default 0.3; 0.2 when redacting (faceblur), where a missed face costs more than a blurred patch, and small faces (up to 8% of the picture's longer side) down to half the score.", valueName: "score"))
    var faceThreshold: Double?

    @Option(name: .customLong("face-size"), parsing: .unconditional,
            help: ArgumentHelp("The longer side, in pixels, of the picture the face network sees, never more than the frame's (larger: smaller faces, slower). Default 1280; 1920 when redacting.", valueName: "px"))
    var faceSize: Int?

    @Option(name: .customLong("face-recheck"), parsing: .unconditional,
            help: ArgumentHelp("When redacting: look again at each detection frame once redacted, up to N times, and widen every head whose outline is still found as a face. Default 0 with faceblur's erase (it leaves no outline), 1 with blur, pixelate or fill (each look costs about half a detection).", valueName: "N"))
    var faceRecheck: Int?

    @Option(name: .customLong("face-recheck-size"), parsing: .unconditional,
            help: ArgumentHelp("The size of each recheck look, as a share of the first look's (0.25…1). Default 0.75: about half a detection's cost, and as many outlines left as a look at full size.", valueName: "share"))
    var faceRecheckSize: Double?

    func validate() throws {
        if let n = faceRecheck, !(0...4).contains(n) { throw ValidationError("--face-recheck: must be 0…4, not \(n)") }
        if let n = detectEvery, !(1...300).contains(n) { throw ValidationError("--detect-every: must be 1…300, not \(n)") }
        if let t = faceThreshold, !(t > 0 && t < 1) { throw ValidationError("--face-threshold: must be between 0 and 1") }
        if let faceSize, !(64...4096).contains(faceSize) { throw ValidationError("--face-size: must be 64…4096 pixels") }
        if let s = faceRecheckSize, !(s >= 0.25 && s <= 1) { throw ValidationError("--face-recheck-size: must be 0.25…1, not \(s)") }
    }
}

/// `--use-detections FILE`, for the commands that render (apply, dump, preview).
struct ReviewedDetectionsOption: ParsableArguments {
    @Option(name: .customLong("use-detections"),
            help: ArgumentHelp("Draw and redact exactly the boxes in this detections file (JSON Lines, as `vidfx detect --json` writes; a reviewed one), and detect nothing. A track left out stays untouched; a box with \"manual\": true is redacted on its ticks; a track's boxes are interpolated between the ticks that give them.", valueName: "file.jsonl"))
    var path: String?

    /// The file, checked (against `tickLimit`, the render's ticks, when known).
    func load(tickLimit: Int?) throws -> DetectionsFile? {
        guard let path else { return nil }
        return try DetectionsFile.load(path: path, tickLimit: tickLimit.map { Int64($0) })
    }
}

/// Runs detection between the source and the chain when the chain's effects need it
/// (or `--detections` asks for the data): the frames go in, and come back in order with
/// their observations, a few ticks later (the look-ahead). With a reviewed detections
/// file, the frames get the file's boxes instead, at once, and nothing is detected.
final class DetectionStage {
    private let timeline: DetectionTimeline?
    private let file: DetectionsFile?
    private let frameRate: Double
    private let log: DetectionLog?
    /// Added to a frame's tick to find its boxes in the file (a segment of a render).
    var tickShift: Int64 = 0
    /// What the frames handed back carried, for the redaction report.
    private(set) var tally = RedactionTally()

    /// A stage that gives every frame the boxes of `file` at its tick (`frameRate` maps
    /// a still's time to its tick).
    init(file: DetectionsFile, frameRate: Double, options: DetectionOptions, overwrite: Bool) throws {
        self.file = file
        self.frameRate = frameRate
        timeline = nil
        log = try options.detectionsPath.map { try DetectionLog(path: $0, overwrite: overwrite) }
    }

    /// A stage for `needs`, or nil when nothing is to be detected.
    init?(needs: DetectionNeeds, options: DetectionOptions, overwrite: Bool, codes: CodeDetector.Symbologies = .all,
          redacting: Bool = false, recheck: RedactionRecheck? = nil) throws {
        guard !needs.isEmpty else { return nil }
        file = nil
        frameRate = 30
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        var sets: [[any Detector]] = []
        var looks: [any Detector] = []
        do {
            let threshold = options.faceThreshold ?? (redacting ? FaceDetector.redactionThreshold : FaceDetector.defaultThreshold)
            let side = options.faceSize ?? (redacting ? FaceDetector.redactionLargestSide : FaceDetector.defaultLargestSide)
            let small = redacting ? FaceDetector.redactionSmallFaceThreshold(threshold) : nil
            for _ in 0..<workers {
                var set: [any Detector] = []
                if needs.contains(.codes) { set.append(CodeDetector(symbologies: codes)) }
                if needs.contains(.faces) {
                    let model = options.faceModel ?? FaceDetector.defaultModelPath()
                    set.append(try FaceDetector(modelPath: model, threshold: threshold, smallFaceThreshold: small, largestSide: side))
                    if recheck != nil {
                        looks.append(try FaceDetector(modelPath: model, threshold: threshold, largestSide: side,
                                                      sizeFactor: options.faceRecheckSize ?? RedactionRecheck.lookSize))
                    }
                }
                sets.append(set)
            }
        }
        // Workers run in parallel: one OpenCV thread each, rather than each taking every core.
        if needs.contains(.faces) { FaceDetector.setThreads(1) }
        let every = options.detectEvery ?? (needs.contains(.faces) ? 4 : 1)
        timeline = DetectionTimeline(every: every, detectorSets: sets, redacting: redacting,
                                     recheck: needs.contains(.faces) ? recheck : nil, recheckLooks: looks)
        log = try options.detectionsPath.map { try DetectionLog(path: $0, overwrite: overwrite) }
    }

    /// Distinct tracks so far.
    var tracksStarted: Int { timeline?.tracksStarted ?? file?.tracks ?? 0 }
    /// Detector runs so far.
    var detections: Int { timeline?.detections ?? 0 }
    /// Boxes the redaction recheck found so far.
    var recheckFinds: Int { timeline?.recheckFinds ?? 0 }
    /// Whether the boxes come from a reviewed file.
    var usesFile: Bool { file != nil }

    /// Takes the next frame; returns those now ready, with their observations.
    func push(_ frame: Frame) throws -> [Frame] {
        if let file {
            var out = frame
            // A still (dump --at) carries its time; a cadence frame's time is its tick's.
            out.observations = file.observations(at: Int64((frame.time.seconds * frameRate).rounded()) + tickShift)
            return try record([out])
        }
        let frames: [Frame]
        frames = try timeline!.push(frame)
        return try record(frames)
    }

    /// The remaining frames.
    func finish() throws -> [Frame] {
        guard let timeline else { return [] }
        let frames: [Frame]
        frames = try timeline.finish()
        return try record(frames)
    }

    /// Publishes the `--detections` file (after the render succeeded).
    func publish() throws { try log?.publish() }

    /// Removes the unfinished `--detections` file.
    func abandon() { log?.abandon() }

    private func record(_ frames: [Frame]) throws -> [Frame] {
        for frame in frames { tally.count(frame, tick: frame.tick + tickShift) }
        if let log { for frame in frames { try log.write(frame) } }
        return frames
    }
}

/// `--detections FILE`: JSON Lines written beside the target and renamed into place.
final class DetectionLog {
    private let path: String
    private let work: String
    private let overwrite: Bool
    private let handle: FileHandle
    private var buffer = Data()
    private let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    init(path: String, overwrite: Bool) throws {
        if !overwrite, FileManager.default.fileExists(atPath: path) {
            throw CommandFailure(message: "\(path): already exists (use -y to overwrite)")
        }
        self.path = path
        self.overwrite = overwrite
        AtomicOutput.removeStaleWork(besides: path)
        work = AtomicOutput.workPath(for: path)
        guard FileManager.default.createFile(atPath: work, contents: nil), let handle = FileHandle(forWritingAtPath: work) else {
            throw CommandFailure(message: "\(path): cannot write (\(String(cString: strerror(errno))))")
        }
        self.handle = handle
    }

    func write(_ frame: Frame) throws {
        buffer.append(try encoder.encode(TickJSON(frame)))
        buffer.append(0x0A)
        if buffer.count > 1 << 16 { try flush() }
    }

    private func flush() throws {
        do { try handle.write(contentsOf: buffer) } catch {
            throw CommandFailure(message: "\(path): write failed (\(error.localizedDescription))")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    func publish() throws {
        try flush()
        try handle.synchronize()
        try handle.close()
        do { try AtomicOutput.publish(work, to: path, overwrite: overwrite) } catch {
            unlink(work)
            throw error
        }
    }

    func abandon() {
        try? handle.close()
        unlink(work)
    }
}

extension DetectionStage {
    /// Whether the chain redacts faces (then recall comes first: a lower face threshold).
    static func redacts(_ chain: EffectChain?) -> Bool {
        chain?.entries.contains { type(of: $0.effect) == FaceBlur.self } ?? false
    }

    /// What a render detects: what its chain's effects need; with `--detections` and no
    /// such effect, codes and faces.
    static func needs(of chain: EffectChain?, options: DetectionOptions) -> DetectionNeeds {
        let needs = chain?.needs ?? []
        return needs.isEmpty && options.detectionsPath != nil ? [.codes, .faces] : needs
    }

    /// The stage of a render: the reviewed file's boxes when `--use-detections` gives one
    /// (for a chain that uses boxes, or to copy them with --detections), else detection
    /// for what the chain needs.
    static func make(chain: EffectChain?, options: DetectionOptions, reviewed: DetectionsFile?, frameRate: Double,
                     overwrite: Bool) throws -> DetectionStage? {
        if let reviewed {
            guard !(chain?.needs ?? []).isEmpty || options.detectionsPath != nil else {
                throw CommandFailure(message: "--use-detections: no effect in the chain draws or redacts detections (faceblur, facebox, qrbox…)", code: 2)
            }
            return try DetectionStage(file: reviewed, frameRate: frameRate, options: options, overwrite: overwrite)
        }
        return try DetectionStage(needs: needs(of: chain, options: options), options: options, overwrite: overwrite,
                                  redacting: redacts(chain), recheck: recheck(of: chain, options: options))
    }

    /// The recheck of a redacting render: its chain up to and including the first
    /// faceblur, run on a detection frame with the boxes found so far.
    static func recheck(of chain: EffectChain?, options: DetectionOptions) -> RedactionRecheck? {
        recheck(of: chain, passes: options.faceRecheck ?? defaultRecheckPasses(of: chain))
    }

    /// Looks a redacting render takes again by default: one when a faceblur in the chain
    /// keeps the head's outline (blur, pixelate, fill), none when every one erases.
    static func defaultRecheckPasses(of chain: EffectChain?) -> Int {
        let outlines = chain?.entries.contains { ($0.effect as? FaceBlur)?.keepsOutline == true } ?? false
        return outlines ? 1 : 0
    }

    /// The same with `passes` looks (nil with none).
    static func recheck(of chain: EffectChain?, passes: Int) -> RedactionRecheck? {
        guard let chain, let last = chain.entries.firstIndex(where: { type(of: $0.effect) == FaceBlur.self }) else { return nil }
        guard passes > 0 else { return nil }
        let upTo = EffectChain(Array(chain.entries[...last]))
        return RedactionRecheck(passes: passes) { frame, observations in
            var looked = frame
            looked.observations = observations
            return upTo.apply(to: looked)
        }
    }

    /// Hands `frame` to `deliver`, through `stage` when there is one (then zero or more
    /// frames come out). False once `deliver` says stop.
    static func pass(_ frame: consuming Frame, through stage: DetectionStage?, to deliver: (consuming Frame) throws -> Bool) throws -> Bool {
        // Moved on, so that the effects can render into the only reference to its pixels.
        guard let stage else { return try deliver(consume frame) }
        for ready in try stage.push(frame) { guard try deliver(ready) else { return false } }
        return true
    }

    /// Hands the frames still inside `stage` to `deliver`.
    static func drain(_ stage: DetectionStage?, to deliver: (consuming Frame) throws -> Bool) throws {
        guard let stage else { return }
        for ready in try stage.finish() { guard try deliver(ready) else { return } }
    }
}
