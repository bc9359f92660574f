import CFFmpeg
public import FrameCore

#if canImport(Glibc)
import Glibc
#endif

/// Why a sink could not write. The description is one line naming the file and the cause.
public struct SinkError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure, for callers that act on it (a closed reader is the end of
    /// the show, not a failure; a full disk may be worth a retry elsewhere).
    public enum Kind: Sendable, Equatable {
        /// The program reading a pipe went away (EPIPE). Only reported where SIGPIPE is
        /// ignored, as the vidfx executable does: otherwise the signal ends the process.
        case readerClosed
        /// No space left, or a file-size or quota limit reached.
        case diskFull
        /// The target appeared while rendering and overwriting was not allowed.
        case targetExists
        /// The file system refused access.
        case permissionDenied
        /// Anything else.
        case other
    }

    /// The output (or input, for audio) the problem is about.
    public let path: String
    /// What went wrong.
    public let reason: String
    /// What kind of failure it is.
    public let kind: Kind

    /// Creates an error.
    public init(path: String, reason: String, kind: Kind = .other) {
        self.path = path
        self.reason = reason
        self.kind = kind
    }

    public var description: String { "\(path): \(reason)" }

    /// The reason given when the program reading a pipe has gone away.
    public static let readerClosed = "the reader closed the pipe"

    /// True when writing stopped because the reader of a pipe went away.
    public var isReaderClosed: Bool { kind == .readerClosed }

    /// The kind an errno value stands for.
    static func kind(errno code: Int32) -> Kind {
        switch code {
        case EPIPE: .readerClosed
        case ENOSPC, EFBIG, EDQUOT: .diskFull
        case EACCES, EPERM, EROFS: .permissionDenied
        case EEXIST: .targetExists
        default: .other
        }
    }

    /// An error from a system call's errno: "PATH: what (reason)".
    static func posix(_ path: String, _ what: String, _ code: Int32) -> SinkError {
        SinkError(path: path, reason: "\(what) (\(String(cString: strerror(code))))", kind: kind(errno: code))
    }

    /// An error from an FFmpeg return code.
    static func ffmpeg(_ path: String, _ what: String, _ code: Int32) -> SinkError {
        var buffer = [UInt8](repeating: 0, count: 128)
        buffer.withUnsafeMutableBufferPointer { b in
            vfx_err2str(code, UnsafeMutableRawPointer(b.baseAddress!).assumingMemoryBound(to: CChar.self), b.count)
        }
        // FFmpeg's codes are negated errno values where they come from the system.
        return SinkError(path: path, reason: "\(what): \(String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self))",
                         kind: code < 0 ? kind(errno: -code) : .other)
    }
}

extension SinkError: UserFacingError {}
