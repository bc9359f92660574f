/// Turns the picture by a quarter, a half or three quarters (FFmpeg's `transpose=clock`,
/// `hflip,vflip` and `transpose=cclock`), exactly; a quarter turn swaps the width and the
/// height, which is what a phone's sideways clip needs.
public struct Rotate: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "rotate", category: .geometry, summary: "Turn the picture by 90, 180 or 270 degrees clockwise (90 and 270 swap width and height).",
        parameters: [.choice(Key.angle, ["90", "180", "270"], help: "Degrees clockwise.")],
        example: "rotate=90"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let angle = ParameterKey<String>("angle")
    }

    /// Quarter turns clockwise: 1, 2 or 3.
    private let quarters: Int

    public init(parameters: Parameters, resources: EffectResources) {
        quarters = (Int(parameters[Key.angle]) ?? 90) / 90
    }

    public func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        quarters == 2 ? (width, height) : (height, width)
    }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        let (w, h) = (src.width, src.height)
        for y in rows {
            let out = dst + y * destinationStride
            switch quarters {
            case 1:
                // Clockwise: the output's row y is the input's column y, read bottom to top.
                for x in 0..<h { out[x] = src.row(h - 1 - x)[y] }
            case 2:
                let from = src.row(h - 1 - y)
                for x in 0..<w { out[x] = from[w - 1 - x] }
            default:
                // Counter-clockwise: the output's row y is the input's column w − 1 − y, top to bottom.
                for x in 0..<h { out[x] = src.row(x)[w - 1 - y] }
            }
        }
    }
}
