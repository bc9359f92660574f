public import Detection
public import Effects
import Foundation
public import FrameCore
import Sinks

/// Runs detection between the source and the chain when the chain's effects need it
/// (or `--detections` asks for the data): the frames go in, and come back in order with
/// their observations, a few ticks later (the look-ahead). With a reviewed detections
/// file, the frames get the file's boxes instead, at once, and nothing is detected.
public final class DetectionStage {
    private let timeline: DetectionTimeline?
    /// Where the shots change, when boxes are carried between detections or held.
    private let shots: ShotChanges?
    private let file: DetectionsFile?
    private let frameRate: Double
    private let log: DetectionLog?
    /// Added to a frame's tick to find its boxes in the file (a segment of a render).
    public var tickShift: Int64 = 0
    /// What the frames handed back carried, for the redaction report.
    public private(set) var tally = RedactionTally()
    /// The chain the frames go on to, whose redactions the tally measures (their share of
    /// each picture); nil counts none.
    public var chain: EffectChain?

    /// A stage that gives every frame the boxes of `file` at its tick (`frameRate` maps
    /// a still's time to its tick).
    public init(file: DetectionsFile, frameRate: Double, settings: DetectionSettings, overwrite: Bool) throws {
        self.file = file
        self.frameRate = frameRate
        timeline = nil
        shots = nil
        log = try settings.logPath.map { try DetectionLog(path: $0, overwrite: overwrite) }
    }

    /// A stage for `needs`, or nil when nothing is to be detected.
    public init?(needs: DetectionNeeds, settings options: DetectionSettings, overwrite: Bool, codes: CodeDetector.Symbologies = .all,
          redacting: Bool = false, smallFaces: Bool = true, recheck: RedactionRecheck? = nil) throws {
        guard !needs.isEmpty else { return nil }
        file = nil
        frameRate = 30
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        var sets: [[any Detector]] = []
        var looks: [any Detector] = []
        do {
            let threshold = options.faceThreshold ?? (redacting ? FaceDetector.redactionThreshold : FaceDetector.defaultThreshold)
            let side = options.faceSize ?? (redacting ? FaceDetector.redactionLargestSide : FaceDetector.defaultLargestSide)
            let small = redacting && smallFaces ? FaceDetector.redactionSmallFaceThreshold(threshold) : nil
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
        let every = options.every ?? (needs.contains(.faces) ? 4 : 1)
        // Boxes carried between detections (every > 1) or held (redacting) must not cross a cut.
        shots = every > 1 || redacting ? ShotChanges() : nil
        timeline = DetectionTimeline(every: every, detectorSets: sets, redacting: redacting,
                                     recheck: needs.contains(.faces) ? recheck : nil, recheckLooks: looks)
        log = try options.logPath.map { try DetectionLog(path: $0, overwrite: overwrite) }
    }

    /// Distinct tracks so far.
    public var tracksStarted: Int { timeline?.tracksStarted ?? file?.tracks ?? 0 }
    /// Detector runs so far.
    public var detections: Int { timeline?.detections ?? 0 }
    /// Boxes the redaction recheck found so far.
    public var recheckFinds: Int { timeline?.recheckFinds ?? 0 }
    /// Whether the boxes come from a reviewed file.
    public var usesFile: Bool { file != nil }

    /// Takes the next frame; returns those now ready, with their observations.
    public func push(_ frame: Frame) throws -> [Frame] {
        if let file {
            var out = frame
            // A still (dump --at) carries its time; a cadence frame's time is its tick's.
            out.observations = file.observations(at: Int64((frame.time.seconds * frameRate).rounded()) + tickShift)
            return try record([out])
        }
        let frames: [Frame]
        frames = try timeline!.push(frame, startsShot: shots?.startsShot(frame) ?? false)
        return try record(frames)
    }

    /// The remaining frames.
    public func finish() throws -> [Frame] {
        guard let timeline else { return [] }
        let frames: [Frame]
        frames = try timeline.finish()
        return try record(frames)
    }

    /// Publishes the `--detections` file (after the render succeeded).
    public func publish() throws { try log?.publish() }

    /// Removes the unfinished `--detections` file.
    public func abandon() { log?.abandon() }

    private func record(_ frames: [Frame]) throws -> [Frame] {
        for frame in frames { tally.count(frame, tick: frame.tick + tickShift, redacted: chain?.redactedPixels(in: frame) ?? 0) }
        if let log { for frame in frames { try log.write(frame) } }
        return frames
    }
}

extension DetectionStage {
    /// Whether the chain redacts faces (then recall comes first: a lower face threshold).
    public static func redacts(_ chain: EffectChain?) -> Bool {
        chain?.redacts ?? false
    }

    /// Whether a redacting chain's detector also takes small faces at half its score: when
    /// any redaction in it does (`RedactingEffect.takesSmallFaces`).
    public static func takesSmallFaces(_ chain: EffectChain?) -> Bool {
        chain?.redactions.contains { $0.takesSmallFaces } ?? false
    }

    /// What a render detects: what its chain's effects need; with `--detections` and no
    /// such effect, codes and faces.
    public static func needs(of chain: EffectChain?, settings options: DetectionSettings) -> DetectionNeeds {
        let needs = chain?.needs ?? []
        return needs.isEmpty && options.logPath != nil ? [.codes, .faces] : needs
    }

    /// The stage of a render: the reviewed file's boxes when `--use-detections` gives one
    /// (for a chain that uses boxes, or to copy them with --detections), else detection
    /// for what the chain needs.
    public static func make(chain: EffectChain?, settings options: DetectionSettings, reviewed: DetectionsFile?, frameRate: Double,
                     overwrite: Bool) throws -> DetectionStage? {
        if let reviewed {
            guard !(chain?.needs ?? []).isEmpty || options.logPath != nil else {
                throw RenderError("--use-detections: no effect in the chain draws or redacts detections (faceblur, facebox, qrbox…)", exitCode: 2)
            }
            let stage = try DetectionStage(file: reviewed, frameRate: frameRate, settings: options, overwrite: overwrite)
            stage.chain = chain
            return stage
        }
        let stage = try DetectionStage(needs: needs(of: chain, settings: options), settings: options, overwrite: overwrite,
                                       redacting: redacts(chain), smallFaces: takesSmallFaces(chain), recheck: recheck(of: chain, settings: options))
        stage?.chain = chain
        return stage
    }

    /// The recheck of a redacting render: its chain up to and including the first
    /// faceblur, run on a detection frame with the boxes found so far.
    public static func recheck(of chain: EffectChain?, settings options: DetectionSettings) -> RedactionRecheck? {
        recheck(of: chain, passes: options.faceRecheck ?? defaultRecheckPasses(of: chain))
    }

    /// Looks a redacting render takes again by default: one when a faceblur in the chain
    /// keeps the head's outline (blur, pixelate, fill), none when every one patches or erases.
    public static func defaultRecheckPasses(of chain: EffectChain?) -> Int {
        let outlines = chain?.redactions.contains { $0.keepsOutline } ?? false
        return outlines ? 1 : 0
    }

    /// The same with `passes` looks (nil with none).
    public static func recheck(of chain: EffectChain?, passes: Int) -> RedactionRecheck? {
        guard let chain, let last = chain.firstRedaction else { return nil }
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
    public static func pass(_ frame: consuming Frame, through stage: DetectionStage?, to deliver: (consuming Frame) throws -> Bool) throws -> Bool {
        // Moved on, so that the effects can render into the only reference to its pixels.
        guard let stage else { return try deliver(consume frame) }
        for ready in try stage.push(frame) { guard try deliver(ready) else { return false } }
        return true
    }

    /// Hands the frames still inside `stage` to `deliver`.
    public static func drain(_ stage: DetectionStage?, to deliver: (consuming Frame) throws -> Bool) throws {
        guard let stage else { return }
        for ready in try stage.finish() { guard try deliver(ready) else { return } }
    }

    /// A live detector for what the chain needs, or nil when it needs nothing. A redacting
    /// chain gets the render's recheck (with its default looks), so the preview covers what
    /// the render will.
    public static func liveDetection(for chain: EffectChain?) throws -> LiveDetection? {
        let needs = chain?.needs ?? [], redacting = redacts(chain)
        guard !needs.isEmpty else { return nil }
        var detectors: [any Detector] = []
        if needs.contains(.codes) { detectors.append(CodeDetector()) }
        if needs.contains(.faces) {
            // The network may take every core: playback has its own thread, and the
            // worker runs one detection at a time.
            let threshold = redacting ? FaceDetector.redactionThreshold : FaceDetector.defaultThreshold
            let recheck = recheck(of: chain, passes: defaultRecheckPasses(of: chain))
            do {
                detectors.append(try FaceDetector(modelPath: FaceDetector.defaultModelPath(), threshold: threshold,
                                                  smallFaceThreshold: redacting && takesSmallFaces(chain) ? FaceDetector.redactionSmallFaceThreshold(threshold) : nil))
                let look = recheck == nil ? nil : try FaceDetector(modelPath: FaceDetector.defaultModelPath(), threshold: threshold,
                                                                    sizeFactor: RedactionRecheck.lookSize)
                return LiveDetection(detectors: detectors, recheck: recheck, recheckLook: look)
            }
        }
        return LiveDetection(detectors: detectors)
    }

}
