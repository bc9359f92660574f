import CFFmpeg
import Glibc
import CPixelKernels
public import FrameCore
public import MediaInput

/// Every picture of a video, in presentation order, each shrunk to a small BGRA image:
/// what content analysis (scene cuts, hashes, histograms) reads. No cadence: picture `n`
/// is the stream's `n`th, with its own time.
///
/// Unlike ``FrameSource`` it neither rotates, tone-maps nor deinterlaces, and its
/// colour conversion is swscale's default (BT.601, limited range), as OpenCV's capture
/// does. By default (``Scaling/openCV``) the pictures are byte for byte those a
/// Python tool gets from `cv2.VideoCapture` and `cv2.resize`, so measures computed on
/// them equal PySceneDetect's.
///
/// ```swift
/// let scanner = try PictureScanner(input: MediaInput("clip.mp4"))
/// while let picture = try scanner.next() { print(picture.tick, picture.time) }
/// ```
/// Use from one thread; only ``stop()`` may be called from others.
public final class PictureScanner: @unchecked Sendable {
    /// How a decoded picture reaches the analysis size.
    public enum Scaling: Sendable, Equatable {
        /// As OpenCV-based tools see it: decoded in full, converted to BGR at its own
        /// size as `cv2.VideoCapture` does (swscale, bicubic flags), then shrunk as
        /// `cv2.resize(..., INTER_LINEAR)` does, byte for byte.
        case openCV
        /// In one swscale step straight from the decoder's YUV, with H.264's loop filter
        /// skipped: about 1.8 times less work, values within a few levels of
        /// ``openCV``'s (scores about 2% apart).
        case direct
    }

    /// What to read and at which size.
    public struct Options: Sendable {
        /// The analysis width; nil follows PySceneDetect 0.7's rule (a picture whose
        /// longer side is over 256 is shrunk to make it 256; smaller pictures keep their size).
        public var width: Int?
        /// Where to start, in seconds on the source timeline.
        public var start = Rational(0)
        /// How long to read from `start`; nil for up to the end.
        public var duration: Rational?
        /// Decode key frames only (one picture a GOP; `tick` is then the key frame's
        /// picture number, counted at the stream's nominal rate).
        public var keyFramesOnly = false
        /// How pictures are shrunk; ``Scaling/openCV`` unless asked.
        public var scaling = Scaling.openCV
        /// Decoding threads (nil: FFmpeg's choice, one per core and one more). One, when
        /// several scanners read pieces of a clip at once.
        public var decoderThreads: Int?
        /// Receives one-line warnings (damaged data skipped, input ending early).
        public var warningHandler: (@Sendable (String) -> Void)?

        /// Defaults: the whole clip at PySceneDetect's analysis size, every picture.
        public init() {}
    }

    /// What the input contains.
    public let info: MediaInfo
    /// The analysis size every picture is scaled to.
    public let width: Int, height: Int
    /// The stream's nominal frame duration (from its average rate), when it has one.
    public let nominalFrameDuration: Rational?

    private let decoder: VideoDecoder
    private let interrupt: InterruptFlag
    private let options: Options
    private var picture: UnsafeMutablePointer<AVFrame>?
    private var sws: OpaquePointer?
    private var swsKey: [Int32] = []
    /// ``Scaling/openCV``'s full-size BGR picture and the resize's two rows.
    private var fullSize: UnsafeMutableRawBufferPointer?
    private var fullStride = 0
    private var resizeRows: [Int32] = []
    /// The first rows of the two-row slices the resize reads (``Scaling/openCV``), when
    /// converting only those gives the same bytes as converting the whole picture:
    /// checked on the first picture of each size and format.
    private var slices: [Int32]?
    private var slicesChecked = false
    /// The right-angle turn ``Scaling/openCV`` gives a rotated video, and the turned picture.
    private let turn: Orientation?
    private var turned: UnsafeMutableRawBufferPointer?
    private var turnedStride = 0

    /// Whether the last picture was converted to BGR only on the rows the resize reads
    /// (for tests: the check on the first picture passed).
    package var convertsReadRowsOnly: Bool { slices != nil && slicesChecked }
    private var index = -1
    private var ended = false
    private let pool = FramePool(capacity: 4)
    /// Set by ``start(atKeyFrameBefore:)``: pictures before it are dropped, and numbers
    /// count from 0 there.
    private var pieceStart: Rational?

    /// Opens the input's video stream.
    /// - Throws: ``FrameSourceError`` naming the input and the cause.
    public init(input: MediaInput, options: Options = Options()) throws(FrameSourceError) {
        var configuration = FrameSource.Configuration()
        configuration.deinterlace = .off
        configuration.start = options.start
        configuration.duration = options.duration
        configuration.warningHandler = options.warningHandler
        configuration.decoderThreads = options.decoderThreads
        try configuration.validate(input: input.location)
        if let width = options.width, !(16...4096).contains(width) {
            throw FrameSourceError(input: input.location, kind: .invalidConfiguration, reason: "analysis width must be 16…4096 (got \(width))")
        }
        self.options = options
        interrupt = InterruptFlag(timeout: input.network.timeout)
        decoder = try VideoDecoder(input: input, configuration: configuration, interrupt: interrupt)
        decoder.keyFramesOnly = options.keyFramesOnly
        decoder.loopFilter = options.scaling == .openCV
        info = decoder.info
        nominalFrameDuration = decoder.nominalDuration
        let (w, h) = (max(1, decoder.info.video.codedWidth), max(1, decoder.info.video.codedHeight))
        // OpenCV's capture turns the picture upright by its rotation (not its mirror)
        // before anything measures it.
        turn = options.scaling == .openCV && decoder.orientation.rotation != 0 ? Orientation(rotation: decoder.orientation.rotation, mirrored: false) : nil
        let shown = turn?.swapsAxes == true ? (h, w) : (w, h)
        (width, height) = PictureScanner.analysisSize(width: shown.0, height: shown.1, requested: options.width)
        picture = av_frame_alloc()
        if options.start > Rational(0) { _ = decoder.seek(toSeconds: options.start) }
    }

    deinit {
        av_frame_free(&picture)
        sws_freeContext(sws)
        fullSize?.deallocate()
        turned?.deallocate()
    }

    /// PySceneDetect 0.7's analysis size: a picture whose longer side is 256 or more is
    /// divided by that side ÷ 256 (each side rounded), so a portrait picture is 256 high;
    /// with `requested`, a width: the picture is divided by `width / requested`.
    public static func analysisSize(width: Int, height: Int, requested: Int?) -> (Int, Int) {
        let factor: Double
        if let requested {
            guard width != requested else { return (width, height) }
            factor = Double(width) / Double(requested)
        } else {
            let longer = max(width, height)
            guard longer > 256 else { return (width, height) }
            factor = Double(longer) / 256
        }
        return (max(1, Int((Double(width) / factor).rounded())), max(1, Int((Double(height) / factor).rounded())))
    }

    /// Reads from the last key frame at or before `seconds` (source timeline) instead,
    /// before the first picture is read: a piece of the clip that decodes exactly as it
    /// does from the top, for a key frame begins it. ``next()`` then numbers pictures
    /// from 0 at the key frame and drops any shown before it (they belong to the piece
    /// before). Returns the key frame's time, or nil when the input cannot say it.
    public func start(atKeyFrameBefore seconds: Rational) -> Rational? {
        guard index < 0, !ended, !options.keyFramesOnly, decoder.seek(toSeconds: seconds, fromKeyFrame: true), let at = decoder.landedAt else { return nil }
        pieceStart = at
        return at
    }

    /// Asks ``next()`` to return nil; safe from any thread (a signal handler's task).
    public func stop() { interrupt.requestStop() }

    /// The next picture, scaled: `tick` is its number in the stream (from 0), `time` and
    /// `sourceTime` its presentation time. Nil at the end, or after ``stop()``.
    public func next() throws(FrameSourceError) -> Frame? {
        guard !ended, let picture else { return nil }
        while true {
            guard try decoder.decode(into: picture), !interrupt.stopRequested else { ended = true; return nil }
            let t = decoder.time(of: picture)
            if let pieceStart {
                // A piece: every picture from its key frame on, counted from 0 there.
                if t < pieceStart { continue }
                index += 1
            } else {
                if let nominal = nominalFrameDuration, (t - options.start).seconds < -nominal.seconds / 2 { continue }  // before the start: the seek's lead-in
                if nominalFrameDuration == nil, t < options.start { continue }
                if let duration = options.duration, t >= options.start + duration { ended = true; return nil }
                // Picture numbers count from 0 at the top; past a seek, and for key frames,
                // they are counted at the nominal rate (exact for constant-rate video).
                func number(at t: Rational) -> Int {
                    nominalFrameDuration.map { Int((t.seconds / $0.seconds).rounded()) } ?? index + 1
                }
                if index < 0 { index = options.start == Rational(0) && !options.keyFramesOnly ? 0 : number(at: t) }
                else if options.keyFramesOnly { index = max(index + 1, number(at: t)) }
                else { index += 1 }
            }
            var frame = try scale(picture)
            frame.tick = Int64(index)
            frame.time = t
            frame.sourceTime = t
            return frame
        }
    }

    /// One decoded picture to BGRA at the analysis size.
    private func scale(_ p: UnsafeMutablePointer<AVFrame>) throws(FrameSourceError) -> Frame {
        let (w, h) = (Int(p.pointee.width), Int(p.pointee.height))
        // With .openCV, a picture already at the analysis size is OpenCV's BGR as is.
        let throughBGR = options.scaling == .openCV && ((w, h) != (width, height) || turn != nil)
        let key = [p.pointee.width, p.pointee.height, p.pointee.format]
        if key != swsKey {
            sws_freeContext(sws)
            sws = switch options.scaling {
            case .openCV:
                // OpenCV's capture: BGR at the picture's own size, bicubic flags (which
                // matter only where swscale must scale chroma, e.g. odd heights).
                sws_getContext(p.pointee.width, p.pointee.height, AVPixelFormat(rawValue: p.pointee.format),
                               p.pointee.width, p.pointee.height, throughBGR ? AV_PIX_FMT_BGR24 : AV_PIX_FMT_BGRA,
                               Int32(SWS_BICUBIC), nil, nil, nil)
            case .direct:
                // Two taps each way, as OpenCV's INTER_LINEAR samples when it shrinks.
                sws_getContext(p.pointee.width, p.pointee.height, AVPixelFormat(rawValue: p.pointee.format),
                               Int32(width), Int32(height), AV_PIX_FMT_BGRA, Int32(SWS_FAST_BILINEAR), nil, nil, nil)
            }
            swsKey = key
            fullSize?.deallocate()
            fullSize = nil
            slices = nil
            slicesChecked = false
            if throughBGR {
                fullStride = (w * 3 + 63) & ~63
                fullSize = UnsafeMutableRawBufferPointer.allocate(byteCount: fullStride * h, alignment: 64)
                resizeRows = [Int32](repeating: 0, count: 8 * width)
                if turn == nil {
                    slices = PictureScanner.slices(format: p.pointee.format, width: w, height: h, toWidth: width, toHeight: height)
                }
            }
            turned?.deallocate()
            turned = nil
            if let turn, throughBGR {
                let (tw, th) = turn.swapsAxes ? (h, w) : (w, h)
                turnedStride = (tw * 3 + 63) & ~63
                turned = UnsafeMutableRawBufferPointer.allocate(byteCount: turnedStride * th, alignment: 64)
            }
        }
        guard let sws else {
            throw FrameSourceError(input: decoder.input, kind: .decodeFailed, reason: "cannot convert a \(w)x\(h) picture")
        }
        var frame = Frame(width: width, height: height, pool: pool)
        let stride = frame.bytesPerRow
        frame.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) in
            let target = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
            if throughBGR, let fullSize {
                let bgr = fullSize.baseAddress!.assumingMemoryBound(to: UInt8.self)
                if let slices, !slicesChecked {
                    // Whole, then only the slices over a cleared copy: the rows read must agree.
                    slicesChecked = true
                    convert(p, with: sws, into: bgr, stride: fullStride)
                    let whole = UnsafeMutableRawBufferPointer.allocate(byteCount: fullSize.count, alignment: 64)
                    defer { whole.deallocate() }
                    whole.copyMemory(from: UnsafeRawBufferPointer(fullSize))
                    fullSize.initializeMemory(as: UInt8.self, repeating: 0)
                    convert(p, with: sws, into: bgr, stride: fullStride, slices: slices)
                    let rowBytes = w * 3
                    let same = slices.allSatisfy { first in
                        (Int(first)..<Int(first) + 2).allSatisfy { row in
                            memcmp(whole.baseAddress! + row * fullStride, fullSize.baseAddress! + row * fullStride, rowBytes) == 0
                        }
                    }
                    if !same { self.slices = nil }
                } else {
                    convert(p, with: sws, into: bgr, stride: fullStride, slices: slices)
                }
                var (source, sourceStride, sw, sh) = (UnsafePointer(bgr), fullStride, w, h)
                if let turn, let turned {
                    let walk = turn.walk(width: w, height: h)
                    let out = turned.baseAddress!.assumingMemoryBound(to: UInt8.self)
                    vfx_walk_bgr(bgr, fullStride, walk.x0, walk.y0, walk.xx, walk.xy, walk.yx, walk.yy, out, turnedStride,
                                 Int32(walk.out_width), Int32(walk.out_height))
                    (source, sourceStride, sw, sh) = (UnsafePointer(out), turnedStride, walk.out_width, walk.out_height)
                }
                resizeRows.withUnsafeMutableBufferPointer { rows in
                    vfx_resize_bgr_linear(source, sourceStride, Int32(sw), Int32(sh), target, stride, Int32(width), Int32(height), rows.baseAddress)
                }
            } else {
                convert(p, with: sws, into: target, stride: stride)
            }
        }
        return frame
    }

    /// Converts the picture whole, or only the two-row slices starting at `slices`
    /// (each written at its own rows of `target`).
    private func convert(_ p: UnsafeMutablePointer<AVFrame>, with sws: OpaquePointer, into target: UnsafeMutablePointer<UInt8>, stride: Int,
                         slices: [Int32]? = nil) {
        var dst: [UnsafeMutablePointer<UInt8>?] = [target, nil, nil, nil]
        var dstStride: [Int32] = [Int32(stride), 0, 0, 0]
        withUnsafePointer(to: &p.pointee.data) { dataTuple in
            dataTuple.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { src in
                withUnsafePointer(to: &p.pointee.linesize) { lsTuple in
                    lsTuple.withMemoryRebound(to: Int32.self, capacity: 8) { ls in
                        guard let slices else {
                            _ = sws_scale(sws, src, ls, 0, p.pointee.height, &dst, &dstStride)
                            return
                        }
                        for first in slices {
                            // The slice's planes: luma from its first row, chroma from half of it (4:2:0).
                            let planes: [UnsafePointer<UInt8>?] = [src[0].map { $0 + Int(first) * Int(ls[0]) },
                                                                   src[1].map { $0 + Int(first / 2) * Int(ls[1]) },
                                                                   src[2].map { $0 + Int(first / 2) * Int(ls[2]) }, nil]
                            _ = sws_scale(sws, planes, ls, first, 2, &dst, &dstStride)
                        }
                    }
                }
            }
        }
    }

    /// The slices to convert for `.openCV` scaling: two rows each, from an even row, in
    /// order, from the top row to the bottom one (swscale takes a frame's slices from
    /// its top, and ends the frame at its last row). Only for 4:2:0 8-bit pictures of an
    /// even height, which swscale converts to BGR without scaling (row by row); nil
    /// for the others, which are converted whole.
    static func slices(format: Int32, width: Int, height: Int, toWidth: Int, toHeight: Int) -> [Int32]? {
        guard format == AV_PIX_FMT_YUV420P.rawValue || format == AV_PIX_FMT_YUVJ420P.rawValue, height % 2 == 0, height >= 4 else { return nil }
        var needed = [UInt8](repeating: 0, count: height)
        vfx_resize_source_rows(Int32(width), Int32(height), Int32(toWidth), Int32(toHeight), &needed)
        needed[0] = 1
        needed[height - 1] = 1
        var starts: [Int32] = []
        for row in stride(from: 0, to: height, by: 2) where needed[row] != 0 || needed[row + 1] != 0 { starts.append(Int32(row)) }
        // Worth it only when it skips a good part of the picture.
        return starts.count * 2 <= height * 3 / 4 ? starts : nil
    }
}
