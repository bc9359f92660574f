import Foundation

/// High-contrast black and white (spec B15, an approximation of CIPhotoEffectNoir,
/// whose recipe is unpublished): `l = Y709(c)` through the tone curve
/// (0,0) (.25,.15) (.5,.5) (.75,.88) (1,1), out = (l', l', l'). Linear computes `l`
/// in linear light and applies the curve in its gamma-2 version, as ``ToneCurve`` does.
public struct Noir: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "noir", category: .stylize, summary: "Black and white with exaggerated contrast (like Core Image's Noir photo effect).",
        parameters: [ColorSpace.parameter],
        example: "noir"
    )

    /// The curve sampled at 4096 + 1 points of luminance, read with linear interpolation.
    private let curve: [Float]
    private let linear: Bool
    private static let steps = 4096

    public init(parameters: Parameters, resources: EffectResources) throws(EffectError) {
        let spline = try NaturalSpline(x: [0, 0.25, 0.5, 0.75, 1], y: [0, 0.15, 0.5, 0.88, 1], effect: "noir")
        linear = ColorSpace(parameters) == .linear
        let linear = self.linear
        curve = (0...Self.steps).map { i in
            let l = Double(i) / Double(Self.steps)
            if !linear { return Float(spline(l) * 255) }
            let g = spline(l.squareRoot())
            return Float(ColorSpace.encode(g * g) * 255)
        }
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        curve.withUnsafeBufferPointer { table in
            let t = table.baseAddress!, scale = Float(Self.steps)
            @inline(__always) func grey(_ l: Float) -> UInt32 {  // l in 0…1
                let s = (l < 0 ? 0 : (l > 1 ? 1 : l)) * scale
                let i = Int(Int32(s)), j = i < Self.steps ? i + 1 : i
                let v = roundedByte(t[i] + (t[j] - t[i]) * (s - Float(Int32(s))))
                return v << 16 | v << 8 | v
            }
            if linear {
                LinearLight.shared.withTables { lin, _ in
                    for i in 0..<count {
                        let p = pixels[i]
                        let l = 0.2126 * lin[Int((p >> 16) & 0xFF)] + 0.7152 * lin[Int((p >> 8) & 0xFF)] + 0.0722 * lin[Int(p & 0xFF)]
                        pixels[i] = (p & 0xFF00_0000) | grey(l)
                    }
                }
                return
            }
            for i in 0..<count {
                let p = pixels[i]
                let b = Float(Int32(bitPattern: p & 0xFF)), g = Float(Int32(bitPattern: (p >> 8) & 0xFF)), r = Float(Int32(bitPattern: (p >> 16) & 0xFF))
                pixels[i] = (p & 0xFF00_0000) | grey((0.2126 * r + 0.7152 * g + 0.0722 * b) * (1 / 255 as Float))
            }
        }
    }
}
