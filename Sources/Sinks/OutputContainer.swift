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

    /// The video codecs written in this container (each pair tried: OutputCodecTests): MP4
    /// has no ProRes tag, FFmpeg 5.1's MOV muxer takes VP9 only in MP4 (and with SVT-AV1 it
    /// hangs: AV1 goes in MP4, MKV or WebM), WebM holds VP9 and AV1,
    /// and MPEG-TS defines streams for H.264 and HEVC only (FFmpeg would write the others
    /// as private data no player reads).
    public var videoCodecs: [VideoCodec] {
        switch self {
        case .mp4: [.h264, .hevc, .vp9, .av1]
        case .mov: [.h264, .hevc, .prores]
        case .mkv: [.h264, .hevc, .vp9, .av1, .prores]
        case .webm: [.vp9, .av1]
        case .ts: [.h264, .hevc]
        }
    }

    /// The containers that take `codec`, by their extensions (`.mp4, .mkv or .webm`).
    public static func holding(_ codec: VideoCodec) -> String {
        let names = allCases.filter { $0.videoCodecs.contains(codec) }.map { "." + $0.rawValue }
        return names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    /// The video codec written unless another is asked for: H.264 (so every player opens
    /// it), VP9 for WebM (which takes only VP8, VP9 and AV1).
    public var defaultCodec: VideoCodec { self == .webm ? .vp9 : .h264 }

    /// The audio codecs (FFmpeg's names) copied into this container as they are: those
    /// the container's specification and the common players (browsers, QuickTime, VLC,
    /// set-top boxes) take; FFmpeg's muxer must also accept the codec (see EncoderSink).
    /// Anything else is transcoded. Nil for Matroska, which takes whatever FFmpeg can put
    /// in it.
    var copiedAudio: Set<String>? {
        switch self {
        // Players take FLAC in MP4 too, but FFmpeg 5.1's MP4 muxer refuses it at normal
        // strictness (only when the header is written; avformat_query_codec says yes).
        case .mp4: ["aac", "mp3", "opus", "alac"]
        case .mov: ["aac", "mp3", "alac", "pcm_s16le", "pcm_s16be", "pcm_s24le", "pcm_s24be"]
        case .webm: ["opus", "vorbis"]
        case .ts: ["aac", "mp3", "mp2", "ac3", "eac3"]
        case .mkv: nil
        }
    }

    /// How the user knows the container: its usual extension.
    var displayName: String { self == .mkv ? "Matroska (.mkv)" : ".\(rawValue)" }

    /// MP4 and MOV write their index at the end, which a pipe cannot seek back to: when
    /// streaming they are fragmented, a playable header first and a fragment per key frame.
    var needsFragmentsToStream: Bool { self == .mp4 || self == .mov }
}
