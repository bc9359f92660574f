/// Turns the picture upside down by mirroring it top to bottom (FFmpeg's `vflip`), exactly.
public struct VFlip: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "vflip", category: .geometry, summary: "Mirror the picture top to bottom.",
        parameters: [],
        example: "vflip"
    )

    public init(parameters: Parameters, resources: EffectResources) {}

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        let h = src.height
        for y in rows {
            let from = src.row(h - 1 - y), out = dst + y * destinationStride
            for x in 0..<src.width { out[x] = from[x] }
        }
    }
}
