/// Saturation that spares what is already saturated (spec B6, CIVibrance):
/// `s = max(c) − min(c); l = Y709(c); f = 1 + a·(1 − sign(a)·s); out = l + (c − l)·f`.
/// For a > 0 dull colours gain the most; skin and skies do not go neon.
public struct Vibrance: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "vibrance", category: .grading, summary: "Saturate muted colours more than vivid ones (Core Image's vibrance).",
        parameters: [
            .float(Key.amount, default: 0, min: -1, max: 1, help: "Above 0 livens muted colours, below 0 mutes them; 0 unchanged."),
            ColorSpace.parameter,
        ],
        example: "vibrance=0.6"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let amount = ParameterKey<Double>("amount")
    }

    private let amount: Float
    private let space: ColorSpace

    public init(parameters: Parameters, resources: EffectResources) {
        amount = Float(parameters[Key.amount])
        let space = ColorSpace(parameters)
        self.space = space
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        let a = amount, sign: Float = amount < 0 ? -1 : (amount > 0 ? 1 : 0)
        if space == .encoded {
            // On bytes, without tables (the C kernel `vibrance`): the spread s is in bytes,
            // so 1 + a·(1 − sign·s/255) = 1 + a − (a·sign/255)·s.
            colorKernels.vibrance(pixels, count, a, a * sign / 255)
            return
        }
        LinearLight.shared.map(pixels, count: count) { r, g, b in
            let s = max(r, max(g, b)) - min(r, min(g, b))
            let l = 0.2126 * r + 0.7152 * g + 0.0722 * b
            let f = 1 + a * (1 - sign * s)
            return (l + (r - l) * f, l + (g - l) * f, l + (b - l) * f)
        }
    }
}
