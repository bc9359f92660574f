/// Unsharp mask: each pixel moves away from a blurred copy of itself,
/// `c + amount·(c − blur(c))`, by ffmpeg's `unsharp` arithmetic.
///
/// The blur is `unsharp`'s: a binomial kernel of `2·radius + 1` taps each way (repeated
/// pair sums, edges replicated), rounded `(sum + half) >> bits`, and the change
/// `((c − blur)·amount·65536) >> 16`. By default only the luma (BT.709) is sharpened, as
/// `unsharp`'s defaults and Core Image's CISharpenLuminance do: its change is added to red,
/// green and blue alike, which leaves the chroma as it was (so colour edges do not fringe).
/// `channels=rgb` sharpens each channel on its own. With `threshold`, a change whose
/// luma difference is at most that many levels is left out (noise and flat skin stay
/// as they are). Alpha is kept.
public struct Sharpen: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "sharpen", category: .blur, summary: "Unsharp mask: crisper edges (ffmpeg's unsharp, luma only by default).",
        parameters: [
            .float(Key.amount, default: 1, min: -2, max: 5, help: "Strength: 1 doubles the difference from the blur; negative values blur."),
            .int(Key.radius, default: 2, min: 1, max: 11, help: "Blur radius in pixels: a (2·radius + 1)-tap kernel each way (unsharp's msize)."),
            .float(Key.threshold, default: 0, min: 0, max: 255, help: "Leave out changes whose luma difference is at most this many levels."),
            .choice(Key.channels, ["luma", "rgb"], default: "luma", help: "luma: sharpen the brightness only; rgb: each channel on its own."),
        ],
        example: "sharpen:amount=1.5:radius=2"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let amount = ParameterKey<Double>("amount")
        static let radius = ParameterKey<Int>("radius")
        static let threshold = ParameterKey<Double>("threshold")
        static let channels = ParameterKey<String>("channels")
    }

    private let amount: Int32  // 16.16, as unsharp's
    private let radius: Int
    private let threshold: Int32
    private let luma: Bool

    public init(parameters: Parameters, resources: EffectResources) {
        amount = Int32(parameters[Key.amount] * 65536)  // truncated, as unsharp does
        radius = parameters[Key.radius]
        threshold = Int32(parameters[Key.threshold].rounded(.down))
        luma = parameters[Key.channels] == "luma"
    }

    /// BT.709 luma of a pixel, in levels (rounded, as swscale's fixed point).
    @inline(__always)
    private static func luma(_ p: UInt32) -> Int32 {
        let r = Int32((p >> 16) & 0xFF), g = Int32((p >> 8) & 0xFF), b = Int32(p & 0xFF)
        return (13933 * r + 46871 * g + 4732 * b + 32768) >> 16  // 0.2126, 0.7152, 0.0722 in 16 bits
    }

    /// Binomial pair sums of order `2·steps` over `n` values read through `value` (index
    /// clamped to the row), into `out`: `out[i] = Σ C(2·steps, k)·value(i − steps + k)`.
    @inline(__always)
    private static func binomial(_ n: Int, steps: Int, scratch: UnsafeMutablePointer<Int32>, out: UnsafeMutablePointer<Int32>,
                                 _ value: (Int) -> Int32) {
        // Repeated [1 1] sums of the edge-replicated values, twice per step, as unsharp does.
        let width = n + 2 * steps
        for i in 0..<width { scratch[i] = value(min(max(i - steps, 0), n - 1)) }
        var length = width
        for _ in 0..<(2 * steps) {
            for i in 0..<(length - 1) { scratch[i] = scratch[i] &+ scratch[i + 1] }
            length -= 1
        }
        for i in 0..<n { out[i] = scratch[i] }
    }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        let w = src.width, h = src.height, r = radius
        let bits = 4 * r, half = Int64(1) << (bits - 1)
        let planes = luma ? 1 : 3
        // Rows the band reads, horizontally summed, per plane: (band + 2r rows) × w.
        let top = rows.lowerBound - r, count = rows.count + 2 * r
        let summed = UnsafeMutablePointer<Int32>.allocate(capacity: planes * count * w)
        let scratch = UnsafeMutablePointer<Int32>.allocate(capacity: max(w, count) + 2 * r + 1)
        let vertical = UnsafeMutablePointer<Int64>.allocate(capacity: w)
        defer { summed.deallocate(); scratch.deallocate(); vertical.deallocate() }
        // The vertical kernel: C(2r, k).
        var coefficients: [Int64] = [1]
        for k in 0..<(2 * r) { coefficients.append(coefficients[k] * Int64(2 * r - k) / Int64(k + 1)) }
        for plane in 0..<planes {
            let shift = UInt32(16 - 8 * plane)  // rgb planes: red, green, blue
            for j in 0..<count {
                let row = src.row(min(max(top + j, 0), h - 1))
                let out = summed + (plane * count + j) * w
                if luma {
                    Self.binomial(w, steps: r, scratch: scratch, out: out) { Self.luma(row[$0]) }
                } else {
                    Self.binomial(w, steps: r, scratch: scratch, out: out) { Int32((row[$0] >> shift) & 0xFF) }
                }
            }
        }
        // Vertical sums row by row (contiguous, so they vectorise), then each pixel's change.
        for y in rows { for x in 0..<w { dst[y * destinationStride + x] = src.row(y)[x] } }
        for plane in 0..<planes {
            let shift = UInt32(16 - 8 * plane)
            for (i, y) in rows.enumerated() {
                // Rows y − r … y + r (replicated above and below the frame when read),
                // weighted C(2r, k): 64 bits, as 2r + 1 taps of sums of 2r + 1 taps can
                // pass 2³¹ at the largest radius.
                for x in 0..<w { vertical[x] = 0 }
                for k in 0...(2 * r) {
                    let c = coefficients[k], row = summed + (plane * count + i + k) * w
                    for x in 0..<w { vertical[x] &+= c &* Int64(row[x]) }
                }
                let source = src.row(y), out = dst + y * destinationStride
                for x in 0..<w {
                    let p = source[x]
                    let original = luma ? Self.luma(p) : Int32((p >> shift) & 0xFF)
                    let difference = original - Int32((vertical[x] + half) >> Int64(bits))
                    if threshold > 0 && abs(difference) <= threshold { continue }
                    let change = (difference &* amount) >> 16
                    if change == 0 { continue }
                    if luma {
                        let q = out[x]
                        func moved(_ s: UInt32) -> UInt32 { UInt32(min(max(Int32((q >> s) & 0xFF) + change, 0), 255)) << s }
                        out[x] = (q & 0xFF00_0000) | moved(16) | moved(8) | moved(0)
                    } else {
                        let v = UInt32(min(max(original + change, 0), 255))
                        out[x] = (out[x] & ~(0xFF << shift)) | v << shift
                    }
                }
            }
        }
    }
}
