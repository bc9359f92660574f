import Effects
import Foundation
import FrameCore
import FrameSource
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A scratch folder per test.
struct Scratch: ~Copyable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-test-\(UUID().uuidString)")
    init() { try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: url) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    var contents: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted() }
}

/// ffprobe's view of a file: stream fields by codec type.
struct Probe {
    var video: [String: String] = [:]
    var audio: [String: String] = [:]
    var formatDuration: Double?

    init(_ path: String) async throws {
        let data = try await CLIProcess.output("/usr/bin/env", ["ffprobe", "-v", "error", "-count_frames", "-show_entries",
            "stream=codec_type,codec_name,pix_fmt,width,height,avg_frame_rate,nb_read_frames,duration,color_space,color_range,color_primaries:format=duration",
            "-of", "json", path])
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        for s in json["streams"] as? [[String: Any]] ?? [] {
            let fields = s.mapValues { "\($0)" }
            if fields["codec_type"] == "video" { video = fields } else if fields["codec_type"] == "audio" { audio = fields }
        }
        formatDuration = ((json["format"] as? [String: Any])?["duration"] as? String).flatMap(Double.init)
    }
}

enum CLIProcess {
    static func output(_ executable: String, _ arguments: [String]) async throws -> Data {
        try await Subprocess.run(executable, arguments).output
    }

    /// Runs `script` with /bin/sh, `$0` being the vidfx executable and `$1`… `arguments`
    /// (for pipes, limits and redirections around the CLI).
    static func shell(_ script: String, _ arguments: [String]) async throws -> (status: Int32, stdout: Data, stderr: String) {
        let r = try await Subprocess.outcome(URL(fileURLWithPath: "/bin/sh"), ["-c", script, CLI.executable.path] + arguments)
        return (r.status, r.stdout, r.stderrText)
    }

    /// Where the video and the audio end on the file's timeline: the latest packet
    /// time + duration of each (encoder priming sits before the start, so this is what
    /// a player's sync sees).
    static func ends(_ path: String) async throws -> (video: Double, audio: Double) {
        let csv = await String(decoding: try output("/usr/bin/env", ["ffprobe", "-v", "error", "-show_entries",
            "packet=codec_type,pts_time,duration_time", "-of", "csv=p=0", path]), as: UTF8.self)
        var video = 0.0, audio = 0.0
        for line in csv.split(separator: "\n") {
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 3, let t = Double(f[1]) else { continue }
            let end = t + (Double(f[2]) ?? 0)
            if f[0] == "video" { video = max(video, end) } else if f[0] == "audio" { audio = max(audio, end) }
        }
        return (video, audio)
    }

    /// Where the video and the audio start on the file's timeline: the earliest packet
    /// time of each.
    static func starts(_ path: String) async throws -> (video: Double, audio: Double) {
        let csv = await String(decoding: try output("/usr/bin/env", ["ffprobe", "-v", "error", "-show_entries",
            "packet=codec_type,pts_time", "-of", "csv=p=0", path]), as: UTF8.self)
        var video = Double.infinity, audio = Double.infinity
        for line in csv.split(separator: "\n") {
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 2, let t = Double(f[1]) else { continue }
            if f[0] == "video" { video = min(video, t) } else if f[0] == "audio" { audio = min(audio, t) }
        }
        return (video, audio)
    }

    /// Checks that `path`'s audio and video start together and end together: within a
    /// frame (at 30 fps), plus what AAC and Opus priming puts before the start (25 ms).
    static func expectInSync(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let starts = try await CLIProcess.starts(path), ends = try await CLIProcess.ends(path)
        let slack = 1.0 / 30 + 0.025
        #expect(abs(starts.audio - starts.video) <= slack, "\(path): starts \(starts)", sourceLocation: sourceLocation)
        #expect(abs(ends.audio - ends.video) <= slack, "\(path): ends \(ends)", sourceLocation: sourceLocation)
    }

    /// Decoded audio length in seconds (ffmpeg decodes the whole stream).
    static func audioSeconds(_ path: String) async throws -> Double {
        let data = try await output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:a", "-f", "s16le", "-ac", "1", "-ar", "48000", "-"])
        return Double(data.count / 2) / 48000
    }
}

@Suite struct ApplyTests {
    @Test func mp4WithEffectAndAudioCopy() async throws {
        let dir = Scratch()
        let out = dir.path("out.mp4")
        let r = try await CLI.run(["apply", CLI.media("h264-24fps.mp4"), "-e", "sepia", "-o", out, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let p = try await Probe(out)
        #expect(p.video["codec_name"] == "h264" && p.video["pix_fmt"] == "yuv420p")
        #expect(p.video["avg_frame_rate"] == "30/1" && p.video["nb_read_frames"] == "90")
        #expect(p.video["color_space"] == "smpte170m" && p.video["color_range"] == "tv")
        #expect(p.audio["codec_name"] == "aac")
        try await CLIProcess.expectInSync(out)
        #expect(abs((Double(p.video["duration"] ?? "") ?? 0) - 3.0) < 1.0 / 30)
        #expect(abs(try await CLIProcess.audioSeconds(out) - 3.0) < 1.0 / 30)
        #expect(dir.contents == ["out.mp4"])  // no temporary left behind
    }

    /// `apply` and `dump` hand each frame to the chain, so a colour effect renders into the
    /// only reference to its pixels; a frame still held by the loop that read it is copied
    /// first (8 MB at 1080p, one more frame alive). That regression was silent once: the
    /// chain's own count of its passes pins it, through the encoder, a segment of a
    /// render, raw frames and image files, and after a layer pass. The one copy that must
    /// be made is a picture's on its first tick of two: 24 fps at 30 shows 18 of 72 twice.
    @Test(arguments: [
        (["apply", CLI.media("h264-30fps.mp4"), "-e", "sepia", "-o", "out.mp4"], 90, 0),
        (["apply", CLI.media("h264-30fps.mp4"), "-e", "sepia", "--segment", "2/3", "-o", "out.mp4"], nil, 0),
        (["apply", CLI.media("h264-30fps.mp4"), "-e", "pixelate:size=8,sepia", "-o", "out.mp4"], 90, 0),
        (["dump", CLI.media("h264-30fps.mp4"), "-e", "sepia,posterize", "--format", "bgra", "-o", "out.raw"], 90, 0),
        (["dump", CLI.media("h264-30fps.mp4"), "-e", "sepia", "--frames", "12", "-o", "frames"], 12, 0),
        (["apply", CLI.media("h264-24fps.mp4"), "-e", "sepia", "-o", "out.mp4"], 72, 18),
    ] as [([String], Int?, Int)])
    func colourEffectsRenderIntoTheFramesHandedOver(arguments: [String], inPlace: Int?, copied: Int) async throws {
        let dir = Scratch()
        let args = arguments.map { ["out.mp4", "out.raw", "frames"].contains($0) ? dir.path($0) : $0 }
        let r = try await CLI.run(args + ["--report-color-passes", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let line = r.stderr.split(separator: "\n").first { $0.hasPrefix("vidfx: colour passes: ") }
        let numbers = line.map { $0.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) } } ?? []
        #expect(numbers.count == 2, "\(r.stderr)")
        guard numbers.count == 2 else { return }
        #expect(numbers[1] == copied, "colour passes copied: \(r.stderr)")
        if let inPlace { #expect(numbers[0] == inPlace) } else { #expect(numbers[0] > 0) }
    }

    @Test func effectIsInThePixels() async throws {
        let dir = Scratch()
        let out = dir.path("fx.mp4")
        let chain = "posterize=5,pixelate=4"
        let r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-e", chain, "-o", out, "--crf", "18", "-q", "--no-audio"])
        #expect(r.status == 0, "\(r.stderr)")
        let effect = try EffectChain(parsing: chain)
        let rendered = FrameSource.self
        let original = try rendered.init(CLI.media("h264-30fps.mp4").replacingOccurrences(of: "testmedia/", with: CLI.testmedia.path + "/"))
        let encoded = try FrameSource(out)
        defer { original.close(); encoded.close() }
        var checked = 0
        while let a = try original.nextFrame(), let b = try encoded.nextFrame() {
            if a.tick % 15 == 0 {
                let psnr = Self.psnr(effect.apply(to: a), b)
                #expect(psnr > 35, "tick \(a.tick): PSNR \(psnr) dB")
                checked += 1
            }
        }
        #expect(checked == 6)
        // and the effect is really there: the plain source is far from the output
        let plain = try FrameSource(CLI.testmedia.path + "/h264-30fps.mp4")
        defer { plain.close() }
        let again = try FrameSource(out)
        defer { again.close() }
        #expect(Self.psnr(try plain.nextFrame()!, try again.nextFrame()!) < 30)
    }

    static func psnr(_ a: Frame, _ b: Frame) -> Double {
        var sum = 0.0, n = 0
        for y in 0..<a.height { for x in 0..<a.width {
            let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
            for (u, v) in [(p.r, q.r), (p.g, q.g), (p.b, q.b)] { let d = Double(u) - Double(v); sum += d * d; n += 1 }
        } }
        let mse = sum / Double(n)
        return mse == 0 ? 100 : 10 * log10(255 * 255 / mse)
    }

    @Test func webmTranscodesAudioAndLoopsStayInSync() async throws {
        let dir = Scratch()
        let out = dir.path("loop.webm")
        let r = try await CLI.run(["apply", CLI.media("h264-25fps.mp4"), "-o", out, "--loop", "10", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let p = try await Probe(out)
        #expect(p.video["codec_name"] == "vp9" && p.audio["codec_name"] == "opus")
        try await CLIProcess.expectInSync(out)
        #expect(p.video["nb_read_frames"] == "900")
        // 10 × 3 s: audio ends within one frame of the video
        let ends = try await CLIProcess.ends(out)
        #expect(abs(ends.video - ends.audio) < 1.0 / 30, "\(ends)")
        #expect(abs(try await CLIProcess.audioSeconds(out) - 30.0) < 2.0 / 30)
    }

    @Test func trimmedLoopedAudioStaysInSync() async throws {
        let dir = Scratch()
        let out = dir.path("clip.mkv")
        let r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-o", out, "--start", "0.5", "--duration", "1.5", "--loop", "10", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let p = try await Probe(out)
        #expect(p.video["nb_read_frames"] == "450")
        #expect(r.stderr.isEmpty)
        let ends = try await CLIProcess.ends(out)
        #expect(abs(ends.video - ends.audio) < 1.0 / 30, "\(ends)")
        let copy = dir.path("copy.mp4")
        #expect(try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-o", copy, "-q"]).status == 0)
        #expect(abs(try await CLIProcess.audioSeconds(copy) - 3.0) < 1.0 / 30)
        try await CLIProcess.expectInSync(copy)
        try await CLIProcess.expectInSync(out)
        #expect(abs(try await CLIProcess.audioSeconds(out) - 15.0) < 2.0 / 30)
    }

    @Test func sizeFitAndOddSizes() async throws {
        let dir = Scratch()
        let fill = dir.path("fill.mp4")
        #expect(try await CLI.run(["apply", CLI.media("rotated90.mp4"), "-o", fill, "--size", "1280x720", "--fit", "fill", "-q"]).status == 0)
        let p = try await Probe(fill)
        #expect(p.video["width"] == "1280" && p.video["height"] == "720" && p.video["color_space"] == "bt709")
        // A named size names the short side: the portrait clip stays portrait.
        let named = dir.path("named.mp4")
        #expect(try await CLI.run(["apply", CLI.media("rotated90.mp4"), "-o", named, "--size", "720p", "-q"]).status == 0)
        let n = try await Probe(named)
        #expect(n.video["width"] == "720" && n.video["height"] == "1280", "\(n.video)")
        let odd = dir.path("odd.mp4")
        let r = try await CLI.run(["apply", CLI.media("odd-161x121-sar4x3.mp4"), "-o", odd])
        #expect(r.stderr.contains("215x121 rounded to 214x120"))
        #expect(try await Probe(odd).video["width"] == "214")
    }

    @Test func refusesToOverwriteOrToWriteOverTheInput() async throws {
        let dir = Scratch()
        let out = dir.path("a.mp4")
        _ = FileManager.default.createFile(atPath: out, contents: Data("keep me".utf8))
        let r = try await CLI.run(["apply", CLI.media("one-frame.mp4"), "-o", out])
        #expect(r.status != 0 && r.stderr.contains("already exists"))
        #expect(FileManager.default.contents(atPath: out) == Data("keep me".utf8))
        // The input through a symlink, with -y: still refused.
        let input = dir.path("in.mp4")
        try FileManager.default.copyItem(atPath: CLI.testmedia.path + "/one-frame.mp4", toPath: input)
        try FileManager.default.createSymbolicLink(atPath: dir.path("link.mp4"), withDestinationPath: input)
        let same = try await CLI.run(["apply", input, "-o", dir.path("link.mp4"), "-y"])
        #expect(same.status != 0 && same.stderr.contains("is the input file"))
        #expect(FileManager.default.contents(atPath: input) == FileManager.default.contents(atPath: CLI.testmedia.path + "/one-frame.mp4"))
    }

    @Test func ctrlCFinalizesAPlayableFile() async throws {
        let dir = Scratch()
        let out = dir.path("long.mp4")
        let p = Process()
        p.executableURL = CLI.executable
        p.arguments = ["apply", CLI.testmedia.path + "/h264-30fps.mp4", "-o", out, "--loop", "2000", "-q"]
        // Its messages go to a file beside the scratch folder (the folder's contents are
        // checked), to be shown if it fails.
        let log = dir.url.path + ".stderr"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        defer { unlink(log) }
        p.standardError = FileHandle(forWritingAtPath: log)
        let running = try Subprocess.Running(p)
        // Wait until encoded frames reach the temporary file (not a fixed delay: a loaded
        // machine running ASan may take seconds to get the encoder going).
        func partBytes() -> Int {
            guard let part = dir.contents.first(where: { $0.hasSuffix(".part") }) else { return 0 }
            return ((try? FileManager.default.attributesOfItem(atPath: dir.path(part)))?[.size] as? Int) ?? 0
        }
        let deadline = ContinuousClock.now + .seconds(300)  // a hang limit
        while ContinuousClock.now < deadline, partBytes() < 200_000 { try await Task.sleep(for: .milliseconds(50)) }
        running.signal(SIGINT)
        let (status, _) = await running.exit()
        // Read through a FileHandle: String(contentsOfFile:) leaks on an empty file under ASan.
        let messages = String(decoding: (try? FileHandle(forReadingFrom: URL(fileURLWithPath: log)).readToEnd()) ?? Data(), as: UTF8.self)
        #expect(status == 130, "\(messages.suffix(3000))")
        #expect(dir.contents == ["long.mp4"])
        let probe = try await Probe(out)
        let frames = Int(probe.video["nb_read_frames"] ?? "") ?? 0
        #expect(frames > 0 && frames < 2000 * 90)
    }

    /// `-o -` streams: Matroska by default, fragmented MP4 or MPEG-TS when asked, audio kept.
    @Test(arguments: [(nil as String?, "matroska,webm"), ("mp4", "mov,mp4,m4a,3gp,3g2,mj2"), ("ts", "mpegts")])
    func streamsToStandardOutput(container: String?, formatName: String) async throws {
        let dir = Scratch()
        let r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-e", "sepia", "-o", "-"] + (container.map { ["--container", $0] } ?? []))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("wrote stdout: 90 frames"), "\(r.stderr)")
        let out = dir.path("piped")
        try r.stdout.write(to: URL(fileURLWithPath: out))
        let p = try await Probe(out)
        #expect(p.video["codec_name"] == "h264" && p.video["pix_fmt"] == "yuv420p" && p.video["nb_read_frames"] == "90")
        #expect(p.audio["codec_name"] == "aac")
        try await CLIProcess.expectInSync(out)
        let format = try await CLIProcess.output("/usr/bin/env", ["ffprobe", "-v", "error", "-show_entries", "format=format_name", "-of", "default=nw=1:nk=1", out])
        #expect(String(decoding: format, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == formatName)
        #expect(dir.contents == ["piped"])
    }

    /// Standard input keeps its audio (read through the spool shared with the video), even
    /// an MP4 with its index at the end, which FFmpeg alone cannot read from a pipe; and it
    /// loops, since the spool can be rewound.
    @Test(arguments: [([] as [String], 90, 3.0), (["--loop", "2"], 180, 6.0)])
    func standardInputKeepsItsAudio(extra: [String], frames: Int, seconds: Double) async throws {
        let dir = Scratch()
        let out = dir.path("in.mp4")
        let r = try await CLIProcess.shell("f=$1 o=$2; shift 2; cat \"$f\" | \"$0\" apply - -e sepia -o \"$o\" -q \"$@\"",
                                     [CLI.testmedia.path + "/h264-30fps.mp4", out] + extra)
        #expect(r.status == 0, "\(r.stderr)")
        let probe = try await Probe(out)
        #expect(probe.video["nb_read_frames"] == String(frames))
        #expect(probe.audio["codec_name"] == "aac")
        try await CLIProcess.expectInSync(out)
        #expect(abs(try await CLIProcess.audioSeconds(out) - seconds) < 1.0 / 30)
    }

    /// A player that quits early ends the render quietly: exit 0, and it is said.
    @Test func readerClosingThePipeEndsQuietly() async throws {
        let r = try await CLIProcess.shell("\"$0\" apply \"$1\" -o - --loop 50 | head -c 20000 > /dev/null",
                                     [CLI.testmedia.path + "/h264-30fps.mp4"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("the reader closed stdout after"), "\(r.stderr)")
        #expect(!r.stderr.contains("wrote stdout"))
    }

    @Test func devicesAreWrittenStraightThrough() async throws {
        let r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-o", "/dev/null", "--duration", "1"])
        #expect(r.status == 0 && r.stderr.contains("wrote /dev/null: 30 frames"), "\(r.stderr)")
        let bad = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-o", "out.avi"])
        #expect(bad.status != 0 && bad.stderr.contains("unknown container '.avi'"), "\(bad.stderr)")
    }

    @Test func fullDiskLeavesNoFile() async throws {
        let dir = Scratch()
        let out = dir.path("big.mp4")
        // A 64 KiB file-size limit stands in for a full disk: writes fail with EFBIG.
        let r = try await CLIProcess.shell("ulimit -f 64; exec \"$0\" apply \"$1\" -o \"$2\" --loop 20 -q",
                                     [CLI.testmedia.path + "/h264-30fps.mp4", out])
        let message = r.stderr
        #expect(r.status == 1)
        #expect(message.contains(out) && message.lowercased().contains("too large"), "\(message)")
        #expect(message.split(separator: "\n").count == 1)
        #expect(dir.contents.isEmpty)
    }

    @Test(arguments: [("hevc", "mkv", "hevc", "yuv420p"), ("prores", "mov", "prores", "yuv422p10le"), ("av1", "mkv", "av1", "yuv420p")])
    func otherCodecs(codec: String, ext: String, name: String, pixelFormat: String) async throws {
        let dir = Scratch()
        let out = dir.path("c.\(ext)")
        let r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "--duration", "0.5", "--codec", codec, "-o", out, "-q"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let p = try await Probe(out)
        #expect(p.video["codec_name"] == name && p.video["pix_fmt"] == pixelFormat && p.video["nb_read_frames"] == "15")
    }

    @Test func corruptStretchIsSkippedWithAWarning() async throws {
        let dir = Scratch()
        let out = dir.path("c.mp4")
        let r = try await CLI.run(["apply", CLI.media("corrupt-middle.mp4"), "-o", out])
        #expect(r.status == 0)
        #expect(r.stderr.contains("warning: testmedia/corrupt-middle.mp4: skipping damaged video data"))
        #expect(try await Probe(out).video["nb_read_frames"] == "60")
    }

    @Test func hdOutputIsTaggedAndDecodesBackClose() async throws {
        // 720p goes through the BT.709 path of our own BGRA→YUV conversion.
        let dir = Scratch()
        let src = dir.path("hd.mp4"), out = dir.path("hd-out.mp4")
        _ = try await CLIProcess.output("/usr/bin/env", ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=0.5",
                                                   "-c:v", "libx264", "-crf", "12", "-pix_fmt", "yuv420p", src])
        let r = try await CLI.run(["apply", src, "-o", out, "--crf", "12", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let p = try await Probe(out)
        #expect(p.video["color_space"] == "bt709" && p.video["color_primaries"] == "bt709" && p.video["color_range"] == "tv")
        let a = try FrameSource(src), b = try FrameSource(out)
        defer { a.close(); b.close() }
        let fa = try #require(try a.nextFrame()), fb = try #require(try b.nextFrame())
        #expect(ApplyTests.psnr(fa, fb) > 38)
    }

    @Test func badInputIsAnErrorAndWritesNothing() async throws {
        let dir = Scratch()
        let r = try await CLI.run(["apply", CLI.media("truncated.mp4"), "-o", dir.path("x.mp4")])
        #expect(r.status == 1 && r.stderr.contains("moov atom not found"))
        #expect(dir.contents.isEmpty)
    }
}

@Suite struct DumpFolderTests {
    struct Manifest: Decodable {
        struct Entry: Decodable { var file: String; var tick: Int; var time: Double; var sourceTime: Double }
        var width: Int
        var height: Int
        var frames: [Entry]
    }

    func manifest(_ dir: String) throws -> Manifest {
        try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: dir + "/manifest.json")))
    }

    @Test func pngFolderWithManifest() async throws {
        let dir = Scratch()
        let out = dir.path("frames")
        let r = try await CLI.run(["dump", CLI.media("h264-24fps.mp4"), "-o", out, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(names.count == 91 && names.last == "manifest.json")
        #expect(names.first == "frame_000000.png" && names[89] == "frame_000089.png")
        let m = try manifest(out)
        #expect(m.frames.count == 90 && m.width == 320 && m.height == 240)
        for (k, e) in m.frames.enumerated() {
            #expect(e.file == String(format: "frame_%06d.png", k) && e.tick == k)
            #expect(abs(e.time - Double(k) / 30) < 1e-9)
            #expect(abs(e.sourceTime - Double(k * 24 / 30) / 24) < 1e-9)
        }
        // PNGs decode back to the same pixels the raw dump gives.
        let raw = try await CLI.run(["dump", CLI.media("h264-24fps.mp4"), "--format", "bgra", "-o", "-", "-q", "--frames", "1"])
        let png = try await CLIProcess.output("/usr/bin/env", ["ffmpeg", "-v", "error", "-i", out + "/frame_000000.png", "-f", "rawvideo", "-pix_fmt", "bgra", "-"])
        #expect(png == raw.stdout)
    }

    @Test func jpgFramesAndAt() async throws {
        let dir = Scratch()
        let out = dir.path("stills")
        let r = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "-o", out, "--format", "jpg", "--at", "0.5,1:00.0,2.25", "-q"])
        #expect(r.status != 0)  // 60 s is past the end: a clear error
        let ok = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "-o", out, "--format", "jpg", "--at", "0.5,1,2.25", "-q"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let m = try manifest(out)
        #expect(m.frames.map(\.file) == ["frame_000000.jpg", "frame_000001.jpg", "frame_000002.jpg"])
        #expect(m.frames.map(\.time) == [0.5, 1, 2.25])
        // the frame on screen at 2.25 s is frame 67, shown from 2.2333 s
        #expect(m.frames.map(\.sourceTime) == [0.5, 1, 67.0 / 30])
    }

    @Test func framesLimitAndPpm() async throws {
        let dir = Scratch()
        let out = dir.path("ppm")
        #expect(try await CLI.run(["dump", CLI.media("h264-60fps.mp4"), "-o", out, "--format", "ppm", "--frames", "7", "-q"]).status == 0)
        #expect(try manifest(out).frames.count == 7)
        let first = try #require(FileManager.default.contents(atPath: out + "/frame_000000.ppm"))
        #expect(first.starts(with: Data("P6\n320 240\n255\n".utf8)) && first.count == 15 + 320 * 240 * 3)
    }

    @Test func nonEmptyFolderNeedsYes() async throws {
        let dir = Scratch()
        let out = dir.path("f")
        #expect(try await CLI.run(["dump", CLI.media("one-frame.mp4"), "-o", out, "-q"]).status == 0)
        let again = try await CLI.run(["dump", CLI.media("one-frame.mp4"), "-o", out, "-q"])
        #expect(again.status != 0 && again.stderr.contains("not empty"))
        #expect(try await CLI.run(["dump", CLI.media("one-frame.mp4"), "-o", out, "-q", "-y"]).status == 0)
    }

    @Test func failureLeavesNoFolder() async throws {
        let dir = Scratch()
        let r = try await CLI.run(["dump", CLI.media("audio-only.m4a"), "-o", dir.path("none")])
        #expect(r.status != 0)
        #expect(dir.contents.isEmpty)
    }

    @Test func progressJSON() async throws {
        let dir = Scratch()
        let r = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "-o", dir.path("p"), "--progress", "json"])
        #expect(r.status == 0)
        let last = try #require(r.stderr.split(separator: "\n").last { $0.hasPrefix("{") })
        let json = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        #expect(json["frames"] as? Int == 90 && json["total"] as? Int == 90 && json["percent"] as? Double == 100)
    }
}
