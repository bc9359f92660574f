/// Maps white to a chosen colour by scaling each channel (spec B9, CIWhitePointAdjust,
/// von Kries): `out = c ⊙ color`, in linear light `enc(dec(c) ⊙ dec(color))`.
/// One table per channel.
public struct WhitePoint: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "whitepoint", category: .tone, summary: "Make white the given colour, scaling every channel (Core Image's white point adjust).",
        parameters: [
            .color(Key.color, default: (1, 1, 1, 1), help: "What white becomes: #RRGGBB or r,g,b in 0…1."),
            ColorSpace.parameter,
        ],
        example: "whitepoint=#FFD8A8"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let color = ParameterKey<[Double]>("color")
    }

    private let table: ChannelTable

    public init(parameters: Parameters, resources: EffectResources) {
        let color = parameters[Key.color]
        let space = ColorSpace(parameters)
        func map(_ k: Double) -> (Int) -> UInt8 {
            { v in
                let c = Double(v) / 255
                return ColorSpace.quantize(space == .linear ? ColorSpace.encode(ColorSpace.decode(c) * ColorSpace.decode(k)) : c * k)
            }
        }
        table = ChannelTable(red: map(color[0]), green: map(color[1]), blue: map(color[2]))
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        table.apply(pixels, count: count)
    }
}
