import Foundation
import TestSupport
import Testing

/// `dump --keyframes`: every key frame, at its own time, the same picture a full decode shows then.
@Suite struct KeyFrameTests {
    static func keyFrameTimes(_ clip: String) async throws -> [Double] {
        let out = try await Subprocess.output("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-skip_frame", "nokey",
                                                                   "-show_entries", "frame=pts_time", "-of", "csv=p=0",
                                                                   CLI.directory.appendingPathComponent(clip).path])
        return String(decoding: out, as: UTF8.self).split(separator: "\n").compactMap { $0.split(separator: ",").first.flatMap { Double($0) } }
    }

    static func manifest(_ folder: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent("manifest.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(json["frames"] as? [[String: Any]])
    }

    @Test(arguments: ["testmedia/cuts.mp4", "testmedia/cuts-vfr.mkv", "testmedia/h264-30fps.mp4"])
    func everyKeyFrameAtItsTime(clip: String) async throws {
        let scratch = try ScratchDirectory("keyframes")
        let out = scratch.path("frames")
        let r = try await CLI.run(["dump", clip, "--keyframes", "-o", out, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let frames = try Self.manifest(out)
        let expected = try await Self.keyFrameTimes(clip)
        #expect(frames.count == expected.count && !expected.isEmpty)
        for (frame, t) in zip(frames, expected) {
            #expect(abs((frame["time"] as? Double ?? -1) - t) < 0.0005, "\(frame) against \(t)")
        }
        #expect(frames.enumerated().allSatisfy { ($0.element["tick"] as? Int) == $0.offset })
    }

    @Test func theSamePictureAsAFullDecodeAndTheRangeHolds() async throws {
        let scratch = try ScratchDirectory("keyframes-range")
        let out = scratch.path("frames")
        let r = try await CLI.run(["dump", "testmedia/cuts.mp4", "--keyframes", "--start", "3", "--duration", "3", "-o", out, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let frames = try Self.manifest(out)
        let all = try await Self.keyFrameTimes("testmedia/cuts.mp4")
        let times = frames.compactMap { $0["time"] as? Double }
        #expect(times.count == all.filter { $0 >= 3 && $0 < 6 }.count && times.count >= 2, "\(times)")
        for (i, t) in times.enumerated() {
            let still = scratch.path("at\(i)")
            let s = try await CLI.run(["dump", "testmedia/cuts.mp4", "--at", String(format: "%.6f", t), "-o", still, "-q"])
            #expect(s.status == 0, "\(s.stderr)")
            let a = try Data(contentsOf: URL(fileURLWithPath: out).appendingPathComponent(String(format: "frame_%06d.png", i)))
            let b = try Data(contentsOf: URL(fileURLWithPath: still).appendingPathComponent("frame_000000.png"))
            #expect(a == b, "key frame at \(t) s differs from the full decode's picture")
        }
    }

    @Test func refusedWithAtOrLoop() async throws {
        for extra in [["--at", "1"], ["--loop", "2"]] {
            let r = try await CLI.run(["dump", "testmedia/cuts.mp4", "--keyframes", "-o", "unused"] + extra)
            #expect(r.status != 0 && r.stderr.contains("--keyframes"), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: CLI.directory.appendingPathComponent("unused").path))
        }
    }
}
