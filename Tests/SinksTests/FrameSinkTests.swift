import Foundation
import FrameCore
import Testing
@testable import Sinks

/// The named sinks behind the one protocol: the same frames, every destination.
@Suite struct FrameSinkTests {
    let dir: URL
    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-sinks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    /// A 6x4 frame whose every byte is `tick * 7 + index` (mod 256).
    func frame(_ tick: Int) -> Frame {
        var f = Frame(width: 6, height: 4)
        f.tick = Int64(tick)
        f.time = Rational(Int64(tick), 30)
        f.withUnsafeMutableBytes { b in for i in 0..<b.count { b[i] = UInt8(truncatingIfNeeded: tick * 7 + i) } }
        return f
    }

    func bytes(_ f: Frame) -> [UInt8] { f.withUnsafeBytes { b in (0..<f.height).flatMap { y in b[(y * f.bytesPerRow)..<(y * f.bytesPerRow + f.width * 4)] } } }

    @Test func aTeeGivesEverySinkEveryFrame() throws {
        let raw = dir.appendingPathComponent("frames.bgra")
        let collected = CollectingSink()
        let tee = TeeSink([collected, try RawStreamSink(path: raw.path, overwrite: false)])
        for k in 0..<3 { #expect(try tee.write(frame(k))) }
        #expect(!FileManager.default.fileExists(atPath: raw.path), "nothing at the target before finish")
        try tee.finish()
        #expect(collected.isFinished)
        #expect(collected.frames.map(\.tick) == [0, 1, 2])
        let written = try [UInt8](Data(contentsOf: raw))
        #expect(written == (0..<3).flatMap { bytes(frame($0)) })
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["frames.bgra"])
    }

    /// Padded rows go out in batches of at most 1024 a system call: a frame taller than a
    /// batch, and one not a whole number of batches, come out whole and in order.
    @Test func paddedRowsComeOutWholeAcrossBatches() throws {
        let raw = dir.appendingPathComponent("tall.bgra")
        var frames: [Frame] = []
        for (k, height) in [2500, 1024, 3].enumerated() {
            var f = Frame(width: 5, height: height)
            #expect(f.bytesPerRow > 20, "the rows are padded")
            f.withUnsafeMutableBytes { b in for i in 0..<b.count { b[i] = UInt8(truncatingIfNeeded: i * 31 + i / 251 + k) } }
            frames.append(f)
        }
        let sink = try RawStreamSink(path: raw.path, overwrite: false)
        for f in frames { #expect(try sink.write(f)) }
        try sink.finish()
        let written = try [UInt8](Data(contentsOf: raw))
        let expected = frames.flatMap { bytes($0) }
        #expect(written.count == expected.count)
        #expect(written == expected, "the rows in order")
    }

    @Test func aTeeGoesOnWhileAnyReaderRemains() throws {
        let short = CollectingSink(limit: 2), long = CollectingSink()
        let tee = TeeSink([short, long])
        #expect(try tee.write(frame(0)))
        #expect(try tee.write(frame(1)), "the long sink still wants frames")
        #expect(try tee.write(frame(2)))
        #expect(short.frames.count == 2 && long.frames.count == 3)
        let alone = TeeSink([CollectingSink(limit: 1)])
        #expect(try alone.write(frame(0)) == false, "the only reader is done")
    }

    @Test func aPreviewSinkIsAFrameSinkToo() throws {
        // A render teed to a y4m view: the stream gets a header and one FRAME per frame.
        let file = dir.appendingPathComponent("view.y4m")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        let view = Y4MSink(fd: handle.fileDescriptor, frameRate: Rational(30))
        let tee = TeeSink([CollectingSink(), view])
        for k in 0..<3 { #expect(try tee.write(frame(k))) }
        try tee.finish()
        try handle.close()
        let bytes = try Data(contentsOf: file)
        #expect(bytes.starts(with: Data("YUV4MPEG2 W6 H4".utf8)))
        #expect(String(decoding: bytes, as: UTF8.self).components(separatedBy: "FRAME\n").count == 4)
    }

    @Test func anAbandonedRawFileLeavesNothing() throws {
        let raw = dir.appendingPathComponent("frames.bgra")
        try Data("mine".utf8).write(to: raw)
        #expect(throws: SinkError.self) { _ = try RawStreamSink(path: raw.path, overwrite: false) }
        let sink = try RawStreamSink(path: raw.path, overwrite: true)
        #expect(try sink.write(frame(0)))
        sink.abandon()
        #expect(try String(contentsOf: raw, encoding: .utf8) == "mine")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["frames.bgra"])
    }

    @Test func theEncoderReportsAClosedPipeAsTheEndNotAFailure() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        close(fds[0])  // nobody will read
        signal(SIGPIPE, SIG_IGN)  // as the vidfx executable does; harmless to the other tests
        defer { close(fds[1]) }
        var settings = EncoderSink.Settings(output: "/dev/fd/\(fds[1])")
        settings.container = .mkv
        let sink = try EncoderSink(settings: settings)
        var accepted = 0
        // Noise: every frame is tens of kilobytes, more than FFmpeg's output buffer holds.
        var f = Frame(width: 320, height: 240)
        var seed: UInt64 = 1
        for k in 0..<200 {
            f.withUnsafeMutableBytes { b in
                for i in 0..<b.count { seed = seed &* 6364136223846793005 &+ 1442695040888963407; b[i] = UInt8(truncatingIfNeeded: seed >> 56) }
            }
            f.tick = Int64(k)
            f.time = Rational(Int64(k), 30)
            guard try sink.write(f) else { break }
            accepted += 1
        }
        #expect(accepted < 200, "the closed pipe ended the render")
        sink.abandon()
    }
}
