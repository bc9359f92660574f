import CFFmpeg
import CFFmpegShim
import FrameCore

/// One libavfilter chain between a buffer source and a buffer sink, for pictures of
/// one format and size: where libavfilter is the reference (zscale + tonemap for HDR,
/// bwdif to deinterlace). Owned by one thread.
final class FilterGraph {
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var source: UnsafeMutablePointer<AVFilterContext>?
    private var sink: UnsafeMutablePointer<AVFilterContext>?
    /// The chain as given, for messages.
    let description: String

    /// Builds `chain` (libavfilter's syntax) for pictures like `frame`, whose
    /// timestamps count `timeBase`. Runs single-threaded unless `threads` says otherwise.
    init(_ chain: String, for frame: UnsafePointer<AVFrame>, timeBase: AVRational, threads: Int32 = 1) throws(FilterGraphError) {
        description = chain
        if let failure = OnDemandLibrary.filters.load() { throw FilterGraphError(chain: chain, reason: failure) }
        guard let graph = avfilter_graph_alloc() else { throw FilterGraphError(chain: chain, reason: "out of memory") }
        self.graph = graph
        graph.pointee.nb_threads = threads
        let sar = frame.pointee.sample_aspect_ratio
        let args = "video_size=\(frame.pointee.width)x\(frame.pointee.height):pix_fmt=\(frame.pointee.format)"
            + ":time_base=\(timeBase.num)/\(max(1, timeBase.den)):pixel_aspect=\(max(0, sar.num))/\(max(1, sar.den))"
        var r = avfilter_graph_create_filter(&source, avfilter_get_by_name("buffer"), "in", args, nil, graph)
        guard r >= 0 else { throw FilterGraphError(chain: chain, code: r) }
        r = avfilter_graph_create_filter(&sink, avfilter_get_by_name("buffersink"), "out", nil, nil, graph)
        guard r >= 0 else { throw FilterGraphError(chain: chain, code: r) }

        // parse_ptr takes these over: what it links it frees, what is left it hands back.
        var o: UnsafeMutablePointer<AVFilterInOut>? = avfilter_inout_alloc()
        var i: UnsafeMutablePointer<AVFilterInOut>? = avfilter_inout_alloc()
        guard let outputs = o, let inputs = i else {
            avfilter_inout_free(&o)
            avfilter_inout_free(&i)
            throw FilterGraphError(chain: chain, reason: "out of memory")
        }
        outputs.pointee.name = av_strdup("in")
        outputs.pointee.filter_ctx = source
        inputs.pointee.name = av_strdup("out")
        inputs.pointee.filter_ctx = sink
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

    /// Hands `frame` to the chain (its reference is taken over and `frame` left blank);
    /// nil ends the stream so that the chain gives up what it held back.
    func push(_ frame: UnsafeMutablePointer<AVFrame>?) throws(FilterGraphError) {
        let r = av_buffersrc_add_frame_flags(source, frame, 0)
        guard r >= 0 else { throw FilterGraphError(chain: description, code: r) }
    }

    /// The next picture out of the chain into `frame` (unreferenced first: the sink
    /// moves its picture in over whatever `frame` held): true when there was one,
    /// false when the chain needs more input or has ended.
    func pull(into frame: UnsafeMutablePointer<AVFrame>) throws(FilterGraphError) -> Bool {
        av_frame_unref(frame)
        let r = av_buffersink_get_frame(sink, frame)
        if r >= 0 { return true }
        if r == VFX_AVERROR_EAGAIN || r == VFX_AVERROR_EOF { return false }
        throw FilterGraphError(chain: description, code: r)
    }
}

/// A libavfilter chain that could not be built or run.
struct FilterGraphError: Error {
    var chain: String
    var reason: String

    init(chain: String, reason: String) {
        self.chain = chain
        self.reason = reason
    }

    init(chain: String, code: Int32) {
        self.init(chain: chain, reason: FFmpegLog.lastError() ?? FFmpegLog.message(code))
    }
}
