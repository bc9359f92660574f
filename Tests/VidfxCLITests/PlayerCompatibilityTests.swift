import Foundation
import Testing
import TestSupport

/// Outputs every player opens, and one vocabulary of encoder presets for every codec.
@Suite struct PlayerCompatibilityTests {
    func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-compat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Apple's players open HEVC only when it is tagged hvc1 (FFmpeg writes hev1).
    @Test(arguments: ["mp4", "mov"])
    func hevcIsTaggedHvc1(container: String) throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.\(container)").path
        let r = try CLI.run(["apply", "testmedia/h264-30fps.mp4", "--codec", "hevc", "--duration", "0.5", "-o", out, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let tag = String(decoding: try Subprocess.output("/usr/bin/env", ["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
                                                                         "stream=codec_tag_string", "-of", "csv=p=0", out]), as: UTF8.self)
        #expect(tag.trimmingCharacters(in: .whitespacesAndNewlines) == "hvc1")
    }

    /// x264's speed names work for every codec; a name a codec does not take is refused
    /// before anything is decoded, listing the ones it does.
    @Test(arguments: [("webm", [String](), "ultrafast", true), ("webm", [], "veryslow", true), ("mkv", ["--codec", "av1"], "fast", true),
                      ("mkv", ["--codec", "hevc"], "superfast", true), ("mov", ["--codec", "prores"], "hq", true),
                      ("mov", ["--codec", "prores"], "ultrafast", false), ("mp4", [], "turbo", false), ("webm", [], "good", false)])
    func presetsMeanTheSameForEveryCodec(container: String, extra: [String], preset: String, valid: Bool) throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.\(container)").path
        let r = try CLI.run(["apply", "testmedia/h264-30fps.mp4", "--duration", "0.3", "--preset", preset, "-o", out, "-q"] + extra)
        if valid {
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try Probe(out).video["nb_read_frames"] == "9")
        } else {
            #expect(r.status == 1)
            #expect(r.stderr.contains("'\(preset)' is not a") && r.stderr.contains("use ") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}
