/// The W3C/CSS sepia matrix, clamped, mixed with the original by `amount`
/// (spec A5: `out = (1−a)·c + a·clamp(M·c, 0, 1)`).
public struct Sepia: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "sepia", category: .tone, summary: "Warm brown old-photo toning.",
        parameters: [.float(Key.amount, default: 1, min: 0, max: 1, help: "How much sepia: 0 leaves the frame as it is.")],
        example: "sepia=0.8"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let amount = ParameterKey<Double>("amount")
    }

    /// The mix in 1/1024ths.
    private let a: UInt32

    public init(parameters: Parameters, resources: EffectResources) {
        a = UInt32((parameters[Key.amount] * 1024).rounded())
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        // Fixed point (the C kernel `sepia`): the matrix ×4096, rounded, capped at 255;
        // a mix below 1 is (c·4096·(1024 − a) + sepia·a) / 2²², rounded.
        colorKernels.sepia(pixels, count, a)
    }
}
