/// 2×2 pop-art grid: each quadrant is the half-size frame, grey-banded into four
/// levels and recoloured with its own palette (spec A9).
public struct Warhol: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "warhol", category: .stylize, summary: "Four-colour pop-art grid of four copies.",
        parameters: [.float(Key.mix, default: 1, min: 0, max: 1, help: "Mix with the original: 0 leaves the frame as it is.")],
        example: "warhol:mix=0.9"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let mix = ParameterKey<Double>("mix")
    }

    /// Palettes per quadrant (TL, TR, BL, BR), four bands each, packed as 0xRRGGBB.
    static let palettes: [UInt32] = [
        0x0000FF, 0x00FF00, 0xFF0000, 0xFFFF00,
        0xFFFF00, 0xFF0000, 0x00FF00, 0x2828FF,
        0x131F18, 0x4C4C4C, 0xFFFF00, 0xFF00FF,
        0x0064FF, 0xA5FF00, 0xFF0084, 0xFFD78C,
    ]

    private let mix: Float

    public init(parameters: Parameters, resources: EffectResources) { mix = Float(parameters[Key.mix]) }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        let w = src.width, h = src.height
        let w2 = max(w / 2, 1), h2 = max(h / 2, 1)
        Warhol.palettes.withUnsafeBufferPointer { palettes in
            for y in rows {
                let qy = y >= h2 ? 1 : 0
                let v = y - qy * h2
                let y0 = min(2 * v, h - 1), y1 = min(2 * v + 1, h - 1)
                let out = dst + y * destinationStride
                for x in 0..<w {
                    let qx = x >= w2 ? 1 : 0
                    let u = x - qx * w2
                    let x0 = min(2 * u, w - 1), x1 = min(2 * u + 1, w - 1)
                    let a = src.row(y0)[x0], b = src.row(y0)[x1], c = src.row(y1)[x0], d = src.row(y1)[x1]
                    @inline(__always) func avg(_ s: UInt32) -> UInt32 {
                        (((a >> s) & 0xFF) + ((b >> s) & 0xFF) + ((c >> s) & 0xFF) + ((d >> s) & 0xFF) + 2) >> 2
                    }
                    // I·10000 = 2989R + 5870G + 1140B (exact); band = min(⌊I/64⌋, 3)
                    let i10k = 2989 * Int(avg(16)) + 5870 * Int(avg(8)) + 1140 * Int(avg(0))
                    let band = min(i10k / 640_000, 3)
                    let color = palettes[(qy * 2 + qx) * 4 + band]
                    let original = src.row(y)[x]
                    if mix >= 1 {
                        out[x] = (original & 0xFF00_0000) | color
                    } else {
                        @inline(__always) func blend(_ shift: UInt32) -> UInt32 {
                            let o = Float((original >> shift) & 0xFF), m = Float((color >> shift) & 0xFF)
                            return Pixel.quantize(o + (m - o) * mix) << shift
                        }
                        out[x] = (original & 0xFF00_0000) | blend(16) | blend(8) | blend(0)
                    }
                }
            }
        }
    }
}
