import CFFmpeg
import FrameCore
import MediaInput

extension VideoDecoder {
    /// Reads what the container and codec say about the input.
    static func describe(
        input: String,
        format: UnsafeMutablePointer<AVFormatContext>,
        stream: UnsafeMutablePointer<AVStream>,
        codec: UnsafeMutablePointer<AVCodecContext>,
        orientation: Orientation,
        configuration: FrameSource.Configuration
    ) -> MediaInfo {
        let par = stream.pointee.codecpar.pointee
        let tb = stream.pointee.time_base
        func seconds(_ ts: Int64, _ base: AVRational) -> Double? {
            ts == VFX_AV_NOPTS_VALUE || ts < 0 && base.den == 0 ? nil : Double(ts) * av_q2d(base)
        }
        func name(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "unknown" }
        func tags(_ dictionary: OpaquePointer?) -> [String: String] { metadataTags(of: dictionary) }

        let formatName = name(format.pointee.iformat.pointee.name)
        let isStill = formatName == "image2" && !input.contains("%") || formatName.hasSuffix("_pipe") && formatName != "image2pipe"
        let sar = par.sample_aspect_ratio.num > 0 ? par.sample_aspect_ratio : stream.pointee.sample_aspect_ratio
        let (sw, sh) = PictureConverter.squareSize(width: Int(par.width), height: Int(par.height), sar: sar, enabled: configuration.squarePixels)
        let (dw, dh) = orientation.swapsAxes ? (sh, sw) : (sw, sh)

        let rate = stream.pointee.r_frame_rate
        let avg = stream.pointee.avg_frame_rate
        // The average rate is what a viewer sees; r_frame_rate is a timestamp grid (60 for
        // a variable-rate clip averaging 29.3), used only when no average is known.
        let nominal: AVRational? = isStill ? nil : (avg.num > 0 && avg.den > 0 ? avg : (rate.num > 0 && rate.den > 0 ? rate : nil))
        let pixFmt = AVPixelFormat(par.format)
        let desc = av_pix_fmt_desc_get(pixFmt)
        let bitDepth = desc.map { Int($0.pointee.comp.0.depth) } ?? 8

        let taggedRange: String
        switch par.color_range {
        case AVCOL_RANGE_MPEG: taggedRange = "limited"
        case AVCOL_RANGE_JPEG: taggedRange = "full"
        default: taggedRange = "unknown"
        }
        let isRGB = desc.map { $0.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0 } ?? false
        let decodeMatrix: String
        let decodeRange: String
        if isRGB {
            decodeMatrix = "rgb"
            decodeRange = "full"
        } else {
            switch PictureConverter.swsMatrix(for: par.color_space, choice: configuration.colorMatrix) {
            case SWS_CS_ITU709: decodeMatrix = "bt709"
            case SWS_CS_BT2020: decodeMatrix = "bt2020"
            case SWS_CS_SMPTE240M: decodeMatrix = "smpte240m"
            case SWS_CS_FCC: decodeMatrix = "fcc"
            default: decodeMatrix = "bt601"
            }
            decodeRange = PictureConverter.isFullRange(par.color_range, format: pixFmt, choice: configuration.colorRange) ? "full" : "limited"
        }

        var frameCount: Int? = stream.pointee.nb_frames > 0 ? Int(stream.pointee.nb_frames) : nil
        if isStill { frameCount = 1 }
        let streamDuration = stream.pointee.duration > 0 ? seconds(stream.pointee.duration, tb) : nil
        let formatDuration = format.pointee.duration > 0 ? Double(format.pointee.duration) / Double(AV_TIME_BASE) : nil

        let videoInfo = VideoStreamInfo(
            index: Int(stream.pointee.index),
            codec: name(avcodec_get_name(par.codec_id)),
            codecLongName: name(codec.pointee.codec.pointee.long_name),
            profile: avcodec_profile_name(par.codec_id, par.profile).map { String(cString: $0) },
            pixelFormat: name(av_get_pix_fmt_name(pixFmt)),
            bitDepth: bitDepth,
            codedWidth: Int(par.width),
            codedHeight: Int(par.height),
            sampleAspectRatio: sar.num > 0 && sar.den > 0 ? "\(sar.num):\(sar.den)" : "1:1",
            frameRate: nominal.map { "\(Rational(Int64($0.num), Int64($0.den)))" },
            averageFrameRate: avg.num > 0 && avg.den > 0 && !isStill ? av_q2d(avg) : nil,
            frameCount: frameCount,
            colorMatrix: name(av_color_space_name(par.color_space)),
            colorRange: taggedRange,
            colorPrimaries: name(av_color_primaries_name(par.color_primaries)),
            colorTransfer: name(av_color_transfer_name(par.color_trc)),
            decodeMatrix: decodeMatrix,
            decodeRange: decodeRange,
            startTime: stream.pointee.start_time == VFX_AV_NOPTS_VALUE ? nil : seconds(stream.pointee.start_time, tb),
            duration: streamDuration,
            isStillImage: isStill
        )

        var video = videoInfo
        video.tags = tags(stream.pointee.metadata)
        let alphaTag = av_dict_get(stream.pointee.metadata, "alpha_mode", nil, 0).map { String(cString: $0.pointee.value) }
        video.hasAlpha = (desc.map { $0.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0 } ?? false) || alphaTag == "1"
        switch par.field_order {
        case AV_FIELD_PROGRESSIVE: video.scan = "progressive"
        case AV_FIELD_TT, AV_FIELD_TB: video.scan = "interlaced (top field first)"
        case AV_FIELD_BB, AV_FIELD_BT: video.scan = "interlaced (bottom field first)"
        default: video.scan = "unknown"
        }
        switch par.color_trc {
        case AVCOL_TRC_ARIB_STD_B67: video.hdr = "HLG"
        case AVCOL_TRC_SMPTE2084: video.hdr = "PQ"
        default: video.hdr = nil
        }
        if video.hdr != nil, let curve = configuration.toneMapping.curve {
            let light = vfx_stream_peak_nits(stream)
            let peak = configuration.peakNits ?? StreamColor(contentPeakNits: light > 0 ? light : nil).defaultPeakNits
            video.toneMap = "\(curve), peak \(Int(peak.rounded())) nits"
        }

        var audio: [AudioStreamInfo] = []
        for i in 0..<Int(format.pointee.nb_streams) {
            let st = format.pointee.streams[i]!
            let ap = st.pointee.codecpar!
            guard ap.pointee.codec_type == AVMEDIA_TYPE_AUDIO else { continue }
            var layout = [UInt8](repeating: 0, count: 64)
            let hasLayout = layout.withUnsafeMutableBufferPointer { b in
                av_channel_layout_describe(&ap.pointee.ch_layout, UnsafeMutableRawPointer(b.baseAddress!).assumingMemoryBound(to: CChar.self), b.count) > 0
            }
            var language: String?
            if let tag = av_dict_get(st.pointee.metadata, "language", nil, 0) {
                language = String(cString: tag.pointee.value)
            }
            audio.append(AudioStreamInfo(
                index: i,
                codec: name(avcodec_get_name(ap.pointee.codec_id)),
                sampleRate: Int(ap.pointee.sample_rate),
                channels: Int(vfx_channel_count(ap)),
                channelLayout: hasLayout ? String(decoding: layout.prefix { $0 != 0 }, as: UTF8.self) : nil,
                duration: st.pointee.duration > 0 ? seconds(st.pointee.duration, st.pointee.time_base) : nil,
                bitRate: ap.pointee.bit_rate > 0 ? Int(ap.pointee.bit_rate) : nil,
                language: language,
                tags: tags(st.pointee.metadata)
            ))
        }

        var info = MediaInfo(
            input: input,
            container: formatName,
            duration: isStill ? nil : (streamDuration ?? formatDuration),
            width: dw,
            height: dh,
            frameRate: nominal.map { av_q2d($0) },
            rotation: orientation.rotation,
            mirrored: orientation.mirrored,
            bitRate: format.pointee.bit_rate > 0 ? Int(format.pointee.bit_rate) : nil,
            video: video,
            audio: audio,
            problem: nil
        )
        info.tags = tags(format.pointee.metadata)
        return info
    }
}
