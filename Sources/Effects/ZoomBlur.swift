/// Blur streaking towards a centre: 9 bilinear taps along the line to the centre
/// with GPUImage's weights (spec A10).
public struct ZoomBlur: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "zoomblur", kind: .layer, category: .blur, summary: "Radial zoom blur towards a centre point.",
        parameters: [
            .float("amount", default: 1, min: 0, max: 10, help: "Blur size (GPUImage blurSize): tap spacing in % of the distance to the centre."),
            .float("x", default: 0.5, min: 0, max: 1, help: "Centre, as a fraction of the width from the left."),
            .float("y", default: 0.5, min: 0, max: 1, help: "Centre, as a fraction of the height from the top."),
        ]
    )

    private static let weights: [Float] = [0.18, 0.15, 0.12, 0.09, 0.05]
    private let amount: Float
    private let cx: Float
    private let cy: Float

    public init(parameters: Parameters, resources: EffectResources) {
        amount = Float(parameters.double("amount"))
        cx = Float(parameters.double("x"))
        cy = Float(parameters.double("y"))
    }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        let centerX = cx * Float(src.width), centerY = cy * Float(src.height)
        let k = amount / 100
        let w = ZoomBlur.weights
        for y in rows {
            let out = dst + y * destinationStride
            let py = Float(y) + 0.5
            for x in 0..<src.width {
                let px = Float(x) + 0.5
                let dx = (centerX - px) * k, dy = (centerY - py) * k
                var (r, g, b) = src.bilinear(px, py)
                r *= w[0]; g *= w[0]; b *= w[0]
                for step in 1...4 {
                    let f = Float(step), weight = w[step]
                    let (r1, g1, b1) = src.bilinear(px + f * dx, py + f * dy)
                    let (r2, g2, b2) = src.bilinear(px - f * dx, py - f * dy)
                    r += weight * (r1 + r2); g += weight * (g1 + g2); b += weight * (b1 + b2)
                }
                out[x] = (src.row(y)[x] & 0xFF00_0000) | Pixel.quantize(r) << 16 | Pixel.quantize(g) << 8 | Pixel.quantize(b)
            }
        }
    }
}
