/// Swaps rows and columns as FFmpeg's `transpose` does, exactly: `cclock_flip` (the
/// default: a mirror about the main diagonal), `clock`, `cclock` or `clock_flip` (about the
/// other diagonal). The width and height swap.
public struct Transpose: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "transpose", category: .geometry, summary: "Swap rows and columns (FFmpeg's transpose): width and height swap.",
        parameters: [.choice(Key.dir,
                             help: "cclock_flip: about the main diagonal; clock, cclock: a quarter turn; clock_flip: about the other diagonal.")],
        example: "transpose=clock"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    /// FFmpeg's directions, spelt as it spells them.
    enum Direction: String, ChoiceOption { case cclock_flip, clock, cclock, clock_flip }

    private enum Key {
        static let dir = ParameterKey<Direction>("dir")
    }

    /// Whether the output's column x reads the input's row from the bottom (clock,
    /// clock_flip) and its row y the input's column from the right (cclock, clock_flip).
    private let fromBottom: Bool
    private let fromRight: Bool

    public init(parameters: Parameters, resources: EffectResources) {
        let dir = parameters[Key.dir]
        fromBottom = dir == .clock || dir == .clock_flip
        fromRight = dir == .cclock || dir == .clock_flip
    }

    public func outputSize(width: Int, height: Int) -> (width: Int, height: Int) { (height, width) }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        let (w, h) = (src.width, src.height)
        for y in rows {
            let out = dst + y * destinationStride
            let column = fromRight ? w - 1 - y : y
            for x in 0..<h { out[x] = src.row(fromBottom ? h - 1 - x : x)[column] }
        }
    }
}
