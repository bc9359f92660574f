import CFFmpeg
import CFFmpegShim
import Foundation
import FrameCore
import MediaInput
import Synchronization

/// Demuxes and decodes the best video stream of one input (libavformat +
/// libavcodec). Owned by one thread at a time; every FFmpeg object it creates is
/// freed in `deinit`.
final class VideoDecoder {
    /// libavdevice's formats, registered once, when the first device is opened.
    private static let devicesRegistered: Bool = { avdevice_register_all(); return true }()

    /// Number of decoders alive in the process (tests check that it returns to zero).
    static let liveCount = Atomic<Int>(0)

    /// The input as given, for messages.
    let input: String
    /// The input this decoder reads (shared with other readers of it).
    let media: MediaInput
    let info: MediaInfo
    /// Stream time base in seconds per unit.
    let timeBase: Rational
    /// Stream start time in time-base units (0 when unknown).
    let startPts: Int64
    /// Nominal frame duration in time-base units, when the stream has a frame rate.
    let nominalFrameDuration: Int64?
    /// The stream's frame rate as it says it (the average, else the timestamp grid's),
    /// and the grid's when the two differ (a variable-rate stream); nil for none.
    let streamRate: (average: Rational, grid: Rational?)?
    /// Display transform read from the container.
    let orientation: Orientation
    /// The stream's colour tags, for pictures that carry none.
    let color: StreamColor
    /// Deinterlaces pictures as configured; nil for stills and `--deinterlace off`.
    private let deinterlacer: Deinterlacer?
    /// Whether pictures may be deinterlaced (decided, or not decided yet).
    var deinterlacing: Bool { deinterlacer.map { $0.decision != "" } ?? false }

    /// The FFmpeg objects. Held in their own owner, created first, so that they are
    /// freed even when `init` throws halfway (a throwing init never runs `deinit`).
    private let handles = Handles()
    private var format: UnsafeMutablePointer<AVFormatContext>? { handles.format }
    private var codec: UnsafeMutablePointer<AVCodecContext>? { handles.codec }
    private var packet: UnsafeMutablePointer<AVPacket>? { handles.packet }
    private let streamIndex: Int32
    private let interrupt: InterruptFlag
    private var draining = false
    /// Set by a seek: video packets are skipped up to the next key frame.
    private var awaitingKeyframe = false
    /// Set when a seek from the start found no key frame: later seeks refuse at once.
    private var keyFramesMissing = false
    /// Set by a seek that read its key frame's packet (in `packet`) to check where it is.
    private var packetReady = false
    /// Set by a seek: the target, in stream units, and the two latest packet times at or
    /// before it seen since. A picture no other picture refers to, with a later one at or
    /// before the target, is not the picture shown at the target: the decoder may skip it
    /// (`AVDISCARD_NONREF`). When deinterlacing, or not yet decided, it takes two later ones,
    /// so that the neighbour the deinterlacer makes the target with is decoded too.
    private var seekTarget: Int64?
    private var latestBeforeTarget: (Int64, Int64) = (Int64.min, Int64.min)
    /// Packets the decoder was allowed to skip that way (it skips those no picture refers to).
    private(set) var discardablePackets = 0
    private(set) var skippedDamage = 0
    /// Set when the container's index points past the end of the file.
    let truncation: String?
    /// Set when the demuxer stopped on an error rather than at a clean end.
    private(set) var readError: String?
    /// A network input the server will not let the demuxer seek in (no Range support).
    var cannotSeekBack: Bool {
        guard media.isRemote, let pb = format?.pointee.pb else { return false }
        return pb.pointee.seekable & AVIO_SEEKABLE_NORMAL == 0
    }
    private let warn: @Sendable (String) -> Void
    /// Where the audio packets read go (one demuxer for video and audio), with the
    /// audio stream's index; nil when no one takes the audio.
    private let audio: (handoff: AudioHandoff, stream: Int32)?
    /// The handoff this decoder feeds, for a decoder reopened in its place.
    var audioHandoff: AudioHandoff? { audio?.handoff }
    /// What reading drops (segments, damaged packets), gathered from FFmpeg's log lines.
    let damage: DamageCollector

    /// `damage` carries on what an earlier decoder of the same input gathered (reopened to loop).
    /// With `audio` (claimed by this decoder's source), the audio stream is kept and its
    /// packets handed over as they are read.
    init(input media: MediaInput, configuration: FrameSource.Configuration, interrupt: InterruptFlag,
         damage: DamageCollector? = nil, audio handoff: AudioHandoff? = nil) throws(FrameSourceError) {
        _ = FFmpegLog.installed
        let input = media.location
        let warn = configuration.warningHandler ?? { _ in }
        let damage = damage ?? DamageCollector(input: input, warn: warn)
        self.damage = damage
        // Opening reads the first segment of a playlist: its losses count too.
        let previous = FFmpegLog.collector
        FFmpegLog.collect(into: damage)
        defer { FFmpegLog.collect(into: previous) }
        if media.isStandardInput && isatty(STDIN_FILENO) != 0 {
            // Reading would wait for keystrokes; nobody types a video.
            throw FrameSourceError(input: input, kind: .invalidConfiguration,
                                   reason: "standard input is a terminal, not a video (pipe one in: cat clip.mp4 | vidfx …)")
        }
        self.input = input
        self.media = media
        self.interrupt = interrupt
        self.warn = warn
        // Allocate the context ourselves so the interrupt callback covers the open too.
        handles.interrupt = interrupt
        handles.format = avformat_alloc_context()
        guard let ctx = handles.format else {
            throw FrameSourceError(input: input, kind: .invalidData, reason: "out of memory")
        }
        let opaque = Unmanaged.passUnretained(interrupt).toOpaque()
        ctx.pointee.interrupt_callback = AVIOInterruptCB(callback: VideoDecoder.pollInterrupt, opaque: opaque)
        interrupt.touch()
        interrupt.watch(ctx)
        FFmpegLog.clear()
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        for (key, value) in media.protocolOptions {
            av_dict_set(&options, key, value, 0)
            // On the context itself too: a custom reader has no whitelist of its own to pass on.
            if key == "protocol_whitelist" { ctx.pointee.protocol_whitelist = av_strdup(value) }
        }
        var url = media.ffmpegURL
        if media.isRemote { interrupt.armFailFast() }
        do {
            // Standard input's spool waits without a timeout: a pipe may pause as long as it
            // likes. stop() and the byte limit while opening still end a read.
            if let io = try media.makeReader(interrupt: VideoDecoder.pollInterruptUntimed, opaque: opaque) {
                handles.customIO = io
                ctx.pointee.pb = io.assumingMemoryBound(to: AVIOContext.self)
                ctx.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
                // A URL stays the format's name (relative references resolve against it).
                if media.isStandardInput { url = "" }
            }
        } catch {
            interrupt.disarmFailFast()
            interrupt.watch(nil)
            switch error {
            case .spool(let code):
                throw FrameSourceError(input: input, kind: .invalidData, reason: "cannot spool standard input (\(String(cString: strerror(code))))")
            }
        }
        interrupt.limitBytes(FrameSource.openingByteLimit)
        var deviceFormat: UnsafePointer<AVInputFormat>?
        if let device = media.device {
            if let failure = OnDemandLibrary.devices.load() {
                throw FrameSourceError(input: input, kind: .unsupportedCodec, reason: "no '\(device.format)' capture: \(failure)")
            }
            _ = VideoDecoder.devicesRegistered
            guard let f = av_find_input_format(device.format) else {
                throw FrameSourceError(input: input, kind: .unsupportedCodec, reason: "no '\(device.format)' capture in this FFmpeg build (libavdevice)")
            }
            deviceFormat = f
            for (key, value) in device.options { av_dict_set(&options, key, value, 0) }
        }
        var r = avformat_open_input(&handles.format, url, deviceFormat, &options)
        interrupt.disarmFailFast()
        if r < 0 {
            interrupt.watch(nil)
            handles.format = nil  // FFmpeg freed it
            if media.standardInputStarts(with: "#EXTM3U") {
                throw FrameSourceError(input: input, kind: .invalidData,
                                       reason: "cannot open: a playlist (HLS) cannot be read from standard input, since its segments are named relative to where it lives; give its URL or path")
            }
            if r == VFX_AVERROR_EIO && media.isRemote && VideoDecoder.redirectsAtOnce(media, interrupt) {
                throw FrameSourceError(input: input, kind: .network,
                                       reason: "cannot open: the server redirects more than 8 times (a redirect loop?)")
            }
            throw VideoDecoder.error(input, r, context: "cannot open", interrupt: interrupt)
        }
        // Probing may decode a picture: FFmpeg's max_pixels stops an absurd one (a 750 KB
        // PNG of 16000x16000 costs 1 GB a copy) before its buffers are allocated.
        let streams = Int(ctx.pointee.nb_streams)
        var probeOptions = [OpaquePointer?](repeating: nil, count: max(streams, 1))
        for i in 0..<streams { av_dict_set(&probeOptions[i], "max_pixels", String(FrameSource.largestPicture), 0) }
        r = probeOptions.withUnsafeMutableBufferPointer { avformat_find_stream_info(ctx, streams > 0 ? $0.baseAddress : nil) }
        for i in 0..<streams { av_dict_free(&probeOptions[i]) }
        interrupt.limitBytes(nil)
        if r < 0 { throw VideoDecoder.error(input, r, context: "cannot read stream information", interrupt: interrupt) }

        // Best video stream; cover art (attached pictures) only if nothing else.
        let best = vfx_best_video_stream(ctx)
        guard best >= 0 else {
            throw FrameSourceError(input: input, kind: .noVideoStream, reason: "no video stream (\(VideoDecoder.streamSummary(ctx)))")
        }
        streamIndex = best
        let stream = ctx.pointee.streams[Int(best)]!
        // Only the chosen stream's packets are needed; where timestamps may jump (MPEG-TS,
        // HLS), the audio's too, so that the jumps are mended for the whole program, as
        // an audio demuxer of its own mends them (vfx_mender).
        var video: Int32 = -1, audioStream: Int32 = -1
        handles.mender = vfx_mender_for(ctx, &video, &audioStream)
        var kept: Set<Int32> = [best]
        if handles.mender != nil && audioStream >= 0 { kept.insert(audioStream) }
        // The audio taken is the best audio stream (the mender's choice too), its times
        // measured from where the video starts, as the pictures' are.
        if let handoff {
            let tb = stream.pointee.time_base
            let origin = stream.pointee.start_time == VFX_AV_NOPTS_VALUE || tb.den == 0 ? Rational(0)
                : Rational(stream.pointee.start_time * Int64(tb.num), Int64(tb.den))
            if audioStream >= 0, let a = ctx.pointee.streams[Int(audioStream)] {
                handoff.describe(a.pointee.codecpar, timeBase: a.pointee.time_base, origin: origin)
                kept.insert(audioStream)
                audio = (handoff, audioStream)
            } else {
                handoff.describe(nil, timeBase: AVRational(num: 1, den: 1), origin: origin)
                audio = nil
            }
        } else {
            audio = nil
        }
        for i in 0..<Int(ctx.pointee.nb_streams) where !kept.contains(Int32(i)) {
            ctx.pointee.streams[i]!.pointee.discard = AVDISCARD_ALL
        }
        let par = stream.pointee.codecpar!
        let (w, h) = (Int(par.pointee.width), Int(par.pointee.height))
        if w * h > FrameSource.largestPicture || (w == 0 && h == 0 && VideoDecoder.refusedSize() != nil) {
            let size = w > 0 ? "\(w)x\(h)" : VideoDecoder.refusedSize() ?? "too large"
            throw FrameSourceError(input: input, kind: .invalidData,
                                   reason: "picture is \(size); vidfx takes at most \(FrameSource.largestPictureDescription)")
        }
        // VP9 keeps alpha in a side stream (WebM's alpha_mode) that only libvpx decodes;
        // FFmpeg's own decoder drops it.
        let alphaTag = av_dict_get(stream.pointee.metadata, "alpha_mode", nil, 0).map { String(cString: $0.pointee.value) }
        let wantsLibvpx = par.pointee.codec_id == AV_CODEC_ID_VP9 && alphaTag == "1"
        guard let decoderCodec = (wantsLibvpx ? avcodec_find_decoder_by_name("libvpx-vp9") : nil) ?? avcodec_find_decoder(par.pointee.codec_id) else {
            let name = String(cString: avcodec_get_name(par.pointee.codec_id))
            throw FrameSourceError(input: input, kind: .unsupportedCodec, reason: "no decoder for video codec '\(name)' in this FFmpeg build")
        }
        handles.codec = avcodec_alloc_context3(decoderCodec)
        guard let cc = handles.codec else { throw FrameSourceError(input: input, kind: .decodeFailed, reason: "out of memory") }
        r = avcodec_parameters_to_context(cc, par)
        if r < 0 { throw VideoDecoder.error(input, r, context: "cannot set up the video decoder", interrupt: interrupt) }
        cc.pointee.pkt_timebase = stream.pointee.time_base
        cc.pointee.max_pixels = Int64(FrameSource.largestPicture)
        cc.pointee.thread_count = Int32(max(0, configuration.decoderThreads ?? 0))  // 0: FFmpeg's choice
        cc.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
        r = avcodec_open2(cc, decoderCodec, nil)
        if r < 0 { throw VideoDecoder.error(input, r, context: "cannot open the \(String(cString: decoderCodec.pointee.name)) decoder", interrupt: interrupt) }
        handles.packet = av_packet_alloc()

        let tb = stream.pointee.time_base
        timeBase = Rational(Int64(tb.num), Int64(max(tb.den, 1)))
        startPts = stream.pointee.start_time == VFX_AV_NOPTS_VALUE ? 0 : stream.pointee.start_time
        let rate = stream.pointee.avg_frame_rate.num > 0 ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
        let grid = stream.pointee.r_frame_rate
        if rate.num > 0, rate.den > 0 {
            let average = Rational(Int64(rate.num), Int64(rate.den))
            let gridRate = grid.num > 0 && grid.den > 0 ? Rational(Int64(grid.num), Int64(grid.den)) : nil
            streamRate = (average, gridRate == average ? nil : gridRate)
        } else {
            streamRate = nil
        }
        if rate.num > 0, rate.den > 0, tb.num > 0 {
            // one frame = (rate.den / rate.num) s = that / tb units
            let d = av_rescale_q(1, AVRational(num: rate.den, den: rate.num), tb)
            nominalFrameDuration = d > 0 ? d : nil
        } else {
            nominalFrameDuration = nil
        }
        orientation = Orientation(displayMatrix: vfx_stream_display_matrix(stream))
        color = StreamColor(transfer: par.pointee.color_trc, primaries: par.pointee.color_primaries, matrix: par.pointee.color_space,
                            range: par.pointee.color_range, contentPeakNits: vfx_stream_peak_nits(stream) > 0 ? vfx_stream_peak_nits(stream) : nil)
        truncation = VideoDecoder.findTruncation(ctx)
        var described = VideoDecoder.describe(input: input, format: ctx, stream: stream, codec: cc,
                                              orientation: orientation, configuration: configuration)
        described.problem = truncation
        info = described
        deinterlacer = configuration.deinterlace == .off || described.isStillImage ? nil
            : Deinterlacer(mode: configuration.deinterlace, codec: par.pointee.codec_id, timeBase: stream.pointee.time_base,
                           frameDuration: nominalFrameDuration, input: input, warn: configuration.warningHandler ?? { _ in },
                           found: configuration.scanHandler)
        if let truncation { warn("\(input): \(truncation); frames past that point are missing") }
    }

    private final class Handles {
        var format: UnsafeMutablePointer<AVFormatContext>?
        var codec: UnsafeMutablePointer<AVCodecContext>?
        var packet: UnsafeMutablePointer<AVPacket>?
        /// FFmpeg's interrupt callback points at this; it must outlive `format`.
        var interrupt: InterruptFlag?
        /// Our own reader (standard input's spool), when `format` reads through it.
        var customIO: UnsafeMutableRawPointer?
        /// Mends timestamp jumps, for containers that have them (vfx_mender).
        var mender: OpaquePointer?

        init() { VideoDecoder.liveCount.add(1, ordering: .relaxed) }

        deinit {
            av_packet_free(&packet)
            avcodec_free_context(&codec)
            interrupt?.unwatch(format)
            avformat_close_input(&format)
            vfx_stdin_reader_free(customIO)  // FFmpeg leaves custom I/O to its owner
            vfx_mender_free(mender)
            VideoDecoder.liveCount.subtract(1, ordering: .relaxed)
        }
    }

    /// Decodes the next picture into `frame` (which is unreferenced first), deinterlaced
    /// as configured. Returns false at the end of the stream. Damaged packets are
    /// skipped and counted.
    func decode(into frame: UnsafeMutablePointer<AVFrame>) throws(FrameSourceError) -> Bool {
        guard let deinterlacer else { return try decodePicture(into: frame) }
        return try deinterlacer.next(into: frame) { (f) throws(FrameSourceError) -> Bool in try self.decodePicture(into: f) }
    }

    /// The decoder's next picture, as decoded.
    private func decodePicture(into frame: UnsafeMutablePointer<AVFrame>) throws(FrameSourceError) -> Bool {
        guard let cc = codec, let fmt = format, let pkt = packet else { return false }
        while true {
            let r = avcodec_receive_frame(cc, frame)
            if r == 0 { return true }
            if r == VFX_AVERROR_EOF { return false }
            if r == VFX_AVERROR_INVALIDDATA {
                // Frame threading reports a bad earlier packet here; skip it as ffmpeg does.
                noteDamage(r)
                continue
            }
            if r != VFX_AVERROR_EAGAIN {
                throw VideoDecoder.error(input, r, context: "video decoding failed", interrupt: interrupt)
            }
            if draining { return false }
            // The key frame a seek found is already read and mended.
            let ready = packetReady
            packetReady = false
            let rd = ready ? 0 : av_read_frame(fmt, pkt)
            if rd < 0 {
                if interrupt.stopRequested { return false }
                if rd != VFX_AVERROR_EOF {
                    if interrupt.timedOut {
                        throw FrameSourceError(input: input, kind: .network,
                                               reason: "no data for \(interrupt.timeoutDescription); giving up\(VideoDecoder.networkCause)")
                    }
                    readError = FFmpegLog.message(rd)
                }
                draining = true
                avcodec_send_packet(cc, nil)
                continue
            }
            interrupt.touch()
            defer { av_packet_unref(pkt) }
            if pkt.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 && pkt.pointee.stream_index == streamIndex { damage.damagedPacket() }
            if !ready, let mender = handles.mender {
                let tb = fmt.pointee.streams[Int(pkt.pointee.stream_index)]!.pointee.time_base
                if vfx_mender_mend(mender, pkt, tb.num, tb.den) == 1 && vfx_mender_jumps(mender) == 1 {
                    let at = seconds(max(pkt.pointee.pts, pkt.pointee.dts) - startPts).seconds
                    warn("\(input): timestamps jump near \(String(format: "%.3f", at)) s (a discontinuity); the timeline continues across it")
                }
            }
            if !ready, let audio, pkt.pointee.stream_index == audio.stream { audio.handoff.offer(pkt); continue }
            guard pkt.pointee.stream_index == streamIndex else { continue }
            if awaitingKeyframe {
                // After a seek, packets before the first key frame only decode to damaged
                // pictures that are thrown away: skip them unread by the decoder.
                guard pkt.pointee.flags & AV_PKT_FLAG_KEY != 0 else { continue }
                awaitingKeyframe = false
            }
            if keyFramesOnly && pkt.pointee.flags & AV_PKT_FLAG_KEY == 0 { continue }
            cc.pointee.skip_frame = skippable(pkt.pointee.pts) ? AVDISCARD_NONREF : AVDISCARD_DEFAULT
            let s = avcodec_send_packet(cc, pkt)
            if s < 0, s != VFX_AVERROR_EAGAIN {
                if s == VFX_AVERROR_INVALIDDATA { noteDamage(s); continue }
                throw VideoDecoder.error(input, s, context: "video decoding failed", interrupt: interrupt)
            }
        }
    }

    /// Whether a packet at `pts` may skip decoding if no picture refers to it: later
    /// packets at or before the seek target have been read (see `seekTarget`).
    /// The decoder still decodes reference pictures; only the rest are dropped.
    private func skippable(_ pts: Int64) -> Bool {
        // Past the target every picture is wanted (B-pictures before it may still follow).
        guard let target = seekTarget, pts != VFX_AV_NOPTS_VALUE, pts <= target else { return false }
        let skip = pts < (deinterlacing ? latestBeforeTarget.1 : latestBeforeTarget.0)
        if pts > latestBeforeTarget.0 { latestBeforeTarget = (pts, latestBeforeTarget.0) }
        else if pts < latestBeforeTarget.0, pts > latestBeforeTarget.1 { latestBeforeTarget.1 = pts }
        if skip { discardablePackets += 1 }
        return skip
    }

    /// The presentation time of the key frame the last seek landed on, when its packet said.
    private(set) var landedAt: Rational?

    /// Seeks so that the next decoded picture is the last key frame at or before
    /// `seconds` (source timeline). Returns false when the input cannot seek.
    /// With `fromKeyFrame`, the key frame it lands on is the target instead: every
    /// picture from it on is decoded.
    func seek(toSeconds seconds: Rational, fromKeyFrame: Bool = false) -> Bool {
        landedAt = nil
        guard let fmt = format, let cc = codec, let pkt = packet, !keyFramesMissing else { return false }
        // Rounded down, so that we land at or before the target. When deinterlacing,
        // a frame earlier still: bwdif makes a picture from its neighbours too, and the
        // target must have the one before it, as it has when decoded from the top.
        var target = startPts + seconds.floor(in: timeBase)
        // Only once decided: before the first picture the decision is unknown, and
        // guessing "yes" cost a progressive seek onto a key frame a whole GOP more; the
        // decode loop backs off when the first picture comes too late.
        if deinterlacer?.decision.map({ !$0.isEmpty }) == true { target -= nominalFrameDuration ?? 1 }
        seekTarget = target
        latestBeforeTarget = (Int64.min, Int64.min)
        avcodec_flush_buffers(cc)
        deinterlacer?.reset()
        // What the audio read since the pass began is read again from where this lands.
        audio?.handoff.restartPass()
        draining = false
        readError = nil
        if packetReady { av_packet_unref(pkt); packetReady = false }
        // Where a seek is a search by timestamp (MPEG-TS), it lands near the target, and
        // the next key frame can be after it. Its packet says so before anything is
        // decoded: seek 1, 2, 4… s earlier until the key frame is at or before the target.
        let second = max(1, Rational(1).floor(in: timeBase))
        // With the audio handed over, from a little earlier: its sound may be stored after
        // the picture (``AudioHandoff/lead``).
        var back: Int64 = audio == nil ? 0 : AudioHandoff.lead.floor(in: timeBase)
        while true {
            let from = max(startPts, target - back)
            let r = av_seek_frame(fmt, streamIndex, from, AVSEEK_FLAG_BACKWARD)
            if let mender = handles.mender { vfx_mender_reset(mender) }
            guard r >= 0 else {
                awaitingKeyframe = false
                return false
            }
            if readKeyPacket(fmt, pkt) {
                let pts = pkt.pointee.pts
                if pts == VFX_AV_NOPTS_VALUE || pts <= target || from == startPts {
                    packetReady = true  // decoded first, unread again
                    awaitingKeyframe = false
                    landedAt = pts == VFX_AV_NOPTS_VALUE ? nil : self.seconds(pts - startPts)
                    // Every picture from the key frame on is wanted: none is skipped as lead-in.
                    if fromKeyFrame, pts != VFX_AV_NOPTS_VALUE { seekTarget = pts }
                    return true
                }
                av_packet_unref(pkt)
            } else if interrupt.stopRequested || interrupt.timedOut {
                // Stopped, or the network gave up: looking earlier would only wait again.
                awaitingKeyframe = true
                return true
            } else if from == startPts {
                // No key frame from the start to the end: seeking cannot help; the decode
                // loop reads the input from its first byte instead.
                keyFramesMissing = true
                return false
            }
            // The key frame is after the target, or none is left before the end (a target
            // in the last GOP): look earlier.
            back = back == 0 ? second : max(second, back * 2)
        }
    }

    /// Reads on, handing the audio over and dropping the video, until the audio has passed
    /// `end` (source time) or the input ends: a clip's pictures end before its sound is
    /// all read, when the container stores the audio a little behind the video.
    func readAudio(through end: Rational) {
        guard let audio, let fmt = format, let pkt = packet, !draining, !interrupt.stopRequested else { return }
        if packetReady { av_packet_unref(pkt); packetReady = false }
        let a = fmt.pointee.streams[Int(audio.stream)]!.pointee.time_base
        let origin = seconds(startPts)
        while !interrupt.stopRequested, av_read_frame(fmt, pkt) >= 0 {
            interrupt.touch()
            defer { av_packet_unref(pkt) }
            if let mender = handles.mender {
                let tb = fmt.pointee.streams[Int(pkt.pointee.stream_index)]!.pointee.time_base
                _ = vfx_mender_mend(mender, pkt, tb.num, tb.den)
            }
            guard pkt.pointee.stream_index == audio.stream else { continue }
            audio.handoff.offer(pkt)
            if pkt.pointee.pts != VFX_AV_NOPTS_VALUE, Rational(pkt.pointee.pts * Int64(a.num), Int64(a.den)) - origin >= end { return }
        }
    }

    /// Reads up to this stream's next key frame packet, mended, into `pkt`; false at the end.
    private func readKeyPacket(_ fmt: UnsafeMutablePointer<AVFormatContext>, _ pkt: UnsafeMutablePointer<AVPacket>) -> Bool {
        while av_read_frame(fmt, pkt) >= 0 {
            if let mender = handles.mender {
                let tb = fmt.pointee.streams[Int(pkt.pointee.stream_index)]!.pointee.time_base
                _ = vfx_mender_mend(mender, pkt, tb.num, tb.den)
            }
            if pkt.pointee.stream_index == streamIndex, pkt.pointee.flags & AV_PKT_FLAG_KEY != 0 { return true }
            if let audio, pkt.pointee.stream_index == audio.stream { audio.handoff.offer(pkt) }
            av_packet_unref(pkt)
        }
        return false
    }

    /// Only key frames are sent to the decoder (the rest of the packets are read and
    /// dropped): a key-frame scan decodes one picture a GOP.
    var keyFramesOnly = false

    /// Whether the in-loop deblocking filter runs (H.264, HEVC…). Off, pictures come out a
    /// little blockier and about a quarter faster: for analysis at a small size, where the
    /// difference is below a code value, never for pictures anyone sees.
    var loopFilter = true {
        didSet { codec?.pointee.skip_loop_filter = loopFilter ? AVDISCARD_DEFAULT : AVDISCARD_ALL }
    }

    /// Presentation time of a decoded picture in seconds on the source timeline.
    func time(of frame: UnsafePointer<AVFrame>) -> Rational {
        var pts = frame.pointee.best_effort_timestamp
        if pts == VFX_AV_NOPTS_VALUE { pts = frame.pointee.pts }
        if pts == VFX_AV_NOPTS_VALUE { pts = startPts }
        return seconds(pts - startPts)
    }

    /// How long a decoded picture stays on screen, in seconds, when the stream says.
    func duration(of frame: UnsafePointer<AVFrame>) -> Rational? {
        let d = vfx_frame_duration(frame)
        return d > 0 ? seconds(d) : nil
    }

    /// Nominal frame duration in seconds, when the stream has a frame rate.
    var nominalDuration: Rational? { nominalFrameDuration.map(seconds) }

    private func seconds(_ units: Int64) -> Rational {
        Rational(units * timeBase.numerator, timeBase.denominator)
    }

    private func noteDamage(_ code: Int32) {
        skippedDamage += 1
        damage.undecodablePacket()
        if skippedDamage == 1 { warn("\(input): skipping damaged video data (\(FFmpegLog.message(code)))") }
    }

    /// FFmpeg's interrupt callback over an ``InterruptFlag`` (passed unretained as `opaque`).
    static let pollInterrupt: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { opaque in
        guard let opaque else { return 0 }
        return Unmanaged<InterruptFlag>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt ? 1 : 0
    }

    /// The same, without the network timeout (standard input may pause as long as it likes).
    static let pollInterruptUntimed: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { opaque in
        guard let opaque else { return 0 }
        return Unmanaged<InterruptFlag>.fromOpaque(opaque).takeUnretainedValue().shouldInterruptUntimed ? 1 : 0
    }

    /// The size ("16000x16000") in FFmpeg's last error on this thread when that error
    /// was max_pixels refusing a picture ("Picture size 16000x16000 is invalid").
    private static func refusedSize() -> String? {
        guard let line = FFmpegLog.lastError(), let match = line.firstMatch(of: /Picture size (\d+x\d+)/) else { return nil }
        return String(match.1)
    }

    /// After an open failed with FFmpeg's bare EIO, which is also what its HTTP client
    /// says after its 8th redirect: whether the server's first answer is a redirect (with
    /// no redirect allowed, FFmpeg then fails at once with EIO; a plain answer opens).
    private static func redirectsAtOnce(_ media: MediaInput, _ interrupt: InterruptFlag) -> Bool {
        let url = media.ffmpegURL
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        for (key, value) in media.protocolOptions where key != "reconnect" { av_dict_set(&options, key, value, 0) }
        av_dict_set(&options, "max_redirects", "0", 0)
        interrupt.touch()  // a fresh timeout for this one request
        var io: UnsafeMutablePointer<AVIOContext>?
        var callback = AVIOInterruptCB(callback: pollInterrupt, opaque: Unmanaged.passUnretained(interrupt).toOpaque())
        let r = avio_open2(&io, url, AVIO_FLAG_READ, &callback, &options)
        avio_closep(&io)
        return r == VFX_AVERROR_EIO
    }

    /// What the network last said on this thread, as a suffix for a timeout's message
    /// ("Connection refused" while retrying), or "".
    static var networkCause: String { FFmpegLog.lastNetworkError().map { " (\($0))" } ?? "" }

    /// Turns an FFmpeg error code into a FrameSourceError that says what happened.
    static func error(_ input: String, _ code: Int32, context: String, interrupt: InterruptFlag) -> FrameSourceError {
        if interrupt.exceededByteLimit {
            return FrameSourceError(input: input, kind: .invalidData,
                                    reason: "\(context): no playable stream in its first \(FrameSource.openingByteLimit >> 20) MB")
        }
        if interrupt.failedBeforeData {
            return FrameSourceError(input: input, kind: .network, reason: "\(context): \(FFmpegLog.lastNetworkError() ?? "network error")")
        }
        if interrupt.timedOut {
            return FrameSourceError(input: input, kind: .network, reason: "\(context): no data for \(interrupt.timeoutDescription)\(networkCause)")
        }
        let kind: FrameSourceError.Kind
        var message = FFmpegLog.message(code)
        switch code {
        case VFX_AVERROR_ENOENT, VFX_AVERROR_HTTP_NOT_FOUND:
            kind = .notFound
            if code == VFX_AVERROR_ENOENT { message = "no such file" }
        case VFX_AVERROR_EACCES, VFX_AVERROR_HTTP_FORBIDDEN, VFX_AVERROR_HTTP_UNAUTHORIZED:
            kind = .permissionDenied
        case VFX_AVERROR_INVALIDDATA:
            kind = .invalidData
            message = "not a readable media file (\(message.lowercased()))"
            if let detail = FFmpegLog.lastError(), !detail.isEmpty { message = "\(detail): not a readable media file" }
        case VFX_AVERROR_HTTP_BAD_REQUEST, VFX_AVERROR_HTTP_OTHER_4XX, VFX_AVERROR_HTTP_SERVER_ERROR, VFX_AVERROR_ETIMEDOUT:
            kind = .network
        default:
            kind = input.contains("://") ? .network : .invalidData
        }
        if let detail = FFmpegLog.lastError(), !detail.isEmpty, !message.localizedCaseInsensitiveContains(detail) {
            message = "\(detail) (\(message))"
        }
        return FrameSourceError(input: input, kind: kind, reason: "\(context): \(message)")
    }

    /// Compares the container index (mp4/mov have one up front) with the file size:
    /// media data that should exist past the end means the file was cut short.
    private static func findTruncation(_ ctx: UnsafeMutablePointer<AVFormatContext>) -> String? {
        guard let pb = ctx.pointee.pb else { return nil }
        let size = avio_size(pb)
        guard size > 0 else { return nil }
        var expected: Int64 = 0
        for i in 0..<Int(ctx.pointee.nb_streams) {
            let st = ctx.pointee.streams[i]!
            let n = avformat_index_get_entries_count(st)
            guard n > 0, let last = avformat_index_get_entry(st, n - 1) else { continue }
            expected = max(expected, last.pointee.pos + Int64(last.pointee.size))
        }
        guard expected > size else { return nil }
        return "file is truncated: it has \(size) bytes but its index needs \(expected)"
    }

    private static func streamSummary(_ ctx: UnsafeMutablePointer<AVFormatContext>) -> String {
        var kinds: [String] = []
        for i in 0..<Int(ctx.pointee.nb_streams) {
            let par = ctx.pointee.streams[i]!.pointee.codecpar.pointee
            let type = av_get_media_type_string(par.codec_type).map { String(cString: $0) } ?? "unknown"
            kinds.append("\(type) \(String(cString: avcodec_get_name(par.codec_id)))")
        }
        return kinds.isEmpty ? "the file has no streams" : "streams: " + kinds.joined(separator: ", ")
    }
}
