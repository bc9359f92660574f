import Foundation
import FrameCore
import FrameSource
import MediaInput
import Testing

/// A StillReader's picture at a time is, byte for byte, what a FrameSource started at that
/// time shows on its first tick, whatever the order of the times: forwards (decoded through
/// or sought), backwards, repeated, before the first picture; and nothing past the end.
@Suite struct StillReaderTests {
    /// The first tick of a FrameSource opened at `time`.
    static func oracle(_ file: String, at time: Rational) throws -> Frame? {
        var c = FrameSource.Configuration()
        c.start = time
        c.outputLimit = c.frameRate.inverse
        let source = try FrameSource(TestMedia.path(file), configuration: c)
        defer { source.close() }
        return try source.nextFrame()
    }

    // Rotated, variable frame rate, HDR (tone-mapped), interlaced MPEG-TS (deinterlaced),
    // 29.97 fps, non-square pixels, and real cuts at variable timing.
    @Test(arguments: ["rotated90.mp4", "vfr.mp4", "hlg-10bit.mkv", "interlaced.ts", "h264-2997fps.mp4",
                      "odd-161x121-sar4x3.mp4", "cuts-vfr.mkv"])
    func picturesMatchAFrameSourceOpenedAtEachTime(file: String) throws {
        let media = try MediaInput(TestMedia.path(file), access: .seekable)
        let stills = try StillReader(input: media)
        let duration = try #require(stills.info.duration)
        // Fractions of the clip: forwards by small steps (decoded through) and large ones
        // (sought), backwards, repeated, and exact picture boundaries of a 30 fps cadence.
        let fractions: [Double] = [0.5, 0.52, 0.53, 0.9, 0.1, 0.1, 0, 0.75, 0.3, 0.31, 0.99]
        var times = fractions.map { Rational(Int64(($0 * duration * 1_000_000).rounded(.down)), 1_000_000) }
        times += [Rational(1, 30), Rational(2, 30), Rational(1, 3)]
        for t in times where t.seconds < duration {
            let expected = try Self.oracle(file, at: t)
            let got = try stills.picture(at: t)
            #expect((got == nil) == (expected == nil), "\(file) at \(t.seconds) s: \(got == nil ? "none" : "a picture"), expected \(expected == nil ? "none" : "one")")
            guard let got, let expected else { continue }
            #expect(got.time == t)
            #expect(got.sourceTime == expected.sourceTime, "\(file) at \(t.seconds) s: the picture of \(got.sourceTime.seconds) s, expected \(expected.sourceTime.seconds) s")
            #expect(got.width == expected.width && got.height == expected.height)
            let same = got.packedBytes() == expected.packedBytes()
            #expect(same, "\(file) at \(t.seconds) s: other bytes")
        }
        #expect(try stills.picture(at: Rational(Int64(duration.rounded(.up)) + 5)) == nil, "\(file): a picture past the end")
        // And it still answers after reaching the end.
        let again = try #require(try stills.picture(at: times[0]))
        let same = again.packedBytes() == (try Self.oracle(file, at: times[0]))?.packedBytes()
        #expect(same, "\(file): other bytes at \(times[0].seconds) s after the end")
    }

    @Test func aStreamedPipeIsRefusedWithItsReason() throws {
        let media = try MediaInput("-", access: .stream)
        #expect {
            _ = try StillReader(input: media)
        } throws: { error in
            "\(error)".contains("can seek")
        }
    }
}
