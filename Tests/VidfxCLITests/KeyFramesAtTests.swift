import Foundation
import TestSupport
import Testing

/// `apply --keyframes-at scenes|FILE` (issue 49, PySceneDetect's `save-qp`): every cut's
/// first picture is an IDR frame, so a split by stream copy there starts with it.
@Suite struct KeyFramesAtTests {
    /// Times of the IDR pictures of an H.264 file (those a decoder can start at), in order.
    static func idrTimes(_ file: String) async throws -> [Double] {
        // Key frames by their NAL type: 5 is IDR (an I picture that only starts a GOP is 1).
        let trace = try await Subprocess.outcome(URL(fileURLWithPath: "/usr/bin/env"),
                                                 ["ffmpeg", "-nostdin", "-i", file, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"])
        let idrs = trace.stderrText.split(separator: "\n").filter { $0.contains("nal_unit_type") }
            .map { $0.hasSuffix("= 5") || $0.hasSuffix(" 5") }
        let frames = try await Subprocess.output("/usr/bin/env", ["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
                                                                 "packet=pts_time,flags", "-of", "csv=p=0", file])
        let keys = String(decoding: frames, as: UTF8.self).split(separator: "\n").compactMap { line -> Double? in
            let parts = line.split(separator: ",")
            return parts.count >= 2 && parts[1].hasPrefix("K") ? Double(parts[0]) : nil
        }
        #expect(idrs.filter { $0 }.count == keys.count, "every key packet is an IDR picture")
        return keys
    }

    static func cutTimes(_ clip: String) async throws -> [Double] {
        let r = try await CLI.run(["scenes", CLI.media(clip), "--json", "-q"])
        let document = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        return (document["cuts"] as? [[String: Any]] ?? []).compactMap { $0["time"] as? Double }
    }

    @Test func everyCutStartsAnIDRFrameAndCopiesSplitThereExactly() async throws {
        let scratch = Scratch()
        let out = scratch.path("kf.mp4")
        let r = try await CLI.run(["apply", CLI.media("cuts.mp4"), "--keyframes-at", "scenes", "--crf", "18", "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let cuts = try await Self.cutTimes("cuts.mp4")
        #expect(cuts.count == 7)
        let keys = try await Self.idrTimes(out)
        for cut in cuts { #expect(keys.contains { abs($0 - cut) < 1e-3 }, "no IDR frame at the cut at \(cut) s: \(keys)") }
        // Cut by stream copy at the fourth cut: the copy decodes to the very pictures of the
        // whole file from there.
        let piece = scratch.path("piece.mp4")
        _ = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-ss", String(format: "%.6f", cuts[3]), "-i", out,
                                                         "-c", "copy", "-an", "-frames:v", "10", piece])
        func hashes(_ file: String, _ filter: [String]) async throws -> [String] {
            let text = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", file] + filter + ["-f", "framemd5", "-"])
            return String(decoding: text, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.split(separator: ",").last ?? "") }
        }
        let copied = try await hashes(piece, [])
        let whole = try await hashes(out, ["-vf", "select=gte(t\\,\(String(format: "%.6f", cuts[3] - 0.001)))", "-frames:v", "10"])
        #expect(copied.count == 10 && copied == whole, "the copy from the cut decodes as the whole file does there")
    }

    @Test func aCutListFileAndSpeedPlaceThemToo() async throws {
        let scratch = Scratch()
        let list = scratch.path("cuts.csv")
        let csv = try await CLI.run(["scenes", CLI.media("cuts.mp4"), "--csv", "-q"])
        try csv.stdout.write(to: URL(fileURLWithPath: list))
        let out = scratch.path("fast.mp4")
        let r = try await CLI.run(["apply", CLI.media("cuts.mp4"), "--keyframes-at", list, "--speed", "2", "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let keys = try await Self.idrTimes(out)
        // At twice the speed a cut at t shows from the first tick at or after t/2.
        for cut in try await Self.cutTimes("cuts.mp4") {
            let tick = (cut / 2 * 30 - 1e-6).rounded(.up)
            #expect(keys.contains { abs($0 - tick / 30) < 1e-3 }, "no IDR frame for the cut at \(cut) s (tick \(tick)): \(keys)")
        }
    }

    @Test func aBadCutListIsOneLineAndWritesNothing() async throws {
        let scratch = Scratch()
        let list = scratch.path("cuts.txt")
        try Data("2.0, later, 4".utf8).write(to: URL(fileURLWithPath: list))
        let r = try await CLI.run(["apply", CLI.media("cuts.mp4"), "--keyframes-at", list, "-o", scratch.path("x.mp4")])
        #expect(r.status != 0 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("'later' is not a time"), "\(r.stderr)")
        let missing = try await CLI.run(["apply", CLI.media("cuts.mp4"), "--keyframes-at", scratch.path("none.txt"), "-o", scratch.path("x.mp4")])
        #expect(missing.status != 0 && missing.stderr.split(separator: "\n").count == 1 && missing.stderr.contains("none.txt"), "\(missing.stderr)")
        #expect(scratch.contents == ["cuts.txt"], "\(scratch.contents)")
    }
}
