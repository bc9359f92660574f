import Foundation
import TestSupport
import Testing

/// Transparency from the formats that carry it (VP9 in WebM, ProRes 4444, PNG) through
/// dump and apply: kept where the output can, composited over --background otherwise.
/// The clips are a test pattern, opaque on the left half and 25% opaque on the right.
@Suite struct AlphaTests {
    final class Clips: Sendable {
        let scratch: ScratchDirectory
        init() throws { scratch = try ScratchDirectory("vidfx-alpha") }
        func path(_ name: String) -> String { scratch.path(name) }
        func ffmpeg(_ a: [String]) async throws -> Data { try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-y"] + a) }

        /// `name` encoded with `codec` options from the half-transparent pattern.
        func make(_ name: String, _ codec: [String]) async throws -> String {
            _ = try await ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:d=1,format=yuva444p,geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':a='if(lt(X,160),255,64)'"]
                           + codec + [path(name)])
            return path(name)
        }

        /// Mean alpha of the left and right halves of the picture vidfx dumps at 0.5 s.
        func alphaHalves(_ input: String, _ options: [String] = []) async throws -> (left: Double, right: Double, png: Data) {
            let out = path("still-\(UUID().uuidString)")
            let r = try await CLI.run(["dump", input, "--at", "0.5", "-o", out, "-q"] + options)
            #expect(r.status == 0, "\(r.stderr)")
            let png = out + "/frame_000000.png"
            let alpha = try await ffmpeg(["-i", png, "-vf", "format=rgba,alphaextract,format=gray", "-f", "rawvideo", "-"])
            func mean(_ xs: Range<Int>) -> Double {
                var sum = 0.0
                for y in 0..<240 { for x in xs { sum += Double(alpha[y * 320 + x]) } }
                return sum / Double(240 * xs.count)
            }
            return (mean(0..<150), mean(170..<320), try await ffmpeg(["-i", png, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]))
        }
    }

    @Test(arguments: [("vp9.webm", ["-c:v", "libvpx-vp9", "-pix_fmt", "yuva420p"]),
                      ("prores.mov", ["-c:v", "prores_ks", "-profile:v", "4444", "-pix_fmt", "yuva444p10le"]),
                      ("still.png", ["-frames:v", "1", "-pix_fmt", "rgba"])])
    func inputsKeepTheirAlpha(name: String, codec: [String]) async throws {
        let clips = try Clips()
        let input = try await clips.make(name, codec)
        let plain = try await clips.alphaHalves(input)
        #expect(abs(plain.left - 255) < 1 && abs(plain.right - 64) < 2, "\(name): \(plain.left), \(plain.right)")
        // A colour effect changes the colour, never the alpha.
        let sepia = try await clips.alphaHalves(input, ["-e", "sepia"])
        #expect(abs(sepia.left - 255) < 1 && abs(sepia.right - 64) < 2, "\(name) with sepia: \(sepia.left), \(sepia.right)")
    }

    @Test(arguments: [("out.mov", "prores", "yuva444p"), ("out.webm", "vp9", "yuv420p")])
    func applyKeepsAlphaWhereTheOutputCan(output: String, codec: String, pixelFormat: String) async throws {
        let clips = try Clips()
        let input = try await clips.make("in.webm", ["-c:v", "libvpx-vp9", "-pix_fmt", "yuva420p"])
        let r = try await CLI.run(["apply", input, "-o", clips.path(output), "--codec", codec])
        #expect(r.status == 0 && !r.stderr.contains("composited"), "\(r.stderr)")
        let probe = String(decoding: try await Subprocess.output("/usr/bin/env", ["ffprobe", "-v", "error", "-show_entries", "stream=pix_fmt:stream_tags=alpha_mode",
                                                                           "-of", "default=nw=1", clips.path(output)]), as: UTF8.self)
        #expect(probe.contains(pixelFormat), "\(probe)")
        if codec == "vp9" { #expect(probe.contains("alpha_mode=1"), "\(probe)") }
        let back = try await clips.alphaHalves(clips.path(output))
        #expect(abs(back.left - 255) < 1 && abs(back.right - 64) < 3, "\(output): \(back.left), \(back.right)")
    }

    @Test func applyToH264CompositesOverTheBackgroundAndSaysSoOnce() async throws {
        let clips = try Clips()
        let input = try await clips.make("in.webm", ["-c:v", "libvpx-vp9", "-pix_fmt", "yuva420p"])
        let black = try await CLI.run(["apply", input, "-o", clips.path("black.mp4")])
        #expect(black.status == 0)
        #expect(black.stderr.components(separatedBy: "composited over black").count == 2, "\(black.stderr)")
        let white = try await CLI.run(["apply", input, "-o", clips.path("white.mp4"), "--background", "#FFFFFF"])
        #expect(white.status == 0 && white.stderr.contains("composited over #FFFFFF"), "\(white.stderr)")
        let b = try await clips.alphaHalves(clips.path("black.mp4")), w = try await clips.alphaHalves(clips.path("white.mp4"))
        #expect(b.right == 255 && w.right == 255, "opaque output")
        // The left half is opaque: the same over either colour; the right half is mostly background.
        func mean(_ rgb: Data, _ xs: Range<Int>) -> Double {
            var sum = 0.0
            for y in 0..<240 { for x in xs { for c in 0..<3 { sum += Double(rgb[(y * 320 + x) * 3 + c]) } } }
            return sum / Double(240 * xs.count * 3)
        }
        #expect(abs(mean(b.png, 0..<150) - mean(w.png, 0..<150)) < 3)
        #expect(mean(w.png, 170..<320) - mean(b.png, 170..<320) > 150, "white \(mean(w.png, 170..<320)), black \(mean(b.png, 170..<320))")
        #expect(try await CLI.run(["apply", input, "-o", clips.path("x.mp4"), "--background", "nonsense"]).status == 64)
    }
}
