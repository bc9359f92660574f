import CFFmpeg
public import FrameCore
import MediaInput

/// The first pass of a GIF: every frame through libavfilter's `palettegen` (the
/// histogram of the whole clip, or of each scene), whose 256 colours ``GIFSink`` then
/// maps the frames to. Memory stays flat: only the histogram grows, and that is bounded.
public final class GIFPaletteSink: FrameSink {
    private let size: (width: Int, height: Int)?
    private let sceneStarts: Set<Int64>
    private var graph: FilterGraph?
    private var picture: UnsafeMutablePointer<AVFrame>?
    /// The palettes (16×16 BGRA each) and the frame each is first used for, in order,
    /// once ``finish()`` has run: one, or one per scene.
    private(set) var palettes: [(first: Int64, palette: UnsafeMutablePointer<AVFrame>)] = []
    /// The first frame of the palette being counted.
    private var first: Int64 = 0
    private var count: Int64 = 0

    /// A palette pass for frames scaled to `size` first when given (as the GIF will be).
    /// - Parameters:
    ///   - size: the GIF's size (nil: as the frames come).
    ///   - sceneStarts: the frames (counted from 0) that start a scene: each scene gets a
    ///     palette of its own, counted over its frames alone. Empty: one for the clip.
    public init(size: (width: Int, height: Int)? = nil, sceneStarts: Set<Int64> = []) {
        self.size = size
        self.sceneStarts = sceneStarts
    }

    deinit {
        av_frame_free(&picture)
        for (_, palette) in palettes { var held: UnsafeMutablePointer<AVFrame>? = palette; av_frame_free(&held) }
    }

    /// "palette".
    public var name: String { "palette" }

    /// How many palettes ``finish()`` made.
    public var paletteCount: Int { palettes.count }

    /// Counts the frame's colours (into a new palette when it starts a scene).
    public func write(_ frame: Frame) throws(SinkError) -> Bool {
        if count > 0, sceneStarts.contains(count), graph != nil {
            try endPalette()
            first = count
        }
        let p = try GIFFrames.picture(of: frame, pts: count - first, reusing: &picture)
        if graph == nil {
            do {
                graph = try FilterGraph((GIFFrames.scale(size).map { $0 + "," } ?? "") + "palettegen=stats_mode=full", for: p,
                                        timeBase: AVRational(num: 1, den: 30))
            } catch { throw SinkError(path: "palette", reason: "\(error.chain): \(error.reason)") }
        }
        do { try graph?.push(p) } catch { throw SinkError(path: "palette", reason: error.reason) }
        count += 1
        return true
    }

    /// Computes the last palette.
    public func finish() throws(SinkError) {
        guard graph != nil else { throw SinkError(path: "palette", reason: "no frames to make a palette from") }
        try endPalette()
    }

    /// Ends the graph counting since `first` and keeps its palette.
    private func endPalette() throws(SinkError) {
        guard let graph else { return }
        guard let allocated = av_frame_alloc() else { throw SinkError(path: "palette", reason: "out of memory") }
        var out: UnsafeMutablePointer<AVFrame>? = allocated
        var made = false
        do {
            try graph.push(nil)
            made = try graph.pull(into: allocated)
        } catch {
            av_frame_free(&out)
            throw SinkError(path: "palette", reason: error.reason)
        }
        guard made else {
            av_frame_free(&out)
            throw SinkError(path: "palette", reason: "palettegen gave no palette")
        }
        palettes.append((first, allocated))
        self.graph = nil
    }

    /// Drops what was counted.
    public func abandon() { graph = nil }
}

/// Pictures for the GIF passes' filter graphs.
enum GIFFrames {
    /// `frame`'s pixels in an AVFrame (BGRA), kept in `reusing` between calls.
    static func picture(of frame: Frame, pts: Int64, reusing slot: inout UnsafeMutablePointer<AVFrame>?)
        throws(SinkError) -> UnsafeMutablePointer<AVFrame> {
        if slot == nil { slot = av_frame_alloc() }
        guard let p = slot else { throw SinkError(path: "gif", reason: "out of memory") }
        // A new buffer each time: the graph keeps references to the ones it was given.
        av_frame_unref(p)
        p.pointee.format = AV_PIX_FMT_BGRA.rawValue
        p.pointee.width = Int32(frame.width)
        p.pointee.height = Int32(frame.height)
        guard av_frame_get_buffer(p, 0) >= 0, let data = vfx_frame_plane(p, 0) else {
            throw SinkError(path: "gif", reason: "out of memory")
        }
        let stride = Int(vfx_frame_linesize(p, 0)), row = frame.width * 4
        frame.withUnsafeBytes { b in
            for y in 0..<frame.height {
                (data + y * stride).update(from: b.baseAddress!.assumingMemoryBound(to: UInt8.self) + y * frame.bytesPerRow, count: row)
            }
        }
        p.pointee.pts = pts
        return p
    }

    /// The scale filter fitting the picture inside `size` with its shape kept (no bars:
    /// a GIF can be any size), Lanczos as the usual GIF recipe; nil for none.
    static func scale(_ size: (width: Int, height: Int)?) -> String? {
        size.map { "scale=\($0.width):\($0.height):force_original_aspect_ratio=decrease:flags=lanczos" }
    }
}
