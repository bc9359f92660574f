import FrameCore

/// Redacts every face found in the frame: an ellipse (or box) over the head — the face
/// box grown by `padding`, and upwards for the hair — is blurred beyond recognition,
/// pixelated, or filled with a colour, with a feathered edge. Heads that touch are
/// redacted as one region. Everything outside those shapes is left exactly as it was.
///
/// The blur is a smooth mosaic: the region is cut into blocks of the largest face's
/// size divided by `strength`, each block averaged, and every pixel interpolated
/// bilinearly between the averages of the four nearest blocks. No detail smaller than
/// a block survives (the point of redaction), and no block edges show (the point of a
/// blur). The default, 2 blocks across a head, leaves no face that CenterFace (at 0.5)
/// or OpenCV's Haar cascade finds again on testmedia's crowds (docs/detection.md); at 4
/// and above some blurred faces are found again.
public struct FaceBlur: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "faceblur", category: .detection, summary: "Blur, pixelate or fill every face (redaction).",
        parameters: [
            .choice("mode", ["blur", "pixelate", "fill", "erase"], help: "blur: smooth, no detail left; pixelate: visible blocks; fill: a solid colour; erase: the head painted over from what surrounds it (no silhouette left)."),
            .float("padding", default: 0.3, min: 0, max: 2, slider: 0...1, help: "How much larger than the face box, as a fraction of its size on each side."),
            .float("feather", default: 0.08, min: 0, max: 0.5, slider: 0...0.3, help: "Soft edge, as a fraction of the shape's radius (0: hard)."),
            .choice("shape", ["ellipse", "box"], help: "The redacted shape around each face."),
            .int("strength", default: 2, min: 2, max: 64, slider: 2...24, help: "Blocks across a head (fewer: less detail left; above 2 a detector may find the face again)."),
            .color("color", default: (0, 0, 0, 1), help: "The fill colour (mode=fill)."),
        ],
        example: "faceblur:mode=pixelate:padding=0.4"
    )

    public static var needs: DetectionNeeds { .faces }

    private enum Mode { case blur, pixelate, fill, erase }
    private let mode: Mode
    private let padding: Double
    private let feather: Double
    private let ellipse: Bool
    private let strength: Int
    private let fill: UInt32

    public init(parameters: Parameters, resources: EffectResources) {
        mode = switch parameters.text("mode") { case "pixelate": .pixelate; case "fill": .fill; case "erase": .erase; default: .blur }
        padding = parameters.double("padding")
        feather = parameters.double("feather")
        ellipse = parameters.text("shape") == "ellipse"
        strength = parameters.int("strength")
        fill = Annotation.pixel(parameters.vector("color"))
    }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        Annotation.copy(src, into: dst, stride: destinationStride, rows: rows)
        let heads = context.observations.lazy.filter { $0.kind == .face }.map { FaceBlur.head(of: $0.bounds, padding: self.padding) }
            .filter { $0.x.isFinite && $0.y.isFinite && $0.width.isFinite && $0.height.isFinite && $0.width > 0 && $0.height > 0 }
        for cluster in FaceBlur.clusters(Array(heads)) {
            redact(cluster, src: src, dst: dst, stride: destinationStride, rows: rows)
        }
    }

    /// The shape redacted for a face box: the box grown by `padding` of its size on each
    /// side, and by another sixth of its height upwards. A face detector's box runs from
    /// the brows to the chin; the hair above it is as telling as the face.
    static func head(of face: Rect, padding: Double) -> Rect {
        let up = face.height / 6
        return Rect(x: face.x - face.width * padding, y: face.y - face.height * padding - up,
                    width: face.width * (1 + 2 * padding), height: face.height * (1 + 2 * padding) + up)
    }

    /// Shapes whose boxes touch, grouped: each group is redacted as one region over one
    /// block grid. Redacted one by one, overlapping faces each leave their own smooth
    /// ellipse with an edge through the other, and edges and shading are what a face
    /// detector looks for.
    static func clusters(_ shapes: [Rect]) -> [[Rect]] {
        var group = Array(shapes.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while group[i] != i { group[i] = group[group[i]]; i = group[i] }
            return i
        }
        for i in shapes.indices {
            for j in shapes.indices where j > i {
                let (a, b) = (shapes[i], shapes[j])
                if a.x <= b.x + b.width, b.x <= a.x + a.width, a.y <= b.y + b.height, b.y <= a.y + a.height {
                    group[root(i)] = root(j)
                }
            }
        }
        var byRoot: [Int: [Rect]] = [:]
        var order: [Int] = []
        for i in shapes.indices {
            let r = root(i)
            if byRoot[r] == nil { order.append(r) }
            byRoot[r, default: []].append(shapes[i])
        }
        return order.map { byRoot[$0]! }
    }

    private func redact(_ shapes: [Rect], src: SourceImage, dst: UnsafeMutablePointer<UInt32>, stride: Int, rows: Range<Int>) {
        let (w, h) = (src.width, src.height)
        // Clipped to the frame in floating point first: a box carried along its track
        // can leave the frame, and Int() of a huge value traps.
        func clip(_ v: Double, _ limit: Int) -> Int { Int(max(0, min(Double(limit), v))) }
        let left = shapes.map(\.x).min()!, right = shapes.map { $0.x + $0.width }.max()!
        let upper = shapes.map(\.y).min()!, lower = shapes.map { $0.y + $0.height }.max()!
        let x0 = clip(left.rounded(.down), w), x1 = clip(right.rounded(.up), w)
        let y0 = clip(upper.rounded(.down), h), y1 = clip(lower.rounded(.up), h)
        guard x0 < x1, y0 < y1 else { return }
        let top = max(y0, rows.lowerBound), bottom = min(y1, rows.upperBound)
        guard top < bottom else { return }
        // Blocks over the whole (clipped) region, so that every band sees the same grid;
        // their size follows the largest face in it.
        let largest = shapes.map { max($0.width, $0.height) }.max()!
        let block = max(2, Int((largest / Double(strength)).rounded(.up)))
        let columns = (x1 - x0 + block - 1) / block
        let inner = max(0, 1 - feather)
        let ellipse = self.ellipse

        /// How much of pixel (x, y) is redacted: 1 inside a shape, falling to 0 across the
        /// feathered edge, the most of any shape of the group.
        func cover(_ x: Int, _ y: Int) -> Float {
            var best: Float = 0
            for s in shapes {
                let nx = (Double(x) + 0.5 - (s.x + s.width / 2)) / max(s.width / 2, 0.5)
                let ny = (Double(y) + 0.5 - (s.y + s.height / 2)) / max(s.height / 2, 0.5)
                let d = ellipse ? (nx * nx + ny * ny).squareRoot() : max(abs(nx), abs(ny))
                guard d < 1 else { continue }
                if d <= inner { return 1 }
                best = max(best, Float((1 - d) / (1 - inner)))
            }
            return best
        }

        let blockRows = (y1 - y0 + block - 1) / block

        // Averages, blends and the feathered edge work on premultiplied colour (Core
        // Image's maths), so transparent pixels' colours do not bleed in. For opaque
        // pixels premultiplying is exact and changes nothing.
        let premultiplied = Pixel.premultiplied

        /// The average of block (bx, by) of the grid (clamped to it), premultiplied.
        func average(_ bx: Int, _ by: Int) -> SIMD4<Float> {
            let bx = max(0, min(columns - 1, bx)), by = max(0, min(blockRows - 1, by))
            let ax = x0 + bx * block, ay = y0 + by * block
            let ex = min(x1, ax + block), ey = min(y1, ay + block)
            var sum = SIMD4<Float>()
            for y in ay..<ey {
                let row = src.row(y)
                for x in ax..<ex { sum += premultiplied(row[x]) }
            }
            return sum / Float((ex - ax) * (ey - ay))
        }

        /// A premultiplied value back to a straight BGRA pixel.
        func pack(_ v: SIMD4<Float>) -> UInt32 {
            let a = v[3]
            guard a > 0 else { return 0 }
            var straight = v * (255 / a)
            straight[3] = a
            let c = SIMD4<UInt32>((straight + 0.5).clamped(lowerBound: SIMD4(repeating: 0), upperBound: SIMD4(repeating: 255)))
            return c[0] | c[1] << 8 | c[2] << 16 | c[3] << 24
        }

        // erase: the colours just outside the region's four sides, smoothed along them.
        let edges = mode == .erase ? RegionEdges(src: src, x0: x0, x1: x1, y0: y0, y1: y1, smoothing: max(1, block / 2)) : nil

        // Two rows of block averages: the rows above and below the current pixel row.
        withUnsafeTemporaryAllocation(of: SIMD4<Float>.self, capacity: 2 * columns) { cache in
            var cached = Int.min
            for y in top..<bottom {
                var by: Int, ty: Float = 0
                if mode == .blur {
                    let fy = (Double(y - y0) + 0.5) / Double(block) - 0.5
                    by = Int(fy.rounded(.down))
                    ty = Float(fy - Double(by))
                } else {
                    by = (y - y0) / block
                }
                if mode != .fill && mode != .erase && by != cached {
                    for bx in 0..<columns {
                        cache[bx] = average(bx, by)
                        if mode == .blur { cache[columns + bx] = average(bx, by + 1) }
                    }
                    cached = by
                }
                let row = src.row(y), out = dst + y * stride
                for x in x0..<x1 {
                    let cover = cover(x, y)
                    guard cover > 0 else { continue }
                    let value: SIMD4<Float>
                    switch mode {
                    case .fill:
                        value = premultiplied(fill)
                    case .erase:
                        value = edges!.patch(x, y)
                    case .pixelate:
                        value = cache[(x - x0) / block]
                    case .blur:
                        let fx = (Double(x - x0) + 0.5) / Double(block) - 0.5
                        let bx = Int(fx.rounded(.down)), tx = Float(fx - Double(bx))
                        let l = max(0, min(columns - 1, bx)), r = max(0, min(columns - 1, bx + 1))
                        let upper = cache[l] + (cache[r] - cache[l]) * tx
                        let lower = cache[columns + l] + (cache[columns + r] - cache[columns + l]) * tx
                        value = upper + (lower - upper) * ty
                    }
                    if cover >= 1 {
                        out[x] = pack(value)
                    } else {
                        let original = premultiplied(row[x])
                        out[x] = pack(original + (value - original) * cover)
                    }
                }
            }
        }
    }
}

/// The premultiplied colours along the four sides just outside a region (smoothed along
/// each side), and the Coons patch between them: a surface that meets all four sides, so
/// what was inside the region is painted over by what surrounds it. A side at the frame's
/// edge has nothing outside it and takes the opposite side's colours.
private struct RegionEdges {
    let x0: Int, x1: Int, y0: Int, y1: Int
    var top: [SIMD4<Float>], bottom: [SIMD4<Float>], left: [SIMD4<Float>], right: [SIMD4<Float>]

    init(src: SourceImage, x0: Int, x1: Int, y0: Int, y1: Int, smoothing: Int) {
        (self.x0, self.x1, self.y0, self.y1) = (x0, x1, y0, y1)
        let premultiplied = Pixel.premultiplied
        func line(_ count: Int, _ pixel: (Int) -> UInt32) -> [SIMD4<Float>] {
            let raw = (0..<count).map { premultiplied(pixel($0)) }
            // A running mean along the side: one odd pixel must not streak across the patch.
            return (0..<count).map { i in
                let a = max(0, i - smoothing), b = min(count - 1, i + smoothing)
                var sum = SIMD4<Float>()
                for j in a...b { sum += raw[j] }
                return sum / Float(b - a + 1)
            }
        }
        let (w, h) = (src.width, src.height)
        let hasTop = y0 > 0, hasBottom = y1 < h, hasLeft = x0 > 0, hasRight = x1 < w
        let topRow = hasTop ? y0 - 1 : (hasBottom ? y1 : y0), bottomRow = hasBottom ? y1 : topRow
        let leftColumn = hasLeft ? x0 - 1 : (hasRight ? x1 : x0), rightColumn = hasRight ? x1 : leftColumn
        top = line(x1 - x0) { src.row(topRow)[x0 + $0] }
        bottom = line(x1 - x0) { src.row(bottomRow)[x0 + $0] }
        left = line(y1 - y0) { src.row(y0 + $0)[leftColumn] }
        right = line(y1 - y0) { src.row(y0 + $0)[rightColumn] }
    }

    /// The patch at pixel (x, y) of the region.
    func patch(_ x: Int, _ y: Int) -> SIMD4<Float> {
        let i = x - x0, j = y - y0
        let u = Float(Double(i) + 0.5) / Float(x1 - x0), v = Float(Double(j) + 0.5) / Float(y1 - y0)
        let (t, b, l, r) = (top[i], bottom[i], left[j], right[j])
        // The corners: where two sides meet, their average.
        let tl = (top[0] + left[0]) / 2, tr = (top[top.count - 1] + right[0]) / 2
        let bl = (bottom[0] + left[left.count - 1]) / 2, br = (bottom[bottom.count - 1] + right[right.count - 1]) / 2
        let ruled = t * (1 - v) + b * v + l * (1 - u) + r * u
        let corners = tl * ((1 - u) * (1 - v)) + tr * (u * (1 - v)) + bl * ((1 - u) * v) + br * (u * v)
        return (ruled - corners).clamped(lowerBound: SIMD4(repeating: 0), upperBound: SIMD4(repeating: 255))
    }
}
