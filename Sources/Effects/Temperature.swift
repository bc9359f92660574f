import Foundation

/// White balance by colour temperature and tint (spec B7, a vidfx definition of
/// CITemperatureAndTint): a Bradford chromatic adaptation from the white of
/// `neutral` (the scene's illuminant) to the white of `target`. Linear applies it to
/// linear light, as Core Image does; encoded applies the same 3×3 matrix to the
/// sRGB values (cheaper, and what a shader on encoded colours would do).
/// A warmer output comes from a higher `neutral`.
public struct Temperature: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "temperature", category: .tone, summary: "White balance: adapt from one colour temperature and tint to another (Core Image's temperature and tint).",
        parameters: [
            .float(Key.neutral, default: 6500, min: 1667, max: 25000, slider: 2000...12000, unit: "K", help: "The scene's white, in kelvin: higher warms the picture."),
            .float(Key.tint, default: 0, min: -150, max: 150, help: "The scene white's tint: positive (magenta) turns the picture greener."),
            .float(Key.target, default: 6500, min: 1667, max: 25000, slider: 2000...12000, unit: "K", help: "The white it becomes, in kelvin."),
            .float(Key.targettint, default: 0, min: -150, max: 150, help: "The tint it becomes."),
            ColorSpace.parameter,
        ],
        example: "temperature=9000"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let neutral = ParameterKey<Double>("neutral")
        static let tint = ParameterKey<Double>("tint")
        static let target = ParameterKey<Double>("target")
        static let targettint = ParameterKey<Double>("targettint")
    }

    /// Row-major 3×3 on (r, g, b); nil when neutral equals target (exact identity).
    private let m: [Float]?
    private let space: ColorSpace
    private let affine: AffineColor?

    public init(parameters: Parameters, resources: EffectResources) {
        space = ColorSpace(parameters)
        let from = (parameters[Key.neutral], parameters[Key.tint])
        let to = (parameters[Key.target], parameters[Key.targettint])
        if from == to {
            m = nil
            affine = nil
            return
        }
        let matrix = Temperature.adaptation(from: from, to: to).map(Float.init)
        m = matrix
        affine = AffineColor(matrix, offset: 0)
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        guard let m, let affine else { return }
        if space == .encoded { return affine.apply(to: pixels, count: count) }
        LinearLight.shared.matrix(pixels, count: count, m)
    }

    /// `S2X⁻¹·MB⁻¹·diag((MB·Wt)/(MB·Wn))·MB·S2X`, row-major.
    static func adaptation(from: (Double, Double), to: (Double, Double)) -> [Double] {
        let mb: [Double] = [0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296]
        let s2x: [Double] = [0.4124564, 0.3575761, 0.1804375, 0.2126729, 0.7151522, 0.0721750, 0.0193339, 0.1191920, 0.9503041]
        let wn = mul(mb, white(from.0, tint: from.1)), wt = mul(mb, white(to.0, tint: to.1))
        let gain: [Double] = [wt[0] / wn[0], 0, 0, 0, wt[1] / wn[1], 0, 0, 0, wt[2] / wn[2]]
        return mul(inverse(s2x), mul(inverse(mb), mul(gain, mul(mb, s2x))))
    }

    /// CIE xy of a Planckian white (Kang 2002), shifted along the isotherm by the tint.
    static func chromaticity(_ kelvin: Double, tint: Double) -> (x: Double, y: Double) {
        func xy(_ t: Double) -> (Double, Double) {
            let t = min(max(t, 1667), 25000)
            let x = t <= 4000
                ? -0.2661239e9 / (t * t * t) - 0.2343589e6 / (t * t) + 0.8776956e3 / t + 0.179910
                : -3.0258469e9 / (t * t * t) + 2.1070379e6 / (t * t) + 0.2226347e3 / t + 0.240390
            let y: Double
            if t <= 2222 { y = -1.1063814 * x * x * x - 1.34811020 * x * x + 2.18555832 * x - 0.20219683 }
            else if t <= 4000 { y = -0.9549476 * x * x * x - 1.37418593 * x * x + 2.09137015 * x - 0.16748867 }
            else { y = 3.0817580 * x * x * x - 5.87338670 * x * x + 3.75112997 * x - 0.37001483 }
            return (x, y)
        }
        func uv(_ p: (Double, Double)) -> (Double, Double) {
            let d = -2 * p.0 + 12 * p.1 + 3
            return (4 * p.0 / d, 6 * p.1 / d)
        }
        let base = xy(kelvin)
        guard tint != 0 else { return base }
        // The isotherm: perpendicular to the locus in CIE 1960 uv, oriented towards +v.
        let u0 = uv(base), u1 = uv(xy(kelvin + 1))
        var n = (-(u1.1 - u0.1), u1.0 - u0.0)
        if n.1 < 0 { n = (-n.0, -n.1) }
        let len = (n.0 * n.0 + n.1 * n.1).squareRoot()
        let s = -tint / 3000
        let u = u0.0 + s * n.0 / len, v = u0.1 + s * n.1 / len
        let d = 2 * u - 8 * v + 4
        return (3 * u / d, 2 * v / d)
    }

    private static func white(_ kelvin: Double, tint: Double) -> [Double] {
        let (x, y) = chromaticity(kelvin, tint: tint)
        return [x / y, 1, (1 - x - y) / y]
    }

    private static func mul(_ a: [Double], _ b: [Double]) -> [Double] {
        if b.count == 3 { return (0..<3).map { i in a[3 * i] * b[0] + a[3 * i + 1] * b[1] + a[3 * i + 2] * b[2] } }
        return (0..<9).map { k in let (i, j) = (k / 3, k % 3); return a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j] }
    }

    private static func inverse(_ m: [Double]) -> [Double] {
        let (a, b, c, d, e, f, g, h, i) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
        let det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
        return [e * i - f * h, c * h - b * i, b * f - c * e,
                f * g - d * i, a * i - c * g, c * d - a * f,
                d * h - e * g, b * g - a * h, a * e - b * d].map { $0 / det }
    }
}
