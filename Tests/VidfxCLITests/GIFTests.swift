import Foundation
import TestSupport
import Testing

/// GIF out (issue 48): ffmpeg's two-pass palette GIF (palettegen, then paletteuse),
/// no larger and no worse, with the chain and --size; written atomically.
@Suite struct GIFTests {
    /// Every frame of `path` as RGB bytes, at `size`, by ffmpeg.
    static func rgb(_ path: String, _ filter: [String] = []) async throws -> [UInt8] {
        [UInt8](try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", path] + filter
                                            + ["-pix_fmt", "rgb24", "-f", "rawvideo", "-"]))
    }

    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        var sum = 0.0
        for i in 0..<min(a.count, b.count) { let d = Double(a[i]) - Double(b[i]); sum += d * d }
        let mse = sum / Double(min(a.count, b.count))
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    static func size(_ path: String) -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }

    @Test func aGIFIsFfmpegsTwoPassGIFOrBetter() async throws {
        let scratch = Scratch()
        let input = CLI.directory.appendingPathComponent(CLI.media("h264-30fps.mp4")).path
        let ours = scratch.path("ours.gif"), theirs = scratch.path("theirs.gif")
        let r = try await CLI.run(["apply", input, "-o", ours])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("wrote \(ours): 90 frames, 320x240 gif"), "\(r.stderr)")
        _ = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", input, "-vf",
                                                        "fps=30:round=up,split[a][b];[a]palettegen[p];[b][p]paletteuse", theirs])
        let source = try await Self.rgb(input, ["-vf", "fps=30:round=up"])
        let a = try await Self.rgb(ours), b = try await Self.rgb(theirs)
        #expect(a.count == 90 * 320 * 240 * 3 && a.count == b.count)
        let (p, q) = (Self.psnr(a, source), Self.psnr(b, source))
        #expect(p >= q - 0.1, "PSNR \(p) dB against ffmpeg's \(q) dB")
        #expect(Self.size(ours) <= Self.size(theirs) * 102 / 100, "\(Self.size(ours)) bytes against \(Self.size(theirs))")
    }

    @Test func theChainAndTheSizeApply() async throws {
        let scratch = Scratch()
        let out = scratch.path("small.gif")
        let r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-e", "fade:in=1", "--size", "160x160", "--fps", "10", "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let probe = try await Subprocess.output("/usr/bin/env", ["ffprobe", "-v", "error", "-count_frames", "-show_entries",
                                                                "stream=width,height,nb_read_frames", "-of", "csv=p=0", out])
        #expect(String(decoding: probe, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "160,120,30")
        let frames = try await Self.rgb(out)
        let first = frames.prefix(160 * 120 * 3), last = frames.suffix(160 * 120 * 3)
        #expect(first.allSatisfy { $0 < 8 }, "the fade starts black")
        #expect(last.reduce(0) { $0 + Int($1) } / last.count > 40, "and ends on the picture")
        #expect(scratch.contents == ["small.gif"], "no work file left: \(scratch.contents)")
    }

    /// `--palette scenes`: each scene `vidfx scenes` finds gets a palette of its own
    /// (cuts.mp4 joins footage of different colours), so the GIF is closer to the clip
    /// than with one palette, and no frame after a palette change is worse than one
    /// palette's (stale indices left by the encoder's frame differencing would show
    /// there). A cut list names scenes the same way; a video output refuses the option.
    @Test func eachSceneCanHaveItsOwnPalette() async throws {
        let scratch = Scratch()
        let input = CLI.media("cuts.mp4")
        let (one, scenes, listed) = (scratch.path("one.gif"), scratch.path("scenes.gif"), scratch.path("listed.gif"))
        let size = ["--size", "320x180", "--fps", "10"]
        let a = try await CLI.run(["apply", input, "-o", one] + size)
        let b = try await CLI.run(["apply", input, "-o", scenes, "--palette", "scenes"] + size)
        #expect(a.status == 0 && a.stderr.contains("one palette of 256 colours"), "\(a.stderr)")
        let found = try await CLI.run(["scenes", input, "--csv"])
        let listing = String(decoding: found.stdout, as: UTF8.self).split(separator: "\n")
        let sceneCount = listing.count - 2  // the cut line and the header
        #expect(sceneCount >= 3, "\(listing)")
        #expect(b.status == 0 && b.stderr.contains("\(sceneCount) palettes (one a scene)"), "\(b.stderr)")
        let source = try await Self.rgb(input, ["-vf", "fps=10:round=up,scale=320:180:flags=lanczos"])
        let x = try await Self.rgb(one), y = try await Self.rgb(scenes)
        let frame = 320 * 180 * 3
        #expect(x.count == 96 * frame && y.count == x.count && source.count == x.count, "\(x.count / frame) \(y.count / frame) \(source.count / frame)")
        let (p, q) = (Self.psnr(y, source), Self.psnr(x, source))
        print("GIF of cuts.mp4: \(sceneCount) palettes \(p) dB, \(Self.size(scenes)) bytes; one palette \(q) dB, \(Self.size(one)) bytes")
        #expect(p >= q + 0.5, "per scene \(p) dB against one palette's \(q) dB")
        for n in 0..<(x.count / frame) {
            let range = (n * frame)..<((n + 1) * frame)
            let (own, shared) = (Self.psnr(Array(y[range]), Array(source[range])), Self.psnr(Array(x[range]), Array(source[range])))
            #expect(own >= shared - 1, "frame \(n): \(own) dB with its scene's palette, \(shared) dB with the clip's")
        }
        // The same cuts from a file (times, one a line).
        let cuts = scratch.path("cuts.txt")
        let times = listing.dropFirst(2).compactMap { line in line.split(separator: ",").dropFirst(3).first.map(String.init) }
        try times.dropFirst().joined(separator: "\n").write(toFile: cuts, atomically: true, encoding: .utf8)
        let c = try await CLI.run(["apply", input, "-o", listed, "--palette", cuts] + size)
        #expect(c.status == 0 && c.stderr.contains("\(sceneCount) palettes (one a scene)"), "\(times) \(c.stderr)")
        #expect(try await Self.rgb(listed) == y, "the same GIF from the listed cuts")
        let refused = try await CLI.run(["apply", input, "-o", scratch.path("x.mp4"), "--palette", "scenes"])
        #expect(refused.status == 2 && refused.stderr.contains("--palette is for a GIF output"), "\(refused.stderr)")
    }

    /// The NETSCAPE2.0 loop count of a GIF, nil when it has no such block (it plays once).
    static func loopCount(_ path: String) throws -> Int? {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let tag = Array("NETSCAPE2.0".utf8)
        guard let i = (0...(bytes.count - tag.count)).first(where: { Array(bytes[$0..<($0 + tag.count)]) == tag }),
              i + 15 <= bytes.count else { return nil }
        // Sub-block: size 3, id 1, then the count (little-endian).
        #expect(bytes[i + 11] == 3 && bytes[i + 12] == 1)
        return Int(bytes[i + 13]) | Int(bytes[i + 14]) << 8
    }

    @Test func loopIsTheGIFsPlayCountAndTheClipIsInItOnce() async throws {
        let scratch = Scratch()
        var frames: [String: Int] = [:]
        for (name, options) in [("ever", [String]()), ("once", ["--loop", "1"]), ("thrice", ["--loop", "3"])] {
            let out = scratch.path("\(name).gif")
            let r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "--size", "80x60", "--fps", "5", "-o", out] + options)
            #expect(r.status == 0, "\(r.stderr)")
            let counted = try await Subprocess.output("/usr/bin/env", ["ffprobe", "-v", "error", "-count_frames", "-show_entries",
                                                                      "stream=nb_read_frames", "-of", "csv=p=0", out])
            frames[name] = Int(String(decoding: counted, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(frames == ["ever": 15, "once": 15, "thrice": 15], "the clip once in each file: \(frames)")
        // 0 plays for ever; no block plays once; 2 plays the first time and twice more.
        #expect(try Self.loopCount(scratch.path("ever.gif")) == 0)
        #expect(try Self.loopCount(scratch.path("once.gif")) == nil)
        #expect(try Self.loopCount(scratch.path("thrice.gif")) == 2)
    }

    @Test func aRedactedGIFHasItsReport() async throws {
        let scratch = Scratch()
        let out = scratch.path("crowd.gif")
        let r = try await CLI.run(["apply", CLI.media("crowd.mp4"), "--duration", "0.5", "--size", "320x320", "-e", "faceblur",
                                   "--detections", scratch.path("faces.jsonl"), "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("redaction:") && r.stderr.contains("report"), "\(r.stderr)")
        #expect(scratch.contents == ["crowd.gif", "crowd.redaction.json", "faces.jsonl"], "\(scratch.contents)")
    }

    @Test func nothingIsReplacedOrLeftBehind() async throws {
        let scratch = Scratch()
        let out = scratch.path("mine.gif")
        try Data("mine".utf8).write(to: URL(fileURLWithPath: out))
        var r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-o", out])
        #expect(r.status != 0 && r.stderr.contains("already exists"), "\(r.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data("mine".utf8))
        r = try await CLI.run(["apply", CLI.media("garbage.mp4"), "-o", scratch.path("bad.gif")])
        #expect(r.status != 0 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("garbage.mp4"), "\(r.stderr)")
        #expect(scratch.contents == ["mine.gif"], "\(scratch.contents)")
    }

    /// `--codec gif` writes a GIF whatever the output's name; a name, a container or
    /// standard output that cannot hold one is refused in one line, writing nothing.
    @Test func codecGIFWritesAGIFAndRefusesWhatCannotHoldOne() async throws {
        let scratch = Scratch()
        let out = scratch.path("preview")
        let r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "--codec", "gif", "--duration", "1", "--size", "80x60", "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)).prefix(6) == Data("GIF89a".utf8))
        for (arguments, says) in [(["--codec", "gif", "-o", scratch.path("x.mp4")], "name the output .gif"),
                                  (["--codec", "h264", "-o", scratch.path("x.gif")], "a .gif holds a GIF, not h264"),
                                  (["--codec", "gif", "--container", "mkv", "-o", scratch.path("y")], "drop --container mkv"),
                                  (["--codec", "gif", "-o", "-"], "a GIF is written to a file")] {
            let refused = try await CLI.run(["apply", CLI.media("h264-30fps.mp4")] + arguments)
            #expect(refused.status != 0 && refused.stderr.split(separator: "\n").count == 1 && refused.stderr.contains(says), "\(refused.stderr)")
        }
        #expect(scratch.contents == ["preview"], "\(scratch.contents)")
    }

    /// The GIF plays in Chromium: its decoder (WebCodecs' ImageDecoder, what an <img>
    /// uses) finds every frame, the loop for ever, and each frame's picture as ffmpeg
    /// decodes it.
    @Test func chromiumPlaysEveryFrame() async throws {
        let scratch = Scratch()
        let gif = scratch.path("clip.gif")
        let r = try await CLI.run(["apply", CLI.media("cuts.mp4"), "--duration", "2", "--fps", "10", "--size", "160x90", "-e", "sepia",
                                   "-o", gif])
        #expect(r.status == 0, "\(r.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: gif))
        let page = scratch.path("gif.html")
        try Data("""
            <!doctype html><img id="g" src="data:image/gif;base64,\(data.base64EncodedString())"><script>
            window.studio = {ready: new Promise(r => { const i = document.getElementById('g'); if (i.complete) r(); else i.onload = r; })};
            </script>
            """.utf8).write(to: URL(fileURLWithPath: page))
        let step = """
            (async () => { const img = document.getElementById('g');
            const d = new ImageDecoder({data: await (await fetch(img.src)).arrayBuffer(), type: 'image/gif'});
            await d.tracks.ready; await d.completed; const t = d.tracks.selectedTrack; const means = [];
            for (let k = 0; k < t.frameCount; k++) { const f = (await d.decode({frameIndex: k})).image;
              const c = new OffscreenCanvas(f.displayWidth, f.displayHeight); const g = c.getContext('2d'); g.drawImage(f, 0, 0);
              const p = g.getImageData(0, 0, c.width, c.height).data; let s = [0, 0, 0];
              for (let i = 0; i < p.length; i += 4) { s[0] += p[i]; s[1] += p[i + 1]; s[2] += p[i + 2]; }
              means.push(s.map(v => v / (p.length / 4))); f.close(); }
            return {width: img.naturalWidth, height: img.naturalHeight, frames: t.frameCount, animated: t.animated,
                    forever: t.repetitionCount === Infinity, means}; })()
            """
        let results = try await StudioPageRealClockTests.drive("file://" + page, [step])
        let seen = try #require(results.first as? [String: Any], "\(results)")
        #expect(seen["width"] as? Int == 160 && seen["height"] as? Int == 90, "\(seen)")
        #expect(seen["frames"] as? Int == 20 && seen["animated"] as? Bool == true && seen["forever"] as? Bool == true, "\(seen)")
        let rgb = try await Self.rgb(gif)
        let means = seen["means"] as? [[Double]] ?? []
        #expect(means.count == 20 && rgb.count == 20 * 160 * 90 * 3)
        for (k, mean) in means.enumerated() where rgb.count == 20 * 160 * 90 * 3 {
            var sum = [0.0, 0, 0]
            for i in stride(from: k * 160 * 90 * 3, to: (k + 1) * 160 * 90 * 3, by: 3) { for c in 0..<3 { sum[c] += Double(rgb[i + c]) } }
            let theirs = sum.map { $0 / (160 * 90) }
            #expect(zip(mean, theirs).allSatisfy { abs($0 - $1) < 1 }, "frame \(k): Chromium \(mean), ffmpeg \(theirs)")
        }
    }
}
