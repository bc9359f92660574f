import Foundation
import Testing

/// Command lines that once trapped (SIGILL, exit 132) on checked integer conversions:
/// each must now end with a short error naming what is wrong, and a usage exit status.
@Suite struct HostileCommandLineTests {
    /// A 4×4 PNG overlay and three broken `.cube` files, made once per test in a temp folder.
    static func fixtures() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-hostile-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let grid = (0..<8).map { _ in "0 0 0" }.joined(separator: "\n")
        try "LUT_3D_SIZE 2\nDOMAIN_MIN 0.5 0.5 0.5\nDOMAIN_MAX 0.5 0.5 0.5\n\(grid)\n".write(to: dir.appendingPathComponent("flat.cube"), atomically: true, encoding: .utf8)
        try "LUT_3D_SIZE 2\nDOMAIN_MIN nan 0 0\nDOMAIN_MAX 1 1 1\n\(grid)\n".write(to: dir.appendingPathComponent("nan.cube"), atomically: true, encoding: .utf8)
        try "LUT_3D_SIZE 2\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX inf 1 1\n\(grid)\n".write(to: dir.appendingPathComponent("inf.cube"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: CLI.testmedia.appendingPathComponent("still.png"), to: dir.appendingPathComponent("logo.png"))
        return dir
    }

    static let cases: [[String]] = [
        ["--fps", "30.000000001"], ["--fps", "1/3000000000"], ["--fps", "1/-9223372036854775808"],
        ["--loop", "9223372036854775807"], ["--frames", "9223372036854775807"], ["--fps", "29.97", "--frames", "1e16"],
        ["--fps", "29.97", "--frames", "10000000000000000"],
        ["--start", "9223372036854775807"], ["--start", "600000000000000"], ["--start", "700000000000000.5"],
        ["--duration", "9223372036854775807"], ["--start", "99999999999:59:59"],
        ["--at", "9223372036854775807"], ["--at", "0.5,9223372036854775807"], ["--at", ",,"],
        ["-e", "crop:rect=1e300,0,0,0"], ["-e", "crop:rect=0,0,1e300,1e300"], ["-e", "overlay:file=@/logo.png:x=1e300"],
        ["-e", "overlay:file=@/logo.png:y=-1e300"], ["-e", "lut:file=@/flat.cube"], ["-e", "lut:file=@/nan.cube"], ["-e", "lut:file=@/inf.cube"],
    ]

    @Test(arguments: cases)
    func dumpRefusesWithOneLine(extra: [String]) async throws {
        let dir = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: dir) }
        let args = extra.map { $0.replacingOccurrences(of: "@/", with: dir.path + "/") }
        let r = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "-o", dir.appendingPathComponent("out").path] + args)
        #expect(r.status != 0 && r.status < 128, "exit \(r.status) for \(extra): \(r.stderr)")
        #expect(!r.stderr.contains("Fatal error") && !r.stderr.contains("Backtrace"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path), "nothing written for \(extra)")
    }

    @Test(arguments: [["--bitrate", "1e30"], ["--bitrate", "1e30k"], ["--fps", "1/-9223372036854775808"], ["--loop", "9223372036854775807"],
                      ["--start", "9223372036854775807"], ["--user-agent", "vidfx\r\nX-Injected: 1"]])
    func applyRefusesWithOneLine(extra: [String]) async throws {
        let dir = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.mp4")
        let r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-o", out.path] + extra)
        #expect(r.status != 0 && r.status < 128, "exit \(r.status) for \(extra): \(r.stderr)")
        #expect(!r.stderr.contains("Fatal error"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// The input written as a URL is still the input: compared by device and inode.
    @Test(arguments: ["file://@", "file:@", "file://localhost@"])
    func theInputSpelledAsAURLIsNeverOverwritten(spelling: String) async throws {
        let dir = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in put.mp4")
        try FileManager.default.copyItem(at: CLI.testmedia.appendingPathComponent("h264-30fps.mp4"), to: input)
        let before = try Data(contentsOf: input)
        let escaped = input.path.replacingOccurrences(of: " ", with: "%20")
        let r = try await CLI.run(["apply", spelling.replacingOccurrences(of: "@", with: escaped), "-o", input.path, "-y", "-e", "sepia"])
        #expect(r.status != 0 && r.stderr.contains("is the input file"), "\(r.stderr)")
        #expect(try Data(contentsOf: input) == before)
    }

    /// A picture too large to hold is refused from its header, as overlay, LUT or input,
    /// before its memory is allocated (the 31 KB file would decode to 1 GB).
    @Test(arguments: [["probe", "testmedia/huge-16000x16000.png"],
                      ["dump", "testmedia/h264-30fps.mp4", "--frames", "1", "-e", "overlay:file=testmedia/huge-16000x16000.png"],
                      ["dump", "testmedia/h264-30fps.mp4", "--frames", "1", "-e", "lut:file=testmedia/huge-16000x16000.png"],
                      ["dump", "testmedia/huge-16000x16000.png"]])
    func hugePicturesAreRefusedFromTheirHeader(arguments: [String]) async throws {
        let dir = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = arguments[0] == "dump" ? ["-o", dir.appendingPathComponent("out").path] : []
        let r = try await CLI.run(arguments + out)
        #expect(r.status != 0 && r.status < 128, "\(r.stderr)")
        #expect(r.stderr.contains("16000x16000") && r.stderr.contains("at most 8192x8192"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "one line: \(r.stderr)")
    }

    /// Standard input that never pauses and never yields a packet: the open gives up
    /// after a bounded read (it used to read forever).
    @Test(arguments: ["probe", "dump"])
    func endlessStandardInputWithoutPicturesEndsTheOpen(command: String) async throws {
        let generator = "python3 -c 'import sys\npkt=b\"\\x47\\x1f\\xff\\x10\"+b\"\\xff\"*184\ntry:\n  while True: sys.stdout.buffer.write(pkt*1000)\nexcept BrokenPipeError: pass'"
        let out = command == "dump" ? " -o /dev/null --format bgra" : ""
        let r = try await CLIProcess.shell("\(generator) | \"$0\" \(command) -\(out)", [])
        #expect(r.status == 1)
        #expect(r.stderr == "vidfx: -: cannot read stream information: no playable stream in its first 100 MB\n", "\(r.stderr)")
    }

    /// Mistakes on the command line are one line naming the mistake and where to read
    /// more; a negative number is read as the value it is, not as a missing one.
    @Test(arguments: [(["dump", "testmedia/h264-30fps.mp4", "-o", "@/x", "--start", "-1"], "start must not be negative", Int32(2)),
                      (["dump", "testmedia/h264-30fps.mp4", "-o", "@/x", "--duration", "-2"], "duration must be positive", 2),
                      (["dump", "testmedia/h264-30fps.mp4", "-o", "@/x", "--fps", "abc"], "'abc' is invalid for '--fps", 64),
                      (["dump", "testmedia/h264-30fps.mp4", "-o", "@/x", "--fps", "-30"], "'-30' is invalid for '--fps", 64),
                      (["dump", "testmedia/h264-30fps.mp4"], "Missing expected argument '--output", 64),
                      (["apply", "testmedia/h264-30fps.mp4", "-o", "@/x.mp4", "--crf", "-1", "--bogus"], "Unknown option '--bogus'", 64),
                      (["frobnicate"], "unknown command 'frobnicate'", 64),
                      (["dump", "testmedia/h264-30fps.mp4", "-o", "@/x", "--at", "2147483648"], "--at: '2147483648' is not a time", 64),
                      (["dump", "testmedia/h264-30fps.mp4", "-o", "@/x", "--at", "0.5,5"], "--at 5 s is at or past the end of the video (3.000 s)", 2)])
    func argumentMistakesAreOneLine(arguments: [String], message: String, status: Int32) async throws {
        let dir = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try await CLI.run(arguments.map { $0.replacingOccurrences(of: "@/", with: dir.path + "/") })
        #expect(r.status == status, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("vidfx: ") && r.stderr.contains(message), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "one line: \(r.stderr)")
    }

    /// A playlist on standard input cannot resolve its segments: say so, not "Cannot
    /// allocate memory".
    @Test func aPlaylistOnStandardInputIsExplained() async throws {
        let r = try await CLIProcess.shell("printf '#EXTM3U\\n#EXT-X-TARGETDURATION:1\\n#EXTINF:1.0,\\nindex0.ts\\n#EXT-X-ENDLIST\\n' | \"$0\" probe -", [])
        #expect(r.status == 1)
        #expect(r.stderr.contains("a playlist (HLS) cannot be read from standard input") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    }

    /// AAC goes into MPEG-TS as it is (it was transcoded to AAC), and the container named
    /// by --container is the one messages speak of.
    @Test func aacIsCopiedIntoTransportStreams() async throws {
        let dir = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (out, extra) in [("x.ts", [String]()), ("x.mp4", ["--container", "ts"])] {
            let path = dir.appendingPathComponent(out).path
            let r = try await CLI.run(["apply", "testmedia/h264-30fps.mp4", "-o", path] + extra)
            #expect(r.status == 0 && r.stderr.contains("audio aac copied") && !r.stderr.contains("cannot go into"), "\(r.stderr)")
            #expect(try await CLIProcess.shell("ffmpeg -nostdin -v error -i \"$1\" -f null - 2>&1", [path]).stdout.isEmpty, "decodes cleanly")
            let starts = try await CLIProcess.starts(path), ends = try await CLIProcess.ends(path)
            #expect(abs(ends.audio - ends.video) <= 1.0 / 30 + 0.03, "ends \(ends)")
            #expect(abs(starts.audio - starts.video) <= 1.0 / 30, "starts \(starts)")
        }
    }

    @Test func previewRefusesAHugeLoopCount() async throws {
        let r = try await CLI.run(["preview", CLI.media("h264-30fps.mp4"), "--sink", "y4m", "--loop", "9223372036854775807"])
        #expect(r.status != 0 && r.status < 128, "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }
}
