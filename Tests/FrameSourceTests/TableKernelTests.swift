import CPixelKernels
import TestSupport
import Foundation
@testable import FrameSource
import Testing

/// The tone map's table kernel exists once per instruction set (SSE2 everywhere, AVX2 with
/// FMA where the CPU has them, picked at run time). Both must make the same picture: fed
/// the same planes, table and output curve, they differ by at most one code, in few pixels
/// (fused multiply-adds round differently), and never in alpha.
@Suite struct TableKernelTests {
    /// A smooth, non-linear table over the grid (outside [0, 1] at the edges, as real ones
    /// are), a monotone output curve, and random 10-bit 4:2:0 planes of an odd width.
    /// The table, output curve, grid map and random planes of one test picture.
    struct Scene {
        var table: [Float], curve: [UInt8], toGrid: [Float]
        var py: [UInt8], pb: [UInt8], pr: [UInt8]
        var width: Int, height: Int, bytes: Int, depth: Int

        /// Runs `body` with the planes described for the kernel.
        func withPlanes<R>(_ body: (inout vfx_planes) -> R) -> R {
            let cw = (width + 1) / 2
            return py.withUnsafeBufferPointer { y in pb.withUnsafeBufferPointer { b in pr.withUnsafeBufferPointer { r in
                var planes = vfx_planes()
                planes.plane = (y.baseAddress, b.baseAddress, r.baseAddress)
                planes.stride = (Int32(width * bytes), Int32(cw * bytes), Int32(cw * bytes))
                planes.width = Int32(width); planes.height = Int32(height)
                planes.log2_cw = 1; planes.log2_ch = 1
                planes.bytes = Int32(bytes); planes.depth = Int32(depth)
                planes.centre_sited = 0; planes.top_sited = 0
                return body(&planes)
            } } }
        }
    }

    static func scene(width: Int, height: Int, bytes: Int, depth: Int) -> Scene {
        let n = Int(VFX_TABLE3D_POINTS)
        var table = [Float](repeating: 0, count: n * n * n * 4)
        for r in 0..<n { for g in 0..<n { for b in 0..<n {
            let (fr, fg, fb) = (Float(r) / Float(n - 1), Float(g) / Float(n - 1), Float(b) / Float(n - 1))
            let i = ((r * n + g) * n + b) * 4
            table[i] = fr * fr * 1.2 - 0.05 + 0.1 * fg
            table[i + 1] = sqrt(fg) * 0.9 + 0.05 * fb
            table[i + 2] = fb * fr + 0.3 * fb - 0.02
        } } }
        // Monotone and coarse: an index one step off changes a code by at most one.
        let curve = (0..<Int(VFX_TABLE3D_TRANSFER_SIZE)).map { UInt8($0 * 255 / (Int(VFX_TABLE3D_TRANSFER_SIZE) - 1)) }
        // Y'CbCr codes scaled to 16 bits → grid coordinates (a BT.2020-like matrix).
        let s = Float(n - 1) / 65535
        let toGrid: [Float] = [s, 0, 1.47 * s, s, -0.16 * s, -0.57 * s, s, 1.88 * s, 0, -0.74 * Float(n - 1) + 4,
                               0.5 * Float(n - 1) - 2, -0.94 * Float(n - 1) + 6]
        var rng = SeededGenerator("TableKernelTests \(width)x\(height) \(depth) bits", seed: 51)
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        func plane(_ w: Int, _ h: Int) -> [UInt8] {
            var p = [UInt8](repeating: 0, count: w * h * bytes)
            for i in 0..<(w * h) {
                let v = Int.random(in: 0..<(1 << depth), using: &rng)
                if bytes == 2 { p[2 * i] = UInt8(v & 0xFF); p[2 * i + 1] = UInt8(v >> 8) } else { p[i] = UInt8(v) }
            }
            return p
        }
        return Scene(table: table, curve: curve, toGrid: toGrid, py: plane(width, height), pb: plane(cw, ch), pr: plane(cw, ch),
                     width: width, height: height, bytes: bytes, depth: depth)
    }

    /// Left-sited chroma is brought to full size in 16-bit arithmetic (sixteen columns a
    /// step); it must give the codes the general arithmetic gives, on every row (the first
    /// and last repeat their neighbour), odd widths and the deepest samples included.
    @Test(arguments: [(333, 2, 10), (334, 2, 12), (65, 1, 8), (2, 2, 13), (3, 2, 10)])
    func chromaShortcutEqualsTheGeneralArithmetic(width: Int, bytes: Int, depth: Int) throws {
        var scene = Self.scene(width: width, height: 9, bytes: bytes, depth: depth)
        // The largest codes too, where 16 bits would overflow first.
        let top = (1 << depth) - 1
        for i in 0..<(scene.pb.count / bytes) where i % 3 == 0 {
            if bytes == 2 { scene.pb[2 * i] = UInt8(top & 0xFF); scene.pb[2 * i + 1] = UInt8(top >> 8) } else { scene.pb[i] = UInt8(top) }
        }
        var differing = 0, nonzero = 0
        scene.withPlanes { planes in
            var fast = [UInt16](repeating: 0, count: width), general = [UInt16](repeating: 1, count: width)
            var blend = [Int32](repeating: 0, count: width + 2)
            for y in 0..<Int32(scene.height) {
                for plane: Int32 in [1, 2] {
                    vfx_table3d_chroma_row(&planes, plane, y, &fast, &blend, 0)
                    vfx_table3d_chroma_row(&planes, plane, y, &general, &blend, 1)
                    differing += zip(fast, general).filter { $0 != $1 }.count
                    nonzero += fast.filter { $0 != 0 }.count
                }
            }
        }
        #expect(differing == 0, "\(differing) codes differ")
        #expect(nonzero > width * scene.height, "the rows were written")
    }

    @Test(arguments: [(333, 2, 10), (64, 1, 8)])
    func everyInstructionSetMakesTheSamePicture(width: Int, bytes: Int, depth: Int) throws {
        let height = 12
        let scene = Self.scene(width: width, height: height, bytes: bytes, depth: depth)
        func render(_ isa: Int32) -> [UInt8]? {
            var out = [UInt8](repeating: 0, count: width * height * 4)
            var scratch = [UInt16](repeating: 0, count: 4 * width + 8)
            let done = scene.withPlanes { planes in
                vfx_table3d_rows_isa(isa, scene.table, scene.curve, scene.toGrid, &planes, &out, Int32(width * 4), 0, Int32(height), &scratch)
            }
            return done == 1 ? out : nil
        }
        let baseline = try #require(render(Int32(VFX_TABLE3D_BASELINE)))
        #expect(Set(baseline).count > 50, "the picture has detail")
        guard let wide = render(Int32(VFX_TABLE3D_AVX2)) else {
            // Not on this CPU: nothing to compare (the baseline is what runs here).
            #expect(!Self.cpuHasAVX2)
            return
        }
        var differing = 0
        for i in 0..<baseline.count {
            let d = abs(Int(baseline[i]) - Int(wide[i]))
            #expect(d <= 1, "byte \(i): \(baseline[i]) against \(wide[i])")
            if i % 4 == 3 { #expect(wide[i] == 255) }
            if d > 0 { differing += 1 }
        }
        #expect(differing * 100 < baseline.count, "\(differing) of \(baseline.count) bytes differ")
    }

    /// Rotated or mirrored as it goes (the phone-video path), the kernel makes exactly the
    /// picture it makes upright, then turned by the reorient pass: every orientation, an
    /// odd size, and the rows in slices.
    @Test(arguments: [0, 90, 180, 270], [false, true])
    func placedConversionEqualsConvertingThenTurning(rotation: Int, mirrored: Bool) throws {
        let (width, height) = (101, 75)
        let scene = Self.scene(width: width, height: height, bytes: 2, depth: 10)
        let orientation = Orientation(rotation: rotation, mirrored: mirrored)
        let walk = orientation.walk(width: width, height: height)
        let (ow, oh) = (walk.out_width, walk.out_height)
        #expect((ow, oh) == (orientation.swapsAxes ? (height, width) : (width, height)))
        var scratch = [UInt16](repeating: 0, count: 4 * width + 8)
        var upright = [UInt32](repeating: 0, count: width * height)
        scene.withPlanes { planes in
            upright.withUnsafeMutableBytes { u in
                vfx_table3d_rows(scene.table, scene.curve, scene.toGrid, &planes, u.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                 Int32(width * 4), 0, Int32(height), &scratch)
            }
        }
        // The reference: the whole upright picture, then the reorient pass, with a
        // stride wider than the picture on both sides.
        var turned = [UInt32](repeating: 7, count: (ow + 3) * oh)
        vfx_reorient_rows(upright, walk.y0 * width + walk.x0, walk.xy * width + walk.xx, walk.yy * width + walk.yx,
                          &turned, ow + 3, ow, 0, oh)
        // Placed, in three slices of rows.
        var placed = [UInt32](repeating: 7, count: (ow + 3) * oh)
        var w = walk
        for (first, end) in [(0, 40), (40, 41), (41, height)] {
            scene.withPlanes { planes in
                vfx_table3d_rows_placed(scene.table, scene.curve, scene.toGrid, &planes, &w, &placed, ow + 3,
                                        Int32(first), Int32(end), &scratch)
            }
        }
        #expect(Set(upright).count > 100, "the picture has detail")
        let differing = zip(placed, turned).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) of \(placed.count) pixels differ")
        // The padding beyond each row is left alone.
        #expect((0..<oh).allSatisfy { y in (ow..<(ow + 3)).allSatisfy { placed[y * (ow + 3) + $0] == 7 } })
    }

    static var cpuHasAVX2: Bool {
        ((try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? "").contains(" avx2") &&
            ((try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? "").contains(" fma")
    }
}
