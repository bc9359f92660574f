import ArgumentParser
import Detection
import Effects
import Foundation
import FrameCore
import FrameSource
import MediaInput
import Render
import Studio
import Synchronization

/// `vidfx studio`: the input in a web page, live through a chain the page edits, with
/// renders into the outputs folder.
struct StudioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "studio",
        abstract: "Preview and steer effects in a web page: live playback, generated controls, renders.",
        discussion: """
        Serves a page on 127.0.0.1 (a free port unless --listen names one) and prints its \
        address, with the session's token; every request needs that token. Renders and \
        file parameters (LUTs, overlays) live in the outputs folder. Over SSH: \
        ssh -L 8700:127.0.0.1:8700 HOST, then vidfx studio clip.mp4 --listen 127.0.0.1:8700 --no-browser \
        there, and open the printed address here.

        Examples:
          vidfx studio clip.mp4
          vidfx studio clip.mp4 -e "sepia=0.6,pixelate=8" --outputs renders --no-browser
        """
    )

    @Argument(help: "Video file or http(s) URL.")
    var input: String

    @Option(help: ArgumentHelp("Address and port to listen on (port 0 picks a free one).", valueName: "host:port"))
    var listen = "127.0.0.1:0"

    @Option(help: ArgumentHelp("Folder renders are written to and file parameters are read from (default: this one).", valueName: "dir"))
    var outputs = "."

    @Option(name: [.customShort("e"), .customLong("effects")],
            help: ArgumentHelp("The chain the page starts with.", valueName: "chain"))
    var effects: String?

    @Flag(help: "Do not open a browser; only print the address.")
    var noBrowser = false

    @Flag(help: "Allow --listen on an address other machines can reach (anyone with the token can then use it).")
    var allowRemote = false

    @Option(parsing: .unconditional, help: "Frames per second of the cadence: 30, 29.97, 30000/1001…")
    var fps = RateArgument(Rational(30))

    func validate() throws {
        guard let (host, _) = Self.address(listen) else {
            throw ValidationError("--listen: '\(listen)' is not host:port (127.0.0.1:8700, [::1]:8700)")
        }
        if !Self.isLoopback(host) && !allowRemote {
            throw ValidationError("--listen \(listen) would open the studio to other machines; add --allow-remote to allow that")
        }
        if input == "-" { throw ValidationError("the studio reads its input many times (stills, renders): give a file or a URL, not -") }
    }

    func run() async throws {
        let (host, port) = Self.address(listen)!
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: outputs, isDirectory: &isFolder), isFolder.boolValue else {
            throw CommandFailure(message: "--outputs \(outputs): no such folder")
        }
        let folder = OutputFolder(path: outputs)
        // Commands run in the outputs folder, so a local input is named by its full path.
        let inputPath = input.contains("://") ? input : URL(fileURLWithPath: input).standardizedFileURL.path
        // The defaults of every command's input options: the dump and apply runs the studio
        // starts take the same (only --fps is passed on).
        let sourceOptions = try SourceOptions.parse([])
        let media = try sourceOptions.input(inputPath, access: .seekable)
        var configuration = try StudioServer.Configuration.serving(
            media, at: inputPath, folder: folder, frameRate: fps.value, source: sourceOptions.configuration(quiet: true))
        // The command line's chain is the user's own: checked here with its messages. The
        // page's chains are parsed by `serving`'s parser alone (files by descriptor in the
        // outputs folder, fonts by name): replacing it here once let a page open any path.
        if let initial = effects { _ = try EffectChainParsing.chain(initial) }
        configuration.host = host
        configuration.port = port
        configuration.allowRemote = allowRemote
        configuration.warn = { Console.warning($0) }
        // File parameters are names in the outputs folder, for the live chain as for the commands.
        guard FileManager.default.changeCurrentDirectoryPath(folder.path) else {
            throw CommandFailure(message: "--outputs \(outputs): cannot enter the folder")
        }
        let server = StudioServer(configuration: configuration)
        // Whatever a request is doing, Ctrl-C or SIGTERM ends the studio: its graceful
        // shutdown gets two seconds (renders stop at their next frame), then it exits.
        let grace = Self.stopGrace
        let watchdog = ShutdownWatchdog(grace: .seconds(grace)) { signal in
            Console.note("the studio did not stop within \(grace) s of the signal; ended it")
            _exit(128 + signal)
        }
        defer { watchdog.end() }
        let fragment = effects.map { "&chain=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") } ?? ""
        let openBrowser = !noBrowser
        let launcher = Mutex<StudioLauncher?>(nil)
        defer { launcher.withLock { $0?.remove() } }
        do {
            try await server.run { address in
                // Said on stdout for scripts (only this user reads it); a reader gone is
                // no reason to stop serving.
                _ = try? Console.output(Data("vidfx studio: \(address)\(fragment)\n".utf8))
                if openBrowser, let page = Self.openBrowser(address + fragment) { launcher.withLock { $0 = page } }
            }
        } catch {
            throw CommandFailure(message: "studio on \(listen): \(error)")
        }
    }

    /// `host:port`, `[v6]:port`; nil when it is neither.
    static func address(_ text: String) -> (String, Int)? {
        var host: String, portText: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        if host == "localhost" { host = "127.0.0.1" }
        guard !host.isEmpty, let port = Int(portText), (0...65535).contains(port) else { return nil }
        return (host, port)
    }

    /// An IP address of the loopback network (127.0.0.0/8, ::1), read as an address: a
    /// name that starts with "127." (127.evil.example) is a name, resolved by DNS, not loopback.
    static func isLoopback(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { b in b.prefix(15).allSatisfy { $0 == 0 } && b[15] == 1 }
        }
        return false
    }

    /// The desktop's browser, when there is a desktop; otherwise the printed address is
    /// the way in. The browser is given a private page that sends it on to `address`
    /// (``StudioLauncher``), never the token itself: a command line is public to every
    /// local user (`ps`). The page, to remove when the studio ends; nil when none was made.
    /// Seconds the graceful shutdown gets: 2, or `VIDFX_STUDIO_STOP_GRACE` (1…120) for the
    /// tests, whose machine may be too loaded for 2 s to tell a clean stop from a stuck one.
    static var stopGrace: Int {
        if let given = ProcessInfo.processInfo.environment["VIDFX_STUDIO_STOP_GRACE"], let seconds = Int(given), (1...120).contains(seconds) {
            return seconds
        }
        return 2
    }

    static func openBrowser(_ address: String) -> StudioLauncher? {
        let env = ProcessInfo.processInfo.environment
        guard env["DISPLAY"] != nil || env["WAYLAND_DISPLAY"] != nil else {
            Console.note("no display here: open the address above in a browser (over SSH: ssh -L PORT:127.0.0.1:PORT this-host)")
            return nil
        }
        let page: StudioLauncher
        do { page = try StudioLauncher(address: address) } catch {
            Console.note("\(error): open the address above in a browser")
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["xdg-open", page.url.absoluteString]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { Console.note("could not start a browser: open the address above") }
        return page
    }
}
