import Foundation

/// Turns the picture clockwise about its centre. A quarter, a half or three quarters turn
/// exactly (FFmpeg's `transpose=clock`, `hflip,vflip` and `transpose=cclock`), a quarter
/// turn swapping the width and the height, which is what a phone's sideways clip needs;
/// any other angle turns within the frame's own size, read bilinear, the corners it
/// uncovers filled with a colour (FFmpeg's `rotate`).
public struct Rotate: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "rotate", category: .geometry,
        summary: "Turn the picture clockwise: 90, 180 or 270 exactly (90 and 270 swap width and height), any other angle within the frame, filled.",
        parameters: [
            .float(Key.angle, default: 90, min: -360, max: 360, slider: -180...180, unit: "deg",
                   help: "Degrees clockwise; negative turns counter-clockwise."),
            .color(Key.fill, default: (0, 0, 0, 1), help: "The uncovered corners' colour at other angles: #RRGGBB[AA] or r,g,b[,a] in 0…1."),
        ],
        example: "rotate:angle=12:fill=#202020"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let angle = ParameterKey<Double>("angle")
        static let fill = ParameterKey<[Double]>("fill")
    }

    /// Quarter turns clockwise (0 to 3) when the angle is a whole number of them, else nil.
    private let quarters: Int?
    /// The angle in radians, clockwise.
    private let radians: Double
    private let fill: UInt32

    public init(parameters: Parameters, resources: EffectResources) {
        let degrees = parameters[Key.angle]
        let turned = degrees.truncatingRemainder(dividingBy: 360)
        let whole = (turned < 0 ? turned + 360 : turned) / 90
        quarters = whole == whole.rounded() ? Int(whole) % 4 : nil
        radians = degrees * .pi / 180
        let c = parameters[Key.fill].map { UInt32(ColorSpace.quantize($0)) }
        fill = c[3] << 24 | c[0] << 16 | c[1] << 8 | c[2]
    }

    public func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        quarters.map { $0 % 2 == 0 } ?? true ? (width, height) : (height, width)
    }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        let (w, h) = (src.width, src.height)
        guard let quarters else { return turn(src, into: dst, destinationStride: destinationStride, rows: rows) }
        for y in rows {
            let out = dst + y * destinationStride
            switch quarters {
            case 0:
                out.update(from: src.row(y), count: w)
            case 1:
                // Clockwise: the output's row y is the input's column y, read bottom to top.
                for x in 0..<h { out[x] = src.row(h - 1 - x)[y] }
            case 2:
                let from = src.row(h - 1 - y)
                for x in 0..<w { out[x] = from[w - 1 - x] }
            default:
                // Counter-clockwise: the output's row y is the input's column w − 1 − y, top to bottom.
                for x in 0..<h { out[x] = src.row(x)[w - 1 - y] }
            }
        }
    }

    /// Any other angle: each output pixel's centre turned back about the frame's centre
    /// (y down, so clockwise on screen), read bilinear where it falls inside the picture.
    private func turn(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>) {
        let (w, h) = (src.width, src.height)
        let (c, s) = (Float(cos(radians)), Float(sin(radians)))
        let (cx, cy) = (Float(w) / 2, Float(h) / 2)
        let (fw, fh) = (Float(w), Float(h))
        for y in rows {
            let out = dst + y * destinationStride
            let dy = Float(y) + 0.5 - cy
            for x in 0..<w {
                let dx = Float(x) + 0.5 - cx
                let sx = cx + c * dx + s * dy, sy = cy - s * dx + c * dy
                guard sx >= 0, sy >= 0, sx < fw, sy < fh else { out[x] = fill; continue }
                let (p00, p10, p01, p11, fx, fy) = src.taps(sx, sy)
                var pixel: UInt32 = 0
                for shift: UInt32 in [0, 8, 16, 24] {
                    func ch(_ p: UInt32) -> Float { Float(Int32(truncatingIfNeeded: (p >> shift) & 0xFF)) }
                    let top = ch(p00) + (ch(p10) - ch(p00)) * fx
                    let bottom = ch(p01) + (ch(p11) - ch(p01)) * fx
                    pixel |= UInt32(Int32(top + (bottom - top) * fy + 0.5)) << shift
                }
                out[x] = pixel
            }
        }
    }
}
