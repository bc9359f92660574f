import ArgumentParser
import Effects
import Foundation
import FrameCore
import FrameSource
import MediaInput
import Render
import Sinks

/// `vidfx apply INPUT -e CHAIN -o OUTPUT`: re-render a video at the cadence with effects.
struct Apply: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Re-encode a video at the cadence (30 fps by default) with an effect chain, keeping the audio.",
        discussion: """
        The container and codec follow the output's extension (.mp4/.mov/.mkv: H.264 yuv420p, .webm: VP9). \
        Audio is copied when the container takes it and the clip is whole; transcoded (AAC, or Opus for WebM) \
        when it must be, or when --start/--duration/--loop cut it, so seams stay sample-accurate. \
        The output is written beside the target and renamed into place when complete; Ctrl-C finalizes \
        what was rendered into a playable file (exit 130). \
        A photo in, a photo out: `vidfx apply photo.jpg -e faceblur -o redacted.jpg` (.jpg, .png, .webp, .ppm). \
        `-o clip.gif` (or --codec gif) writes an animated GIF with one palette for the clip, or one a scene with --palette scenes \
        (ffmpeg's palettegen and paletteuse; --fps and --size make it smaller; it plays for ever, or --loop N times). \
        `-o -` streams to standard output (Matroska unless --container says otherwise; MP4 and MOV are \
        fragmented), e.g. `vidfx apply in.mp4 -e sepia -o - | ffplay -`.
        """
    )

    @Argument(help: "Video file, http(s) URL, or - for standard input.")
    var input: String

    @Option(name: .shortAndLong, help: "Output video file, or - for standard output; an image name (.jpg, .png, .webp) writes one picture from a photo.")
    var output: String

    @Option(parsing: .unconditional, help: "JPEG or WebP quality of an image output, 1–100.")
    var quality: Int = 90

    @Option(help: "Container: mp4, mov, mkv, webm or ts (default: from the extension; mkv for -).")
    var container: OutputContainer?

    @Option(help: "Video codec: h264, hevc, vp9, av1, prores (FFmpeg's names too: h265, x264, libvpx-vp9…), or gif for an animated GIF (an output named .gif, or one with no video extension). Default: from the extension.")
    var codec: OutputCodec?

    @Option(parsing: .unconditional, help: "Quality: constant rate factor (lower is better; x264 default 23).")
    var crf: Int?

    @Option(help: "Encoder speed: ultrafast, superfast, veryfast (default), faster, fast, medium, slow, slower or veryslow, for every codec (VP9 and AV1 map them to their own settings); for ProRes its profile: proxy, lt, standard (default), hq, 4444 or 4444xq (4444 by default for a transparent input).")
    var preset: String?

    @Option(parsing: .unconditional, help: "Target bit rate instead of CRF, e.g. 4M or 2500k.")
    var bitrate: BitRate?

    // Unconditional: `--size -2x720` is a value, not an option.
    @Option(parsing: .unconditional, help: "Output size: WxH; W x -1 or -1 x H keeping the proportions (-2: an even side; 'W x' is W x -1); 50%; or 480p, 720p, 1080p, 1440p, 2160p, which name the short side (a portrait clip stays portrait). Default: the input's.")
    var size: SizeArgument?

    @Option(help: "How the picture fits --size: fit (letterbox; a photo or GIF: its shape inside, no bars), fill (crop) or stretch.")
    var fit: EncoderSink.Fit = .fit

    @Option(help: ArgumentHelp("Colour a transparent input is composited over when the output cannot keep alpha (H.264, HEVC, AV1; ProRes 4:2:2): #RRGGBB or black, white, grey, green, blue, red (default black).", valueName: "colour"))
    var background: BackgroundColour = BackgroundColour(red: 0, green: 0, blue: 0)

    @Option(help: ArgumentHelp("The input's metadata (creation time, make, model, location, stream languages and titles): keep, or strip. By default it is kept, but a redaction (faceblur) leaves out the location and says so.",
                                valueName: "keep|strip"))
    var metadata: SourceMetadata.Choice?

    @Flag(name: .customLong("no-audio"), help: "Drop the audio.")
    var noAudio = false

    @Option(name: .customLong("keyframes-at"), help: ArgumentHelp("Make a key frame (IDR) of the first picture of each cut: 'scenes' finds them as `vidfx scenes` does; a FILE lists them (`vidfx scenes --json`, PySceneDetect's CSV, or times). A split by stream copy there is then exact.", valueName: "scenes|FILE"))
    var keyframesAt: String?

    @Option(help: ArgumentHelp("A GIF's palettes: one for the whole clip (clip, the default), one for each scene `vidfx scenes` finds (scenes), or for each scene of a cut list (FILE, as --keyframes-at reads it); a clip whose scenes differ keeps each one's colours.", valueName: "clip|scenes|FILE"))
    var palette = "clip"

    @Option(help: ArgumentHelp("Render only segment I of N (1…N) of the ticks, video only, for `vidfx concat` to join: one render across machines.", valueName: "I/N"))
    var segment: SegmentArgument?

    @OptionGroup var render: RenderOptions
    @OptionGroup var detection: DetectionOptions
    @OptionGroup var reviewed: ReviewedDetectionsOption
    @OptionGroup var timeline: TimelineOptions
    @OptionGroup var source: SourceOptions

    func run() throws {
        try OutputSafety.check(output: output, input: input, overwrite: render.yes)
        if output == "-" && isatty(STDOUT_FILENO) != 0 {
            throw CommandFailure(message: "-: standard output is a terminal; pipe the video into a player or a file (| ffplay -)")
        }
        let chain = try EffectChainParsing.chain(render.effects)
        if output != "-", container == nil, let format = ImageFormat(fileName: output, quality: quality) {
            return try writePhoto(as: format, chain: chain)
        }
        if try writesGIF() { return try writeGIF(chain: chain) }
        if palette != "clip" { throw CommandFailure(message: "\(output): --palette is for a GIF output (-o NAME.gif or --codec gif)", code: 2) }
        try writeVideo(chain: chain)
    }

    /// The video (or stream) output: the plan of `apply`'s options, run, and what it did said.
    private func writeVideo(chain: EffectChain?) throws {
        // Caught from before the input is opened: Ctrl-C must end a stalled open too.
        let interruption = Interruption()
        defer { interruption.end() }
        let configuration = self.source.configuration(timeline: timeline, quiet: render.quiet)
        let cuts = try keyframesAt.map { try cutTimes($0, configuration: configuration) }
        // A segment is video only: `concat` muxes the audio once, from the source.
        let keepsAudio = !noAudio && segment == nil
        let pictures: RenderPlan.Pictures = segment.map { .segment(index: $0.index, count: $0.count) } ?? .cadence
        let output = RenderPlan.Output.video(encoderSettings())
        var plan = RenderPlan(input: try source.input(input, access: RenderPlan.access(for: output, pictures: pictures, keepsAudio: keepsAudio)),
                              output: output)
        plan.source = configuration
        plan.pictures = pictures
        plan.chain = chain
        plan.detection = detection.settings
        plan.reviewed = reviewed.path
        plan.overwrite = render.yes
        plan.keepsAudio = keepsAudio
        plan.metadata = metadata
        let stop = StopSignal()
        var line: ProgressLine?
        plan.opened = { opening, output in
            guard case .video(var settings) = output else { return }
            settings.size = size.map { $0.resolved(for: opening.info, chain: chain) }
            if let segment, let span = opening.span {
                settings.metadata = SegmentLabel(index: Int(segment.index), count: Int(segment.count), firstTick: span.first, endTick: span.end,
                                                 render: Self.renderFingerprint(input: input, arguments: Array(CommandLine.arguments.dropFirst()))).metadata
            }
            if let cuts { settings.keyFrames = cuts.ticks(of: opening.whole, info: opening.info, total: opening.ticks.map(Int64.init)) }
            output = .video(settings)
            interruption.arm {
                opening.stop()
                stop.request()
            }
            line = ProgressLine(style: render.progress.style, quiet: render.quiet, total: opening.expectedFrames,
                                frameRate: opening.configuration.frameRate.seconds, damage: opening.damage)
        }
        var rendered = 0
        plan.progress = { rendered = $0; line?.update(frames: $0) }
        let result: RenderPlan.Result
        do { result = try plan.run(stop: stop) } catch {
            line?.end(frames: rendered)
            throw error
        }
        line?.end(frames: result.outcome.frames)
        let encoded = result.encoder?.encodedFrames ?? 0
        let target = self.output == "-" ? "stdout" : self.output
        switch result.outcome.ending {
        case .readerClosed:
            // The player reading the pipe was closed: the end of the show, not a failure.
            if !render.quiet { Console.note("the reader closed \(target) after \(Console.count(encoded, "frame"))") }
            return
        case .stopped where !result.outcome.published:
            Console.note("interrupted before the first frame; nothing written to \(target)")
            throw ExitCode(128 + (interruption.signal ?? SIGINT))
        case .stopped, .complete:
            break
        }
        say(result, chain: chain)
        if !render.quiet { for note in result.encoder?.notes ?? [] { Console.note(note) } }
        let seconds = Double(encoded) / result.opening.configuration.frameRate.seconds
        if let sig = interruption.signal {
            Console.note(String(format: "interrupted: wrote the first %.2f s (%@) to %@, a complete, playable file", seconds, Console.count(encoded, "frame"), target))
            throw ExitCode(128 + sig)
        }
        if !render.quiet, let summary = result.encoder?.summary {
            Console.note("wrote \(target): \(Console.count(summary.frames, "frame")), \(summary.width)x\(summary.height) \(summary.codec), "
                         + String(format: "%.2f s", seconds) + (summary.audio.map { ", audio \($0)" } ?? ", no audio"))
        }
    }

    /// The encoder's settings from the options; the plan finishes them from the input.
    private func encoderSettings() -> EncoderSink.Settings {
        var settings = EncoderSink.Settings(output: output)
        settings.container = container
        settings.codec = codec?.video
        settings.crf = crf
        settings.preset = preset
        settings.bitrate = bitrate?.bitsPerSecond
        settings.fit = fit
        settings.background = (background.red, background.green, background.blue)
        return settings
    }
}

extension Apply {
    /// After a render: the chain's passes (with --verbose), and the redaction's report in a line.
    func say(_ result: RenderPlan.Result, chain: EffectChain?) {
        render.reportPasses(of: chain)
        if let report = result.report, !render.quiet {
            Console.note(report.line + (result.reportPath.map { "; report \($0)" } ?? ""))
        }
    }
    /// Options that may differ between the machines rendering one render's segments,
    /// with whether each takes a value: left out of its fingerprint.
    static let perMachineOptions: [String: Bool] = ["-o": true, "--output": true, "--segment": true, "--progress": true,
                                                    "--detections": true, "-y": false, "--yes": false, "-q": false, "--quiet": false]

    /// The fingerprint every segment of one render carries (``SegmentLabel``): the input,
    /// named by its file name and size (machines may keep it in different folders) or as
    /// the URL, and the command line but for the per-machine options. Spell the command
    /// the same on every machine (a script does); `concat --force` joins anyway.
    static func renderFingerprint(input: String, arguments: [String]) -> String {
        var parts: [String] = []
        if let size = (try? FileManager.default.attributesOfItem(atPath: input))?[.size] as? Int {
            parts.append("file \(URL(fileURLWithPath: input).lastPathComponent) \(size)")
        } else {
            parts.append("input \(input)")
        }
        var skipValue = false
        for argument in arguments {
            if skipValue { skipValue = false; continue }
            if argument == input { continue }
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if let takesValue = perMachineOptions[name] {
                skipValue = takesValue && !argument.contains("=")
                continue
            }
            parts.append(argument)
        }
        return SegmentLabel.fingerprint(parts)
    }
}

/// `--segment I/N`: segment I (1…N) of N.
struct SegmentArgument: ExpressibleByArgument {
    var index: Int64
    var count: Int64

    init?(argument: String) {
        let parts = argument.split(separator: "/")
        guard parts.count == 2, let i = Int64(parts[0]), let n = Int64(parts[1]), n >= 1, n <= 100_000, i >= 1, i <= n else { return nil }
        (index, count) = (i, n)
    }

    /// The ticks of this segment, `first..<end`, of a render of `total`: split on tick
    /// boundaries, so that the segments' union is every tick once.
    func ticks(of total: Int64) -> (first: Int64, end: Int64) {
        ((index - 1) * total / count, index * total / count)
    }
}

/// `--size`: WxH, a named size, one side with the other kept in proportion (ffmpeg's
/// scale: `W x -1`, `-2` for an even side, `W x` as `W x -1`), or a percentage.
struct SizeArgument: ExpressibleByArgument {
    enum Side: Equatable {
        case pixels(Int)
        /// In proportion to the other side, rounded to the nearest multiple of this (1 or 2).
        case proportional(multiple: Int)
    }

    enum Rule: Equatable {
        case sides(width: Side, height: Side)
        /// A named size: its short side and long side, turned as the picture is (a
        /// portrait clip's 480p is 480x854).
        case named(short: Int, long: Int)
        case percent(Double)
    }

    let rule: Rule
    /// The largest side asked for or made (libx264 and friends stop at 16384 too).
    static let largest = 16384

    init(_ rule: Rule) { self.rule = rule }

    init?(argument: String) {
        let text = argument.lowercased().trimmingCharacters(in: .whitespaces)
        let named: [String: (Int, Int)] = ["480p": (480, 854), "720p": (720, 1280), "1080p": (1080, 1920),
                                           "1440p": (1440, 2560), "2160p": (2160, 3840), "4k": (2160, 3840)]
        if let (short, long) = named[text] { rule = .named(short: short, long: long); return }
        if text.hasSuffix("%") {
            // 1 %…1000 %: a thumbnail to a tenfold upscale.
            guard let p = Double(text.dropLast()), p.isFinite, p >= 1, p <= 1000 else { return nil }
            rule = .percent(p)
            return
        }
        let parts = text.split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        func side(_ s: Substring) -> Side? {
            switch s {
            case "", "-1": return .proportional(multiple: 1)
            case "-2": return .proportional(multiple: 2)
            default:
                guard let n = Int(s), n > 0, n <= Self.largest else { return nil }
                return .pixels(n)
            }
        }
        guard let w = side(parts[0]), let h = side(parts[1]) else { return nil }
        // One side must be given: `-1x-1` says nothing.
        if case .proportional = w, case .proportional = h { return nil }
        rule = .sides(width: w, height: h)
    }

    /// A size of exactly `width`×`height`.
    init(width: Int, height: Int) { rule = .sides(width: .pixels(width), height: .pixels(height)) }

    /// Both sides given: the size needs no picture to resolve against.
    var fixed: (width: Int, height: Int)? {
        guard case .sides(.pixels(let w), .pixels(let h)) = rule else { return nil }
        return (w, h)
    }

    /// The size for pictures of `width`×`height` (as the effects leave them), each side
    /// within 1…``largest``.
    func resolved(width: Int, height: Int) -> (width: Int, height: Int) {
        let (iw, ih) = (max(1, width), max(1, height))
        func clamp(_ v: Int) -> Int { min(max(v, 1), Self.largest) }
        // n·a/b rounded to the nearest multiple of `m`, as ffmpeg's scale rounds its -1 and -2.
        func scaled(_ n: Int, _ a: Int, _ b: Int, multiple m: Int) -> Int {
            let exact = Double(n) * Double(a) / Double(b) / Double(m)
            return clamp(max(1, Int(exact.rounded())) * m)
        }
        switch rule {
        case .named(let short, let long):
            return ih > iw ? (short, long) : (long, short)
        case .percent(let p):
            return (clamp(Int((Double(iw) * p / 100).rounded())), clamp(Int((Double(ih) * p / 100).rounded())))
        case .sides(.pixels(let w), .pixels(let h)):
            return (w, h)
        case .sides(.pixels(let w), .proportional(let m)):
            return (w, scaled(w, ih, iw, multiple: m))
        case .sides(.proportional(let m), .pixels(let h)):
            return (scaled(h, iw, ih, multiple: m), h)
        case .sides(.proportional, .proportional):
            return (iw, ih)  // refused by the parser
        }
    }

    /// The size for the pictures `chain` makes of the input `info` describes.
    func resolved(for info: MediaInfo, chain: EffectChain?) -> (width: Int, height: Int) {
        let shown = chain?.outputSize(width: info.width, height: info.height) ?? (width: info.width, height: info.height)
        return resolved(width: shown.width, height: shown.height)
    }
}

/// `--bitrate`: bits per second, with k/M suffixes.
/// `--background`: #RRGGBB or a colour's name (the effects' names).
struct BackgroundColour: ExpressibleByArgument {
    var red: UInt8, green: UInt8, blue: UInt8

    init(red: UInt8, green: UInt8, blue: UInt8) { (self.red, self.green, self.blue) = (red, green, blue) }

    init?(argument: String) {
        // The effects' names (an opaque one: the bars are filled, never see-through).
        if let c = Parameters.colorNames[argument.lowercased()], c[3] == 1 {
            (red, green, blue) = (UInt8(c[0] * 255 + 0.5), UInt8(c[1] * 255 + 0.5), UInt8(c[2] * 255 + 0.5))
            return
        }
        let hex = argument.hasPrefix("#") ? String(argument.dropFirst()) : argument
        guard hex.count == 6, hex.allSatisfy(\.isHexDigit), let v = UInt32(hex, radix: 16) else { return nil }
        (red, green, blue) = (UInt8(v >> 16), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF))
    }

    /// What --help shows as the default: the colour as it is written on the command line.
    var defaultValueDescription: String {
        if (red, green, blue) == (0, 0, 0) { return "black" }
        return String(format: "#%02x%02x%02x", red, green, blue)
    }
}

struct BitRate: ExpressibleByArgument {
    var bitsPerSecond: Int

    init?(argument: String) {
        let lower = argument.lowercased()
        var scale = 1.0
        var digits = Substring(lower)
        if lower.hasSuffix("k") { scale = 1e3; digits = digits.dropLast() }
        if lower.hasSuffix("m") { scale = 1e6; digits = digits.dropLast() }
        // Up to 10 Gb/s: more than any encoder here takes, and far from Int's limit.
        guard let v = Double(digits), v > 0, v * scale >= 1, v * scale <= 1e10 else { return nil }
        bitsPerSecond = Int(v * scale)
    }
}

/// `--progress`.
enum ProgressStyle: String, ExpressibleByArgument, CaseIterable {
    case auto, json, none

    var style: ProgressLine.Style { ProgressLine.Style(rawValue: rawValue) ?? .auto }
}

/// What `apply --codec` takes: a video codec, or `gif` for the GIF writer; the names
/// people bring from FFmpeg and elsewhere (`h265`, `x264`, `libvpx-vp9`) are the same codecs.
enum OutputCodec: String, ExpressibleByArgument, CaseIterable {
    case h264, hevc, vp9, av1, prores, gif

    static let aliases: [String: OutputCodec] = [
        "avc": .h264, "x264": .h264, "libx264": .h264, "h.264": .h264, "h265": .hevc, "h.265": .hevc, "x265": .hevc, "libx265": .hevc,
        "libvpx-vp9": .vp9, "vp09": .vp9, "libaom-av1": .av1, "libsvtav1": .av1, "svtav1": .av1, "aom": .av1, "prores_ks": .prores,
    ]

    init?(argument: String) {
        let name = argument.lowercased()
        guard let codec = OutputCodec(rawValue: name) ?? Self.aliases[name] else { return nil }
        self = codec
    }

    /// The video encoder's codec; nil for a GIF.
    var video: VideoCodec? { VideoCodec(rawValue: rawValue) }
}

extension Apply {
    /// Whether the output is an animated GIF: named .gif, or `--codec gif`. A GIF is a
    /// file of its own, so a container, standard output or a video codec with it is refused.
    func writesGIF() throws -> Bool {
        let ext = (output as NSString).pathExtension.lowercased()
        if codec == .gif {
            if output == "-" { throw CommandFailure(message: "-: a GIF is written to a file (it takes two passes over the clip); name one with -o") }
            if let container { throw CommandFailure(message: "\(output): a GIF is a file format of its own; drop --container \(container.rawValue)") }
            if let video = OutputContainer(extension: ext) {
                throw CommandFailure(message: "\(output): --codec gif writes a GIF, but the name says \(video.rawValue); name the output .gif")
            }
            return true
        }
        guard ext == "gif", output != "-", container == nil else { return false }
        if let codec {
            throw CommandFailure(message: "\(output): a .gif holds a GIF, not \(codec.rawValue); name the output .mp4 for \(codec.rawValue), or drop --codec")
        }
        return true
    }
}
