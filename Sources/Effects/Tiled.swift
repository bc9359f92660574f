/// n × n copies of the frame: `out(x,y) = in(⌊((x+½)·n) mod W⌋, ⌊((y+½)·n) mod H⌋)` (spec A8).
public struct Tiled: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "tiled", category: .geometry, summary: "Repeat the frame n × n times.",
        parameters: [.int(Key.n, default: 2, min: 1, max: 16, help: "Copies per side.")],
        example: "tiled=3"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let n = ParameterKey<Int>("n")
    }

    private let n: Int

    public init(parameters: Parameters, resources: EffectResources) { n = parameters[Key.n] }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        let w = src.width, h = src.height, n = self.n
        for y in rows {
            // (y+½)·n mod H = ((2y+1)·n mod 2H) / 2, in integers.
            let sy = ((2 * y + 1) * n % (2 * h)) / 2
            let from = src.row(sy), out = dst + y * destinationStride
            for x in 0..<w { out[x] = from[((2 * x + 1) * n % (2 * w)) / 2] }
        }
    }
}
