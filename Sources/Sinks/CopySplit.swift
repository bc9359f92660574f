import CFFmpeg
import CFFmpegShim
public import FrameCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Cuts a video file into pieces by stream copy, as PySceneDetect's `split-video --copy`
/// does: nothing is decoded or encoded. Each piece begins at the video key frame nearest
/// its cut and ends where the next begins, so the pieces hold every packet of the clip
/// once and their pictures add up to the clip's. The sound (every audio stream) goes
/// with the pictures: each audio packet into the piece its time falls in. Each piece
/// starts at time 0 and is published whole or not at all.
///
/// ```swift
/// let split = CopySplit(input: "talk.mp4", cuts: [Rational(12), Rational(95, 2)])
/// let pieces = try split.run(path: { "talk-\($0 + 1).mp4" }, overwrite: false, audio: true, isStopped: { false })
/// ```
public final class CopySplit {
    /// One piece written.
    public struct Piece: Sendable, Equatable {
        /// Where it was written.
        public var path: String
        /// Where it begins in the source, in seconds from the video's start: its first
        /// key frame's time.
        public var start: Double
        /// Its pictures (video packets).
        public var pictures: Int
    }

    private let input: String
    private let cuts: [Rational]
    /// The source's metadata in each piece: kept (nil or ``SourceMetadata/Choice/keep``)
    /// or stripped.
    public var metadata: SourceMetadata.Choice?

    /// A split of the file at `input` at `cuts` (seconds from the video's start, as
    /// `vidfx scenes` gives them).
    public init(input: String, cuts: [Rational]) {
        self.input = input
        self.cuts = cuts
    }

    /// How many of the first `n` indices satisfy `below`, which holds for a prefix of
    /// them (a binary search: a cut list of thousands against a clip of many key frames).
    static func count(_ n: Int, where below: (Int) -> Bool) -> Int {
        var (lo, hi) = (0, n)
        while lo < hi {
            let mid = (lo + hi) / 2
            if below(mid) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// An open input and the streams taken from it.
    private struct Source {
        var format: UnsafeMutablePointer<AVFormatContext>?
        let video: Int32
        let audio: [Int32]

        init(_ path: String, audio wanted: Bool) throws(SinkError) {
            var ctx: UnsafeMutablePointer<AVFormatContext>?
            var r = avformat_open_input(&ctx, path, nil, nil)
            guard r >= 0, let c = ctx else { throw SinkError.ffmpeg(path, "cannot open", r) }
            r = avformat_find_stream_info(c, nil)
            let best = vfx_best_video_stream(c)
            guard r >= 0, best >= 0 else {
                avformat_close_input(&ctx)
                throw SinkError(path: path, reason: "has no video stream to split")
            }
            format = c
            video = best
            audio = wanted ? (0..<Int32(c.pointee.nb_streams)).filter { c.pointee.streams[Int($0)]!.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO } : []
        }

        func stream(_ i: Int32) -> UnsafeMutablePointer<AVStream> { format!.pointee.streams[Int(i)]! }

        /// A timestamp of stream `i` in seconds from the video's start.
        func seconds(_ ts: Int64, of i: Int32) -> Double {
            let v = stream(video), s = stream(i)
            let origin = v.pointee.start_time == VFX_AV_NOPTS_VALUE ? 0 : Double(v.pointee.start_time) * av_q2d(v.pointee.time_base)
            return Double(ts) * av_q2d(s.pointee.time_base) - origin
        }

        mutating func close() { avformat_close_input(&format) }
    }

    /// One output file being written.
    private struct Output {
        let target: String
        let work: String
        var format: UnsafeMutablePointer<AVFormatContext>?
        /// Output stream index for each input stream taken.
        var streams: [Int32: Int32] = [:]
        /// The piece's start in each input stream's time base.
        var offsets: [Int32: Int64] = [:]
        var pictures = 0
        var start = 0.0

        mutating func discard() {
            if let f = format {
                if f.pointee.pb != nil { avio_closep(&f.pointee.pb) }
                avformat_free_context(f)
            }
            format = nil
            unlink(work)
        }
    }

    /// Writes piece `k` (from 0) to `path(k)`, all of them, and returns what it wrote.
    /// Cuts nearer the same key frame make one piece; `isStopped` is asked between
    /// packets (a stop leaves no piece but those published before).
    /// - Throws: ``SinkError`` naming the input or the piece at fault.
    public func run(path: (Int) -> String, overwrite: Bool, audio: Bool, isStopped: () -> Bool) throws(SinkError) -> [Piece] {
        // First pass: the video's key frames, read without decoding.
        var source = try Source(input, audio: audio)
        var keys: [(time: Double, pts: Int64)] = []
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let pkt = packet else { throw SinkError(path: input, reason: "out of memory") }
        while true {
            let r = av_read_frame(source.format, pkt)
            if r == VFX_AVERROR_EOF { break }
            if r < 0 { source.close(); throw SinkError.ffmpeg(input, "cannot read", r) }
            defer { av_packet_unref(pkt) }
            guard pkt.pointee.stream_index == source.video, pkt.pointee.flags & AV_PKT_FLAG_KEY != 0 else { continue }
            let ts = pkt.pointee.pts != VFX_AV_NOPTS_VALUE ? pkt.pointee.pts : pkt.pointee.dts
            guard ts != VFX_AV_NOPTS_VALUE else { continue }
            keys.append((source.seconds(ts, of: source.video), ts))
        }
        source.close()
        guard let firstKey = keys.first else { throw SinkError(path: input, reason: "has no key frame to split at") }
        // Each cut moves to its nearest key frame (the earlier of two as near); the
        // first key frame begins the first piece anyway.
        var boundaries = Set<Int64>()
        for cut in cuts {
            let t = cut.seconds
            // Key frames come in time order: the first at or after the cut, or the one before.
            let after = CopySplit.count(keys.count) { keys[$0].time < t }
            let candidates = [after - 1, after].filter { keys.indices.contains($0) }.map { keys[$0] }
            guard let nearest = candidates.min(by: { (abs($0.time - t), $0.time) < (abs($1.time - t), $1.time) }),
                  nearest.pts != firstKey.pts else { continue }
            boundaries.insert(nearest.pts)
        }

        // Second pass: every packet into its piece.
        source = try Source(input, audio: audio)
        defer { source.close() }
        let streams = [source.video] + source.audio
        var outputs: [Output] = []
        var published: [Piece] = []
        defer { for i in outputs.indices { outputs[i].discard() } }
        /// Audio packets ahead of the piece they belong to (it opens with its key frame).
        var waiting: [(piece: Int, packet: UnsafeMutablePointer<AVPacket>?)] = []
        defer { for i in waiting.indices { av_packet_free(&waiting[i].packet) } }
        var firstIndex = 0  // outputs[0] is piece firstIndex

        func open(_ piece: Int, at key: Int64) throws(SinkError) {
            let target = path(piece)
            if !overwrite, FileManager.default.fileExists(atPath: target) {
                throw SinkError(path: target, reason: "already exists (use -y to overwrite)", kind: .targetExists)
            }
            AtomicOutput.removeStaleWork(besides: target)
            var output = Output(target: target, work: AtomicOutput.workPath(for: target))
            let ext = URL(fileURLWithPath: target).pathExtension
            guard let container = OutputContainer(extension: ext) else {
                throw SinkError(path: target, reason: "unknown container '.\(ext)' (use .mp4, .mov, .mkv, .webm or .ts)")
            }
            var r = avformat_alloc_output_context2(&output.format, av_guess_format(container.formatName, nil, nil), nil, output.work)
            guard r >= 0, let out = output.format else { throw SinkError.ffmpeg(target, "cannot set up the container", r) }
            outputs.append(output)
            let videoStart = source.seconds(key, of: source.video)
            outputs[outputs.count - 1].start = videoStart
            for i in streams {
                let from = source.stream(i)
                guard let to = avformat_new_stream(out, nil) else { throw SinkError(path: target, reason: "out of memory") }
                avcodec_parameters_copy(to.pointee.codecpar, from.pointee.codecpar)
                to.pointee.codecpar.pointee.codec_tag = 0
                to.pointee.time_base = from.pointee.time_base
                to.pointee.avg_frame_rate = from.pointee.avg_frame_rate
                outputs[outputs.count - 1].streams[i] = to.pointee.index
                // The piece's start in this stream's time base: its key frame's time.
                let v = source.stream(source.video)
                outputs[outputs.count - 1].offsets[i] = av_rescale_q(key, v.pointee.time_base, from.pointee.time_base)
            }
            r = avio_open(&out.pointee.pb, output.work, AVIO_FLAG_WRITE)
            if r < 0 { throw SinkError.ffmpeg(target, "cannot create the output", r) }
            var tagged = SourceMetadata.copied(source.format?.pointee.metadata, choice: metadata)
            SourceMetadata.set(tagged, into: &out.pointee.metadata)
            for i in streams {
                let kept = SourceMetadata.copied(source.stream(i).pointee.metadata, choice: metadata)
                if let to = outputs[outputs.count - 1].streams[i] { SourceMetadata.set(kept, into: &out.pointee.streams[Int(to)]!.pointee.metadata) }
                tagged.merge(kept) { a, _ in a }
            }
            var options: OpaquePointer?
            defer { av_dict_free(&options) }
            // MP4 and MOV keep keys of their own (make, model, QuickTime's location) only so.
            if !tagged.isEmpty && (container == .mp4 || container == .mov) { av_dict_set(&options, "movflags", "use_metadata_tags", 0) }
            r = avformat_write_header(out, &options)
            if r < 0 { throw SinkError.ffmpeg(target, "cannot write the container header (can it hold these streams?)", r) }
        }

        func write(_ p: UnsafeMutablePointer<AVPacket>, into piece: Int) throws(SinkError) {
            let k = piece - firstIndex
            guard k >= 0, k < outputs.count, let out = outputs[k].format else { return }  // a piece already closed
            let i = p.pointee.stream_index
            guard let index = outputs[k].streams[i], let offset = outputs[k].offsets[i] else { return }
            if p.pointee.pts != VFX_AV_NOPTS_VALUE { p.pointee.pts -= offset }
            if p.pointee.dts != VFX_AV_NOPTS_VALUE { p.pointee.dts -= offset }
            let from = source.stream(i), to = out.pointee.streams[Int(index)]!
            av_packet_rescale_ts(p, from.pointee.time_base, to.pointee.time_base)
            p.pointee.stream_index = index
            p.pointee.pos = -1
            if i == source.video { outputs[k].pictures += 1 }
            let w = av_interleaved_write_frame(out, p)
            if w < 0 { throw SinkError.ffmpeg(outputs[k].target, "writing failed", w) }
        }

        func finish(_ k: Int) throws(SinkError) {
            guard let out = outputs[k].format else { return }
            let r = av_write_trailer(out)
            if r < 0 { throw SinkError.ffmpeg(outputs[k].target, "finishing the file failed", r) }
            avio_closep(&out.pointee.pb)
            avformat_free_context(out)
            outputs[k].format = nil
            try AtomicOutput.publish(outputs[k].work, to: outputs[k].target, overwrite: overwrite)
            published.append(Piece(path: outputs[k].target, start: outputs[k].start, pictures: outputs[k].pictures))
        }

        let sortedBoundaries = boundaries.sorted()
        let boundaryTimes = sortedBoundaries.map { source.seconds($0, of: source.video) }
        var current = -1  // the piece the video is in
        var lastAudioPiece = -1
        while true {
            if isStopped() { throw SinkError(path: input, reason: "stopped", kind: .readerClosed) }
            let r = av_read_frame(source.format, pkt)
            if r == VFX_AVERROR_EOF { break }
            if r < 0 { throw SinkError.ffmpeg(input, "cannot read", r) }
            defer { av_packet_unref(pkt) }
            let i = pkt.pointee.stream_index
            if i == source.video {
                let key = pkt.pointee.flags & AV_PKT_FLAG_KEY != 0
                let ts = pkt.pointee.pts != VFX_AV_NOPTS_VALUE ? pkt.pointee.pts : pkt.pointee.dts
                if current < 0 {
                    // Pictures before the first key frame cannot be shown alone: dropped.
                    guard key else { continue }
                    try open(0, at: ts)
                    current = 0
                } else if key, current < sortedBoundaries.count, ts == sortedBoundaries[current] {
                    try open(current + 1, at: ts)
                    current += 1
                    // Audio that came early for this piece.
                    for j in waiting.indices where waiting[j].piece == current {
                        try write(waiting[j].packet!, into: current)
                        av_packet_free(&waiting[j].packet)
                    }
                    waiting.removeAll { $0.packet == nil }
                }
                try write(pkt, into: current)
            } else if source.audio.contains(i) {
                guard pkt.pointee.pts != VFX_AV_NOPTS_VALUE else { continue }
                let t = source.seconds(pkt.pointee.pts, of: i)
                // Which piece by the boundaries' times (known from the first pass).
                let k = CopySplit.count(boundaryTimes.count) { boundaryTimes[$0] <= t + 1e-9 }
                if current < 0 && k == 0 && t < firstKey.time - 1e-9 { continue }  // before the first picture
                lastAudioPiece = max(lastAudioPiece, k)
                if k > current {
                    guard let copy = av_packet_clone(pkt) else { throw SinkError(path: input, reason: "out of memory") }
                    waiting.append((k, copy))
                    // A file whose audio runs far ahead of its video would hold the whole sound here.
                    if waiting.count > 20_000 { throw SinkError(path: input, reason: "its audio runs too far ahead of its video to split by copy") }
                } else {
                    try write(pkt, into: k)
                }
            }
            // Earlier pieces are done once the video and the sound have both moved past them.
            let done = source.audio.isEmpty ? current : min(current, lastAudioPiece)
            while firstIndex < done, !outputs.isEmpty {
                try finish(0)
                outputs.removeFirst()
                firstIndex += 1
            }
        }
        for j in waiting.indices where waiting[j].piece <= current { try write(waiting[j].packet!, into: waiting[j].piece) }
        while !outputs.isEmpty {
            try finish(0)
            outputs.removeFirst()
        }
        return published
    }
}
