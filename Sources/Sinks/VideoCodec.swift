import CFFmpeg

/// Video codecs the encoder sink can write.
public enum VideoCodec: String, Sendable, CaseIterable {
    case h264, hevc, vp9, av1, prores

    /// The codec for an output file's extension: H.264 for mp4/mov/mkv/ts, VP9 for webm.
    public static func forExtension(_ ext: String) -> VideoCodec? {
        OutputContainer(extension: ext)?.defaultCodec
    }

    /// FFmpeg encoder names, best first.
    var encoderNames: [String] {
        switch self {
        case .h264: ["libx264"]
        case .hevc: ["libx265"]
        case .vp9: ["libvpx-vp9"]
        case .av1: ["libsvtav1", "libaom-av1"]
        case .prores: ["prores_ks"]
        }
    }

    /// Pixel format written: 4:2:0 so every player opens it (ProRes is 4:2:2 10-bit by definition).
    var pixelFormat: AVPixelFormat { self == .prores ? AV_PIX_FMT_YUV422P10LE : AV_PIX_FMT_YUV420P }

    /// Whether width and height must be even (chroma subsampled vertically and horizontally).
    var needsEvenSize: Bool { true }

    /// Encoder options for quality settings.
    func options(crf: Int?, preset: String?, bitrate: Int?) -> [(String, String)] {
        var o: [(String, String)] = []
        switch self {
        case .h264, .hevc:
            if bitrate == nil { o.append(("crf", String(crf ?? 23))) }
            o.append(("preset", preset ?? "veryfast"))
            if self == .hevc { o.append(("x265-params", "log-level=error")) }
        case .vp9:
            if bitrate == nil { o.append(("crf", String(crf ?? 32))); o.append(("b", "0")) }
            o.append(("deadline", preset ?? "good"))
            o.append(("cpu-used", "4"))
            o.append(("row-mt", "1"))
        case .av1:
            if bitrate == nil { o.append(("crf", String(crf ?? 35))) }
            o.append(("preset", preset ?? "8"))
        case .prores:
            o.append(("profile", preset ?? "2"))
        }
        return o
    }
}
