import CPixelKernels
import TestSupport
import Foundation
import Testing

/// The colour kernels exist once per instruction set (baseline everywhere, AVX2 where the
/// CPU has it, picked at run time). Every copy must give the bytes of the formula it
/// implements, written here in Swift as the effects had it, on pixels that reach every
/// edge (0, 255, ties), in runs whose length is no multiple of a vector.
@Suite struct ColorKernelTests {
    /// Every instruction set this CPU runs, by name.
    static var kernelSets: [(String, vfx_color_kernels)] {
        var sets = [("baseline", vfx_color_kernels_for(Int32(VFX_COLOR_BASELINE))!.pointee)]
        if let wide = vfx_color_kernels_for(Int32(VFX_COLOR_AVX2)) { sets.append(("avx2", wide.pointee)) }
        return sets
    }

    /// Random BGRA pixels, then every grey, then pure primaries: 1037 in all.
    static let pixels: [UInt32] = {
        var g = SeededGenerator("ColorKernelTests.pixels", seed: 1037)
        var p = (0..<700).map { _ in UInt32.random(in: 0...UInt32.max, using: &g) }
        p += (0..<256).map { v in UInt32(v) * 0x0001_0101 | UInt32(v) << 24 }
        p += [0xFF00_0000, 0xFFFF_FFFF, 0xFFFF_0000, 0xFF00_FF00, 0xFF00_00FF, 0x80FF_FF00, 0x00FF_00FF, 0x0000_0000]
        while p.count < 1037 { p.append(UInt32.random(in: 0...UInt32.max, using: &g)) }
        return p
    }()

    static func channels(_ p: UInt32) -> (Float, Float, Float) {
        (Float(Int32(bitPattern: (p >> 16) & 0xFF)), Float(Int32(bitPattern: (p >> 8) & 0xFF)), Float(Int32(bitPattern: p & 0xFF)))
    }

    /// roundedByte: clamped to 0…255, ties to even.
    static func byte(_ v: Float) -> UInt32 {
        let c = v < 0 ? 0 : (v > 255 ? 255 : v)
        return (c + 8_388_608).bitPattern & 0x1FF
    }

    /// Runs `kernel` of every set over the pixels and compares each with `reference`.
    func check(_ what: String, _ reference: (UInt32) -> UInt32,
               _ kernel: (vfx_color_kernels, UnsafeMutablePointer<UInt32>, Int) -> Void) {
        let expected = Self.pixels.map(reference)
        #expect(Set(expected).count > 100, "\(what): the reference makes a picture")
        for (name, set) in Self.kernelSets {
            for length in [Self.pixels.count, 7, 1] {
                var out = Array(Self.pixels.prefix(length))
                out.withUnsafeMutableBufferPointer { kernel(set, $0.baseAddress!, length) }
                let wrong = (0..<length).filter { out[$0] != expected[$0] }
                let first = wrong.first ?? 0
                let hex = { (v: UInt32) in String(v, radix: 16) }
                #expect(wrong.isEmpty, "\(what), \(name), \(length) pixels: \(wrong.count) differ; first \(hex(Self.pixels[first])) → \(hex(out[first])), not \(hex(expected[first]))")
            }
        }
    }

    @Test func affineMatchesItsFormula() {
        for (m, o): ([Float], Float) in [([0.393, 0.769, 0.189, 0.349, 0.686, 0.168, 0.272, 0.534, 0.131], 0),
                                         ([1.3, -0.2, -0.1, -0.3, 1.5, -0.2, 0.05, -0.4, 1.35], 12.75), ([1, 0, 0, 0, 1, 0, 0, 0, 1], 0.5)] {
            check("affine \(m)", { p in
                let (r, g, b) = Self.channels(p)
                return (p & 0xFF00_0000) | Self.byte(m[0] * r + m[1] * g + m[2] * b + o) << 16
                    | Self.byte(m[3] * r + m[4] * g + m[5] * b + o) << 8 | Self.byte(m[6] * r + m[7] * g + m[8] * b + o)
            }, { k, px, n in m.withUnsafeBufferPointer { k.affine_rgb(px, n, $0.baseAddress, o) } })
        }
    }

    @Test(arguments: [1024, 700, 0, 1] as [UInt32])
    func sepiaMatchesItsFixedPoint(amount a: UInt32) {
        check("sepia \(a)", { p in
            let b = p & 0xFF, g = (p >> 8) & 0xFF, r = (p >> 16) & 0xFF, cap: UInt32 = 255 << 12
            let sr = min(1610 * r + 3150 * g + 774 * b, cap), sg = min(1430 * r + 2810 * g + 688 * b, cap)
            let sb = min(1114 * r + 2187 * g + 537 * b, cap)
            if a == 1024 {
                // Full: the product rounded (+2048), capped at 255.
                let raw = { (x: UInt32) in min(x + 2048, cap) >> 12 }
                return (p & 0xFF00_0000) | raw(1610 * r + 3150 * g + 774 * b) << 16 | raw(1430 * r + 2810 * g + 688 * b) << 8
                    | raw(1114 * r + 2187 * g + 537 * b)
            }
            let keep = 1024 - a, half: UInt32 = 1 << 21
            return (p & 0xFF00_0000) | (((r << 12) * keep + sr * a + half) >> 22) << 16
                | (((g << 12) * keep + sg * a + half) >> 22) << 8 | (((b << 12) * keep + sb * a + half) >> 22)
        }, { k, px, n in k.sepia(px, n, a) })
    }

    @Test(arguments: [0, 1_275_000, 1_275_001, 2_550_000, 2_550_001] as [UInt32])
    func lumaThresholdAndSolarizeMatchTheirIntegers(limit: UInt32) {
        func luma(_ p: UInt32) -> UInt32 { 2126 * ((p >> 16) & 0xFF) + 7152 * ((p >> 8) & 0xFF) + 722 * (p & 0xFF) }
        check("threshold \(limit)", { p in (p & 0xFF00_0000) | (luma(p) >= limit ? 0x00FF_FFFF : 0) },
              { k, px, n in k.luma_threshold(px, n, limit) })
        check("solarize \(limit)", { p in luma(p) <= limit ? p ^ 0x00FF_FFFF : p }, { k, px, n in k.luma_solarize(px, n, limit) })
    }

    @Test(arguments: [0.6, -0.8, 1] as [Float])
    func vibranceMatchesItsFormula(amount a: Float) {
        let sign: Float = a < 0 ? -1 : 1, k = a * sign / 255
        check("vibrance \(a)", { p in
            let (r, g, b) = Self.channels(p)
            let s = max(r, max(g, b)) - min(r, min(g, b))
            let l = 0.2126 * r + 0.7152 * g + 0.0722 * b
            let f = 1 + a - k * s
            return (p & 0xFF00_0000) | Self.byte(l + (r - l) * f) << 16 | Self.byte(l + (g - l) * f) << 8 | Self.byte(l + (b - l) * f)
        }, { kk, px, n in kk.vibrance(px, n, a, k) })
    }

    @Test func monochromeMatchesItsOverlayBlend() {
        let (cr, cg, cb): (Float, Float, Float) = (0.69, 0.5, 0.31)
        func blend(_ l: Float, _ c: Float) -> Float { l < 0.5 ? 2 * l * c : 1 - 2 * (1 - l) * (1 - c) }
        for k: Float in [1, 0.35] {
            check("monochrome \(k)", { p in
                let (r, g, b) = Self.channels(p)
                let l = (0.2126 * r + 0.7152 * g + 0.0722 * b) * (1 / 255 as Float)
                let ob = blend(l, cb) * 255, og = blend(l, cg) * 255, or = blend(l, cr) * 255
                return (p & 0xFF00_0000) | Self.byte(r + (or - r) * k) << 16 | Self.byte(g + (og - g) * k) << 8 | Self.byte(b + (ob - b) * k)
            }, { kk, px, n in kk.monochrome(px, n, cr, cg, cb, k) })
        }
    }

    @Test func falseColorMatchesItsRamp() {
        let origin: [Float] = [0.3 * 255, 0.1 * 255, 0.5 * 255], span: [Float] = [0.7, 0.6, -0.5]
        check("falsecolor", { p in
            let (r, g, b) = Self.channels(p)
            let l = 0.2126 * r + 0.7152 * g + 0.0722 * b
            return (p & 0xFF00_0000) | Self.byte(origin[0] + span[0] * l) << 16 | Self.byte(origin[1] + span[1] * l) << 8
                | Self.byte(origin[2] + span[2] * l)
        }, { k, px, n in origin.withUnsafeBufferPointer { o in span.withUnsafeBufferPointer { k.falsecolor(px, n, o.baseAddress, $0.baseAddress) } } })
    }

    @Test func linearMatrixMatchesItsTables() {
        // sRGB's curve, and a 65536-entry encode table over 0…1.
        let decode: [Float] = (0..<256).map { v in
            let c = Double(v) / 255
            return Float(c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4))
        }
        let encode: [UInt8] = (0..<65536).map { i in
            let l = Double(i) / 65535
            let e = l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055
            return UInt8(min(max((e * 255 + 0.5).rounded(.down), 0), 255))
        }
        let m: [Float] = [0.9, 0.2, -0.1, 0.05, 0.85, 0.1, -0.2, 0.3, 1.1]
        let m4: [Float] = [0.5, 0.3, 0.1, 0.1, 0.1, 0.9, -0.2, 0, 0.2, 0.1, 0.6, 0.05, 0.1, 0, 0, 0.8]
        let bias: [Float] = [0.1, 0, -0.05, 0.1]
        func enc(_ v: Float) -> UInt32 {
            let c = v < 0 ? 0 : (v > 1 ? 1 : v)
            return UInt32(encode[Int((c * 65535 + 8_388_608).bitPattern & 0xFFFF)])
        }
        check("linear matrix", { p in
            let (r, g, b) = (decode[Int((p >> 16) & 0xFF)], decode[Int((p >> 8) & 0xFF)], decode[Int(p & 0xFF)])
            return (p & 0xFF00_0000) | enc(m[0] * r + m[1] * g + m[2] * b) << 16 | enc(m[3] * r + m[4] * g + m[5] * b) << 8
                | enc(m[6] * r + m[7] * g + m[8] * b)
        }, { k, px, n in
            m.withUnsafeBufferPointer { mm in decode.withUnsafeBufferPointer { d in encode.withUnsafeBufferPointer { e in
                k.linear_affine_rgb(px, n, mm.baseAddress, d.baseAddress, e.baseAddress)
            } } }
        })
        check("linear matrix with alpha", { p in
            let (r, g, b) = (decode[Int((p >> 16) & 0xFF)], decode[Int((p >> 8) & 0xFF)], decode[Int(p & 0xFF)])
            let a = Float(Int32(bitPattern: p >> 24)) / 255
            func row(_ i: Int) -> Float { m4[4 * i] * r + m4[4 * i + 1] * g + m4[4 * i + 2] * b + m4[4 * i + 3] * a + bias[i] }
            return Self.byte(row(3) * 255) << 24 | enc(row(0)) << 16 | enc(row(1)) << 8 | enc(row(2))
        }, { k, px, n in
            m4.withUnsafeBufferPointer { mm in bias.withUnsafeBufferPointer { o in decode.withUnsafeBufferPointer { d in
                encode.withUnsafeBufferPointer { e in k.linear_matrix_rgba(px, n, mm.baseAddress, o.baseAddress, d.baseAddress, e.baseAddress) }
            } } }
        })
    }

    /// BT.709 limited range ×2¹⁶, as the encoder's converter builds it.
    @Test func yuv420RowPairMatchesItsFixedPoint() {
        let m = vfx_yuv_matrix(yr: 11966, yg: 40254, yb: 4064, ur: -6596, ug: -22189, ub: 28784, vr: 28784, vg: -26145, vb: -2639)
        let half = 517, rows = Self.pixels + Self.pixels.reversed()
        var expected = (y0: [UInt8](), y1: [UInt8](), u: [UInt8](), v: [UInt8]())
        func luma(_ p: UInt32) -> UInt8 {
            let r = Int32((p >> 16) & 0xFF), g = Int32((p >> 8) & 0xFF), b = Int32(p & 0xFF)
            return UInt8(truncatingIfNeeded: (m.yr * r + m.yg * g + m.yb * b + (16 << 16) + (1 << 15)) >> 16)
        }
        let r0 = Array(rows[0..<(2 * half)]), r1 = Array(rows[(2 * half)..<(4 * half)])
        for i in 0..<half {
            let q = [r0[2 * i], r0[2 * i + 1], r1[2 * i], r1[2 * i + 1]]
            expected.y0 += [luma(q[0]), luma(q[1])]
            expected.y1 += [luma(q[2]), luma(q[3])]
            let sr = q.reduce(0) { $0 + Int32(($1 >> 16) & 0xFF) }, sg = q.reduce(0) { $0 + Int32(($1 >> 8) & 0xFF) }
            let sb = q.reduce(0) { $0 + Int32($1 & 0xFF) }
            let off: Int32 = (128 << 18) + (1 << 17)
            expected.u.append(UInt8(truncatingIfNeeded: (m.ur * sr + m.ug * sg + m.ub * sb + off) >> 18))
            expected.v.append(UInt8(truncatingIfNeeded: (m.vr * sr + m.vg * sg + m.vb * sb + off) >> 18))
        }
        #expect(Set(expected.u).count > 20)
        for (name, set) in Self.kernelSets {
            var y0 = [UInt8](repeating: 0, count: 2 * half), y1 = y0, u = [UInt8](repeating: 0, count: half), v = u
            var matrix = m
            set.yuv420_row_pair(r0, r1, &y0, &y1, &u, &v, half, &matrix)
            #expect(Self.differing([y0, y1], [expected.y0, expected.y1]) == 0, "\(name): luma")
            #expect(Self.differing([u, v], [expected.u, expected.v]) == 0, "\(name): chroma")
        }
    }

    /// One row of the old-film look, with scratches in `mul`/`add`, against its formula as
    /// OldTimes had it in Swift (half-up quantizing).
    @Test func oldTimesRowMatchesItsFormula() {
        func hash(_ v: UInt32) -> UInt32 {
            var x = v
            x ^= x >> 16; x = x &* 0x7feb_352d
            x ^= x >> 15; x = x &* 0x846c_a68b
            x ^= x >> 16
            return x
        }
        func q(_ v: Float) -> UInt32 {
            let r = (v + 0.5).rounded(.down)
            return UInt32(r < 0 ? 0 : (r > 255 ? 255 : r))
        }
        let w = Self.pixels.count, from = Self.pixels, original = Array(Self.pixels.reversed())
        var mul = [Float](repeating: 1, count: w), add = [Float](repeating: 0, count: w)
        for x in [3, 4, 5, 500, 501] { mul[x] = 0.6 + Float(x % 3) * 0.1; add[x] = x > 400 ? 0.4 : 0 }
        for (tone, grain, lift, amount) in [(1, 0.08, 0.02, 1), (0.4, 0.3, -0.1, 0.7)] as [(Float, Float, Float, Float)] {
            var p = vfx_oldtimes_row_params(seed: 7, tick: 31, row_seed: 540 * UInt32(w), tone: tone, grain: grain, lift: lift,
                                            half_w: Float(w) / 2, dyc: -270.5, inverse_diagonal: 1 / 1101.4, vignette: 0.5, amount: amount)
            var expected = [UInt32]()
            for x in 0..<w {
                let s = from[x]
                var r = Float(Int32(truncatingIfNeeded: (s >> 16) & 0xFF)) * (1 / 255)
                var g = Float(Int32(truncatingIfNeeded: (s >> 8) & 0xFF)) * (1 / 255)
                var b = Float(Int32(truncatingIfNeeded: s & 0xFF)) * (1 / 255)
                let luma = 0.299 * r + 0.587 * g + 0.114 * b
                r += (luma - r) * tone; g += (luma * 0.92 - g) * tone; b += (luma * 0.78 - b) * tone
                let h = hash(p.seed ^ hash(p.tick ^ hash(5 ^ hash(p.row_seed &+ UInt32(x)))))
                let n = grain * (2 * Float(Int32(truncatingIfNeeded: h >> 8)) * 0x1p-24 - 1) + lift
                r = min(max(r + n, 0), 1); g = min(max(g + n, 0), 1); b = min(max(b + n, 0), 1)
                r = r * mul[x] + add[x]; g = g * mul[x] + add[x]; b = b * mul[x] + add[x]
                let dx = Float(x) + 0.5 - p.half_w
                let t = min(max(((dx * dx + p.dyc * p.dyc).squareRoot() * p.inverse_diagonal - 0.45) * (1 / 0.55), 0), 1)
                let shade = 1 - p.vignette * t * t * (3 - 2 * t)
                let o = original[x]
                let (orr, og, ob) = Self.channels(o)
                expected.append((o & 0xFF00_0000) | q(orr + (r * shade * 255 - orr) * amount) << 16
                    | q(og + (g * shade * 255 - og) * amount) << 8 | q(ob + (b * shade * 255 - ob) * amount))
            }
            #expect(Set(expected).count > 100)
            for (name, set) in Self.kernelSets {
                var out = [UInt32](repeating: 0, count: w)
                set.oldtimes_row(from, original, &out, w, mul, add, &p)
                let wrong = (0..<w).filter { out[$0] != expected[$0] }
                #expect(wrong.isEmpty, "\(name), tone \(tone): \(wrong.count) of \(w) pixels differ")
            }
        }
    }

    @Test func addScaledIsOneBlurTap() {
        let input = (0..<1001).map { Float($0 % 97) * 0.37 - 3 }, start = (0..<1001).map { Float($0 % 13) * 1.5 }
        let expected = zip(start, input).map { $0 + 0.2417 * $1 }
        for (name, set) in Self.kernelSets {
            var out = start
            set.add_scaled(&out, input, 1001, 0.2417)
            #expect(Self.differing([out], [expected]) == 0, "\(name)")
        }
    }

    /// How many values differ (a count keeps a failure's message short).
    static func differing<T: Equatable>(_ a: [[T]], _ b: [[T]]) -> Int {
        zip(a, b).reduce(0) { n, rows in n + zip(rows.0, rows.1).filter { $0 != $1 }.count + abs(rows.0.count - rows.1.count) }
    }

    @Test func columnSumsAddEveryRow() {
        let width = 101, rows = 9, stride = 107, image = Array(Self.pixels.prefix(stride * rows / 2)) + Array(Self.pixels.prefix(stride * rows - stride * rows / 2))
        var expected = [UInt32](repeating: 0, count: 4 * width)
        for y in 0..<rows { for x in 0..<width {
            let p = image[y * stride + x]
            for c in 0..<4 { expected[c * width + x] += (p >> (8 * UInt32(c))) & 0xFF }
        } }
        for (name, set) in Self.kernelSets {
            var sums = [UInt32](repeating: 7, count: 4 * width)
            sums.withUnsafeMutableBufferPointer { b in
                let p = b.baseAddress!
                set.column_sums(image, stride, rows, width, p, p + width, p + 2 * width, p + 3 * width)
            }
            #expect(Self.differing([sums], [expected]) == 0, "\(name)")
        }
    }

    /// zoomblur's three steps: two rows blended, a gathered tap added, planes back to BGRA.
    @Test func resamplingStepsMatchTheirFormulas() {
        let w = 333, r0 = Array(Self.pixels.prefix(w)), r1 = Array(Self.pixels.suffix(w)), fy: Float = 0.3717
        var expected = [[Float]](repeating: [Float](repeating: 0, count: w), count: 3)
        for x in 0..<w {
            let (pr, pg, pb) = Self.channels(r0[x]), (qr, qg, qb) = Self.channels(r1[x])
            expected[0][x] = pr + (qr - pr) * fy; expected[1][x] = pg + (qg - pg) * fy; expected[2][x] = pb + (qb - pb) * fy
        }
        let i0 = (0..<w).map { Int32(($0 * 7) % w) }, i1 = i0.map { min($0 + 1, Int32(w - 1)) }
        let f = (0..<w).map { Float($0 % 10) / 10 }, weight: Float = 0.137
        var acc = [[Float]](repeating: (0..<w).map { Float($0) * 0.5 }, count: 3)
        for c in 0..<3 { for x in 0..<w {
            let a0 = Int(i0[x]), a1 = Int(i1[x])
            acc[c][x] += weight * (expected[c][a0] + (expected[c][a1] - expected[c][a0]) * f[x])
        } }
        func q(_ v: Float) -> UInt32 { let r = (v + 0.5).rounded(.down); return UInt32(r < 0 ? 0 : (r > 255 ? 255 : r)) }
        let bgra = (0..<w).map { x in (r0[x] & 0xFF00_0000) | q(acc[0][x]) << 16 | q(acc[1][x]) << 8 | q(acc[2][x]) }
        for (name, set) in Self.kernelSets {
            var r = [Float](repeating: 0, count: w), g = r, b = r
            set.blend_rows(r0, r1, fy, &r, &g, &b, w)
            #expect(Self.differing([r, g, b], expected) == 0, "\(name): blend")
            var ar = (0..<w).map { Float($0) * 0.5 }, ag = ar, ab = ar
            set.add_tap(&ar, &ag, &ab, r, g, b, i0, i1, f, weight, w)
            #expect(Self.differing([ar, ag, ab], acc) == 0, "\(name): tap")
            var out = [UInt32](repeating: 0, count: w)
            set.planar_to_bgra(ar, ag, ab, r0, &out, w)
            #expect(Self.differing([out], [bgra]) == 0, "\(name): to BGRA")
        }
    }

    /// Highlight and shadow: luma (Y709, of bytes or of decoded values), then each channel
    /// scaled by the table read at l·steps over l; gain 1 in the darkest pixels.
    @Test(arguments: [false, true])
    func highlightShadowRowMatchesItsFormula(linear: Bool) {
        let steps = 1024
        let table: [Float] = (0...steps).map { i in let l = Float(i) / Float(steps); return l + 0.3 * l * (1 - l) }
        let decode: [Float] = (0..<256).map { Float(pow(Double($0) / 255, 2.2)) }
        let encode: [UInt8] = (0..<65536).map { UInt8(min(255, (pow(Double($0) / 65535, 1 / 2.2) * 255 + 0.5).rounded(.down))) }
        func luma(_ p: UInt32) -> Float {
            let (r, g, b) = Self.channels(p)
            if linear { return 0.2126 * decode[Int(r)] + 0.7152 * decode[Int(g)] + 0.0722 * decode[Int(b)] }
            return (0.2126 * r + 0.7152 * g + 0.0722 * b) * (1 / 255 as Float)
        }
        func enc(_ v: Float) -> UInt32 {
            let c = v < 0 ? 0 : (v > 1 ? 1 : v)
            return UInt32(encode[Int((c * 65535 + 8_388_608).bitPattern & 0xFFFF)])
        }
        check("highlight/shadow \(linear ? "linear" : "bytes")", { p in
            let l = luma(p)
            var gain: Float = 1
            if l > 1 / 1024 {
                let s = (l > 1 ? 1 : l) * Float(steps), i = Int(s), j = i < steps ? i + 1 : i
                gain = (table[i] + (table[j] - table[i]) * (s - Float(i))) / l
            }
            let (r, g, b) = Self.channels(p)
            if linear {
                return (p & 0xFF00_0000) | enc(decode[Int(r)] * gain) << 16 | enc(decode[Int(g)] * gain) << 8 | enc(decode[Int(b)] * gain)
            }
            return (p & 0xFF00_0000) | Self.byte(r * gain) << 16 | Self.byte(g * gain) << 8 | Self.byte(b * gain)
        }, { k, px, n in
            let from = Array(UnsafeBufferPointer(start: px, count: n))
            var l = [Float](repeating: 0, count: n)
            table.withUnsafeBufferPointer { t in decode.withUnsafeBufferPointer { d in encode.withUnsafeBufferPointer { e in
                k.luma_row(from, &l, n, linear ? d.baseAddress : nil)
                k.highlight_shadow_row(from, px, l, n, t.baseAddress, Int32(steps), linear ? d.baseAddress : nil, e.baseAddress)
            } } }
        })
    }

    /// A distortion's map lookups: clear outside, the tap itself for nearest, the straight
    /// bilinear mix of opaque taps (no neighbour read at a zero fraction), and every column
    /// whose taps are not all opaque listed, not written.
    @Test func mapRowReadsItsTaps() {
        let w = 67, h = 9
        var g = SeededGenerator("mapRowReadsItsTaps", seed: 67)
        // Opaque, but for one translucent pixel that a few taps reach.
        var image = (0..<(w * h)).map { _ in UInt32.random(in: 0...0xFF_FFFF, using: &g) | 0xFF00_0000 }
        image[3 * w + 10] &= 0x80FF_FFFF
        var entries: [UInt64] = (0..<w).map { x in
            let x0 = UInt64.random(in: 0...UInt64(w - 2), using: &g), y0 = UInt64.random(in: 0...UInt64(h - 2), using: &g)
            let fx = x % 5 == 0 ? 0 : UInt64.random(in: 0..<65536, using: &g), fy = x % 7 == 0 ? 0 : UInt64.random(in: 0..<65536, using: &g)
            return x0 | y0 << 16 | fx << 32 | fy << 48
        }
        entries[4] = 0xFFFF                                              // outside
        entries[5] = UInt64(w - 1) | UInt64(h - 1) << 16                 // the last pixel, no neighbours
        entries[6] = 9 | 3 << 16 | 30000 << 32 | 0 << 48                 // reaches the translucent pixel
        entries[7] = 10 | 2 << 16 | 0 << 32 | 40000 << 48                // so does this one
        func bilinear(_ e: UInt64) -> UInt32? {
            if e & 0xFFFF == 0xFFFF { return 0 }
            let i = Int((e >> 16) & 0xFFFF) * w + Int(e & 0xFFFF)
            let fxi = (e >> 32) & 0xFFFF, fyi = e >> 48
            let dx = fxi == 0 ? 0 : 1, dy = fyi == 0 ? 0 : w
            let p00 = image[i], p10 = image[i + dx], p01 = image[i + dy], p11 = image[i + dx + dy]
            if (p00 & p10 & p01 & p11) >> 24 != 0xFF { return nil }
            let fx = Float(Int32(fxi)) / 65536, fy = Float(Int32(fyi)) / 65536
            func ch(_ s: UInt32) -> UInt32 {
                func c(_ q: UInt32) -> Float { Float(Int32((q >> s) & 0xFF)) }
                let top = c(p00) + (c(p10) - c(p00)) * fx, bottom = c(p01) + (c(p11) - c(p01)) * fx
                return Self.byte(top + (bottom - top) * fy)
            }
            return (p00 & 0xFF00_0000) | ch(16) << 16 | ch(8) << 8 | ch(0)
        }
        for (name, set) in Self.kernelSets {
            var out = [UInt32](repeating: 0x1234_5678, count: w), listed = [Int32](repeating: -1, count: w)
            let count = image.withUnsafeBufferPointer { set.map_row(entries, $0.baseAddress, w, &out, w, 0, &listed) }
            let expected = entries.map(bilinear)
            let translucent = (0..<w).filter { expected[$0] == nil }
            #expect(translucent.contains(6) && translucent.contains(7))
            #expect(Array(listed.prefix(count)).map(Int.init) == translucent, "\(name): translucent columns")
            let wrong = (0..<w).filter { expected[$0] != nil && out[$0] != expected[$0] }
            #expect(wrong.isEmpty, "\(name): bilinear, \(wrong.count) differ")
            var near = [UInt32](repeating: 0, count: w)
            let none = image.withUnsafeBufferPointer { set.map_row(entries, $0.baseAddress, w, &near, w, 1, &listed) }
            #expect(none == 0)
            #expect((0..<w).allSatisfy { x in
                near[x] == (entries[x] & 0xFFFF == 0xFFFF ? 0 : image[Int((entries[x] >> 16) & 0xFFFF) * w + Int(entries[x] & 0xFFFF)])
            }, "\(name): nearest")
        }
    }

    @Test func fillSetsEveryPixelAndNoMore() {
        for (name, set) in Self.kernelSets {
            for length in [Self.pixels.count, 7, 1, 0] {
                var out = Self.pixels
                set.fill(&out, length, 0x80C0_FFEE)
                #expect(out.prefix(length).allSatisfy { $0 == 0x80C0_FFEE } && out.dropFirst(length) == Self.pixels.dropFirst(length),
                        "\(name), \(length) pixels")
            }
        }
    }

    @Test func theBestSetIsTheWidestThisCPURuns() {
        let best = vfx_color_kernels_best()!
        let wide = vfx_color_kernels_for(Int32(VFX_COLOR_AVX2))
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        #if arch(x86_64)
        #expect((wide != nil) == (cpuinfo.contains(" avx2") && cpuinfo.contains(" fma")))
        #endif
        #expect(best == (wide ?? vfx_color_kernels_for(Int32(VFX_COLOR_BASELINE))!))
    }
}
