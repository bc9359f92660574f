import ArgumentParser
import Foundation
import Effects
import FrameCore
import FrameSource
import MediaInput
import Render
import Scenes
import Sinks

#if canImport(Glibc)
import Glibc
#endif

/// `vidfx dump`: the cadence frames as images, a raw BGRA file, or raw BGRA on stdout.
struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the cadence frames as images (PNG, JPEG, PPM) or raw BGRA.",
        discussion: """
        -o DIR writes DIR/frame_000000.png… and DIR/manifest.json (tick, time and source time of every file).
        -o FILE.bgra (or .raw) with --format bgra writes one raw file; -o - streams raw BGRA to stdout:
        width*4 bytes per row, rows top to bottom, frames back to back, no header (the size goes to stderr).
        To watch it: vidfx dump clip.mp4 --format bgra -o - | ffplay -f rawvideo -pixel_format bgra -video_size WxH -framerate 30 -
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case png, jpg, webp, ppm, bgra
    }

    @Argument(help: "Video or image file, http(s) URL, or - for standard input.")
    var input: String

    @Option(name: .shortAndLong, help: "Output folder; a .bgra/.raw file or - (stdout) for raw BGRA.")
    var output: String

    @Option(help: "Image format.")
    var format: Format = .png

    @Option(parsing: .unconditional, help: "JPEG or WebP quality, 1–100.")
    var quality: Int = 90

    @Option(parsing: .unconditional, help: "Stop after this many frames.")
    var frames: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Stills at these times instead of the cadence: seconds or h:m:s, comma-separated.", valueName: "t1,t2,…"))
    var at: String?

    @Flag(name: .customLong("keyframes"), help: "Only the key frames, each at its own time (decodes nothing else: many times faster on long clips).")
    var keyFrames = false

    @Option(name: .customLong("count"), parsing: .unconditional, help: ArgumentHelp("N representative frames spread over the clip, skipping dark, faded and soft ones (the manifest says why each was chosen).", valueName: "N"))
    var pick: Int?

    @Flag(help: "One frame from each scene's stable middle (cuts as `vidfx scenes` finds them; the sharpest of its calmest pictures, never dark, flat or in a dissolve where better is near), or --per-scene K spread over it.")
    var scenes = false

    @Option(name: .customLong("per-scene"), parsing: .unconditional, help: ArgumentHelp("With --scenes: frames per scene.", valueName: "K"))
    var perScene = 1

    @Option(parsing: .unconditional, help: ArgumentHelp("Drop a frame whose 64-bit perceptual hash is within this many bits of the last frame kept (0…64).", valueName: "bits"))
    var dedupe: Int?

    @OptionGroup var render: RenderOptions
    @OptionGroup var detection: DetectionOptions
    @OptionGroup var reviewed: ReviewedDetectionsOption
    @OptionGroup var timeline: TimelineOptions
    @OptionGroup var source: SourceOptions

    func validate() throws {
        if output == "-" && format != .bgra { throw ValidationError("-o - streams raw frames: use --format bgra, or give a folder") }
        try InputLimits.checkCount(frames, option: "--frames")
        if !(1...100).contains(quality) { throw ValidationError("--quality must be 1…100") }
        if scenes && (at != nil || keyFrames || pick != nil || timeline.loop != nil || frames != nil) {
            throw ValidationError("--scenes chooses its own frames; it does not combine with --at, --count, --keyframes, --loop or --frames")
        }
        if !(1...100).contains(perScene) { throw ValidationError("--per-scene must be 1…100") }
        if perScene != 1 && !scenes { throw ValidationError("--per-scene goes with --scenes") }
        if let dedupe, !(0...64).contains(dedupe) { throw ValidationError("--dedupe must be 0…64 bits") }
        if let pick, !(1...1000).contains(pick) { throw ValidationError("--count must be 1…1000") }
        if pick != nil && (at != nil || keyFrames || timeline.loop != nil || frames != nil) {
            throw ValidationError("--count chooses its own frames; it does not combine with --at, --keyframes, --loop or --frames")
        }
        if keyFrames && (at != nil || timeline.loop != nil) { throw ValidationError("--keyframes takes every key frame; it does not combine with --at or --loop") }
        if at != nil && (timeline.start != nil || timeline.loop != nil) { throw ValidationError("--at takes stills at given times; it does not combine with --start or --loop") }
    }

    /// Raw BGRA goes to one stream: stdout, a .bgra/.raw file, or a device or pipe
    /// (/dev/null, a FIFO). Everything else is a folder of images.
    private var rawFile: Bool {
        if output == "-" { return true }
        guard format == .bgra else { return false }
        if [".bgra", ".raw"].contains(where: { output.lowercased().hasSuffix($0) }) { return true }
        var info = stat()
        return stat(output, &info) == 0 && info.st_mode & S_IFMT != S_IFDIR && info.st_mode & S_IFMT != S_IFREG
    }

    func run() throws {
        let chain = try EffectChainParsing.chain(render.effects)
        // Caught from before the input is opened: Ctrl-C must end a stalled open too.
        let interruption = Interruption()
        defer { interruption.end() }
        var configuration = self.source.configuration(timeline: timeline, quiet: render.quiet)
        if let frames { configuration.frameLimit = Int64(frames) }
        configuration.keyFramesOnly = keyFrames
        configuration.prefetch = 1  // the image writers queue frames too
        // Encoding every tick as an image is the bottleneck and wants the cores; one decoder
        // thread (4 ms a 1080p frame) keeps ahead of it and holds ~10 MB less than FFmpeg's
        // default three. Raw frames and stills (--at) are bound by decoding and conversion
        // (an HDR tone map): those keep FFmpeg's threads.
        if at == nil && (format == .png || format == .jpg) { configuration.decoderThreads = 1 }
        if output != "-" { try OutputSafety.check(output: output, input: input, overwrite: render.yes, folder: !rawFile) }
        if output == "-" && isatty(STDOUT_FILENO) != 0 {
            throw CommandFailure(message: "-: standard output is a terminal; pipe the frames into a program (| ffplay -f rawvideo …)")
        }

        var times: [Rational]
        let reasons: [String] = []
        if let at {
            var parsed: [Rational] = []
            for item in at.split(separator: ",") {
                guard let t = TimeArgument(argument: String(item).trimmingCharacters(in: .whitespaces)), t.value >= Rational(0) else {
                    throw ValidationError("--at: '\(item)' is not a time (seconds, 2s, 500ms or h:m:s, 0…\(InputLimits.longestTime) s, to the microsecond)")
                }
                parsed.append(t.value)
            }
            guard !parsed.isEmpty else { throw ValidationError("--at: no times given") }
            times = parsed
        } else {
            times = []
        }

        // Open first so a bad input fails before any output exists.
        // Standard input through a spool: seekable (an MP4 indexed at the end) and read
        // again for each still.
        let media = try self.source.input(input, access: .seekable)
        var sceneScan: SceneScan?
        if scenes {
            // The cuts and every picture's score first (a pass over small pictures), then
            // stills chosen in each scene's stable middle.
            var options = PictureScanner.Options()
            options.start = configuration.start
            options.duration = configuration.duration
            options.warningHandler = configuration.warningHandler
            sceneScan = try SceneScan(input: input, media: media, options: options, interruption: interruption,
                                      minimumLength: .seconds(0.6), recordScores: true,
                                      decoders: ProcessInfo.processInfo.activeProcessorCount) {
                ScenesCommand.defaultDetector(minLength: $0)
            }
        }
        // The input is opened once: a source for the cadence, or one reader that seeks
        // for stills at times and frames chosen by content.
        let stills = times.isEmpty && pick == nil && sceneScan == nil ? nil : try StillReader(input: media, configuration: configuration)
        let sceneChooser = try sceneScan.map { scan in
            let chooser = RepresentativeFrames(reader: stills!, scenes: scan, perScene: perScene)
            guard chooser.count > 0 else { throw CommandFailure(message: "\(input): no scene has a picture to choose") }
            return chooser
        }
        let source = stills == nil ? try FrameSource(input: media, configuration: configuration) : nil
        defer { source?.close() }
        let info = stills?.info ?? source!.info
        configuration.frameRate = stills?.configuration.frameRate ?? source!.configuration.frameRate  // --fps source: as found
        let stop: @Sendable () -> Void
        let damage: @Sendable () -> InputDamage
        if let stills {
            stop = stills.stop
            damage = stills.damage
        } else {
            stop = { source?.stop() }
            damage = { source?.damage ?? InputDamage.none }
        }
        interruption.arm { stop() }
        // Every still's time is checked before the first is written: one bad time must not
        // leave half the stills, and the message names the option the user gave.
        if let duration = info.duration, let late = times.first(where: { $0.seconds >= duration }) {
            throw CommandFailure(message: "\(input): --at \(String(format: "%g", late.seconds)) s is at or past the end of the video "
                                 + "(\(String(format: "%.3f", duration)) s)", code: 2)
        }

        // Codes or faces, for the effects that draw or redact them (and --detections), or
        // the reviewed file's boxes.
        let reviewedFile = try reviewed.load(tickLimit: configuration.expectedTicks(for: info))
        let stage = try DetectionStage.make(chain: chain, settings: detection.settings, reviewed: reviewedFile,
                                            frameRate: configuration.frameRate.seconds, overwrite: render.yes)
        let reportPath = DetectionStage.redacts(chain) ? RedactionReport.path(for: output, folder: !rawFile) : nil
        let writer: any FrameSink
        do {
            if rawFile {
                writer = try RawStreamSink(path: output, overwrite: render.yes)
            } else {
                let imageFormat: ImageFormat = switch format {
                case .png: .png
                case .jpg: .jpeg(quality: quality)
                case .webp: .webp(quality: quality)
                case .ppm: .ppm
                case .bgra: .bgra
                }
                writer = try ImageSequenceSink(folder: output, format: imageFormat, input: input,
                                               fps: configuration.frameRate.seconds, overwrite: render.yes)
            }
        }

        let expected: Int? = if let pick { pick } else if let sceneChooser { sceneChooser.count } else if keyFrames { frames } else if times.isEmpty {
            configuration.expectedTicks(for: info)
        } else { times.count }
        let line = ProgressLine(style: render.progress.style, quiet: render.quiet || output == "-", total: expected, frameRate: configuration.frameRate.seconds,
                                damage: damage)
        var dropped = 0
        var lastKept: PerceptualHash?
        var size: (Int, Int)?
        // The output's length (the whole cadence's, also for stills at chosen times), for
        // effects that end somewhere (a fade out).
        chain?.describeOutput(frameRate: configuration.frameRate, ticks: configuration.expectedTicks(for: info), input: input)
        let renderer = Renderer(chain: chain, detection: stage, sink: writer)
        renderer.keepsStoppedOutput = false
        renderer.isStopped = { interruption.signal != nil }
        renderer.keep = { frame in
            if size == nil { size = (frame.width, frame.height) }
            // A near-copy of the last frame kept adds nothing to a data set.
            guard let dedupe else { return true }
            let hash = PerceptualHash(frame)
            if let lastKept, hash.distance(to: lastKept) <= dedupe { dropped += 1; return false }
            lastKept = hash
            return true
        }
        var count = 0
        renderer.progress = { count = $0; line.update(frames: $0) }
        if let images = writer as? ImageSequenceSink { renderer.noted = { images.setLastReason($0) } }
        let supply: any FrameSupply = if let sceneChooser {
            sceneChooser.frames()
        } else if let pick, let stills {
            try RepresentativeFrames(reader: stills, configuration: configuration, count: pick, input: input).frames()
        } else if let stills {
            Stills(reader: stills, times: times, notes: reasons)
        } else {
            source!
        }
        let outcome: Renderer.Outcome
        do { outcome = try renderer.run(supply) } catch {
            line.end(frames: count)
            throw error
        }
        line.end(frames: count)
        if outcome.ending == .stopped {
            Console.note("interrupted after \(Console.count(count, "frame")); nothing written to \(output)")
            throw ExitCode(128 + (interruption.signal ?? SIGINT))
        }
        render.reportPasses(of: chain)
        if let stage, DetectionStage.redacts(chain) {
            let report = RedactionReport(tally: stage.tally, input: input, output: output, fromFile: reviewed.path,
                                         foundOnRecheck: stage.recheckFinds)
            if let reportPath { try report.write(to: reportPath, overwrite: true) }
            if !render.quiet { Console.note(report.line + (reportPath.map { "; report \($0)" } ?? "")) }
        }
        if !render.quiet, let (w, h) = size {
            let target = output == "-" ? "stdout" : output
            let duplicates = dedupe == nil ? "" : " (\(dropped) near-duplicates dropped)"
            Console.note("\(Console.count(count, "frame")), \(w)x\(h) \(format.rawValue), \(configuration.frameRate) fps -> \(target)\(duplicates)")
        }
    }
}
