import FrameCore

/// The tick arithmetic of a constant output rate: tick `k` is at exactly `k / rate`
/// seconds, and shows the latest picture whose time is at or before that instant.
///
/// The resampler keeps the picture currently on screen ("held"). When a new picture
/// arrives at time `t`, the held one is shown on every tick before `t`
/// (``ticks(before:)``); at the end of the clip it is shown on every tick before the
/// clip's end. That is ffmpeg's `fps=N:round=up`.
struct Cadence: Sendable {
    /// Output ticks per second.
    let rate: Rational
    /// Ticks at or past this index are never produced (a total output limit).
    let limit: Int64?
    /// The next tick to be produced.
    private(set) var next: Int64 = 0

    init(rate: Rational, limit: Int64? = nil) {
        precondition(rate.numerator > 0, "frame rate must be positive")
        self.rate = rate
        self.limit = limit
    }

    /// Smallest `k` with `k / rate >= t`, i.e. `ceil(t × rate)`.
    func firstTick(atOrAfter t: Rational) -> Int64 {
        let num = Int128(t.numerator) * Int128(rate.numerator)
        let den = Int128(t.denominator) * Int128(rate.denominator)
        var q = num / den
        if num % den != 0, num > 0 { q += 1 }
        return Int64(clamping: q)
    }

    /// The ticks that fall before time `t` and have not been produced yet; marks them produced.
    mutating func ticks(before t: Rational) -> Range<Int64> {
        var end = max(next, firstTick(atOrAfter: t))
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
