import CFFmpeg
import CFFmpegShim
import FrameCore
import MediaInput

/// Opening an input for its audio, beside the video reader of the same input.
enum AudioInput {
    /// Opens `input` for its audio, through the reader the input gives (standard
    /// input's spool, the video reader's download) when it has one: `customIO` then
    /// holds it, to free with ``close(_:customIO:)``. Every read polls `stop` (which
    /// must outlive the reader), however the input is read.
    static func open(_ input: MediaInput, stop: StopSignal?,
                     customIO: inout UnsafeMutableRawPointer?) throws(SinkError) -> UnsafeMutablePointer<AVFormatContext> {
        var format = avformat_alloc_context()
        guard let ctx = format else { throw SinkError(path: input.location, reason: "out of memory") }
        let poll = stop == nil ? nil : StopSignal.poll
        let opaque = stop?.opaque
        ctx.pointee.interrupt_callback = AVIOInterruptCB(callback: poll, opaque: opaque)
        var url = input.ffmpegURL
        do {
            if let io = try input.makeReader(interrupt: poll, progress: nil, opaque: opaque) {
                customIO = io
                ctx.pointee.pb = io.assumingMemoryBound(to: AVIOContext.self)
                ctx.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
                if input.isStandardInput { url = "" }
            }
        } catch {
            avformat_free_context(ctx)
            switch error {
            case .spool: throw SinkError(path: input.location, reason: "cannot keep standard input for its audio: no temporary file")
            case .open(let code): throw SinkError.ffmpeg(input.location, "cannot open for audio", code)
            }
        }
        var dict: OpaquePointer?
        defer { av_dict_free(&dict) }
        for (key, value) in input.protocolOptions {
            av_dict_set(&dict, key, value, 0)
            // Set on the context as well: a custom reader carries no whitelist for the
            // demuxer to inherit, and this one decides what a playlist may open.
            if key == "protocol_whitelist" { ctx.pointee.protocol_whitelist = av_strdup(value) }
        }
        let r = avformat_open_input(&format, url, nil, &dict)  // frees the context on failure
        guard r >= 0, let opened = format else {
            vfx_reader_free(customIO)  // a custom reader is the caller's to free
            customIO = nil
            throw SinkError.ffmpeg(input.location, "cannot open for audio", r)
        }
        return opened
    }

    /// Where the input's timeline starts, in seconds: the start of its video stream, the
    /// zero the video reader measures pictures from (an MPEG-TS often starts at 1.4 s).
    /// Audio times are measured from it too, so that audio keeps its offset to the
    /// video (starting a little before or after it) and nothing more.
    static func origin(of format: UnsafeMutablePointer<AVFormatContext>) -> Rational {
        let index = vfx_best_video_stream(format)
        guard index >= 0, let stream = format.pointee.streams[Int(index)], stream.pointee.start_time != VFX_AV_NOPTS_VALUE,
              stream.pointee.time_base.den > 0 else { return Rational(0) }
        let tb = stream.pointee.time_base
        return Rational(stream.pointee.start_time * Int64(tb.num), Int64(tb.den))
    }

    /// Closes what ``open(_:stop:customIO:)`` opened.
    static func close(_ format: inout UnsafeMutablePointer<AVFormatContext>?, customIO: inout UnsafeMutableRawPointer?) {
        avformat_close_input(&format)
        vfx_reader_free(customIO)
        customIO = nil
    }
}

/// The audio reader's side of mending timestamp jumps (vfx_mender): where the container
/// has them, the audio reader keeps the video stream too and feeds every packet it
/// reads to a mender, exactly as the video reader does, so both mend the same jumps by
/// the same amounts and the audio stays with the pictures.
final class AudioMender {
    private let mender: OpaquePointer
    /// The streams both readers keep: the audio, and the video the video reader reads.
    let kept: Set<Int32>

    /// Nil for containers whose timestamps do not jump.
    init?(format: UnsafeMutablePointer<AVFormatContext>) {
        var video: Int32 = -1, audio: Int32 = -1
        guard let m = vfx_mender_for(format, &video, &audio) else { return nil }
        mender = m
        kept = [audio, video]
    }

    deinit { vfx_mender_free(mender) }

    /// Mends a packet just read from `format`.
    func mend(_ packet: UnsafeMutablePointer<AVPacket>, in format: UnsafeMutablePointer<AVFormatContext>) {
        let tb = format.pointee.streams[Int(packet.pointee.stream_index)]!.pointee.time_base
        _ = vfx_mender_mend(mender, packet, tb.num, tb.den)
    }

    /// After a seek: what follows is no continuation.
    func reset() { vfx_mender_reset(mender) }
}
