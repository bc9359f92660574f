import Foundation
import Synchronization

/// How distortions read the source between pixel centres.
public enum Sampling: String, ChoiceOption {
    /// S_bil: bilinear, clamped to the edge (SwiftUI's `layer.sample`, Core Image).
    case bilinear
    /// S_near: the pixel the position falls in (FFmpeg `geq` with integer taps).
    case nearest

    /// The `sample` parameter's key.
    static let key = ParameterKey<Sampling>("sample")

    static let parameter = ParameterSpec.choice(key, help: "bilinear: smooth (Core Image, SwiftUI); nearest: the pixel under the position.")

    init(_ parameters: Parameters) { self = parameters[Self.key] }
}

extension SourceImage {
    /// The source at position (px, py) (pixel centres at +0.5), clamped to the edge.
    /// Bilinear results round to bytes; where a tap is not opaque the mix is premultiplied
    /// (``premultipliedBilinear``), else alpha is 255.
    @inline(__always)
    func sample(_ px: Float, _ py: Float, _ sampling: Sampling) -> UInt32 {
        // Clamp before converting: positions far outside must not trap.
        let fx = px < -1 ? -1 : (px > Float(width + 1) ? Float(width + 1) : px)
        let fy = py < -1 ? -1 : (py > Float(height + 1) ? Float(height + 1) : py)
        if sampling == .nearest { return clamped(Int(fx.rounded(.down)), Int(fy.rounded(.down))) }
        let (r, g, b, allTaps) = bilinearTaps(fx, fy)
        if allTaps >> 24 != 0xFF { return premultipliedSample(fx, fy) }
        return 0xFF00_0000 | roundedByte(r) << 16 | roundedByte(g) << 8 | roundedByte(b)
    }

    @inline(never)
    private func premultipliedSample(_ px: Float, _ py: Float) -> UInt32 {
        let (p00, p10, p01, p11, fx, fy) = taps(px, py)
        return premultipliedBilinear(p00, p10, p01, p11, fx, fy)
    }
}

/// Polynomial atan2, sin and cos for per-pixel geometry: no libm calls, so a row's loop
/// stays in registers. Errors are below 1e-6 rad, a thousandth of a pixel at 1000 px.
enum FastTrig {
    /// atan2(y, x) in (−π, π].
    @inline(__always) static func atan2(_ y: Float, _ x: Float) -> Float {
        let ax = abs(x), ay = abs(y)
        let hi = max(ax, ay), lo = min(ax, ay)
        let a = hi == 0 ? 0 : lo / hi
        let s = a * a
        // Minimax atan on [0, 1].
        var r = ((((-0.011_721_20 * s + 0.052_653_32) * s - 0.116_432_87) * s + 0.193_543_46) * s - 0.332_623_47) * s + 0.999_977_26
        r *= a
        if ay > ax { r = Float.pi / 2 - r }
        if x < 0 { r = Float.pi - r }
        return y < 0 ? -r : r
    }

    /// (cos t, sin t) for t in [−π, π].
    @inline(__always) static func cosSin(_ t: Float) -> (Float, Float) {
        // Fold to u in [−π/2, π/2]: sin(t) = sin(π − t), cos(t) = −cos(π − t).
        var u = t, sign: Float = 1
        if u > Float.pi / 2 { u = Float.pi - u; sign = -1 } else if u < -Float.pi / 2 { u = -Float.pi - u; sign = -1 }
        let u2 = u * u
        let sin = u * (1 + u2 * (-1.0 / 6 + u2 * (1.0 / 120 + u2 * (-1.0 / 5040 + u2 * (1.0 / 362_880 - u2 / 39_916_800)))))
        let cos = 1 + u2 * (-0.5 + u2 * (1.0 / 24 + u2 * (-1.0 / 720 + u2 * (1.0 / 40320 + u2 * (-1.0 / 3_628_800 + u2 / 479_001_600)))))
        return (sign * cos, sin)
    }
}

/// A distortion's output→source map, computed once per frame size and reused: a
/// kaleidoscope's trigonometry costs ~60 ms a 1080p frame, its lookup a few.
///
/// Entries pack the top-left bilinear tap (x0, y0) and the fractions (fx, fy) in
/// 1/65536ths, 16 bits each; x0 = 0xFFFF marks a position outside the source.
///
/// Kept per frame size, a few sizes at once, behind a lock, and handed to renders as an
/// immutable array: one effect object may be prepared and rendered for different sizes
/// on different threads at once (the redaction's recheck runs the chain's effects on its
/// workers), and no render ever reads a map another thread is replacing.
public final class SourceMap: Sendable {
    /// Positions at or past this x are "outside" (transparent).
    static let outside: UInt64 = 0xFFFF
    /// Sizes kept at once; the oldest goes first.
    static let sizesKept = 4

    private struct Entry {
        var width: Int, height: Int
        var entries: [UInt64]
    }
    private let maps = Mutex<[Entry]>([])

    /// An empty map; ``DistortionEffect``s keep one each.
    public init() {}

    /// Packs a source position (pixel centres at +0.5) for `sampling`, clamped to the edge.
    @inline(__always)
    static func entry(_ px: Float, _ py: Float, width: Int, height: Int, sampling: Sampling) -> UInt64 {
        if sampling == .nearest {
            let x = min(max(Int((px < -1 ? -1 : min(px, Float(width + 1))).rounded(.down)), 0), width - 1)
            let y = min(max(Int((py < -1 ? -1 : min(py, Float(height + 1))).rounded(.down)), 0), height - 1)
            return UInt64(x) | UInt64(y) << 16
        }
        var ux = px - 0.5, uy = py - 0.5
        ux = ux < 0 ? 0 : (ux > Float(width - 1) ? Float(width - 1) : ux)
        uy = uy < 0 ? 0 : (uy > Float(height - 1) ? Float(height - 1) : uy)
        let x0 = Int(Int32(ux)), y0 = Int(Int32(uy))
        let fx = UInt64(((ux - Float(x0)) * 65536).rounded()), fy = UInt64(((uy - Float(y0)) * 65536).rounded())
        // A fraction rounding up to a whole pixel moves to the next tap.
        let (x, f) = fx >= 65536 ? (min(x0 + 1, width - 1), UInt64(0)) : (x0, fx)
        let (y, g) = fy >= 65536 ? (min(y0 + 1, height - 1), UInt64(0)) : (y0, fy)
        return UInt64(x) | UInt64(y) << 16 | f << 32 | g << 48
    }

    /// The map for a `width`×`height` frame: the one kept, or built now with `fill(y, row)`
    /// for each row (on all cores) and kept. Returned, not looked up again, because another
    /// thread's size may push this one out of the kept ones at any moment. Two threads asking
    /// for a new size at once may both build it; the maps are equal.
    func entries(width: Int, height: Int, fill: @Sendable (Int, UnsafeMutablePointer<UInt64>) -> Void) -> [UInt64] {
        if let kept = entries(width: width, height: height) { return kept }
        var fresh = [UInt64](repeating: 0, count: width * height)
        fresh.withUnsafeMutableBufferPointer { b in
            let base = UInt(bitPattern: b.baseAddress!)
            Bands.run(height: height) { rows in
                for y in rows { fill(y, UnsafeMutablePointer<UInt64>(bitPattern: base)! + y * width) }
            }
        }
        maps.withLock { maps in
            guard !maps.contains(where: { $0.width == width && $0.height == height }) else { return }
            if maps.count >= Self.sizesKept { maps.removeFirst() }
            maps.append(Entry(width: width, height: height, entries: fresh))
        }
        return fresh
    }

    /// The map for a size, if built.
    func entries(width: Int, height: Int) -> [UInt64]? {
        maps.withLock { maps in maps.first { $0.width == width && $0.height == height }?.entries }
    }

    /// Renders `rows` through the map (bilinear when the entries carry fractions). The
    /// lookups are the C kernel `map_row`; taps that are not all opaque come back to be
    /// mixed premultiplied here.
    static func render(_ entries: [UInt64], _ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int,
                       rows: Range<Int>, sampling: Sampling) {
        let w = src.width, stride = src.stride, base = src.base
        let translucent = UnsafeMutablePointer<Int32>.allocate(capacity: w)
        defer { translucent.deallocate() }
        entries.withUnsafeBufferPointer { m in
            for y in rows {
                let out = dst + y * destinationStride, row = m.baseAddress! + y * w
                let count = colorKernels.map_row(row, base, stride, out, w, sampling == .nearest ? 1 : 0, translucent)
                for i in 0..<count {
                    let x = Int(translucent[i]), e = row[x]
                    let p = base + Int((e >> 16) & 0xFFFF) * stride + Int(e & 0xFFFF)
                    let fxi = (e >> 32) & 0xFFFF, fyi = e >> 48
                    let dx = fxi == 0 ? 0 : 1, dy = fyi == 0 ? 0 : stride
                    out[x] = premultipliedBilinear(p[0], p[dx], p[dy], p[dx + dy],
                                                   Float(Int32(truncatingIfNeeded: fxi)) * (1 / 65536 as Float),
                                                   Float(Int32(truncatingIfNeeded: fyi)) * (1 / 65536 as Float))
                }
            }
        }
    }
}

/// Bilinear mix of four taps that are not all opaque, as Core Image mixes: premultiplied,
/// so a clear tap's colour does not bleed into the result, and alpha interpolated too.
/// (All opaque, the straight mix is the same and cheaper: callers take that path.)
@inline(never)
func premultipliedBilinear(_ p00: UInt32, _ p10: UInt32, _ p01: UInt32, _ p11: UInt32, _ fx: Float, _ fy: Float) -> UInt32 {
    let top = Pixel.premultiplied(p00) + (Pixel.premultiplied(p10) - Pixel.premultiplied(p00)) * fx
    let bottom = Pixel.premultiplied(p01) + (Pixel.premultiplied(p11) - Pixel.premultiplied(p01)) * fx
    return Pixel.unpremultiplied(top + (bottom - top) * fy)
}

/// A distortion: each output pixel shows the source at some position, which depends
/// only on the output position and the frame size. The author writes that position;
/// the map of every position is built once per frame size (in `prepare`) and each frame
/// costs only its lookups.
public protocol DistortionEffect: LayerEffect {
    /// How positions between pixels are read.
    var sampling: Sampling { get }
    /// Where the positions are kept, per frame size; one per effect.
    var map: SourceMap { get }
    /// True when every pixel stays where it is: the frame is copied, not resampled.
    var isIdentity: Bool { get }
    /// The source position (pixel centres at +0.5) shown at the output pixel centre
    /// (`x`, `y`) of a `width`×`height` frame; nil where the source does not reach
    /// (transparent).
    func sourcePosition(x: Double, y: Double, width: Int, height: Int) -> (x: Double, y: Double)?
}

extension DistortionEffect {
    /// Nothing stays in place unless the effect says so.
    public var isIdentity: Bool { false }

    /// Builds the map for this size (once per size, while it is one of the sizes kept).
    public func prepare(width: Int, height: Int) {
        guard !isIdentity else { return }
        _ = positions(width: width, height: height)
    }

    /// The map for a size, built if it is not kept (a render after another thread's sizes
    /// pushed it out builds it again rather than fail).
    private func positions(width: Int, height: Int) -> [UInt64] {
        let sampling = self.sampling
        return map.entries(width: width, height: height) { y, row in
            for x in 0..<width {
                guard let p = sourcePosition(x: Double(x) + 0.5, y: Double(y) + 0.5, width: width, height: height) else {
                    row[x] = SourceMap.outside
                    continue
                }
                row[x] = SourceMap.entry(Float(p.x), Float(p.y), width: width, height: height, sampling: sampling)
            }
        }
    }

    /// Looks each output pixel up in the map.
    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int,
                       rows: Range<Int>, context: RenderContext) {
        if isIdentity {  // exact identity, not a resample
            for y in rows { (dst + y * destinationStride).update(from: src.row(y), count: src.width) }
            return
        }
        let entries = positions(width: src.width, height: src.height)
        SourceMap.render(entries, src, into: dst, destinationStride: destinationStride, rows: rows, sampling: sampling)
    }
}
