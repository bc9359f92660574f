import Foundation
import Testing
import TestSupport

/// Audio is copied only into containers (and players) that take it as it is, and
/// transcoded otherwise; either way it starts and ends with the video.
@Suite struct AudioCopyPolicyTests {
    /// A 2 s clip: 30 fps test pattern with a 440 Hz tone in `codec`, in `container`.
    static func clip(_ codec: String, _ container: String, in dir: URL) async throws -> URL {
        let out = dir.appendingPathComponent("source-\(codec).\(container)")
        let video = container == "webm" ? ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8"] : ["-c:v", "libx264", "-preset", "ultrafast"]
        _ = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=30:d=2",
                                                  "-f", "lavfi", "-i", "sine=f=440:d=2", "-ac", "2"] + video + ["-c:a", codec, "-shortest", out.path])
        return out
    }

    @Test(arguments: [("ac3", "mkv", "mp4", "transcoded to aac"), ("ac3", "mkv", "mkv", "ac3 copied"), ("ac3", "mkv", "ts", "ac3 copied"),
                      ("libvorbis", "webm", "mp4", "transcoded to aac"), ("libvorbis", "webm", "webm", "vorbis copied"),
                      ("libopus", "webm", "mov", "transcoded to aac"), ("aac", "mp4", "ts", "aac copied"),
                      // Players take FLAC in MP4, but FFmpeg 5.1's muxer calls it experimental.
                      ("flac", "mkv", "mp4", "transcoded to aac"), ("flac", "mkv", "mkv", "flac copied")])
    func audioIsCopiedOnlyWherePlayersTakeIt(codec: String, from source: String, to target: String, expected: String) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-audiopolicy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try await Self.clip(codec, source, in: dir)
        let out = dir.appendingPathComponent("out.\(target)")
        let r = try await CLI.run(["apply", input.path, "-o", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains(expected), "\(r.stderr)")
        let starts = try await CLIProcess.starts(out.path), ends = try await CLIProcess.ends(out.path)
        // Encoder priming may sit before the start; what a player syncs on is within a frame.
        #expect(abs(starts.audio - starts.video) <= 1.0 / 30 + 0.025, "starts \(starts)")
        #expect(abs(ends.audio - ends.video) <= 1.0 / 30 + 0.025, "ends \(ends)")
    }
}
