import Foundation
import TestSupport
import Testing

/// `fade` (issue 48): the picture's ramps are ffmpeg's `fade` to the byte, the frames
/// outside them are the plain frames, and `apply` fades the sound over the same times
/// as `afade` does, in sync.
@Suite struct FadeTests {
    /// The red, green and blue bytes of each frame of a raw BGRA file (alpha left out:
    /// ffmpeg's black fade on packed RGB fades the alpha byte too).
    static func frames(_ path: String, width: Int, height: Int) throws -> [[UInt8]] {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let size = width * height * 4
        return stride(from: 0, to: bytes.count - size + 1, by: size).map { start in
            var rgb: [UInt8] = []
            rgb.reserveCapacity(width * height * 3)
            for i in Swift.stride(from: start, to: start + size, by: 4) { rgb += bytes[i..<(i + 3)] }
            return rgb
        }
    }

    @Test(arguments: [("fade:in=1:out=1", "fade=t=in:st=0:d=1,fade=t=out:st=2:d=1"),
                      ("fade:in=0.5:color=#FF8020", "fade=t=in:st=0:d=0.5:c=0xFF8020")])
    func theRampIsFfmpegsFade(chain: String, filter: String) async throws {
        let scratch = Scratch()
        let input = CLI.media("h264-30fps.mp4")
        let ours = scratch.path("ours.bgra"), plain = scratch.path("plain.bgra"), theirs = scratch.path("theirs.bgra")
        var r = try await CLI.run(["dump", input, "-e", chain, "--format", "bgra", "-o", ours])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await CLI.run(["dump", input, "--format", "bgra", "-o", plain])
        #expect(r.status == 0, "\(r.stderr)")
        _ = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", CLI.directory.appendingPathComponent(input).path,
                                                        "-vf", "fps=30:round=up,format=bgra,\(filter)", "-f", "rawvideo", theirs])
        let a = try Self.frames(ours, width: 320, height: 240), b = try Self.frames(theirs, width: 320, height: 240)
        let p = try Self.frames(plain, width: 320, height: 240)
        #expect(a.count == 90 && b.count == 90 && p.count == 90)
        let differing = zip(a, b).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(differing.isEmpty, "frames unlike ffmpeg's fade: \(differing)")
        // The first frame is the colour; from the end of the fade in, the plain frames.
        #expect(Set(a[0]).count <= 3, "the first frame is one colour")
        let fadeInEnds = chain.contains("in=1") ? 30 : 15
        let fadeOutStarts = chain.contains("out=1") ? 61 : 90
        for k in (fadeInEnds + 1)..<fadeOutStarts { #expect(a[k] == p[k], "frame \(k) is the plain frame") }
        #expect(a[fadeInEnds - 1] != p[fadeInEnds - 1], "the ramp runs to its end")
    }

    /// A still is the frame of the whole render at its tick, fade out included: `dump
    /// --at T` and the studio's stills (both the library's `Renderer.still`) give the
    /// bytes `dump` of the whole clip gives for that tick, and the preview does too.
    @Test func aStillNearTheEndIsFadedAsTheRendersFrame() async throws {
        let scratch = Scratch()
        let input = CLI.media("h264-30fps.mp4")
        let chain = "fade:in=1:out=1"
        let whole = scratch.path("whole.bgra")
        var r = try await CLI.run(["dump", input, "-e", chain, "--format", "bgra", "-o", whole])
        #expect(r.status == 0, "\(r.stderr)")
        let frames = try Self.frames(whole, width: 320, height: 240)
        for tick in [5, 45, 80, 89] {
            let still = scratch.path("at-\(tick).bgra")
            r = try await CLI.run(["dump", input, "--at", String(format: "%.6f", Double(tick) / 30), "-e", chain, "--format", "bgra", "-o", still])
            #expect(r.status == 0, "\(r.stderr)")
            let at = try Self.frames(still, width: 320, height: 240)
            #expect(at.count == 1 && at.first == frames[tick], "tick \(tick)")
        }
        // Near the end the picture is mostly black, as the render's frame is.
        let last = frames[89].reduce(0) { $0 + Int($1) } / frames[89].count
        let middle = frames[45].reduce(0) { $0 + Int($1) } / frames[45].count
        #expect(last * 10 < middle, "the last frame's mean \(last), the middle's \(middle)")
    }

    /// The sound's gain over 20 ms windows of a steady tone, as the ratio of the faded
    /// output's level to the source's, against `afade`'s on the same windows.
    @Test func theSoundFadesAsAfadeDoesAndStaysInSync() async throws {
        let scratch = Scratch()
        let input = CLI.media("h264-30fps.mp4"), output = scratch.path("faded.mp4")
        let r = try await CLI.run(["apply", input, "-e", "fade:in=1:out=1", "-o", output])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("transcoded"), "a fade cannot copy the sound: \(r.stderr)")
        func samples(_ path: String, _ filter: [String] = []) async throws -> [Float] {
            let data = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", path] + filter
                                                   + ["-ac", "1", "-ar", "48000", "-f", "f32le", "-"])
            return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        }
        let source = CLI.directory.appendingPathComponent(input).path
        let ours = try await samples(output), plain = try await samples(source)
        let theirs = try await samples(source, ["-af", "afade=t=in:d=1,afade=t=out:st=2:d=1"])
        let window = 960
        var worst = 0.0, compared = 0
        for start in stride(from: 0, to: min(ours.count, plain.count, theirs.count) - window, by: window) {
            func rms(_ s: [Float]) -> Double { (s[start..<(start + window)].reduce(0) { $0 + Double($1) * Double($1) } / Double(window)).squareRoot() }
            let level = rms(plain)
            guard level > 0.01 else { continue }
            worst = max(worst, abs(rms(ours) / level - rms(theirs) / level))
            compared += 1
        }
        #expect(compared > 100)
        #expect(worst <= 0.01, "the gain strays \(worst) from afade's")
        try await CLIProcess.expectInSync(output)
    }
}
