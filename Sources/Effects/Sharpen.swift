import CPixelKernels

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
            .choice(Key.channels, default: .luma, help: "luma: sharpen the brightness only; rgb: each channel on its own."),
        ],
        example: "sharpen:amount=1.5:radius=2"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    /// What is sharpened.
    enum Channels: String, ChoiceOption { case luma, rgb }

    private enum Key {
        static let amount = ParameterKey<Double>("amount")
        static let radius = ParameterKey<Int>("radius")
        static let threshold = ParameterKey<Double>("threshold")
        static let channels = ParameterKey<Channels>("channels")
    }

    private let amount: Int32  // 16.16, as unsharp's
    private let radius: Int
    private let threshold: Int32
    private let luma: Bool

    public init(parameters: Parameters, resources: EffectResources) {
        amount = Int32(parameters[Key.amount] * 65536)  // truncated, as unsharp does
        radius = parameters[Key.radius]
        threshold = Int32(parameters[Key.threshold].rounded(.down))
        luma = parameters[Key.channels] == .luma
    }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        // The loops are C (vidfx_sharpen.c), compiled for SSE2 and AVX2: the same integers
        // as unsharp's, several times faster than they were in Swift.
        let scratch = UnsafeMutablePointer<Int32>.allocate(capacity: vfx_sharpen_scratch(Int32(src.width), Int32(radius)))
        defer { scratch.deallocate() }
        vfx_sharpen_rows(src.base, src.stride, dst, destinationStride, Int32(src.width), Int32(src.height), Int32(rows.lowerBound),
                         Int32(rows.upperBound), Int32(radius), amount, threshold, luma ? 1 : 0, scratch)
    }
}
