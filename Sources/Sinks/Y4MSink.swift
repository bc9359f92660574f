public import FrameCore
#if canImport(Glibc)
import Glibc
#endif

/// A YUV4MPEG2 stream (what `mpv -`, `ffplay -` and `ffmpeg -i -` read) on a file
/// descriptor, standard output by default: 4:2:0, limited range, BT.601 — y4m has no
/// colour tag, and FFmpeg reads an untagged stream as BT.601, so that is what makes
/// the colours come out right. Chroma is the mean of each 2×2 block, which is the
/// centred (`C420jpeg`) siting.
///
/// Every tick yields a frame: a tick playback dropped repeats the previous frame, so
/// the reader's timeline matches the clock. A reader that quits ends the stream quietly
/// where the process ignores SIGPIPE (the vidfx executable does; a library user must).
public final class Y4MSink: PreviewSink {
    public let name = "y4m"
    public var isVisible: Bool { true }

    private let fd: Int32
    private let requestedSize: (width: Int, height: Int)?
    private let frameRate: Rational
    private var size: (width: Int, height: Int)?
    private var buffer: [UInt8] = []
    private var closed = false

    /// - Parameters:
    ///   - fd: where to write (standard output by default); not closed by the sink.
    ///   - size: output size; nil keeps the frames' size. Odd sizes are rounded down to even.
    ///   - frameRate: the rate written in the header.
    public init(fd: Int32 = 1, size: (width: Int, height: Int)? = nil, frameRate: Rational) {
        self.fd = fd
        self.requestedSize = size
        self.frameRate = frameRate
    }

    public func show(_ frame: Frame, caption: String?) throws(SinkError) -> Bool {
        if closed { return false }
        if size == nil { try start(with: frame) }
        guard let size else { return false }
        let picture = FrameScaler.resize(frame, width: size.width, height: size.height)
        let lumaBytes = size.width * size.height, chromaBytes = lumaBytes / 4
        buffer.withUnsafeMutableBufferPointer { b in
            let y = b.baseAddress! + 6  // after "FRAME\n"
            YUVConverter.convert(picture, matrix: .bt601, y: y, yStride: size.width,
                                 u: y + lumaBytes, v: y + lumaBytes + chromaBytes, cStride: size.width / 2)
        }
        return try send(buffer)
    }

    public func skip(tick: Int64) throws(SinkError) -> Bool {
        if closed { return false }
        guard size != nil else { return true }  // nothing shown yet: nothing to repeat
        return try send(buffer)
    }

    public func close() { closed = true }

    private func start(with frame: Frame) throws(SinkError) {
        let wanted = requestedSize ?? (frame.width, frame.height)
        let w = max(2, wanted.width & ~1), h = max(2, wanted.height & ~1)
        size = (w, h)
        let header = "YUV4MPEG2 W\(w) H\(h) F\(frameRate.numerator):\(frameRate.denominator) Ip A1:1 C420jpeg XYSCSS=420JPEG XCOLORRANGE=LIMITED\n"
        guard try send(Array(header.utf8)) else { closed = true; return }
        buffer = Array("FRAME\n".utf8) + [UInt8](repeating: 0, count: w * h * 3 / 2)
    }

    /// Writes all of `bytes`; false when the reader has gone (EPIPE).
    private func send(_ bytes: [UInt8]) throws(SinkError) -> Bool {
        let result: Result<Bool, SinkError> = bytes.withUnsafeBytes { b in
            var done = 0
            while done < b.count {
                let n = Glibc.write(fd, b.baseAddress! + done, b.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    if errno == EPIPE { return .success(false) }
                    return .failure(SinkError(path: "y4m output", reason: "write failed (\(String(cString: strerror(errno))))"))
                }
                done += n
            }
            return .success(true)
        }
        let ok = try result.get()
        if !ok { closed = true }
        return ok
    }
}
