import Foundation
import TestSupport
import Testing

/// Codec × container (issue 67: `-o o.mov --codec vp9` and `-o o.webm --codec h264` ended in
/// FFmpeg's "cannot write the container header: Invalid argument", `--codec h265` listed
/// nothing, `--crf -3` said "Numerical result out of range" and `--crf 60` was taken): every
/// pair either writes that codec or is refused in one line naming the pair and what would
/// work, before any file appears; the names people bring are aliases; each codec's CRF range
/// is checked.
@Suite struct OutputCodecTests {
    static let pairs: [(String, String)] = ["mp4", "mov", "mkv", "webm", "ts"].flatMap { c in ["h264", "hevc", "vp9", "av1", "prores"].map { (c, $0) } }
    /// What FFmpeg's own probe calls each codec.
    static let probed = ["h264": "h264", "hevc": "hevc", "vp9": "vp9", "av1": "av1", "prores": "prores"]
    static let works: Set<String> = ["mp4 h264", "mp4 hevc", "mp4 vp9", "mp4 av1", "mov h264", "mov hevc", "mov prores",
                                     "mkv h264", "mkv hevc", "mkv vp9", "mkv av1", "mkv prores", "webm vp9", "webm av1", "ts h264", "ts hevc"]

    @Test(arguments: pairs)
    func everyPairWritesOrIsRefusedInOneLine(container: String, codec: String) async throws {
        let scratch = try ScratchDirectory("vidfx-codec")
        let out = scratch.path("out.\(container)")
        let r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-o", out, "--codec", codec, "--duration", "0.2", "--preset",
                                   codec == "prores" ? "proxy" : "ultrafast", "-q"])
        if Self.works.contains("\(container) \(codec)") {
            #expect(r.status == 0, "\(container) \(codec): \(r.stderr)")
            let probe = try await Probe(out)
            #expect(probe.video["codec_name"] == Self.probed[codec], "\(container) \(codec): \(probe.video)")
        } else {
            let lines = r.stderr.split(separator: "\n")
            #expect(r.status != 0 && lines.count == 1 && lines[0].contains("\(container.uppercased()) cannot hold")
                    && lines[0].contains("goes in") && lines[0].contains("takes --codec"), "\(container) \(codec): \(r.status) \(r.stderr)")
            let left = (try? FileManager.default.contentsOfDirectory(atPath: scratch.url.path)) ?? []
            #expect(left.isEmpty, "nothing is left: \(left)")
        }
    }

    /// The names from FFmpeg and elsewhere; CRF ranges.
    @Test func aliasesAndRanges() async throws {
        let scratch = try ScratchDirectory("vidfx-codec-alias")
        for (alias, name) in [("h265", "hevc"), ("x264", "h264"), ("libvpx-vp9", "vp9")] {
            let out = scratch.path("\(alias).mkv")
            let r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-o", out, "--codec", alias, "--duration", "0.2", "--preset", "ultrafast", "-q"])
            #expect(r.status == 0, "\(alias): \(r.stderr)")
            #expect(try await Probe(out).video["codec_name"] == name)
        }
        for (codec, crf, said) in [("h264", "-3", "-3 is outside H.264's 0…51"), ("h264", "60", "60 is outside H.264's 0…51"),
                                   ("prores", "20", "ProRes has no CRF")] {
            let out = scratch.path("crf.mov")
            let r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-o", out, "--codec", codec, "--crf", crf, "--duration", "0.2", "-q"])
            #expect(r.status != 0 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(said), "\(codec) \(crf): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        let vp9 = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-o", scratch.path("high.webm"), "--crf", "60", "--duration", "0.2",
                                     "--preset", "ultrafast", "-q"])
        #expect(vp9.status == 0, "VP9 takes CRF 60: \(vp9.stderr)")
    }

    /// Issue 67 (5, 10): an unknown codec's line lists the codecs (the parser put the list
    /// on lines of its own, which the one-line error dropped), and ffmpeg's options get
    /// vidfx's names for them instead of the parser's nearest spelling (-vf was --crf).
    @Test func mistakesNameWhatWouldWork() async throws {
        let scratch = try ScratchDirectory("vidfx-codec-mistake")
        let input = CLI.media("h264-30fps.mp4"), out = scratch.path("o.mp4")
        for (arguments, said) in [(["--codec", "h266"], ["h264", "hevc", "vp9", "av1", "prores", "gif"]),
                                  (["-vf", "hflip"], ["-vf", "-e"]), (["-ss", "2"], ["-ss", "--start"]),
                                  (["-c:v", "libx265"], ["--codec"])] {
            let r = try await CLI.run(["apply", input, "-o", out] + arguments)
            let lines = r.stderr.split(separator: "\n")
            #expect(r.status != 0 && lines.count == 1, "\(arguments): \(r.stderr)")
            for word in said { #expect(r.stderr.contains(word), "\(arguments): '\(word)' not in \(r.stderr)") }
            #expect(!r.stderr.contains("--crf") && !r.stderr.contains("--yes"), "\(arguments): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}
