import FrameCore
@testable import Sinks
import Testing

/// BGRA → 4:2:0 against the textbook formula, on widths that use the SIMD body, the
/// scalar tail, or both.
@Suite struct YUVConverterTests {
    static func noise(width: Int, height: Int, seed: UInt64) -> Frame {
        var frame = Frame(width: width, height: height)
        var state = seed
        let stride = frame.bytesPerRow / 4
        frame.withUnsafeMutableBytes { b in
            let p = b.baseAddress!.assumingMemoryBound(to: UInt32.self)
            for i in 0..<stride * height {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                p[i] = UInt32(truncatingIfNeeded: state) | 0xFF00_0000
            }
        }
        return frame
    }

    /// Limited-range Y, Cb, Cr of full-range (r, g, b) in [0, 255].
    static func reference(_ r: Double, _ g: Double, _ b: Double, kr: Double, kb: Double) -> (Double, Double, Double) {
        let kg = 1 - kr - kb
        let y = kr * r + kg * g + kb * b
        return (16 + 219 * y / 255, 128 + 224 * (b - y) / (2 * (1 - kb)) / 255, 128 + 224 * (r - y) / (2 * (1 - kr)) / 255)
    }

    @Test(arguments: [(2, 2), (14, 4), (16, 2), (18, 6), (50, 4), (1920, 8)])
    func matchesTheFormula(width: Int, height: Int) {
        for (matrix, kr, kb) in [(YUVConverter.Matrix.bt601, 0.299, 0.114), (.bt709, 0.2126, 0.0722)] {
            let frame = Self.noise(width: width, height: height, seed: UInt64(width * 131 + height))
            var y = [UInt8](repeating: 0, count: width * height)
            var u = [UInt8](repeating: 0, count: width * height / 4)
            var v = u
            y.withUnsafeMutableBufferPointer { yp in
                u.withUnsafeMutableBufferPointer { up in
                    v.withUnsafeMutableBufferPointer { vp in
                        YUVConverter.convert(frame, matrix: matrix, y: yp.baseAddress!, yStride: width,
                                             u: up.baseAddress!, v: vp.baseAddress!, cStride: width / 2)
                    }
                }
            }
            var worst = 0.0
            for row in stride(from: 0, to: height, by: 2) {
                for col in stride(from: 0, to: width, by: 2) {
                    var sum = (0.0, 0.0, 0.0)
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let p = frame.pixel(x: col + dx, y: row + dy)
                        let (ey, _, _) = Self.reference(Double(p.r), Double(p.g), Double(p.b), kr: kr, kb: kb)
                        worst = max(worst, abs(Double(y[(row + dy) * width + col + dx]) - ey))
                        sum = (sum.0 + Double(p.r) / 4, sum.1 + Double(p.g) / 4, sum.2 + Double(p.b) / 4)
                    }
                    let (_, eu, ev) = Self.reference(sum.0, sum.1, sum.2, kr: kr, kb: kb)
                    let c = row / 2 * width / 2 + col / 2
                    worst = max(worst, abs(Double(u[c]) - eu), abs(Double(v[c]) - ev))
                }
            }
            #expect(worst <= 0.51, "\(width)x\(height), kr \(kr): off by \(worst)")
        }
    }
}
