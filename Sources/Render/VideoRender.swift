public import Effects
public import FrameSource
public import Sinks
public import Detection
import Foundation
import FrameCore
import MediaInput

/// A clip rendered through a chain into a video file, its sound kept and in sync: what
/// `vidfx apply IN -e CHAIN -o OUT [--start --duration --loop --use-detections]` does,
/// for the studio and for scripts. The input is opened once, for its pictures and its
/// sound; the container and codec follow the output's name; the output appears whole or
/// not at all; a redacting chain's report is written beside it.
///
/// ```swift
/// var render = VideoRender(input: "clip.mp4", output: "look.mp4", chain: try EffectChain(parsing: "sepia"))
/// render.source.duration = Rational(2)
/// let done = try render.run(stop: StopSignal()) { frames, total in print(frames, total ?? 0) }
/// ```
public struct VideoRender {
    /// The input: a file or URL.
    public var input: String
    /// The output file, named by its extension (`.mp4`, `.mkv`, `.webm`…).
    public var output: String
    /// The effects, nil for none.
    public var chain: EffectChain?
    /// The cadence and the part of the timeline (`start`, `duration`, `loop`, `speed`).
    public var source = FrameSource.Configuration()
    /// A reviewed detections file whose boxes replace the detector's.
    public var reviewed: DetectionsFile?
    /// Its name, for the redaction report.
    public var reviewedName: String?
    /// How faces and codes are detected when the chain needs them.
    public var detection = DetectionSettings()
    /// Whether the input's sound goes into the output (when it has any).
    public var keepsAudio = true
    /// Whether an existing output (and report) may be replaced.
    public var overwrite = false

    /// What a render did.
    public struct Result: Sendable {
        /// How it ended; a stopped render leaves no output.
        public var outcome: Renderer.Outcome
        /// The redaction's report, written beside the output, when the chain redacts.
        public var report: RedactionReport?
    }

    /// A render of `input` through `chain` into `output`, with the command line's defaults.
    public init(input: String, output: String, chain: EffectChain?) {
        self.input = input
        self.output = output
        self.chain = chain
    }

    /// Renders on the calling thread (it blocks until the end: call it from a thread of
    /// its own, not from Swift's cooperative pool). `progress` gets the frames written and
    /// the expected total. After `stop` is requested the render ends at the next frame and
    /// nothing is left where the output would have been.
    /// - Throws: the input's, the encoder's or the detector's error; nothing is written then.
    public func run(stop: StopSignal, progress: @escaping (_ frames: Int, _ total: Int?) -> Void = { _, _ in }) throws -> Result {
        var configuration = source
        // As apply: a frame is converted only when the encoder asks for the next, and one
        // decoder thread keeps ahead of x264, which wants the cores.
        configuration.prefetch = 0
        configuration.decoderThreads = 1
        let media = try MediaInput(input, access: keepsAudio ? .shared : .stream)
        let frames = try FrameSource(input: media, configuration: configuration)
        defer { frames.close() }
        configuration = frames.configuration
        let info = frames.info
        let ticks = configuration.expectedTicks(for: info)
        chain?.describeOutput(frameRate: configuration.frameRate, ticks: ticks, input: input)

        var settings = EncoderSink.Settings(output: output)
        settings.overwrite = overwrite
        settings.stop = stop
        settings.frameRate = configuration.frameRate
        settings.alpha = info.video.hasAlpha
        if keepsAudio && !info.audio.isEmpty { settings.keepSound(of: media, playedAs: configuration, chain: chain) }
        let reportPath = DetectionStage.redacts(chain) ? RedactionReport.path(for: output, folder: false) : nil
        try RedactionReport.check(reportPath, overwrite: overwrite)
        let sink = try EncoderSink(settings: settings)
        let stage = try DetectionStage.make(chain: chain, settings: detection, reviewed: reviewed,
                                            frameRate: configuration.frameRate.seconds, overwrite: overwrite)
        let renderer = Renderer(chain: chain, detection: stage, sink: sink)
        renderer.keepsStoppedOutput = false
        renderer.progress = { progress($0, ticks) }
        renderer.isStopped = { stop.isRequested }
        let outcome = try renderer.run(frames)
        guard outcome.ending == .complete, let stage, let reportPath else { return Result(outcome: outcome) }
        let report = RedactionReport(tally: stage.tally, input: input, output: output, fromFile: reviewedName,
                                     foundOnRecheck: stage.recheckFinds)
        try report.write(to: reportPath, overwrite: overwrite)
        return Result(outcome: outcome, report: report)
    }
}
