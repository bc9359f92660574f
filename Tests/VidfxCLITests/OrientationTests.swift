import Foundation
import TestSupport
import Testing

/// The mirrors and quarter turns (issue 67: the old hint for `hflip` made a black video,
/// and a phone's sideways clip had no way to turn): each frame exactly FFmpeg's own
/// `hflip`, `vflip`, `transpose` (each direction), `hflip,vflip` of vidfx's
/// unchanged frame, and a quarter turn swaps the output's width and height.
@Suite struct OrientationTests {
    /// vidfx's frames at `at` through `chain` (BGRA), and FFmpeg's `filter` over vidfx's
    /// unchanged frames at the same times: what each test compares.
    static func ours(_ chain: String, against filter: String, at: String) async throws -> (ours: Data, ffmpeg: Data) {
        let scratch = try ScratchDirectory("vidfx-orientation")
        let plain = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--at", at, "--format", "bgra", "-o", scratch.path("plain.bgra"), "-q"])
        let made = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--at", at, "-e", chain, "--format", "bgra", "-o", "-", "-q"])
        #expect(plain.status == 0 && made.status == 0, "\(plain.stderr) \(made.stderr)")
        let reference = try await CLIProcess.output("/usr/bin/env", ["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", "bgra", "-s", "320x240",
                                                                     "-i", scratch.path("plain.bgra"), "-vf", filter, "-f", "rawvideo", "-pix_fmt", "bgra", "-"])
        return (made.stdout, reference)
    }

    @Test(arguments: [("hflip", "hflip", 320, 240), ("vflip", "vflip", 320, 240), ("rotate=90", "transpose=clock", 240, 320),
                      ("rotate=180", "hflip,vflip", 320, 240), ("rotate=270", "transpose=cclock", 240, 320),
                      ("transpose", "transpose", 240, 320), ("transpose=clock", "transpose=clock", 240, 320),
                      ("transpose=cclock", "transpose=cclock", 240, 320), ("transpose=clock_flip", "transpose=clock_flip", 240, 320)])
    func eachIsFFmpegsOwn(chain: String, filter: String, width: Int, height: Int) async throws {
        let (turned, reference) = try await Self.ours(chain, against: filter, at: "0.5,2")
        #expect(turned.count == width * height * 4 * 2 && turned == reference, "\(chain): \(turned.count) bytes")
        let scratch = try ScratchDirectory("vidfx-orientation")
        // An encoded render has the turned size.
        let out = scratch.path("turned.mp4")
        let applied = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-e", chain, "-o", out, "--duration", "0.5", "-q"])
        #expect(applied.status == 0, "\(applied.stderr)")
        let probe = try await Probe(out)
        #expect(probe.video["width"] == String(width) && probe.video["height"] == String(height))
    }

    /// `pad` is FFmpeg's `pad` of vidfx's unchanged frame, byte for byte: to a size, to an
    /// aspect each way, at a corner, in a colour (issue 67: a phone's portrait clip on a
    /// 16:9 canvas had no effect to do it).
    @Test(arguments: [("pad:width=400:height=300", "pad=400:300:(ow-iw)/2:(oh-ih)/2:color=black", 400, 300),
                      ("pad:aspect=16/9:color=#336699", "setsar=1,pad=aspect=16/9:x=(ow-iw)/2:y=(oh-ih)/2:color=0x336699", 427, 240),
                      ("pad:aspect=9/16", "setsar=1,pad=aspect=9/16:x=(ow-iw)/2:y=(oh-ih)/2", 320, 569),
                      ("pad:width=401:height=243:x=0:y=1:color=#ff0000", "pad=401:243:0:oh-ih:color=red", 401, 243)])
    func padIsFFmpegsOwn(chain: String, filter: String, width: Int, height: Int) async throws {
        let (padded, reference) = try await Self.ours(chain, against: filter, at: "0.5")
        #expect(padded.count == width * height * 4 && padded == reference, "\(chain): \(padded.count) bytes against \(reference.count)")
    }

    /// `rotate` by any other angle turns within the frame's size, clockwise, as FFmpeg's
    /// `rotate` of vidfx's unchanged frame: within a level where the turned picture is (a
    /// pixel and a half from its edges), the fill colour exactly where it is not (the
    /// band between, where the two round the edge differently, is left out).
    @Test(arguments: [30.0, -17.5, 135.0])
    func rotateByAnyAngleIsFFmpegsRotate(degrees: Double) async throws {
        let (turned, reference) = try await Self.ours("rotate:angle=\(degrees):fill=#336699", against: "rotate=\(degrees)*PI/180:c=0x336699", at: "0.5")
        try #require(turned.count == 320 * 240 * 4 && reference.count == turned.count, "\(turned.count) bytes against \(reference.count)")
        let a = degrees * .pi / 180
        var inside = 0, outside = 0, most = 0
        for y in 0..<240 {
            for x in 0..<320 {
                let (dx, dy) = (Double(x) + 0.5 - 160, Double(y) + 0.5 - 120)
                let (sx, sy) = (160 + cos(a) * dx + sin(a) * dy, 120 - sin(a) * dx + cos(a) * dy)
                let i = (y * 320 + x) * 4
                if sx > 1.5, sy > 1.5, sx < 318.5, sy < 238.5 {
                    inside += 1
                    for c in 0..<4 { most = max(most, abs(Int(turned[i + c]) - Int(reference[i + c]))) }
                } else if sx < -1.5 || sy < -1.5 || sx > 321.5 || sy > 241.5 {
                    outside += 1
                    #expect(Array(turned[i..<i + 4]) == [0x99, 0x66, 0x33, 0xFF], "(\(x), \(y)) is not the fill")
                    if Array(turned[i..<i + 4]) != [0x99, 0x66, 0x33, 0xFF] { return }
                }
            }
        }
        #expect(inside > 30_000 && outside > 5_000 && most <= 1, "\(degrees)°: \(most) levels from FFmpeg's rotate")
    }

    /// A whole number of quarter turns, however written, is the exact turn.
    @Test func quarterTurnsHoweverWritten() async throws {
        let (a, _) = try await Self.ours("rotate:angle=-90", against: "null", at: "0.5")
        let (b, _) = try await Self.ours("rotate=270", against: "null", at: "0.5")
        let (c, plain) = try await Self.ours("rotate=360", against: "null", at: "0.5")
        #expect(a.count == 240 * 320 * 4 && a == b && c == plain)
    }

    /// The names people bring point to them.
    @Test func foreignNamesPointToThem() async throws {
        for (name, said) in [("cirotate", "rotate:angle="), ("mirror", "hflip"), ("flip", "vflip")] {
            let r = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--at", "1", "-e", name, "--format", "bgra", "-o", "-"])
            #expect(r.status == 2 && r.stderr.contains(said), "\(name): \(r.stderr)")
        }
    }
}
