import CFFmpeg
import MediaInput
import FrameCore

/// Copies the input's audio packets into the output, packet for packet, following the
/// video's clip (`start`, `duration`) and loops: source time `start + t` of pass `p`
/// goes to output time `passStart(p) + t`, the same mapping the video frames carry.
final class AudioCopy {
    private let input: String
    private let packets: any AudioPackets
    private var packet: UnsafeMutablePointer<AVPacket>?
    /// Zero of the input's timeline, in seconds (``AudioPackets/origin``).
    private let origin: Rational
    /// Decodes each packet before it is copied, so that damaged ones are dropped rather
    /// than passed on to every player; nil when this FFmpeg has no decoder for the codec.
    private var checker: UnsafeMutablePointer<AVCodecContext>?
    private var checked: UnsafeMutablePointer<AVFrame>?
    /// How many damaged packets were dropped.
    private(set) var damaged = 0
    private let inTimeBase: AVRational
    private let start: Rational
    private let end: Rational?
    /// Output stream the packets go to (set by the sink once the stream exists).
    var outStream: UnsafeMutablePointer<AVStream>?

    private var pass = -1
    private var passStart = Rational(0)
    private var pending = false     // `packet` holds a read packet not yet written
    private var exhausted = false   // this pass has no more packets
    private var lastDTS = Int64.min

    /// The input's audio codec parameters.
    var parameters: UnsafeMutablePointer<AVCodecParameters> { packets.parameters }

    /// Copies the audio `packets` bring.
    init(input: String, packets: any AudioPackets, start: Rational, duration: Rational?) {
        self.input = input
        self.packets = packets
        self.start = start
        self.end = duration.map { start + $0 }
        origin = packets.origin
        inTimeBase = packets.timeBase
        packet = av_packet_alloc()
        let par = packets.parameters
        if let codec = avcodec_find_decoder(par.pointee.codec_id), let dec = avcodec_alloc_context3(codec) {
            checker = dec
            if avcodec_parameters_to_context(dec, par) < 0 || avcodec_open2(dec, codec, nil) < 0 { avcodec_free_context(&checker) }
            checked = av_frame_alloc()
        }
    }

    deinit {
        avcodec_free_context(&checker)
        av_frame_free(&checked)
        av_packet_free(&packet)
    }

    /// Writes every packet whose output time is before `time`, for a video frame of
    /// pass `framePass` whose pass began at output time `framePassStart`.
    func write(upTo time: Rational, pass framePass: Int, passStart framePassStart: Rational,
               into muxer: UnsafeMutablePointer<AVFormatContext>) throws(SinkError) {
        while pass < framePass {
            // Finish the current pass up to where the next one begins, then rewind.
            if pass >= 0 { try drain(until: framePassStart, into: muxer) }
            pass += 1
            passStart = framePassStart
            rewind()
        }
        try drain(until: time, into: muxer)
    }

    /// Writes what is left of the current pass before output time `end`.
    func finish(at end: Rational, into muxer: UnsafeMutablePointer<AVFormatContext>) throws(SinkError) {
        if pass >= 0 { try drain(until: end, into: muxer) }
    }

    /// Whether the decoder rejects `packet` (it is not consumed). The decoder keeps its
    /// state from packet to packet, as a player's would.
    private func isDamaged(_ packet: UnsafeMutablePointer<AVPacket>) -> Bool {
        guard let dec = checker, let frame = checked else { return false }
        let sent = avcodec_send_packet(dec, packet)
        var bad = sent < 0 && sent != VFX_AVERROR_EAGAIN
        while true {
            let r = avcodec_receive_frame(dec, frame)
            if r == 0 { av_frame_unref(frame); continue }
            if r != VFX_AVERROR_EAGAIN && r != VFX_AVERROR_EOF { bad = true }
            break
        }
        return bad
    }

    private func rewind() {
        if pending, let packet { av_packet_unref(packet) }
        pending = false
        if let checker { avcodec_flush_buffers(checker) }
        exhausted = false
        packets.enter(pass: pass, start: start)
    }

    private var timeBase: Rational { Rational(Int64(inTimeBase.num), Int64(inTimeBase.den)) }

    /// A timestamp on the input's timeline, which starts where its video does.
    private func seconds(_ ts: Int64) -> Rational { timeBase * ts - origin }

    private func drain(until limit: Rational, into muxer: UnsafeMutablePointer<AVFormatContext>) throws(SinkError) {
        guard let pkt = packet, let out = outStream else { return }
        while !exhausted {
            if !pending {
                switch try packets.next(into: pkt) {
                case .packet: break
                case .later: return  // the video reader hands it over with a later frame
                case .end, .overflowed: exhausted = true; return
                }
                guard pkt.pointee.pts != VFX_AV_NOPTS_VALUE else {
                    av_packet_unref(pkt)
                    continue
                }
                let t = seconds(pkt.pointee.pts)
                if let end, t >= end { av_packet_unref(pkt); exhausted = true; return }
                // Before the clip: keep the very first pass's priming packets only when the
                // clip starts at 0 (negative times become an edit list); drop them otherwise
                // so passes never overlap.
                if t < start && !(pass == 0 && start == Rational(0)) { av_packet_unref(pkt); continue }
                if isDamaged(pkt) { damaged += 1; av_packet_unref(pkt); continue }
                pending = true
            }
            let outTime = passStart + (seconds(pkt.pointee.pts) - start)
            guard outTime < limit else { return }
            // Shift pts and dts by the same amount, in the input time base, then rescale.
            let shift = (passStart - start - origin).floor(in: timeBase)
            pkt.pointee.pts += shift
            if pkt.pointee.dts != VFX_AV_NOPTS_VALUE { pkt.pointee.dts += shift }
            av_packet_rescale_ts(pkt, inTimeBase, out.pointee.time_base)
            if pkt.pointee.dts != VFX_AV_NOPTS_VALUE {
                if pkt.pointee.dts <= lastDTS { pkt.pointee.dts = lastDTS + 1 }  // keep dts strictly rising at seams
                if pkt.pointee.pts < pkt.pointee.dts { pkt.pointee.pts = pkt.pointee.dts }
                lastDTS = pkt.pointee.dts
            }
            pkt.pointee.stream_index = out.pointee.index
            pkt.pointee.pos = -1
            pending = false
            let w = av_interleaved_write_frame(muxer, pkt)  // takes the packet's reference
            if w < 0 { throw SinkError.ffmpeg(input, "writing audio failed", w) }
        }
    }
}
