public import ArgumentParser
import Effects
import FrameCore
public import FrameSource
import MediaInput
import Shaders
public import Sinks

extension InputLimits {
    /// Throws a one-line error naming `option` unless `count` is within 1…largestCount.
    static func checkCount(_ count: Int?, option: String) throws {
        guard let count else { return }
        guard (1...largestCount).contains(count) else {
            throw ValidationError("\(option): must be 1…\(largestCount), not \(count)")
        }
    }
}

/// A time in seconds given as `12.5`, `1/3`, `90`, `2s`, `500ms` or `1:02:03.5` (as the
/// effects' keyframes write times), up to ``InputLimits/longestTime`` and no finer than a
/// microsecond.
struct TimeArgument: ExpressibleByArgument {
    var value: Rational

    init?(argument: String) {
        if !argument.contains(":"), argument.hasSuffix("ms"), argument.count > 2 {
            guard let ms = TimeArgument(argument: String(argument.dropLast(2))) else { return nil }
            let v = ms.value / Rational(1000)
            guard InputLimits.isWorkableTime(v) else { return nil }
            value = v
            return
        }
        let argument = !argument.contains(":") && argument.hasSuffix("s") && argument.count > 1 ? String(argument.dropLast()) : argument
        let parts = argument.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = Rational(0)
        for (i, part) in parts.enumerated() {
            guard let v = Rational(String(part)), v >= Rational(0) || parts.count == 1,
                  InputLimits.isWorkableTime(v) else { return nil }
            if i < parts.count - 1 {
                guard v.denominator == 1 else { return nil }  // only the seconds may be fractional
                total = (total + v) * 60
            } else {
                total = total + v
            }
        }
        guard InputLimits.isWorkableTime(total) else { return nil }
        value = total
    }

    var defaultValueDescription: String { value.description }
}

/// A frame rate given as `30`, `29.97` or `30000/1001`: above 0, at most 1000 fps, its
/// fraction's terms at most a million.
struct RateArgument: ExpressibleByArgument {
    var value: Rational

    init?(argument: String) {
        guard let r = Rational(argument), r > Rational(0), r <= Rational(InputLimits.fastestRate),
              r.numerator <= InputLimits.finestTime * InputLimits.fastestRate, r.denominator <= InputLimits.finestTime else { return nil }
        value = r
    }

    init(_ value: Rational) { self.value = value }

    var defaultValueDescription: String { value.description }
}

/// `--fps` where frames come from an input: a rate, or `source` for the input's own.
struct OutputRateArgument: ExpressibleByArgument {
    /// The rate asked for; with ``fromSource``, the one used when the input has none.
    var value: Rational
    /// The input's own rate, found when it is opened.
    var fromSource = false

    init?(argument: String) {
        if argument.lowercased() == "source" {
            value = Rational(30)
            fromSource = true
        } else {
            guard let rate = RateArgument(argument: argument) else { return nil }
            value = rate.value
        }
    }

    init(_ value: Rational) { self.value = value }

    var defaultValueDescription: String { fromSource ? "source" : value.description }

    func apply(to configuration: inout FrameSource.Configuration) {
        configuration.frameRate = value
        configuration.rateFromSource = fromSource
    }
}

extension FrameSource.TickRounding: ExpressibleByArgument {}
extension SourceMetadata.Choice: ExpressibleByArgument {}
extension FrameSource.ColorMatrix: ExpressibleByArgument {}
extension FrameSource.ColorRange: ExpressibleByArgument {}
extension FrameSource.ToneMapping: ExpressibleByArgument {}
extension FrameSource.ToneMapEngine: ExpressibleByArgument {}
extension FrameSource.Deinterlacing: ExpressibleByArgument {}
extension VideoCodec: ExpressibleByArgument {}
extension OutputContainer: ExpressibleByArgument {}
extension EncoderSink.Fit: ExpressibleByArgument {}

/// How the input is decoded to RGB (shared by every command that reads video).
struct ColorOptions: ParsableArguments {
    @Option(name: .customLong("colorspace"), help: "YUV matrix: auto (as tagged; BT.601 when untagged, like FFmpeg), bt601, bt709 or bt2020.")
    var colorMatrix: FrameSource.ColorMatrix = .auto

    @Option(name: .customLong("range"), help: "YUV range: auto (as tagged), limited or full.")
    var colorRange: FrameSource.ColorRange = .auto

    @Flag(name: .customLong("keep-pixel-aspect"), help: "Do not scale non-square pixels to square.")
    var keepPixelAspect = false

    @Option(name: .customLong("tonemap"), help: ArgumentHelp(
        "HDR (HLG, PQ) to SDR BT.709: auto (mobius), mobius, hable, reinhard, clip, or off (the raw signal, flat and washed out).",
        valueName: "operator"))
    var toneMapping: FrameSource.ToneMapping = .auto

    @Option(name: .customLong("peak"), parsing: .unconditional, help: ArgumentHelp(
        "HDR peak brightness in nits that the tone map compresses to SDR (default: the stream's light-level metadata, else 1000).",
        valueName: "nits"))
    var peakNits: Double?

    @Option(name: .customLong("tonemap-engine"), help: ArgumentHelp(
        "table (libavfilter's tone map computed once per clip at the points of a 3-D table with zimg, its own library, then interpolated: fast) or libavfilter (zscale + tonemap on every frame, the reference).",
        valueName: "engine"))
    var toneMapEngine: FrameSource.ToneMapEngine = .table

    @Option(name: .customLong("deinterlace"), help: ArgumentHelp(
        "Interlaced video: auto (bwdif on pictures flagged interlaced, and on all when the first pictures, flagged progressive or not flagged, show their two fields at two instants), on, or off.",
        valueName: "mode"))
    var deinterlace: FrameSource.Deinterlacing = .auto

    func apply(to configuration: inout FrameSource.Configuration) {
        configuration.colorMatrix = colorMatrix
        configuration.colorRange = colorRange
        configuration.squarePixels = !keepPixelAspect
        configuration.toneMapping = toneMapping
        configuration.peakNits = peakNits
        configuration.toneMapEngine = toneMapEngine
        configuration.deinterlace = deinterlace
    }
}

/// How network inputs (http, https, HLS) are fetched.
struct NetworkOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Network inputs: seconds without data before giving up (connecting, reading, reconnecting).", valueName: "seconds"))
    var timeout: Double = 15

    @Option(name: .customLong("header"), help: ArgumentHelp("An HTTP request header, \"Name: value\"; repeat for several.", valueName: "header"))
    var headers: [String] = []

    @Option(name: .customLong("user-agent"), help: "The HTTP User-Agent to send.")
    var userAgent: String?

    func validate() throws {
        guard timeout > 0, timeout <= 86_400 else { throw ValidationError("--timeout: must be between 0 and 86400 seconds") }
    }

    /// The settings the input is fetched with.
    var settings: MediaInput.Network {
        var network = MediaInput.Network()
        network.timeout = .milliseconds(Int64(timeout * 1000))
        network.headers = headers
        network.userAgent = userAgent
        return network
    }
}

/// What every command that reads video shares about its input: how it is fetched and
/// how it is decoded to RGB.
struct SourceOptions: ParsableArguments {
    @OptionGroup var color: ColorOptions
    @OptionGroup var network: NetworkOptions

    @Option(name: .customLong("input-format"), help: ArgumentHelp(
        "Read the input with this libavdevice format: x11grab (screen), v4l2 (camera)… (x11grab:DISPLAY and /dev/videoN need none).",
        valueName: "format"))
    var inputFormat: String?

    @Option(name: .customLong("input-option"), help: ArgumentHelp(
        "An option for a capture device, KEY=VALUE (video_size=1280x720, framerate=30, draw_mouse=0…); repeat for several.",
        valueName: "key=value"))
    var inputOptions: [String] = []

    func validate() throws {
        for o in inputOptions where !o.contains("=") || o.hasPrefix("=") {
            throw ValidationError("--input-option: '\(o)' is not KEY=VALUE")
        }
    }

    /// The input, described for `access` (nothing is read yet), with a one-line error
    /// naming it when a network setting cannot work.
    func input(_ location: String, access: MediaInput.Access) throws -> MediaInput {
        var options: [String: String] = [:]
        for o in inputOptions {
            let parts = o.split(separator: "=", maxSplits: 1)
            options[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return try MediaInput(location, access: access, network: network.settings, format: inputFormat, formatOptions: options)
    }

    /// A configuration with these options, the timeline's (when given), and warnings to
    /// the console unless `quiet`.
    func configuration(timeline: TimelineOptions? = nil, quiet: Bool) -> FrameSource.Configuration {
        var configuration = FrameSource.Configuration()
        timeline?.apply(to: &configuration)
        color.apply(to: &configuration)
        configuration.warningHandler = { message in if !quiet { Console.warning(message) } }
        return configuration
    }
}

/// Which part of the timeline becomes frames, and at what cadence.
struct TimelineOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Output frames per second: 30, 29.97, 30000/1001…, or source for the input's own (a variable rate's average).")
    var fps = OutputRateArgument(Rational(30))

    @Option(name: .customLong("fps-rounding"), help: ArgumentHelp(
        "Which tick a picture starts on: up (the tick shows the picture on screen at its instant, ffmpeg's fps round=up) or near (the tick nearest the picture's time, ffmpeg's fps default).",
        valueName: "up|near"))
    var fpsRounding: FrameSource.TickRounding = .up

    @Option(parsing: .unconditional, help: "Start at this time in the input (seconds or h:m:s); the first frame is the one on screen then.")
    var start: TimeArgument?

    @Option(parsing: .unconditional, help: "Take this many seconds from the start point.")
    var duration: TimeArgument?

    @Option(parsing: .unconditional, help: "Play the clip this many times in all.")
    var loop: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Play the source F times as fast, 0.25–8 (0.5 is slow motion, 4 a time-lapse); the sound keeps its pitch. --start and --duration are the source's times.", valueName: "F"))
    var speed: RateArgument?

    func validate() throws {
        try InputLimits.checkCount(loop, option: "--loop")
        if let speed, speed.value < FrameSource.Configuration.slowest || speed.value > FrameSource.Configuration.fastest {
            throw ValidationError("--speed must be between 0.25 and 8 (got \(speed.value.seconds))")
        }
    }

    func apply(to configuration: inout FrameSource.Configuration) {
        fps.apply(to: &configuration)
        configuration.tickRounding = fpsRounding
        if let start { configuration.start = start.value }
        configuration.duration = duration?.value
        if let loop { configuration.loop = .count(loop) }
        if let speed { configuration.speed = speed.value }
    }
}

/// What `apply` and `dump` share about rendering and reporting.
struct RenderOptions: ParsableArguments {
    @Option(name: [.customShort("e"), .customLong("effects")],
            help: ArgumentHelp("Effect chain, e.g. \"sepia=0.8,pixelate:size=12\" (see `vidfx effects`).", valueName: "chain"))
    var effects: String?

    @Option(help: ArgumentHelp("Where shaders run: auto (a GPU when there is one, else the CPU through Mesa's lavapipe), cpu or gpu.",
                                valueName: "device"))
    var device: ShaderProgram.Device = .auto

    func validate() throws {
        // Before any chain is parsed: a shader file in it is compiled for this device.
        ShaderProgram.prefer(device)
    }

    @Flag(name: .shortAndLong, help: "Overwrite an existing output (for dump: replace the frames in a folder).")
    var yes = false

    @Flag(name: .shortAndLong, help: "No progress or messages except errors.")
    var quiet = false

    @Option(help: "Progress on stderr: auto (a line on terminals), json (one object per update) or none.")
    var progress: ProgressStyle = .auto

    /// For the tests: one line at the end saying how the chain's colour passes rendered
    /// (a frame still referenced elsewhere is copied before an effect writes it).
    @Flag(help: .hidden)
    var reportColorPasses = false

    /// The line ``reportColorPasses`` asks for, on stderr.
    func reportPasses(of chain: EffectChain?) {
        guard reportColorPasses, let chain else { return }
        let passes = chain.colorPasses
        Console.note("colour passes: \(passes.inPlace) in place, \(passes.copied) copied")
    }
}

extension ShaderProgram.Device: ExpressibleByArgument {}
