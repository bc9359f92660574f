import Foundation

/// Where a colour effect does its maths (spec §0, "Colour mode"): on the sRGB-encoded
/// values, as SwiftUI shaders and FFmpeg do (the default), or in linear light, as
/// Core Image does: `enc(op(dec(c)))`.
public enum ColorSpace: String, Sendable {
    case encoded, linear

    /// The `space` parameter every Core Image–style colour effect takes.
    static let parameter = ParameterSpec.choice("space", ["encoded", "linear"], default: "encoded",
                                                help: "encoded: maths on the sRGB values (SwiftUI, FFmpeg); linear: in linear light (Core Image).")

    init(_ parameters: Parameters) { self = ColorSpace(rawValue: parameters.text("space")) ?? .encoded }

    /// sRGB decode of a byte, exact in Double (spec §0).
    static func decode(_ c: Double) -> Double { c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }

    /// sRGB encode of a linear value (clamped below at 0).
    static func encode(_ l: Double) -> Double {
        let l = max(0, l)
        return l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055
    }

    /// `Q(v)`: round half up and clamp to a byte.
    static func quantize(_ v: Double) -> UInt8 { UInt8(min(max((v * 255 + 0.5).rounded(.down), 0), 255)) }
}

/// Linear-light rendering for colour effects: bytes are decoded through a 256-entry
/// table, the effect's maths runs in Float, and results are encoded through a
/// 65536-entry table over [0, 1] (fine enough to be exact to the byte even near
/// black). Both tables are built once per process.
struct LinearLight: Sendable {
    static let shared = LinearLight()

    private let decode: [Float]
    private let encode: [UInt8]

    private init() {
        decode = (0..<256).map { Float(ColorSpace.decode(Double($0) / 255)) }
        encode = (0..<65536).map { ColorSpace.quantize(ColorSpace.encode(Double($0) / 65535)) }
    }

    /// Runs `op` on every pixel's linear (r, g, b); alpha is kept.
    @inline(__always)
    func map(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, _ op: (Float, Float, Float) -> (Float, Float, Float)) {
        decode.withUnsafeBufferPointer { lin in
            encode.withUnsafeBufferPointer { out in
                let o = out.baseAddress!
                @inline(__always) func byte(_ v: Float) -> UInt32 {
                    let c = v < 0 ? 0 : (v > 1 ? 1 : v)
                    return UInt32(o[Int(c * 65535 + 0.5)])
                }
                for n in 0..<count {
                    let p = pixels[n]
                    let (r, g, b) = op(lin[Int((p >> 16) & 0xFF)], lin[Int((p >> 8) & 0xFF)], lin[Int(p & 0xFF)])
                    pixels[n] = (p & 0xFF00_0000) | byte(r) << 16 | byte(g) << 8 | byte(b)
                }
            }
        }
    }
}

/// `out = M·c + offset` on encoded bytes in unsigned fixed point (×4096), the form
/// that vectorises (as sepia's matrix does): each row is split into its positive and
/// negative coefficients, so no intermediate goes below zero. Rounds half up and
/// clamps, as `Q` does; coefficient rounding costs at most 0.1 LSB.
struct AffineColor: Sendable {
    private let pos: [UInt32], neg: [UInt32]
    private let posOffset: UInt32, negOffset: UInt32

    /// `m` row-major on (r, g, b); `offset` in bytes.
    init(_ m: [Float], offset: Float) {
        pos = m.map { UInt32((max($0, 0) * 4096).rounded()) }
        neg = m.map { UInt32((max(-$0, 0) * 4096).rounded()) }
        posOffset = UInt32((max(offset, 0) * 4096).rounded()) + 2048  // + ½ for rounding
        negOffset = UInt32((max(-offset, 0) * 4096).rounded())
    }

    func apply(to pixels: UnsafeMutablePointer<UInt32>, count: Int) {
        let (p0, p1, p2, p3, p4, p5, p6, p7, p8) = (pos[0], pos[1], pos[2], pos[3], pos[4], pos[5], pos[6], pos[7], pos[8])
        let (n0, n1, n2, n3, n4, n5, n6, n7, n8) = (neg[0], neg[1], neg[2], neg[3], neg[4], neg[5], neg[6], neg[7], neg[8])
        let po = posOffset, no = negOffset
        let cap: UInt32 = 255 << 12
        for i in 0..<count {
            let p = pixels[i]
            let b = p & 0xFF, g = (p >> 8) & 0xFF, r = (p >> 16) & 0xFF
            let pr = p0 &* r &+ p1 &* g &+ p2 &* b &+ po, nr = n0 &* r &+ n1 &* g &+ n2 &* b &+ no
            let pg = p3 &* r &+ p4 &* g &+ p5 &* b &+ po, ng = n3 &* r &+ n4 &* g &+ n5 &* b &+ no
            let pb = p6 &* r &+ p7 &* g &+ p8 &* b &+ po, nb = n6 &* r &+ n7 &* g &+ n8 &* b &+ no
            var vr = pr > nr ? pr &- nr : 0, vg = pg > ng ? pg &- ng : 0, vb = pb > nb ? pb &- nb : 0
            vr = vr < cap ? vr : cap
            vg = vg < cap ? vg : cap
            vb = vb < cap ? vb : cap
            pixels[i] = (p & 0xFF00_0000) | (vr >> 12) << 16 | (vg >> 12) << 8 | (vb >> 12)
        }
    }
}
