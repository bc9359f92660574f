import CFFmpeg
import CFFmpegShim
import FrameCore
import MediaInput

/// Where an audio path (copy or transcode) reads the input's audio packets.
///
/// For `apply`, they are handed over by the video reader (``HandedAudio``): the input has
/// one demuxer. An input read for its audio alone (`concat --audio-from`) gets a demuxer
/// of its own (``AudioDemuxer``).
protocol AudioPackets: AnyObject {
    /// The audio stream's codec parameters.
    var parameters: UnsafeMutablePointer<AVCodecParameters> { get }
    /// The time base of the packets' timestamps.
    var timeBase: AVRational { get }
    /// Zero of the input's timeline, in seconds: the start of its video stream, the zero
    /// the video reader measures pictures from (an MPEG-TS often starts at 1.4 s). Audio
    /// times are measured from it too, so that audio keeps its offset to the video
    /// (starting a little before or after it) and nothing more.
    var origin: Rational { get }
    /// Goes to the start of loop pass `pass` of a clip that starts at `start` (source time).
    func enter(pass: Int, start: Rational)
    /// The pass's next packet, into `packet`: `.later` when it is not read yet (the video
    /// reader hands it over with a later frame), `.end` when the pass has no more.
    func next(into packet: UnsafeMutablePointer<AVPacket>) throws(SinkError) -> AudioHandoff.Next
}

enum AudioInput {
    /// Where `input`'s audio packets come from: the video reader's handoff when it has
    /// opened the input (`.shared` access), a demuxer of its own otherwise. Nil when the
    /// input has no audio. Every read of its own polls `stop` (which must outlive it).
    static func packets(of input: MediaInput, stop: StopSignal?) throws(SinkError) -> (any AudioPackets)? {
        if let handoff = input.audioHandoff {
            switch handoff.stream {
            case .some(.some(let stream)): return HandedAudio(handoff, stream: stream, input: input.location)
            case .some(.none):
                handoff.close()
                return nil
            case .none:
                handoff.close()  // no video reader opened the input: read it here
            }
        }
        return try AudioDemuxer(input, stop: stop)
    }
}

/// The audio packets the video reader hands over (``AudioHandoff``).
final class HandedAudio: AudioPackets {
    private let handoff: AudioHandoff
    private let input: String
    let parameters: UnsafeMutablePointer<AVCodecParameters>
    let timeBase: AVRational
    let origin: Rational

    init(_ handoff: AudioHandoff, stream: AudioHandoff.Stream, input: String) {
        self.handoff = handoff
        self.input = input
        parameters = stream.parameters
        timeBase = stream.timeBase
        origin = stream.origin
    }

    deinit { handoff.close() }

    func enter(pass: Int, start: Rational) { handoff.enter(pass: pass) }

    func next(into packet: UnsafeMutablePointer<AVPacket>) throws(SinkError) -> AudioHandoff.Next {
        let next = handoff.next(into: packet)
        if next == .overflowed {
            throw SinkError(path: input, reason: "the audio fell more than \(AudioHandoff.limit >> 20) MB behind the video")
        }
        return next
    }
}

/// A demuxer of the input's own, for its audio alone: it seeks to each pass's start.
final class AudioDemuxer: AudioPackets {
    private let input: String
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var customIO: UnsafeMutableRawPointer?
    /// Polled by every read of the input; held here because FFmpeg holds it unretained.
    private let stop: StopSignal?
    private var streamIndex: Int32 = -1
    private(set) var timeBase = AVRational(num: 1, den: 1)
    private(set) var origin = Rational(0)
    /// Keeps the timeline continuous across jumps, as the video reader does.
    private var mender: AudioMender?

    var parameters: UnsafeMutablePointer<AVCodecParameters> { format!.pointee.streams[Int(streamIndex)]!.pointee.codecpar }

    /// Opens `input`'s best audio stream; nil when it has none.
    init?(_ input: MediaInput, stop: StopSignal?) throws(SinkError) {
        self.input = input.location
        self.stop = stop
        var format = avformat_alloc_context()
        guard let ctx = format else { throw SinkError(path: input.location, reason: "out of memory") }
        let poll = stop == nil ? nil : StopSignal.poll
        let opaque = stop?.opaque
        ctx.pointee.interrupt_callback = AVIOInterruptCB(callback: poll, opaque: opaque)
        var url = input.ffmpegURL
        do {
            if let io = try input.makeReader(interrupt: poll, opaque: opaque) {
                customIO = io
                ctx.pointee.pb = io.assumingMemoryBound(to: AVIOContext.self)
                ctx.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
                url = ""
            }
        } catch {
            avformat_free_context(ctx)
            throw SinkError(path: input.location, reason: "cannot keep standard input for its audio: no temporary file")
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
            vfx_stdin_reader_free(customIO)  // a custom reader is the caller's to free
            customIO = nil
            throw SinkError.ffmpeg(input.location, "cannot open for audio", r)
        }
        self.format = opened
        let found = avformat_find_stream_info(opened, nil)
        let best = av_find_best_stream(opened, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        guard found >= 0, best >= 0 else { return nil }
        streamIndex = best
        timeBase = opened.pointee.streams[Int(best)]!.pointee.time_base
        let video = vfx_best_video_stream(opened)
        if video >= 0, let stream = opened.pointee.streams[Int(video)], stream.pointee.start_time != VFX_AV_NOPTS_VALUE,
           stream.pointee.time_base.den > 0 {
            let tb = stream.pointee.time_base
            origin = Rational(stream.pointee.start_time * Int64(tb.num), Int64(tb.den))
        }
        mender = AudioMender(format: opened)
        let kept = mender?.kept ?? [best]
        for i in 0..<Int(opened.pointee.nb_streams) where !kept.contains(Int32(i)) { opened.pointee.streams[i]!.pointee.discard = AVDISCARD_ALL }
    }

    deinit {
        avformat_close_input(&format)
        vfx_stdin_reader_free(customIO)
    }

    func enter(pass: Int, start: Rational) {
        mender?.reset()  // what follows a seek is no continuation of what came before
        // From as early as the video reader's seek reads the audio (``AudioHandoff/lead``).
        let from = start - AudioHandoff.lead
        guard let fmt = format, pass > 0 || from > Rational(0) else { return }  // already at the top
        let stream = fmt.pointee.streams[Int(streamIndex)]!
        let first = stream.pointee.start_time == VFX_AV_NOPTS_VALUE ? 0 : stream.pointee.start_time
        let ts = max(first, (from + origin).floor(in: Rational(Int64(timeBase.num), Int64(timeBase.den))))
        if av_seek_frame(fmt, streamIndex, ts, AVSEEK_FLAG_BACKWARD) < 0 {
            _ = av_seek_frame(fmt, streamIndex, first, AVSEEK_FLAG_BACKWARD)
        }
    }

    func next(into packet: UnsafeMutablePointer<AVPacket>) throws(SinkError) -> AudioHandoff.Next {
        guard let fmt = format else { return .end }
        while av_read_frame(fmt, packet) >= 0 {
            mender?.mend(packet, in: fmt)
            if packet.pointee.stream_index == streamIndex { return .packet }
            av_packet_unref(packet)
        }
        return .end
    }
}

/// An audio demuxer's side of mending timestamp jumps (vfx_mender): where the container
/// has them, the audio demuxer keeps the video stream too and feeds every packet it
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
