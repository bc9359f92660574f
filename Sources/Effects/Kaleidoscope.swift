import Foundation

/// Radial mirror symmetry (spec B17, a vidfx definition of CIKaleidoscope): the
/// wedge of angle π/count after `angle` is reflected around the centre, giving
/// `count`-fold dihedral symmetry (2·count wedges; Core Image calls count 6
/// "12-way symmetry").
public struct Kaleidoscope: DistortionEffect {
    public static let descriptor = EffectDescriptor(
        name: "kaleidoscope", category: .geometry, summary: "Reflect one wedge around a centre, like a kaleidoscope (Core Image's kaleidoscope).",
        parameters: [
            .int(Key.count, default: 6, min: 1, max: 64, help: "Mirror pairs around the circle."),
            .float(Key.angle, default: 0, min: -360, max: 360, slider: -180...180, unit: "deg", help: "Rotation of the wedge, degrees or radians (0.3rad)."),
            .float(Key.x, default: 0.5, min: 0, max: 1, help: "Centre, as a fraction of the width from the left."),
            .float(Key.y, default: 0.5, min: 0, max: 1, help: "Centre, as a fraction of the height from the top."),
            Sampling.parameter,
        ],
        example: "kaleidoscope:count=6:angle=15"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let count = ParameterKey<Int>("count")
        static let angle = ParameterKey<Double>("angle")
        static let x = ParameterKey<Double>("x")
        static let y = ParameterKey<Double>("y")
    }

    private let count: Int
    private let angle: Float
    private let cx: Float, cy: Float
    /// How positions between pixels are read.
    public let sampling: Sampling
    /// Output→source positions, per frame size.
    public let map = SourceMap()

    public init(parameters: Parameters, resources: EffectResources) {
        count = parameters[Key.count]
        angle = Float(parameters[Key.angle] * .pi / 180)
        cx = Float(parameters[Key.x])
        cy = Float(parameters[Key.y])
        sampling = Sampling(parameters)
    }

    /// The wedge's mirror image of the position, about the centre.
    public func sourcePosition(x: Double, y: Double, width w: Int, height h: Int) -> (x: Double, y: Double)? {
        let centerX = cx * Float(w), centerY = cy * Float(h)
        let sector = 2 * Float.pi / Float(count), half = sector / 2
        let ca = Foundation.cos(angle), sa = Foundation.sin(angle)
        let dx = Float(x) - centerX, dy = Float(y) - centerY
        let r = (dx * dx + dy * dy).squareRoot()
        var t = FastTrig.atan2(dy, dx) - angle
        t -= sector * (t / sector).rounded(.down)
        if t > half { t = sector - t }
        // t is in [0, π]; rotate (cos t, sin t) by the angle instead of another cos/sin.
        let (c, s) = FastTrig.cosSin(t)
        return (Double(centerX + r * (c * ca - s * sa)), Double(centerY + r * (s * ca + c * sa)))
    }
}
