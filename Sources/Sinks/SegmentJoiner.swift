import CFFmpeg
import CFFmpegShim
import Foundation
public import FrameCore
public import MediaInput

#if canImport(Glibc)
import Glibc
#endif

/// Joins video segments rendered separately (`vidfx apply --segment I/N`, each on any
/// machine) into one file by stream copy, and muxes the audio once, from the source, cut
/// as the whole render would cut it: audio rendered per segment would leave gaps or
/// clicks at every seam. Segment k's frames follow segment k−1's on one timeline (their
/// own timestamps restart at 0). Written beside the target and renamed into place.
public final class SegmentJoiner {
    /// What to write.
    public struct Settings: Sendable {
        /// Final output path.
        public var output: String
        /// Replace an existing file at `output`.
        public var overwrite = false
        /// Container; nil for the output's extension.
        public var container: OutputContainer?
        /// The cadence the segments were rendered at.
        public var frameRate = Rational(30)
        /// The source to take the audio from; nil for none.
        public var audioInput: MediaInput?
        /// The clip's start in the source (as the render's `--start`).
        public var audioStart = Rational(0)
        /// The clip's length from `audioStart`; nil for to the end.
        public var audioDuration: Rational?
        /// Stops the audio reader's waits (Ctrl-C).
        public var stop: StopSignal?
        /// The length of one pass when the render looped the clip (`--loop`): the audio
        /// starts again with each pass, as in the whole render. Nil for no loops.
        public var passLength: Rational?
        /// The render's speed (`--speed`): the audio goes through the same tempo change.
        public var audioSpeed = Rational(1)
        /// The sound's gain at each output time, from the render's fades; nil for none.
        public var audioGain: (@Sendable (Double) -> Double)?

        /// Settings for an output path.
        public init(output: String) { self.output = output }
    }

    /// What was written.
    public struct Summary: Sendable {
        /// Video frames, all segments together.
        public var frames: Int
        /// Segments joined.
        public var segments: Int
        /// What happened to the audio, nil without.
        public var audio: String?
        /// Notes for the user (audio transcoded, and why).
        public var notes: [String]
    }

    private let settings: Settings

    /// Prepares the join; nothing is written until ``join(_:)``.
    public init(settings: Settings) { self.settings = settings }

    /// Joins `segments`, in order, into the output.
    /// - Throws: ``SinkError`` naming the segment or the output at fault; the target is
    ///   then left as it was.
    public func join(_ segments: [String]) throws(SinkError) -> Summary {
        let path = settings.output
        guard !segments.isEmpty else { throw SinkError(path: path, reason: "no segments to join") }
        let ext = URL(fileURLWithPath: path).pathExtension
        guard let container = settings.container ?? OutputContainer(extension: ext) else {
            throw SinkError(path: path, reason: "unknown container '.\(ext)' (use .mp4, .mov, .mkv, .webm or .ts, or --container)")
        }
        if !settings.overwrite, FileManager.default.fileExists(atPath: path) {
            throw SinkError(path: path, reason: "already exists (use -y to overwrite)", kind: .targetExists)
        }
        AtomicOutput.removeStaleWork(besides: path)
        let work = AtomicOutput.workPath(for: path)
        var mux: UnsafeMutablePointer<AVFormatContext>?
        var published = false
        defer {
            if let m = mux {
                if m.pointee.pb != nil { avio_closep(&m.pointee.pb) }
                avformat_free_context(m)
            }
            if !published { unlink(work) }
        }
        var first = try Segment(segments[0])
        defer { first.close() }
        var r = avformat_alloc_output_context2(&mux, av_guess_format(container.formatName, nil, nil), nil, work)
        guard r >= 0, let out = mux else { throw SinkError.ffmpeg(path, "cannot set up the container", r) }
        guard let video = avformat_new_stream(out, nil) else { throw SinkError(path: path, reason: "out of memory") }
        avcodec_parameters_copy(video.pointee.codecpar, first.parameters)
        video.pointee.codecpar.pointee.codec_tag = 0
        let rate = settings.frameRate
        let tickBase = AVRational(num: Int32(rate.denominator), den: Int32(rate.numerator))
        video.pointee.time_base = tickBase
        video.pointee.avg_frame_rate = AVRational(num: Int32(rate.numerator), den: Int32(rate.denominator))
        var audio: (path: any AudioPath, description: String, note: String?)?
        if let input = settings.audioInput {
            audio = try AudioTrack.open(input, stop: settings.stop, start: settings.audioStart, duration: settings.audioDuration,
                                        copyAllowed: settings.audioStart == Rational(0) && settings.audioDuration == nil && settings.passLength == nil,
                                        container: container, muxer: out, output: path, gain: settings.audioGain,
                                        speed: settings.audioSpeed)
        }
        // What the segments carry of the source's metadata (apply chose it: a redaction's
        // has no location), but for their own labels.
        let labels: Set<String> = [SegmentLabel.segmentKey, SegmentLabel.ticksKey, SegmentLabel.renderKey]
        let tags = SourceMetadata.copied(first.format?.pointee.metadata, choice: .keep).filter { !labels.contains($0.key.uppercased()) }
        SourceMetadata.set(tags, into: &out.pointee.metadata)
        if let st = first.format?.pointee.streams[Int(first.index)] {
            SourceMetadata.set(SourceMetadata.copied(st.pointee.metadata, choice: .keep), into: &video.pointee.metadata)
        }
        r = avio_open(&out.pointee.pb, work, AVIO_FLAG_WRITE)
        if r < 0 { throw SinkError.ffmpeg(path, "cannot create the output", r) }
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        if !tags.isEmpty && (container == .mp4 || container == .mov) { av_dict_set(&options, "movflags", "use_metadata_tags", 0) }
        r = avformat_write_header(out, &options)
        if r < 0 { throw SinkError.ffmpeg(path, "cannot write the container header", r) }
        let outBase = video.pointee.time_base  // the muxer may have chosen its own

        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let pkt = packet else { throw SinkError(path: path, reason: "out of memory") }
        var offset: Int64 = 0  // ticks before this segment
        var audioTime = Rational(0)
        for (i, name) in segments.enumerated() {
            var segment = i == 0 ? first : try Segment(name)
            defer { if i > 0 { segment.close() } }
            let p = segment.parameters.pointee, q = first.parameters.pointee
            guard p.codec_id == q.codec_id, p.width == q.width, p.height == q.height, p.format == q.format else {
                throw SinkError(path: name, reason: "does not match the first segment (\(segment.describe) against \(first.describe)); render every segment with the same settings")
            }
            var count: Int64 = 0
            var lastTick: Int64 = -1
            while true {
                let rd = av_read_frame(segment.format, pkt)
                if rd == VFX_AVERROR_EOF { break }
                if rd < 0 { throw SinkError.ffmpeg(name, "cannot read", rd) }
                defer { av_packet_unref(pkt) }
                guard pkt.pointee.stream_index == segment.index else { continue }
                // The segment's own timestamps, in ticks (it starts at tick 0), moved on by
                // the ticks before it.
                let pts = pkt.pointee.pts == VFX_AV_NOPTS_VALUE ? count : av_rescale_q_rnd(pkt.pointee.pts, segment.timeBase, tickBase, AV_ROUND_NEAR_INF)
                // Decode order, one tick a packet, behind by the codec's reordering delay
                // (Matroska keeps no decode times; this is what the encoder gave).
                let dts = count - Int64(segment.parameters.pointee.video_delay)
                lastTick = max(lastTick, pts)
                pkt.pointee.pts = av_rescale_q(offset + pts, tickBase, outBase)
                pkt.pointee.dts = av_rescale_q(offset + dts, tickBase, outBase)
                pkt.pointee.duration = av_rescale_q(1, tickBase, outBase)
                pkt.pointee.stream_index = video.pointee.index
                pkt.pointee.pos = -1
                if let audio {
                    audioTime = max(audioTime, rate.inverse * (offset + max(0, dts)))
                    var pass = 0, passStart = Rational(0)
                    if let length = settings.passLength, length > Rational(0) {
                        pass = Int((audioTime.seconds / length.seconds).rounded(.down))
                        // A time a hair before a pass boundary in floating point belongs to the next.
                        if length * Int64(pass + 1) <= audioTime { pass += 1 }
                        passStart = length * Int64(pass)
                    }
                    try audio.path.write(upTo: audioTime, pass: pass, passStart: passStart, into: out)
                }
                let w = av_interleaved_write_frame(out, pkt)
                if w < 0 { throw SinkError.ffmpeg(path, "writing failed", w) }
                count += 1
            }
            guard count > 0 else { throw SinkError(path: name, reason: "has no video frames") }
            offset += max(count, lastTick + 1)
        }
        if let audio { try audio.path.finish(at: rate.inverse * offset, into: out) }
        r = av_write_trailer(out)
        if r < 0 { throw SinkError.ffmpeg(path, "finishing the file failed", r) }
        avio_closep(&out.pointee.pb)
        try AtomicOutput.publish(work, to: path, overwrite: settings.overwrite)
        published = true
        return Summary(frames: Int(offset), segments: segments.count, audio: audio?.description, notes: audio?.note.map { [$0] } ?? [])
    }

    /// One segment file, opened for its video packets.
    private struct Segment {
        var format: UnsafeMutablePointer<AVFormatContext>?
        let index: Int32
        let timeBase: AVRational
        let parameters: UnsafeMutablePointer<AVCodecParameters>

        init(_ path: String) throws(SinkError) {
            var ctx: UnsafeMutablePointer<AVFormatContext>?
            var r = avformat_open_input(&ctx, path, nil, nil)
            guard r >= 0, let c = ctx else { throw SinkError.ffmpeg(path, "cannot open the segment", r) }
            r = avformat_find_stream_info(c, nil)
            let best = vfx_best_video_stream(c)
            guard r >= 0, best >= 0, let st = c.pointee.streams[Int(best)] else {
                avformat_close_input(&ctx)
                throw SinkError(path: path, reason: "has no video stream to join")
            }
            format = c
            index = best
            timeBase = st.pointee.time_base
            parameters = st.pointee.codecpar
        }

        var describe: String {
            let p = parameters.pointee
            return "\(String(cString: avcodec_get_name(p.codec_id))) \(p.width)x\(p.height)"
        }

        mutating func close() { avformat_close_input(&format) }
    }
}
