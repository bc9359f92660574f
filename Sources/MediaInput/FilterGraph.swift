package import CFFmpeg
import CFFmpegShim
import Foundation

/// One libavfilter graph between buffer sources and a buffer sink, for pictures of
/// one format and size: where libavfilter is the reference (zscale + tonemap for HDR,
/// bwdif to deinterlace, palettegen + paletteuse for GIF). Owned by one thread.
package final class FilterGraph {
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var sources: [UnsafeMutablePointer<AVFilterContext>?] = []
    private var sink: UnsafeMutablePointer<AVFilterContext>?
    /// The chain as given, for messages.
    package let description: String

    /// Builds `chain` (libavfilter's syntax) for pictures like `frame`, whose
    /// timestamps count `timeBase`. Runs single-threaded unless `threads` says otherwise.
    package convenience init(_ chain: String, for frame: UnsafePointer<AVFrame>, timeBase: AVRational, threads: Int32 = 1)
        throws(FilterGraphError) {
        try self.init(chain, inputs: [("in", frame, timeBase)], threads: threads)
    }

    /// Builds `chain`, whose inputs are labelled as `inputs` name them (`[in][pal]…`),
    /// each for pictures like its frame with timestamps counting its time base; the
    /// chain's output is labelled `out`.
    package convenience init(_ chain: String, inputs: [(label: String, frame: UnsafePointer<AVFrame>, timeBase: AVRational)],
                             threads: Int32 = 1) throws(FilterGraphError) {
        let sources = inputs.map { input in
            let frame = input.frame, timeBase = input.timeBase
            let sar = frame.pointee.sample_aspect_ratio
            let args = "video_size=\(frame.pointee.width)x\(frame.pointee.height):pix_fmt=\(frame.pointee.format)"
                + ":time_base=\(timeBase.num)/\(max(1, timeBase.den)):pixel_aspect=\(max(0, sar.num))/\(max(1, sar.den))"
            return (label: input.label, args: args)
        }
        try self.init(chain, sources: sources, source: "buffer", sink: "buffersink", threads: threads)
    }

    /// Builds `chain` for sound of `format` (an `AVSampleFormat`'s value) at `sampleRate`
    /// in `channels` channels (their default layout), from input `in` to output `out`.
    package convenience init(audio chain: String, sampleRate: Int32, format: Int32, channels: Int32) throws(FilterGraphError) {
        var layout = AVChannelLayout()
        av_channel_layout_default(&layout, channels)
        var name = [CChar](repeating: 0, count: 64)
        av_channel_layout_describe(&layout, &name, name.count)
        let args = "sample_rate=\(sampleRate):sample_fmt=\(String(cString: av_get_sample_fmt_name(AVSampleFormat(rawValue: format))))"
            + ":channel_layout=\(String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)):time_base=1/\(sampleRate)"
        try self.init(chain, sources: [("in", args)], source: "abuffer", sink: "abuffersink", threads: 1)
    }

    private init(_ chain: String, sources inputs: [(label: String, args: String)], source: String, sink sinkName: String,
                 threads: Int32) throws(FilterGraphError) {
        description = chain
        if let failure = OnDemandLibrary.filters.load() { throw FilterGraphError(chain: chain, reason: failure) }
        guard let graph = avfilter_graph_alloc() else { throw FilterGraphError(chain: chain, reason: "out of memory") }
        self.graph = graph
        graph.pointee.nb_threads = threads
        var r: Int32 = 0
        for input in inputs {
            var made: UnsafeMutablePointer<AVFilterContext>?
            r = avfilter_graph_create_filter(&made, avfilter_get_by_name(source), input.label, input.args, nil, graph)
            guard r >= 0 else { throw FilterGraphError(chain: chain, code: r) }
            sources.append(made)
        }
        r = avfilter_graph_create_filter(&sink, avfilter_get_by_name(sinkName), "out", nil, nil, graph)
        guard r >= 0 else { throw FilterGraphError(chain: chain, code: r) }

        // parse_ptr takes these over: what it links it frees, what is left it hands back.
        // The sources' outputs are one linked list, in the inputs' order.
        var o: UnsafeMutablePointer<AVFilterInOut>?
        for (index, input) in inputs.enumerated().reversed() {
            guard let entry = avfilter_inout_alloc() else {
                avfilter_inout_free(&o)
                throw FilterGraphError(chain: chain, reason: "out of memory")
            }
            entry.pointee.name = av_strdup(input.label)
            entry.pointee.filter_ctx = sources[index]
            entry.pointee.next = o
            o = entry
        }
        var i: UnsafeMutablePointer<AVFilterInOut>? = avfilter_inout_alloc()
        guard let sinkEntry = i else {
            avfilter_inout_free(&o)
            throw FilterGraphError(chain: chain, reason: "out of memory")
        }
        sinkEntry.pointee.name = av_strdup("out")
        sinkEntry.pointee.filter_ctx = sink
        r = avfilter_graph_parse_ptr(graph, chain, &i, &o, nil)
        self.leftover = (i, o)
        guard r >= 0 else { throw FilterGraphError(chain: chain, code: r) }
        r = avfilter_graph_config(graph, nil)
        guard r >= 0 else { throw FilterGraphError(chain: chain, code: r) }
    }

    private var leftover: (UnsafeMutablePointer<AVFilterInOut>?, UnsafeMutablePointer<AVFilterInOut>?) = (nil, nil)

    deinit {
        // No graph: libavfilter may not have loaded, and there is nothing to free.
        guard graph != nil else { return }
        avfilter_inout_free(&leftover.0)
        avfilter_inout_free(&leftover.1)
        avfilter_graph_free(&graph)
    }

    /// Hands `frame` to the chain's input `input` (its reference is taken over and
    /// `frame` left blank); nil ends that input so that the chain gives up what it held back.
    package func push(_ frame: UnsafeMutablePointer<AVFrame>?, to input: Int = 0) throws(FilterGraphError) {
        let r = av_buffersrc_add_frame_flags(sources[input], frame, 0)
        guard r >= 0 else { throw FilterGraphError(chain: description, code: r) }
    }

    /// The next picture out of the chain into `frame` (unreferenced first: the sink
    /// moves its picture in over whatever `frame` held): true when there was one,
    /// false when the chain needs more input or has ended.
    package func pull(into frame: UnsafeMutablePointer<AVFrame>) throws(FilterGraphError) -> Bool {
        av_frame_unref(frame)
        let r = av_buffersink_get_frame(sink, frame)
        if r >= 0 { return true }
        if r == VFX_AVERROR_EAGAIN || r == VFX_AVERROR_EOF { return false }
        throw FilterGraphError(chain: description, code: r)
    }
}

/// A libavfilter chain that could not be built or run.
package struct FilterGraphError: Error {
    package var chain: String
    package var reason: String

    package init(chain: String, reason: String) {
        self.chain = chain
        self.reason = reason
    }

    package init(chain: String, code: Int32) {
        self.init(chain: chain, reason: FFmpegErrorText.last ?? FFmpegErrorText.message(code))
    }
}

/// FFmpeg's error text: the calling thread's last error line, as FrameSource's log sink
/// keeps it, and the text of an error code.
package enum FFmpegErrorText {
    /// Where the log sink keeps each thread's last error line.
    package static let threadKey = "vidfx.ffmpeg.lastError"

    /// The calling thread's last error line from FFmpeg, if any.
    package static var last: String? { Thread.current.threadDictionary[threadKey] as? String }

    /// What an FFmpeg error code means.
    package static func message(_ code: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 128)
        buffer.withUnsafeMutableBufferPointer { b in
            vfx_err2str(code, UnsafeMutableRawPointer(b.baseAddress!).assumingMemoryBound(to: CChar.self), b.count)
        }
        return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
    }
}
