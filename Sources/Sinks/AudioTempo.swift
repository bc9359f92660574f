import CFFmpeg
import FrameCore
import MediaInput

/// The sound played faster or slower at its own pitch, for `--speed`: libavfilter's
/// `atempo` (WSOLA), chained in steps of at most 2× or at least ½×, as its
/// documentation advises, so no step drops samples. Sits between the decoder's
/// resampled samples and the encoder's queue; one pass of the clip at a time.
final class AudioTempo {
    private let chain: String
    private let sampleRate: Int32
    private let format: Int32
    private let channels: Int32
    private let input: String
    private var graph: FilterGraph?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var pts: Int64 = 0

    /// `atempo` steps for `speed` (¼…8).
    static func chain(for speed: Rational) -> String {
        var left = speed.seconds, steps: [String] = []
        while left > 2 { steps.append("atempo=2"); left /= 2 }
        while left < 0.5 { steps.append("atempo=0.5"); left /= 0.5 }
        steps.append("atempo=\(left)")
        return steps.joined(separator: ",")
    }

    init(speed: Rational, sampleRate: Int32, format: AVSampleFormat, channels: Int32, input: String) throws(SinkError) {
        chain = Self.chain(for: speed)
        self.sampleRate = sampleRate
        self.format = format.rawValue
        self.channels = channels
        self.input = input
        frame = av_frame_alloc()
        guard frame != nil else { throw SinkError(path: input, reason: "out of memory") }
    }

    deinit { av_frame_free(&frame) }

    private func built() throws(SinkError) -> FilterGraph {
        if let graph { return graph }
        do {
            let made = try FilterGraph(audio: chain, sampleRate: sampleRate, format: format, channels: channels)
            graph = made
            pts = 0
            return made
        } catch { throw SinkError(path: input, reason: "\(error.chain): \(error.reason)") }
    }

    /// Plays `count` samples (planes as the encoder lays them out) through the tempo,
    /// and queues what comes out in `fifo`.
    func push(_ planes: UnsafeMutablePointer<UnsafeMutableRawPointer?>, count: Int32, into fifo: OpaquePointer?) throws(SinkError) {
        let graph = try built()
        guard let f = frame else { return }
        av_frame_unref(f)
        f.pointee.nb_samples = count
        f.pointee.format = format
        f.pointee.sample_rate = sampleRate
        av_channel_layout_default(&f.pointee.ch_layout, channels)
        f.pointee.pts = pts
        pts += Int64(count)
        guard av_frame_get_buffer(f, 0) >= 0 else { throw SinkError(path: input, reason: "out of memory") }
        let data = withUnsafeBytes(of: f.pointee.extended_data) { $0.load(as: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?.self) }
        let planar = av_sample_fmt_is_planar(AVSampleFormat(rawValue: format)) != 0
        planes.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: planar ? Int(channels) : 1) { source in
            _ = av_samples_copy(data, source, 0, 0, count, channels, AVSampleFormat(rawValue: format))
        }
        do { try graph.push(f) } catch { throw SinkError(path: input, reason: error.reason) }
        try drain(graph, into: fifo)
    }

    /// Ends the pass: what the tempo held back goes to `fifo`, and the next sample
    /// pushed starts a new pass.
    func flush(into fifo: OpaquePointer?) throws(SinkError) {
        guard let graph else { return }
        do { try graph.push(nil) } catch { throw SinkError(path: input, reason: error.reason) }
        try drain(graph, into: fifo)
        self.graph = nil
    }

    /// Forgets the pass (a rewind).
    func reset() { graph = nil }

    private func drain(_ graph: FilterGraph, into fifo: OpaquePointer?) throws(SinkError) {
        guard let f = frame else { return }
        while true {
            let got: Bool
            do { got = try graph.pull(into: f) } catch { throw SinkError(path: input, reason: error.reason) }
            guard got else { return }
            let data = withUnsafeBytes(of: f.pointee.extended_data) { $0.load(as: UnsafeMutablePointer<UnsafeMutableRawPointer?>?.self) }
            _ = av_audio_fifo_write(fifo, data, f.pointee.nb_samples)
            av_frame_unref(f)
        }
    }
}
