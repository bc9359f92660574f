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
    func hevcIsTaggedHvc1(container: String) async throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.\(container)").path
        let r = try await CLI.run(["apply", "testmedia/h264-30fps.mp4", "--codec", "hevc", "--duration", "0.5", "-o", out, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let tag = String(decoding: try await Subprocess.output("/usr/bin/env", ["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
                                                                         "stream=codec_tag_string", "-of", "csv=p=0", out]), as: UTF8.self)
        #expect(tag.trimmingCharacters(in: .whitespacesAndNewlines) == "hvc1")
        try await CLIProcess.expectInSync(out)
    }

    /// x264's speed names work for every codec; a name a codec does not take is refused
    /// before anything is decoded, listing the ones it does.
    @Test(arguments: [("webm", [String](), "ultrafast", true), ("webm", [], "veryslow", true), ("mkv", ["--codec", "av1"], "fast", true),
                      ("mkv", ["--codec", "hevc"], "superfast", true), ("mov", ["--codec", "prores"], "hq", true),
                      ("mov", ["--codec", "prores"], "ultrafast", false), ("mp4", [], "turbo", false), ("webm", [], "good", false)])
    func presetsMeanTheSameForEveryCodec(container: String, extra: [String], preset: String, valid: Bool) async throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.\(container)").path
        let r = try await CLI.run(["apply", "testmedia/h264-30fps.mp4", "--duration", "0.3", "--preset", preset, "-o", out, "-q"] + extra)
        if valid {
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try await Probe(out).video["nb_read_frames"] == "9")
            try await CLIProcess.expectInSync(out)
        } else {
            #expect(r.status == 1)
            #expect(r.stderr.contains("'\(preset)' is not a") && r.stderr.contains("use ") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}

/// The small things a user reads.
@Suite struct SmallMessageTests {
    @Test func oneFrameIsSingular() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-msg-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try await CLI.run(["dump", "testmedia/h264-30fps.mp4", "-o", dir.path, "--frames", "1"])
        #expect(r.status == 0 && r.stderr.contains("1 frame, 320x240"), "\(r.stderr)")
        let probe = try await CLI.run(["probe", "testmedia/one-frame.mp4"])
        #expect(String(decoding: probe.stdout, as: UTF8.self).contains(", 1 frame\n"))
    }

    @Test func anOutputWithoutExtensionSaysSo() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-noext-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = try await CLI.run(["apply", "testmedia/h264-30fps.mp4", "-o", out])
        #expect(r.status == 1 && r.stderr.contains("no extension to tell the container by") && !r.stderr.contains("'.'"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}

/// A window needs a display: without one, preview says so instead of "showing" frames
/// to an invisible driver and exiting 0.
@Suite struct NoDisplayTests {
    @Test func windowWithoutADisplayFailsAndSuggestsAnotherSink() async throws {
        let r = try await CLIProcess.shell("env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER \"$0\" preview testmedia/h264-30fps.mp4 --sink window --duration 1", [])
        #expect(r.status == 1)
        #expect(r.stderr == "vidfx: window: no display to open a window on (DISPLAY and WAYLAND_DISPLAY are not set); try --sink terminal or --sink y4m\n", "\(r.stderr)")
        #expect(!r.stderr.contains("shown"))
    }
}
