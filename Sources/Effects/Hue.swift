import Foundation

/// Rotates colours about the grey axis (spec B5, CIHueAdjust): a Rodrigues rotation
/// about (1,1,1)/√3, so grey stays grey and +120° turns red into green.
public struct Hue: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "hue", category: .grading, summary: "Rotate every hue around the colour wheel (Core Image's hue adjust).",
        parameters: [
            .float(Key.angle, default: 0, min: -360, max: 360, slider: -180...180, unit: "deg",
                   help: "Rotation in degrees (90, 90deg) or radians (1.57rad); +120 turns red into green."),
            ColorSpace.parameter,
        ],
        example: "hue=120"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let angle = ParameterKey<Double>("angle")
    }

    /// The rotation, row-major.
    private let m: [Float]
    private let space: ColorSpace
    private let affine: AffineColor

    public init(parameters: Parameters, resources: EffectResources) {
        let theta = parameters[Key.angle] * .pi / 180
        let c = cos(theta), s = sin(theta), k = (1 - c) / 3, q = s / 3.0.squareRoot()
        let rows: [Double] = [c + k, k - q, k + q, k + q, c + k, k - q, k - q, k + q, c + k]
        m = rows.map { Float($0) }
        affine = AffineColor(m, offset: 0)
        space = ColorSpace(parameters)
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        if space == .encoded {
            affine.apply(to: pixels, count: count)
            return
        }
        LinearLight.shared.matrix(pixels, count: count, m)
    }
}
