import ArgumentParser
import Shaders
import Effects
import Foundation
import Synchronization
import FrameCore
import FrameSource
import Sinks
#if canImport(Glibc)
import Glibc
#endif

/// `vidfx`: pull frames out of videos on a timed cadence, run effects, write them out.
@main
struct VidFX: AsyncParsableCommand {
    /// The version, in one place: `--version`, the .deb (scripts/make-deb.sh reads it
    /// here) and the man page (made from `--version`).
    static let version = "0.1.0"

    /// Every command, in the order help lists them.
    static let commands: [any ParsableCommand.Type] = [Apply.self, Dump.self, Preview.self, Probe.self, Detect.self, Plan.self,
                                                       Concat.self, Batch.self, EffectsCommand.self, StudioCommand.self,
                                                       ScenesCommand.self, Split.self, StoryboardCommand.self, SheetCommand.self]

    // The overview names the commands from the list itself, so a new one is never left out.
    static let configuration = CommandConfiguration(
        commandName: "vidfx",
        abstract: "Frames out of video on a timed cadence, through effect shaders: "
            + commands.map { $0._commandName }.joined(separator: ", ") + ".",
        version: version,
        subcommands: commands
    )

    /// Runs the command line; failures print one line on stderr and exit non-zero.
    static func main() async {
        // Process-wide settings belong here, not in the libraries. A file-size limit
        // (ulimit -f) must surface as a write error (EFBIG), and a pipe whose reader quit
        // as EPIPE (the sinks' "reader closed", the end of the show), not kill us.
        signal(SIGXFSZ, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        holdStandardDescriptors()
        // SVT-AV1 prints a banner to stderr unless told to be quiet; stderr is for our lines.
        setenv("SVT_LOG", "1", 0)
        FramePool.preferMappedBuffers()  // footprint = what is alive
        FrameSource.routeFFmpegLogs()  // FFmpeg's own lines are kept for our messages, not printed
        ShaderEffect.register()  // a chain entry naming a .glsl file is a shader of the user's
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let mistake = unknownCommand(in: arguments) {
            Console.error(mistake)
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            fail(error, arguments: arguments)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as any UserFacingError {
            // Every library's errors and the commands' own: one line, its status.
            Console.error(error.message)
            Foundation.exit(error.exitCode)
        } catch let error as ExitCode {
            // The command has said what happened (or a signal ended it): only the status.
            Foundation.exit(error.rawValue)
        } catch {
            fail(error, arguments: arguments)
        }
    }

    /// Started with standard input, output or error closed (`vidfx … >&-`), the next file
    /// opened would take that number, and what is meant for the terminal would go into it
    /// (an output being written, libdispatch's eventfd). Each closed one is held on
    /// /dev/null opened the other way round, so that using it fails (EBADF: "standard
    /// output: Bad file descriptor") rather than writing anywhere.
    static func holdStandardDescriptors() {
        for (descriptor, flags) in [(STDIN_FILENO, O_WRONLY), (STDOUT_FILENO, O_RDONLY), (STDERR_FILENO, O_RDONLY)] {
            guard fcntl(descriptor, F_GETFD) == -1, errno == EBADF else { continue }
            let held = open("/dev/null", flags)
            if held >= 0, held != descriptor { dup2(held, descriptor); close(held) }
        }
    }

    /// The line for a first word that names no command (`vidfx aply …`, `vidfx help aply`),
    /// with the nearest command when it is a typo; nil when the command line starts well.
    /// The parser itself would complain about the first option instead ("Unknown option
    /// '-o'"), or print the overview for `help` with no word about the name.
    static func unknownCommand(in arguments: [String]) -> String? {
        let names = commands.map { $0._commandName }
        let words = arguments.first == "help" ? Array(arguments.dropFirst()) : arguments
        guard let first = words.first, !first.hasPrefix("-"), !names.contains(first), first != "help" else { return nil }
        var text = "unknown command '\(first)'"
        if let guess = EffectError.closest(to: first, in: names) {
            text += "; did you mean '\(guess)'?"
        } else if first.contains(".") || first.contains("/") || FileManager.default.fileExists(atPath: first) {
            text += "; the command comes first, e.g. vidfx apply \(first) -e sepia -o out.mp4"
        }
        return text + " (vidfx --help lists the commands)"
    }

    /// Ends the process for an error from the argument parser (parsing, or a
    /// ValidationError from run()): --help and --version print as the parser has them;
    /// a mistake is one line that says what is wrong and where to read more.
    static func fail(_ error: any Error, arguments: [String]) -> Never {
        let code = exitCode(for: error)
        guard code != .success else { exit(withError: error) }
        let first = oneLine(message(for: error))
        let names = configuration.subcommands.map { $0._commandName }
        let help = arguments.first.flatMap { names.contains($0) ? "vidfx \($0) --help" : nil } ?? "vidfx --help"
        Console.error("\(first.replacingOccurrences(of: "Error: ", with: "")) (see \(help))")
        Foundation.exit(code.rawValue)
    }
}

extension VidFX {
    /// ffmpeg's options a user reaches for first, and what vidfx calls them.
    static let ffmpegOptions: [String: String] = [
        "-vf": "-e (an effect chain; vidfx effects lists them)", "-filter:v": "-e (an effect chain; vidfx effects lists them)",
        "-filter_complex": "-e (an effect chain; vidfx effects lists them)", "-lavfi": "-e (an effect chain; vidfx effects lists them)",
        "-ss": "--start", "-t": "--duration", "-to": "--start and --duration", "-r": "--fps", "-s": "--size",
        "-c:v": "--codec", "-vcodec": "--codec", "-codec:v": "--codec", "-b:v": "--bitrate", "-crf": "--crf",
        "-preset": "--preset", "-an": "--no-audio", "-f": "--container", "-i": "nothing: the input is the command's first argument",
        "-frames:v": "--frames (dump)", "-vframes": "--frames (dump)", "-stream_loop": "--loop",
    ]

    /// The parser's message as one line. A list the parser puts on the following lines
    /// ("Please provide one of the following:" and "- h264" …) joins the first; an ffmpeg
    /// option gets vidfx's name for it instead of the parser's nearest guess.
    static func oneLine(_ message: String) -> String {
        let lines = message.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard var first = lines.first, !first.isEmpty else { return "invalid arguments" }
        if first.hasPrefix("Error: ") { first.removeFirst("Error: ".count) }
        if first.hasPrefix("Unknown option '"), let end = first.dropFirst("Unknown option '".count).firstIndex(of: "'") {
            let option = String(first[first.index(first.startIndex, offsetBy: "Unknown option '".count)..<end])
            if let equivalent = ffmpegOptions[option] { return "unknown option '\(option)': vidfx's name for ffmpeg's \(option) is \(equivalent)" }
        }
        if first.hasSuffix(":") {
            let items = lines.dropFirst().prefix { $0.hasPrefix("- ") }.map { String($0.dropFirst(2)) }
            if !items.isEmpty { first += " " + items.joined(separator: ", ") }
        }
        return first
    }
}

/// A failure the command reports in its own words.
struct CommandFailure: UserFacingError {
    var message: String
    var code: Int32 = 1
    var exitCode: Int32 { code }
    var description: String { message }
}

/// Messages go to stderr; stdout carries data only.
enum Console {
    static func error(_ message: String) {
        _ = write(Data("vidfx: \(message)\n".utf8), to: STDERR_FILENO)
    }

    static func note(_ message: String) {
        _ = write(Data("vidfx: \(message)\n".utf8), to: STDERR_FILENO)
    }

    /// Writes `data` to standard output. False when its reader has gone (a closed pipe:
    /// `vidfx detect … | head`): the command then ends quietly, as the sinks do there.
    /// Foundation's `FileHandle.write(_:)` traps on any failed write instead.
    /// - Throws: ``CommandFailure`` for any other failure (a full disk behind `>`).
    @discardableResult
    static func output(_ data: Data) throws(CommandFailure) -> Bool {
        let failure = write(data, to: STDOUT_FILENO)
        if failure == 0 { return true }
        if failure == EPIPE { return false }
        throw CommandFailure(message: "standard output: " + String(cString: strerror(failure)))
    }

    /// Writes all of `data` to `descriptor`: 0, or the errno that stopped it.
    static func write(_ data: Data, to descriptor: Int32) -> Int32 {
        AtomicOutput.writeAll(data, to: descriptor)
    }

    /// "1 frame", "90 frames".
    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// A warning once: the same line again (a decoder meeting the same damage in every
    /// still of a sheet) is counted, and the count is said once as the process ends.
    static func warning(_ message: String) {
        let first = repeats.withLock { seen in
            seen.counts[message, default: 0] += 1
            if seen.counts[message] == 1 { seen.order.append(message) }
            return seen.counts[message] == 1
        }
        guard first else { return }
        _ = write(Data("vidfx: warning: \(message)\n".utf8), to: STDERR_FILENO)
        registerSummary
    }

    /// The warnings said, with how often each came.
    private static let repeats = Mutex<(counts: [String: Int], order: [String])>(([:], []))

    /// The summary of repeated warnings, printed at exit (registered on the first warning).
    private static let registerSummary: Void = { atexit { Console.summarizeRepeats() } }()

    /// One line for each warning that came more than once.
    static func summarizeRepeats() {
        let lines = repeats.withLock { seen in
            seen.order.compactMap { message -> String? in
                guard let n = seen.counts[message], n > 1 else { return nil }
                return "vidfx: warning: \(message) (\(n) times in all)\n"
            }
        }
        for line in lines { _ = write(Data(line.utf8), to: STDERR_FILENO) }
    }
}
