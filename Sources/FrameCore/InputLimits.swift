/// The bounds of what a user (or a page) may ask for, so that exact time arithmetic
/// (times × time bases × frame rates, in 64 bits) cannot overflow however odd the input.
/// The command line and the studio check every outside number against them.
public enum InputLimits {
    /// The latest time accepted, in seconds: about three years.
    public static let longestTime: Int64 = 100_000_000
    /// The finest time accepted: a microsecond (a time's denominator at most this).
    public static let finestTime: Int64 = 1_000_000
    /// The largest --frames, --loop and similar counts.
    public static let largestCount = 100_000_000
    /// The fastest cadence, in frames per second (also the largest term of a rate's fraction
    /// is finestTime, so 1/1000000 fps is the slowest).
    public static let fastestRate: Int64 = 1000

    /// Whether `value` is a time (or length) vidfx can compute with exactly.
    public static func isWorkableTime(_ value: Rational) -> Bool {
        value.denominator <= finestTime && value.numerator.magnitude <= UInt64(longestTime) * UInt64(value.denominator)
    }

    /// `value` in seconds as an exact time, when it is a finite number of seconds from 0
    /// to ``longestTime``: rounded to the microsecond (what a JSON number can mean), so
    /// `9e18` or `1e-300` never reaches the arithmetic.
    public static func time(seconds value: Double) -> Rational? {
        guard value.isFinite, value >= 0, value <= Double(longestTime) else { return nil }
        return Rational(Int64((value * Double(finestTime)).rounded()), finestTime)
    }
}
