import Foundation
import TestSupport
import Testing

/// Screen capture through libavdevice's x11grab, for real: each test starts its own
/// Xvfb display and paints its root window with xsetroot while vidfx reads it.
/// (V4L2 cameras take the same path, /dev/videoN → v4l2, but there is no camera here.)
/// Capture runs at the screen's own pace, so this runs in the serialized real-clock phase.
@Suite(.serialized) struct CaptureRealClockTests {
    /// A virtual display, gone when this is.
    final class Display: @unchecked Sendable {
        let number: Int
        private let server: Subprocess.Running

        private init(number: Int, server: Subprocess.Running) {
            self.number = number
            self.server = server
        }

        /// Starts Xvfb on a free display number and waits until it takes drawing.
        static func start() async throws -> Display {
            // A display number nobody uses: no lock file, no socket.
            var n = 90 + Int(getpid() % 50)
            while FileManager.default.fileExists(atPath: "/tmp/.X\(n)-lock") || FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(n)") { n += 1 }
            let server = Process()
            server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            // -noreset: otherwise the server resets when its last client leaves, and
            // xsetroot's colour goes with it.
            server.arguments = ["Xvfb", ":\(n)", "-screen", "0", "160x120x24", "-nolisten", "tcp", "-noreset"]
            server.standardOutput = FileHandle.nullDevice
            server.standardError = FileHandle.nullDevice
            let display = Display(number: n, server: try Subprocess.Running(server))
            // Ready when xsetroot can talk to it (a hang limit, not a timing check).
            for _ in 0..<600 {
                if (try? await display.paint("#000000")) == true { return display }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw NoDisplay(number: n)
        }

        deinit {
            // SIGKILL: Xvfb can sit on SIGTERM, and nothing of it needs saving. Not waited
            // for (a deinit cannot await): Foundation reaps it.
            server.signal(SIGKILL)
        }

        /// Paints the whole screen one colour; true when the display took it.
        @discardableResult
        func paint(_ colour: String) async throws -> Bool {
            try await Subprocess.outcome(URL(fileURLWithPath: "/usr/bin/env"), ["xsetroot", "-display", ":\(number)", "-solid", colour],
                                         captureStandardError: false).status == 0
        }
    }

    struct NoDisplay: Error { var number: Int }

    @Test(.timeLimit(.minutes(5)))
    func captureFollowsTheScreen() async throws {
        let display = try await Display.start()
        try await display.paint("#FF0000")
        let p = Process()
        p.executableURL = CLI.executable
        // Without the pointer, which Xvfb puts in the middle of the screen.
        p.arguments = ["dump", "x11grab::\(display.number)", "--input-option", "draw_mouse=0", "--duration", "3", "--format", "bgra", "-o", "-"]
        p.currentDirectoryURL = CLI.directory
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        let running = try Subprocess.Running(p)
        let frameBytes = 160 * 120 * 4
        var data = Data()
        var painted = false
        for await chunk in Subprocess.chunks(out.fileHandleForReading) {
            data.append(chunk)
            // Blue once vidfx has shown three red frames: the change lands mid-capture.
            if !painted && data.count >= 3 * frameBytes {
                try await display.paint("#0000FF")
                painted = true
            }
        }
        let (status, _) = await running.exit()
        #expect(status == 0)
        #expect(data.count == 90 * frameBytes, "\(data.count / frameBytes) frames for 3 s at 30 fps")
        // Each frame is one colour: red until the change, blue after, never back.
        var colours: [String] = []
        for f in 0..<(data.count / frameBytes) {
            let centre = f * frameBytes + (60 * 160 + 80) * 4
            let (b, g, r) = (data[centre], data[centre + 1], data[centre + 2])
            colours.append(r > 200 && b < 50 && g < 50 ? "red" : b > 200 && r < 50 && g < 50 ? "blue" : "other")
        }
        #expect(colours.first == "red" && colours.last == "blue", "\(colours)")
        let changes = zip(colours, colours.dropFirst()).filter { $0 != $1 }.count
        #expect(changes == 1 && !colours.contains("other"), "\(colours)")
    }

    @Test(.timeLimit(.minutes(5)))
    func applyWritesAPlayableCaptureAndLiveLimitsAreNamed() async throws {
        let display = try await Display.start()
        try await display.paint("#00FF00")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-capture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("screen.mp4").path
        let r = try await CLI.run(["apply", "x11grab::\(display.number)", "--duration", "1", "-e", "sepia", "-o", output])
        #expect(r.status == 0, "\(r.stderr)")
        let probe = String(decoding: try await Subprocess.output("/usr/bin/env", ["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v",
                                                                           "-show_entries", "stream=nb_read_frames,width,height", "-of", "csv=p=0", output]), as: UTF8.self)
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "160,120,30", "\(probe)")
        for (option, words) in [(["--loop", "2"], "a live capture cannot loop"), (["--start", "1"], "a live capture cannot start later")] {
            let bad = try await CLI.run(["dump", "x11grab::\(display.number)", "-o", dir.appendingPathComponent("x").path] + option)
            #expect(bad.status != 0 && bad.stderr.contains(words) && bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")
        }
        // preview plays it once (a capture has no end to loop from) at its own pace.
        let preview = try await CLI.run(["preview", "x11grab::\(display.number)", "--sink", "y4m", "--duration", "1"])
        #expect(preview.status == 0, "\(preview.stderr)")
        let y4mFrames = String(decoding: preview.stdout, as: UTF8.self).components(separatedBy: "FRAME").count - 1
        #expect(y4mFrames >= 1 && y4mFrames <= 30, "\(y4mFrames) frames in 1 s")
        let looped = try await CLI.run(["preview", "x11grab::\(display.number)", "--sink", "y4m", "--loop", "2"])
        #expect(looped.status != 0 && looped.stderr.contains("a live capture cannot loop"), "\(looped.stderr)")
        let noDisplay = try await CLI.run(["probe", "x11grab::\(display.number + 1000)"])
        #expect(noDisplay.status != 0 && noDisplay.stderr.hasPrefix("vidfx: x11grab::\(display.number + 1000):"), "\(noDisplay.stderr)")
    }
}
