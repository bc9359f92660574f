import CPixelKernels
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
            // Two rows → two luma rows and a row each of Cb and Cr: the C kernel
            // `yuv420_row_pair` (AVX2 where the CPU has it, whatever this build targets).
            let kernel = colorKernels.yuv420_row_pair!
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                var matrix = vfx_yuv_matrix(yr: m.yr, yg: m.yg, yb: m.yb, ur: m.ur, ug: m.ug, ub: m.ub, vr: m.vr, vg: m.vg, vb: m.vb)
                let s = UnsafePointer<UInt32>(bitPattern: src)!
                let yp = UnsafeMutablePointer<UInt8>(bitPattern: py)!
                let up = UnsafeMutablePointer<UInt8>(bitPattern: pu)!, vp = UnsafeMutablePointer<UInt8>(bitPattern: pv)!
                let lo = band * pairs / bands, hi = (band + 1) * pairs / bands
                for pair in lo..<hi {
                    let r0 = s + 2 * pair * stride, r1 = r0 + stride
                    let y0 = yp + 2 * pair * yStride, y1 = y0 + yStride
                    let uo = up + pair * cStride, vo = vp + pair * cStride
                    kernel(r0, r1, y0, y1, uo, vo, w / 2, &matrix)
                }
            }
        }
    }
}

/// The C kernels for this CPU, picked once.
private let colorKernels: vfx_color_kernels = vfx_color_kernels_best().pointee
