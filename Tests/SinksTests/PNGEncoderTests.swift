import Foundation
import FrameCore
import Sinks
import Testing
import TestSupport

/// The streaming PNG encoder, read back by FFmpeg's decoder.
@Suite struct PNGEncoderTests {
    /// A frame of pseudo-random pixels; `alpha` varies the alpha channel too.
    static func frame(width: Int, height: Int, alpha: Bool) -> Frame {
        var frame = Frame(width: width, height: height)
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        let stride = frame.bytesPerRow / 4
        frame.withUnsafeMutableBytes { b in
            let p = b.baseAddress!.assumingMemoryBound(to: UInt32.self)
            for y in 0..<height {
                for x in 0..<width {
                    state ^= state << 13; state ^= state >> 7; state ^= state << 17
                    let v = UInt32(truncatingIfNeeded: state)
                    // Smooth areas as well as noise, so the filter and deflate see both.
                    p[y * stride + x] = x < width / 2 ? (alpha ? v : v | 0xFF00_0000) : 0xFF00_0000 | UInt32(x * 2) << 8 | UInt32(y)
                }
            }
        }
        return frame
    }

    /// Decodes a PNG with the ffmpeg CLI to packed BGRA bytes.
    static func decode(_ path: String) async throws -> [UInt8] {
        [UInt8](try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "bgra", "-"]))
    }

    @Test(arguments: [false, true])
    func roundTripsExactly(alpha: Bool) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-png-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // Odd size, and tall enough to span several IDAT chunks.
        let frame = Self.frame(width: 301, height: 611, alpha: alpha)
        let path = dir.appendingPathComponent("f.png").path
        try ImageWriter.write(frame, to: path, as: .png)
        let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(file[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(file[25] == (alpha ? 6 : 2), "colour type: RGBA only when the frame has transparency")
        #expect(try await Self.decode(path) == frame.packedBytes())
        // No temporary file is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["f.png"])
        // In memory, the same bytes as on disk.
        #expect(try ImageWriter.encode(frame, as: .png) == file)
    }

    @Test func unwritableFolderFailsWithoutLeavingFiles() throws {
        let frame = Self.frame(width: 8, height: 8, alpha: false)
        #expect(throws: ImageWriteError.self) { try ImageWriter.write(frame, to: "/nonexistent-vidfx/f.png", as: .png) }
    }
}
