import ArgumentParser
import Detection
import Effects
import Foundation
import FrameCore
import FrameSource
import MediaInput
import Render
import Playback
import Sinks
import WindowSink

/// `vidfx preview`: real-time playback through the effects to a window, the terminal
/// or a y4m pipe.
struct Preview: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a video through effects in real time: window, terminal or y4m on stdout.",
        discussion: """
        Keys (window and terminal): q or Esc quit, space pauses, ←/→ choose the effect \
        (of the chain, or presets when the chain has one effect or none), ↑/↓ change its \
        first parameter, l toggles looping. On exit: frames shown, dropped and lateness.

        Examples:
          vidfx preview clip.mp4 -e sepia --loop
          vidfx preview clip.mp4 -e "posterize,pixelate=8" --sink terminal
          vidfx preview clip.mp4 -e sepia --sink y4m | mpv -
        """
    )

    enum SinkKind: String, ExpressibleByArgument, CaseIterable {
        case window, terminal, y4m
    }

    @Argument(help: "Video file, URL, or - for standard input.")
    var input: String

    @Option(name: [.customShort("e"), .customLong("effects")],
            help: ArgumentHelp("Effect chain, e.g. \"sepia=0.8,pixelate:size=12\" (see `vidfx effects`).", valueName: "chain"))
    var effects: String?

    @Option(name: .customLong("sink"), help: "Where to show it: window, terminal or y4m (stdout); repeat for several. Default: window with a display, else terminal.")
    var sinks: [SinkKind] = []

    // A bare --loop (followed by another option, the input, or nothing) is the flag
    // form: the parser falls back to `forever` when no count follows.
    @Option(defaultAsFlag: LoopArgument.forever, help: ArgumentHelp("Play N times in all; --loop alone loops until stopped.", valueName: "N"))
    var loop: LoopArgument?

    @Option(parsing: .unconditional, help: "Frames per second of the cadence: 30, 29.97, 30000/1001…")
    var fps = RateArgument(Rational(30))

    @Option(parsing: .unconditional, help: "Start at this time in the input (seconds or h:m:s).")
    var start: TimeArgument?

    @Option(parsing: .unconditional, help: "Stop after this many seconds of playback (loops included).")
    var duration: TimeArgument?

    @Option(parsing: .unconditional, help: ArgumentHelp("Play the source F times as fast, 0.25–8 (0.5 is slow motion).", valueName: "F"))
    var speed: RateArgument?

    @Option(parsing: .unconditional, help: "Window size, or the y4m stream's size (as apply's --size). Default: the video's.")
    var size: SizeArgument?

    @Flag(name: .shortAndLong, help: "No messages except errors (no statistics at the end).")
    var quiet = false

    @OptionGroup var reviewed: ReviewedDetectionsOption
    @OptionGroup var source: SourceOptions

    /// `--loop` with a count, `--loop forever`, or a bare `--loop` (forever).
    struct LoopArgument: ExpressibleByArgument, CustomStringConvertible {
        var passes: Int?
        static let forever = LoopArgument(passes: nil)
        private init(passes: Int?) { self.passes = passes }
        init?(argument: String) {
            if argument == "forever" { passes = nil; return }
            guard let n = Int(argument) else { return nil }
            passes = n  // checked in validate(), where the message can say what is wrong
        }
        var description: String { passes.map(String.init) ?? "forever" }
    }

    func validate() throws {
        try InputLimits.checkCount(loop?.passes, option: "--loop")
    }

    func run() throws {
        let chain = try EffectChainParsing.chain(effects)
        // Caught from before the input is opened: Ctrl-C must end a stalled open too.
        let interruption = Interruption()
        defer { interruption.end() }
        var configuration = self.source.configuration(quiet: quiet)
        configuration.frameRate = fps.value
        if let start { configuration.start = start.value }
        configuration.outputLimit = duration?.value
        if let speed {
            guard speed.value >= FrameSource.Configuration.slowest && speed.value <= FrameSource.Configuration.fastest else {
                throw ValidationError("--speed must be between 0.25 and 8 (got \(speed.value.seconds))")
            }
            configuration.speed = speed.value
        }
        let media = try self.source.input(input, access: .stream)
        if media.isLive && loop != nil {
            throw CommandFailure(message: "\(input): a live capture cannot loop (it has no end to loop from)")
        }
        // The player decides when looping ends (the l key can turn it on and off), so the
        // source loops on; standard input cannot be rewound, and a capture has no end.
        configuration.loop = input == "-" || media.isLive ? .once : .forever
        configuration.prefetch = 2
        let source = try FrameSource(input: media, configuration: configuration)
        defer { source.close() }

        // Catch Ctrl-C before any sink changes the terminal, so that the sinks are always
        // closed (and the terminal restored) on the way out.
        let slot = PlayerSlot()
        interruption.arm {
            source.stop()
            slot.stop()
        }

        let kinds = sinks.isEmpty ? [Self.defaultSink()] : sinks
        guard Set(kinds).count == kinds.count else { throw ValidationError("--sink: each sink at most once") }
        var opened: [any PreviewSink] = []
        defer { for sink in opened { sink.close() } }
        // The window opens at the size of what is shown (a crop makes it smaller).
        let videoSize = chain?.outputSize(width: source.info.width, height: source.info.height)
            ?? (width: source.info.width, height: source.info.height)
        for kind in kinds {
            do {
                switch kind {
                case .window:
                    let initial = size.map { $0.resolved(width: videoSize.width, height: videoSize.height) } ?? Self.windowSize(for: videoSize)
                    opened.append(try WindowSink(title: "vidfx - \((input as NSString).lastPathComponent)", size: initial))
                case .terminal:
                    opened.append(try TerminalSink())
                case .y4m:
                    if isatty(STDOUT_FILENO) != 0 { throw ValidationError("--sink y4m writes a video stream to stdout; pipe it: vidfx preview … --sink y4m | mpv -") }
                    opened.append(Y4MSink(size: size.map { $0.resolved(width: videoSize.width, height: videoSize.height) }, frameRate: fps.value))
                }
            }
        }

        var options = Player.Options()
        options.frameRate = fps.value
        options.passes = input == "-" ? 1 : (loop.map { $0.passes } ?? 1)
        options.live = source.mediaInput.isLive
        // Effects that draw or redact detections get them live: a worker detects on the
        // newest frame whenever it is free, and playback never waits for it.
        // A reviewed detections file instead gives each tick exactly its boxes.
        let reviewedFile = try reviewed.load(tickLimit: nil)
        let detection = reviewedFile == nil ? try DetectionStage.liveDetection(for: chain) : nil
        defer { detection?.end() }
        if let detection { options.annotate = { frame in frame.observations = detection.observe(frame) } }
        if let reviewedFile {
            let rate = fps.value.seconds
            options.annotate = { frame in frame.observations = reviewedFile.observations(at: Int64((frame.time.seconds * rate).rounded())) }
        }
        let player = Player(source: source, chain: LiveChain(chain, resources: EffectChainParsing.resources), sinks: opened, options: options)
        slot.set(player)
        let report: Player.Report
        report = try player.run()
        for sink in opened { sink.close() }
        opened.removeAll()
        if !quiet { Console.note(Self.describe(report)) }
        if let sig = interruption.signal { throw ExitCode(128 + sig) }
    }

    /// The window when there is a display, else the terminal, else a clear error.
    static func defaultSink() -> SinkKind {
        let env = ProcessInfo.processInfo.environment
        if env["DISPLAY"] != nil || env["WAYLAND_DISPLAY"] != nil || env["SDL_VIDEODRIVER"] != nil { return .window }
        return .terminal
    }

    /// The video's size, halved until it fits a typical screen.
    static func windowSize(for video: (Int, Int)) -> (Int, Int) {
        var (w, h) = video
        while w > 1600 || h > 900 { w /= 2; h /= 2 }
        return (max(w, 160), max(h, 90))
    }

    static func describe(_ r: Player.Report) -> String {
        let s = r.statistics
        let total = s.delivered + s.dropped
        let percent = total > 0 ? 100 * Double(s.dropped) / Double(total) : 0
        func ms(_ d: Duration) -> String { String(format: "%.1f ms", Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1000) }
        var text = "shown \(s.delivered) frames, dropped \(s.dropped) (" + String(format: "%.1f%%", percent) + ")"
        if s.delivered > 0 { text += ", lateness mean \(ms(s.meanLateness)), p99 \(ms(s.p99Lateness)), max \(ms(s.maxLateness))" }
        if r.hidden > 0 { text += ", \(r.hidden) ticks hidden" }
        return text
    }
}

/// The player, once it exists, for the signal handler to stop.
private final class PlayerSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var player: Player?
    private var stopped = false

    func set(_ player: Player) {
        lock.lock()
        self.player = player
        let stop = stopped
        lock.unlock()
        if stop { player.stop() }
    }

    func stop() {
        lock.lock()
        stopped = true
        let p = player
        lock.unlock()
        p?.stop()
    }
}
