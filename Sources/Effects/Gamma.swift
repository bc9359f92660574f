import Foundation

/// A power curve, `c^power` (spec B4, CIGammaAdjust): above 1 darkens the mid-tones,
/// below 1 lightens them. One table lookup per channel.
public struct Gamma: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "gamma", category: .tone, summary: "Power curve on each channel (Core Image's gamma adjust).",
        parameters: [
            .float(Key.power, default: 1, min: 0.01, max: 10, slider: 0.25...4, help: "Exponent: 1 is the identity, above 1 darkens mid-tones."),
            ColorSpace.parameter,
        ],
        example: "gamma=1.8"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let power = ParameterKey<Double>("power")
    }

    private let table: ChannelTable

    public init(parameters: Parameters, resources: EffectResources) {
        let power = parameters[Key.power]
        let space = ColorSpace(parameters)
        table = ChannelTable { v in
            let c = Double(v) / 255
            return ColorSpace.quantize(space == .linear ? ColorSpace.encode(pow(ColorSpace.decode(c), power)) : pow(c, power))
        }
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        table.apply(pixels, count: count)
    }
}
