/// Container formats the encoder sink writes.
public enum OutputContainer: String, Sendable, CaseIterable {
    case mp4, mov, mkv, webm, ts

    /// The container for a file extension (`m4v` is MP4), or nil.
    public init?(extension ext: String) {
        switch ext.lowercased() {
        case "mp4", "m4v": self = .mp4
        case "mov": self = .mov
        case "mkv": self = .mkv
        case "webm": self = .webm
        case "ts", "m2ts", "mts": self = .ts
        default: return nil
        }
    }

    /// FFmpeg's muxer name.
    var formatName: String {
        switch self {
        case .mp4: "mp4"
        case .mov: "mov"
        case .mkv: "matroska"
        case .webm: "webm"
        case .ts: "mpegts"
        }
    }

    /// The video codec written unless another is asked for: H.264 (so every player opens
    /// it), VP9 for WebM (which takes only VP8, VP9 and AV1).
    public var defaultCodec: VideoCodec { self == .webm ? .vp9 : .h264 }

    /// MP4 and MOV write their index at the end, which a pipe cannot seek back to: when
    /// streaming they are fragmented, a playable header first and a fragment per key frame.
    var needsFragmentsToStream: Bool { self == .mp4 || self == .mov }
}
