import CFFmpeg
import CFFmpegShim
public import FrameCore
import MediaInput

/// The size a photo is written at (`apply photo.jpg --size 1280x720 -o small.jpg`),
/// scaled with Lanczos by libavfilter's `scale`. A photo can be any size, so `fit` keeps
/// the picture's shape inside the box with no bars (the box's width or height is met);
/// `fill` covers the box and crops the middle; `stretch` gives the box exactly.
public struct PhotoSize: Sendable, Equatable {
    /// The box, in pixels.
    public var width: Int
    public var height: Int
    /// How the picture meets it.
    public var fit: EncoderSink.Fit

    /// A box of `width`×`height` met as `fit` says.
    public init(width: Int, height: Int, fit: EncoderSink.Fit) {
        (self.width, self.height, self.fit) = (width, height, fit)
    }

    /// The scale (and crop) filters.
    var filter: String {
        switch fit {
        case .fit: "scale=\(width):\(height):force_original_aspect_ratio=decrease:flags=lanczos"
        case .fill: "scale=\(width):\(height):force_original_aspect_ratio=increase:flags=lanczos,crop=\(width):\(height)"
        case .stretch: "scale=\(width):\(height):flags=lanczos"
        }
    }

    /// `frame` at this size (its timing and observations, scaled, kept).
    public func apply(to frame: Frame) throws(SinkError) -> Frame {
        var slot: UnsafeMutablePointer<AVFrame>?
        defer { av_frame_free(&slot) }
        let picture = try GIFFrames.picture(of: frame, pts: 0, reusing: &slot)
        guard let pulled = av_frame_alloc() else { throw SinkError(path: "scale", reason: "out of memory") }
        defer { var p: UnsafeMutablePointer<AVFrame>? = pulled; av_frame_free(&p) }
        do {
            let graph = try FilterGraph(filter + ",format=bgra", for: picture, timeBase: AVRational(num: 1, den: 1))
            try graph.push(picture)
            try graph.push(nil)
            guard try graph.pull(into: pulled) else { throw SinkError(path: "scale", reason: "\(filter) gave no picture") }
        } catch let error as FilterGraphError {
            throw SinkError(path: "scale", reason: "\(error.chain): \(error.reason)")
        } catch let error as SinkError {
            throw error
        } catch {
            throw SinkError(path: "scale", reason: "\(error)")
        }
        let (w, h) = (Int(pulled.pointee.width), Int(pulled.pointee.height))
        var out = Frame(width: w, height: h)
        out.tick = frame.tick
        out.time = frame.time
        out.sourceTime = frame.sourceTime
        out.pass = frame.pass
        out.observations = frame.observations.map { $0.scaled(x: Double(w) / Double(frame.width), y: Double(h) / Double(frame.height)) }
        guard let data = vfx_frame_plane(pulled, 0) else { throw SinkError(path: "scale", reason: "\(filter) gave an empty picture") }
        let stride = Int(vfx_frame_linesize(pulled, 0)), rowBytes = w * 4, outStride = out.bytesPerRow
        out.withUnsafeMutableBytes { b in
            for y in 0..<h { (b.baseAddress! + y * outStride).copyMemory(from: data + y * stride, byteCount: rowBytes) }
        }
        return out
    }
}
