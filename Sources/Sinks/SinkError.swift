import CFFmpeg

/// Why a sink could not write. The description is one line naming the file and the cause.
public struct SinkError: Error, Sendable, CustomStringConvertible {
    /// The output (or input, for audio) the problem is about.
    public let path: String
    /// What went wrong.
    public let reason: String

    /// Creates an error.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }

    /// The reason given when the program reading a pipe has gone away.
    public static let readerClosed = "the reader closed the pipe"

    /// True when writing stopped because the reader of a pipe went away.
    public var isReaderClosed: Bool { reason == Self.readerClosed }

    /// An error from an FFmpeg return code.
    static func ffmpeg(_ path: String, _ what: String, _ code: Int32) -> SinkError {
        var buffer = [UInt8](repeating: 0, count: 128)
        buffer.withUnsafeMutableBufferPointer { b in
            vfx_err2str(code, UnsafeMutableRawPointer(b.baseAddress!).assumingMemoryBound(to: CChar.self), b.count)
        }
        return SinkError(path: path, reason: "\(what): \(String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self))")
    }
}
