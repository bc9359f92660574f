import Foundation
import Synchronization
import FrameCore
@testable import FrameSource
import Testing

/// Cadence on real clips: which source frame every tick shows, counts, times.
@Suite struct CadenceIdentityTests {
    /// (file, source rate). Frame n of each clip is at n / rate and shows the number n.
    static let constantRates: [(String, Rational)] = [
        ("h264-30fps.mp4", Rational(30)), ("h264-24fps.mp4", Rational(24)), ("h264-25fps.mp4", Rational(25)),
        ("h264-2997fps.mp4", Rational(30000, 1001)), ("h264-60fps.mp4", Rational(60)),
    ]

    @Test(arguments: constantRates)
    func everyTickShowsTheFrameOnScreen(file: String, rate: Rational) throws {
        let frames = try TestMedia.frames(file)
        let sourceCount = Int64(file == "h264-2997fps.mp4" ? 90 : 3 * rate.numerator / rate.denominator)
        let end = rate.inverse * sourceCount
        // Ticks run while k/30 < end.
        let expectedTicks = Cadence(rate: Rational(30)).firstTick(atOrAfter: end)
        #expect(Int64(frames.count) == expectedTicks)
        for (k, frame) in frames.enumerated() {
            let t = Rational(Int64(k), 30)
            // latest n with n / rate <= t
            let n = Int((Int128(t.numerator) * Int128(rate.numerator)) / (Int128(t.denominator) * Int128(rate.denominator)))
            #expect(TestMedia.frameNumber(frame) == n, "tick \(k) of \(file)")
            #expect(frame.tick == Int64(k))
            #expect(frame.time == t)
            #expect(frame.sourceTime == rate.inverse * Int64(n))
        }
    }

    @Test func variableFrameRate() throws {
        // Kept frames of the 60 fps source: n % 7 < 3 or n % 11 == 5, at n / 60 s.
        let kept = (0..<180).filter { $0 % 7 < 3 || $0 % 11 == 5 }
        let frames = try TestMedia.frames("vfr.mp4")
        for (k, frame) in frames.enumerated() {
            let expected = kept.last { $0 <= 2 * k }!
            #expect(TestMedia.frameNumber(frame) == expected, "tick \(k)")
        }
        // The last kept frame (n = 177, 2.95 s) lasts one 60 fps frame: end 2.9667 s → 89 ticks.
        #expect(frames.count == 89)
    }

    @Test func repeatedTicksShareOneConversion() throws {
        let frames = try TestMedia.frames("h264-24fps.mp4")
        let repeats = zip(frames, frames.dropFirst()).filter { $0.sharesPixels(with: $1) }.count
        #expect(repeats == 90 - 72)  // 72 source frames spread over 90 ticks
    }

    /// The consumer gets the only reference to a picture's last tick, so effects can
    /// render in place; earlier repeats share the buffer and must not be written.
    @Test(arguments: [3, 0])
    func lastRepeatOfAPictureIsUniquelyOwned(prefetch: Int) throws {
        let source = try FrameSource(TestMedia.path("h264-24fps.mp4"), configuration: {
            var c = FrameSource.Configuration(); c.prefetch = prefetch; return c
        }())
        defer { source.close() }
        var unique = 0, ticks = 0
        while var frame = try source.nextFrame() {
            ticks += 1
            if frame.isUniquelyReferenced() { unique += 1 }
        }
        #expect(ticks == 90)
        #expect(unique == 72)  // one per source picture
    }

    /// prefetch 0 converts on demand: the same ticks and pixels as reading ahead.
    @Test func demandDrivenSourceDeliversTheSameFrames() throws {
        let ahead = try TestMedia.frames("h264-25fps.mp4")
        let onDemand = try TestMedia.frames("h264-25fps.mp4") { $0.prefetch = 0 }
        #expect(onDemand.count == ahead.count)
        #expect(zip(onDemand, ahead).allSatisfy { $0.tick == $1.tick && $0.sourceTime == $1.sourceTime && $0.packedBytes() == $1.packedBytes() })
    }

    @Test(arguments: [Rational(24), Rational(60), Rational(30000, 1001), Rational(15)])
    func otherOutputRates(rate: Rational) throws {
        let frames = try TestMedia.frames("h264-30fps.mp4") { $0.frameRate = rate }
        #expect(Int64(frames.count) == Cadence(rate: rate).firstTick(atOrAfter: Rational(3)))
        for (k, frame) in frames.enumerated() {
            let t = rate.inverse * Int64(k)
            let n = Int(Int128(t.numerator) * 30 / Int128(t.denominator))
            #expect(TestMedia.frameNumber(frame) == n)
        }
    }
}

/// Byte-for-byte against `ffmpeg -vf fps=30:round=up,format=bgra` on the same file.
@Suite struct FFmpegOracleTests {
    static let cases: [(String, String)] = [
        ("h264-30fps.mp4", ""), ("h264-24fps.mp4", ""), ("h264-25fps.mp4", ""), ("h264-2997fps.mp4", ""),
        ("h264-60fps.mp4", ""), ("vfr.mp4", ""), ("rotated90.mp4", ""), ("mirrored.mp4", ""), ("one-frame.mp4", ""),
        ("tiny-1x1.mp4", ""), ("bars-bt709-10bit.mp4", ""), ("bars-bt601-full.mp4", ""), ("truncated-faststart.mp4", ""),
        // Pixel aspect: ffmpeg keeps 4:3 pixels unless told; we make them square (161 × 4/3 → 215).
        ("odd-161x121-sar4x3.mp4", "scale=215:121,setsar=1,"),
        // 856:855 (ffmpeg's scale to an even height left it): under a pixel of width, kept
        // as stored, so no resampling and ffmpeg's own pixels.
        ("pitch.mp4", ""),
        // The WebM's audio pre-roll puts its container start 7 ms before the first video frame.
        // ffmpeg's timeline starts at the container start; ours at the first video frame.
        ("vp9-opus.webm", "setpts=PTS-STARTPTS,"),
    ]

    @Test(arguments: cases)
    func matchesFFmpeg(file: String, preFilters: String) async throws {
        let frames = try TestMedia.frames(file)
        let reference = try await TestMedia.ffmpegFrames(file, filters: preFilters + "fps=30:round=up,format=bgra")
        let first = try #require(frames.first)
        let frameBytes = first.width * first.height * 4
        #expect(reference.count == frames.count * frameBytes, "frame count: ours \(frames.count), ffmpeg \(reference.count / max(frameBytes, 1))")
        for (k, frame) in frames.enumerated() where (k + 1) * frameBytes <= reference.count {
            let ours = frame.packedBytes()
            let theirs = reference[reference.startIndex + k * frameBytes ..< reference.startIndex + (k + 1) * frameBytes]
            let worst = TestMedia.largestDifference(ours, theirs)
            #expect(worst <= 1, "tick \(k) of \(file): max difference \(worst)")
        }
    }
}

/// Colour bars: decoded values within ±2 of the sRGB colours they were made from.
@Suite struct ColorTests {
    static let top: [(Int, Int, Int)] = [(255, 255, 255), (255, 255, 0), (0, 255, 255), (0, 255, 0), (255, 0, 255), (255, 0, 0), (0, 0, 255), (0, 0, 0)]
    static let bottom: [(Int, Int, Int)] = [(180, 120, 60), (60, 120, 180), (128, 128, 128), (30, 200, 90), (220, 40, 120), (90, 60, 30), (16, 16, 16), (240, 230, 200)]

    func barErrors(_ frame: Frame) -> [String] {
        var errors: [String] = []
        for (row, colors) in [(60, ColorTests.top), (180, ColorTests.bottom)] {
            for (i, c) in colors.enumerated() {
                let p = frame.pixel(x: i * 40 + 20, y: row)
                let d = max(abs(Int(p.r) - c.0), abs(Int(p.g) - c.1), abs(Int(p.b) - c.2))
                if d > 2 || p.a != 255 { errors.append("bar \(i) row \(row): got \(p.r),\(p.g),\(p.b) want \(c)") }
            }
        }
        return errors
    }

    @Test(arguments: ["bars-bt601-limited.mp4", "bars-bt601-full.mp4", "bars-bt709-limited.mp4", "bars-bt709-full.mp4",
                      "bars-bt709-10bit.mp4", "bars-untagged.mp4"])
    func barsDecodeToTheirColours(file: String) throws {
        let frames = try TestMedia.frames(file)
        #expect(frames.count == 15)
        #expect(barErrors(frames[7]) == [])
    }

    @Test func wrongMatrixIsVisiblyWrong() throws {
        // Guards the test above: decoding BT.709 bars as BT.601 must fail it.
        let frames = try TestMedia.frames("bars-bt709-limited.mp4") { $0.colorMatrix = .bt601 }
        #expect(barErrors(frames[0]).count >= 4)
    }

    @Test func overrideDecodesUntaggedAsChosen() throws {
        let auto = try TestMedia.frames("bars-untagged.mp4")[0]
        let forced = try TestMedia.frames("bars-untagged.mp4") { $0.colorMatrix = .bt709 }[0]
        #expect(auto.pixel(x: 60, y: 60).r != forced.pixel(x: 60, y: 60).r)
        let info = try FrameSource(TestMedia.path("bars-untagged.mp4")).info
        #expect(info.video.decodeMatrix == "bt601")
        #expect(info.video.colorMatrix == "unknown")
    }
}

@Suite struct GeometryTests {
    @Test func rotatedClipComesOutUpright() throws {
        let info = try FrameSource(TestMedia.path("rotated90.mp4")).info
        #expect(info.width == 240 && info.height == 320 && info.rotation == 270)
        let frames = try TestMedia.frames("rotated90.mp4")
        #expect(frames.allSatisfy { $0.width == 240 && $0.height == 320 })
        // Stored top half (the number strip, all black in frame 0) is now the left half.
        let left = frames[0].pixel(x: 60, y: 160), right = frames[0].pixel(x: 180, y: 160)
        #expect(left.g < 40 && right.g > 40)
    }

    @Test func nonSquarePixelsAreMadeSquare() throws {
        let frames = try TestMedia.frames("odd-161x121-sar4x3.mp4")
        #expect(frames[0].width == 215 && frames[0].height == 121)
        #expect(frames.enumerated().allSatisfy { TestMedia.frameNumber($1) == $0 })
        let kept = try TestMedia.frames("odd-161x121-sar4x3.mp4") { $0.squarePixels = false }
        #expect(kept[0].width == 161)
        // A ratio that moves the width by less than a pixel is the rounding of a scale.
        #expect(try TestMedia.frames("pitch.mp4")[0].width == 640)
    }

    @Test func onePixelVideo() throws {
        let frames = try TestMedia.frames("tiny-1x1.mp4")
        #expect(frames.count == 15)
        let p = frames[0].pixel(x: 0, y: 0)
        #expect(abs(Int(p.r) - 0xC0) <= 3 && abs(Int(p.g) - 0x40) <= 3 && abs(Int(p.b) - 0x20) <= 3)
    }

    @Test func stillImageIsOneFrameOrHeldForADuration() throws {
        let one = try TestMedia.frames("still.png")
        #expect(one.count == 1 && one[0].width == 64 && one[0].height == 48)
        let held = try TestMedia.frames("still.jpg") { $0.duration = Rational(1) }
        #expect(held.count == 30)
        #expect(held.allSatisfy { $0.sharesPixels(with: held[0]) })
        let looped = try TestMedia.frames("still.png") { $0.duration = Rational(1, 2); $0.loop = .count(3) }
        #expect(looped.count == 45)
    }
}

@Suite struct TimelineTests {
    @Test func startOffsetIsFrameAccurate() throws {
        let all = try TestMedia.frames("h264-25fps.mp4")
        // 0.52 s: frame 13 (0.52 s) is on screen at exactly that time.
        let fromStart = try TestMedia.frames("h264-25fps.mp4") { $0.start = Rational(52, 100) }
        #expect(TestMedia.frameNumber(fromStart[0]) == 13)
        #expect(fromStart[0].time == Rational(0))
        // Between frames: at 0.55 s frame 13 is still showing.
        let between = try TestMedia.frames("h264-25fps.mp4") { $0.start = Rational(55, 100) }
        #expect(TestMedia.frameNumber(between[0]) == 13)
        // Starting on a tick boundary equals the tail of the full run.
        let one = try TestMedia.frames("h264-25fps.mp4") { $0.start = Rational(1) }
        #expect(one.map(TestMedia.frameNumber) == all.dropFirst(30).map(TestMedia.frameNumber))
    }

    @Test func startPastAKeyFrameDecodesFromTheKeyFrame() throws {
        // Key frames every 30 frames; 2.5 s is mid-GOP in the 60 fps clip.
        let frames = try TestMedia.frames("h264-60fps.mp4") { $0.start = Rational(5, 2) }
        #expect(frames.map(TestMedia.frameNumber) == (0..<15).map { 150 + 2 * $0 })
    }

    @Test func durationLimitsTheClip() throws {
        let frames = try TestMedia.frames("h264-30fps.mp4") { $0.start = Rational(1); $0.duration = Rational(1, 2) }
        #expect(frames.map(TestMedia.frameNumber) == Array(30..<45))
    }

    @Test func startPastTheEndIsAnError() throws {
        #expect(throws: FrameSourceError.self) {
            _ = try TestMedia.frames("h264-30fps.mp4") { $0.start = Rational(10) }
        }
    }

    @Test func loopSeamRepeatsAndSkipsNothing() throws {
        let frames = try TestMedia.frames("h264-30fps.mp4") { $0.loop = .count(3) }
        #expect(frames.count == 270)
        #expect(frames.map(TestMedia.frameNumber) == Array(repeating: Array(0..<90), count: 3).flatMap { $0 })
        #expect(frames.map(\.pass) == (0..<270).map { $0 / 90 })
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.time < $1.time && $1.tick == $0.tick + 1 })
    }

    @Test func loopSeamAcrossRatesAndSegment() throws {
        // 24 fps source, 0.5 s to 1.5 s, three times: each pass is 30 ticks of frames 12...35.
        let frames = try TestMedia.frames("h264-24fps.mp4") {
            $0.start = Rational(1, 2); $0.duration = Rational(1); $0.loop = .count(3)
        }
        let pass = (0..<30).map { 12 + $0 * 24 / 30 }
        #expect(frames.map(TestMedia.frameNumber) == pass + pass + pass)
    }

    @Test func loopForeverStopsAtTheOutputLimit() throws {
        let frames = try TestMedia.frames("one-frame.mp4") { $0.loop = .forever; $0.outputLimit = Rational(2) }
        #expect(frames.count == 60)
        #expect(frames.last?.pass == 59)
    }
}

@Suite struct LifecycleTests {
    @Test func asyncSequenceDeliversEveryFrame() async throws {
        let source = try FrameSource(TestMedia.path("h264-25fps.mp4"))
        var numbers: [Int] = []
        for try await frame in source.frames() { numbers.append(TestMedia.frameNumber(frame)) }
        #expect(numbers == (0..<90).map { $0 * 25 / 30 })
        source.close()
    }

    @Test func stopEndsTheSequenceAtTheNextPull() throws {
        let source = try FrameSource(TestMedia.path("h264-30fps.mp4"), configuration: {
            var c = FrameSource.Configuration(); c.loop = .forever; return c
        }())
        for _ in 0..<10 { _ = try source.nextFrame() }
        source.stop()
        #expect(try source.nextFrame() == nil)
        source.close()
    }

    @Test func openAndCloseRepeatedlyReleasesDecoders() throws {
        let before = VideoDecoder.liveCount.load(ordering: .relaxed)
        for i in 0..<100 {
            let source = try FrameSource(TestMedia.path(i % 2 == 0 ? "h264-30fps.mp4" : "vp9-opus.webm"))
            if i % 3 != 0 { for _ in 0..<(i % 7) { _ = try source.nextFrame() } }
            source.close()
        }
        // Other suites run in parallel in this process (the studio's route tests keep
        // decoders open for stills and thumbnails), so the count moves with theirs; a
        // leak here would leave 57 to 100 of ours.
        let after = VideoDecoder.liveCount.load(ordering: .relaxed)
        #expect(after - before < 40, "\(before) decoders before, \(after) after")
    }
}

@Suite struct ErrorTests {
    func openError(_ input: String, configure: (inout FrameSource.Configuration) -> Void = { _ in }) -> FrameSourceError? {
        var c = FrameSource.Configuration()
        configure(&c)
        do {
            let s = try FrameSource(input, configuration: c)
            defer { s.close() }
            while try s.nextFrame() != nil {}
            return nil
        } catch {
            return error
        }
    }

    @Test func missingFile() throws {
        let e = try #require(openError("/nonexistent/clip.mp4"))
        #expect(e.kind == .notFound)
        #expect(e.description == "/nonexistent/clip.mp4: cannot open: no such file")
    }

    @Test func notMedia() throws {
        let e = try #require(openError(TestMedia.path("garbage.mp4")))
        #expect(e.kind == .invalidData)
        #expect(e.description.hasPrefix(TestMedia.path("garbage.mp4") + ": "))
        #expect(!e.description.contains("\n"))
    }

    @Test func truncatedWithoutIndex() throws {
        let e = try #require(openError(TestMedia.path("truncated.mp4")))
        #expect(e.kind == .invalidData)
        #expect(e.reason.contains("moov atom not found"))
    }

    @Test func truncatedWithIndexWarnsAndDecodesWhatIsThere() throws {
        let warnings = WarningLog()
        let frames = try TestMedia.frames("truncated-faststart.mp4") { c in c.warningHandler = { warnings.add($0) } }
        #expect(frames.count > 10 && frames.count < 90)
        #expect(warnings.lines.contains { $0.contains("truncated") })
        let info = try FrameSource(TestMedia.path("truncated-faststart.mp4")).info
        #expect(info.problem?.contains("truncated") == true)
    }

    @Test func audioOnly() throws {
        let e = try #require(openError(TestMedia.path("audio-only.m4a")))
        #expect(e.kind == .noVideoStream)
        #expect(e.reason.contains("audio aac"))
    }

    @Test func badConfiguration() throws {
        #expect(openError(TestMedia.path("h264-30fps.mp4")) { $0.frameRate = Rational(0) }?.kind == .invalidConfiguration)
        #expect(openError(TestMedia.path("h264-30fps.mp4")) { $0.loop = .count(0) }?.kind == .invalidConfiguration)
        #expect(openError(TestMedia.path("h264-30fps.mp4")) { $0.prefetch = -1 }?.kind == .invalidConfiguration)
    }
}

final class WarningLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func add(_ line: String) { lock.withLock { stored.append(line) } }
    var lines: [String] { lock.withLock { stored } }
}

/// Stopping an endless source from another task. Only the stop can end it, so a hang is
/// the failure: the serialized phase, with a limit far beyond the test's worst case.
@Suite(.serialized, .timeLimit(.minutes(5))) struct StopDuringPlaybackRealClockTests {
    @Test func stopFromAnotherTaskDuringEndlessPlayback() async throws {
        let source = try FrameSource(TestMedia.path("h264-30fps.mp4"), configuration: {
            var c = FrameSource.Configuration(); c.loop = .forever; return c
        }())
        let delivered = Atomic<Int>(0)
        let consumer = Task {
            for try await _ in source.frames() { delivered.add(1, ordering: .relaxed) }
        }
        // Let playback get going (the machine may be busy with other suites).
        while delivered.load(ordering: .relaxed) < 3 { try await Task.sleep(for: .milliseconds(10)) }
        source.stop()
        // The source loops forever: the consumer ending at all shows the stop worked
        // (the suite's time limit catches a hang).
        try await consumer.value
        let count = delivered.load(ordering: .relaxed)
        #expect(count >= 3)
        source.close()
    }
}

/// Cancelling the task iterating an endless source (a hang is the failure, as above).
@Suite(.serialized, .timeLimit(.minutes(5))) struct CancelDuringPlaybackRealClockTests {
    @Test func cancellingTheTaskStopsTheSource() async throws {
        let source = try FrameSource(TestMedia.path("h264-30fps.mp4"), configuration: {
            var c = FrameSource.Configuration(); c.loop = .forever; return c
        }())
        let consumer = Task { for try await _ in source.frames() {} }
        try await Task.sleep(for: .milliseconds(100))
        consumer.cancel()
        _ = await consumer.result
        source.close()  // returns only once the decoder is gone
        #expect(try source.nextFrame() == nil)
    }
}
