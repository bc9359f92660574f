import CFFmpeg
import Foundation
public import FrameCore
import MediaInput

/// An animated GIF: each frame mapped to the clip's palette, or its scene's
/// (``GIFPaletteSink``, the first pass), by libavfilter's `paletteuse` with its error
/// diffusion, then FFmpeg's GIF encoder and muxer, which store only what changed between
/// frames (a scene's own palette goes in as a local colour table). ffmpeg's two-pass
/// recipe (`palettegen`, then `paletteuse`), frame for frame. Written beside the target
/// and renamed into place when complete.
public final class GIFSink: FrameSink {
    /// What to write.
    public struct Settings: Sendable {
        /// The output file.
        public var output: String
        /// Frames a second (the cadence).
        public var frameRate: Rational
        /// Scale every frame to this size first (nil: as they come).
        public var size: (width: Int, height: Int)?
        /// Replace an existing file.
        public var overwrite = false
        /// How many times the animation plays in all; nil: for ever (what GIFs usually do).
        public var plays: Int?

        /// Settings for `output` at `frameRate`.
        public init(output: String, frameRate: Rational) {
            self.output = output
            self.frameRate = frameRate
        }
    }

    private let settings: Settings
    /// The palettes and the frame each is first used for (``GIFPaletteSink``'s).
    private var palettes: [(first: Int64, palette: UnsafeMutablePointer<AVFrame>)] = []
    /// The palette in use.
    private var current = 0
    private var graph: FilterGraph?
    private var picture: UnsafeMutablePointer<AVFrame>?
    private var mapped: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var encoder: UnsafeMutablePointer<AVCodecContext>?
    private var muxer: UnsafeMutablePointer<AVFormatContext>?
    private var stream: UnsafeMutablePointer<AVStream>?
    private let work: String
    private var count: Int64 = 0
    /// Frames written and their size, once ``finish()`` has run.
    public private(set) var written: (frames: Int, width: Int, height: Int)?

    /// A GIF with the palette `pass` computed (it must have finished).
    public init(settings: Settings, palette pass: GIFPaletteSink) throws(SinkError) {
        self.settings = settings
        work = AtomicOutput.workPath(for: settings.output)
        AtomicOutput.removeStaleWork(besides: settings.output)
        guard !pass.palettes.isEmpty else { throw SinkError(path: settings.output, reason: "the palette pass has not finished") }
        for (first, palette) in pass.palettes {
            guard let copy = av_frame_clone(palette) else { throw SinkError(path: settings.output, reason: "out of memory") }
            palettes.append((first, copy))
        }
        mapped = av_frame_alloc()
        packet = av_packet_alloc()
        guard mapped != nil, packet != nil else { throw SinkError(path: settings.output, reason: "out of memory") }
    }

    deinit {
        for (_, palette) in palettes { var held: UnsafeMutablePointer<AVFrame>? = palette; av_frame_free(&held) }
        av_frame_free(&picture)
        av_frame_free(&mapped)
        av_packet_free(&packet)
        avcodec_free_context(&encoder)
        closeMuxer()
    }

    private func closeMuxer() {
        guard let mux = muxer else { return }
        if mux.pointee.pb != nil { avio_closep(&mux.pointee.pb) }
        avformat_free_context(mux)
        muxer = nil
    }

    /// The output file's name.
    public var name: String { settings.output }

    /// Maps the frame to its scene's palette and encodes it.
    public func write(_ frame: Frame) throws(SinkError) -> Bool {
        let path = settings.output
        // A scene with a palette of its own: the frames mapped to the last one are
        // finished, and a graph for the next palette starts with this frame (the error
        // diffusion starts afresh at the cut).
        if current + 1 < palettes.count, count >= palettes[current + 1].first {
            if graph != nil {
                do { try graph?.push(nil) } catch { throw SinkError(path: path, reason: error.reason) }
                try drainGraph()
                graph = nil
            }
            current += 1
        }
        let p = try GIFFrames.picture(of: frame, pts: count, reusing: &picture)
        if graph == nil {
            let palette = palettes[current].palette
            let rate = settings.frameRate
            guard let copy = av_frame_clone(palette) else { throw SinkError(path: path, reason: "out of memory") }
            defer { var held: UnsafeMutablePointer<AVFrame>? = copy; av_frame_free(&held) }
            do {
                let chain = GIFFrames.scale(settings.size).map { "[in]\($0)[scaled];[scaled][pal]paletteuse" } ?? "[in][pal]paletteuse"
                let made = try FilterGraph(chain,
                                           inputs: [("in", UnsafePointer(p), AVRational(num: Int32(rate.denominator), den: Int32(rate.numerator))),
                                                    ("pal", UnsafePointer(palette), AVRational(num: 1, den: 1))])
                graph = made
                try made.push(copy, to: 1)
                try made.push(nil, to: 1)  // one palette for the graph's frames
            } catch {
                throw SinkError(path: path, reason: "\(error.chain): \(error.reason)")
            }
        }
        do { try graph?.push(p) } catch { throw SinkError(path: path, reason: error.reason) }
        count += 1
        try drainGraph()
        return true
    }

    /// Encodes what the graph has mapped.
    private func drainGraph() throws(SinkError) {
        guard let graph, let mapped else { return }
        while true {
            let more: Bool
            do { more = try graph.pull(into: mapped) } catch { throw SinkError(path: settings.output, reason: error.reason) }
            guard more else { return }
            if encoder == nil { try open(for: mapped) }
            let r = avcodec_send_frame(encoder, mapped)
            if r < 0 { throw SinkError.ffmpeg(settings.output, "GIF encoding failed", r) }
            try drainEncoder()
        }
    }

    /// Opens the encoder and the muxer for pictures like `first` (pal8, the GIF's size).
    private func open(for first: UnsafePointer<AVFrame>) throws(SinkError) {
        let path = settings.output
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_GIF) else { throw SinkError(path: path, reason: "no GIF encoder in this FFmpeg build") }
        guard let enc = avcodec_alloc_context3(codec) else { throw SinkError(path: path, reason: "out of memory") }
        encoder = enc
        enc.pointee.width = first.pointee.width
        enc.pointee.height = first.pointee.height
        enc.pointee.pix_fmt = AV_PIX_FMT_PAL8
        let rate = settings.frameRate
        enc.pointee.time_base = AVRational(num: Int32(rate.denominator), den: Int32(rate.numerator))
        var r = avformat_alloc_output_context2(&muxer, av_guess_format("gif", nil, nil), nil, work)
        guard r >= 0, let mux = muxer else { throw SinkError.ffmpeg(path, "cannot set up the GIF container", r) }
        if mux.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 { enc.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        r = avcodec_open2(enc, codec, nil)
        guard r >= 0 else { throw SinkError.ffmpeg(path, "cannot open the GIF encoder", r) }
        guard let st = avformat_new_stream(mux, nil) else { throw SinkError(path: path, reason: "out of memory") }
        stream = st
        avcodec_parameters_from_context(st.pointee.codecpar, enc)
        st.pointee.time_base = enc.pointee.time_base
        r = avio_open(&mux.pointee.pb, work, AVIO_FLAG_WRITE)
        if r < 0 { throw SinkError.ffmpeg(path, "cannot create the output", r) }
        // The GIF muxer's loop count: 0 (its default) plays for ever, -1 once (no loop
        // extension), N plays N + 1 times (the first play, then N repeats).
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        if let plays = settings.plays { av_dict_set(&options, "loop", String(plays <= 1 ? -1 : plays - 1), 0) }
        r = avformat_write_header(mux, &options)
        if r < 0 { throw SinkError.ffmpeg(path, "cannot write the GIF header", r) }
    }

    private func drainEncoder() throws(SinkError) {
        guard let enc = encoder, let pkt = packet, let mux = muxer, let st = stream else { return }
        while true {
            let r = avcodec_receive_packet(enc, pkt)
            if r == VFX_AVERROR_EAGAIN || r == VFX_AVERROR_EOF { return }
            if r < 0 { throw SinkError.ffmpeg(settings.output, "GIF encoding failed", r) }
            av_packet_rescale_ts(pkt, enc.pointee.time_base, st.pointee.time_base)
            pkt.pointee.stream_index = st.pointee.index
            let w = av_interleaved_write_frame(mux, pkt)
            if w < 0 { throw SinkError.ffmpeg(settings.output, "cannot write the GIF", w) }
        }
    }

    /// Ends the graph and the encoder, writes the trailer and moves the file into place.
    public func finish() throws(SinkError) {
        let path = settings.output
        guard graph != nil else { throw SinkError(path: path, reason: "no frames to write") }
        do { try graph?.push(nil) } catch { throw SinkError(path: path, reason: error.reason) }
        try drainGraph()
        guard let enc = encoder, let mux = muxer else { throw SinkError(path: path, reason: "no frames to write") }
        avcodec_send_frame(enc, nil)
        try drainEncoder()
        let r = av_write_trailer(mux)
        if r < 0 { throw SinkError.ffmpeg(path, "cannot finish the GIF", r) }
        written = (Int(count), Int(enc.pointee.width), Int(enc.pointee.height))
        closeMuxer()
        try AtomicOutput.publish(work, to: path, overwrite: settings.overwrite)
    }

    /// Removes the work file.
    public func abandon() {
        closeMuxer()
        unlink(work)
    }
}
