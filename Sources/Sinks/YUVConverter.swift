import Dispatch
import FrameCore

/// BGRA → 4:2:0 YUV (limited range, BT.601 or BT.709) in fixed point on all cores.
/// swscale does this on one thread in ~5 ms per 1080p frame; this is what lets
/// `apply` beat ffmpeg's own pipeline. Chroma is the mean of each 2×2 block.
enum YUVConverter {
    /// Integer coefficients ×2^16 for limited-range YCbCr from full-range RGB.
    struct Matrix: Sendable {
        let yr: Int32, yg: Int32, yb: Int32
        let ur: Int32, ug: Int32, ub: Int32
        let vr: Int32, vg: Int32, vb: Int32

        init(kr: Double, kb: Double) {
            let kg = 1 - kr - kb
            let sy = 219.0 / 255 * 65536, sc = 224.0 / 255 * 65536
            func q(_ v: Double) -> Int32 { Int32(v.rounded()) }
            yr = q(kr * sy); yg = q(kg * sy); yb = q(kb * sy)
            ur = q(-kr / (2 * (1 - kb)) * sc); ug = q(-kg / (2 * (1 - kb)) * sc); ub = q(0.5 * sc)
            vr = q(0.5 * sc); vg = q(-kg / (2 * (1 - kr)) * sc); vb = q(-kb / (2 * (1 - kr)) * sc)
        }

        static let bt601 = Matrix(kr: 0.299, kb: 0.114)
        static let bt709 = Matrix(kr: 0.2126, kb: 0.0722)
    }

    /// Converts `frame` (even width and height) into the three planes.
    static func convert(_ frame: Frame, matrix m: Matrix,
                        y: UnsafeMutablePointer<UInt8>, yStride: Int,
                        u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>, cStride: Int) {
        let w = frame.width, h = frame.height, stride = frame.bytesPerRow / 4
        frame.withUnsafeBytes { b in
            let src = UInt(bitPattern: b.baseAddress!)
            let (py, pu, pv) = (UInt(bitPattern: y), UInt(bitPattern: u), UInt(bitPattern: v))
            let pairs = h / 2
            let bands = min(pairs, 16)
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                let s = UnsafePointer<UInt32>(bitPattern: src)!
                let yp = UnsafeMutablePointer<UInt8>(bitPattern: py)!
                let up = UnsafeMutablePointer<UInt8>(bitPattern: pu)!, vp = UnsafeMutablePointer<UInt8>(bitPattern: pv)!
                let lo = band * pairs / bands, hi = (band + 1) * pairs / bands
                for pair in lo..<hi {
                    let r0 = s + 2 * pair * stride, r1 = r0 + stride
                    let y0 = yp + 2 * pair * yStride, y1 = y0 + yStride
                    let uo = up + pair * cStride, vo = vp + pair * cStride
                    rowPair(r0, r1, y0, y1, uo, vo, w / 2, m)
                }
            }
        }
    }

    /// Two source rows → two luma rows and one row each of U and V. Sixteen pixels at a
    /// time in SIMD registers (the scalar loop did not vectorize: strided pairs and four
    /// byte outputs; it cost 11% of `apply`'s CPU), the odd tail one pair at a time.
    @inline(__always)
    static func rowPair(_ r0: UnsafePointer<UInt32>, _ r1: UnsafePointer<UInt32>,
                        _ y0: UnsafeMutablePointer<UInt8>, _ y1: UnsafeMutablePointer<UInt8>,
                        _ uo: UnsafeMutablePointer<UInt8>, _ vo: UnsafeMutablePointer<UInt8>, _ half: Int, _ m: Matrix) {
        let yOffset: Int32 = (16 << 16) + (1 << 15)     // +16, rounded
        let cOffset: Int32 = (128 << 18) + (1 << 17)    // +128 on a 4-pixel sum, rounded
        typealias V = SIMD16<Int32>
        let mask = SIMD16<UInt32>(repeating: 0xFF)
        @inline(__always) func channels(_ p: SIMD16<UInt32>) -> (V, V, V) {
            (V(truncatingIfNeeded: (p &>> 16) & mask), V(truncatingIfNeeded: (p &>> 8) & mask), V(truncatingIfNeeded: p & mask))
        }
        @inline(__always) func luma(_ r: V, _ g: V, _ b: V) -> SIMD16<UInt8> {
            SIMD16<UInt8>(truncatingIfNeeded: (m.yr &* r &+ m.yg &* g &+ m.yb &* b &+ yOffset) &>> 16)
        }
        var x = 0
        let width = 2 * half
        while x + 16 <= width {
            let (ra, ga, ba) = channels(UnsafeRawPointer(r0 + x).loadUnaligned(as: SIMD16<UInt32>.self))
            let (rc, gc, bc) = channels(UnsafeRawPointer(r1 + x).loadUnaligned(as: SIMD16<UInt32>.self))
            UnsafeMutableRawPointer(y0 + x).storeBytes(of: luma(ra, ga, ba), as: SIMD16<UInt8>.self)
            UnsafeMutableRawPointer(y1 + x).storeBytes(of: luma(rc, gc, bc), as: SIMD16<UInt8>.self)
            // 2×2 sums: the two rows, then neighbouring columns.
            let vr = ra &+ rc, vg = ga &+ gc, vb = ba &+ bc
            let sr = vr.evenHalf &+ vr.oddHalf, sg = vg.evenHalf &+ vg.oddHalf, sb = vb.evenHalf &+ vb.oddHalf
            let u = (m.ur &* sr &+ m.ug &* sg &+ m.ub &* sb &+ cOffset) &>> 18
            let v = (m.vr &* sr &+ m.vg &* sg &+ m.vb &* sb &+ cOffset) &>> 18
            UnsafeMutableRawPointer(uo + x / 2).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: u), as: SIMD8<UInt8>.self)
            UnsafeMutableRawPointer(vo + x / 2).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: v), as: SIMD8<UInt8>.self)
            x += 16
        }
        for i in x / 2..<half {
            let a = r0[2 * i], b = r0[2 * i + 1], c = r1[2 * i], d = r1[2 * i + 1]
            @inline(__always) func luma(_ p: UInt32) -> UInt8 {
                let r = Int32((p >> 16) & 0xFF), g = Int32((p >> 8) & 0xFF), bl = Int32(p & 0xFF)
                return UInt8(truncatingIfNeeded: (m.yr &* r &+ m.yg &* g &+ m.yb &* bl &+ yOffset) >> 16)
            }
            y0[2 * i] = luma(a); y0[2 * i + 1] = luma(b)
            y1[2 * i] = luma(c); y1[2 * i + 1] = luma(d)
            let sr = Int32((a >> 16) & 0xFF) &+ Int32((b >> 16) & 0xFF) &+ Int32((c >> 16) & 0xFF) &+ Int32((d >> 16) & 0xFF)
            let sg = Int32((a >> 8) & 0xFF) &+ Int32((b >> 8) & 0xFF) &+ Int32((c >> 8) & 0xFF) &+ Int32((d >> 8) & 0xFF)
            let sb = Int32(a & 0xFF) &+ Int32(b & 0xFF) &+ Int32(c & 0xFF) &+ Int32(d & 0xFF)
            uo[i] = UInt8(truncatingIfNeeded: (m.ur &* sr &+ m.ug &* sg &+ m.ub &* sb &+ cOffset) >> 18)
            vo[i] = UInt8(truncatingIfNeeded: (m.vr &* sr &+ m.vg &* sg &+ m.vb &* sb &+ cOffset) >> 18)
        }
    }
}
