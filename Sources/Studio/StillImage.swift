package import FrameCore
import Sinks

/// How a still goes to the page. PNG is what `dump --at` writes, byte for byte; BMP
/// carries the same pixels uncompressed, for a hand scrubbing: at 1080p, compressing a
/// PNG costs several times what decoding the frame does, and over loopback eight
/// megabytes cost less than that. Both are lossless: the page's canvas gets the same pixels.
package enum StillImage: String, Sendable {
    case png, bmp

    /// The MIME type.
    var mediaType: String { self == .png ? "image/png" : "image/bmp" }

    /// A top-down 32-bit BMP of `frame` (BITMAPV4HEADER with explicit masks, so the alpha
    /// byte is alpha): the BGRA rows as they are, behind a 122-byte header.
    package static func bmp(_ frame: Frame) -> [UInt8] {
        let pixels = frame.packedBytes()
        let headerSize = 14 + 108
        var out = [UInt8]()
        out.reserveCapacity(headerSize + pixels.count)
        func u16(_ v: Int) { out += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) { out += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
        out += Array("BM".utf8)
        u32(headerSize + pixels.count)
        u32(0)
        u32(headerSize)
        u32(108)                       // BITMAPV4HEADER
        u32(frame.width)
        u32(Int(UInt32(bitPattern: Int32(-frame.height))))  // negative: rows top to bottom
        u16(1)
        u16(32)
        u32(3)                         // BI_BITFIELDS
        u32(pixels.count)
        u32(2835)                      // 72 dpi
        u32(2835)
        u32(0)
        u32(0)
        u32(0x00FF_0000)               // red, green, blue, alpha masks of a little-endian BGRA pixel
        u32(0x0000_FF00)
        u32(0x0000_00FF)
        u32(Int(0xFF00_0000 as UInt32))
        out += Array("BGRs".utf8)      // LCS_WINDOWS_COLOR_SPACE ('sRGB', stored little-endian)
        out += [UInt8](repeating: 0, count: 36 + 12)  // endpoints and gamma, unused for sRGB
        out += pixels
        return out
    }
}
