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

    /// Pixel format written: 4:2:0 so every player opens it; ProRes 10-bit 4:2:2, or
    /// 4:4:4 for its 4444 profiles. With `alpha`, the formats that carry it: ProRes 4444
    /// (yuva444p10) and VP9 (yuva420p, written to WebM as its alpha_mode side stream).
    func pixelFormat(preset: String?, alpha: Bool) -> AVPixelFormat {
        switch self {
        case .prores:
            if alpha { return AV_PIX_FMT_YUVA444P10LE }
            return preset?.hasPrefix("4444") == true ? AV_PIX_FMT_YUV444P10LE : AV_PIX_FMT_YUV422P10LE
        case .vp9: return alpha ? AV_PIX_FMT_YUVA420P : AV_PIX_FMT_YUV420P
        default: return AV_PIX_FMT_YUV420P
        }
    }

    /// Whether this codec can keep transparency with `preset` (ProRes only in its 4444 profiles).
    func carriesAlpha(preset: String?) -> Bool {
        switch self {
        case .vp9: return true
        case .prores: return preset == nil || preset!.hasPrefix("4444")
        default: return false
        }
    }

    /// Whether width and height must be even (chroma subsampled vertically and horizontally).
    var needsEvenSize: Bool { true }

    /// The constant rate factors the encoder takes (lower is better), nil for ProRes,
    /// whose quality is its profile.
    public var crfRange: ClosedRange<Int>? {
        switch self {
        case .h264, .hevc: 0...51
        case .vp9, .av1: 0...63
        case .prores: nil
        }
    }

    /// The codec's name as people write it in messages.
    public var displayName: String {
        switch self {
        case .h264: "H.264"
        case .hevc: "HEVC"
        case .vp9: "VP9"
        case .av1: "AV1"
        case .prores: "ProRes"
        }
    }

    /// The speed presets every codec but ProRes takes: x264's names, fastest first.
    public static let speedPresets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"]
    /// ProRes's presets are its profiles: 4:2:2 (proxy to hq) and 4:4:4 with alpha (4444, 4444xq).
    public static let proresProfiles = ["proxy", "lt", "standard", "hq", "4444", "4444xq"]

    /// The `--preset` names this codec takes.
    public var presets: [String] { self == .prores ? Self.proresProfiles : Self.speedPresets }

    /// Encoder options for quality settings. `preset` is one of ``presets``: x264's
    /// speed names for every codec (VP9 maps them to its deadline and cpu-used, SVT-AV1
    /// to its preset number), ProRes's profile names for ProRes.
    func options(crf: Int?, preset: String?, bitrate: Int?, alpha: Bool = false) throws(SinkError) -> [(String, String)] {
        if let preset, !presets.contains(preset) {
            throw SinkError(path: "--preset", reason: "'\(preset)' is not a \(rawValue) preset; use \(presets.joined(separator: ", "))")
        }
        if let crf {
            guard let range = crfRange else {
                throw SinkError(path: "--crf", reason: "ProRes has no CRF: its quality is its profile (--preset proxy, lt, standard, hq, 4444 or 4444xq)")
            }
            guard range.contains(crf) else {
                throw SinkError(path: "--crf", reason: "\(crf) is outside \(displayName)'s \(range.lowerBound)…\(range.upperBound) (lower is better)")
            }
        }
        let speed = preset.flatMap { Self.speedPresets.firstIndex(of: $0) }  // 0 fastest … 8 slowest
        var o: [(String, String)] = []
        switch self {
        case .h264, .hevc:
            if bitrate == nil { o.append(("crf", String(crf ?? 23))) }
            o.append(("preset", preset ?? "veryfast"))
            if self == .hevc { o.append(("x265-params", "log-level=error")) }
        case .vp9:
            if bitrate == nil { o.append(("crf", String(crf ?? 32))); o.append(("b", "0")) }
            // Without a preset: good quality at cpu-used 4, about x264's "faster".
            let (deadline, cpu) = speed.map { [("realtime", 8), ("realtime", 6), ("good", 5), ("good", 4), ("good", 3), ("good", 2),
                                               ("good", 1), ("good", 0), ("best", 0)][$0] } ?? ("good", 4)
            o.append(("deadline", deadline))
            o.append(("cpu-used", String(cpu)))
            o.append(("row-mt", "1"))
        case .av1:
            if bitrate == nil { o.append(("crf", String(crf ?? 35))) }
            o.append(("preset", String(speed.map { [12, 11, 10, 9, 8, 6, 4, 3, 2][$0] } ?? 8)))
        case .prores:
            // Without a preset: standard, or 4444 to keep transparency.
            o.append(("profile", String(preset.flatMap { Self.proresProfiles.firstIndex(of: $0) } ?? (alpha ? 4 : 2))))
        }
        return o
    }
}
