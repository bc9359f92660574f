import Effects
import Foundation
import FrameCore
import FrameSource
import Testing

/// Effects that change the frame size (crop) through every command, and image
/// overlays read from real files.
@Suite struct FrameSizeTests {
    static let clip = CLI.testmedia.path + "/h264-30fps.mp4"

    /// The source's first frame cropped to (x, y, w, h), with `extra` effects after.
    static func expected(_ x: Int, _ y: Int, _ w: Int, _ h: Int, extra: String? = nil) throws -> Frame {
        let source = try FrameSource(clip)
        defer { source.close() }
        let chain = try EffectChain(parsing: "crop:rect=\(x),\(y),\(w),\(h)" + (extra.map { "," + $0 } ?? ""))
        return chain.apply(to: try source.nextFrame()!)
    }

    @Test func cropThroughApplyDropsTheOddColumnAndRow() async throws {
        let dir = Scratch()
        let out = dir.path("crop.mp4")
        let r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-e", "crop:rect=40,30,161,101,sepia", "-o", out, "--crf", "18", "--duration", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("161x101 rounded to 160x100"), "\(r.stderr)")
        let probe = try await Probe(out)
        #expect(probe.video["width"] == "160" && probe.video["height"] == "100" && probe.video["pix_fmt"] == "yuv420p")
        #expect(probe.video["nb_read_frames"] == "30")
        #expect(probe.audio["codec_name"] != nil, "audio kept")
        try await CLIProcess.expectInSync(out)
        // The picture is the crop itself (not rescaled): its top-left 160×100 matches.
        let encoded = try FrameSource(out)
        defer { encoded.close() }
        let frame = try encoded.nextFrame()!
        let want = try Self.expected(40, 30, 161, 101, extra: "sepia")
        var sum = 0.0
        for y in 0..<100 { for x in 0..<160 {
            let p = frame.pixel(x: x, y: y), q = want.pixel(x: x, y: y)
            for (u, v) in [(p.r, q.r), (p.g, q.g), (p.b, q.b)] { sum += pow(Double(u) - Double(v), 2) }
        } }
        let psnr = 10 * log10(255 * 255 / (sum / Double(160 * 100 * 3)))
        #expect(psnr > 35, "PSNR \(psnr) dB")
    }

    /// Issue 67 (6): sizes as people write them. A named size names the short side (the
    /// portrait clip, 240x320 as shown, stays portrait); one side with -1, -2 or nothing keeps
    /// the proportions as ffmpeg's scale does; a percentage scales both. Refused: no side.
    @Test func sizesAsPeopleWriteThem() async throws {
        let dir = Scratch()
        let cases: [(input: String, size: String, width: String, height: String)] = [
            ("rotated90.mp4", "480p", "480", "854"), ("h264-30fps.mp4", "480p", "854", "480"),
            ("h264-30fps.mp4", "200x-1", "200", "150"), ("h264-30fps.mp4", "200x", "200", "150"),
            ("h264-30fps.mp4", "-2x100", "134", "100"), ("rotated90.mp4", "120x-2", "120", "160"),
            ("h264-30fps.mp4", "50%", "160", "120"), ("h264-30fps.mp4", "x60", "80", "60"),
        ]
        for (n, c) in cases.enumerated() {
            let out = dir.path("size\(n).mp4")
            let r = try await CLI.run(["apply", CLI.media(c.input), "--size", c.size, "-o", out, "--duration", "0.2", "--no-audio", "-q"])
            #expect(r.status == 0, "\(c.size): \(r.stderr)")
            let probe = try await Probe(out)
            #expect(probe.video["width"] == c.width && probe.video["height"] == c.height,
                    "\(c.input) --size \(c.size): \(probe.video["width"] ?? "?")x\(probe.video["height"] ?? "?"), expected \(c.width)x\(c.height)")
        }
        for bad in ["-1x-1", "x", "0%", "200x-3", "20000x-1"] {
            let r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "--size", bad, "-o", dir.path("bad.mp4")])
            #expect(r.status != 0 && r.stderr.contains("--size"), "\(bad): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.path("bad.mp4")))
        }
    }

    @Test func cropThroughDumpKeepsTheExactSize() async throws {
        let dir = Scratch()
        let r = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "-e", "crop:rect=40,30,161,101", "-o", dir.path("frames"),
                             "--frames", "3", "--format", "bgra", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path("frames")).filter { $0.hasSuffix(".bgra") }.sorted()
        #expect(files.count == 3)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.path("frames/" + files[0]))))
        #expect(bytes.count == 161 * 101 * 4)
        let want = try Self.expected(40, 30, 161, 101)
        #expect(bytes == want.packedBytes(), "byte for byte the crop of the decoded frame")
        // PNG too: the image is 161×101.
        let png = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "-e", "crop:rect=40,30,161,101", "-o", dir.path("png"), "--frames", "1", "-q"])
        #expect(png.status == 0, "\(png.stderr)")
        let size = try await CLIProcess.output("/usr/bin/env", ["ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0",
                                                          dir.path("png/frame_000000.png")])
        #expect(String(decoding: size, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "161,101")
    }

    @Test func cropThroughPreview() async throws {
        let r = try await CLI.run(["preview", CLI.media("h264-30fps.mp4"), "-e", "crop:rect=0,0,160,120", "--sink", "y4m", "--duration", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        let y4m = try Y4M(r.stdout)
        #expect(y4m.width == 160 && y4m.height == 120)
        #expect(y4m.frames.count == 30)
    }

    @Test func overlayReadsAlphaFromAPNG() async throws {
        let dir = Scratch()
        // A 32×32 half-transparent red badge, written by FFmpeg.
        let badge = dir.path("badge.png")
        _ = try await CLIProcess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "color=c=0xFF0000@0.5:s=32x32,format=rgba",
                                                   "-frames:v", "1", badge])
        let r = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "-e", "overlay:file=\(badge):anchor=bottomright:x=8:y=4", "-o", dir.path("f"),
                             "--frames", "1", "--format", "bgra", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.path("f/frame_000000.bgra"))))
        let source = try FrameSource(Self.clip)
        defer { source.close() }
        let plain = try source.nextFrame()!
        func px(_ x: Int, _ y: Int) -> (Int, Int, Int) { let i = (y * 320 + x) * 4; return (Int(bytes[i + 2]), Int(bytes[i + 1]), Int(bytes[i])) }
        // Inside the badge: half red over the video; outside: untouched.
        let (x, y) = (320 - 8 - 16, 240 - 4 - 16)
        let under = plain.pixel(x: x, y: y), a = 128.0 / 255
        let got = px(x, y)
        #expect(abs(got.0 - Int((255 * a + Double(under.r) * (1 - a)).rounded())) <= 2)
        #expect(abs(got.1 - Int((Double(under.g) * (1 - a)).rounded())) <= 2)
        #expect(px(5, 5) == (Int(plain.pixel(x: 5, y: 5).r), Int(plain.pixel(x: 5, y: 5).g), Int(plain.pixel(x: 5, y: 5).b)))
        // A missing image is a one-line error naming it.
        let missing = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "-e", "overlay:file=\(dir.path("nope.png"))", "-o", dir.path("g"), "-q"])
        #expect(missing.status != 0 && missing.stderr.contains("nope.png"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("g")))
    }
}
