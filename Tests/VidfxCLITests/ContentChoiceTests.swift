import Foundation
import TestSupport
import Testing

/// Frames chosen by content: `dump --count` and `vidfx sheet` skip the black and the fades.
@Suite struct ContentChoiceTests {
    /// cuts.mp4 is black from 7.6 s to 8.1 s (faded out before, in after).
    static let black = 7.6..<8.1
    /// The fade out before it and the fade in after, with the black.
    static let fades = 7.2..<8.4

    @Test func countSpreadsOverTheClipAndSkipsTheBlack() async throws {
        let scratch = try ScratchDirectory("count")
        let out = scratch.path("picks")
        let r = try await CLI.run(["dump", "testmedia/cuts.mp4", "--count", "24", "-o", out, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json"))
        let frames = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["frames"] as? [[String: Any]])
        #expect(frames.count == 24)
        let times = frames.compactMap { $0["time"] as? Double }
        for (slot, t) in times.enumerated() {
            let from = Double(slot) * 0.4
            #expect(t >= from && t < from + 0.4, "slot \(slot) chose \(t) s")
        }
        let reasons = frames.compactMap { $0["reason"] as? String }
        #expect(reasons.count == 24)
        // The slot inside the black has only dark pictures, and says so; those of the fades
        // around it only dark or changing ones (each measured against the picture after
        // it), and say so; every other slot has a usable picture.
        let inBlack = zip(times, reasons).filter { Self.black.contains($0.0) }
        #expect(!inBlack.isEmpty && inBlack.allSatisfy { $0.1.contains("every picture") && $0.1.contains("dark") }, "\(inBlack)")
        let inFades = zip(times, reasons).filter { Self.fades.contains($0.0) && !Self.black.contains($0.0) }
        #expect(inFades.count == 2 && inFades.allSatisfy { $0.1.contains("every picture") && $0.1.contains("changing") }, "\(inFades)")
        #expect(zip(times, reasons).filter { !Self.fades.contains($0.0) && $0.1.hasPrefix("every picture") }.isEmpty, "\(reasons)")
    }

    @Test func aSheetHasAHeaderAndATileForEachPick() async throws {
        let scratch = try ScratchDirectory("sheet")
        let out = scratch.path("sheet.png")
        let r = try await CLI.run(["sheet", "testmedia/cuts.mp4", "-o", out, "--grid", "3x2", "--width", "960"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("6 frames in 3x2"), "\(r.stderr)")
        let probe = try await Subprocess.output("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", out])
        let size = String(decoding: probe, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        // Tiles of (960 - 4·6) / 3 = 312 × 176 (16:9), two rows under the header.
        #expect(size.first == 960 && (size.last ?? 0) > 2 * 176 + 3 * 6)
        let again = try await CLI.run(["sheet", "testmedia/cuts.mp4", "-o", out])
        #expect(again.status != 0 && again.stderr.contains("-y"), "\(again.stderr)")
        for (arguments, cause) in [(["--grid", "9"], "--grid"), (["--width", "10"], "--width")] {
            let bad = try await CLI.run(["sheet", "testmedia/cuts.mp4", "-o", scratch.path("x.png")] + arguments)
            #expect(bad.status != 0 && bad.stderr.split(separator: "\n").count == 1 && bad.stderr.contains(cause), "\(bad.stderr)")
        }
        let wrongKind = try await CLI.run(["sheet", "testmedia/cuts.mp4", "-o", scratch.path("x.gif")])
        #expect(wrongKind.status != 0 && wrongKind.stderr.contains(".png"))
    }

    static func manifestFrames(_ folder: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json"))
        return try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["frames"] as? [[String: Any]])
    }

    /// Stills joined by dissolves and a fade through black (`xfade`), so that the
    /// pictures of only one source are at known times: A 0–2 s, B 3–4, C 5–6 (moving),
    /// D 7.2–8, E 8.8–11; between them a 1 s dissolve, a fade to black and back, a 1.2 s
    /// and a 0.8 s dissolve.
    static func dissolves(in scratch: ScratchDirectory) async throws -> String {
        let clip = scratch.path("dissolves.mp4")
        let media = CLI.directory.appendingPathComponent("testmedia").path
        let made = try await Subprocess.run("/usr/bin/ffmpeg", [
            "-v", "error", "-y", "-loop", "1", "-t", "3", "-i", media + "/crowd.jpg", "-loop", "1", "-t", "3", "-i", media + "/pitch.jpg",
            "-f", "lavfi", "-t", "3", "-i", "mandelbrot=size=640x360:rate=30", "-loop", "1", "-t", "3", "-i", media + "/still.png",
            "-f", "lavfi", "-t", "3", "-i", "testsrc2=size=640x360:rate=30", "-filter_complex",
            "[0]scale=640:360,setsar=1,fps=30,format=yuv420p[a];[1]scale=640:360,setsar=1,fps=30,format=yuv420p[b];[2]format=yuv420p[c];"
                + "[3]scale=640:360,setsar=1,fps=30,format=yuv420p[d];[4]format=yuv420p[e];"
                + "[a][b]xfade=transition=dissolve:duration=1:offset=2[ab];[ab][c]xfade=transition=fadeblack:duration=1:offset=4[abc];"
                + "[abc][d]xfade=transition=dissolve:duration=1.2:offset=6[abcd];[abcd][e]xfade=transition=dissolve:duration=0.8:offset=8[v]",
            "-map", "[v]", "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", clip])
        #expect(made.status == 0)
        return clip
    }

    /// Where `dissolves(in:)` shows one source alone.
    static let pure: [ClosedRange<Double>] = [0...1.99, 3.01...3.99, 5.01...5.99, 7.21...7.99, 8.81...11]

    /// The content detector cuts inside the transitions of `dissolves(in:)`, so some
    /// scenes hold one, and the middle of the first is a double exposure.
    @Test func scenesChooseCalmPicturesNotTransitions() async throws {
        let scratch = try ScratchDirectory("dump-dissolves")
        let clip = try await Self.dissolves(in: scratch)
        for k in [1, 2] {
            let out = scratch.path("k\(k)")
            let r = try await CLI.run(["dump", clip, "--scenes", "--per-scene", "\(k)", "-o", out, "-q"])
            #expect(r.status == 0, "\(r.stderr)")
            let frames = try Self.manifestFrames(out)
            #expect(frames.count >= 4 * k)
            for frame in frames {
                let t = try #require(frame["time"] as? Double)
                #expect(Self.pure.contains { $0.contains(t) }, "\(k) a scene: \(t) s is in a transition (\(frame["reason"] ?? ""))")
            }
            // What the pictures show: not dark, not flat.
            for frame in frames {
                let file = out + "/" + (try #require(frame["file"] as? String))
                let gray = try await Subprocess.output("/usr/bin/ffmpeg", ["-v", "error", "-i", file, "-f", "rawvideo", "-pix_fmt", "gray", "-"])
                let values = gray.map(Double.init)
                let mean = values.reduce(0, +) / Double(values.count)
                let deviation = (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)).squareRoot()
                #expect(mean > 24 && deviation > 10, "\(file): luma \(mean), contrast \(deviation)")
            }
        }
    }

    /// Equal slots (`dump --count`, `sheet`) have no scan: each picture looked at is
    /// measured against the one after it, so a dissolve's double exposure (sharp: it has
    /// the edges of two pictures) is skipped as changing. Before, 18 of the 33 pictures
    /// below were in transitions, and 4 of the 7 with 3 and 4 slots. A dissolve out of a
    /// moving shot (C into D) changes no more than the shot itself, and may still be
    /// chosen.
    @Test func equalSlotsSkipTransitionsToo() async throws {
        let scratch = try ScratchDirectory("dump-count-dissolves")
        let clip = try await Self.dissolves(in: scratch)
        var chosen = 0, inTransitions: [String] = []
        for count in 3...8 {
            let out = scratch.path("n\(count)")
            let r = try await CLI.run(["dump", clip, "--count", "\(count)", "-o", out, "-q"])
            #expect(r.status == 0, "\(r.stderr)")
            for frame in try Self.manifestFrames(out) {
                let t = try #require(frame["time"] as? Double)
                chosen += 1
                guard !Self.pure.contains(where: { $0.contains(t) }) else { continue }
                inTransitions.append("\(count) slots: \(t) s (\(frame["reason"] ?? ""))")
                #expect(count > 4, "\(count) slots: \(t) s is in a transition (\(frame["reason"] ?? ""))")
            }
        }
        print("equal slots: \(inTransitions.count) of \(chosen) pictures in transitions: \(inTransitions)")
        #expect(chosen == 33 && inTransitions.count * 4 <= chosen, "\(inTransitions)")
    }

    @Test func scenesGiveFramesInsideEachScene() async throws {
        let scratch = try ScratchDirectory("dump-scenes")
        let list = try await CLI.run(["scenes", "testmedia/cuts.mp4", "--json", "-q"])
        let scenes = try #require((try JSONSerialization.jsonObject(with: list.stdout) as? [String: Any])?["scenes"] as? [[String: Any]])
        #expect(scenes.count == 8)
        for k in [1, 3] {
            let out = scratch.path("k\(k)")
            let r = try await CLI.run(["dump", "testmedia/cuts.mp4", "--scenes", "--per-scene", "\(k)", "-o", out, "-q"])
            #expect(r.status == 0, "\(r.stderr)")
            let frames = try Self.manifestFrames(out)
            #expect(frames.count == k * scenes.count)
            for (i, frame) in frames.enumerated() {
                let scene = scenes[i / k]
                let a = try #require((scene["start"] as? [String: Any])?["time"] as? Double)
                let b = try #require((scene["end"] as? [String: Any])?["time"] as? Double)
                let t = try #require(frame["time"] as? Double), source = try #require(frame["sourceTime"] as? Double)
                // In the scene's middle 70%, in the k-th part of it.
                let (m0, m1) = (a + 0.14 * (b - a), b - 0.14 * (b - a))
                let (p0, p1) = (m0 + (m1 - m0) * Double(i % k) / Double(k) - 0.04, m0 + (m1 - m0) * Double(i % k + 1) / Double(k) + 0.04)
                #expect(t >= p0 && t <= p1 && source >= a && source < b, "frame \(i) at \(t) (picture \(source)) for scene \(a)–\(b)")
                #expect((frame["reason"] as? String)?.contains("scene \(i / k + 1) ") == true, "\(frame["reason"] ?? "")")
            }
        }
    }

    @Test func dedupeDropsNearCopiesOnly() async throws {
        let scratch = try ScratchDirectory("dump-dedupe")
        let all = try await CLI.run(["dump", "testmedia/cuts.mp4", "--fps", "5", "-o", scratch.path("all"), "-q"])
        #expect(all.status == 0)
        let everything = try Self.manifestFrames(scratch.path("all")).compactMap { $0["time"] as? Double }
        let exact = try await CLI.run(["dump", "testmedia/cuts.mp4", "--fps", "5", "--dedupe", "0", "-o", scratch.path("exact")])
        #expect(exact.status == 0, "\(exact.stderr)")
        let kept = Set(try Self.manifestFrames(scratch.path("exact")).compactMap { $0["time"] as? Double })
        let dropped = everything.filter { !kept.contains($0) }
        // At 0 bits only pictures that look the same at 32×32 go: the black run's after its
        // first, and little else (a slow pan's step of 0.2 s can be one).
        #expect([7.8, 8.0].allSatisfy(dropped.contains) && dropped.count <= everything.count / 10, "\(dropped)")
        #expect(exact.stderr.contains("\(dropped.count) near-duplicates dropped"), "\(exact.stderr)")
        let loose = try await CLI.run(["dump", "testmedia/cuts.mp4", "--fps", "5", "--dedupe", "12", "-o", scratch.path("loose"), "-q"])
        #expect(loose.status == 0)
        let looseTimes = try Self.manifestFrames(scratch.path("loose")).compactMap { $0["time"] as? Double }
        #expect(looseTimes.count < kept.count, "a pan's neighbours are near copies at 12 bits")
        // Every shot keeps at least its first frame.
        for cut in [0.0, 2.0, 3.6, 4.8, 6.2, 8.2] {
            #expect(looseTimes.contains { $0 >= cut && $0 < cut + 0.3 }, "no frame kept from the shot at \(cut) s: \(looseTimes)")
        }
        let bad = try await CLI.run(["dump", "testmedia/cuts.mp4", "--dedupe", "65", "-o", scratch.path("bad")])
        #expect(bad.status != 0 && bad.stderr.contains("--dedupe"))
    }
}
