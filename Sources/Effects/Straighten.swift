import Foundation

/// Rotates about the centre and zooms just enough that no empty corner shows (spec
/// B21, CIStraightenFilter): `s = |cos θ| + max(W/H, H/W)·|sin θ|`, positive angles turn
/// the picture counter-clockwise on screen.
public struct Straighten: DistortionEffect {
    public static let descriptor = EffectDescriptor(
        name: "straighten", category: .geometry, summary: "Rotate and zoom to fill, to level a tilted horizon (Core Image's straighten).",
        parameters: [
            .float(Key.angle, default: 0, min: -360, max: 360, slider: -45...45, unit: "deg", help: "Rotation, counter-clockwise, degrees or radians."),
            Sampling.parameter,
        ],
        example: "straighten=10"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let angle = ParameterKey<Double>("angle")
    }

    private let angle: Double
    /// How positions between pixels are read.
    public let sampling: Sampling
    /// Output→source positions, per frame size.
    public let map = SourceMap()

    public init(parameters: Parameters, resources: EffectResources) {
        angle = parameters[Key.angle] * .pi / 180
        sampling = Sampling(parameters)
    }

    /// No turn is a copy, not a resample.
    public var isIdentity: Bool { angle == 0 }

    /// The position turned about the centre and scaled in by `s`.
    public func sourcePosition(x: Double, y: Double, width: Int, height: Int) -> (x: Double, y: Double)? {
        let w = Double(width), h = Double(height)
        let s = abs(cos(angle)) + max(w / h, h / w) * abs(sin(angle))
        let (c, sn) = (Float(cos(angle) / s), Float(sin(angle) / s))
        let (cx, cy) = (Float(w / 2), Float(h / 2))
        let dx = Float(x) - cx, dy = Float(y) - cy
        return (Double(cx + dx * c - dy * sn), Double(cy + dx * sn + dy * c))
    }
}
