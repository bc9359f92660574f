/// Keeps a rectangle of the frame (spec B22, CICrop); the output is the rectangle's
/// size, so what follows in the chain, the encoder and the sinks see smaller frames.
/// The origin is rounded down and the size up to whole pixels; the rectangle is cut to
/// the frame (and keeps at least one pixel).
public struct Crop: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "crop", category: .geometry, summary: "Keep a rectangle of the frame; the output takes its size (Core Image's crop).",
        parameters: [
            .vector(Key.rect, default: [0, 0, 0, 0], min: 0, help: "x,y,width,height in px; a width or height of 0 reaches the frame's edge."),
            .choice(Key.origin, help: "top: y from the top edge (video, FFmpeg); bottom: from the bottom, y up (Core Image)."),
        ],
        example: "crop:rect=160,90,320,180"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    /// Where y is measured from.
    enum Origin: String, ChoiceOption {
        /// The top edge, y down (video, FFmpeg).
        case top
        /// The bottom edge, y up (Core Image).
        case bottom
    }

    private enum Key {
        static let rect = ParameterKey<[Double]>("rect")
        static let origin = ParameterKey<Origin>("origin")
    }

    private let rect: [Double]
    private let fromBottom: Bool

    public init(parameters: Parameters, resources: EffectResources) {
        rect = parameters[Key.rect]
        fromBottom = parameters[Key.origin] == .bottom
    }

    /// The kept pixels of a `width`×`height` frame: columns `x0..<x1`, rows `y0..<y1`.
    func region(width: Int, height: Int) -> (x0: Int, y0: Int, x1: Int, y1: Int) {
        let w = rect[2] > 0 ? rect[2] : Double(width) - rect[0]
        let h = rect[3] > 0 ? rect[3] : Double(height) - rect[1]
        let top = fromBottom ? Double(height) - rect[1] - h : rect[1]
        let x0 = min(max(Int(rect[0].rounded(.down)), 0), width - 1)
        let y0 = min(max(Int(top.rounded(.down)), 0), height - 1)
        let x1 = max(min(Int((rect[0] + w).rounded(.up)), width), x0 + 1)
        let y1 = max(min(Int((top + h).rounded(.up)), height), y0 + 1)
        return (x0, y0, x1, y1)
    }

    public func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let r = region(width: width, height: height)
        return (r.x1 - r.x0, r.y1 - r.y0)
    }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        let r = region(width: src.width, height: src.height)
        for y in rows {
            (dst + y * destinationStride).update(from: src.row(r.y0 + y) + r.x0, count: r.x1 - r.x0)
        }
    }
}
