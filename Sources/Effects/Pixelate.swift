/// Square blocks of `size` pixels: `sample` repeats each block's top-left pixel (the
/// blog shader with nearest sampling), `average` fills it with the block mean,
/// `floor(sum/n)`, partial edge blocks included (ffmpeg's pixelize), colours weighed by
/// alpha where pixels are not opaque.
public struct Pixelate: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "pixelate", category: .stylize, summary: "Mosaic of square blocks.",
        parameters: [
            .int(Key.size, default: 8, min: 1, max: 4096, slider: 2...64, unit: "px", help: "Block side in pixels (capped at the frame's shorter side)."),
            .choice(Key.mode, help: "sample: block's top-left pixel; average: block mean."),
        ],
        example: "pixelate:size=12:mode=average"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    /// What a block shows.
    enum Mode: String, ChoiceOption {
        /// The block's top-left pixel.
        case sample
        /// The block's mean.
        case average
    }

    private enum Key {
        static let size = ParameterKey<Int>("size")
        static let mode = ParameterKey<Mode>("mode")
    }

    private let size: Int
    private let average: Bool

    public init(parameters: Parameters, resources: EffectResources) {
        size = parameters[Key.size]
        average = parameters[Key.mode] == .average
    }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        let s = max(1, min(size, min(src.width, src.height)))
        // Per band of block rows: the column sums of the rows in the block (the C kernel
        // `column_sums`, whole rows at a time), then each block adds its columns.
        var sums = [UInt32](repeating: 0, count: average ? 4 * src.width : 0)
        var y = rows.lowerBound
        while y < rows.upperBound {
            let blockTop = y / s * s
            let blockBottom = min(blockTop + s, src.height)
            let end = min(blockBottom, rows.upperBound)
            if average {
                sums.withUnsafeMutableBufferPointer { c in
                    let b = c.baseAddress!, width = src.width
                    colorKernels.column_sums(src.row(blockTop), src.stride, blockBottom - blockTop, width, b, b + width, b + 2 * width, b + 3 * width)
                }
            }
            var x = 0
            while x < src.width {
                let w = min(s, src.width - x)
                let value: UInt32
                if average {
                    // Colours weighed by their alpha (Core Image's premultiplied maths), so a
                    // transparent pixel's colour does not bleed into the block; when every
                    // pixel is opaque this is exactly floor(sum/n).
                    var sb = 0, sg = 0, sr = 0, sa = 0
                    let width = src.width
                    for cx in x..<(x + w) {
                        sb &+= Int(sums[cx]); sg &+= Int(sums[width + cx]); sr &+= Int(sums[2 * width + cx]); sa &+= Int(sums[3 * width + cx])
                    }
                    let n = w * (blockBottom - blockTop)
                    if sa != 255 * n {
                        // Not all opaque: sum again, each colour weighed by its alpha.
                        sb = 0; sg = 0; sr = 0
                        for by in blockTop..<blockBottom {
                            let row = src.row(by) + x
                            for bx in 0..<w {
                                let p = row[bx], a = Int(p >> 24)
                                sb &+= a * Int(p & 0xFF); sg &+= a * Int((p >> 8) & 0xFF); sr &+= a * Int((p >> 16) & 0xFF)
                            }
                        }
                        value = sa == 0 ? 0 : UInt32(sb / sa) | UInt32(sg / sa) << 8 | UInt32(sr / sa) << 16 | UInt32(sa / n) << 24
                    } else {
                        value = UInt32(sb / n) | UInt32(sg / n) << 8 | UInt32(sr / n) << 16 | 0xFF00_0000
                    }
                } else {
                    value = src.row(blockTop)[x]
                }
                for oy in y..<end {
                    (dst + oy * destinationStride + x).update(repeating: value, count: w)
                }
                x += w
            }
            y = end
        }
    }
}
