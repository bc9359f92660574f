import Foundation
public import FrameCore

#if canImport(Glibc)
import Glibc
#endif

/// Raw BGRA frames back to back, `width * 4` bytes per row, rows top to bottom, no
/// header: to standard output (`-`), to a device or pipe (written straight through), or
/// to a file (built beside it and renamed into place by ``finish()``).
public final class RawStreamSink: FrameSink {
    /// The output as given.
    public let name: String
    private let temporary: String?
    private let fd: Int32
    private let overwrite: Bool
    private var closed = false

    /// Opens `path` (`-` for standard output). An existing regular file is replaced only
    /// with `overwrite`, and only when the render finishes.
    /// - Throws: ``SinkError`` when the output cannot be written or exists.
    public init(path: String, overwrite: Bool) throws(SinkError) {
        name = path
        self.overwrite = overwrite
        if path == "-" {
            fd = STDOUT_FILENO
            temporary = nil
            return
        }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            // A device or pipe (/dev/null, a FIFO): write straight to it, nothing to replace.
            fd = open(path, O_WRONLY)
            guard fd >= 0 else { throw SinkError.posix(path, "cannot write", errno) }
            temporary = nil
            return
        }
        if !overwrite, FileManager.default.fileExists(atPath: path) {
            throw SinkError(path: path, reason: "already exists (use -y to overwrite)", kind: .targetExists)
        }
        AtomicOutput.removeStaleWork(besides: path)
        let work = AtomicOutput.workPath(for: path)
        fd = open(work, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw SinkError.posix(path, "cannot write", errno) }
        temporary = work
    }

    deinit { if !closed { abandon() } }

    /// Writes the frame's rows; false when the reader of the pipe has gone.
    public func write(_ frame: Frame) throws(SinkError) -> Bool {
        let rowBytes = frame.width * 4
        return try frame.withUnsafeBytes { (bytes) throws(SinkError) -> Bool in
            if frame.bytesPerRow == rowBytes {
                return try writeAll(bytes.baseAddress!, rowBytes * frame.height)
            }
            return try writeRows(bytes.baseAddress!, stride: frame.bytesPerRow, rowBytes: rowBytes, count: frame.height)
        }
    }

    /// Padded rows (a width whose row is not a multiple of the pool's alignment, such as a
    /// rotated 1080-wide phone frame) go out up to 1024 to a system call: one `write` a
    /// row was 1920 calls a frame.
    private func writeRows(_ base: UnsafeRawPointer, stride: Int, rowBytes: Int, count: Int) throws(SinkError) -> Bool {
        let batch = 1024  // IOV_MAX on Linux
        var vectors = [iovec](repeating: iovec(), count: min(batch, count))
        var first = 0
        while first < count {
            let rows = min(batch, count - first)
            for i in 0..<rows {
                vectors[i] = iovec(iov_base: UnsafeMutableRawPointer(mutating: base + (first + i) * stride), iov_len: rowBytes)
            }
            let n = vectors.withUnsafeBufferPointer { writev(fd, $0.baseAddress, Int32(rows)) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE { return false }
                throw SinkError.posix(name, "write failed", errno)
            }
            // A short write: finish the row it stopped in, then go on from the next.
            let whole = n / rowBytes, part = n % rowBytes
            if whole < rows, part > 0 {
                guard try writeAll(base + (first + whole) * stride + part, rowBytes - part) else { return false }
                first += whole + 1
            } else {
                first += whole
            }
        }
        return true
    }

    private func writeAll(_ p: UnsafeRawPointer, _ count: Int) throws(SinkError) -> Bool {
        var done = 0
        while done < count {
            let n = Glibc.write(fd, p + done, count - done)
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE { return false }
                throw SinkError.posix(name, "write failed", errno)
            }
            done += n
        }
        return true
    }

    /// Flushes and renames the work file into place.
    public func finish() throws(SinkError) {
        closed = true
        guard let temporary else {
            if fd != STDOUT_FILENO { close(fd) }
            return
        }
        guard fsync(fd) == 0 || errno == EINVAL, close(fd) == 0 else {
            let code = errno
            unlink(temporary)
            throw SinkError.posix(name, "write failed", code)
        }
        do { try AtomicOutput.publish(temporary, to: name, overwrite: overwrite) } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Removes the work file.
    public func abandon() {
        guard !closed else { return }
        closed = true
        if fd != STDOUT_FILENO { close(fd) }
        if let temporary { unlink(temporary) }
    }
}
