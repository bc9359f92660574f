import Foundation
import TestSupport
import Testing

/// `text` (issue 48) through the command line: a burnt-in timecode read back by
/// Tesseract matches every sampled frame's tick, and a caption names its input.
@Suite struct TextTests {
    /// Tesseract's reading of one line in `png`, trimmed.
    static func read(_ png: String) async throws -> String {
        let data = try await Subprocess.output("/usr/bin/env", ["tesseract", png, "-", "--psm", "7"])
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aBurntInTimecodeReadsBackExactly() async throws {
        let scratch = Scratch()
        let input = CLI.media("crowd.mp4"), output = scratch.path("coded.mp4"), stills = scratch.path("stills")
        // The text in an opaque white box wide enough that the crop after it (the middle
        // 500×100 of the 780×500 clip) holds only the box and the line.
        let chain = "text:text=vidfx {timecode}:box=#ffffff:color=#000000:anchor=center:size=40:padding=3,crop:rect=140,200,500,100"
        var r = try await CLI.run(["apply", input, "-e", chain, "-o", output])
        #expect(r.status == 0, "\(r.stderr)")
        // Ticks 0, 8, 15, 21, 30, 45, 59 at 30 fps: each still is taken inside its tick.
        let ticks = [0, 8, 15, 21, 30, 45, 59]
        r = try await CLI.run(["dump", output, "--at", ticks.map { String(format: "%.3f", (Double($0) + 0.3) / 30) }.joined(separator: ","),
                               "-o", stills])
        #expect(r.status == 0, "\(r.stderr)")
        for (n, tick) in ticks.enumerated() {
            let expected = String(format: "vidfx 00:00:%02d:%02d", tick / 30, tick % 30)
            let read = try await Self.read(scratch.path("stills/frame_\(String(format: "%06d", n)).png"))
            #expect(read == expected, "tick \(tick): Tesseract read '\(read)'")
        }
    }

    /// Issue 67 (1): a still at a chosen time carries the cadence's tick at that time, in
    /// its caption and its manifest, as `apply` numbers the same frame (it said tick 0).
    @Test func aStillAtAChosenTimeHasItsTickInTheCaptionAndTheManifest() async throws {
        let scratch = Scratch()
        let input = CLI.media("crowd.mp4"), stills = scratch.path("stills")
        let chain = "text:text=vidfx {timecode} {tick}:box=#ffffff:color=#000000:anchor=center:size=40:padding=3,crop:rect=140,200,500,100"
        let r = try await CLI.run(["dump", input, "--at", "0.5,1.51", "-e", chain, "-o", stills])
        #expect(r.status == 0, "\(r.stderr)")
        for (n, tick) in [15, 45].enumerated() {
            let expected = String(format: "vidfx 00:00:%02d:%02d %d", tick / 30, tick % 30, tick)
            let read = try await Self.read(scratch.path("stills/frame_\(String(format: "%06d", n)).png"))
            #expect(read == expected, "tick \(tick): Tesseract read '\(read)'")
        }
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path("stills/manifest.json"))))
        let frames = ((manifest as? [String: Any])?["frames"] as? [[String: Any]]) ?? []
        #expect(frames.map { $0["tick"] as? Int } == [15, 45], "\(frames)")
    }

    @Test func aCaptionNamesItsInputAndTheSourceTimeFollowsTheSpeed() async throws {
        let scratch = Scratch()
        let input = CLI.media("crowd.mp4"), output = scratch.path("named.mp4"), stills = scratch.path("stills")
        let chain = "text:text='{file} at {source_time}':box=#ffffff:color=#000000:anchor=center:size=30:padding=5,crop:rect=90,200,600,100"
        var r = try await CLI.run(["apply", input, "--speed", "2", "-e", chain, "-o", output])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await CLI.run(["dump", output, "--at", "0.51", "-o", stills])
        #expect(r.status == 0, "\(r.stderr)")
        // Output tick 15 at 30 fps, twice as fast: the source's 1 s.
        let read = try await Self.read(scratch.path("stills/frame_000000.png"))
        #expect(read == "crowd.mp4 at 0:00:01.000", "Tesseract read '\(read)'")
    }

    @Test func badTextAndFontsAreOneLine() async throws {
        let input = CLI.media("h264-30fps.mp4")
        let scratch = Scratch()
        for (chain, words) in [("text:text={timcode}", "unknown template {timcode}"),
                               ("text:font=No Such Family", "no font family 'No Such Family'"),
                               ("text:text='not closed", "is not closed"),
                               ("text:font=/etc/hostname", "not a font")] {
            let r = try await CLI.run(["apply", input, "-e", chain, "-o", scratch.path("x.mp4")])
            #expect(r.status != 0, "\(chain) is refused")
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(chain): \(r.stderr)")
            #expect(r.stderr.contains(words), "\(chain): \(r.stderr)")
        }
    }
}
