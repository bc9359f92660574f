import FrameCore
@testable import FrameSource
import Testing

/// The tick arithmetic alone, on made-up timestamps.
@Suite struct CadenceTests {
    /// Drives a cadence with pictures at `times` ending at `end`; returns the picture index per tick.
    func resample(_ times: [Rational], end: Rational, rate: Rational = Rational(30), limit: Int64? = nil) -> [Int] {
        var cadence = Cadence(rate: rate, limit: limit)
        var shown: [Int] = []
        for (i, t) in times.enumerated() {
            let held = max(i - 1, 0)
            // Ticks before the first picture show the first picture.
            for _ in cadence.ticks(before: t) { shown.append(held) }
        }
        for _ in cadence.ticks(before: end) { shown.append(times.count - 1) }
        return shown
    }

    @Test func twentyFourToThirtyRepeatsEveryFourthFrame() {
        let times = (0..<24).map { Rational(Int64($0), 24) }
        let shown = resample(times, end: Rational(1))
        #expect(shown.count == 30)
        // tick k shows floor(k * 24 / 30)
        #expect(shown == (0..<30).map { $0 * 24 / 30 })
    }

    @Test func sixtyToThirtyTakesEveryOtherFrame() {
        let times = (0..<60).map { Rational(Int64($0), 60) }
        #expect(resample(times, end: Rational(1)) == (0..<30).map { $0 * 2 })
    }

    @Test func ntscRateDriftsAgainstThirty() {
        let times = (0..<90).map { Rational(Int64($0) * 1001, 30000) }
        let shown = resample(times, end: Rational(90 * 1001, 30000))
        #expect(shown.count == 91)  // 3.003 s at 30 fps: ticks 0...90
        #expect(shown == (0..<91).map { min($0 * 1000 / 1001, 89) })
    }

    @Test func frameExactlyOnATickIsShownOnThatTick() {
        // A picture at exactly 1/30 s is on screen at tick 1 (≤, not <).
        let shown = resample([Rational(0), Rational(1, 30)], end: Rational(2, 30))
        #expect(shown == [0, 1])
    }

    @Test func variableRateShowsLatestPictureAtOrBeforeEachTick() {
        let times = [0, 5, 6, 40, 41, 42, 90].map { Rational(Int64($0), 100) }
        let shown = resample(times, end: Rational(1))
        let expected = (0..<30).map { k in times.lastIndex { $0 <= Rational(Int64(k), 30) }! }
        #expect(shown == expected)
    }

    @Test func firstPictureLateStillCoversEarlyTicks() {
        let shown = resample([Rational(1, 10), Rational(2, 10)], end: Rational(3, 10))
        #expect(shown == [0, 0, 0, 0, 0, 0, 1, 1, 1])
    }

    @Test func limitCapsTheTicks() {
        let times = (0..<30).map { Rational(Int64($0), 30) }
        #expect(resample(times, end: Rational(1), limit: 10).count == 10)
    }

    @Test func tickTimesAreExact() {
        let cadence = Cadence(rate: Rational(30000, 1001))
        #expect(cadence.time(ofTick: 30000) == Rational(1001))
        #expect(cadence.firstTick(atOrAfter: Rational(1001)) == 30000)
        #expect(cadence.firstTick(atOrAfter: Rational(1001) + Rational(1, 1_000_000)) == 30001)
    }
}
