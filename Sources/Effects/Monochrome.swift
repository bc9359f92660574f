/// Tints by luminance (spec B12, CIColorMonochrome, GPUImage's formula): an overlay
/// blend of `l = Y709(c)` with the colour, `o = l < ½ ? 2·l·col : 1 − 2(1−l)(1−col)`,
/// mixed with the input by `intensity`.
public struct Monochrome: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "monochrome", category: .tone, summary: "Tint the picture's luminance with one colour (Core Image's color monochrome).",
        parameters: [
            .color(Key.color, default: (0.6, 0.45, 0.3, 1), help: "The tint: #RRGGBB or r,g,b in 0…1."),
            .float(Key.intensity, default: 1, min: 0, max: 1, help: "0 keeps the input, 1 is fully tinted."),
            ColorSpace.parameter,
        ],
        example: "monochrome:color=#B08050:intensity=0.9"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let color = ParameterKey<[Double]>("color")
        static let intensity = ParameterKey<Double>("intensity")
    }

    private let color: (Float, Float, Float)
    private let intensity: Float
    private let space: ColorSpace

    public init(parameters: Parameters, resources: EffectResources) {
        let space = ColorSpace(parameters)
        self.space = space
        // In linear light the tint is a colour like any other: decoded too.
        let c = parameters[Key.color].map { Float(space == .linear ? ColorSpace.decode($0) : $0) }
        color = (c[0], c[1], c[2])
        intensity = Float(parameters[Key.intensity])
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
        // Encoded: the same blend on bytes (the C kernel `monochrome`).
        colorKernels.monochrome(pixels, count, cr, cg, cb, k)
    }
}
