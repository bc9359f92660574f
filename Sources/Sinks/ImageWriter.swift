import CFFmpeg
public import FrameCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Still-image file formats.
public enum ImageFormat: Sendable, Equatable {
    /// PNG, lossless; RGB, or RGBA when the frame has transparency.
    case png
    /// JPEG at a quality of 1 (worst) to 100 (best).
    case jpeg(quality: Int)
    /// WebP (libwebp) at a quality of 0 to 100, with the frame's alpha.
    case webp(quality: Int)
    /// Binary PPM (P6), RGB.
    case ppm
    /// Raw BGRA bytes, rows packed without padding.
    case bgra
}

/// Why an image could not be written.
extension ImageFormat {
    /// The format a file name asks for by its extension (`.png`, `.jpg`/`.jpeg`, `.webp`,
    /// `.ppm`; any case), with `quality` for the lossy ones; nil for any other name.
    public init?(fileName: String, quality: Int) {
        switch (fileName as NSString).pathExtension.lowercased() {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg(quality: quality)
        case "webp": self = .webp(quality: quality)
        case "ppm": self = .ppm
        default: return nil
        }
    }

    /// The format's usual name (`png`, `jpeg`, `webp`, `ppm`, `bgra`).
    public var name: String {
        switch self {
        case .png: "png"
        case .jpeg: "jpeg"
        case .webp: "webp"
        case .ppm: "ppm"
        case .bgra: "bgra"
        }
    }
}

public struct ImageWriteError: Error, Sendable, CustomStringConvertible {
    /// The target path.
    public let path: String
    /// What went wrong.
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}

/// Encodes BGRA frames as image files with libavcodec's encoders.
public enum ImageWriter {
    /// The encoded bytes of `frame` in `format`.
    public static func encode(_ frame: Frame, as format: ImageFormat) throws(ImageWriteError) -> [UInt8] {
        try ImageEncoder().encode(frame, as: format)
    }

    /// Writes `frame` to `path` through a temporary file renamed into place, so a
    /// failure never leaves a half-written image at `path`.
    public static func write(_ frame: Frame, to path: String, as format: ImageFormat) throws(ImageWriteError) {
        try ImageEncoder().write(frame, as: format, toFile: path)
    }
}

/// Encodes images, keeping the codec and conversion set up between calls of the same
/// size and format (one per thread: image sequences encode many frames).
public final class ImageEncoder {
    private struct Key: Equatable {
        var codec: Int32, pixelFormat: Int32, width: Int, height: Int, quality: Int
    }

    private var key: Key?
    private var ctx: UnsafeMutablePointer<AVCodecContext>?
    private var picture: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private let png = PNGEncoder()
    private var sws: OpaquePointer?

    /// Creates an encoder; codecs are opened on first use.
    public init() {}

    deinit { reset() }

    private func reset() {
        avcodec_free_context(&ctx)
        av_frame_free(&picture)
        av_packet_free(&packet)
        sws_freeContext(sws)
        sws = nil
        key = nil
    }

    /// The encoded bytes of `frame` in `format`.
    public func encode(_ frame: Frame, as format: ImageFormat) throws(ImageWriteError) -> [UInt8] {
        switch format {
        case .bgra:
            return frame.packedBytes()
        case .ppm:
            let header = Array("P6\n\(frame.width) \(frame.height)\n255\n".utf8)
            let body = frame.width * frame.height * 3
            return [UInt8](unsafeUninitializedCapacity: header.count + body) { out, count in
                for (i, c) in header.enumerated() { out[i] = c }
                var o = header.count
                frame.withUnsafeBytes { b in
                    let stride = frame.bytesPerRow / 4
                    let p = b.baseAddress!.assumingMemoryBound(to: UInt32.self)
                    for y in 0..<frame.height {
                        let row = p + y * stride
                        for x in 0..<frame.width {
                            let v = row[x]
                            out[o] = UInt8(truncatingIfNeeded: v >> 16); out[o + 1] = UInt8(truncatingIfNeeded: v >> 8); out[o + 2] = UInt8(truncatingIfNeeded: v)
                            o += 3
                        }
                    }
                }
                count = o
            }
        case .png:
            var out: [UInt8] = []
            try png.encode(frame, alpha: !isOpaque(frame)) { bytes throws(ImageWriteError) in out += bytes }
            return out
        case .jpeg(let quality):
            return try encodeWithFFmpeg(frame, codec: AV_CODEC_ID_MJPEG, pixelFormat: AV_PIX_FMT_YUVJ444P, quality: quality)
        case .webp(let quality):
            return try encodeWithFFmpeg(frame, codec: AV_CODEC_ID_WEBP, pixelFormat: AV_PIX_FMT_BGRA, quality: quality)
        }
    }

    /// Writes `frame` to `path` through a hidden work file beside it (``AtomicOutput``),
    /// moved into place when complete. PNG is streamed to the file as it is compressed.
    public func write(_ frame: Frame, as format: ImageFormat, toFile path: String) throws(ImageWriteError) {
        let temporary = AtomicOutput.uniqueWorkPath(for: path)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ImageWriteError(path: path, reason: "cannot write (\(String(cString: strerror(errno))))") }
        var isOpen = true
        func put(_ bytes: UnsafeRawBufferPointer) throws(ImageWriteError) {
            var done = 0
            while done < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ImageWriteError(path: path, reason: "write failed (\(String(cString: strerror(errno))))")
                }
                done += n
            }
        }
        do throws(ImageWriteError) {
            if case .png = format {
                try png.encode(frame, alpha: !isOpaque(frame), emit: put)
            } else {
                let bytes = try encode(frame, as: format)
                try emitBytes(bytes, put)
            }
            isOpen = false
            guard close(fd) == 0 else { throw ImageWriteError(path: path, reason: "write failed (\(String(cString: strerror(errno))))") }
            do { try AtomicOutput.publish(temporary, to: path, overwrite: true) } catch {
                throw ImageWriteError(path: path, reason: error.reason)
            }
        } catch {
            if isOpen { close(fd) }  // never twice: another thread may own that number by now
            unlink(temporary)
            throw error
        }
    }

    private func isOpaque(_ frame: Frame) -> Bool {
        frame.withUnsafeBytes { b in
            let p = b.baseAddress!.assumingMemoryBound(to: UInt32.self), stride = frame.bytesPerRow / 4
            for y in 0..<frame.height { for x in 0..<frame.width where p[y * stride + x] >> 24 != 255 { return false } }
            return true
        }
    }

    private func encodeWithFFmpeg(_ frame: Frame, codec id: AVCodecID, pixelFormat: AVPixelFormat, quality: Int?) throws(ImageWriteError) -> [UInt8] {
        func fail(_ why: String) -> ImageWriteError { ImageWriteError(path: "image", reason: why) }
        let wanted = Key(codec: Int32(bitPattern: id.rawValue), pixelFormat: pixelFormat.rawValue, width: frame.width, height: frame.height, quality: quality ?? -1)
        if key != wanted {
            reset()
            try setUp(wanted, codec: id, pixelFormat: pixelFormat, quality: quality)
            key = wanted
        }
        guard let ctx, let picture, let packet, let sws else { throw fail("encoder not ready") }
        let r0 = av_frame_make_writable(picture)
        if r0 < 0 { throw fail("out of memory") }
        frame.withUnsafeBytes { b in
            var src: [UnsafePointer<UInt8>?] = [b.baseAddress!.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
            var srcStride: [Int32] = [Int32(frame.bytesPerRow), 0, 0, 0]
            var dst: [UnsafeMutablePointer<UInt8>?] = (0..<4).map { vfx_frame_plane(picture, Int32($0)) }
            var dstStride: [Int32] = (0..<4).map { vfx_frame_linesize(picture, Int32($0)) }
            _ = sws_scale(sws, &src, &srcStride, 0, Int32(frame.height), &dst, &dstStride)
        }
        picture.pointee.pts += 1
        guard avcodec_send_frame(ctx, picture) >= 0 else { throw fail("encoding failed") }
        var out: [UInt8] = []
        while avcodec_receive_packet(ctx, packet) == 0 {
            out += UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size))
            av_packet_unref(packet)
        }
        guard !out.isEmpty else { throw fail("the encoder produced nothing") }
        return out
    }

    private func setUp(_ key: Key, codec id: AVCodecID, pixelFormat: AVPixelFormat, quality: Int?) throws(ImageWriteError) {
        func fail(_ why: String) -> ImageWriteError { ImageWriteError(path: "image", reason: why) }
        // WebP by libwebp's still encoder (its animated one writes an animation container).
        let found = id == AV_CODEC_ID_WEBP ? avcodec_find_encoder_by_name("libwebp") : avcodec_find_encoder(id)
        guard let codec = found else { throw fail("no encoder for \(String(cString: avcodec_get_name(id))) in this FFmpeg build") }
        ctx = avcodec_alloc_context3(codec)
        picture = av_frame_alloc()
        packet = av_packet_alloc()
        guard let ctx, let picture, packet != nil else { throw fail("out of memory") }
        ctx.pointee.width = Int32(key.width)
        ctx.pointee.height = Int32(key.height)
        ctx.pointee.pix_fmt = pixelFormat
        ctx.pointee.time_base = AVRational(num: 1, den: 1)  // required even for stills
        ctx.pointee.thread_count = 1  // parallelism comes from one encoder per thread
        if let quality, id == AV_CODEC_ID_WEBP {
            // libwebp reads its quality (0…100) from global_quality, in lambda units.
            ctx.pointee.flags |= AV_CODEC_FLAG_QSCALE
            ctx.pointee.global_quality = Int32(min(max(quality, 0), 100)) * FF_QP2LAMBDA
        } else if let quality {
            // mjpeg quality: qscale 2 (best) … 31; map 100 → 2 and 1 → 31.
            let q = 2 + (100 - min(max(quality, 1), 100)) * 29 / 99
            ctx.pointee.flags |= AV_CODEC_FLAG_QSCALE
            ctx.pointee.global_quality = Int32(q) * FF_QP2LAMBDA
            ctx.pointee.color_range = AVCOL_RANGE_JPEG
        }
        guard avcodec_open2(ctx, codec, nil) >= 0 else { throw fail("cannot open the image encoder") }
        picture.pointee.format = pixelFormat.rawValue
        picture.pointee.width = Int32(key.width)
        picture.pointee.height = Int32(key.height)
        picture.pointee.quality = ctx.pointee.global_quality
        guard av_frame_get_buffer(picture, 0) >= 0 else { throw fail("out of memory") }
        sws = sws_getContext(Int32(key.width), Int32(key.height), AV_PIX_FMT_BGRA,
                             Int32(key.width), Int32(key.height), pixelFormat, SWS_POINT, nil, nil, nil)
        guard let sws else { throw fail("cannot convert BGRA for the encoder") }
        if quality != nil && id == AV_CODEC_ID_MJPEG {
            // JPEG: full-range BT.601 YCbCr.
            sws_setColorspaceDetails(sws, sws_getCoefficients(SWS_CS_DEFAULT), 1, sws_getCoefficients(SWS_CS_ITU601), 1, 0, 1 << 16, 1 << 16)
        }
    }
}

extension ImageWriteError: UserFacingError {}
