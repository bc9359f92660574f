/// Blur streaking towards a centre: 9 bilinear taps along the line to the centre
/// with GPUImage's weights (spec A10).
///
/// Tap `k` of pixel `p` samples `p + k·δ` with `δ = (C − p)·amount/100`, which is the
/// frame scaled about `C` by `1 − k·amount/100`. A uniform scale is separable, so each
/// tap blends two whole source rows (a contiguous, vectorisable pass) and then reads
/// that blended row at precomputed columns, instead of a 2D bilinear fetch per tap.
public struct ZoomBlur: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "zoomblur", category: .blur, summary: "Radial zoom blur towards a centre point.",
        parameters: [
            .float(Key.amount, default: 1, min: 0, max: 10, help: "Blur size (GPUImage blurSize): tap spacing in % of the distance to the centre."),
            .float(Key.x, default: 0.5, min: 0, max: 1, help: "Centre, as a fraction of the width from the left."),
            .float(Key.y, default: 0.5, min: 0, max: 1, help: "Centre, as a fraction of the height from the top."),
        ],
        example: "zoomblur:amount=2:x=0.5:y=0.4"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let amount = ParameterKey<Double>("amount")
        static let x = ParameterKey<Double>("x")
        static let y = ParameterKey<Double>("y")
    }

    private static let weights: [Float] = [0.05, 0.09, 0.12, 0.15, 0.18, 0.15, 0.12, 0.09, 0.05]  // k = −4…4
    private let amount: Float
    private let cx: Float
    private let cy: Float

    public init(parameters: Parameters, resources: EffectResources) {
        amount = Float(parameters[Key.amount])
        cx = Float(parameters[Key.x])
        cy = Float(parameters[Key.y])
    }

    /// Where tap `k` reads along one axis: lower index, upper index and fraction for
    /// each output coordinate 0..<n (S_bil: pixel centres at +0.5, clamped to the edge).
    private static func axis(n: Int, center: Float, scale: Float, at i: Int) -> (Int, Int, Float) {
        var u = center + (Float(i) + 0.5 - center) * scale - 0.5
        u = u < 0 ? 0 : (u > Float(n - 1) ? Float(n - 1) : u)
        let i0 = Int(Int32(u))
        return (i0, i0 + 1 < n ? i0 + 1 : i0, u - Float(i0))
    }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        let w = src.width, h = src.height
        let centerX = cx * Float(w), centerY = cy * Float(h), a = amount / 100
        // Column tables for the 9 taps (per band: a few KB, not per pixel).
        var x0 = [Int32](repeating: 0, count: 9 * w), x1 = [Int32](repeating: 0, count: 9 * w)
        var fx = [Float](repeating: 0, count: 9 * w)
        for k in 0..<9 {
            let scale = 1 - Float(k - 4) * a
            for x in 0..<w {
                let (i0, i1, f) = ZoomBlur.axis(n: w, center: centerX, scale: scale, at: x)
                x0[k * w + x] = Int32(i0); x1[k * w + x] = Int32(i1); fx[k * w + x] = f
            }
        }
        // Where a row the taps read is not opaque, the slower premultiplied path (Core
        // Image's maths, alpha blurred too); otherwise straight colour is the same.
        var readTop = h, readBottom = -1
        for k in 0..<9 {
            let scale = 1 - Float(k - 4) * a
            for y in [rows.lowerBound, rows.upperBound - 1] {
                let (y0, y1, _) = ZoomBlur.axis(n: h, center: centerY, scale: scale, at: y)
                readTop = min(readTop, y0, y1); readBottom = max(readBottom, y0, y1)
            }
        }
        var opaque: UInt32 = 0xFF00_0000
        for y in readTop...readBottom {
            let row = src.row(y)
            for x in 0..<w { opaque &= row[x] }
        }
        if opaque >> 24 != 0xFF {
            renderPremultiplied(src, into: dst, destinationStride: destinationStride, rows: rows, x0: x0, x1: x1, fx: fx, centerY: centerY, amount: a)
            return
        }
        // Planar blended row (r, g, b) and accumulators.
        var blended = [Float](repeating: 0, count: 3 * w)
        var acc = [Float](repeating: 0, count: 3 * w)
        x0.withUnsafeBufferPointer { x0 in x1.withUnsafeBufferPointer { x1 in fx.withUnsafeBufferPointer { fx in
        blended.withUnsafeMutableBufferPointer { blended in acc.withUnsafeMutableBufferPointer { acc in
            let br = blended.baseAddress!, bg = br + w, bb = bg + w
            let ar = acc.baseAddress!, ag = ar + w, ab = ag + w
            for y in rows {
                acc.update(repeating: 0)
                for k in 0..<9 {
                    let scale = 1 - Float(k - 4) * a, weight = ZoomBlur.weights[k]
                    let (y0, y1, fy) = ZoomBlur.axis(n: h, center: centerY, scale: scale, at: y)
                    // Vertical blend of two rows (contiguous), then the horizontal read at this
                    // tap's columns weighted into the sum: the C kernels `blend_rows` and
                    // `add_tap` (AVX2 gathers where the CPU has them).
                    colorKernels.blend_rows(src.row(y0), src.row(y1), fy, br, bg, bb, w)
                    colorKernels.add_tap(ar, ag, ab, br, bg, bb, x0.baseAddress! + k * w, x1.baseAddress! + k * w,
                                         fx.baseAddress! + k * w, weight, w)
                }
                colorKernels.planar_to_bgra(ar, ag, ab, src.row(y), dst + y * destinationStride, w)
            }
        } }
        } } }
    }

    /// The nine taps premultiplied, for frames with transparency: colours weighed by alpha,
    /// alpha blurred with them, back to straight colour at the end.
    private func renderPremultiplied(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>,
                                     x0: [Int32], x1: [Int32], fx: [Float], centerY: Float, amount a: Float) {
        let w = src.width, h = src.height
        var acc = [SIMD4<Float>](repeating: .zero, count: w)
        for y in rows {
            for x in 0..<w { acc[x] = .zero }
            for k in 0..<9 {
                let scale = 1 - Float(k - 4) * a, weight = ZoomBlur.weights[k]
                let (y0, y1, fy) = ZoomBlur.axis(n: h, center: centerY, scale: scale, at: y)
                let r0 = src.row(y0), r1 = src.row(y1)
                for x in 0..<w {
                    let a0 = Int(x0[k * w + x]), a1 = Int(x1[k * w + x]), t = fx[k * w + x]
                    let top = Pixel.premultiplied(r0[a0]) + (Pixel.premultiplied(r0[a1]) - Pixel.premultiplied(r0[a0])) * t
                    let bottom = Pixel.premultiplied(r1[a0]) + (Pixel.premultiplied(r1[a1]) - Pixel.premultiplied(r1[a0])) * t
                    acc[x] += (top + (bottom - top) * fy) * weight
                }
            }
            let out = dst + y * destinationStride
            for x in 0..<w { out[x] = Pixel.unpremultiplied(acc[x]) }
        }
    }
}
