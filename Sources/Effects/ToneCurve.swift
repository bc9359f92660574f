import Foundation

/// A five-point tone curve on every channel (spec B8, CIToneCurve): a natural cubic
/// spline through the points, held flat outside them and clamped to 0…1. Encoded
/// applies it to the sRGB values; linear follows Core Image, which applies the curve
/// in the gamma-2 version of linear light: `enc(curve(√dec(c))²)`.
public struct ToneCurve: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "tonecurve", category: .tone, summary: "Reshape tones with a smooth curve through five points (Core Image's tone curve).",
        parameters: (0..<5).map { i in
            ParameterSpec.vector(points[i], default: [Double(i) / 4, Double(i) / 4], min: 0, max: 1,
                                 help: "Point \(i) as input,output in 0…1; inputs must increase.")
        } + [ColorSpace.parameter],
        example: "tonecurve:p1=0.25,0.15:p3=0.75,0.88"
    )

    /// The five points' keys, p0…p4.
    private static let points = (0..<5).map { ParameterKey<[Double]>("p\($0)") }

    private let table: ChannelTable

    public init(parameters: Parameters, resources: EffectResources) throws(EffectError) {
        let points = Self.points.map { parameters[$0] }
        let spline = try NaturalSpline(x: points.map { $0[0] }, y: points.map { $0[1] }, effect: "tonecurve")
        let linear = ColorSpace(parameters) == .linear
        table = ChannelTable { v in
            let c = Double(v) / 255
            if !linear { return ColorSpace.quantize(spline(c)) }
            let g = spline(ColorSpace.decode(c).squareRoot())
            return ColorSpace.quantize(ColorSpace.encode(g * g))
        }
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        table.apply(pixels, count: count)
    }
}

/// A natural cubic spline (second derivative zero at both ends) through points with
/// increasing x, held at the end values outside them and clamped to 0…1 (as
/// GPUImage's tone curve and FFmpeg's `curves` build theirs).
struct NaturalSpline: Sendable {
    private let x: [Double], y: [Double]
    /// Second derivatives at the knots.
    private let m: [Double]

    init(x: [Double], y: [Double], effect: String) throws(EffectError) {
        for i in 1..<x.count where !(x[i] > x[i - 1]) {
            throw EffectError("\(effect): point inputs must increase, but p\(i) (\(x[i])) is not above p\(i - 1) (\(x[i - 1]))")
        }
        self.x = x
        self.y = y
        let n = x.count
        var m = [Double](repeating: 0, count: n)
        if n > 2 {
            // Tridiagonal system for m[1..<n-1] (Thomas algorithm); m[0] = m[n-1] = 0.
            var diag = [Double](repeating: 0, count: n), rhs = [Double](repeating: 0, count: n), upper = [Double](repeating: 0, count: n)
            for i in 1..<(n - 1) {
                let h0 = x[i] - x[i - 1], h1 = x[i + 1] - x[i]
                diag[i] = 2 * (h0 + h1)
                upper[i] = h1
                rhs[i] = 6 * ((y[i + 1] - y[i]) / h1 - (y[i] - y[i - 1]) / h0)
                if i > 1 {
                    let w = h0 / diag[i - 1]
                    diag[i] -= w * upper[i - 1]
                    rhs[i] -= w * rhs[i - 1]
                }
            }
            for i in stride(from: n - 2, through: 1, by: -1) {
                m[i] = (rhs[i] - (i < n - 2 ? upper[i] * m[i + 1] : 0)) / diag[i]
            }
        }
        self.m = m
    }

    func callAsFunction(_ t: Double) -> Double {
        let n = x.count
        if t <= x[0] { return min(max(y[0], 0), 1) }
        if t >= x[n - 1] { return min(max(y[n - 1], 0), 1) }
        var i = 0
        while t > x[i + 1] { i += 1 }
        let h = x[i + 1] - x[i], a = (x[i + 1] - t) / h, b = (t - x[i]) / h
        let v = a * y[i] + b * y[i + 1] + ((a * a * a - a) * m[i] + (b * b * b - b) * m[i + 1]) * h * h / 6
        return min(max(v, 0), 1)
    }
}
