import FrameCore

/// Composites an image (a PNG with alpha, e.g. a watermark) over the frame with
/// Porter-Duff *over* on straight alpha (spec B24, CISourceOverCompositing):
/// `αs = α_image·opacity`, `αo = αs + αb(1 − αs)`, `Co = (Cs·αs + Cb·αb(1 − αs))/αo`.
/// Linear light blends decoded colours, as Core Image does; encoded blends the sRGB
/// values, as FFmpeg's `overlay=format=rgb` does. A colour effect: it needs only the
/// pixel's position, so it fuses with the rest of a chain.
public struct Overlay: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "overlay", category: .composite, summary: "Composite an image (PNG with alpha) over the video at a position and opacity.",
        parameters: [
            .file(Key.file, required: true, help: "The image to lay over the video (PNG, JPEG…; its alpha is used)."),
            .choice(Key.anchor,
                    help: "Corner (or centre) of the frame the image is placed against."),
            .float(Key.x, default: 0, unit: "px", help: "Horizontal offset from the anchor, inwards (from the centre: rightwards)."),
            .float(Key.y, default: 0, unit: "px", help: "Vertical offset from the anchor, inwards (from the centre: downwards)."),
            .float(Key.opacity, default: 1, min: 0, max: 1, help: "Multiplies the image's alpha."),
            ColorSpace.parameter,
        ],
        example: "overlay:file=logo.png:anchor=bottomright:x=16:y=16:opacity=0.8"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    /// The corner (or the centre) the image is placed against.
    enum Anchor: String, ChoiceOption { case topleft, topright, bottomleft, bottomright, center }

    private enum Key {
        static let file = ParameterKey<String>("file")
        static let anchor = ParameterKey<Anchor>("anchor")
        static let x = ParameterKey<Double>("x")
        static let y = ParameterKey<Double>("y")
        static let opacity = ParameterKey<Double>("opacity")
    }

    private let image: Frame
    private let anchor: Anchor
    private let offset: (x: Int, y: Int)
    /// Image alpha scaled by the opacity, 0…255 per image pixel's alpha byte.
    private let alphaScale: Float
    private let space: ColorSpace

    public init(parameters: Parameters, resources: EffectResources) throws(EffectError) {
        let path = parameters[Key.file]
        guard let loader = resources.loadImage else { throw EffectError("\(path): overlay images need an image loader") }
        do { image = try loader(path) } catch { throw EffectError("overlay: \(error)") }
        anchor = parameters[Key.anchor]
        offset = (Int(parameters[Key.x].rounded()), Int(parameters[Key.y].rounded()))
        alphaScale = Float(parameters[Key.opacity])
        space = ColorSpace(parameters)
    }

    /// The image's top-left corner in a `width`×`height` frame.
    func origin(width: Int, height: Int) -> (x: Int, y: Int) {
        let (w, h) = (image.width, image.height)
        switch anchor {
        case .topright: return (width - w - offset.x, offset.y)
        case .bottomleft: return (offset.x, height - h - offset.y)
        case .bottomright: return (width - w - offset.x, height - h - offset.y)
        case .center: return ((width - w) / 2 + offset.x, (height - h) / 2 + offset.y)
        case .topleft: return (offset.x, offset.y)
        }
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        let o = origin(width: context.width, height: context.height)
        let iy = y - o.y
        guard iy >= 0 && iy < image.height else { return }
        // The span's columns that the image covers.
        let lo = max(x, o.x), hi = min(x + count, o.x + image.width)
        guard lo < hi else { return }
        let opacity = alphaScale, linear = space == .linear
        image.withUnsafeBytes { bytes in
            let row = bytes.baseAddress!.assumingMemoryBound(to: UInt32.self) + iy * (image.bytesPerRow / 4) - o.x
            LinearLight.shared.withTables { lin, enc in
                for px in lo..<hi {
                    let s = row[px], b = pixels[px - x]
                    let sa = Float(Int32(bitPattern: s >> 24)) * (1 / 255 as Float) * opacity
                    if sa == 0 { continue }
                    let ba = Float(Int32(bitPattern: b >> 24)) * (1 / 255 as Float)
                    let oa = sa + ba * (1 - sa)
                    let kb = ba * (1 - sa) / oa, ks = sa / oa
                    @inline(__always) func channel(_ shift: UInt32) -> UInt32 {
                        let cs = Int((s >> shift) & 0xFF), cb = Int((b >> shift) & 0xFF)
                        if linear { return LinearLight.encodeByte(lin[cs] * ks + lin[cb] * kb, enc) }
                        return roundedByte(Float(Int32(cs)) * ks + Float(Int32(cb)) * kb)
                    }
                    pixels[px - x] = roundedByte(oa * 255) << 24 | channel(16) << 16 | channel(8) << 8 | channel(0)
                }
            }
        }
    }
}
