import Foundation

/// Where a colour effect does its maths (spec §0, "Colour mode"): on the sRGB-encoded
/// values, as SwiftUI shaders and FFmpeg do (the default), or in linear light, as
/// Core Image does: `enc(op(dec(c)))`.
public enum ColorSpace: String, ChoiceOption {
    case encoded, linear

    /// The `space` parameter's key.
    static let key = ParameterKey<ColorSpace>("space")

    /// The `space` parameter every Core Image–style colour effect takes.
    static let parameter = ParameterSpec.choice(key, default: .encoded,
                                                help: "encoded: maths on the sRGB values (SwiftUI, FFmpeg); linear: in linear light (Core Image).")

    init(_ parameters: Parameters) { self = parameters[Self.key] }

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
    fileprivate var decodeTable: [Float] { decode }
    fileprivate var encodeTable: [UInt8] { encode }

    private init() {
        decode = (0..<256).map { Float(ColorSpace.decode(Double($0) / 255)) }
        encode = (0..<65536).map { ColorSpace.quantize(ColorSpace.encode(Double($0) / 65535)) }
    }

    /// `M·(r, g, b)` in linear light (M row-major, 9 values); alpha is kept. The C kernel
    /// `linear_affine_rgb`: the same bytes as ``map(_:count:_:)`` with that product.
    func matrix(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, _ m: [Float]) {
        withTables { lin, enc in m.withUnsafeBufferPointer { colorKernels.linear_affine_rgb(pixels, count, $0.baseAddress, lin, enc) } }
    }

    /// Runs `op` on every pixel's linear (r, g, b); alpha is kept.
    @inline(__always)
    func map(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, _ op: (Float, Float, Float) -> (Float, Float, Float)) {
        decode.withUnsafeBufferPointer { lin in
            encode.withUnsafeBufferPointer { out in
                let o = out.baseAddress!
                @inline(__always) func byte(_ v: Float) -> UInt32 { LinearLight.encodeByte(v, o) }
                for n in 0..<count {
                    let p = pixels[n]
                    let (r, g, b) = op(lin[Int((p >> 16) & 0xFF)], lin[Int((p >> 8) & 0xFF)], lin[Int(p & 0xFF)])
                    pixels[n] = (p & 0xFF00_0000) | byte(r) << 16 | byte(g) << 8 | byte(b)
                }
            }
        }
    }
}

extension LinearLight {
    /// The decode table (256 linear values) and the encode table (65536 bytes over 0…1).
    @inline(__always)
    func withTables<R>(_ body: (UnsafePointer<Float>, UnsafePointer<UInt8>) -> R) -> R {
        decodeTable.withUnsafeBufferPointer { d in encodeTable.withUnsafeBufferPointer { e in body(d.baseAddress!, e.baseAddress!) } }
    }

    /// A linear value (any Float, clamped to 0…1) encoded to a byte. The table index is
    /// rounded with the 2²³ trick, as ``roundedByte(_:)`` does: a checked Float→Int
    /// conversion put a trap branch on every channel of every pixel (the linear modes
    /// ran at 5–13 ms a 1080p frame with it).
    @inline(__always)
    static func encodeByte(_ v: Float, _ table: UnsafePointer<UInt8>) -> UInt32 {
        let c = v < 0 ? 0 : (v > 1 ? 1 : v)
        return UInt32(table[Int((c * 65535 + 8_388_608).bitPattern & 0xFFFF)])
    }
}

/// A byte from a Float in 0…255 units: clamped, then rounded by the 2²³ trick
/// (adding 2²³ leaves the rounded integer in the low mantissa bits). Unlike a checked
/// Float→Int conversion this vectorises. It rounds ties to even, which only matters
/// at exact halves (±1 at most, within every colour effect's tolerance).
@inline(__always)
func roundedByte(_ v: Float) -> UInt32 {
    let c = v < 0 ? 0 : (v > 255 ? 255 : v)
    return (c + 8_388_608).bitPattern & 0x1FF
}

/// `out = M·c + offset` on encoded bytes, in Float with `roundedByte`'s rounding: the C
/// kernel `affine_rgb`, 8 pixels per instruction with AVX2.
struct AffineColor: Sendable {
    private let m: [Float]
    private let offset: Float

    /// `m` row-major on (r, g, b); `offset` in bytes.
    init(_ m: [Float], offset: Float) {
        self.m = m
        self.offset = offset
    }

    func apply(to pixels: UnsafeMutablePointer<UInt32>, count: Int) {
        m.withUnsafeBufferPointer { colorKernels.affine_rgb(pixels, count, $0.baseAddress, offset) }
    }
}
