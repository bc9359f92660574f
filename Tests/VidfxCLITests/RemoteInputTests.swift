import Foundation
import TestSupport
import Testing

/// `Tests/Support/media_server.py` on 127.0.0.1: Range requests and injected faults.
final class MediaServer {
    let root: URL
    let port: Int
    let log: URL
    private let process: Process

    init() async throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for name in ["h264-30fps.mp4", "h264-30fps-faststart.mp4", "vp9-opus.webm", "h264-noaudio.mp4", "cuts.mp4"] {
            try FileManager.default.createSymbolicLink(at: root.appendingPathComponent(name), withDestinationURL: CLI.testmedia.appendingPathComponent(name))
        }
        // An HLS rendition of the clip: MPEG-TS segments of one second, codec copied.
        // Also with fMP4 segments, and the clip as a progressive MPEG-TS file.
        let clip = CLI.testmedia.appendingPathComponent("h264-30fps.mp4").path
        for (folder, extra) in [("hls", [String]()), ("hls-fmp4", ["-hls_segment_type", "fmp4"])] {
            let dir = root.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try await Self.ffmpeg(["-i", clip, "-c", "copy", "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod"] + extra
                            + [dir.appendingPathComponent("index.m3u8").path])
        }
        try await Self.ffmpeg(["-i", clip, "-c", "copy", "-f", "mpegts", root.appendingPathComponent("clip.ts").path])

        log = root.appendingPathComponent("requests.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process = Process()
        (process.executableURL, process.arguments) = Subprocess.withoutInheritedDescriptors(
            "python3", [CLI.directory.appendingPathComponent("Tests/Support/media_server.py").path, root.path])
        let out = Pipe()
        process.standardOutput = out
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        // Its first line names the port; what follows is never read.
        var line = Data()
        for await chunk in Subprocess.chunks(out.fileHandleForReading) {
            line += chunk
            if line.contains(0x0A) { break }
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let p = Int(text.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw CocoaError(.fileReadUnknown)
        }
        port = p
    }

    private static func ffmpeg(_ arguments: [String]) async throws {
        _ = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-y"] + arguments)
    }

    deinit {
        // SIGKILL: a SIGTERM may be ignored by disposition inherited from the test runner.
        // Not waited for here (a deinit cannot await): Foundation reaps it.
        kill(process.processIdentifier, SIGKILL)
        try? FileManager.default.removeItem(at: root)
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    /// The requests so far, one "METHOD PATH RANGE" line each.
    var requests: [String] { requestLog.map { $0.components(separatedBy: " UA=")[0] } }

    /// The full log lines, with the User-Agent and X-Token headers.
    var requestLog: [String] {
        guard let h = try? FileHandle(forReadingFrom: log) else { return [] }
        defer { try? h.close() }
        return String(decoding: (try? h.readToEnd()) ?? Data(), as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

/// Remote inputs end to end, against the loopback server only.
/// Timeouts, stalls and slow servers are real-clock behaviour: the serialized phase.
@Suite(.serialized, .timeLimit(.minutes(5))) struct RemoteInputRealClockTests {
    let server: MediaServer
    init() async throws { server = try await MediaServer() }

    /// Dumps `input` to PNG frames; returns the status, stderr and the frames' bytes.
    func dump(_ input: String, _ extra: [String] = []) async throws -> (status: Int32, stderr: String, frames: [Data], seconds: Double) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-remote-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let started = Date()
        let r = try await CLI.run(["dump", input, "-o", dir.path, "-q"] + extra)
        let seconds = Date().timeIntervalSince(started)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".png") }.sorted()
        let frames = try names.map { name -> Data in
            let h = try FileHandle(forReadingFrom: dir.appendingPathComponent(name))
            defer { try? h.close() }
            return try h.readToEnd() ?? Data()
        }
        return (r.status, r.stderr, frames, seconds)
    }

    @Test(arguments: [("h264-30fps.mp4", "h264-30fps.mp4"), ("vp9-opus.webm", "vp9-opus.webm"), ("clip.ts", "h264-30fps.mp4"),
                      ("hls/index.m3u8", "h264-30fps.mp4"), ("hls-fmp4/index.m3u8", "h264-30fps.mp4")])
    func remoteDumpIsByteForByteTheLocalDump(remote: String, local: String) async throws {
        let there = try await dump(server.url("files/" + remote))
        let here = try await dump(CLI.media(local))
        #expect(there.status == 0, "\(there.stderr)")
        #expect(there.frames.count == here.frames.count && here.frames.count >= 30)
        #expect(there.frames == here.frames)
    }

    @Test func scenesAndStoryboardsOfARemoteClipAreTheLocalOnes() async throws {
        let remote = try await CLI.run(["scenes", server.url("files/cuts.mp4"), "--csv", "-q"])
        let local = try await CLI.run(["scenes", CLI.media("cuts.mp4"), "--csv", "-q"])
        #expect(remote.status == 0, "\(remote.stderr)")
        #expect(remote.stdout == local.stdout && !local.stdout.isEmpty)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-remote-board-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let board = try await CLI.run(["storyboard", server.url("files/cuts.mp4"), "-o", dir.path, "--interval", "2", "-q"])
        #expect(board.status == 0, "\(board.stderr)")
        let vtt = try String(contentsOf: dir.appendingPathComponent("thumbnails.vtt"), encoding: .utf8)
        #expect(vtt.components(separatedBy: " --> ").count == 6, "five cues")
    }

    @Test func indexAtTheEndIsReadWithRangeRequests() async throws {
        // h264-30fps.mp4 has its moov after the media data.
        _ = try await dump(server.url("files/h264-30fps.mp4"))
        let ranged = server.requests.filter { $0.hasPrefix("GET /files/h264-30fps.mp4 bytes=") && !$0.hasSuffix("bytes=0-") }
        #expect(!ranged.isEmpty, "requests: \(server.requests)")
    }

    @Test func loopingSeeksBackInsteadOfDownloadingAgain() async throws {
        let r = try await dump(server.url("files/h264-noaudio.mp4"), ["--loop", "3"])
        #expect(r.status == 0 && r.frames.count == 180, "\(r.stderr)")
        let fromZero = server.requests.filter { $0.hasPrefix("GET /files/h264-noaudio.mp4") && $0.hasSuffix("bytes=0-") }
        #expect(fromZero.count == 1, "one download from the start, then seeks: \(server.requests)")
    }

    @Test(arguments: [("status/404", "404"), ("status/500", "5XX"), ("status/403", "403"), ("garbage", "not a readable media file"),
                      ("files/missing.mp4", "404")])
    func failuresAreOneClearLine(path: String, cause: String) async throws {
        let url = server.url(path)
        let r = try await dump(url, ["--timeout", "5"])
        #expect(r.status != 0)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(url) && lines[0].contains(cause), "\(r.stderr)")
        #expect(r.frames.isEmpty)
    }

    /// A refused connection or a failed TLS handshake ends the open at once and names the
    /// cause, rather than retrying until the timeout and saying only "no data". FFmpeg's
    /// reconnect backoff alone takes 4 s here, so with a 2 s timeout the old behaviour
    /// could only end in "no data for 2 s"; the message tells the two apart, not a clock.
    @Test(arguments: [("refused", "Connection refused"), ("tls", "TLS")])
    func unreachableServersFailAtOnceNamingTheCause(kind: String, cause: String) async throws {
        let url = kind == "refused" ? "http://127.0.0.1:1/clip.mp4"
            : server.url("files/h264-30fps.mp4").replacingOccurrences(of: "http://", with: "https://")
        let r = try await dump(url, ["--timeout", "2"])
        #expect(r.status != 0)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(url) && lines[0].contains(cause) && !lines[0].contains("no data"), "\(r.stderr)")
        #expect(r.frames.isEmpty)
    }

    @Test func stalledServerFailsWithinTheTimeout() async throws {
        let url = server.url("stall/20000/h264-30fps.mp4")
        let r = try await dump(url, ["--timeout", "2"])
        #expect(r.status != 0)
        #expect(r.stderr.contains(url) && r.stderr.contains("no data for 2 s"), "\(r.stderr)")
        // That it gave up at all is the check; how soon is the message's "2 s" (a
        // loaded machine may add seconds on top), and the suite's time limit catches a hang.
    }

    @Test func droppedConnectionsResumeWhereTheyStopped() async throws {
        let here = try await dump(CLI.media("h264-30fps.mp4"))
        let once = try await dump(server.url("drop-once/30000/h264-30fps.mp4"), ["--timeout", "5"])
        #expect(once.status == 0 && once.frames == here.frames, "\(once.stderr)")
        // Every response cut after 20 KB: each reconnect resumes at its offset.
        let always = try await dump(server.url("drop-always/20000/h264-30fps.mp4"), ["--timeout", "5"])
        #expect(always.status == 0 && always.frames == here.frames, "\(always.stderr)")
        #expect(server.requests.contains { $0.contains("drop-always") && !$0.hasSuffix("bytes=0-") })
    }

    @Test func slowButSteadyServerCompletes() async throws {
        // 103 KB at 40 KB/s: longer than the timeout in all, never a gap that long.
        let r = try await dump(server.url("slow/40000/h264-30fps.mp4"), ["--timeout", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.frames.count == 90)
        #expect(r.seconds > 2)
    }

    @Test func aServerWithoutRangesAndAnIndexAtTheEndIsNamedAsSuch() async throws {
        // The demuxer reads to the end for the index, then cannot go back: not a truncated file.
        let r = try await CLI.run(["dump", server.url("norange/h264-30fps.mp4"), "--format", "bgra", "-o", "/dev/null"])
        #expect(r.status != 0)
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("does not support Range requests and the file's index is at its end"), "\(r.stderr)")
        // With the index first it streams.
        let ok = try await CLI.run(["dump", server.url("norange/h264-30fps-faststart.mp4"), "--format", "bgra", "-o", "/dev/null", "-q"])
        #expect(ok.status == 0, "\(ok.stderr)")
    }

    @Test func headersAndUserAgentAreSentOnEveryRequest() async throws {
        let ok = try await dump(server.url("files/h264-noaudio.mp4"), ["--header", "X-Token: abc", "--user-agent", "vidfx-test"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let seen = server.requestLog.filter { $0.contains("h264-noaudio") }
        #expect(!seen.isEmpty && seen.allSatisfy { $0.hasSuffix("UA=vidfx-test X-Token=abc") }, "\(seen)")
        let bad = try await dump(server.url("files/h264-noaudio.mp4"), ["--header", "no colon here"])
        #expect(bad.status != 0 && bad.stderr.contains("Name: value"), "\(bad.stderr)")
    }

    @Test func probeAndApplyReadURLs() async throws {
        let probe = try await CLI.run(["probe", server.url("files/h264-30fps-faststart.mp4"), "--json"])
        #expect(probe.status == 0 && String(decoding: probe.stdout, as: UTF8.self).contains("\"width\""))
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-remote-\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: out) }
        let apply = try await CLI.run(["apply", server.url("files/h264-30fps.mp4"), "-e", "sepia", "-o", out.path, "-q"])
        #expect(apply.status == 0, "\(apply.stderr)")
        let streams = try await CLI.run(["probe", out.path, "--json"])
        #expect(String(decoding: streams.stdout, as: UTF8.self).contains("aac"), "audio came through the second reader")
    }

    /// apply reads a URL's video and audio through one demuxer (the video reader hands the
    /// audio over), so the file is requested from its start once, also when the index is
    /// at the end and when the connection drops.
    @Test(arguments: ["files/h264-30fps.mp4", "files/h264-30fps-faststart.mp4", "drop-once/30000/h264-30fps.mp4"])
    func applyDownloadsAURLOnce(path: String) async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-remote-\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: out) }
        let apply = try await CLI.run(["apply", server.url(path), "-e", "sepia", "-o", out.path, "-q"])
        #expect(apply.status == 0, "\(apply.stderr)")
        let probe = try await Probe(out.path)
        #expect(probe.video["nb_read_frames"] == "90" && probe.audio["codec_name"] == "aac")
        #expect(abs(try await CLIProcess.audioSeconds(out.path) - 3) < 1.0 / 30, "the whole soundtrack came through")
        try await CLIProcess.expectInSync(out.path)
        let fromStart = server.requests.filter { $0.hasPrefix("GET /\(path)") && $0.hasSuffix("bytes=0-") }
        #expect(fromStart.count == 1, "one download: \(server.requests)")
    }

    /// Each input is opened once, by one demuxer: a render with audio asks the server for
    /// exactly what the same render without audio asks for (the audio is handed over by
    /// the video reader), and a segment, stills at times and frames chosen by content each
    /// read the file from its start once.
    @Test func eachCommandOpensItsInputOnce() async throws {
        let dir = try ScratchDirectory("vidfx-remote-once")
        let url = server.url("files/h264-30fps.mp4")
        var seen = 0
        func requests(_ arguments: [String]) async throws -> [String] {
            let r = try await CLI.run(arguments + ["-q"])
            #expect(r.status == 0, "\(arguments): \(r.stderr)")
            let all = server.requests.filter { $0.hasPrefix("GET /files/h264-30fps.mp4") }
            defer { seen = all.count }
            return Array(all.dropFirst(seen))
        }
        let withAudio = try await requests(["apply", url, "-e", "sepia", "-o", dir.path("sound.mp4")])
        let withoutAudio = try await requests(["apply", url, "-e", "sepia", "--no-audio", "-o", dir.path("silent.mp4")])
        #expect(withAudio == withoutAudio && !withAudio.isEmpty, "with audio \(withAudio), without \(withoutAudio)")
        #expect(try await Probe(dir.path("sound.mp4")).audio["codec_name"] == "aac")
        try await CLIProcess.expectInSync(dir.path("sound.mp4"))
        for arguments in [["apply", url, "--segment", "2/3", "-o", dir.path("part.mkv")],
                          ["dump", url, "--at", "0.5,2.5,1", "-o", dir.path("stills")],
                          ["dump", url, "--count", "3", "-o", dir.path("chosen")],
                          ["sheet", url, "-o", dir.path("sheet.png")]] {
            let made = try await requests(arguments)
            #expect(made.filter { $0.hasSuffix("bytes=0-") }.count == 1, "\(arguments[0]) \(arguments[2]): \(made)")
        }
    }

    /// A redirect loop is named as one, not as "Input/output error".
    @Test func redirectLoopsAreNamed() async throws {
        let url = server.url("loop/0")
        let r = try await CLI.run(["probe", url, "--timeout", "10"])
        #expect(r.status == 1)
        #expect(r.stderr == "vidfx: \(url): cannot open: the server redirects more than 8 times (a redirect loop?)\n", "\(r.stderr)")
    }

    /// An endless response that never yields a packet ends the open after a bounded read.
    @Test func endlessStreamWithoutPicturesEndsTheOpen() async throws {
        let url = server.url("nulls")
        let r = try await CLI.run(["probe", url, "--timeout", "30"])
        #expect(r.status == 1)
        #expect(r.stderr == "vidfx: \(url): cannot read stream information: no playable stream in its first 100 MB\n", "\(r.stderr)")
    }

    /// apply counts bytes as they arrive, as dump does: 16 KiB blocks at 6 KB/s take
    /// longer than the 2 s timeout each, yet data never stops for 2 s.
    @Test func applySlowButSteadyServerCompletes() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-remote-\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try await CLI.run(["apply", server.url("slow/6000/h264-30fps-faststart.mp4"), "-o", out.path, "-q", "--timeout", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        let probe = try await Probe(out.path)
        #expect(probe.video["nb_read_frames"] == "90" && probe.audio["codec_name"] == "aac")
        try await CLIProcess.expectInSync(out.path)
    }

    /// Ctrl-C during a stall ends apply (video and audio readers both) long before the
    /// network timeout, whichever reader was waiting on the stalled connection.
    @Test(arguments: [0, 40_000])
    func ctrlCDuringAStallEndsApply(stallAfter bytes: Int) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-stall-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let p = Process()
        p.executableURL = CLI.executable
        p.arguments = ["apply", server.url("stall/\(bytes)/h264-30fps.mp4"), "-o", dir.appendingPathComponent("out.mp4").path, "--timeout", "600"]
        p.standardError = FileHandle.nullDevice
        let running = try Subprocess.Running(p)
        // Wait until the server has sent what it will send (the stall has begun).
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, !server.requests.contains(where: { $0.contains("stall/\(bytes)/") }) {
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .milliseconds(500))
        running.signal(SIGINT)
        // A hang check: without the stop the process waits for the 600 s timeout.
        let gone = ContinuousClock.now + .seconds(60)
        while running.isRunning, ContinuousClock.now < gone { try await Task.sleep(for: .milliseconds(50)) }
        let ended = !running.isRunning
        if !ended { running.signal(SIGKILL) }
        let (status, _) = await running.exit()
        #expect(ended, "apply ignored Ctrl-C during a stall")
        #expect(status == 130, "Ctrl-C is 128 + SIGINT, got \(status)")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(left.allSatisfy { !$0.hasSuffix(".part") }, "\(left)")
    }

    /// preview reads URLs through the same source: two seconds of y4m from the server,
    /// looping the 3 s clip's first second back, every frame whole.
    @Test func previewPlaysAURL() async throws {
        let r = try await CLI.run(["preview", server.url("files/h264-30fps-faststart.mp4"), "-e", "sepia", "--sink", "y4m",
                             "--start", "2", "--loop", "--duration", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        let y4m = try Y4M(r.stdout)
        #expect(y4m.width == 320 && y4m.height == 240)
        #expect(y4m.frames.count == 60)
        // Source frames 60…89 (from 2 s), then the seam back to frame 60, with nothing
        // skipped (a tick the player dropped repeats its predecessor; those are allowed).
        let dropped = try #require(Y4M.statistics(r.stderr), "\(r.stderr)").dropped
        let bad = y4m.timelineMismatches(dropped: dropped) { 60 + $0 % 30 }
        #expect(bad.isEmpty, "ticks \(bad): \((0..<y4m.frames.count).map(y4m.number)), \(dropped) dropped")
        #expect(r.stderr.contains("shown"), "\(r.stderr)")
        #expect(server.requests.contains { $0.contains("h264-30fps-faststart.mp4") })
    }
}
