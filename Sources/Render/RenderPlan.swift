public import Detection
public import Effects
public import FrameCore
public import FrameSource
public import MediaInput
public import Sinks
import Foundation

/// One offline render said in full: the input, which of its pictures, the chain, how
/// detection runs, and where the frames go. ``run(stop:)`` opens the input once, tells
/// the chain what it renders, stages detection, checks that the redaction report may be
/// written, renders through the one ``Renderer``, and writes the report. `apply`, `dump`,
/// the studio's renders and a script's each build one of these; nothing else sets up a
/// render.
///
/// ```swift
/// let media = try MediaInput("clip.mp4", access: .shared)
/// var plan = RenderPlan(input: media, output: .video(EncoderSink.Settings(output: "look.mp4")))
/// plan.chain = try EffectChain(parsing: "sepia")
/// plan.source.duration = Rational(2)
/// let result = try plan.run(stop: StopSignal())
/// print(result.outcome.frames)
/// ```
public struct RenderPlan {
    /// Which of the input's pictures are rendered.
    public enum Pictures {
        /// Every tick of the cadence over the configuration's range.
        case cadence
        /// Segment `index` (1…`count`) of the cadence's ticks, for `concat` to join; the
        /// effects and the detections file see the whole render's ticks.
        case segment(index: Int64, count: Int64)
        /// The pictures on screen at these times, each carrying its time.
        case stills([Rational])
        /// `count` pictures spread over the range, skipping dark, faded and soft ones.
        case representative(count: Int)
        /// `perScene` pictures from each scene's stable middle, as `scan` found the scenes.
        case sceneMiddles(SceneScan, perScene: Int)
    }

    /// Where the frames go.
    public enum Output {
        /// A video file (or standard output), its sound kept in sync when the input has
        /// sound and ``RenderPlan/keepsAudio`` says so.
        case video(EncoderSink.Settings)
        /// An animated GIF: two passes, one for its palettes (a new one at each of
        /// `sceneStarts`, ticks), one to map the frames to them.
        case gif(GIFSink.Settings, sceneStarts: Set<Int64>)
        /// One picture (a photo in, a photo out); a video input is refused.
        case photo(path: String, format: ImageFormat, size: PhotoSize?)
        /// A folder of numbered images with a manifest.
        case images(folder: String, format: ImageFormat)
        /// Raw BGRA frames back to back into a file, a device, a pipe or `-`.
        case raw(path: String)
        /// No pictures: the detections, into the plan's ``DetectionSettings/logPath``.
        case detectionsOnly
        /// A caller's sink, named `name` (the redaction report goes beside it).
        case sink(any FrameSink, name: String)

        /// Where the output is, for messages and the report.
        public var name: String {
            switch self {
            case .video(let settings): settings.output
            case .gif(let settings, _): settings.output
            case .photo(let path, _, _), .raw(let path): path
            case .images(let folder, _): folder
            case .detectionsOnly: "detections"
            case .sink(_, let name): name
            }
        }

        /// Whether the output is a folder (its report goes inside it).
        var isFolder: Bool { if case .images = self { true } else { false } }
    }

    /// What an opened render knows before its first frame, for its caller to finish the
    /// output's settings with (``opened``) and to show progress.
    public struct Opening: Sendable {
        /// The input's streams.
        public let info: MediaInfo
        /// The configuration the pictures are read with, the source's rate found (`--fps source`).
        public let configuration: FrameSource.Configuration
        /// The whole render's configuration (a segment's render is part of it), rate found.
        public let whole: FrameSource.Configuration
        /// The output's length in ticks when known (the whole render's, for a segment).
        public let ticks: Int?
        /// Frames this render is expected to write, when known.
        public let expectedFrames: Int?
        /// A segment's ticks in the whole render, nil for a whole render.
        public let span: FrameSource.TickSpan?
        /// Ends the reading at the next picture (Ctrl-C).
        public let stop: @Sendable () -> Void
        /// The input's damage so far.
        public let damage: @Sendable () -> InputDamage
        /// Which pass this is: 1, or 2 for a GIF's mapping pass.
        public let pass: Int
    }

    /// What a render did.
    public struct Result {
        /// How it ended; see ``Renderer/Outcome``.
        public var outcome: Renderer.Outcome
        /// The redaction's report, when the chain redacts and the render ran to its end
        /// (written beside the output, or inside its folder, unless the output is `-`).
        public var report: RedactionReport?
        /// Where the report was written.
        public var reportPath: String?
        /// The sink of the last pass (an `EncoderSink`'s summary and notes, a photo's size).
        public var sink: any FrameSink
        /// The palettes a GIF was written with, else 0.
        public var palettes = 0
        /// What the render knew when it opened (its last pass's).
        public var opening: Opening
        /// The output as it was rendered, its settings finished.
        public var output: Output
        /// The detection stage of the last pass (its tracks and detector runs), nil when nothing was detected.
        public var stage: DetectionStage?

        /// A video's encoder: its summary, notes and frame count.
        public var encoder: EncoderSink? { sink as? EncoderSink }
        /// A GIF's writer: what it wrote.
        public var gif: GIFSink? { sink as? GIFSink }
        /// A photo's writer: the size it wrote.
        public var photo: ImageFileSink? { sink as? ImageFileSink }
    }

    /// The input, opened (``access(for:pictures:keepsAudio:)`` says how).
    public var input: MediaInput
    /// The cadence and the part of the timeline.
    public var source = FrameSource.Configuration()
    /// Which pictures.
    public var pictures = Pictures.cadence
    /// The effects, nil for none.
    public var chain: EffectChain?
    /// How faces and codes are detected when the chain needs them (or its log is asked for).
    public var detection = DetectionSettings()
    /// What to detect whatever the chain needs (`detect --what`, the studio's review
    /// pass); nil detects what the chain's effects need (or, with a log asked for, everything).
    public var detecting: Detecting?

    /// Detection asked for by name rather than by the chain.
    public struct Detecting: Sendable {
        /// Faces, codes or both.
        public var needs: DetectionNeeds
        /// Which codes.
        public var codes: CodeDetector.Symbologies
        /// Faces found as a redaction finds them (recall first).
        public var redacting: Bool

        /// Detection of `needs` (`codes` of them), as a redaction when `redacting`.
        public init(needs: DetectionNeeds, codes: CodeDetector.Symbologies = .all, redacting: Bool = false) {
            self.needs = needs
            self.codes = codes
            self.redacting = redacting
        }
    }
    /// A reviewed detections file whose boxes replace the detector's, loaded and checked
    /// against the render's ticks; or, with ``reviewedFile``, the name of that file in the report.
    public var reviewed: String?
    /// The reviewed file, loaded already (the studio's, from its outputs folder).
    public var reviewedFile: DetectionsFile?
    /// Where the frames go.
    public var output: Output
    /// Whether an existing output, report or detections file may be replaced.
    public var overwrite = false
    /// Whether the input's sound goes into a video output.
    public var keepsAudio = true
    /// The input's metadata in a video output: kept, stripped, or by default kept but
    /// for the location when the chain redacts.
    public var metadata: SourceMetadata.Choice?
    /// Whether a stopped render publishes what it wrote (nil: a video does, the rest do not).
    public var keepsStoppedOutput: Bool?
    /// Decides after the effects whether a frame is written (near-duplicates are not).
    public var keep: ((Frame) -> Bool)?
    /// Called with the frames written so far, after each.
    public var progress: ((Int) -> Void)?
    /// Called once the input is open, before the first frame, with what is known then:
    /// the caller finishes the output's settings here (a size in proportion to the
    /// picture, key frames at cuts, a segment's label), arms its Ctrl-C and starts its
    /// progress line. A GIF calls it for each of its two passes.
    public var opened: ((Opening, inout Output) throws -> Void)?

    /// A plan that renders every tick of `input` into `output`, with the command line's defaults.
    public init(input: MediaInput, output: Output) {
        self.input = input
        self.output = output
    }

    /// How a plan's input must be opened: shared when a video keeps its sound (the
    /// pictures' reader hands the sound's packets on), seekable when pictures are read
    /// out of order or twice, else once, front to back.
    public static func access(for output: Output, pictures: Pictures, keepsAudio: Bool) -> MediaInput.Access {
        switch pictures {
        case .stills, .representative, .sceneMiddles: return .seekable
        case .segment: return .seekable
        case .cadence: break
        }
        switch output {
        case .video: return keepsAudio ? .shared : .stream
        case .gif, .detectionsOnly: return .seekable
        case .photo, .images, .raw, .sink: return .stream
        }
    }

    /// The metadata an input carries into an output, before the choice of ``metadata``.
    public static func sourceMetadata(of info: MediaInfo) -> SourceMetadata {
        SourceMetadata(container: info.tags, video: info.video.tags, audio: info.audio.first?.tags ?? [:])
    }

    /// Where the redaction report goes, nil when the chain does not redact or the output
    /// is a stream.
    public var reportPath: String? {
        guard chain?.redacts == true else { return nil }
        switch output {
        case .detectionsOnly: return nil
        case .images(let folder, _): return RedactionReport.path(for: folder, folder: true)
        default: return RedactionReport.path(for: output.name, folder: false)
        }
    }

    /// Renders on the calling thread (it blocks until the end: call it from a thread of
    /// its own, not from Swift's cooperative pool). After `stop` is requested the render
    /// ends at the next frame.
    /// - Throws: the input's, a sink's, the detector's or the report's error; a failed
    ///   render leaves nothing where its output would have been.
    public func run(stop: StopSignal) throws -> Result {
        let reportPath = self.reportPath
        // A report inside a new folder replaces nothing; one beside a file may.
        if !output.isFolder { try RedactionReport.check(reportPath, overwrite: overwrite) }
        let result: Result
        if case .gif = output {
            result = try runGIF(stop: stop)
        } else {
            result = try pass(output: output, number: 1, logsDetections: true, stop: stop)
        }
        return try report(result, to: reportPath)
    }

    /// What a render's frames were, once it ended well: the redaction report written.
    private func report(_ result: Result, to path: String?) throws -> Result {
        var result = result
        guard result.outcome.ending != .readerClosed, result.outcome.published, let stage = result.stage,
              chain?.redacts == true else { return result }
        var report = RedactionReport(tally: stage.tally, input: input.location, output: output.name, fromFile: reviewed,
                                     foundOnRecheck: stage.recheckFinds)
        if case .video(let settings) = result.output {
            report.locationRemoved = settings.sourceMetadata?.removedLocation ?? []
        }
        if let path { try report.write(to: path, overwrite: overwrite || output.isFolder) }
        result.report = report
        result.reportPath = path
        return result
    }

    /// ffmpeg's two-pass GIF: the palettes from one pass (its settings finished by
    /// ``opened``: a size in proportion to the picture), the frames mapped to them in a second.
    private func runGIF(stop: StopSignal) throws -> Result {
        let first = try pass(output: output, number: 1, logsDetections: false, stop: stop)
        guard first.outcome.ending == .complete, case .gif(var settings, _) = first.output,
              let palette = first.sink as? GIFPaletteSink else { return first }
        // --fps source: the GIF is timed at the rate found.
        settings.frameRate = first.opening.configuration.frameRate
        settings.overwrite = overwrite
        var result = try pass(output: .sink(try GIFSink(settings: settings, palette: palette), name: settings.output),
                              number: 2, logsDetections: true, stop: stop)
        result.palettes = palette.paletteCount
        return result
    }

    /// One pass over the input into `output`.
    private func pass(output planned: Output, number: Int, logsDetections: Bool, stop: StopSignal) throws -> Result {
        var configuration = source
        if case .video = planned {
            // A frame is converted only when the encoder asks for the next, and one
            // decoder thread keeps ahead of x264, which wants the cores (each extra frame
            // thread holds its own reference pictures, ~4 MB at 1080p, for no wall time).
            configuration.prefetch = 0
            configuration.decoderThreads = 1
        }
        if case .gif = output { configuration.prefetch = 0 }
        // The pictures' reader: a source for the cadence, or one reader that seeks.
        var frames: FrameSource?
        var stills: StillReader?
        switch pictures {
        case .cadence:
            frames = try FrameSource(input: input, configuration: configuration)
        case .segment(let index, let count):
            frames = try FrameSource(input: input, configuration: configuration) { total in
                ((index - 1) * total / count)..<(index * total / count)
            }
        case .stills, .representative, .sceneMiddles:
            stills = try StillReader(input: input, configuration: configuration)
        }
        defer { frames?.close() }
        let info = frames?.info ?? stills!.info
        let found = frames?.configuration ?? stills!.configuration
        var whole = configuration
        whole.frameRate = found.frameRate
        let span = frames?.span
        let ticks = span.map { Int($0.total) } ?? found.expectedTicks(for: info)

        let supply: any FrameSupply
        var expected = found.expectedTicks(for: info)
        switch pictures {
        case .cadence, .segment:
            supply = frames!
        case .stills(let times):
            // Every time is checked before the first still: one bad time must not leave half.
            if let duration = info.duration, let late = times.first(where: { $0.seconds >= duration }) {
                throw RenderError("\(input.location): --at \(String(format: "%g", late.seconds)) s is at or past the end of the video "
                                  + "(\(String(format: "%.3f", duration)) s)", exitCode: 2)
            }
            supply = Stills(reader: stills!, times: times)
            expected = times.count
        case .representative(let count):
            supply = try RepresentativeFrames(reader: stills!, configuration: found, count: count, input: input.location).frames()
            expected = count
        case .sceneMiddles(let scan, let perScene):
            let chooser = RepresentativeFrames(reader: stills!, scenes: scan, perScene: perScene)
            guard chooser.count > 0 else { throw RenderError("\(input.location): no scene has a picture to choose") }
            supply = chooser.frames()
            expected = chooser.count
        }
        if case .photo = planned, let video = ticks, video > 1 {
            throw RenderError("\(planned.name): an image holds one picture, and \(input.location) is a video of \(video) frames "
                              + "at the cadence: name a video (.mp4) to render it, or take stills with "
                              + "`vidfx dump \(input.location) --at TIME -o FOLDER`")
        }
        let stopReading: @Sendable () -> Void
        let damage: @Sendable () -> InputDamage
        if let frames {
            stopReading = { frames.stop() }
            damage = { frames.damage }
        } else {
            stopReading = stills!.stop
            damage = stills!.damage
        }
        let opening = Opening(info: info, configuration: found, whole: whole, ticks: ticks, expectedFrames: expected, span: span,
                              stop: stopReading, damage: damage, pass: number)
        var output = planned
        try opened?(opening, &output)

        // The output's length (the whole cadence's, also for stills at chosen times), for
        // effects that end somewhere (a fade out), and what a caption names the input.
        chain?.describeOutput(frameRate: found.frameRate, ticks: ticks, input: input.location)
        let reviewedFile = try self.reviewedFile ?? reviewed.map { path throws in
            try DetectionsFile.load(path: path, tickLimit: ticks.map(Int64.init))
        }
        var detection = self.detection
        if !logsDetections { detection.logPath = nil }
        let stage: DetectionStage?
        if let detecting {
            stage = try DetectionStage(needs: detecting.needs, settings: detection, overwrite: overwrite, codes: detecting.codes,
                                       redacting: detecting.redacting && detecting.needs.contains(.faces))
        } else {
            stage = try DetectionStage.make(chain: chain, settings: detection, reviewed: reviewedFile,
                                            frameRate: found.frameRate.seconds, overwrite: overwrite)
        }
        stage?.tickShift = span?.shift ?? 0

        let sink: any FrameSink
        var noted: ((String) -> Void)?
        switch output {
        case .video(var settings):
            settings.stop = stop
            settings.overwrite = overwrite
            settings.frameRate = found.frameRate
            settings.alpha = info.video.hasAlpha
            if settings.sourceMetadata == nil {
                settings.sourceMetadata = Self.sourceMetadata(of: info).chosen(metadata, redacting: chain?.redacts == true)
            }
            if keepsAudio && !info.audio.isEmpty { settings.keepSound(of: input, playedAs: found, chain: chain) }
            output = .video(settings)
            sink = try EncoderSink(settings: settings)
        case .gif(let settings, let starts):
            // The first pass: the palettes, at the GIF's size.
            sink = GIFPaletteSink(size: settings.size, sceneStarts: starts)
        case .photo(let path, let format, let size):
            let photo = ImageFileSink(path: path, format: format)
            photo.size = size
            sink = photo
        case .images(let folder, let format):
            let images = try ImageSequenceSink(folder: folder, format: format, input: input.location,
                                               fps: found.frameRate.seconds, overwrite: overwrite)
            noted = { images.setLastReason($0) }
            sink = images
        case .raw(let path):
            sink = try RawStreamSink(path: path, overwrite: overwrite)
        case .detectionsOnly:
            sink = NullSink()
        case .sink(let given, _):
            sink = given
        }

        let renderer = Renderer(chain: chain, detection: stage, sink: sink)
        if let span { renderer.window = .init(shift: span.shift, first: span.first, frameRate: found.frameRate) }
        renderer.keepsStoppedOutput = keepsStoppedOutput ?? { if case .video = output { true } else { false } }()
        renderer.isStopped = { stop.isRequested }
        renderer.progress = progress
        renderer.noted = noted
        if case .photo = output {
            // One picture: the first the input gives (a photo has no second).
            var given = false
            renderer.keep = { frame in defer { given = true }; return !given && (keep?(frame) ?? true) }
        } else {
            renderer.keep = keep
        }
        let outcome = try renderer.run(supply)
        return Result(outcome: outcome, sink: sink, opening: opening, output: output, stage: stage)
    }
}
