public import FrameCore
/// Why a ``FrameSource`` could not open or read its input. The description is one
/// line that names the input and says what went wrong.
public struct FrameSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The broad cause, for code that reacts differently to each.
    public enum Kind: String, Sendable, Equatable {
        /// The file or URL does not exist (missing file, HTTP 404).
        case notFound
        /// The input exists but may not be read (permissions, HTTP 401/403).
        case permissionDenied
        /// The bytes are not a media file we can read, or are damaged or cut short.
        case invalidData
        /// The input has no video stream.
        case noVideoStream
        /// The video codec has no decoder in this FFmpeg build.
        case unsupportedCodec
        /// Decoding failed partway in a way that cannot be skipped.
        case decodeFailed
        /// The input produced no picture (empty, or everything before `start` ended the clip).
        case noFrames
        /// A network failure: refused, timed out, HTTP error, TLS.
        case network
        /// A configuration value that cannot work (for example a zero frame rate).
        case invalidConfiguration
    }

    /// The input as the caller gave it (path or URL).
    public let input: String
    /// The broad cause.
    public let kind: Kind
    /// What happened, in words (FFmpeg's message where it has one).
    public let reason: String

    /// Creates an error for `input`.
    public init(input: String, kind: Kind, reason: String) {
        self.input = input
        self.kind = kind
        self.reason = reason
    }

    /// `input: reason`, on one line.
    public var description: String {
        let oneLine = reason.split(whereSeparator: \.isNewline).joined(separator: "; ")
        return "\(input): \(oneLine)"
    }
}

extension FrameSourceError: UserFacingError {
    /// 2 for bad arguments (an invalid configuration), 1 for everything else.
    public var exitCode: Int32 { kind == .invalidConfiguration ? 2 : 1 }
}
