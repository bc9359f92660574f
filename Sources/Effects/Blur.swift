import CPixelKernels
import Foundation
import FrameCore
import Synchronization

/// Blurs the picture: a Gaussian (`sigma` in pixels, as OpenCV's `GaussianBlur` and
/// ffmpeg's `gblur`), a box (`mode=box`, the mean of a `(2·radius + 1)²` square, as
/// `avgblur`), or a motion blur (`mode=motion`: the mean along a line `length` pixels
/// long at `angle` degrees, as Core Image's CIMotionBlur). Edges are replicated.
///
/// The Gaussian and the box are separable: every row, then every column, each on all
/// cores. Below σ = 3 the Gaussian is its own kernel (taps to 4σ, OpenCV's length for
/// floats); from 3 on, five box passes with fractional ends of the same variance
/// (Gwosdek et al.'s extended box), whose cost does not grow with sigma; from 8 on, the
/// boxes run on a picture reduced by blocks of 2, 4 or 8 (with the edge pixels repeated
/// around it) and are interpolated back, so a large blur costs less than a small one.
/// All stay within a level or two of the exact blur (tests hold them to ≥ 45 dB against
/// OpenCV, edges included). In sRGB-encoded values by default, as ffmpeg and OpenCV blur; `space=linear`
/// mixes light, as a lens does. Alpha is blurred as it is.
public struct Blur: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "blur", category: .blur, summary: "Gaussian, box or motion blur, at any radius for the same cost.",
        parameters: [
            .choice(Key.mode, default: .gaussian,
                    help: "gaussian: a bell-shaped blur of sigma; box: the mean of a square; motion: the mean along a line."),
            .float(Key.sigma, default: 4, min: 0, max: 500, help: "gaussian: the standard deviation in pixels (0 leaves the picture as it is)."),
            .int(Key.radius, default: 4, min: 0, max: 2000, help: "box: half the square's side, not counting the centre pixel."),
            .float(Key.length, default: 20, min: 0, max: 2000, help: "motion: the line's length in pixels."),
            .float(Key.angle, default: 0, min: -360, max: 360, help: "motion: the line's direction in degrees, anticlockwise from the right."),
            .choice(ColorSpace.key, default: .encoded,
                    help: "encoded: mix the sRGB values, as ffmpeg and OpenCV do; linear: mix light, as a lens does."),
        ],
        example: "blur:sigma=6"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    /// The blur's kind.
    enum Mode: String, ChoiceOption { case gaussian, box, motion }

    private enum Key {
        static let mode = ParameterKey<Mode>("mode")
        static let sigma = ParameterKey<Double>("sigma")
        static let radius = ParameterKey<Int>("radius")
        static let length = ParameterKey<Double>("length")
        static let angle = ParameterKey<Double>("angle")
    }

    /// Sigmas below this use the Gaussian's own taps; from it on, the box passes.
    static let boxesFrom = 3.0
    /// The least sigma a blur on a reduced picture keeps: above 4σ the picture is
    /// reduced by the largest power of two that leaves this much (a sigma of 16 blurs a
    /// picture 4 times smaller with a sigma near 4), which makes a large blur cheaper than
    /// a small one while interpolation and the blocks' aliasing stay below half a level.
    static let reducedSigma = 4.0
    /// Box passes per axis for a Gaussian: the step response is within 0.6% of the
    /// Gaussian's (three passes: 1.1%).
    static let gaussianPasses: Int32 = 5

    private enum Plan: Sendable {
        case identity
        /// One filter for both axes: box passes, or taps when `weights` is not empty.
        case separable(passes: Int32, radius: Int32, alpha: Float, weights: [Float])
        /// Box passes on a picture 2^shift times smaller, interpolated back.
        case reduced(shift: Int32, passes: Int32, radius: Int32, alpha: Float)
        /// Pixel offsets and weights: a motion blur's bilinear reads, merged.
        case sparse(dx: [Int32], dy: [Int32], weights: [Float])
    }

    private let plan: Plan
    private let linear: Bool

    public init(parameters: Parameters, resources: EffectResources) {
        linear = ColorSpace(parameters) == .linear
        switch parameters[Key.mode] {
        case .box:
            let r = parameters[Key.radius]
            plan = r == 0 ? .identity : .separable(passes: 1, radius: Int32(r), alpha: 0, weights: [])
        case .motion:
            let length = parameters[Key.length]
            plan = length < 0.5 ? .identity : Self.motion(length: length, angle: parameters[Key.angle] * .pi / 180)
        case .gaussian:
            plan = Self.gaussian(sigma: parameters[Key.sigma])
        }
    }

    /// The plan for a Gaussian of `sigma` pixels.
    private static func gaussian(sigma: Double) -> Plan {
        guard sigma > 0.05 else { return .identity }
        if sigma < boxesFrom {
            // OpenCV's length for float pictures: round(8σ + 1), made odd.
            let radius = max(1, (Int((8 * sigma + 1).rounded()) | 1) / 2)
            var weights = (0...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
            let total = weights[0] + 2 * weights.dropFirst().reduce(0, +)
            weights = weights.map { $0 / total }
            return .separable(passes: 0, radius: Int32(radius), alpha: 0, weights: weights.map(Float.init))
        }
        // A picture 2^shift times smaller, as long as the blur there keeps a sigma of
        // reducedSigma or more: the variance the block means and the interpolation add
        // (a box of F samples, (F² − 1)/12; a linear interpolation at fraction t,
        // t(1 − t)·F², averaged over the F phases) comes off the blur's.
        var shift = 0
        while shift < 3, sigma / Double(2 << shift) >= reducedSigma { shift += 1 }
        if shift > 0 {
            let f = Double(1 << shift)
            let phases = (0..<(1 << shift)).map { j -> Double in
                let at = (Double(j) + 0.5) / f - 0.5, t = at - at.rounded(.down)
                return t * (1 - t)
            }
            let added = (f * f - 1) / 12 + f * f * phases.reduce(0, +) / f
            let boxes = extendedBoxes(sigma: ((sigma * sigma - added) / (f * f)).squareRoot())
            return .reduced(shift: Int32(shift), passes: gaussianPasses, radius: boxes.radius, alpha: boxes.alpha)
        }
        let boxes = extendedBoxes(sigma: sigma)
        return .separable(passes: gaussianPasses, radius: boxes.radius, alpha: boxes.alpha, weights: [])
    }

    /// Each of `gaussianPasses` box passes with a variance of σ²/passes: the widest whole
    /// radius r with a variance no greater, and end taps of weight alpha for the rest.
    private static func extendedBoxes(sigma: Double) -> (radius: Int32, alpha: Float) {
        let passes = Double(gaussianPasses), s2 = sigma * sigma / passes
        let r = Int((0.5 * (12 * s2 + 1).squareRoot() - 0.5).rounded(.down))
        let rr = Double(r)
        let alpha = (2 * rr + 1) * (s2 - rr * (rr + 1) / 3) / (2 * ((rr + 1) * (rr + 1) - s2))
        return (Int32(r), Float(alpha))
    }

    /// The plan for a line `length` pixels long at `angle` radians: `⌈length⌉ + 1` reads
    /// evenly along it (a pixel apart or closer, so the line leaves no gaps), each
    /// bilinear. Every pixel reads at the same offsets, so each read is four whole-pixel
    /// taps with the same weights everywhere (clamping a read to the picture is
    /// clamping its taps): one sparse kernel, taps at the same place merged.
    private static func motion(length: Double, angle: Double) -> Plan {
        let taps = Int(length.rounded(.up)) + 1
        let dx = cos(angle) * length, dy = -sin(angle) * length
        var weights: [SIMD2<Int32>: Double] = [:]
        for k in 0..<taps {
            let t = Double(k) / Double(taps - 1) - 0.5
            let ox = t * dx, oy = t * dy
            let x0 = ox.rounded(.down), y0 = oy.rounded(.down), fx = ox - x0, fy = oy - y0
            let base = SIMD2(Int32(x0), Int32(y0))
            for (offset, w) in [(SIMD2<Int32>(0, 0), (1 - fx) * (1 - fy)), (SIMD2(1, 0), fx * (1 - fy)),
                                (SIMD2(0, 1), (1 - fx) * fy), (SIMD2(1, 1), fx * fy)] where w > 0 {
                weights[base &+ offset, default: 0] += w / Double(taps)
            }
        }
        let entries = weights.sorted { ($0.key.y, $0.key.x) < ($1.key.y, $1.key.x) }
        return .sparse(dx: entries.map { $0.key.x }, dy: entries.map { $0.key.y }, weights: entries.map { Float($0.value) })
    }

    public func render(_ source: SourceImage, into destination: UnsafeMutablePointer<UInt32>, destinationStride: Int,
                       context: RenderContext) {
        if case .sparse = plan {
            // The picture as floats once (the identity kernel), then the kernel's rows.
            let picture = Self.pictures.take(source.width * source.height * 4)
            defer { Self.pictures.give(picture) }
            let pictureBase = UInt(bitPattern: picture.baseAddress!), destinationBase = UInt(bitPattern: destination)
            withLightTables { decode, encode in
                let decodeBase = UInt(bitPattern: decode), encodeBase = UInt(bitPattern: encode)
                Bands.run(height: source.height) { rows in
                    decodeRows(source, into: UnsafeMutablePointer(bitPattern: pictureBase)!, rows: rows,
                               decode: UnsafePointer(bitPattern: decodeBase))
                }
                Bands.run(height: source.height) { rows in
                    renderSparse(UnsafePointer(bitPattern: pictureBase)!, width: source.width, height: source.height,
                                 into: UnsafeMutablePointer(bitPattern: destinationBase)!, destinationStride: destinationStride,
                                 rows: rows, encode: UnsafePointer(bitPattern: encodeBase))
                }
            }
            return
        }
        if case .reduced(let shift, let passes, let radius, let alpha) = plan {
            renderReduced(source, into: destination, destinationStride: destinationStride, passes: passes, radius: radius, alpha: alpha,
                          shift: shift)
            return
        }
        guard case .separable(let passes, let radius, let alpha, let weights) = plan else {
            let base = UInt(bitPattern: destination)
            Bands.run(height: source.height) { rows in
                render(source, into: UnsafeMutablePointer<UInt32>(bitPattern: base)!, destinationStride: destinationStride,
                       rows: rows, context: context)
            }
            return
        }
        let w = source.width, h = source.height
        let picture = Self.pictures.take(w * h * 4)
        defer { Self.pictures.give(picture) }
        let pictureBase = UInt(bitPattern: picture.baseAddress!), destinationBase = UInt(bitPattern: destination)
        weights.withUnsafeBufferPointer { taps in
            let tapsBase = UInt(bitPattern: taps.baseAddress)
            @Sendable func axis() -> vfx_blur_axis {
                vfx_blur_axis(passes: passes, radius: radius, alpha: alpha, weights: UnsafePointer(bitPattern: tapsBase))
            }
            withLightTables { decode, encode in
                let decodeBase = UInt(bitPattern: decode), encodeBase = UInt(bitPattern: encode)
                // Every row into the float picture, then every column out of it: each pass
                // in bands across all cores, each band with its own scratch lines.
                Bands.run(height: h) { rows in
                    var axis = axis()
                    let scratch = UnsafeMutablePointer<Float>.allocate(capacity: vfx_blur_row_scratch(&axis, Int32(w)))
                    defer { scratch.deallocate() }
                    vfx_blur_rows(&axis, source.base, source.stride, UnsafeMutablePointer<Float>(bitPattern: pictureBase), w * 4,
                                  Int32(w), Int32(rows.lowerBound), Int32(rows.upperBound),
                                  UnsafePointer<Float>(bitPattern: decodeBase), scratch)
                }
                // Bands of columns this time (Bands splits any range).
                Bands.run(height: w, minimumRows: 32) { columns in
                    var axis = axis()
                    let scratch = UnsafeMutablePointer<Float>.allocate(capacity: vfx_blur_column_scratch(&axis, Int32(h)))
                    defer { scratch.deallocate() }
                    vfx_blur_columns(&axis, UnsafePointer<Float>(bitPattern: pictureBase), w * 4, Int32(h),
                                     UnsafeMutablePointer<UInt32>(bitPattern: destinationBase), destinationStride,
                                     Int32(columns.lowerBound), Int32(columns.upperBound), 0, Int32(h),
                                     UnsafePointer<UInt8>(bitPattern: encodeBase), scratch)
                }
            }
        }
    }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>,
                       context: RenderContext) {
        switch plan {
        case .identity:
            for y in rows { (dst + y * destinationStride).update(from: src.row(y), count: src.width) }
        case .sparse:
            // The whole picture as floats (a band may read any row), then the band.
            let picture = UnsafeMutablePointer<Float>.allocate(capacity: src.width * src.height * 4)
            defer { picture.deallocate() }
            withLightTables { decode, encode in
                decodeRows(src, into: picture, rows: 0..<src.height, decode: decode)
                renderSparse(picture, width: src.width, height: src.height, into: dst, destinationStride: destinationStride,
                             rows: rows, encode: encode)
            }
        case .reduced(let shift, let passes, let radius, let alpha):
            var axis = vfx_blur_axis(passes: passes, radius: radius, alpha: alpha, weights: nil)
            let w = src.width, h = src.height, f = 1 << Int(shift)
            let ws = Int(vfx_blur_reduced_size(Int32(w), shift)), hs = Int(vfx_blur_reduced_size(Int32(h), shift))
            let reach = Int(vfx_blur_reach(&axis))
            // The reduced rows the band's rows are interpolated from (reduced row i stands
            // at (i − ½)·f − ½), and those their columns reach.
            func below(_ y: Int) -> Int { Int(((Double(y) + 0.5) / Double(f) + 0.5).rounded(.down)) }
            let y0 = max(0, below(rows.lowerBound)), y1 = min(hs - 1, below(rows.upperBound - 1) + 1)
            let first = max(0, y0 - reach), last = min(hs, y1 + 1 + reach), count = last - first
            let a = UnsafeMutablePointer<Float>.allocate(capacity: count * ws * 4)
            let b = UnsafeMutablePointer<Float>.allocate(capacity: count * ws * 4)
            let scratch = UnsafeMutablePointer<Float>.allocate(capacity: max(vfx_blur_row_scratch(&axis, Int32(ws)),
                vfx_blur_column_scratch(&axis, Int32(count)), vfx_blur_expand_scratch(Int32(w), shift), 4 * w))
            defer { a.deallocate(); b.deallocate(); scratch.deallocate() }
            withLightTables { decode, encode in
                vfx_blur_shrink(src.base, src.stride, Int32(w), Int32(h), shift, a, ws * 4, Int32(first), Int32(last), decode, scratch)
                vfx_blur_rows_float(&axis, a, ws * 4, b, ws * 4, Int32(ws), 0, Int32(count), scratch)
                vfx_blur_columns_float(&axis, b, ws * 4, Int32(count), a, ws * 4, 0, Int32(ws), Int32(y0 - first), Int32(y1 + 1 - first),
                                       scratch)
                vfx_blur_expand(a, ws * 4, Int32(first), Int32(hs), shift, dst, destinationStride, Int32(w),
                                Int32(rows.lowerBound), Int32(rows.upperBound), encode, scratch)
            }
        case .separable(let passes, let radius, let alpha, let weights):
            // One band alone: its rows and the rows its columns reach, then its columns.
            let w = src.width, h = src.height
            weights.withUnsafeBufferPointer { taps in
                var axis = vfx_blur_axis(passes: passes, radius: radius, alpha: alpha, weights: taps.baseAddress)
                let reach = Int(vfx_blur_reach(&axis))
                let first = max(0, rows.lowerBound - reach), last = min(h, rows.upperBound + reach)
                let picture = UnsafeMutablePointer<Float>.allocate(capacity: (last - first) * w * 4)
                let scratch = UnsafeMutablePointer<Float>.allocate(
                    capacity: max(vfx_blur_row_scratch(&axis, Int32(w)), vfx_blur_column_scratch(&axis, Int32(rows.count))))
                defer { picture.deallocate(); scratch.deallocate() }
                withLightTables { decode, encode in
                    vfx_blur_rows(&axis, src.base + first * src.stride, src.stride, picture, w * 4, Int32(w), 0, Int32(last - first),
                                  decode, scratch)
                    // Clamping to the band's rows is clamping to the picture: the band
                    // reads past its own rows only where the picture goes on.
                    vfx_blur_columns(&axis, picture, w * 4, Int32(last - first), dst + first * destinationStride, destinationStride,
                                     0, Int32(w), Int32(rows.lowerBound - first), Int32(rows.upperBound - first), encode, scratch)
                }
            }
        }
    }

    /// A Gaussian on the reduced picture: blocks averaged, rows, columns, then every output
    /// row interpolated, each step in bands across all cores.
    private func renderReduced(_ source: SourceImage, into destination: UnsafeMutablePointer<UInt32>, destinationStride: Int,
                               passes: Int32, radius: Int32, alpha: Float, shift: Int32) {
        let w = source.width, h = source.height
        let ws = Int(vfx_blur_reduced_size(Int32(w), shift)), hs = Int(vfx_blur_reduced_size(Int32(h), shift))
        let a = Self.pictures.take(ws * hs * 4), b = Self.pictures.take(ws * hs * 4)
        defer { Self.pictures.give(a); Self.pictures.give(b) }
        let aBase = UInt(bitPattern: a.baseAddress!), bBase = UInt(bitPattern: b.baseAddress!)
        let destinationBase = UInt(bitPattern: destination)
        withLightTables { decode, encode in
            let decodeBase = UInt(bitPattern: decode), encodeBase = UInt(bitPattern: encode)
            Bands.run(height: hs, minimumRows: 8) { rows in
                let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 4 * w)
                defer { scratch.deallocate() }
                vfx_blur_shrink(source.base, source.stride, Int32(w), Int32(h), shift,
                                UnsafeMutablePointer<Float>(bitPattern: aBase)! + rows.lowerBound * ws * 4, ws * 4,
                                Int32(rows.lowerBound), Int32(rows.upperBound), UnsafePointer(bitPattern: decodeBase), scratch)
            }
            Bands.run(height: hs, minimumRows: 8) { rows in
                var axis = vfx_blur_axis(passes: passes, radius: radius, alpha: alpha, weights: nil)
                let scratch = UnsafeMutablePointer<Float>.allocate(capacity: vfx_blur_row_scratch(&axis, Int32(ws)))
                defer { scratch.deallocate() }
                vfx_blur_rows_float(&axis, UnsafePointer(bitPattern: aBase), ws * 4, UnsafeMutablePointer(bitPattern: bBase), ws * 4,
                                    Int32(ws), Int32(rows.lowerBound), Int32(rows.upperBound), scratch)
            }
            Bands.run(height: ws, minimumRows: 32) { columns in
                var axis = vfx_blur_axis(passes: passes, radius: radius, alpha: alpha, weights: nil)
                let scratch = UnsafeMutablePointer<Float>.allocate(capacity: vfx_blur_column_scratch(&axis, Int32(hs)))
                defer { scratch.deallocate() }
                vfx_blur_columns_float(&axis, UnsafePointer(bitPattern: bBase), ws * 4, Int32(hs), UnsafeMutablePointer(bitPattern: aBase),
                                       ws * 4, Int32(columns.lowerBound), Int32(columns.upperBound), 0, Int32(hs), scratch)
            }
            Bands.run(height: h) { rows in
                let scratch = UnsafeMutablePointer<Float>.allocate(capacity: vfx_blur_expand_scratch(Int32(w), shift))
                defer { scratch.deallocate() }
                vfx_blur_expand(UnsafePointer(bitPattern: aBase), ws * 4, 0, Int32(hs), shift,
                                UnsafeMutablePointer(bitPattern: destinationBase), destinationStride, Int32(w),
                                Int32(rows.lowerBound), Int32(rows.upperBound), UnsafePointer(bitPattern: encodeBase), scratch)
            }
        }
    }

    /// The decode and encode tables in linear mode, nil in encoded mode.
    private func withLightTables<R>(_ body: (UnsafePointer<Float>?, UnsafePointer<UInt8>?) -> R) -> R {
        linear ? LinearLight.shared.withTables { body($0, $1) } : body(nil, nil)
    }

    /// Rows `rows` of `source` as 4 floats a pixel (through `decode` when not nil).
    private func decodeRows(_ source: SourceImage, into picture: UnsafeMutablePointer<Float>, rows: Range<Int>,
                            decode: UnsafePointer<Float>?) {
        let one: [Float] = [1]
        one.withUnsafeBufferPointer { weight in
            var identity = vfx_blur_axis(passes: 0, radius: 0, alpha: 0, weights: weight.baseAddress)
            let scratch = UnsafeMutablePointer<Float>.allocate(capacity: vfx_blur_row_scratch(&identity, Int32(source.width)))
            defer { scratch.deallocate() }
            vfx_blur_rows(&identity, source.base, source.stride, picture, source.width * 4, Int32(source.width),
                          Int32(rows.lowerBound), Int32(rows.upperBound), decode, scratch)
        }
    }

    /// Output rows `rows` of the sparse kernel over the float picture.
    private func renderSparse(_ picture: UnsafePointer<Float>, width: Int, height: Int, into dst: UnsafeMutablePointer<UInt32>,
                              destinationStride: Int, rows: Range<Int>, encode: UnsafePointer<UInt8>?) {
        guard case .sparse(let dx, let dy, let weights) = plan else { return }
        let acc = UnsafeMutablePointer<Float>.allocate(capacity: width * 4)
        defer { acc.deallocate() }
        vfx_blur_sparse(picture, width * 4, Int32(width), Int32(height), dst, destinationStride, Int32(rows.lowerBound),
                        Int32(rows.upperBound), Int32(dx.count), dx, dy, weights, encode, acc)
    }

    /// Float pictures for the row pass's output, kept between frames: 33 MB at 1080p,
    /// which would otherwise be mapped and faulted in afresh for every frame.
    private static let pictures = FloatPictures()
}

/// A few float buffers kept for reuse, of whatever size was last asked for.
final class FloatPictures: Sendable {
    /// Free buffers as (address, count): at most `kept`, one per frame rendering at once.
    private let free = Mutex<[(UInt, Int)]>([])
    private let kept = 2

    /// A buffer of `count` floats (contents undefined); give it back when done.
    func take(_ count: Int) -> UnsafeMutableBufferPointer<Float> {
        let reused: UInt? = free.withLock { buffers in
            guard let i = buffers.firstIndex(where: { $0.1 == count }) else { return nil }
            return buffers.remove(at: i).0
        }
        if let reused { return UnsafeMutableBufferPointer(start: UnsafeMutablePointer(bitPattern: reused), count: count) }
        return UnsafeMutableBufferPointer.allocate(capacity: count)
    }

    /// Returns a buffer from ``take(_:)``; kept unless enough are kept already.
    func give(_ buffer: UnsafeMutableBufferPointer<Float>) {
        let entry = (UInt(bitPattern: buffer.baseAddress!), buffer.count)
        let dropped: [(UInt, Int)] = free.withLock { buffers in
            buffers.insert(entry, at: 0)
            let extra = Array(buffers.dropFirst(kept))
            buffers.removeLast(extra.count)
            return extra
        }
        for (address, _) in dropped { UnsafeMutablePointer<Float>(bitPattern: address)?.deallocate() }
    }
}
