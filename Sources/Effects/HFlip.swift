/// Mirrors the picture left to right (FFmpeg's `hflip`), exactly.
public struct HFlip: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "hflip", category: .geometry, summary: "Mirror the picture left to right.",
        parameters: [],
        example: "hflip"
    )

    public init(parameters: Parameters, resources: EffectResources) {}

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        let w = src.width
        for y in rows {
            let from = src.row(y), out = dst + y * destinationStride
            for x in 0..<w { out[x] = from[w - 1 - x] }
        }
    }
}
