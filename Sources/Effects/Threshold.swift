/// Black-and-white ink: white where Rec.709 luma ≥ threshold, black elsewhere (spec A7).
public struct Threshold: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "threshold", category: .stylize, summary: "Black and white ink at a luma threshold.",
        parameters: [.float(Key.threshold, default: 0.5, min: 0, max: 1, help: "Luma (0…1) at and above which a pixel turns white.")],
        example: "threshold=0.4"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let threshold = ParameterKey<Double>("threshold")
    }

    /// Luma ×10000 is an exact integer (2126·R + 7152·G + 722·B), so the comparison is exact.
    private let limit: UInt32

    public init(parameters: Parameters, resources: EffectResources) {
        limit = UInt32((parameters[Key.threshold] * 2_550_000 - 1e-6).rounded(.up))
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        // White where 2126·R + 7152·G + 722·B ≥ limit (the C kernel `luma_threshold`).
        colorKernels.luma_threshold(pixels, count, limit)
    }
}
