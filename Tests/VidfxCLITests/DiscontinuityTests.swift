import Foundation
import Testing
import TestSupport

/// An HLS playlist whose segments each restart their timestamps (the same one-second
/// segment three times): the timeline continues across each jump, for the pictures
/// and the audio alike, instead of losing everything after the first segment.
@Suite struct DiscontinuityTests {
    let dir: URL
    let playlist: URL

    init() async throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-discont-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        _ = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", CLI.testmedia.appendingPathComponent("h264-30fps.mp4").path,
                                                  "-c", "copy", "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
                                                  dir.appendingPathComponent("index.m3u8").path])
        playlist = dir.appendingPathComponent("restart.m3u8")
        let segment = "#EXTINF:1.0,\nindex0.ts\n"
        try ("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:0\n" + String(repeating: segment, count: 3) + "#EXT-X-ENDLIST\n")
            .write(to: playlist, atomically: true, encoding: .utf8)
    }

    @Test func dumpShowsEverySegmentInTurn() async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("frames")
        let r = try await CLI.run(["dump", playlist.path, "-o", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("discontinuity"), "the jump is reported: \(r.stderr)")
        let frames = try (0..<90).map { try Data(contentsOf: out.appendingPathComponent(String(format: "frame_%06d.png", $0))) }
        // Each second shows the segment again: tick k and k + 30 are the same picture,
        // and within a segment the pictures move.
        for k in 0..<30 { #expect(frames[k] == frames[k + 30] && frames[k] == frames[k + 60], "tick \(k)") }
        #expect(frames[0] != frames[15])
    }

    @Test(arguments: ["webm", "mkv", "mp4"])
    func applyKeepsAudioAndVideoTogether(container: String) async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.\(container)")
        let r = try await CLI.run(["apply", playlist.path, "-o", out.path, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try await Probe(out.path).video["nb_read_frames"] == "90")
        // The audio runs through all three segments and ends with the pictures, within a
        // frame: transcoded audio (WebM) is filled to the video's end; copied packets keep
        // the segment's own offset at the end (its audio stops a little before its video).
        let ends = try await CLIProcess.ends(out.path)
        let segment = try await CLIProcess.ends(dir.appendingPathComponent("index0.ts").path)
        let expected = container == "webm" ? 0 : segment.video - segment.audio
        #expect(abs((ends.video - ends.audio) - expected) <= 1.0 / 30,
                "video ends \(ends.video) s, audio \(ends.audio) s; in the segment the audio ends \(expected) s before the video")
        #expect(try await CLIProcess.audioSeconds(out.path) > 2.5, "three segments of sound")
        // And they start together (the audio keeps its offset of a few ms to the video).
        let starts = try await CLIProcess.starts(out.path)
        #expect(abs(starts.audio - starts.video) <= 1.0 / 30 + 0.025, "starts \(starts)")
    }
}

/// A broadcast-style MPEG-TS whose streams start at 1.4 s: copied audio lands on the
/// output's timeline as the pictures do, starting and ending with them (it used to start
/// 1.4 s late and lose its last 1.4 s).
@Suite struct StartOffsetTests {
    @Test(arguments: ["mp4", "mkv", "webm"])
    func audioFromATransportStreamStaysInSync(container: String) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-tsstart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let ts = dir.appendingPathComponent("clip.ts")
        _ = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", CLI.testmedia.appendingPathComponent("h264-30fps.mp4").path,
                                                  "-c", "copy", "-f", "mpegts", ts.path])
        let source = try await CLIProcess.starts(ts.path)
        #expect(source.video > 1, "the TS starts late, as broadcast ones do: \(source)")
        let out = dir.appendingPathComponent("out.\(container)")
        let r = try await CLI.run(["apply", ts.path, "-o", out.path, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let starts = try await CLIProcess.starts(out.path), ends = try await CLIProcess.ends(out.path)
        let frame = 1.0 / 30
        // The audio keeps its offset to the video from the source (here it starts a little
        // earlier), within a frame; and it ends with the video within a frame.
        #expect(abs((starts.audio - starts.video) - (source.audio - source.video)) <= frame, "starts \(starts), source \(source)")
        #expect(abs(ends.audio - ends.video) <= frame, "ends \(ends)")
        #expect(abs(try await CLIProcess.audioSeconds(out.path) - 3) < 0.1, "the whole soundtrack")
    }
}
