/// Per-channel threshold (spec B14, CIColorThreshold): `out_i = c_i > t ? 1 : 0`.
/// Core Image compares in linear light, so `t = 0.5` there is about 188 encoded.
public struct ColorThreshold: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "colorthreshold", category: .stylize, summary: "Each channel to 0 or 1 at a threshold (Core Image's color threshold).",
        parameters: [
            .float(Key.threshold, default: 0.5, min: 0, max: 1, help: "A channel above this becomes full, the rest zero."),
            ColorSpace.parameter,
        ],
        example: "colorthreshold=0.4"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let threshold = ParameterKey<Double>("threshold")
    }

    private let table: ChannelTable

    public init(parameters: Parameters, resources: EffectResources) {
        let t = parameters[Key.threshold]
        let linear = ColorSpace(parameters) == .linear
        table = ChannelTable { v in
            let c = Double(v) / 255
            return (linear ? ColorSpace.decode(c) : c) > t ? 255 : 0
        }
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        table.apply(pixels, count: count)
    }
}
