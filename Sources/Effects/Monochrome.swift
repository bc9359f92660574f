/// Tints by luminance (spec B12, CIColorMonochrome, GPUImage's formula): an overlay
/// blend of `l = Y709(c)` with the colour, `o = l < ½ ? 2·l·col : 1 − 2(1−l)(1−col)`,
/// mixed with the input by `intensity`.
public struct Monochrome: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "monochrome", category: .tone, summary: "Tint the picture's luminance with one colour (Core Image's color monochrome).",
        parameters: [
            .color("color", default: (0.6, 0.45, 0.3, 1), help: "The tint: #RRGGBB or r,g,b in 0…1."),
            .float("intensity", default: 1, min: 0, max: 1, help: "0 keeps the input, 1 is fully tinted."),
            ColorSpace.parameter,
        ],
        example: "monochrome:color=#B08050:intensity=0.9"
    )

    private let color: (Float, Float, Float)
    private let intensity: Float
    private let space: ColorSpace

    public init(parameters: Parameters, resources: EffectResources) {
        let space = ColorSpace(parameters)
        self.space = space
        // In linear light the tint is a colour like any other: decoded too.
        let c = parameters.vector("color").map { Float(space == .linear ? ColorSpace.decode($0) : $0) }
        color = (c[0], c[1], c[2])
        intensity = Float(parameters.double("intensity"))
    }

    @inline(__always)
    private static func blend(_ l: Float, _ col: Float) -> Float {
        l < 0.5 ? 2 * l * col : 1 - 2 * (1 - l) * (1 - col)
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        let (cr, cg, cb) = color, k = intensity
        if space == .linear {
            LinearLight.shared.map(pixels, count: count) { r, g, b in
                let l = 0.2126 * r + 0.7152 * g + 0.0722 * b
                return (r + (Self.blend(l, cr) - r) * k, g + (Self.blend(l, cg) - g) * k, b + (Self.blend(l, cb) - b) * k)
            }
            return
        }
        // Encoded, in 0…255 units: the blend's two branches are both affine in l.
        for i in 0..<count {
            let p = pixels[i]
            let b = Float(Int32(bitPattern: p & 0xFF)), g = Float(Int32(bitPattern: (p >> 8) & 0xFF)), r = Float(Int32(bitPattern: (p >> 16) & 0xFF))
            let l = (0.2126 * r + 0.7152 * g + 0.0722 * b) * (1 / 255 as Float)
            let ob = Self.blend(l, cb) * 255, og = Self.blend(l, cg) * 255, or = Self.blend(l, cr) * 255
            pixels[i] = (p & 0xFF00_0000) | roundedByte(r + (or - r) * k) << 16 | roundedByte(g + (og - g) * k) << 8 | roundedByte(b + (ob - b) * k)
        }
    }
}
