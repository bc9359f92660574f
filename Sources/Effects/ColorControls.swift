/// Saturation, brightness and contrast (spec B1, CIColorControls), in that order:
/// `l = Y709(c); c1 = l + (c − l)·sat; c2 = c1 + bri; out = (c2 − 0.5)·con + 0.5`,
/// clamped at the end.
public struct ColorControls: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "colorcontrols", category: .grading, summary: "Saturation, brightness and contrast (Core Image's color controls).",
        parameters: [
            .float(Key.saturation, default: 1, min: 0, max: 4, slider: 0...2, help: "0 is grey, 1 unchanged, 2 doubly vivid."),
            .float(Key.brightness, default: 0, min: -1, max: 1, help: "Added to every channel."),
            .float(Key.contrast, default: 1, min: 0, max: 4, slider: 0.25...4, help: "Stretch about mid-grey: 1 unchanged."),
            ColorSpace.parameter,
        ],
        example: "colorcontrols:saturation=1.4:brightness=0.05:contrast=1.3"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let saturation = ParameterKey<Double>("saturation")
        static let brightness = ParameterKey<Double>("brightness")
        static let contrast = ParameterKey<Double>("contrast")
    }

    private let sat: Float, bri: Float, con: Float
    private let space: ColorSpace
    /// The whole effect is affine in c: con·(sat·c + (1−sat)·Y709(c)) + offset.
    private let affine: AffineColor

    public init(parameters: Parameters, resources: EffectResources) {
        sat = Float(parameters[Key.saturation])
        bri = Float(parameters[Key.brightness])
        con = Float(parameters[Key.contrast])
        let space = ColorSpace(parameters)
        self.space = space
        let w: [Float] = [0.2126, 0.7152, 0.0722]
        let (sat, con) = (self.sat, self.con)
        let matrix = (0..<9).map { i in con * ((1 - sat) * w[i % 3] + (i / 3 == i % 3 ? sat : 0)) }
        affine = AffineColor(matrix, offset: ((bri - 0.5) * con + 0.5) * 255)
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        let (sat, con) = (self.sat, self.con)
        // (c2 − 0.5)·con + 0.5 = c1·con + offset
        let offset = (bri - 0.5) * con + 0.5
        if space == .encoded {
            affine.apply(to: pixels, count: count)
            return
        }
        LinearLight.shared.map(pixels, count: count) { r, g, b in
            let base = (0.2126 * r + 0.7152 * g + 0.0722 * b) * (1 - sat)
            return ((base + r * sat) * con + offset, (base + g * sat) * con + offset, (base + b * sat) * con + offset)
        }
    }
}
