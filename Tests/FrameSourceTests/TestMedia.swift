import Foundation
import FrameCore
import FrameSource
import TestSupport
import Testing

/// Paths to the committed clips and helpers that read what the tests need out of frames.
enum TestMedia {
    static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("testmedia")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The largest difference between two byte runs of one length. Blocks are compared
    /// with memcmp and only those that differ byte by byte: a byte loop in the debug (and
    /// ASan) build costs tens of nanoseconds a byte, which over every frame of the oracle
    /// clips was most of a minute.
    static func largestDifference(_ a: [UInt8], _ b: Data) -> Int {
        precondition(a.count == b.count)
        return a.withUnsafeBufferPointer { x in
            b.withUnsafeBytes { (y: UnsafeRawBufferPointer) in
                var worst = 0
                var start = 0
                while start < x.count {
                    let n = min(4096, x.count - start)
                    if memcmp(x.baseAddress! + start, y.baseAddress! + start, n) != 0 {
                        for i in start..<(start + n) { worst = max(worst, abs(Int(x[i]) - Int(y[i]))) }
                    }
                    start += n
                }
                return worst
            }
        }
    }

    /// The source frame number drawn in the clip's top half (12 blocks, LSB left, white = 1).
    static func frameNumber(_ frame: Frame) -> Int {
        var n = 0
        let y = frame.height / 4
        for bit in 0..<12 {
            let x = Int((Double(bit) + 0.5) * Double(frame.width) / 12)
            let p = frame.pixel(x: x, y: y)
            if (Int(p.r) + Int(p.g) + Int(p.b)) / 3 > 128 { n |= 1 << bit }
        }
        return n
    }

    /// Every frame a source delivers.
    static func frames(_ name: String, configure: (inout FrameSource.Configuration) -> Void = { _ in }) throws -> [Frame] {
        var configuration = FrameSource.Configuration()
        configure(&configuration)
        let source = try FrameSource(path(name), configuration: configuration)
        defer { source.close() }
        var frames: [Frame] = []
        while let f = try source.nextFrame() { frames.append(f) }
        return frames
    }

    /// Raw BGRA from the ffmpeg CLI: `ffmpeg -i FILE -vf FILTERS -f rawvideo -`.
    static func ffmpegFrames(_ name: String, filters: String) async throws -> Data {
        try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", path(name), "-vf", filters, "-f", "rawvideo", "-"])
    }
}
