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

        // Standard input through a spool: seekable (an MP4 indexed at the end) and read
        // again for each still.
        let media = try self.source.input(input, access: .seekable)
        let pictures: RenderPlan.Pictures
        if scenes {
            // The cuts and every picture's score first (a pass over small pictures), then
            // stills chosen in each scene's stable middle.
            var options = PictureScanner.Options()
            options.start = configuration.start
            options.duration = configuration.duration
            options.warningHandler = configuration.warningHandler
            let scan = try SceneScan(input: input, media: media, options: options, interruption: interruption,
                                     minimumLength: NamedDetector.defaultMinimumLength, recordScores: true,
                                     decoders: ProcessInfo.processInfo.activeProcessorCount) {
                NamedDetector.standard(minLength: $0)
            }
            pictures = .sceneMiddles(scan, perScene: perScene)
        } else if let pick {
            pictures = .representative(count: pick)
        } else if !times.isEmpty {
            pictures = .stills(times)
        } else {
            pictures = .cadence
        }
        let imageFormat: ImageFormat = switch format {
        case .png: .png
        case .jpg: .jpeg(quality: quality)
        case .webp: .webp(quality: quality)
        case .ppm: .ppm
        case .bgra: .bgra
        }
        var plan = RenderPlan(input: media, output: rawFile ? .raw(path: output) : .images(folder: output, format: imageFormat))
        plan.source = configuration
        plan.pictures = pictures
        plan.chain = chain
        plan.detection = detection.settings
        plan.reviewed = reviewed.path
        plan.overwrite = render.yes
        let stop = StopSignal()
        var line: ProgressLine?
        var frameRate = configuration.frameRate
        plan.opened = { opening, _ in
            interruption.arm {
                opening.stop()
                stop.request()
            }
            frameRate = opening.configuration.frameRate  // --fps source: as found
            // Key frames are fewer than ticks: a total only when --frames gives one.
            line = ProgressLine(style: render.progress.style, quiet: render.quiet || output == "-",
                                total: keyFrames ? frames : opening.expectedFrames, frameRate: frameRate.seconds, damage: opening.damage)
        }
        var nearCopies = dedupe.flatMap(NearDuplicates.init(bits:))
        var size: (Int, Int)?
        plan.keep = { frame in
            if size == nil { size = (frame.width, frame.height) }
            return nearCopies?.keeps(frame) ?? true
        }
        var count = 0
        plan.progress = { count = $0; line?.update(frames: $0) }
        let result: RenderPlan.Result
        do { result = try plan.run(stop: stop) } catch {
            line?.end(frames: count)
            throw error
        }
        line?.end(frames: count)
        if result.outcome.ending == .stopped {
            Console.note("interrupted after \(Console.count(count, "frame")); nothing written to \(output)")
            throw ExitCode(128 + (interruption.signal ?? SIGINT))
        }
        render.reportPasses(of: chain)
        if let report = result.report, !render.quiet {
            Console.note(report.line + (result.reportPath.map { "; report \($0)" } ?? ""))
        }
        if !render.quiet, let (w, h) = size {
            let target = output == "-" ? "stdout" : output
            let duplicates = nearCopies.map { " (\($0.dropped) near-duplicates dropped)" } ?? ""
            Console.note("\(Console.count(count, "frame")), \(w)x\(h) \(format.rawValue), \(frameRate) fps -> \(target)\(duplicates)")
        }
    }
}
