import CFFmpeg
import MediaInput
import FrameCore

/// The audio path of the encoder sink: copy packets when the container takes the
/// codec, transcode otherwise. Both follow the video's clip and loops.
protocol AudioPath: AnyObject {
    var outStream: UnsafeMutablePointer<AVStream>? { get set }
    func write(upTo time: Rational, pass: Int, passStart: Rational, into muxer: UnsafeMutablePointer<AVFormatContext>) throws(SinkError)
    func finish(at end: Rational, into muxer: UnsafeMutablePointer<AVFormatContext>) throws(SinkError)
}

extension AudioCopy: AudioPath {}

/// The input's audio as an output track: copied when the container and the common
/// players take the codec (and `copyAllowed`: a whole clip), transcoded otherwise.
/// Used by every sink that writes the input's audio (the encoder, the segment joiner).
enum AudioTrack {
    /// The path writing the track, what happens to the audio ("aac copied"), and a note
    /// for the user when it is transcoded. Nil when the input has no audio.
    /// `gain`, when given, scales the sound at each time of the output (seconds): the
    /// track is then transcoded.
    static func open(_ input: MediaInput, stop: StopSignal?, start: Rational, duration: Rational?, copyAllowed: Bool,
                     container: OutputContainer, muxer mux: UnsafeMutablePointer<AVFormatContext>, output path: String,
                     gain: (@Sendable (Double) -> Double)? = nil, speed: Rational = Rational(1), tags: [String: String] = [:])
        throws(SinkError) -> (path: any AudioPath, description: String, note: String?)? {
        guard let packets = try AudioInput.packets(of: input, stop: stop) else { return nil }
        let track = AudioCopy(input: input.location, packets: packets, start: start, duration: duration)
        let id = track.parameters.pointee.codec_id
        let name = String(cString: avcodec_get_name(id))
        // Copied when players take it (the container's list) and this FFmpeg's muxer knows
        // the codec. MPEG-TS's muxer has no codec table to ask, so its list alone decides.
        let players = container.copiedAudio.map { $0.contains(name) } ?? true
        let muxerTakes = container == .ts || avformat_query_codec(mux.pointee.oformat, id, FF_COMPLIANCE_NORMAL) == 1
        let copyable = players && muxerTakes
        if copyable && copyAllowed && gain == nil && speed == Rational(1) {
            guard let ast = avformat_new_stream(mux, nil) else { throw SinkError(path: path, reason: "out of memory") }
            avcodec_parameters_copy(ast.pointee.codecpar, track.parameters)
            ast.pointee.codecpar.pointee.codec_tag = 0  // the container picks its own tag
            ast.pointee.time_base = track.parameters.pointee.sample_rate > 0
                ? AVRational(num: 1, den: track.parameters.pointee.sample_rate) : AVRational(num: 1, den: 48000)
            track.outStream = ast
            for (key, value) in tags { av_dict_set(&ast.pointee.metadata, key, value, 0) }
            return (track, "\(name) copied", nil)
        }
        let transcode = try AudioTranscode(input: input.location, packets: packets, start: start, duration: duration,
                                           container: mux.pointee.oformat, gain: gain, speed: speed)
        guard let aenc = transcode.encoder else { return nil }
        guard let ast = avformat_new_stream(mux, nil) else { throw SinkError(path: path, reason: "out of memory") }
        avcodec_parameters_from_context(ast.pointee.codecpar, aenc)
        ast.pointee.time_base = aenc.pointee.time_base
        transcode.outStream = ast
        for (key, value) in tags { av_dict_set(&ast.pointee.metadata, key, value, 0) }
        let note = gain != nil || speed != Rational(1) ? nil : copyable
            ? "audio: \(name) transcoded to \(transcode.codecName) so that the trimmed or looped clip stays sample-accurate"
            : "audio: \(name) cannot go into \(container.displayName) as is; transcoded to \(transcode.codecName)"
        return (transcode, "\(name) transcoded to \(transcode.codecName)", note)
    }
}

/// Decodes the input's audio, resamples it and encodes it for the container (AAC for
/// MP4/MOV, Opus for WebM). Sample-accurate: the clip is cut at `start`, and each pass
/// is padded or trimmed to exactly the video's pass length, so loops never drift.
final class AudioTranscode: AudioPath {
    private let input: String
    private let packets: any AudioPackets
    private var decoder: UnsafeMutablePointer<AVCodecContext>?
    private(set) var encoder: UnsafeMutablePointer<AVCodecContext>?
    private var resampler: OpaquePointer?
    private var fifo: OpaquePointer?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var decoded: UnsafeMutablePointer<AVFrame>?
    private var chunk: UnsafeMutablePointer<AVFrame>?
    // Every stored property has a value before the first FFmpeg call, so a failing
    // init still runs deinit, which frees whatever was opened.
    private let inTimeBase: AVRational
    /// Zero of the input's timeline, in seconds (``AudioPackets/origin``).
    private let origin: Rational
    private let start: Rational
    private let end: Rational?
    private var rate: Int64 = 48000
    private var frameSize: Int32 = 1024
    var outStream: UnsafeMutablePointer<AVStream>?

    private var pass = -1
    private var exhausted = false
    private var draining = false
    private var encoded: Int64 = 0   // samples sent to the encoder
    private var scratch: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?
    private var scratchSamples: Int32 = 0

    /// The gain at each time of the output, in seconds (a fade); nil for none.
    private let gain: (@Sendable (Double) -> Double)?

    /// The sound's tempo change for `--speed` (nil at 1×): between the cut and the queue,
    /// so the queue counts output samples.
    private var tempo: AudioTempo?

    /// Name of the codec written (`aac`, `opus`).
    private(set) var codecName = ""

    /// Decodes the audio `packets` bring and opens an encoder suited to `container`.
    init(input: String, packets: any AudioPackets, start: Rational, duration: Rational?, container: UnsafePointer<AVOutputFormat>,
         gain: (@Sendable (Double) -> Double)? = nil, speed: Rational = Rational(1)) throws(SinkError) {
        self.input = input
        self.gain = gain
        self.packets = packets
        self.start = start
        self.end = duration.map { start + $0 }
        inTimeBase = packets.timeBase
        origin = packets.origin
        let par = packets.parameters
        guard let decCodec = avcodec_find_decoder(par.pointee.codec_id) else {
            throw SinkError(path: input, reason: "no decoder for its \(String(cString: avcodec_get_name(par.pointee.codec_id))) audio")
        }
        decoder = avcodec_alloc_context3(decCodec)
        avcodec_parameters_to_context(decoder, par)
        decoder!.pointee.pkt_timebase = inTimeBase
        var r = avcodec_open2(decoder, decCodec, nil)
        guard r >= 0, let dec = decoder else { throw SinkError.ffmpeg(input, "cannot open the audio decoder", r) }

        let webm = String(cString: container.pointee.name).contains("webm")
        let names = webm ? ["libopus", "opus"] : ["aac"]
        guard let encCodec = names.lazy.compactMap({ avcodec_find_encoder_by_name($0) }).first else {
            throw SinkError(path: input, reason: "no \(names[0]) encoder in this FFmpeg build")
        }
        codecName = webm ? "opus" : "aac"
        encoder = avcodec_alloc_context3(encCodec)
        guard let enc = encoder else { throw SinkError(path: input, reason: "out of memory") }
        var outRate = dec.pointee.sample_rate > 0 ? dec.pointee.sample_rate : 48000
        if webm { outRate = 48000 }  // Opus runs at 48 kHz
        enc.pointee.sample_rate = outRate
        enc.pointee.sample_fmt = encCodec.pointee.sample_fmts?.pointee ?? AV_SAMPLE_FMT_FLTP
        var layout = AVChannelLayout()
        let channels = min(Int32(dec.pointee.ch_layout.nb_channels), webm ? 2 : 8)
        av_channel_layout_default(&layout, max(1, channels))
        av_channel_layout_copy(&enc.pointee.ch_layout, &layout)
        enc.pointee.bit_rate = webm ? 96_000 : 128_000
        enc.pointee.time_base = AVRational(num: 1, den: outRate)
        if container.pointee.flags & AVFMT_GLOBALHEADER != 0 { enc.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        r = avcodec_open2(enc, encCodec, nil)
        guard r >= 0 else { throw SinkError.ffmpeg(input, "cannot open the \(codecName) encoder", r) }
        rate = Int64(outRate)
        frameSize = enc.pointee.frame_size > 0 ? enc.pointee.frame_size : 1024

        r = swr_alloc_set_opts2(&resampler, &enc.pointee.ch_layout, enc.pointee.sample_fmt, outRate,
                                &dec.pointee.ch_layout, dec.pointee.sample_fmt, dec.pointee.sample_rate, 0, nil)
        if r >= 0 { r = swr_init(resampler) }
        guard r >= 0 else { throw SinkError.ffmpeg(input, "cannot set up audio resampling", r) }
        fifo = av_audio_fifo_alloc(enc.pointee.sample_fmt, enc.pointee.ch_layout.nb_channels, frameSize * 4)
        if speed != Rational(1) {
            tempo = try AudioTempo(speed: speed, sampleRate: outRate, format: enc.pointee.sample_fmt,
                                   channels: enc.pointee.ch_layout.nb_channels, input: input)
        }
        packet = av_packet_alloc()
        decoded = av_frame_alloc()
        chunk = av_frame_alloc()
    }

    deinit {
        if let scratch { av_freep(scratch); scratch.deallocate() }
        av_frame_free(&chunk)
        av_frame_free(&decoded)
        av_packet_free(&packet)
        av_audio_fifo_free(fifo)
        swr_free(&resampler)
        avcodec_free_context(&encoder)
        avcodec_free_context(&decoder)
    }

    /// Output sample index of an output time.
    private func sample(at time: Rational) -> Int64 {
        time.floor(in: Rational(1, rate))
    }

    private var queued: Int64 { encoded + Int64(av_audio_fifo_size(fifo)) }

    func write(upTo time: Rational, pass framePass: Int, passStart: Rational, into muxer: UnsafeMutablePointer<AVFormatContext>) throws(SinkError) {
        while pass < framePass {
            if pass >= 0 {
                try fill(to: sample(at: passStart), into: muxer)
            }
            pass += 1
            try rewind()
            try resize(to: sample(at: passStart))
        }
        let target = sample(at: time)
        try feed(until: target + Int64(frameSize))
        try encode(upTo: target, into: muxer)
    }

    func finish(at end: Rational, into muxer: UnsafeMutablePointer<AVFormatContext>) throws(SinkError) {
        guard pass >= 0, let enc = encoder else { return }
        try fill(to: sample(at: end), into: muxer)
        // The last partial frame, padded with silence when the encoder needs whole frames.
        let left = av_audio_fifo_size(fifo)
        if left > 0 {
            if enc.pointee.codec.pointee.capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE == 0 {
                try appendSilence(frameSize - left)
            }
            try encodeChunk(av_audio_fifo_size(fifo), into: muxer)
        }
        avcodec_send_frame(enc, nil)
        try drain(into: muxer)
    }

    /// Brings the pass to exactly `target` samples: decode up to it, pad or trim, encode.
    private func fill(to target: Int64, into muxer: UnsafeMutablePointer<AVFormatContext>) throws(SinkError) {
        try feed(until: target)
        try resize(to: target)
        try encode(upTo: target, into: muxer)
    }

    /// Pads with silence or drops queued samples from the end so the queue ends at `target`.
    private func resize(to target: Int64) throws(SinkError) {
        let q = queued
        if q < target { try appendSilence(Int32(target - q)); return }
        guard q > target else { return }
        let keep = Int32(max(0, Int64(av_audio_fifo_size(fifo)) - (q - target)))
        let all = av_audio_fifo_size(fifo)
        try ensureScratch(all)
        scratch!.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 8) { p in
            _ = av_audio_fifo_read(fifo, p, all)
            av_audio_fifo_reset(fifo)
            _ = av_audio_fifo_write(fifo, p, keep)
        }
    }

    private func appendSilence(_ n: Int32) throws(SinkError) {
        guard n > 0, let enc = encoder else { return }
        try ensureScratch(n)
        av_samples_set_silence(scratch, 0, n, enc.pointee.ch_layout.nb_channels, enc.pointee.sample_fmt)
        scratch!.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 8) { p in _ = av_audio_fifo_write(fifo, p, n) }
    }

    private func ensureScratch(_ n: Int32) throws(SinkError) {
        guard n > scratchSamples, let enc = encoder else { return }
        if let scratch { av_freep(scratch) } else {
            scratch = .allocate(capacity: 8)
            scratch!.initialize(repeating: nil, count: 8)
        }
        let r = av_samples_alloc(scratch, nil, enc.pointee.ch_layout.nb_channels, n, enc.pointee.sample_fmt, 0)
        if r < 0 { throw SinkError.ffmpeg(input, "out of memory", r) }
        scratchSamples = n
    }

    private func rewind() throws(SinkError) {
        guard let dec = decoder else { return }
        exhausted = false
        draining = false
        packets.enter(pass: pass, start: start)
        tempo?.reset()
        if pass == 0 && start == Rational(0) { return }
        avcodec_flush_buffers(dec)
        swr_close(resampler)
        swr_init(resampler)
    }

    /// Decodes until the queue reaches `target` samples or the pass's input ends.
    private func feed(until target: Int64) throws(SinkError) {
        guard let dec = decoder, let pkt = packet, let frame = decoded else { return }
        // The pass's end: what the tempo held back is the pass's last sound.
        defer { if exhausted { try? tempo?.flush(into: fifo) } }
        while queued < target && !exhausted {
            let r = avcodec_receive_frame(dec, frame)
            if r == 0 {
                try take(frame)
                av_frame_unref(frame)
                continue
            }
            if r == VFX_AVERROR_EOF { exhausted = true; return }
            if r != VFX_AVERROR_EAGAIN && r != VFX_AVERROR_INVALIDDATA { throw SinkError.ffmpeg(input, "audio decoding failed", r) }
            if draining { exhausted = true; return }
            switch try packets.next(into: pkt) {
            case .packet:
                // The decoder starts at the same packet however the input was read (its
                // state, even its noise generator, depends on every packet it is given):
                // the first at or after the lead-in before the clip (``AudioHandoff/lead``).
                let t = pkt.pointee.pts == VFX_AV_NOPTS_VALUE ? start
                    : Rational(pkt.pointee.pts * Int64(inTimeBase.num), Int64(inTimeBase.den)) - origin
                if t >= start - AudioHandoff.lead { avcodec_send_packet(dec, pkt) }
                av_packet_unref(pkt)
            case .later:
                return  // the video reader hands it over with a later frame
            case .end, .overflowed:
                draining = true
                avcodec_send_packet(dec, nil)
            }
        }
    }

    /// Resamples a decoded frame into the queue, cut to the clip.
    private func take(_ frame: UnsafeMutablePointer<AVFrame>) throws(SinkError) {
        guard let enc = encoder else { return }
        var pts = frame.pointee.best_effort_timestamp
        if pts == VFX_AV_NOPTS_VALUE { pts = frame.pointee.pts }
        let t = pts == VFX_AV_NOPTS_VALUE ? start : Rational(pts * Int64(inTimeBase.num), Int64(inTimeBase.den)) - origin
        if let end, t >= end { exhausted = true; return }
        let capacity = swr_get_out_samples(resampler, frame.pointee.nb_samples)
        try ensureScratch(max(capacity, 1))
        let inputPlanes = withUnsafeBytes(of: frame.pointee.extended_data) { $0.load(as: UnsafeMutablePointer<UnsafePointer<UInt8>?>?.self) }
        let n = swr_convert(resampler, scratch, capacity, inputPlanes, frame.pointee.nb_samples)
        guard n > 0 else { return }
        var skip: Int32 = 0
        if t < start { skip = Int32(min(Int64(n), sample(at: start - t))) }
        var count = n - skip
        if let end {
            let allowed = sample(at: end - t) - Int64(skip)
            count = Int32(max(0, min(Int64(count), allowed)))
        }
        guard count > 0 else { return }
        let bytesPerSample = Int(av_get_bytes_per_sample(enc.pointee.sample_fmt))
        let planar = av_sample_fmt_is_planar(enc.pointee.sample_fmt) != 0
        let channels = Int(enc.pointee.ch_layout.nb_channels)
        var planes = [UnsafeMutableRawPointer?](repeating: nil, count: 8)
        for i in 0..<(planar ? channels : 1) {
            let step = planar ? bytesPerSample : bytesPerSample * channels
            planes[i] = UnsafeMutableRawPointer(scratch![i]!) + Int(skip) * step
        }
        if let tempo {
            try planes.withUnsafeMutableBufferPointer { p throws(SinkError) in try tempo.push(p.baseAddress!, count: count, into: fifo) }
        } else {
            planes.withUnsafeMutableBufferPointer { p in _ = av_audio_fifo_write(fifo, p.baseAddress, count) }
        }
    }

    /// Encodes whole frames while they end at or before `target`.
    private func encode(upTo target: Int64, into muxer: UnsafeMutablePointer<AVFormatContext>) throws(SinkError) {
        while av_audio_fifo_size(fifo) >= frameSize && encoded + Int64(frameSize) <= target {
            try encodeChunk(frameSize, into: muxer)
        }
    }

    private func encodeChunk(_ n: Int32, into muxer: UnsafeMutablePointer<AVFormatContext>) throws(SinkError) {
        guard let enc = encoder, let c = chunk else { return }
        av_frame_unref(c)
        c.pointee.nb_samples = n
        c.pointee.format = enc.pointee.sample_fmt.rawValue
        c.pointee.sample_rate = enc.pointee.sample_rate
        av_channel_layout_copy(&c.pointee.ch_layout, &enc.pointee.ch_layout)
        var r = av_frame_get_buffer(c, 0)
        if r < 0 { throw SinkError.ffmpeg(input, "out of memory", r) }
        let planes = withUnsafeBytes(of: c.pointee.extended_data) { $0.load(as: UnsafeMutablePointer<UnsafeMutableRawPointer?>?.self) }
        _ = av_audio_fifo_read(fifo, planes, n)
        if let gain { scale(c, by: gain) }
        c.pointee.pts = encoded
        encoded += Int64(n)
        r = avcodec_send_frame(enc, c)
        if r < 0 { throw SinkError.ffmpeg(input, "audio encoding failed", r) }
        try drain(into: muxer)
    }

    /// Scales the chunk's samples, which begin at output sample `encoded`, by `gain` at
    /// each sample's time: to the sample, in whatever format the encoder takes.
    private func scale(_ c: UnsafeMutablePointer<AVFrame>, by gain: (Double) -> Double) {
        let n = Int(c.pointee.nb_samples), channels = Int(c.pointee.ch_layout.nb_channels)
        let format = AVSampleFormat(rawValue: c.pointee.format)
        let planar = av_sample_fmt_is_planar(format) != 0
        let planes = planar ? channels : 1, perPlane = planar ? 1 : channels
        let gains = (0..<n).map { gain(Double(encoded + Int64($0)) / Double(rate)) }
        if gains.allSatisfy({ $0 == 1 }) { return }
        let data = withUnsafeBytes(of: c.pointee.extended_data) { $0.load(as: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?.self) }
        for plane in 0..<planes {
            guard let base = data?[plane] else { continue }
            func each<T>(_ type: T.Type, _ body: (UnsafeMutablePointer<T>, Double) -> Void) {
                let samples = UnsafeMutableRawPointer(base).assumingMemoryBound(to: T.self)
                for i in 0..<n { for k in 0..<perPlane { body(samples + i * perPlane + k, gains[i]) } }
            }
            switch av_get_packed_sample_fmt(format) {
            case AV_SAMPLE_FMT_FLT: each(Float.self) { $0.pointee = Float(Double($0.pointee) * $1) }
            case AV_SAMPLE_FMT_DBL: each(Double.self) { $0.pointee *= $1 }
            case AV_SAMPLE_FMT_S16: each(Int16.self) { $0.pointee = Int16((Double($0.pointee) * $1).rounded()) }
            case AV_SAMPLE_FMT_S32: each(Int32.self) { $0.pointee = Int32((Double($0.pointee) * $1).rounded()) }
            default: break
            }
        }
    }

    private func drain(into muxer: UnsafeMutablePointer<AVFormatContext>) throws(SinkError) {
        guard let enc = encoder, let pkt = packet, let out = outStream else { return }
        while true {
            let r = avcodec_receive_packet(enc, pkt)
            if r == VFX_AVERROR_EAGAIN || r == VFX_AVERROR_EOF { return }
            if r < 0 { throw SinkError.ffmpeg(input, "audio encoding failed", r) }
            av_packet_rescale_ts(pkt, enc.pointee.time_base, out.pointee.time_base)
            pkt.pointee.stream_index = out.pointee.index
            let w = av_interleaved_write_frame(muxer, pkt)
            if w < 0 { throw SinkError.ffmpeg(input, "writing audio failed", w) }
        }
    }
}
