import FrameCore

/// The tick arithmetic of a constant output rate: tick `k` is at exactly `k / rate`
/// seconds, and shows the latest picture whose time is at or before that instant.
///
/// The resampler keeps the picture currently on screen ("held"). When a new picture
/// arrives at time `t`, the held one is shown on every tick before `t`
/// (``ticks(before:)``); at the end of the clip it is shown on every tick before the
/// clip's end. That is ffmpeg's `fps=N:round=up`; with ``FrameSource/TickRounding/near``
/// a picture starts on the tick nearest its time instead (`round=near`), and the clip's
/// end is rounded the same way.
struct Cadence: Sendable {
    /// Output ticks per second.
    let rate: Rational
    /// Ticks at or past this index are never produced (a total output limit).
    let limit: Int64?
    /// The next tick to be produced.
    private(set) var next: Int64 = 0

    /// Which tick a picture's time starts it on.
    let rounding: FrameSource.TickRounding

    init(rate: Rational, limit: Int64? = nil, rounding: FrameSource.TickRounding = .up) {
        precondition(rate.numerator > 0, "frame rate must be positive")
        self.rate = rate
        self.limit = limit
        self.rounding = rounding
    }

    /// The tick a picture at time `t` starts on: ``firstTick(atOrAfter:)`` rounding up,
    /// `⌊t × rate + ½⌋` rounding near (halves away from zero, as `av_rescale_q_rnd`).
    func startTick(of t: Rational) -> Int64 {
        guard rounding == .near else { return firstTick(atOrAfter: t) }
        let num = 2 * Int128(t.numerator) * Int128(rate.numerator) + Int128(t.denominator) * Int128(rate.denominator)
        let den = 2 * Int128(t.denominator) * Int128(rate.denominator)
        var q = num / den
        if num % den != 0, num < 0 { q -= 1 }  // floor, for a time before 0
        return Int64(clamping: q)
    }

    /// Smallest `k` with `k / rate >= t`, i.e. `ceil(t × rate)`.
    func firstTick(atOrAfter t: Rational) -> Int64 {
        let num = Int128(t.numerator) * Int128(rate.numerator)
        let den = Int128(t.denominator) * Int128(rate.denominator)
        var q = num / den
        if num % den != 0, num > 0 { q += 1 }
        return Int64(clamping: q)
    }

    /// The ticks before the one a picture at time `t` starts on that have not been
    /// produced yet; marks them produced.
    mutating func ticks(before t: Rational) -> Range<Int64> {
        var end = max(next, startTick(of: t))
        if let limit { end = min(end, max(limit, next)) }
        let range = next..<end
        next = end
        return range
    }

    /// True when the output limit has been reached.
    var isExhausted: Bool { limit.map { next >= $0 } ?? false }

    /// Time of tick `k`.
    func time(ofTick k: Int64) -> Rational { rate.inverse * k }
}
