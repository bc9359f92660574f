import Foundation
import TestSupport
import Testing

/// Frames chosen by content: `dump --count` and `vidfx sheet` skip the black and the fades.
@Suite struct ContentChoiceTests {
    /// cuts.mp4 is black from 7.6 s to 8.1 s (faded out before, in after).
    static let black = 7.6..<8.1

    @Test func countSpreadsOverTheClipAndSkipsTheBlack() async throws {
        let scratch = try ScratchDirectory("count")
        let out = scratch.path("picks")
        let r = try await CLI.run(["dump", "testmedia/cuts.mp4", "--count", "24", "-o", out, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json"))
        let frames = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["frames"] as? [[String: Any]])
        #expect(frames.count == 24)
        let times = frames.compactMap { $0["time"] as? Double }
        for (slot, t) in times.enumerated() {
            let from = Double(slot) * 0.4
            #expect(t >= from && t < from + 0.4, "slot \(slot) chose \(t) s")
        }
        let reasons = frames.compactMap { $0["reason"] as? String }
        #expect(reasons.count == 24)
        // Slots touching the fade skip its dark pictures; the one inside the black has only
        // dark ones, and says so.
        #expect(reasons.contains { $0.contains("skipped") && $0.contains("dark") }, "\(reasons)")
        let inBlack = zip(times, reasons).filter { Self.black.contains($0.0) }
        #expect(inBlack.allSatisfy { $0.1.contains("every picture") && $0.1.contains("dark") }, "\(inBlack)")
        #expect(zip(times, reasons).filter { !Self.black.contains($0.0) && $0.1.hasPrefix("every picture") }.isEmpty)
    }

    @Test func aSheetHasAHeaderAndATileForEachPick() async throws {
        let scratch = try ScratchDirectory("sheet")
        let out = scratch.path("sheet.png")
        let r = try await CLI.run(["sheet", "testmedia/cuts.mp4", "-o", out, "--grid", "3x2", "--width", "960"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("6 frames in 3x2"), "\(r.stderr)")
        let probe = try await Subprocess.output("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", out])
        let size = String(decoding: probe, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        // Tiles of (960 - 4·6) / 3 = 312 × 176 (16:9), two rows under the header.
        #expect(size.first == 960 && (size.last ?? 0) > 2 * 176 + 3 * 6)
        let again = try await CLI.run(["sheet", "testmedia/cuts.mp4", "-o", out])
        #expect(again.status != 0 && again.stderr.contains("-y"), "\(again.stderr)")
        for (arguments, cause) in [(["--grid", "9"], "--grid"), (["--width", "10"], "--width")] {
            let bad = try await CLI.run(["sheet", "testmedia/cuts.mp4", "-o", scratch.path("x.png")] + arguments)
            #expect(bad.status != 0 && bad.stderr.split(separator: "\n").count == 1 && bad.stderr.contains(cause), "\(bad.stderr)")
        }
        let wrongKind = try await CLI.run(["sheet", "testmedia/cuts.mp4", "-o", scratch.path("x.gif")])
        #expect(wrongKind.status != 0 && wrongKind.stderr.contains(".png"))
    }
}
