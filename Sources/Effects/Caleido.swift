/// Mirrors one quadrant into the other three: the output is symmetric about both
/// centre lines and the chosen quadrant is unchanged (spec A1, exact).
public struct Caleido: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "caleido", category: .geometry, summary: "Mirror one quadrant into the other three.",
        parameters: [.choice(Key.quadrant, help: "The quadrant that is kept and mirrored.")],
        example: "caleido:quadrant=bottomRight"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    /// The quadrant kept.
    enum Quadrant: String, ChoiceOption { case topLeft, topRight, bottomLeft, bottomRight }

    private enum Key {
        static let quadrant = ParameterKey<Quadrant>("quadrant")
    }

    private let keepLeft: Bool
    private let keepTop: Bool

    public init(parameters: Parameters, resources: EffectResources) {
        let q = parameters[Key.quadrant]
        keepLeft = q == .topLeft || q == .bottomLeft
        keepTop = q == .topLeft || q == .topRight
    }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        let w = src.width, h = src.height
        for y in rows {
            // Compare 2y < H rather than y < H/2 so an odd centre row maps to itself.
            let fy = (2 * y < h) == keepTop ? y : h - 1 - y
            let from = src.row(fy), out = dst + y * destinationStride
            for x in 0..<w {
                out[x] = from[(2 * x < w) == keepLeft ? x : w - 1 - x]
            }
        }
    }
}
