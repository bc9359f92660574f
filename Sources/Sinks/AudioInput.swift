import CFFmpeg
import CFFmpegShim

/// Opening an input for its audio, beside the video reader of the same input.
enum AudioInput {
    /// Opens `input` (path, URL, or `-`). Standard input is read through the spool it
    /// shares with the video reader (`FrameSource.Configuration.spoolStandardInput`):
    /// `customIO` then holds the reader, to free with ``close(_:customIO:)``. Every read
    /// of it polls `stop` (which must outlive the reader), however the input is read.
    static func open(_ input: String, options: [(String, String)], stop: StopSignal?,
                     customIO: inout UnsafeMutableRawPointer?) throws(SinkError) -> UnsafeMutablePointer<AVFormatContext> {
        var format = avformat_alloc_context()
        guard let ctx = format else { throw SinkError(path: input, reason: "out of memory") }
        let poll = stop == nil ? nil : StopSignal.poll
        let opaque = stop?.opaque
        ctx.pointee.interrupt_callback = AVIOInterruptCB(callback: poll, opaque: opaque)
        if input == "-" {
            guard let io = vfx_stdin_reader(poll, opaque) else {
                avformat_free_context(ctx)
                throw SinkError(path: input, reason: "cannot keep standard input for its audio: no temporary file")
            }
            customIO = io
            ctx.pointee.pb = io.assumingMemoryBound(to: AVIOContext.self)
            ctx.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        } else if let io = vfx_shared_join(input, poll, nil, opaque) {
            // The video reader's download of this URL (`shareNetworkInput`): read it
            // from there instead of downloading the input a second time.
            customIO = io
            ctx.pointee.pb = io.assumingMemoryBound(to: AVIOContext.self)
            ctx.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        }
        var dict: OpaquePointer?
        defer { av_dict_free(&dict) }
        for (key, value) in options {
            av_dict_set(&dict, key, value, 0)
            // Set on the context as well: a custom reader carries no whitelist for the
            // demuxer to inherit, and this one decides what a playlist may open.
            if key == "protocol_whitelist" { ctx.pointee.protocol_whitelist = av_strdup(value) }
        }
        let r = avformat_open_input(&format, input == "-" ? "" : input, nil, &dict)  // frees the context on failure
        guard r >= 0, let opened = format else {
            vfx_reader_free(customIO)  // a custom reader is the caller's to free
            customIO = nil
            throw SinkError.ffmpeg(input, "cannot open for audio", r)
        }
        return opened
    }

    /// Closes what ``open(_:options:customIO:)`` opened.
    static func close(_ format: inout UnsafeMutablePointer<AVFormatContext>?, customIO: inout UnsafeMutableRawPointer?) {
        avformat_close_input(&format)
        vfx_reader_free(customIO)
        customIO = nil
    }
}
