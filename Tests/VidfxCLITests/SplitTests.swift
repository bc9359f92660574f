import Foundation
import TestSupport
import Testing

/// `vidfx split` (issue 49): a file per scene, copied from the key frame nearest each cut
/// (the default), or re-encoded frame-exact with `--exact`: the scene files hold, one
/// after another, the very ticks of one render of the whole clip, each with its sound in
/// step.
@Suite struct SplitTests {
    static func frameHashes(_ file: String) async throws -> [String] {
        let text = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", file, "-map", "0:v", "-f", "framemd5", "-"])
        return String(decoding: text, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.split(separator: ",").last ?? "") }
    }

    @Test func scenesSplitIntoTheWholeRendersFramesInOrder() async throws {
        let scratch = Scratch()
        let r = try await CLI.run(["split", CLI.media("cuts.mp4"), "--scenes", "--exact", "--crf", "0", "-e", "sepia=0.5",
                                   "-o", scratch.path("scene-{n:03}.mp4")])
        #expect(r.status == 0, "\(r.stderr)")
        let files = scratch.contents.filter { $0.hasPrefix("scene-") }
        #expect(files == (1...8).map { String(format: "scene-%03d.mp4", $0) }, "\(files)")
        let whole = scratch.path("whole.mp4")
        #expect(try await CLI.run(["apply", CLI.media("cuts.mp4"), "--crf", "0", "-e", "sepia=0.5", "-o", whole, "-q"]).status == 0)
        var joined: [String] = []
        for file in files { joined += try await Self.frameHashes(scratch.path(file)) }
        let reference = try await Self.frameHashes(whole)
        #expect(reference.count == 288 && joined == reference, "\(joined.count) frames against \(reference.count)")
        // Each file begins at a cut: the scene lengths are the cut list's.
        let cuts = try await KeyFramesAtTests.cutTimes("cuts.mp4").map { Int(($0 * 30).rounded()) }
        var lengths: [Int] = []
        for file in files { lengths.append(try await Self.frameHashes(scratch.path(file)).count) }
        #expect(lengths == zip([0] + cuts, cuts + [288]).map { $1 - $0 }, "\(lengths) for cuts \(cuts)")
    }

    /// By copy: every picture once, in order (the pieces decode, joined, to the clip's
    /// pictures), each piece starting at a key frame with its sound in step; on a file
    /// made with a key frame at every cut (`apply --keyframes-at scenes`), the pieces are
    /// exactly the scenes.
    @Test func aCopySplitKeepsEveryPictureOnceWithItsSound() async throws {
        let scratch = Scratch()
        let clip = scratch.path("sound.mp4"), keyed = scratch.path("keyed.mp4")
        let made = try await Subprocess.run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", CLI.media("cuts.mp4"), "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                                                                "-shortest", "-c:v", "copy", "-c:a", "aac", clip])
        #expect(made.status == 0)
        let keying = try await CLI.run(["apply", clip, "--keyframes-at", "scenes", "-o", keyed, "-q"])
        #expect(keying.status == 0, "\(keying.stderr)")
        let scenes = try await KeyFramesAtTests.cutTimes("cuts.mp4").map { Int(($0 * 30).rounded()) }
        // The keyed file is cut where its key frames were put: at the clip's own cuts (its
        // own scan, of pictures encoded twice, could see a fade's cut a picture away).
        let list = scratch.path("cuts.json")
        #expect(try await CLI.run(["scenes", clip, "-o", list, "-q"]).status == 0)
        for (source, tag) in [(clip, "plain"), (keyed, "keyed")] {
            let r = try await CLI.run(["split", source] + (tag == "keyed" ? ["--cuts", list] : ["--scenes"]) + ["-o", scratch.path("\(tag)-{n:02}.mp4")])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("copied") && r.stderr.contains("288 pictures"), "\(r.stderr)")
            let files = scratch.contents.filter { $0.hasPrefix(tag + "-") }
            #expect(files.count >= 5, "\(files)")
            var joined: [String] = [], lengths: [Int] = []
            for file in files {
                let hashes = try await Self.frameHashes(scratch.path(file))
                joined += hashes
                lengths.append(hashes.count)
                try await CLIProcess.expectInSync(scratch.path(file))
            }
            let whole = try await Self.frameHashes(source)
            #expect(whole.count == 288 && joined == whole, "\(tag): \(joined.count) pictures against \(whole.count)")
            if tag == "keyed" {
                #expect(lengths == zip([0] + scenes, scenes + [288]).map { $1 - $0 }, "\(lengths) for cuts \(scenes)")
                #expect(!r.stderr.contains("moved"), "\(r.stderr)")
            }
        }
    }

    @Test func aCutListSplitsWithTheSoundInStep() async throws {
        let scratch = Scratch()
        let list = scratch.path("cuts.txt")
        try Data("1\n2.2\n".utf8).write(to: URL(fileURLWithPath: list))
        let r = try await CLI.run(["split", CLI.media("h264-30fps.mp4"), "--cuts", list, "--exact", "-o", scratch.path("part-{n}.mkv")])
        #expect(r.status == 0, "\(r.stderr)")
        var frames: [Int] = []
        for n in 1...3 {
            let file = scratch.path("part-\(n).mkv")
            frames.append(try await Self.frameHashes(file).count)
            try await CLIProcess.expectInSync(file)
        }
        // 1 s and 2.2 s at 30 fps: ticks 30 and 66.
        #expect(frames == [30, 36, 24], "\(frames)")
    }

    @Test func badPatternsExistingFilesAndNoModeAreOneLine() async throws {
        let scratch = Scratch()
        let mine = scratch.path("scene-1.mp4")
        try Data("mine".utf8).write(to: URL(fileURLWithPath: mine))
        for (arguments, says) in [(["--scenes", "--exact", "-o", scratch.path("scene.mp4")], "needs {n}"),
                                  (["--scenes", "-e", "sepia", "-o", scratch.path("scene-{n}.mp4")], "--exact"),
                                  (["--scenes", "--start", "2", "-o", scratch.path("scene-{n}.mp4")], "--exact"),
                                  (["--exact", "-o", scratch.path("scene-{n}.mp4")], "--scenes, or --cuts"),
                                  (["--scenes", "--exact", "-o", scratch.path("scene-{n}.mp4")], "already exists")] {
            let r = try await CLI.run(["split", CLI.media("cuts.mp4")] + arguments)
            #expect(r.status != 0 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(says), "\(r.stderr)")
        }
        // A split by copy whose pieces' names include the input: refused, even with -y, before anything is written.
        let input = scratch.path("clip-1.mp4")
        try FileManager.default.copyItem(atPath: CLI.media("cuts.mp4"), toPath: input)
        let over = try await CLI.run(["split", input, "--scenes", "-y", "-o", scratch.path("clip-{n}.mp4")])
        #expect(over.status != 0 && over.stderr.split(separator: "\n").count == 1 && over.stderr.contains("is the input"), "\(over.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == Data(contentsOf: URL(fileURLWithPath: CLI.media("cuts.mp4"))))
        try FileManager.default.removeItem(atPath: input)
        // Twelve thousand cuts (a tick apart at 1000 fps, on a 12 s clip) would be twelve
        // thousand files: refused before anything is rendered.
        let long = scratch.path("long.mkv"), many = scratch.path("many.txt")
        _ = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10:duration=12",
                                                         "-c:v", "libx264", "-preset", "ultrafast", long])
        try Data((1..<12_000).map { String(format: "%.3f", Double($0) / 1000) }.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: many))
        let r = try await CLI.run(["split", long, "--cuts", many, "--exact", "--fps", "1000", "-o", scratch.path("m-{n}.mkv")])
        #expect(r.status != 0 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("at most 10000 files"), "\(r.stderr)")
        try FileManager.default.removeItem(atPath: long)
        try FileManager.default.removeItem(atPath: many)
        let kept = try Data(contentsOf: URL(fileURLWithPath: mine))
        #expect(scratch.contents == ["scene-1.mp4"] && kept == Data("mine".utf8))
    }
}
