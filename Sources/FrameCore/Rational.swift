/// An exact fraction, used for frame rates and for times that must not drift
/// (tick `k` at `N` fps is `k/N` seconds, exactly).
public struct Rational: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The numerator; carries the sign.
    public let numerator: Int64
    /// The denominator; always positive.
    public let denominator: Int64

    /// Creates `numerator/denominator` in lowest terms.
    /// - Precondition: `denominator != 0`.
    public init(_ numerator: Int64, _ denominator: Int64) {
        precondition(denominator != 0, "Rational with zero denominator")
        var n = numerator, d = denominator
        if d < 0 { n = -n; d = -d }
        let g = Rational.gcd(n.magnitude, d.magnitude)
        if g > 1 { n /= Int64(g); d /= Int64(g) }
        self.numerator = n
        self.denominator = d
    }

    /// A whole number.
    public init(_ value: Int64) { self.init(value, 1) }

    /// Parses `30`, `29.97`, `30000/1001` or `0.5`. Decimals are taken exactly
    /// (`29.97` is `2997/100`), except that the NTSC rates `23.976`, `29.97`, `59.94`
    /// and `119.88` mean `N*1000/1001`, as every video tool reads them.
    public init?(_ text: String) {
        let t = text.trimmingCharacters(in: " ")
        if let slash = t.firstIndex(of: "/") {
            // Int64.min has no positive counterpart, so its sign cannot be normalised.
            guard let n = Int64(t[..<slash]), let d = Int64(t[t.index(after: slash)...]), d != 0,
                  n != .min, d != .min else { return nil }
            self.init(n, d)
            return
        }
        switch t {
        case "23.976", "23.98": self.init(24000, 1001); return
        case "29.97": self.init(30000, 1001); return
        case "59.94": self.init(60000, 1001); return
        case "119.88": self.init(120000, 1001); return
        default: break
        }
        let parts = t.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, !t.isEmpty else { return nil }
        let negative = t.hasPrefix("-")
        guard let whole = parts[0].isEmpty || parts[0] == "-" ? 0 : Int64(parts[0]) else { return nil }
        guard parts.count == 2 else { self.init(whole, 1); return }
        let fraction = parts[1]
        guard fraction.count <= 9, fraction.allSatisfy(\.isASCII), let f = Int64(fraction.isEmpty ? "0" : String(fraction)), f >= 0 else { return nil }
        var scale: Int64 = 1
        for _ in 0..<fraction.count { scale *= 10 }
        let (scaled, overflow) = whole.multipliedReportingOverflow(by: scale)
        let (value, overflow2) = scaled.addingReportingOverflow(negative ? -f : f)
        guard !overflow, !overflow2 else { return nil }
        self.init(value, scale)
    }

    /// The value as a floating-point number (for display and arithmetic that may round).
    public var seconds: Double { Double(numerator) / Double(denominator) }

    /// `numerator/denominator`, or just the numerator for whole numbers.
    public var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }

    public static func < (a: Rational, b: Rational) -> Bool {
        Int128(a.numerator) * Int128(b.denominator) < Int128(b.numerator) * Int128(a.denominator)
    }

    /// `a + b`, exact.
    public static func + (a: Rational, b: Rational) -> Rational {
        Rational(a.numerator * b.denominator + b.numerator * a.denominator, a.denominator * b.denominator)
    }

    /// `a - b`, exact.
    public static func - (a: Rational, b: Rational) -> Rational {
        Rational(a.numerator * b.denominator - b.numerator * a.denominator, a.denominator * b.denominator)
    }

    /// `-a`.
    public static prefix func - (a: Rational) -> Rational { Rational(-a.numerator, a.denominator) }

    /// `a × k`, exact.
    public static func * (a: Rational, k: Int64) -> Rational { Rational(a.numerator * k, a.denominator) }

    /// `a × b`, exact.
    public static func * (a: Rational, b: Rational) -> Rational {
        Rational(a.numerator * b.numerator, a.denominator * b.denominator)
    }

    /// `a / b`, exact.
    /// - Precondition: `b ≠ 0`.
    public static func / (a: Rational, b: Rational) -> Rational {
        let sign: Int64 = b.numerator < 0 ? -1 : 1
        return Rational(a.numerator * b.denominator * sign, a.denominator * b.numerator * sign)
    }

    /// How many whole `unit`s fit in this value, rounded down: a time in seconds as a
    /// timestamp in a time base (`unit` = seconds per tick).
    /// - Precondition: `unit > 0`.
    public func floor(in unit: Rational) -> Int64 {
        let num = Int128(numerator) * Int128(unit.denominator)
        let den = Int128(denominator) * Int128(unit.numerator)
        var q = num / den
        if num % den != 0, num < 0 { q -= 1 }
        return Int64(clamping: q)
    }

    /// The reciprocal.
    public var inverse: Rational { Rational(denominator, numerator) }

    private static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}

extension String {
    fileprivate func trimmingCharacters(in character: Character) -> Substring {
        var s = Substring(self)
        while s.first == character { s.removeFirst() }
        while s.last == character { s.removeLast() }
        return s
    }
}
