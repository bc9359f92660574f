import Foundation

/// Exposure in stops: `c·2^EV` (spec B3, CIExposureAdjust). In linear light (Core
/// Image) that is `enc(dec(c)·2^EV)`; encoded, it is FFmpeg's `exposure` filter.
/// A per-channel map, so it runs as one table lookup.
public struct Exposure: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "exposure", category: .tone, summary: "Brighten or darken by photographic stops (Core Image's exposure).",
        parameters: [
            .float(Key.ev, default: 0, min: -10, max: 10, unit: "EV", help: "Stops: +1 doubles the light, -1 halves it."),
            ColorSpace.parameter,
        ],
        example: "exposure=0.7"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let ev = ParameterKey<Double>("ev")
    }

    private let table: ChannelTable

    public init(parameters: Parameters, resources: EffectResources) {
        let gain = pow(2, parameters[Key.ev])
        let space = ColorSpace(parameters)
        table = ChannelTable { v in
            let c = Double(v) / 255
            return ColorSpace.quantize(space == .linear ? ColorSpace.encode(ColorSpace.decode(c) * gain) : c * gain)
        }
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        table.apply(pixels, count: count)
    }
}
