import CFFmpeg
import Foundation
public import FrameCore
public import MediaInput

#if canImport(Glibc)
import Glibc
#endif

/// Encodes frames into a video file (libavcodec + libavformat), keeping the input's
/// audio (copied or transcoded). Each frame is converted to the encoder's format on the
/// caller's thread and compressed on the sink's own encode thread, one picture behind. Writes to a temporary file beside the target and
/// renames it into place in ``finish()``; ``abandon()`` removes it. An output of `-`
/// (standard output) or an existing pipe or device is written straight through; a
/// reader of it that quits is a ``SinkError/Kind/readerClosed`` error where the
/// process ignores SIGPIPE (the vidfx executable does; a library user must).
public final class EncoderSink: FrameSink {
    /// How the picture is fitted into an output size of another aspect.
    public enum Fit: String, Sendable, CaseIterable {
        /// Whole picture, letterboxed (black bars).
        case fit
        /// Fill the frame, cropping the centre.
        case fill
        /// Scale to the size, distorting.
        case stretch
    }

    /// What to write.
    public struct Settings: Sendable {
        /// Final output path; `-` for standard output.
        public var output: String
        /// Replace an existing file at `output` (the CLI's `-y`). Without it, a file that
        /// appears at `output` while rendering is left alone and `finish()` fails.
        public var overwrite = false
        /// Container; nil for the output's extension (Matroska for `-`).
        public var container: OutputContainer?
        /// Video codec; nil for the extension's default (H.264, or VP9 for .webm).
        public var codec: VideoCodec?
        /// Constant rate factor (quality); codec default when nil.
        public var crf: Int?
        /// Encoder preset (x264 `veryfast` by default).
        public var preset: String?
        /// Target bit rate in bits per second, instead of CRF.
        public var bitrate: Int?
        /// Output size; nil for the frames' size. Rounded down to even sizes for 4:2:0.
        public var size: (width: Int, height: Int)?
        /// How frames are fitted into `size`.
        public var fit: Fit = .fit
        /// Frames per second (the cadence).
        public var frameRate: Rational = Rational(30)
        /// Input to take the audio from: the video's, opened with `.shared` access so that
        /// its video reader hands the audio over (one demuxer), or any input, read for its
        /// audio alone. Nil for no audio. Its loop passes place the audio.
        public var audioInput: MediaInput?
        /// Stops an audio demuxer's blocking reads when raised (Ctrl-C): without it a
        /// stalled network or pipe holds the render until the network timeout.
        public var stop: StopSignal?
        /// Clip start in the input (audio follows it).
        public var audioStart = Rational(0)
        /// Clip length from `audioStart`; nil for to the end.
        public var audioDuration: Rational?
        /// Copy audio packets when the container takes the codec. Packets cannot be cut, so
        /// when the clip is trimmed or looped, transcoding gives sample-accurate seams; set
        /// this false then.
        public var audioCopyAllowed = true
        /// The sound's gain at each time of the output, in seconds (a fade; see
        /// `EffectChain.audioGain`): the audio is then transcoded. Nil: as it is.
        public var audioGain: (@Sendable (Double) -> Double)?
        /// How fast the audio plays (`--speed`, as the frames' `FrameSource` speed), at
        /// its own pitch (atempo): it is then transcoded. 1 by default.
        public var audioSpeed = Rational(1)
        /// The frames have transparency to keep: written where the codec carries it
        /// (ProRes 4444 in .mov/.mkv, VP9 in .webm); otherwise composited over
        /// `background` (and a note says so).
        public var alpha = false
        /// The colour transparent frames are composited over when their alpha cannot be
        /// written: red, green, blue, 0…255 (default black).
        public var background: (red: UInt8, green: UInt8, blue: UInt8) = (0, 0, 0)
        /// Tags for the container's global metadata (a ``SegmentLabel``'s, say). MP4 and
        /// MOV keep keys of their own only with `use_metadata_tags`, which is then set;
        /// MPEG-TS keeps none.
        public var metadata: [String: String] = [:]
        /// The input's tags to carry on (``SourceMetadata``): the container's under
        /// ``metadata`` (whose keys win), the video's on the video stream, the audio's on
        /// the audio track. Nil for none.
        public var sourceMetadata: SourceMetadata?
        /// Ticks that must be key frames (IDR for H.264 and HEVC): a copy of the file cut
        /// there (`split` by stream copy, an editor's cut) starts with a whole picture.
        public var keyFrames: Set<Int64> = []

        /// Settings for an output path.
        public init(output: String) { self.output = output }
    }

    /// What was written.
    public struct Summary: Sendable {
        /// Video frames written.
        public var frames: Int
        /// Output width.
        public var width: Int
        /// Output height.
        public var height: Int
        /// Video codec written.
        public var codec: String
        /// What happened to the audio (`aac copied`, `aac transcoded to opus`), nil without audio.
        public var audio: String?
    }

    /// What the sink was asked to write.
    public let settings: Settings
    /// Notes for the user (size rounding, audio decisions).
    public private(set) var notes: [String] = []
    /// What was written, once ``finish()`` has succeeded.
    public private(set) var summary: Summary?
    /// Frames encoded so far (final after ``finish()`` or ``abandon()``).
    public var encodedFrames: Int { frames }

    /// The output as given.
    public var name: String { settings.output }
    /// The encode thread, from the first frame until finish or abandon.
    private var queue: EncodeQueue<Picture>?

    private let temporary: String
    /// Written straight to standard output, a pipe or a device: no temporary, no rename.
    private let direct: Bool
    private let container: OutputContainer
    private var muxer: UnsafeMutablePointer<AVFormatContext>?
    private var encoder: UnsafeMutablePointer<AVCodecContext>?
    private var stream: UnsafeMutablePointer<AVStream>?
    private var colorspace = AVCOL_SPC_UNSPECIFIED
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var scaler: OpaquePointer?
    /// Buffers for the encoder's pictures, reused: a fresh 3 MB allocation per 1080p frame
    /// was mapped, zeroed by the kernel and unmapped every time (2% of `apply`'s CPU).
    private var picturePool: OpaquePointer?
    private var scalerKey: (Int, Int) = (0, 0)
    private var audio: (any AudioPath)?
    private var audioDescription: String?
    private var width = 0, height = 0
    private var codec: VideoCodec = .h264
    /// Whether the frames' alpha is written (the codec and container carry it).
    private var keepsAlpha = false
    /// What the encoder is fed.
    private var pixelFormat = AV_PIX_FMT_YUV420P
    private var frames = 0
    private var lastTime = Rational(0)
    private var headerWritten = false
    private var finished = false

    /// Prepares the sink; the file is created on the first frame (when the size is known).
    public init(settings: Settings) throws(SinkError) {
        self.settings = settings
        let url = URL(fileURLWithPath: settings.output)
        var info = stat()
        direct = settings.output == "-" || (stat(settings.output, &info) == 0 && info.st_mode & S_IFMT != S_IFREG)
        if settings.output == "-" {
            temporary = "pipe:1"
        } else if direct {
            temporary = settings.output
        } else {
            temporary = AtomicOutput.workPath(for: settings.output)
            AtomicOutput.removeStaleWork(besides: settings.output)
        }
        let ext = url.pathExtension
        guard let container = settings.container ?? OutputContainer(extension: ext) ?? (direct ? .mkv : nil) else {
            throw SinkError(path: settings.output, reason: ext.isEmpty
                ? "no extension to tell the container by (name it .mp4, .mov, .mkv, .webm or .ts, or use --container)"
                : "unknown container '.\(ext)' (use .mp4, .mov, .mkv, .webm or .ts, or --container)")
        }
        self.container = container
        codec = settings.codec ?? container.defaultCodec
        // Checked before anything is opened: FFmpeg's muxer would refuse the pair only when
        // the header is written ("Invalid argument").
        guard container.videoCodecs.contains(codec) else {
            let others = container.videoCodecs.map(\.rawValue)
            throw SinkError(path: settings.output, reason: "\(container.rawValue.uppercased()) cannot hold \(codec.displayName) video; "
                            + "\(codec.displayName) goes in \(OutputContainer.holding(codec)), and .\(container.rawValue) takes --codec "
                            + (others.count < 2 ? others.joined() : others.dropLast().joined(separator: ", ") + " or " + others.last!))
        }
        keepsAlpha = settings.alpha && codec.carriesAlpha(preset: settings.preset) && (codec != .vp9 || container == .webm)
        pixelFormat = codec.pixelFormat(preset: settings.preset, alpha: keepsAlpha)
        _ = try codec.options(crf: settings.crf, preset: settings.preset, bitrate: settings.bitrate)  // a bad preset fails now
        if settings.alpha && !keepsAlpha {
            let bg = settings.background
            let colour = bg == (0, 0, 0) ? "black" : String(format: "#%02X%02X%02X", bg.red, bg.green, bg.blue)
            notes.append("the input's transparency is composited over \(colour) (--background): \(codec.rawValue) in .\(container.rawValue) cannot keep it; "
                         + "write .mov with --codec prores, or .webm, to keep it")
        }
        guard av_guess_format(container.formatName, nil, nil) != nil else {
            throw SinkError(path: settings.output, reason: "no \(container.formatName) muxer in this FFmpeg build")
        }
    }

    deinit {
        // abandon() joins the encode thread first: it uses this object until it ends.
        if !finished { abandon() }
        release()
    }

    private func release() {
        av_packet_free(&packet)
        avcodec_free_context(&encoder)
        sws_freeContext(scaler)
        scaler = nil
        av_buffer_pool_uninit(&picturePool)  // buffers still queued are freed when released
        if let m = muxer {
            if m.pointee.pb != nil { avio_closep(&m.pointee.pb) }
            avformat_free_context(m)
            muxer = nil
        }
        audio = nil
    }

    /// A frame already converted to the encoder's pixel format and size: a third of a
    /// BGRA frame's memory, so queues in front of the encoder stay small.
    final class Picture: @unchecked Sendable {
        fileprivate var frame: UnsafeMutablePointer<AVFrame>?
        fileprivate let tick: Int64
        fileprivate let time: Rational
        fileprivate let pass: Int

        fileprivate init(_ frame: UnsafeMutablePointer<AVFrame>, from source: Frame) {
            self.frame = frame
            tick = source.tick
            time = source.time
            pass = source.pass
        }

        deinit { av_frame_free(&frame) }
    }

    /// Converts `frame` for the encoder and hands it to the encode thread; the first
    /// frame creates the file. Returns false when the reader of a pipe has gone.
    /// - Throws: ``SinkError``: this frame's conversion, or an earlier frame's encoding.
    public func write(_ frame: Frame) throws(SinkError) -> Bool {
        if let error = queue?.error { return try ended(by: error) }
        let picture: Picture
        do { picture = try self.picture(from: frame) } catch { return try ended(by: error) }
        if queue == nil {
            // Unowned: abandon() and finish() (and so deinit) join the thread first.
            queue = EncodeQueue(name: "vidfx.encode", capacity: 1) { [unowned(unsafe) self] (picture) throws(SinkError) in
                try self.encode(picture)
            }
        }
        guard let queue, queue.submit(picture) else { return try ended(by: queue?.error) }
        return true
    }

    /// False for a closed reader (the end of the show); throws anything else.
    private func ended(by error: SinkError?) throws(SinkError) -> Bool {
        guard let error else { return false }
        if error.isReaderClosed { return false }
        throw error
    }

    /// Converts `frame` for the encoder (on the calling thread, using all cores).
    /// The first call creates the file.
    func picture(from frame: Frame) throws(SinkError) -> Picture {
        if !headerWritten { try open(firstFrame: frame) }
        guard let pic = av_frame_alloc() else { throw SinkError(path: settings.output, reason: "out of memory") }
        let picture = Picture(pic, from: frame)  // frees it on every path
        pic.pointee.format = pixelFormat.rawValue
        pic.pointee.width = Int32(width)
        pic.pointee.height = Int32(height)
        pic.pointee.colorspace = colorspace
        pic.pointee.color_range = AVCOL_RANGE_MPEG
        if picturePool == nil {
            let bytes = av_image_get_buffer_size(pixelFormat, Int32(width), Int32(height), 64)
            picturePool = av_buffer_pool_init(Int(max(bytes, 0)), nil)
        }
        let r = vfx_frame_pooled_buffer(pic, picturePool, 64)
        if r < 0 { throw SinkError.ffmpeg(settings.output, "out of memory", r) }
        try convert(frame, into: pic)
        pic.pointee.pts = frame.tick
        if settings.keyFrames.contains(frame.tick) { pic.pointee.pict_type = AV_PICTURE_TYPE_I }
        return picture
    }

    /// Encodes one converted frame (its tick is its timestamp). On the encode thread.
    private func encode(_ picture: Picture) throws(SinkError) {
        guard let enc = encoder, let mux = muxer, let pic = picture.frame else { return }
        if let audio {
            let passStart = settings.audioInput?.passes.start(of: picture.pass) ?? Rational(0)
            try audio.write(upTo: picture.time, pass: picture.pass, passStart: passStart, into: mux)
        }
        let r = avcodec_send_frame(enc, pic)
        if r < 0 { throw SinkError.ffmpeg(settings.output, "encoding failed", r) }
        try drainPackets()
        frames += 1
        lastTime = picture.time + settings.frameRate.inverse
    }

    /// Waits for the encode thread, flushes the encoder, writes the container's index and
    /// renames the file into place. ``summary`` then says what was written.
    public func finish() throws(SinkError) {
        if let queue {
            queue.finish()
            self.queue = nil
            if let error = queue.error { abandon(); throw error }
        }
        guard headerWritten, let enc = encoder, let mux = muxer else {
            abandon()
            throw SinkError(path: settings.output, reason: "no frames to write")
        }
        avcodec_send_frame(enc, nil)
        try drainPackets()
        if let audio { try audio.finish(at: lastTime, into: mux) }
        if let copy = audio as? AudioCopy, copy.damaged > 0 {
            notes.append("audio: dropped \(copy.damaged) damaged packet\(copy.damaged == 1 ? "" : "s") (the decoder rejects them; a player would too)")
        }
        let r = av_write_trailer(mux)
        if r < 0 { throw SinkError.ffmpeg(settings.output, "finishing the file failed", r) }
        let audioNote = audioDescription
        avio_closep(&mux.pointee.pb)
        if !direct {
            do { try AtomicOutput.publish(temporary, to: settings.output, overwrite: settings.overwrite) } catch {
                unlink(temporary)
                throw error
            }
        }
        finished = true
        release()
        summary = Summary(frames: frames, width: width, height: height, codec: codec.rawValue, audio: audioNote)
    }

    /// Drops the output: nothing is left at the target or beside it.
    public func abandon() {
        queue?.finish(discard: true)
        queue = nil
        if let m = muxer, m.pointee.pb != nil { avio_closep(&m.pointee.pb) }
        if !direct { unlink(temporary) }
        finished = true
    }

    // MARK: Setup

    private func open(firstFrame frame: Frame) throws(SinkError) {
        let path = settings.output
        var w = settings.size?.width ?? frame.width, h = settings.size?.height ?? frame.height
        if codec.needsEvenSize, w % 2 != 0 || h % 2 != 0 {
            let (ew, eh) = (max(2, w / 2 * 2), max(2, h / 2 * 2))
            // Frames of an odd size (a crop) lose their last column or row rather than being
            // resampled by one pixel; an odd --size is scaled to the even one.
            let how = settings.size == nil ? " (last odd column/row dropped)" : ""
            notes.append("\(w)x\(h) rounded to \(ew)x\(eh)\(how): \(codec.rawValue) in \(String(cString: av_get_pix_fmt_name(pixelFormat))) needs even sizes")
            (w, h) = (ew, eh)
        }
        width = w
        height = h

        // SVT-AV1 logs its banner straight to stderr unless told otherwise (users can still set it).
        guard let encoderCodec = codec.encoderNames.lazy.compactMap({ avcodec_find_encoder_by_name($0) }).first else {
            throw SinkError(path: path, reason: "no \(codec.rawValue) encoder in this FFmpeg build")
        }
        let oformat = av_guess_format(container.formatName, nil, nil)
        var r = avformat_alloc_output_context2(&muxer, oformat, nil, temporary)
        guard r >= 0, let mux = muxer else { throw SinkError.ffmpeg(path, "cannot set up the container", r) }
        encoder = avcodec_alloc_context3(encoderCodec)
        guard let enc = encoder else { throw SinkError(path: path, reason: "out of memory") }
        let rate = settings.frameRate
        enc.pointee.width = Int32(w)
        enc.pointee.height = Int32(h)
        enc.pointee.pix_fmt = pixelFormat
        enc.pointee.time_base = AVRational(num: Int32(rate.denominator), den: Int32(rate.numerator))
        enc.pointee.framerate = AVRational(num: Int32(rate.numerator), den: Int32(rate.denominator))
        enc.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        enc.pointee.gop_size = Int32(min(600, max(1, 2 * rate.numerator / rate.denominator)))
        enc.pointee.thread_count = 0
        if let b = settings.bitrate { enc.pointee.bit_rate = Int64(b) }
        // Colour tags: BT.709 for HD, BT.601 (SMPTE 170M) below 720 lines, limited range.
        let hd = h >= 720
        enc.pointee.colorspace = hd ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M
        enc.pointee.color_primaries = hd ? AVCOL_PRI_BT709 : AVCOL_PRI_SMPTE170M
        enc.pointee.color_trc = hd ? AVCOL_TRC_BT709 : AVCOL_TRC_SMPTE170M
        enc.pointee.color_range = AVCOL_RANGE_MPEG
        if mux.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 {
            enc.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        }
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        for (k, v) in try codec.options(crf: settings.crf, preset: settings.preset, bitrate: settings.bitrate, alpha: keepsAlpha) {
            av_dict_set(&options, k, v, 0)
        }
        // A picture asked to be an I frame is an IDR one, which a decoder can start at.
        if !settings.keyFrames.isEmpty && (codec == .h264 || codec == .hevc) { av_dict_set(&options, "forced-idr", "1", 0) }
        r = avcodec_open2(enc, encoderCodec, &options)
        if r < 0 { throw SinkError.ffmpeg(path, "cannot open the \(codec.rawValue) encoder", r) }
        stream = avformat_new_stream(mux, nil)
        guard let st = stream else { throw SinkError(path: path, reason: "out of memory") }
        avcodec_parameters_from_context(st.pointee.codecpar, enc)
        if codec == .hevc && (container == .mp4 || container == .mov) {
            // hvc1, not FFmpeg's default hev1: Apple's players (QuickTime, Safari, iOS)
            // open only hvc1, and every other player takes it as well.
            st.pointee.codecpar.pointee.codec_tag = UInt32(UInt8(ascii: "h")) | UInt32(UInt8(ascii: "v")) << 8
                | UInt32(UInt8(ascii: "c")) << 16 | UInt32(UInt8(ascii: "1")) << 24
        }
        st.pointee.time_base = enc.pointee.time_base
        st.pointee.avg_frame_rate = enc.pointee.framerate
        st.pointee.r_frame_rate = enc.pointee.framerate
        for (key, value) in settings.sourceMetadata?.video ?? [:] { av_dict_set(&st.pointee.metadata, key, value, 0) }

        if let input = settings.audioInput,
           let track = try AudioTrack.open(input, stop: settings.stop, start: settings.audioStart, duration: settings.audioDuration,
                                           copyAllowed: settings.audioCopyAllowed, container: container, muxer: mux, output: path,
                                           gain: settings.audioGain, speed: settings.audioSpeed,
                                           tags: settings.sourceMetadata?.audio ?? [:]) {
            audio = track.path
            audioDescription = track.description
            if let note = track.note { notes.append(note) }
        }

        r = avio_open(&mux.pointee.pb, temporary, AVIO_FLAG_WRITE)
        if r < 0 { throw SinkError.ffmpeg(path, "cannot create the output", r) }
        var muxOptions: OpaquePointer?
        defer { av_dict_free(&muxOptions) }
        var movflags: [String] = []
        if direct && container.needsFragmentsToStream {
            // delay_moov, not empty_moov: the header goes out after the first fragment, when
            // the streams' start offsets are known and can be written as edit lists. With an
            // empty moov every track starts at its own zero, and the video's B-frame delay
            // (2 frames with x264) put it that much behind the audio.
            movflags += ["frag_keyframe", "delay_moov", "default_base_moof"]
        }
        let tags = (settings.sourceMetadata?.container ?? [:]).merging(settings.metadata) { _, label in label }
        for (key, value) in tags.sorted(by: { $0.key < $1.key }) { av_dict_set(&mux.pointee.metadata, key, value, 0) }
        if !tags.isEmpty && (container == .mp4 || container == .mov) { movflags.append("use_metadata_tags") }
        if container == .ts, let kept = settings.sourceMetadata?.container, !kept.isEmpty {
            notes.append("metadata: MPEG-TS holds no tags; the input's \(kept.keys.sorted().prefix(3).joined(separator: ", ")) are not in the output")
        }
        if !movflags.isEmpty { av_dict_set(&muxOptions, "movflags", movflags.joined(separator: "+"), 0) }
        r = avformat_write_header(mux, &muxOptions)
        if r < 0 { throw SinkError.ffmpeg(path, "cannot write the container header", r) }
        headerWritten = true
        packet = av_packet_alloc()
        guard packet != nil else { throw SinkError(path: path, reason: "out of memory") }
        colorspace = enc.pointee.colorspace
    }

    // MARK: Per frame

    private func drainPackets() throws(SinkError) {
        guard let enc = encoder, let pkt = packet, let st = stream, let mux = muxer else { return }
        while true {
            let r = avcodec_receive_packet(enc, pkt)
            if r == VFX_AVERROR_EAGAIN || r == VFX_AVERROR_EOF { return }
            if r < 0 { throw SinkError.ffmpeg(settings.output, "encoding failed", r) }
            av_packet_rescale_ts(pkt, enc.pointee.time_base, st.pointee.time_base)  // after the header: mp4 changes it
            pkt.pointee.stream_index = st.pointee.index
            let w = av_interleaved_write_frame(mux, pkt)
            if w == vfx_averror(EPIPE) { throw SinkError(path: settings.output, reason: SinkError.readerClosed, kind: .readerClosed) }
            if w < 0 { throw SinkError.ffmpeg(settings.output, "writing failed", w) }
        }
    }

    /// BGRA → the encoder's YUV, scaled and fitted, with the tagged matrix.
    private func convert(_ frame: Frame, into pic: UnsafeMutablePointer<AVFrame>) throws(SinkError) {
        // Source rectangle (fill crops it) and destination rectangle (fit letterboxes).
        var sx = 0, sy = 0, sw = frame.width, sh = frame.height
        var dx = 0, dy = 0, dw = width, dh = height
        if settings.size == nil, (0...1).contains(sw - width), (0...1).contains(sh - height) {
            (sw, sh) = (width, height)  // odd frames, rounded down: drop the last column/row
        } else if sw != width || sh != height {
            switch settings.fit {
            case .stretch: break
            case .fill:
                if sw * height > width * sh { let cw = sh * width / height; sx = (sw - cw) / 2; sw = cw }
                else { let ch = sw * height / width; sy = (sh - ch) / 2; sh = ch }
            case .fit:
                if sw * height > width * sh { dh = max(2, (width * sh / sw) / 2 * 2); dy = (height - dh) / 2 / 2 * 2 }
                else { dw = max(2, (height * sw / sh) / 2 * 2); dx = (width - dw) / 2 / 2 * 2 }
            }
        }
        var frame = frame
        if settings.alpha && !keepsAlpha { Self.composite(&frame, over: settings.background) }
        if frame.width == width && frame.height == height && pixelFormat == AV_PIX_FMT_YUV420P {
            // Same size, 4:2:0: our own parallel fixed-point conversion.
            YUVConverter.convert(frame, matrix: height >= 720 ? .bt709 : .bt601,
                                 y: vfx_frame_plane(pic, 0), yStride: Int(vfx_frame_linesize(pic, 0)),
                                 u: vfx_frame_plane(pic, 1), v: vfx_frame_plane(pic, 2), cStride: Int(vfx_frame_linesize(pic, 1)))
            return
        }
        if dw != width || dh != height { blackFill(pic) }
        let key = (sw << 32 | sh, dw << 32 | dh)
        if scaler == nil || scalerKey != key {
            sws_freeContext(scaler)
            let flags = (sw == dw && sh == dh) ? SWS_POINT : SWS_BICUBIC
            scaler = sws_getContext(Int32(sw), Int32(sh), AV_PIX_FMT_BGRA, Int32(dw), Int32(dh), pixelFormat, flags, nil, nil, nil)
            guard let scaler else { throw SinkError(path: settings.output, reason: "cannot convert \(sw)x\(sh) BGRA for the encoder") }
            let matrix = height >= 720 ? SWS_CS_ITU709 : SWS_CS_ITU601
            sws_setColorspaceDetails(scaler, sws_getCoefficients(SWS_CS_DEFAULT), 1, sws_getCoefficients(matrix), 0, 0, 1 << 16, 1 << 16)
            scalerKey = key
        }
        let desc = av_pix_fmt_desc_get(pixelFormat)!.pointee
        let (shiftX, shiftY) = (Int(desc.log2_chroma_w), Int(desc.log2_chroma_h))
        frame.withUnsafeBytes { b in
            var src: [UnsafePointer<UInt8>?] = [b.baseAddress!.assumingMemoryBound(to: UInt8.self) + sy * frame.bytesPerRow + sx * 4, nil, nil, nil]
            var srcStride: [Int32] = [Int32(frame.bytesPerRow), 0, 0, 0]
            let bytesPerSample = desc.comp.0.depth > 8 ? 2 : 1
            var dst: [UnsafeMutablePointer<UInt8>?] = (0..<4).map { i in
                guard let p = vfx_frame_plane(pic, Int32(i)) else { return nil }
                let ls = Int(vfx_frame_linesize(pic, Int32(i)))
                // Planes 0 (luma) and 3 (alpha) are full size; 1 and 2 subsampled.
                let full = i == 0 || i == 3
                return p + (full ? dy : dy >> shiftY) * ls + (full ? dx : dx >> shiftX) * bytesPerSample
            }
            var dstStride: [Int32] = (0..<4).map { vfx_frame_linesize(pic, Int32($0)) }
            _ = sws_scale(scaler, &src, &srcStride, 0, Int32(sh), &dst, &dstStride)
        }
    }

    /// Limited-range black in every plane (letterbox bars); transparent where alpha is kept.
    private func blackFill(_ pic: UnsafeMutablePointer<AVFrame>) {
        let desc = av_pix_fmt_desc_get(pixelFormat)!.pointee
        let ten = desc.comp.0.depth > 8
        for plane in 0..<(keepsAlpha ? 4 : 3) {
            guard let p = vfx_frame_plane(pic, Int32(plane)) else { continue }
            let ls = Int(vfx_frame_linesize(pic, Int32(plane)))
            let rows = plane == 0 || plane == 3 ? height : (height + (1 << desc.log2_chroma_h) - 1) >> desc.log2_chroma_h
            if plane == 3 {
                memset(p, 0, ls * rows)
            } else if ten {
                let v: UInt16 = plane == 0 ? 64 : 512
                for y in 0..<rows { UnsafeMutableRawPointer(p + y * ls).bindMemory(to: UInt16.self, capacity: ls / 2).update(repeating: v, count: ls / 2) }
            } else {
                memset(p, plane == 0 ? 16 : 128, ls * rows)
            }
        }
    }

    /// Composites `frame` (straight alpha) over an opaque colour, in place.
    static func composite(_ frame: inout Frame, over background: (red: UInt8, green: UInt8, blue: UInt8)) {
        let bg = [Int(background.blue), Int(background.green), Int(background.red)]
        let (w, h, stride) = (frame.width, frame.height, frame.bytesPerRow)
        frame.withUnsafeMutableBytes { bytes in
            let p = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            for y in 0..<h {
                let row = p + y * stride
                for x in 0..<w {
                    let px = row + 4 * x
                    let a = Int(px[3])
                    if a == 255 { continue }
                    for c in 0..<3 { px[c] = UInt8((Int(px[c]) * a + bg[c] * (255 - a) + 127) / 255) }
                    px[3] = 255
                }
            }
        }
    }
}
