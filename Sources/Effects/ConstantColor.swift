/// Fills the frame with one colour, straight alpha (spec B23, CIConstantColorGenerator).
/// A colour effect that ignores its input, so it fuses with the rest of a chain.
public struct ConstantColor: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "constantcolor", category: .composite, summary: "Fill the frame with one colour (Core Image's constant color generator).",
        parameters: [
            .color(Key.color, default: (1, 0, 0, 1), help: "The colour: #RRGGBB[AA] or r,g,b[,a] in 0…1."),
        ],
        example: "constantcolor=#FF8000"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let color = ParameterKey<[Double]>("color")
    }

    private let pixel: UInt32

    public init(parameters: Parameters, resources: EffectResources) {
        let c = parameters[Key.color].map { UInt32(ColorSpace.quantize($0)) }
        pixel = c[3] << 24 | c[0] << 16 | c[1] << 8 | c[2]
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        colorKernels.fill(pixels, count, pixel)  // C: AVX2 stores in every build
    }
}
