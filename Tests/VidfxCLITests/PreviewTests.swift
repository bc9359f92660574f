import Foundation
import TestSupport
import Testing

/// A parsed YUV4MPEG2 stream.
struct Y4M {
    var header: [String]
    var width = 0, height = 0
    var frames: [Data] = []

    init(_ data: Data) throws {
        let bytes = [UInt8](data)
        guard let nl = bytes.firstIndex(of: 0x0A) else { throw Bad(reason: "no header line") }
        header = String(decoding: bytes[..<nl], as: UTF8.self).split(separator: " ").map(String.init)
        guard header.first == "YUV4MPEG2" else { throw Bad(reason: "bad magic \(header.first ?? "")") }
        for field in header.dropFirst() {
            if field.hasPrefix("W") { width = Int(field.dropFirst()) ?? 0 }
            if field.hasPrefix("H") { height = Int(field.dropFirst()) ?? 0 }
        }
        let size = width * height * 3 / 2
        var i = nl + 1
        while i < bytes.count {
            guard i + 6 + size <= bytes.count, Array(bytes[i..<i + 6]) == Array("FRAME\n".utf8) else {
                throw Bad(reason: "damaged frame at byte \(i)")
            }
            frames.append(Data(bytes[(i + 6)..<(i + 6 + size)]))
            i += 6 + size
        }
    }

    /// The frame number drawn in the test clips (12 blocks in the top half), from luma.
    func number(_ k: Int) -> Int {
        var n = 0
        let y = height / 4
        for bit in 0..<12 {
            let x = Int((Double(bit) + 0.5) * Double(width) / 12)
            if frames[k][y * width + x] > 128 { n |= 1 << bit }
        }
        return n
    }

    /// Ticks whose picture differs from `expected(tick)`. A tick the player dropped on a
    /// loaded machine repeats its predecessor, so such a repeat is allowed (and counted)
    /// up to the `dropped` the player reported on exit; anything else is a mismatch.
    func timelineMismatches(dropped: Int, _ expected: (Int) -> Int) -> [Int] {
        var repeats = 0, bad: [Int] = []
        for k in frames.indices where number(k) != expected(k) {
            if k > 0 && number(k) == number(k - 1) && repeats < dropped { repeats += 1 } else { bad.append(k) }
        }
        return bad
    }

    /// The player's "shown N frames, dropped M" on stderr.
    static func statistics(_ stderr: String) -> (shown: Int, dropped: Int)? {
        stderr.firstMatch(of: /shown (\d+) frames, dropped (\d+)/).map { (Int($0.1)!, Int($0.2)!) }
    }

    struct Bad: Error { var reason: String }
}

/// Real-time playback through the CLI: the real clock, so this runs in the serialized
/// phase (`make test`), and checks only what load cannot change.
@Suite(.serialized, .timeLimit(.minutes(5))) struct PreviewRealClockTests {
    @Test func overlaysAreDetectedLiveWithoutHoldingPlayback() async throws {
        let r = try await CLI.run(["preview", CLI.media("qr-moving.mp4"), "-e", "qrbox:color=#FF00FF:caption=0", "--sink", "y4m", "--duration", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        let y4m = try Y4M(r.stdout)
        #expect(y4m.frames.count == 60, "the timeline is whole")
        // Magenta (high Cb and Cr) is nowhere in the photograph or the code: it is the outline.
        func outlined(_ k: Int) -> Bool {
            let f = [UInt8](y4m.frames[k]), luma = y4m.width * y4m.height, chroma = luma / 4
            return (0..<chroma).filter { f[luma + $0] > 180 && f[luma + chroma + $0] > 180 }.count >= 20
        }
        // Once the worker's first detection is in, every frame carries the boxes; how soon
        // that is depends on the machine, so only the second second is looked at.
        #expect((30..<60).filter(outlined).count >= 10, "\(r.stderr)")
    }

    /// A redacting chain plays with its live detection and the render's recheck: the
    /// timeline is whole, and once the first detection is in, the faces are covered.
    /// When that is depends on the machine (under ThreadSanitizer, past the first two
    /// seconds): the 2-second clip plays three times and only its last second is looked at.
    @Test func aRedactingPreviewCoversTheFaces() async throws {
        let r = try await CLI.run(["preview", CLI.media("crowd.mp4"), "-e", "faceblur", "--sink", "y4m", "--loop", "--duration", "6"])
        #expect(r.status == 0, "\(r.stderr)")
        let plain = try await CLI.run(["preview", CLI.media("crowd.mp4"), "--sink", "y4m", "--loop", "--duration", "6"])
        let (redacted, original) = (try Y4M(r.stdout), try Y4M(plain.stdout))
        #expect(redacted.frames.count == 180 && original.frames.count == 180, "the timeline is whole")
        guard redacted.frames.count == 180, original.frames.count == 180 else { return }
        // Heads cover several percent of the crowd's luma: count pixels changed by more than 8.
        func changed(_ k: Int) -> Double {
            let a = [UInt8](redacted.frames[k]), b = [UInt8](original.frames[k]), luma = redacted.width * redacted.height
            return Double((0..<luma).filter { abs(Int(a[$0]) - Int(b[$0])) > 8 }.count) / Double(luma)
        }
        #expect((150..<180).filter { changed($0) > 0.02 }.count >= 10, "\(r.stderr)")
    }

    @Test func y4mForTwoSecondsIsExactlySixtyFrames() async throws {
        let r = try await CLI.run(["preview", CLI.media("h264-30fps.mp4"), "-e", "sepia", "--sink", "y4m", "--duration", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        let y4m = try Y4M(r.stdout)
        #expect(y4m.header.contains("F30:1") && y4m.header.contains("C420jpeg") && y4m.header.contains("Ip"))
        #expect(y4m.width == 320 && y4m.height == 240)
        // The timeline is whole: a tick dropped on a loaded machine repeats the last frame.
        #expect(y4m.frames.count == 60)
        let counts = r.stderr.firstMatch(of: /shown (\d+) frames, dropped (\d+)/)
        #expect(counts.map { Int($0.1)! + Int($0.2)! } == 60, "statistics on exit: \(r.stderr)")
        // How many ticks a loaded machine drops is bench/preview.py's business; the
        // timeline above is whole either way. The first tick is never late, so a player
        // that shows nothing still fails here.
        #expect(counts.map { Int($0.1)! >= 1 } == true, "something was shown: \(r.stderr)")
        // Sepia really is in the pixels: it makes R ≥ G ≥ B everywhere, so no pixel is
        // blue or green (Cb ≤ neutral, Cr ≥ neutral), and bright ones are clearly warm.
        let f = [UInt8](y4m.frames[30]), luma = y4m.width * y4m.height, chroma = luma / 4
        let cb = f[luma..<(luma + chroma)], cr = f[(luma + chroma)..<(luma + 2 * chroma)]
        #expect(cb.allSatisfy { $0 <= 129 } && cr.allSatisfy { $0 >= 127 }, "warm everywhere")
        #expect(cr.contains { $0 > 135 }, "and visibly so somewhere")
    }

    @Test func y4mLoopsThreeTimesWithSeamlessSeams() async throws {
        let r = try await CLI.run(["preview", CLI.media("h264-noaudio.mp4"), "--sink", "y4m", "--loop", "3", "--size", "160x120"])
        #expect(r.status == 0, "\(r.stderr)")
        let y4m = try Y4M(r.stdout)
        #expect(y4m.width == 160 && y4m.frames.count == 180)
        // Every picture once, in order, and each loop repeats it with nothing skipped at
        // the seam (but for ticks the player reports dropped, which repeat the one before).
        let dropped = try #require(Y4M.statistics(r.stderr), "\(r.stderr)").dropped
        let bad = y4m.timelineMismatches(dropped: dropped) { $0 % 60 }
        #expect(bad.isEmpty, "ticks \(bad): \((0..<y4m.frames.count).map(y4m.number)), \(dropped) dropped")
    }

    @Test func y4mToATerminalIsRefusedAndBadInputFailsClearly() async throws {
        let r = try await CLI.run(["preview", CLI.media("garbage.mp4"), "--sink", "y4m"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("garbage.mp4"))
        #expect(r.stdout.isEmpty)
    }

    @Test func bareLoopFlagMeansForever() async throws {
        // --loop with no count, stopped by --duration: longer than the clip.
        let r = try await CLI.run(["preview", "--loop", CLI.media("h264-noaudio.mp4"), "--sink", "y4m", "--duration", "3", "--size", "64x48"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Y4M(r.stdout).frames.count == 90)
    }
}

/// The terminal sink inside a real terminal emulator: tmux, on its own socket.
@Suite(.serialized, .timeLimit(.minutes(5))) struct TerminalSinkRealClockTests {
    let socket = "vidfx-test-\(UUID().uuidString.prefix(8))"

    func tmux(_ args: [String]) async throws -> String {
        // posix_spawn and waitpid rather than Process: the tmux server that the first
        // call starts inherits the client's descriptors, and Foundation's Process then
        // never sees the client exit.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-tmux-out-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        let quoted = (["tmux", "-L", socket] + args).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let script = quoted.joined(separator: " ") + " > '\(url.path)' 2>/dev/null"
        // waitpid blocks: on a thread of its own, not the test's.
        try await Subprocess.offPool {
            var pid: pid_t = 0
            let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(script), nil]
            defer { for a in argv { free(a) } }
            guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0 else { throw CocoaError(.executableLoad) }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        return Self.read(url)
    }

    /// A file's text, "" when missing or empty. (FileHandle: `String(contentsOf:)` and
    /// `Data(contentsOf:)` leak on empty files in this Foundation.)
    static func read(_ url: URL) -> String {
        guard let h = try? FileHandle(forReadingFrom: url) else { return "" }
        defer { try? h.close() }
        return String(decoding: (try? h.readToEnd()) ?? Data(), as: UTF8.self)
    }

    /// Starts `vidfx ARGS` in an 80×24 tmux pane; the pane stays after it exits and the
    /// exit status lands in the returned file.
    func start(_ args: [String]) async throws -> URL {
        let status = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-tmux-\(UUID().uuidString)")
        let command = ([CLI.executable.path] + args).map { "'\($0)'" }.joined(separator: " ")
        _ = try await tmux(["new-session", "-d", "-x", "80", "-y", "24", "-c", CLI.directory.path,
                      "\(command) 2>/dev/null; echo $? > '\(status.path)'; sleep 60"])
        return status
    }

    /// Waits until the pane shows the picture (the sink is up), at most `seconds`.
    func waitForPicture(seconds: Int = 60) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await tmux(["capture-pane", "-p"]).contains("▀") { return }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    func waitForExit(_ status: URL, seconds: Int) async throws -> String? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            let s = Self.read(status)
            if s.hasSuffix("\n") { try? FileManager.default.removeItem(at: status); return s.trimmingCharacters(in: .whitespacesAndNewlines) }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// Runs `body`, then stops this test's tmux server whatever happened.
    func session(_ body: () async throws -> Void) async throws {
        do { try await body() } catch {
            _ = try? await tmux(["kill-server"])
            throw error
        }
        _ = try? await tmux(["kill-server"])
    }

    @Test func drawsColouredCellsAndRestoresTheTerminal() async throws {
        try await session {
            // Looping until q: a picture on screen for a set time could be gone before a
            // busy machine got to look at it.
            let status = try await start(["preview", CLI.media("h264-30fps.mp4"), "-e", "sepia", "--sink", "terminal", "--loop"])
            try await waitForPicture()
            let during = try await tmux(["capture-pane", "-p", "-e"])
            let modes = try await tmux(["display-message", "-p", "#{alternate_on} #{cursor_flag}"])
            #expect(during.contains("\u{1B}[38;2;") && during.contains("\u{1B}[48;2;"), "24-bit colours")
            #expect(during.contains("▀"), "half-block cells")
            #expect(modes.hasPrefix("1 0"), "alternate screen, cursor hidden while playing: \(modes)")
            _ = try await tmux(["send-keys", "q"])
            #expect(try await waitForExit(status, seconds: 60) == "0")
            let after = try await tmux(["display-message", "-p", "#{alternate_on} #{cursor_flag}"])
            #expect(after.hasPrefix("0 1"), "normal screen and cursor back: \(after)")
            #expect(!(try await tmux(["capture-pane", "-p"])).contains("▀"), "the picture is gone with the alternate screen")
        }
    }

    // One tmux server per test (each test gets its own socket): starting a session
    // right after kill-server on the same socket can race the dying server.
    @Test func qQuitsAForeverLoop() async throws {
        try await session {
            let status = try await start(["preview", CLI.media("h264-30fps.mp4"), "--sink", "terminal", "--loop"])
            try await waitForPicture()
            _ = try await tmux(["send-keys", "q"])
            #expect(try await waitForExit(status, seconds: 60) == "0", "q ends a forever loop")
            #expect(try await tmux(["display-message", "-p", "#{alternate_on} #{cursor_flag}"]).hasPrefix("0 1"))
        }
    }

    @Test func ctrlCStopsCleanly() async throws {
        try await session {
            let status = try await start(["preview", CLI.media("h264-30fps.mp4"), "--sink", "terminal", "--loop"])
            try await waitForPicture()
            _ = try await tmux(["send-keys", "C-c"])
            #expect(try await waitForExit(status, seconds: 60) == "130", "Ctrl-C: 128 + SIGINT")
            #expect(try await tmux(["display-message", "-p", "#{alternate_on} #{cursor_flag}"]).hasPrefix("0 1"), "terminal restored after Ctrl-C")
        }
    }
}
