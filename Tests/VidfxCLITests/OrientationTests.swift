import Foundation
import TestSupport
import Testing

/// The mirrors and quarter turns (issue 67: the old hint for `hflip` made a black video,
/// and a phone's sideways clip had no way to turn): each frame exactly FFmpeg's own
/// `hflip`, `vflip`, `transpose` (each direction), `hflip,vflip` of vidfx's
/// unchanged frame, and a quarter turn swaps the output's width and height.
@Suite struct OrientationTests {
    @Test(arguments: [("hflip", "hflip", 320, 240), ("vflip", "vflip", 320, 240), ("rotate=90", "transpose=clock", 240, 320),
                      ("rotate=180", "hflip,vflip", 320, 240), ("rotate=270", "transpose=cclock", 240, 320),
                      ("transpose", "transpose", 240, 320), ("transpose=clock", "transpose=clock", 240, 320),
                      ("transpose=cclock", "transpose=cclock", 240, 320), ("transpose=clock_flip", "transpose=clock_flip", 240, 320)])
    func eachIsFFmpegsOwn(chain: String, filter: String, width: Int, height: Int) async throws {
        let scratch = try ScratchDirectory("vidfx-orientation")
        let plain = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--at", "0.5,2", "--format", "bgra", "-o", scratch.path("plain.bgra"), "-q"])
        let turned = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--at", "0.5,2", "-e", chain, "--format", "bgra", "-o", "-", "-q"])
        #expect(plain.status == 0 && turned.status == 0, "\(plain.stderr) \(turned.stderr)")
        let reference = try await CLIProcess.output("/usr/bin/env", ["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", "bgra", "-s", "320x240",
                                                                     "-i", scratch.path("plain.bgra"), "-vf", filter, "-f", "rawvideo", "-pix_fmt", "bgra", "-"])
        #expect(turned.stdout.count == width * height * 4 * 2 && turned.stdout == reference, "\(chain): \(turned.stdout.count) bytes")
        // An encoded render has the turned size.
        let out = scratch.path("turned.mp4")
        let applied = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-e", chain, "-o", out, "--duration", "0.5", "-q"])
        #expect(applied.status == 0, "\(applied.stderr)")
        let probe = try await Probe(out)
        #expect(probe.video["width"] == String(width) && probe.video["height"] == String(height))
    }

    /// The names people bring point to them.
    @Test func foreignNamesPointToThem() async throws {
        for (name, said) in [("cirotate", "rotate=90|180|270"), ("mirror", "hflip"), ("flip", "vflip")] {
            let r = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--at", "1", "-e", name, "--format", "bgra", "-o", "-"])
            #expect(r.status == 2 && r.stderr.contains(said), "\(name): \(r.stderr)")
        }
    }
}
