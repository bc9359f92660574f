import Foundation
import FrameCore

/// Puts the picture on a larger canvas of one colour (FFmpeg's `pad`): to a size, or to
/// the smallest canvas of an aspect that holds it (a phone's portrait clip made 16:9 for a
/// television), placed across the room left by a fraction (0.5 centres it, as FFmpeg's
/// `(ow-iw)/2`). Sizes and places are FFmpeg's to the pixel.
public struct Pad: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "pad", category: .geometry,
        summary: "Put the picture on a larger canvas of one colour: to a width and height, or to an aspect (16/9).",
        parameters: [
            .int(Key.width, default: 0, min: 0, max: Self.largest, help: "The canvas's width in pixels; 0 keeps the picture's (or follows the aspect)."),
            .int(Key.height, default: 0, min: 0, max: Self.largest, help: "The canvas's height in pixels; 0 keeps the picture's (or follows the aspect)."),
            .text(Key.aspect, help: "The canvas's shape, W/H (16/9) or a number (1.7778): the smallest canvas of it that holds the picture."),
            .float(Key.x, default: 0.5, min: 0, max: 1, help: "Where the picture sits across the room left: 0 at the left, 0.5 centred, 1 at the right."),
            .float(Key.y, default: 0.5, min: 0, max: 1, help: "Where the picture sits down the room left: 0 at the top, 0.5 centred, 1 at the bottom."),
            .color(Key.color, default: (0, 0, 0, 1), help: "The canvas's colour: #RRGGBB[AA] or r,g,b[,a] in 0…1."),
        ],
        example: "pad:aspect=16/9:color=#202020"
    )

    /// The largest canvas side.
    static let largest = 8192

    private enum Key {
        static let width = ParameterKey<Int>("width")
        static let height = ParameterKey<Int>("height")
        static let aspect = ParameterKey<String>("aspect")
        static let x = ParameterKey<Double>("x")
        static let y = ParameterKey<Double>("y")
        static let color = ParameterKey<[Double]>("color")
    }

    private let width: Int, height: Int
    private let aspect: Double?
    private let x: Double, y: Double
    private let pixel: UInt32

    public init(parameters: Parameters, resources: EffectResources) throws(EffectError) {
        width = parameters[Key.width]
        height = parameters[Key.height]
        x = parameters[Key.x]
        y = parameters[Key.y]
        let c = parameters[Key.color].map { UInt32(ColorSpace.quantize($0)) }
        pixel = c[3] << 24 | c[0] << 16 | c[1] << 8 | c[2]
        let text = parameters[Key.aspect].trimmingCharacters(in: .whitespaces)
        if text.isEmpty {
            aspect = nil
        } else {
            let terms = text.split(separator: "/", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
            let value: Double? = terms.count == 1 ? terms[0] : terms.count == 2 ? terms[0].flatMap { n in terms[1].map { n / $0 } } : nil
            // Bounded: a sliver of 1:100 on either side at most.
            guard let value, value.isFinite, (0.01...100).contains(value) else {
                throw EffectError("pad: aspect '\(text.prefix(40))' is W/H (16/9) or a number from 0.01 to 100")
            }
            aspect = value
        }
    }

    public func outputSize(width inWidth: Int, height inHeight: Int) -> (width: Int, height: Int) {
        var w = max(width == 0 ? inWidth : width, inWidth)
        var h = max(height == 0 ? inHeight : height, inHeight)
        if let aspect {
            // FFmpeg's rule: the side that is short for the aspect grows, to the nearest pixel.
            let tall = Int((Double(w) / aspect).rounded())
            if h < tall { h = tall } else { w = Int((Double(h) * aspect).rounded()) }
            (w, h) = (max(w, inWidth), max(h, inHeight))
        }
        return (min(w, Self.largest), min(h, Self.largest))
    }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        let (ow, oh) = outputSize(width: src.width, height: src.height)
        // A picture larger than the largest canvas is cut at its right and bottom.
        let (iw, ih) = (min(src.width, ow), min(src.height, oh))
        let left = Int((Double(ow - iw) * x).rounded(.down)), top = Int((Double(oh - ih) * y).rounded(.down))
        for row in rows {
            let out = dst + row * destinationStride
            guard row >= top && row < top + ih else {
                out.update(repeating: pixel, count: ow)
                continue
            }
            out.update(repeating: pixel, count: left)
            (out + left).update(from: src.row(row - top), count: iw)
            (out + left + iw).update(repeating: pixel, count: ow - left - iw)
        }
    }
}
