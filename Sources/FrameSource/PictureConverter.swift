import CFFmpeg
import CFFmpegShim
import CPixelKernels
import FrameCore
import Foundation

/// Turns decoded pictures into upright, square-pixel BGRA frames: libswscale for
/// the colour conversion (with the stream's matrix and range) and pixel-aspect
/// scaling, or the tone map for HDR pictures; then a right-angle rotation / mirror
/// pass when the container asks (the tone map's table stores each pixel at its turned
/// place itself, with no pass after).
final class PictureConverter {
    private struct Key: Equatable {
        var width: Int32, height: Int32, format: Int32
        var matrix: Int32, fullRange: Bool
        var outWidth: Int32, outHeight: Int32
    }

    private let input: String
    private let orientation: Orientation
    private let squarePixels: Bool
    private let matrixChoice: FrameSource.ColorMatrix
    private let rangeChoice: FrameSource.ColorRange
    private let pool: FramePool
    private var sws: OpaquePointer?
    private var key: Key?
    private var scratch: Frame?
    private let streamColor: StreamColor
    private let toneMapping: FrameSource.ToneMapping
    private let toneMapEngine: FrameSource.ToneMapEngine
    private let peakNits: Double?
    private var toneMap: ToneMap?
    private var bgraScaler: OpaquePointer?
    private var bgraScalerKey: [Int32] = []

    init(input: String, orientation: Orientation, color: StreamColor, configuration: FrameSource.Configuration, pool: FramePool) {
        self.input = input
        self.orientation = orientation
        self.streamColor = color
        self.toneMapping = configuration.toneMapping
        self.toneMapEngine = configuration.toneMapEngine
        self.peakNits = configuration.peakNits
        self.squarePixels = configuration.squarePixels
        self.matrixChoice = configuration.colorMatrix
        self.rangeChoice = configuration.colorRange
        self.pool = pool
        // HDR goes through libavfilter (the table's reference chain): get the stream's tone
        // map ready while the decoder makes its first pictures.
        toneMap(for: color)?.prepare(input: input)
    }

    deinit {
        sws_freeContext(sws)
        sws_freeContext(bgraScaler)
    }

    /// The tone map for `picture` when it is HDR and tone mapping is on, else nil.
    private func toneMap(for picture: UnsafePointer<AVFrame>) -> ToneMap? {
        toneMap(for: StreamColor.of(picture, stream: streamColor))
    }

    /// The tone map for pictures tagged `color`, made when the last one was for other
    /// tags; nil for SDR or with tone mapping off.
    private func toneMap(for color: StreamColor) -> ToneMap? {
        guard let curve = toneMapping.curve, color.hdrName != nil else { return nil }
        if let toneMap, toneMap.color == color { return toneMap }
        toneMap = ToneMap(color: color, curve: curve, peakNits: peakNits ?? color.defaultPeakNits, engine: toneMapEngine)
        return toneMap
    }

    /// An HDR picture: tone-mapped to BGRA at its stored size, then made square-pixel and
    /// turned; or, square and with the table engine, tone-mapped straight into its turned place.
    private func convertHDR(_ picture: UnsafePointer<AVFrame>, _ map: ToneMap, width sw: Int, height sh: Int) throws(FrameSourceError) -> Frame {
        let w = Int(picture.pointee.width), h = Int(picture.pointee.height)
        let upright = orientation == .upright, scaled = (sw, sh) != (w, h)
        if !upright, !scaled, map.places(picture) {
            var out = orientation.swapsAxes ? Frame(width: h, height: w, pool: pool) : Frame(width: w, height: h, pool: pool)
            try map.convert(picture, placing: orientation.walk(width: w, height: h), into: &out, input: input)
            return out
        }
        // Upright, the picture is the frame handed on; else it is an intermediate, reused
        // from one picture to the next (a fresh 8 MB frame a picture was a page fault a page).
        var native = upright && !scaled ? Frame(width: w, height: h, pool: pool) : scratchFrame(width: w, height: h)
        try map.convert(picture, into: &native, input: input)
        if !(upright && !scaled) { scratch = native }
        var result = native
        if scaled {
            let key = [Int32(w), Int32(h), Int32(sw), Int32(sh)]
            if key != bgraScalerKey {
                sws_freeContext(bgraScaler)
                bgraScaler = sws_getContext(Int32(w), Int32(h), AV_PIX_FMT_BGRA, Int32(sw), Int32(sh), AV_PIX_FMT_BGRA, SWS_BICUBIC, nil, nil, nil)
                bgraScalerKey = key
            }
            result = upright ? Frame(width: sw, height: sh, pool: pool) : Frame(width: sw, height: sh)
            let srcStride = Int32(native.bytesPerRow), dstStride = Int32(result.bytesPerRow)
            native.withUnsafeBytes { s in
                result.withUnsafeMutableBytes { d in
                    var src: [UnsafePointer<UInt8>?] = [s.baseAddress!.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
                    var dst: [UnsafeMutablePointer<UInt8>?] = [d.baseAddress!.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
                    var ss: [Int32] = [srcStride, 0, 0, 0], ds: [Int32] = [dstStride, 0, 0, 0]
                    _ = sws_scale(bgraScaler, &src, &ss, 0, Int32(h), &dst, &ds)
                }
            }
        }
        return upright ? result : reorient(result)
    }

    /// Converts `picture` into a new frame from the pool.
    func convert(_ picture: UnsafePointer<AVFrame>) throws(FrameSourceError) -> Frame {
        let w = picture.pointee.width, h = picture.pointee.height
        guard w > 0, h > 0 else {
            throw FrameSourceError(input: input, kind: .decodeFailed, reason: "decoder returned a \(w)x\(h) picture")
        }
        let (sw, sh) = PictureConverter.squareSize(width: Int(w), height: Int(h), sar: picture.pointee.sample_aspect_ratio, enabled: squarePixels)
        if let map = toneMap(for: picture) { return try convertHDR(picture, map, width: sw, height: sh) }
        let format = PictureConverter.withoutJPEGRange(AVPixelFormat(picture.pointee.format))
        let matrix = PictureConverter.swsMatrix(for: picture.pointee.colorspace, choice: matrixChoice)
        let full = PictureConverter.isFullRange(picture.pointee.color_range, format: AVPixelFormat(picture.pointee.format), choice: rangeChoice)
        let wanted = Key(width: w, height: h, format: format.rawValue, matrix: matrix, fullRange: full,
                         outWidth: Int32(sw), outHeight: Int32(sh))
        if wanted != key {
            sws_freeContext(sws)
            sws = vfx_sws_context(w, h, format.rawValue, Int32(sw), Int32(sh), AV_PIX_FMT_BGRA.rawValue, SWS_BICUBIC,
                                  PictureConverter.sliceThreads(width: Int(sw), height: Int(sh))).map(OpaquePointer.init)
            guard let sws else {
                key = nil
                let name = av_get_pix_fmt_name(format).map { String(cString: $0) } ?? "format \(format.rawValue)"
                throw FrameSourceError(input: input, kind: .unsupportedCodec, reason: "cannot convert \(name) \(w)x\(h) pictures to BGRA")
            }
            let coefficients = sws_getCoefficients(matrix)
            sws_setColorspaceDetails(sws, coefficients, full ? 1 : 0, sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16)
            key = wanted
        }

        let upright = orientation == .upright
        var target = upright ? Frame(width: sw, height: sh, pool: pool) : scratchFrame(width: sw, height: sh)
        let targetStride = Int32(target.bytesPerRow)
        let sws = self.sws
        let ok = target.withUnsafeMutableBytes { bytes -> Bool in
            vfx_sws_convert(UnsafeMutableRawPointer(sws), picture, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), targetStride,
                            Int32(sw), Int32(sh), AV_PIX_FMT_BGRA.rawValue) >= 0
        }
        guard ok else { throw FrameSourceError(input: input, kind: .decodeFailed, reason: "colour conversion failed") }
        if upright { return target }
        scratch = target
        return reorient(target)
    }

    /// Slices the conversion runs in, each on its own thread: one per core for pictures of
    /// 640x360 and more (swscale's slice threads; a 1080p picture takes 2–3 ms on one
    /// core, which would otherwise wait on the decoder's threads), one below that.
    static func sliceThreads(width: Int, height: Int) -> Int32 {
        guard width * height >= 640 * 360 else { return 1 }
        return Int32(min(max(ProcessInfo.processInfo.activeProcessorCount, 1), 8))
    }

    private func scratchFrame(width: Int, height: Int) -> Frame {
        if let s = scratch, s.width == width, s.height == height {
            scratch = nil  // hand over the only reference so writing does not copy
            return s
        }
        return Frame(width: width, height: height)
    }

    /// Applies the mirror and rotation: each output pixel reads the stored pixel it
    /// shows. The source index is affine in (X, Y), so the loop only adds steps.
    private func reorient(_ src: Frame) -> Frame {
        let W = src.width, H = src.height
        var out = orientation.swapsAxes ? Frame(width: H, height: W, pool: pool) : Frame(width: W, height: H, pool: pool)
        let w = orientation.walk(width: W, height: H)
        let srcStride = src.bytesPerRow / 4
        let origin = w.y0 * srcStride + w.x0
        let stepX = w.xy * srcStride + w.xx
        let stepY = w.yy * srcStride + w.yx
        let outWidth = out.width, outHeight = out.height, outStride = out.bytesPerRow / 4
        // Bands of output rows on every core, each walked in tiles by the C kernel.
        let bands = min(2 * max(1, ProcessInfo.processInfo.activeProcessorCount), max(1, outHeight / 32))
        src.withUnsafeBytes { s in
            nonisolated(unsafe) let sp = s.baseAddress!.assumingMemoryBound(to: UInt32.self)
            out.withUnsafeMutableBytes { d in
                nonisolated(unsafe) let dp = d.baseAddress!.assumingMemoryBound(to: UInt32.self)
                DispatchQueue.concurrentPerform(iterations: bands) { b in
                    vfx_reorient_rows(sp, origin, stepX, stepY, dp, outStride, outWidth, outHeight * b / bands, outHeight * (b + 1) / bands)
                }
            }
        }
        return out
    }

    /// Size after making pixels square: the width is scaled by the pixel aspect ratio
    /// and rounded to the nearest pixel (at least 1). A ratio that moves the width by
    /// less than a pixel (and by under 1%) is kept as stored: it is what a scale to an
    /// even height leaves behind (ffmpeg's `scale=1280:-2` tags 1550:1551), and
    /// resampling the whole picture for it would blur every pixel, at a scaling pass's cost.
    static func squareSize(width: Int, height: Int, sar: AVRational, enabled: Bool) -> (Int, Int) {
        guard enabled, sar.num > 0, sar.den > 0, sar.num != sar.den else { return (width, height) }
        let change = Int64(width) * Int64(abs(sar.num - sar.den))
        if change < Int64(sar.den), 100 * Int64(abs(sar.num - sar.den)) < Int64(sar.den) { return (width, height) }
        let w = (Int64(width) * Int64(sar.num) * 2 + Int64(sar.den)) / (Int64(sar.den) * 2)
        return (max(1, Int(w)), height)
    }

    /// The yuvj formats are yuv with full range; swscale wants the range passed instead.
    static func withoutJPEGRange(_ f: AVPixelFormat) -> AVPixelFormat {
        switch f {
        case AV_PIX_FMT_YUVJ420P: return AV_PIX_FMT_YUV420P
        case AV_PIX_FMT_YUVJ422P: return AV_PIX_FMT_YUV422P
        case AV_PIX_FMT_YUVJ444P: return AV_PIX_FMT_YUV444P
        case AV_PIX_FMT_YUVJ440P: return AV_PIX_FMT_YUV440P
        case AV_PIX_FMT_YUVJ411P: return AV_PIX_FMT_YUV411P
        default: return f
        }
    }

    /// swscale's matrix constant for a tagged colour space; untagged follows the choice
    /// (BT.601 by default, as FFmpeg does).
    static func swsMatrix(for space: AVColorSpace, choice: FrameSource.ColorMatrix) -> Int32 {
        switch choice {
        case .bt601: return SWS_CS_ITU601
        case .bt709: return SWS_CS_ITU709
        case .bt2020: return SWS_CS_BT2020
        case .auto: break
        }
        switch space {
        case AVCOL_SPC_BT709: return SWS_CS_ITU709
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: return SWS_CS_BT2020
        case AVCOL_SPC_SMPTE240M: return SWS_CS_SMPTE240M
        case AVCOL_SPC_FCC: return SWS_CS_FCC
        default: return SWS_CS_ITU601  // BT470BG, SMPTE170M, unspecified
        }
    }

    static func isFullRange(_ range: AVColorRange, format: AVPixelFormat, choice: FrameSource.ColorRange) -> Bool {
        switch choice {
        case .full: return true
        case .limited: return false
        case .auto: break
        }
        switch range {
        case AVCOL_RANGE_JPEG: return true
        case AVCOL_RANGE_MPEG: return false
        default: return withoutJPEGRange(format) != format
        }
    }
}
