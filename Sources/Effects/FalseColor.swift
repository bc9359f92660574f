/// Maps luminance onto a two-colour gradient (spec B13, CIFalseColor):
/// `out = mix(color0, color1, Y709(c))`.
public struct FalseColor: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "falsecolor", category: .tone, summary: "Map luminance onto a gradient between two colours (Core Image's false color).",
        parameters: [
            .color(Key.color0, default: (0.3, 0, 0, 1), help: "Colour for black."),
            .color(Key.color1, default: (1, 0.9, 0.8, 1), help: "Colour for white."),
            ColorSpace.parameter,
        ],
        example: "falsecolor:color0=#200040:color1=#FFE0A0"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let color0 = ParameterKey<[Double]>("color0")
        static let color1 = ParameterKey<[Double]>("color1")
    }

    private let c0: (Float, Float, Float)
    private let c1: (Float, Float, Float)
    private let space: ColorSpace

    public init(parameters: Parameters, resources: EffectResources) {
        let space = ColorSpace(parameters)
        self.space = space
        func load(_ key: ParameterKey<[Double]>) -> (Float, Float, Float) {
            let v = parameters[key].map { Float(space == .linear ? ColorSpace.decode($0) : $0) }
            return (v[0], v[1], v[2])
        }
        c0 = load(Key.color0)
        c1 = load(Key.color1)
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        let (r0, g0, b0) = c0, (r1, g1, b1) = c1
        if space == .linear {
            LinearLight.shared.map(pixels, count: count) { r, g, b in
                let l = 0.2126 * r + 0.7152 * g + 0.0722 * b
                return (r0 + (r1 - r0) * l, g0 + (g1 - g0) * l, b0 + (b1 - b0) * l)
            }
            return
        }
        // In 0…255 units: out = 255·c0 + (c1 − c0)·L, with L the luma in bytes.
        // (The C kernel `falsecolor`.)
        let origin = (r0 * 255, g0 * 255, b0 * 255), span = (r1 - r0, g1 - g0, b1 - b0)
        withUnsafeBytes(of: origin) { o in
            withUnsafeBytes(of: span) { d in
                colorKernels.falsecolor(pixels, count, o.assumingMemoryBound(to: Float.self).baseAddress,
                                        d.assumingMemoryBound(to: Float.self).baseAddress)
            }
        }
    }
}
