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

    /// A reader kept open between requests (the studio's) is not timed out by the pause
    /// between them: the network timeout is for a stalled input, and the first read after
    /// a pause longer than it once came back as "no picture".
    @Test func aPauseLongerThanTheTimeoutIsNotAStall() async throws {
        var network = MediaInput.Network()
        network.timeout = .milliseconds(200)
        let media = try MediaInput(TestMedia.path("h264-30fps.mp4"), access: .seekable, network: network)
        let stills = try StillReader(input: media)
        #expect(try stills.picture(at: Rational(1, 2)) != nil)
        for t in [Rational(2, 3), Rational(1, 10), Rational(2)] {
            try await Task.sleep(for: .milliseconds(400))
            let picture = try stills.picture(at: t)
            #expect(picture?.time == t, "\(t.seconds) s after a pause")
        }
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
            // The tick of the 30 fps cadence on screen at t (a caption's {tick}, issue 67).
            #expect(got.tick == Int64((t.seconds * 30 + 1e-9).rounded(.down)), "\(file) at \(t.seconds) s: tick \(got.tick)")
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

    /// Opened for key frames, each request gives the key frame nearest the time (the
    /// earlier of two as near) among those in the range, as a FrameSource decoding key
    /// frames only lists them, whatever the order of the times: the same time and bytes.
    @Test(arguments: ["cuts-vfr.mkv", "interlaced.ts", "vfr.mp4", "h264-30fps.mp4"])
    func keyFramesNearestEachTimeMatchTheKeyFrameList(file: String) throws {
        var c = FrameSource.Configuration()
        c.keyFramesOnly = true
        let source = try FrameSource(TestMedia.path(file), configuration: c)
        var keys: [Frame] = []
        while let key = try source.nextFrame() { keys.append(key) }
        source.close()
        #expect(keys.count >= 2, "\(file) has key frames to choose from")
        let stills = try StillReader(input: try MediaInput(TestMedia.path(file), access: .seekable), configuration: c)
        let duration = try #require(stills.info.duration)
        func distance(_ a: Rational, _ b: Rational) -> Rational { a < b ? b - a : a - b }
        func nearest(_ t: Rational, _ lower: Rational, _ upper: Rational?) -> Frame? {
            keys.filter { key in key.sourceTime >= lower && upper.map { key.sourceTime < $0 } ?? true }
                .min { distance($0.sourceTime, t) < distance($1.sourceTime, t) }  // the first of equals: the earlier
        }
        // Forwards by small and large steps, backwards, repeated, past the end; the
        // midpoints between key frames (a tie goes to the earlier), and ranges that leave
        // out the nearest (the time is always in the range).
        var requests: [(Rational, Rational, Rational?)] = [0.05, 0.2, 0.21, 0.7, 0.3, 0.3, 0.95, 1.5].map {
            (Rational(Int64(($0 * duration * 1000).rounded(.down)), 1000), Rational(0), nil)
        }
        for (a, b) in zip(keys, keys.dropFirst()) { requests.append((Rational((a.sourceTime + b.sourceTime).numerator, (a.sourceTime + b.sourceTime).denominator * 2), Rational(0), nil)) }
        let mid = keys[keys.count / 2].sourceTime
        requests += [(mid + Rational(1, 100), mid + Rational(1, 200), nil), (mid - Rational(1, 100), Rational(0), mid),
                     (mid, mid, mid + Rational(1, 1000)), (Rational(0), Rational(0), Rational(1, 1000))]
        for (t, lower, upper) in requests {
            let want = nearest(t, lower, upper)
            let got = try stills.keyFrame(nearest: t, notBefore: lower, before: upper)
            #expect((got == nil) == (want == nil), "\(file) near \(t.seconds) s in \(lower.seconds)…\(upper?.seconds ?? .infinity)")
            guard let got, let want else { continue }
            #expect(got.sourceTime == want.sourceTime && got.time == want.sourceTime,
                    "\(file) near \(t.seconds) s: the key frame of \(got.sourceTime.seconds) s, expected \(want.sourceTime.seconds) s")
            let same = got.packedBytes() == want.packedBytes()
            #expect(same, "\(file) near \(t.seconds) s: other bytes")
        }
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
