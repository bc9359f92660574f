import Foundation
import Testing
import TestSupport

/// --at and --start land on the exact frame on every container the decoder reads, also
/// where seeking is a search by timestamp (MPEG-TS, HLS) rather than an index lookup.
/// The oracle is the same input dumped from the top with no seek at all.
@Suite struct SeekTests {
    /// A 10 s 30 fps clip (keyframe every second) as MPEG-TS, as fMP4 HLS, as MP4, and a 23.976 fps
    /// soft-telecine MPEG-TS (pulldown flags, no repeated frames in the stream).
    static func inputs(in dir: URL) async throws -> [String: String] {
        func ffmpeg(_ a: [String]) async throws { _ = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-y"] + a) }
        let ts = dir.appendingPathComponent("clip.ts").path
        try await ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=160x120:r=30:d=10", "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-bf", "2", "-f", "mpegts", ts])
        let hls = dir.appendingPathComponent("hls")
        try FileManager.default.createDirectory(at: hls, withIntermediateDirectories: true)
        try await ffmpeg(["-i", ts, "-c", "copy", "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-hls_segment_type", "fmp4",
                    hls.appendingPathComponent("index.m3u8").path])
        let telecine = dir.appendingPathComponent("telecine.ts").path
        try await ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=160x120:r=24000/1001:d=10", "-c:v", "libx264", "-preset", "ultrafast",
                    "-x264-params", "pulldown=32:fake-interlaced=1", "-g", "24", "-f", "mpegts", telecine])
        // MP4 with B-pictures: the seek skips the unreferenced ones on the way to the target.
        let mp4 = dir.appendingPathComponent("clip.mp4").path
        try await ffmpeg(["-i", ts, "-c", "copy", mp4])
        return ["ts": ts, "hls-fmp4": hls.appendingPathComponent("index.m3u8").path, "telecine": telecine, "mp4": mp4]
    }

    static func frames(_ arguments: [String], in dir: URL) async throws -> [Data] {
        let out = dir.appendingPathComponent("out-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try await CLI.run(["dump"] + arguments + ["-o", out.path, "-q"])
        #expect(r.status == 0, "\(arguments): \(r.stderr)")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []).filter { $0.hasSuffix(".png") }.sorted()
        return try names.map { try Data(contentsOf: out.appendingPathComponent($0)) }
    }

    @Test(arguments: ["ts", "hls-fmp4", "telecine", "mp4"])
    func seeksLandOnTheExactFrame(kind: String) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-seek-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try await Self.inputs(in: dir)[kind]!
        let all = try await Self.frames([input], in: dir)
        #expect(all.count >= 295, "\(kind): \(all.count) ticks from the top")
        // Times on ticks (k/30 s), near the start, mid-GOP, just after a keyframe, near the end.
        for k in [3, 15, 31, 75, 288] where k < all.count {
            let at = try await Self.frames([input, "--at", "\(k)/30"], in: dir)
            #expect(at.count == 1 && at.first == all[k], "\(kind): --at \(k)/30 is not tick \(k)")
        }
        // Several times in one run come from one decoder that seeks or decodes through:
        // backwards, repeated, small steps forward (across a key frame too) and large ones.
        let ticks = [288, 3, 15, 16, 31, 45, 58, 61, 75, 31, 290].filter { $0 < all.count }
        let many = try await Self.frames([input, "--at", ticks.map { "\($0)/30" }.joined(separator: ",")], in: dir)
        #expect(many == ticks.map { all[$0] }, "\(kind): --at \(ticks) in one run")
        let start = try await Self.frames([input, "--start", "3.2", "--duration", "1"], in: dir)
        #expect(start.count == 30 && start == Array(all[96..<126]), "\(kind): --start 3.2 --duration 1")
    }
}
