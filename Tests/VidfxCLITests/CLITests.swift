import Effects
import Foundation
import TestSupport
import Testing

/// Runs the built `vidfx` binary, as a user would.
struct CLI {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let testmedia = directory.appendingPathComponent("testmedia")

    /// `.build/<config>/vidfx`, next to the test bundle.
    static var executable: URL {
        var dir = Bundle.main.bundleURL
        if dir.pathExtension == "xctest" { dir.deleteLastPathComponent() }
        return dir.appendingPathComponent("vidfx")
    }

    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: String
    }

    /// Runs vidfx in the repository's folder; awaits its exit without holding a thread.
    static func run(_ arguments: [String], environment: [String: String]? = nil) async throws -> Result {
        let outcome = try await Subprocess.outcome(executable, arguments, in: directory, environment: environment)
        return Result(status: outcome.status, stdout: outcome.stdout, stderr: outcome.stderrText)
    }

    static func media(_ name: String) -> String { "testmedia/" + name }
}

@Suite struct ProbeCommandTests {
    static let playable = ["h264-30fps.mp4", "h264-24fps.mp4", "h264-25fps.mp4", "h264-2997fps.mp4", "h264-60fps.mp4",
                           "h264-noaudio.mp4", "h264-30fps-faststart.mp4", "vfr.mp4", "vp9-opus.webm", "rotated90.mp4",
                           "mirrored.mp4", "odd-161x121-sar4x3.mp4", "tiny-1x1.mp4", "one-frame.mp4", "bars-bt601-limited.mp4",
                           "bars-bt601-full.mp4", "bars-bt709-limited.mp4", "bars-bt709-full.mp4", "bars-bt709-10bit.mp4",
                           "bars-untagged.mp4", "still.png", "still.jpg", "corrupt-middle.mp4"]

    @Test(arguments: playable)
    func probesEveryClip(file: String) async throws {
        let r = try await CLI.run(["probe", CLI.media(file)])
        #expect(r.status == 0, "\(r.stderr)")
        let text = String(decoding: r.stdout, as: UTF8.self)
        #expect(text.contains("size"))
        #expect(r.stderr.isEmpty)
    }

    @Test func jsonHasTheDocumentedFields() async throws {
        let r = try await CLI.run(["probe", "--json", CLI.media("h264-2997fps.mp4")])
        #expect(r.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect(json["width"] as? Int == 320)
        #expect(json["height"] as? Int == 240)
        #expect(abs((json["frameRate"] as? Double ?? 0) - 29.97) < 0.01)
        #expect(abs((json["duration"] as? Double ?? 0) - 3.003) < 0.001)
        #expect(json["rotation"] as? Int == 0)
        let video = try #require(json["video"] as? [String: Any])
        #expect(video["codec"] as? String == "h264")
        #expect(video["frameRate"] as? String == "30000/1001")
        let audio = try #require(json["audio"] as? [[String: Any]])
        #expect(audio.count == 1 && audio[0]["codec"] as? String == "aac")
    }

    @Test func jsonRotationAndColour() async throws {
        let r = try await CLI.run(["probe", "--json", CLI.media("rotated90.mp4")])
        let json = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect(json["rotation"] as? Int == 270 && json["width"] as? Int == 240)
        let bars = try await CLI.run(["probe", "--json", CLI.media("bars-bt709-full.mp4")])
        let video = try #require((try JSONSerialization.jsonObject(with: bars.stdout) as? [String: Any])?["video"] as? [String: Any])
        #expect(video["colorMatrix"] as? String == "bt709" && video["colorRange"] as? String == "full")
    }

    @Test(arguments: [
        ("missing.mp4", "no such file"),
        ("garbage.mp4", "not a readable media file"),
        ("truncated.mp4", "moov atom not found"),
        ("truncated-faststart.mp4", "truncated"),
        ("audio-only.m4a", "no video stream"),
    ])
    func failsClearlyOnBrokenInput(file: String, cause: String) async throws {
        let r = try await CLI.run(["probe", CLI.media(file)])
        #expect(r.status != 0)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(r.stderr)")
        #expect(lines.first?.hasPrefix("vidfx: testmedia/\(file): ") == true)
        #expect(r.stderr.contains(cause))
    }
}

@Suite struct DumpCommandTests {
    @Test func rawBGRAToStdout() async throws {
        let r = try await CLI.run(["dump", CLI.media("h264-24fps.mp4"), "--format", "bgra", "-o", "-"])
        #expect(r.status == 0)
        #expect(r.stdout.count == 90 * 320 * 240 * 4)
        #expect(r.stderr.contains("90 frames, 320x240 bgra"))
    }

    @Test func fpsStartAndDurationApply() async throws {
        let r = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--format", "bgra", "-o", "-", "-q",
                             "--fps", "10", "--start", "0:01", "--duration", "1.5"])
        #expect(r.status == 0)
        #expect(r.stdout.count == 15 * 320 * 240 * 4)
        #expect(r.stderr.isEmpty)
    }

    @Test func writesAFileAndRefusesToOverwrite() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("frames.bgra").path
        let first = try await CLI.run(["dump", CLI.media("one-frame.mp4"), "--format", "bgra", "-o", out, "-q"])
        #expect(first.status == 0)
        #expect((try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) == 320 * 240 * 4)
        let again = try await CLI.run(["dump", CLI.media("one-frame.mp4"), "--format", "bgra", "-o", out, "-q"])
        #expect(again.status != 0 && again.stderr.contains("already exists"))
        let forced = try await CLI.run(["dump", CLI.media("one-frame.mp4"), "--format", "bgra", "-o", out, "-q", "-y"])
        #expect(forced.status == 0)
        // No temporary files left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["frames.bgra"])
    }

    @Test func failedInputLeavesNoOutput() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try await CLI.run(["dump", CLI.media("garbage.mp4"), "--format", "bgra", "-o", dir.appendingPathComponent("x.bgra").path])
        #expect(r.status != 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// Standard input is spooled: even an MP4 with its index at the end (which FFmpeg
    /// cannot read from a pipe) dumps, loops, and gives stills at several times.
    @Test func standardInput() async throws {
        func run(_ command: String) async throws -> (status: Int32, bytes: Data, message: String) {
            let r = try await CLIProcess.shell("cat \"$1\" | \"$0\" \(command)", [CLI.testmedia.path + "/h264-30fps.mp4"])
            return (r.status, r.stdout, r.stderr)
        }
        let looped = try await run("dump - --format bgra -o - --loop 2")
        #expect(looped.status == 0, "\(looped.message)")
        #expect(looped.bytes.count == 180 * 320 * 240 * 4)
        let stills = try await run("dump - --format bgra -o - --at 0.5,2")
        #expect(stills.status == 0, "\(stills.message)")
        #expect(stills.bytes.count == 2 * 320 * 240 * 4)
        let probe = try await run("probe --json -")
        #expect(probe.status == 0 && String(decoding: probe.bytes, as: UTF8.self).contains("\"width\" : 320"), "\(probe.message)")
    }

    /// A reader that stops early (`vidfx detect … | head`) ends the command quietly, with
    /// status 0, as a closed pipe ends the sinks' writing: it once trapped in Foundation's
    /// FileHandle.write. Any other failed write to stdout is one line and a non-zero status.
    @Test(arguments: ["detect \"$1\" --what faces --json", "detect \"$1\" --what faces", "probe --json \"$1\"",
                      "probe \"$1\"", "effects --json", "effects", "scenes \"$1\" --format json"])
    func aReaderThatStopsEndsTheCommandQuietly(command: String) async throws {
        // true reads nothing and is gone long before vidfx has started: every write the
        // command makes meets a closed pipe. Its status comes back on descriptor 3 (the
        // shell's own stdout), its stderr as the shell's. No file is read back: reading an
        // empty one with String(contentsOf:) leaks in Foundation, which LeakSanitizer reports.
        let r = try await CLIProcess.shell("{ { \"$0\" \(command); echo $? >&3; } | true; } 3>&1",
                                           [CLI.testmedia.path + "/crowd.mp4"])
        #expect(String(decoding: r.stdout, as: UTF8.self) == "0\n", "\(r.stderr)")
        #expect(!r.stderr.contains("Fatal error") && !r.stderr.contains("crashed"), "\(r.stderr)")

        let full = try await CLIProcess.shell("\"$0\" \(command) > /dev/full", [CLI.testmedia.path + "/crowd.mp4"])
        #expect(full.status == 1)
        #expect(full.stderr.contains("standard output: No space left on device"), "\(full.stderr)")
        #expect(!full.stderr.contains("Fatal error"), "\(full.stderr)")
    }

    /// Started with stdout closed, vidfx says so in one line rather than writing into
    /// whatever took its number; a scene list and its scores sent to /dev/null go into the
    /// device (they once failed as "appeared while rendering", and with -y would have
    /// renamed a file over it).
    @Test func closedStandardOutputAndDevices() async throws {
        let crowd = CLI.testmedia.path + "/crowd.mp4"
        let closed = try await CLIProcess.shell("\"$0\" probe --json \"$1\" >&-", [crowd])
        #expect(closed.status == 1)
        #expect(closed.stderr == "vidfx: standard output: Bad file descriptor\n", "\(closed.stderr)")
        let device = try await CLIProcess.shell("\"$0\" scenes \"$1\" -o /dev/null --stats /dev/null", [crowd])
        #expect(device.status == 0, "\(device.stderr)")
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
    }

    /// A terminal is neither a video to read nor a place to write one: said at once,
    /// rather than waiting for keystrokes or filling the screen with bytes.
    @Test(arguments: [("probe -", "standard input is a terminal, not a video"),
                      ("apply - -o never.mp4", "standard input is a terminal, not a video"),
                      ("apply testmedia/h264-30fps.mp4 -o -", "standard output is a terminal"),
                      ("dump testmedia/h264-30fps.mp4 --format bgra -o -", "standard output is a terminal")])
    func terminalsAreRefused(arguments: String, message: String) async throws {
        // script runs the command on a pseudo-terminal: stdin and stdout are ttys there.
        let r = try await Subprocess.outcome(URL(fileURLWithPath: "/usr/bin/script"),
                                             ["-qec", "\"\(CLI.executable.path)\" \(arguments)", "/dev/null"],
                                             in: CLI.directory, captureStandardError: false)
        let text = String(decoding: r.stdout, as: UTF8.self)
        #expect(r.status != 0)
        #expect(text.contains(message), "\(text)")
        #expect(!FileManager.default.fileExists(atPath: CLI.directory.appendingPathComponent("never.mp4").path))
    }

    @Test func rawToADevice() async throws {
        let r = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--format", "bgra", "-o", "/dev/null"])
        #expect(r.status == 0 && r.stderr.contains("90 frames"))
    }

    @Test func badArgumentsAreRejected() async throws {
        let r = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--format", "bgra", "-o", "-", "--fps", "0"])
        #expect(r.status != 0)
        #expect(r.stdout.isEmpty)
    }
}

@Suite struct EffectsCommandTests {
    @Test func listsEveryEffect() async throws {
        let r = try await CLI.run(["effects"])
        #expect(r.status == 0)
        let text = String(decoding: r.stdout, as: UTF8.self)
        for name in ["caleido", "oldtimes", "pixelate", "posterize", "sepia", "solarize", "threshold", "tiled", "warhol", "zoomblur", "lut"] {
            #expect(text.contains("\(name) ("), "\(name) missing")
        }
    }

    /// The table fits a terminal of 100 columns (issue 67: lines ran to 377 characters):
    /// every line but an example, a command to copy whole; each parameter's help is kept
    /// whole, on its line or wrapped under it.
    @Test func theTableFitsAHundredColumns() async throws {
        let r = try await CLI.run(["effects"])
        let lines = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n")
        let wide = lines.filter { $0.count > 100 && !$0.hasPrefix("    e.g. ") }
        #expect(r.status == 0 && lines.count > 200 && wide.isEmpty, "\(wide.first ?? "")")
        let flat = lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        for type in EffectRegistry.all {
            for p in type.descriptor.parameters {
                #expect(flat.contains(p.help), "\(type.descriptor.name).\(p.name)'s help is not whole")
            }
        }
    }

    @Test func jsonHasTheDocumentedShape() async throws {
        let r = try await CLI.run(["effects", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]])
        #expect(list.count == EffectRegistry.all.count && list.count >= 16)
        let sepia = try #require(list.first { $0["name"] as? String == "sepia" })
        #expect(sepia["kind"] as? String == "color" && sepia["category"] as? String == "tone")
        // Kinds come from the effect's protocol: a distortion maps positions, a layer reads anywhere.
        let kinds = Dictionary(uniqueKeysWithValues: list.compactMap { e in (e["name"] as? String).map { ($0, e["kind"] as? String) } })
        #expect(kinds["kaleidoscope"] == "distortion" && kinds["straighten"] == "distortion" && kinds["pixelate"] == "layer")
        let amount = try #require((sepia["parameters"] as? [[String: Any]])?.first)
        #expect(amount["name"] as? String == "amount" && amount["type"] as? String == "float")
        #expect(amount["animatable"] as? Bool == true, "numbers take keyframes")
        let mode = try #require((list.first { $0["name"] as? String == "pixelate" }?["parameters"] as? [[String: Any]])?.first { $0["name"] as? String == "mode" })
        #expect(mode["animatable"] as? Bool == false, "choices do not")
        #expect(amount["default"] as? Double == 1 && amount["min"] as? Double == 0 && amount["max"] as? Double == 1)
        #expect(!(amount["help"] as? String ?? "").isEmpty)
    }

    @Test func oneEffectAndUnknownEffect() async throws {
        let one = try await CLI.run(["effects", "pixelate"])
        #expect(one.status == 0 && String(decoding: one.stdout, as: UTF8.self).hasPrefix("pixelate (layer, stylize)"))
        let bad = try await CLI.run(["effects", "sepai"])
        #expect(bad.status != 0 && bad.stderr.contains("did you mean 'sepia'?"))
    }

    @Test func galleryWritesAPNG() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-gallery-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = try await CLI.run(["effects", "--gallery", out, "--input", CLI.media("h264-30fps.mp4"), "--at", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        let head = try #require(FileManager.default.contents(atPath: out)).prefix(8)
        #expect(Array(head) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    /// `--only` picks the gallery's effects and their order: three tiles (the original
    /// and two effects) in one row of three; a name that is not an effect is refused.
    @Test func galleryOnlyShowsTheNamedEffects() async throws {
        let scratch = try ScratchDirectory("vidfx-gallery")
        let out = scratch.path("few.png")
        let r = try await CLI.run(["effects", "--gallery", out, "--only", "text,blur", "--input", CLI.media("h264-30fps.mp4")])
        #expect(r.status == 0, "\(r.stderr)")
        let probe = try await Subprocess.output("/usr/bin/env", ["ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", out])
        // Tiles 320 wide; 320x240 frames make tiles 240 high under a 20-pixel label.
        #expect(String(decoding: probe, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "960,260")
        let bad = try await CLI.run(["effects", "--gallery", scratch.path("bad.png"), "--only", "blur,blurry"])
        #expect(bad.status != 0 && bad.stderr.split(separator: "\n").count == 1 && bad.stderr.contains("'blurry'"), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("bad.png")))
    }

    @Test func dumpAppliesTheChain() async throws {
        let plain = try await CLI.run(["dump", CLI.media("one-frame.mp4"), "--format", "bgra", "-o", "-", "-q"])
        let inked = try await CLI.run(["dump", CLI.media("one-frame.mp4"), "--format", "bgra", "-o", "-", "-q", "-e", "threshold=0.5"])
        #expect(inked.status == 0 && inked.stdout.count == plain.stdout.count)
        // Ink leaves only black and white.
        let bytes = [UInt8](inked.stdout)
        #expect(stride(from: 0, to: bytes.count, by: 4).allSatisfy { (bytes[$0] == 0 || bytes[$0] == 255) && bytes[$0] == bytes[$0 + 1] })
        #expect(bytes != [UInt8](plain.stdout))
        let bad = try await CLI.run(["dump", CLI.media("one-frame.mp4"), "--format", "bgra", "-o", "-", "-e", "sepia=3"])
        #expect(bad.status == 2)
        #expect(bad.stderr == "vidfx: -e: sepia: amount 3 is out of range 0…1\n")
        #expect(bad.stdout.isEmpty)
    }
}

/// probe names alpha, interlacing and HDR, on clips made here with ffmpeg.
@Suite struct ProbeScanAlphaHDRTests {
    @Test func alphaInterlacingAndHDRAreNamed() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-probe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func make(_ name: String, _ args: [String]) async throws -> String {
            let path = dir.appendingPathComponent(name).path
            _ = try await CLIProcess.output("/usr/bin/env", ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=s=320x240:d=0.5"] + args + [path])
            return path
        }
        func rows(_ path: String) async throws -> [String: String] {
            let r = try await CLI.run(["probe", path])
            var out: [String: String] = [:]
            for line in String(decoding: r.stdout, as: UTF8.self).split(separator: "\n") {
                let parts = line.split(separator: " ", maxSplits: 1)
                if parts.count == 2 { out[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces) }
            }
            return out
        }
        let alpha = try await rows(make("alpha.webm", ["-vf", "format=yuva420p", "-c:v", "libvpx-vp9", "-pix_fmt", "yuva420p"]))
        #expect(alpha["alpha"]?.hasPrefix("yes") == true && alpha["scan"] == "progressive")
        let interlaced = try await rows(make("fields.ts", ["-c:v", "mpeg2video", "-flags", "+ilme+ildct", "-top", "1"]))
        #expect(interlaced["scan"] == "interlaced (top field first)" && interlaced["alpha"] == "no")
        let hlg = try await rows(make("hlg.mkv", ["-c:v", "libx265", "-x265-params", "log-level=error:colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc",
                                              "-pix_fmt", "yuv420p10le"]))
        #expect(hlg["hdr"]?.hasPrefix("HLG, tone-mapped to SDR BT.709 (mobius, peak 1000 nits)") == true)
        #expect(try await rows(CLI.media("h264-30fps.mp4"))["hdr"] == nil)
    }
}
