import Foundation

/// Darkens towards the edges, as a lens does: each pixel is scaled by
/// `f = 1 − intensity · smoothstep(radius, radius + softness, r)`, where `r` is its
/// distance from the centre over the half-diagonal (0 at the centre, 1 at the corners
/// of a centred vignette) and `smoothstep(a, b, v) = t²(3 − 2t)`, `t = clamp((v − a)/(b − a))`.
///
/// In linear light by default (`enc(dec(c)·f)`, as light falls off in a lens and as Core
/// Image's CIVignette works); `space=encoded` scales the sRGB values instead. Alpha is kept.
public struct Vignette: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "vignette", category: .tone, summary: "Darken towards the edges, as a lens does.",
        parameters: [
            .float(Key.intensity, default: 0.5, min: 0, max: 1, help: "How dark the edge gets: 0 none, 1 black."),
            .float(Key.radius, default: 0.5, min: 0, max: 1.5, help: "Where darkening begins, as a fraction of the half-diagonal (1 reaches the corners)."),
            .float(Key.softness, default: 0.5, min: 0.01, max: 2, help: "How far beyond the radius the darkening reaches its full intensity."),
            .float(Key.x, default: 0.5, min: 0, max: 1, help: "Centre, as a fraction of the width from the left."),
            .float(Key.y, default: 0.5, min: 0, max: 1, help: "Centre, as a fraction of the height from the top."),
            .choice(ColorSpace.key, default: .linear,
                    help: "linear: in linear light, as a lens and Core Image darken; encoded: scale the sRGB values."),
        ],
        example: "vignette:intensity=0.6:radius=0.4"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let intensity = ParameterKey<Double>("intensity")
        static let radius = ParameterKey<Double>("radius")
        static let softness = ParameterKey<Double>("softness")
        static let x = ParameterKey<Double>("x")
        static let y = ParameterKey<Double>("y")
    }

    private let intensity: Float
    private let radius: Float
    private let softness: Float
    private let cx: Float
    private let cy: Float
    private let linear: Bool

    public init(parameters: Parameters, resources: EffectResources) {
        intensity = Float(parameters[Key.intensity])
        radius = Float(parameters[Key.radius])
        softness = Float(parameters[Key.softness])
        cx = Float(parameters[Key.x])
        cy = Float(parameters[Key.y])
        linear = ColorSpace(parameters) == .linear
    }

    /// The scale of the pixel in column `x`, with `dy2` the square of its row's distance
    /// from the centre; nil inside the radius, where nothing changes (no square root).
    @inline(__always)
    private func factor(dy2: Float, x: Int, centerX: Float, inverseHalfDiagonal: Float, inside: Float) -> Float? {
        let dx = Float(x) + 0.5 - centerX
        let d2 = dx * dx + dy2
        if d2 < inside { return nil }
        let r = d2.squareRoot() * inverseHalfDiagonal
        let t = min(max((r - radius) / softness, 0), 1)
        return 1 - intensity * t * t * (3 - 2 * t)
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        guard intensity > 0 else { return }
        let w = Float(context.width), h = Float(context.height)
        let centerX = cx * w, centerY = cy * h
        let dy = Float(y) + 0.5 - centerY
        let dy2 = dy * dy
        let halfDiagonal = 0.5 * (w * w + h * h).squareRoot()
        let inverse = 1 / halfDiagonal
        // Squared distance within which r < radius, a hair short so that rounding never
        // skips a pixel the formula would change.
        let inside = radius * halfDiagonal * radius * halfDiagonal * 0.9999
        if linear {
            LinearLight.shared.withTables { lin, enc in
                for n in 0..<count {
                    guard let f = factor(dy2: dy2, x: x + n, centerX: centerX, inverseHalfDiagonal: inverse, inside: inside) else { continue }
                    let p = pixels[n]
                    let r = lin[Int((p >> 16) & 0xFF)] * f, g = lin[Int((p >> 8) & 0xFF)] * f, b = lin[Int(p & 0xFF)] * f
                    pixels[n] = (p & 0xFF00_0000) | LinearLight.encodeByte(r, enc) << 16 | LinearLight.encodeByte(g, enc) << 8
                        | LinearLight.encodeByte(b, enc)
                }
            }
        } else {
            for n in 0..<count {
                guard let f = factor(dy2: dy2, x: x + n, centerX: centerX, inverseHalfDiagonal: inverse, inside: inside) else { continue }
                let p = pixels[n]
                let r = Float((p >> 16) & 0xFF) * f, g = Float((p >> 8) & 0xFF) * f, b = Float(p & 0xFF) * f
                pixels[n] = (p & 0xFF00_0000) | roundedByte(r) << 16 | roundedByte(g) << 8 | roundedByte(b)
            }
        }
    }
}
