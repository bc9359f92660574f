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
    /// Binary PPM (P6), RGB.
    case ppm
    /// Raw BGRA bytes, rows packed without padding.
    case bgra
}

/// Why an image could not be written.
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
        switch format {
        case .bgra:
            return frame.packedBytes()
        case .ppm:
            var out = Array("P6\n\(frame.width) \(frame.height)\n255\n".utf8)
            out.reserveCapacity(out.count + frame.width * frame.height * 3)
            for y in 0..<frame.height {
                for x in 0..<frame.width {
                    let p = frame.pixel(x: x, y: y)
                    out += [p.r, p.g, p.b]
                }
            }
            return out
        case .png:
            let opaque = isOpaque(frame)
            return try encodeWithFFmpeg(frame, codec: AV_CODEC_ID_PNG, pixelFormat: opaque ? AV_PIX_FMT_RGB24 : AV_PIX_FMT_RGBA, quality: nil)
        case .jpeg(let quality):
            return try encodeWithFFmpeg(frame, codec: AV_CODEC_ID_MJPEG, pixelFormat: AV_PIX_FMT_YUVJ444P, quality: quality)
        }
    }

    /// Writes `frame` to `path` through a temporary file renamed into place, so a
    /// failure never leaves a half-written image at `path`.
    public static func write(_ frame: Frame, to path: String, as format: ImageFormat) throws(ImageWriteError) {
        let bytes = try encode(frame, as: format)
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).vidfx-\(getpid()).part")
        do {
            try Data(bytes).write(to: temporary)
            guard rename(temporary.path, path) == 0 else {
                throw ImageWriteError(path: path, reason: "cannot move into place (\(String(cString: strerror(errno))))")
            }
        } catch let error as ImageWriteError {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw ImageWriteError(path: path, reason: "cannot write (\(error.localizedDescription))")
        }
    }

    private static func isOpaque(_ frame: Frame) -> Bool {
        frame.withUnsafeBytes { b in
            let p = b.baseAddress!.assumingMemoryBound(to: UInt32.self), stride = frame.bytesPerRow / 4
            for y in 0..<frame.height { for x in 0..<frame.width where p[y * stride + x] >> 24 != 255 { return false } }
            return true
        }
    }

    private static func encodeWithFFmpeg(_ frame: Frame, codec id: AVCodecID, pixelFormat: AVPixelFormat, quality: Int?) throws(ImageWriteError) -> [UInt8] {
        func fail(_ why: String) -> ImageWriteError { ImageWriteError(path: "image", reason: why) }
        guard let codec = avcodec_find_encoder(id) else { throw fail("no encoder for \(String(cString: avcodec_get_name(id)))") }
        var ctx = avcodec_alloc_context3(codec)
        var picture = av_frame_alloc()
        var packet = av_packet_alloc()
        var sws: OpaquePointer?
        defer {
            avcodec_free_context(&ctx)
            av_frame_free(&picture)
            av_packet_free(&packet)
            sws_freeContext(sws)
        }
        guard let ctx, let picture, let packet else { throw fail("out of memory") }
        ctx.pointee.width = Int32(frame.width)
        ctx.pointee.height = Int32(frame.height)
        ctx.pointee.pix_fmt = pixelFormat
        ctx.pointee.time_base = AVRational(num: 1, den: 1)  // required even for one picture
        if let quality {
            // mjpeg quality: qscale 2 (best) … 31; map 100 → 2 and 1 → 31.
            let q = 2 + (100 - min(max(quality, 1), 100)) * 29 / 99
            ctx.pointee.flags |= AV_CODEC_FLAG_QSCALE
            ctx.pointee.global_quality = Int32(q) * FF_QP2LAMBDA
            picture.pointee.quality = ctx.pointee.global_quality
            ctx.pointee.color_range = AVCOL_RANGE_JPEG
        }
        guard avcodec_open2(ctx, codec, nil) >= 0 else { throw fail("cannot open the image encoder") }
        picture.pointee.format = pixelFormat.rawValue
        picture.pointee.width = Int32(frame.width)
        picture.pointee.height = Int32(frame.height)
        guard av_frame_get_buffer(picture, 0) >= 0 else { throw fail("out of memory") }
        sws = sws_getContext(Int32(frame.width), Int32(frame.height), AV_PIX_FMT_BGRA,
                             Int32(frame.width), Int32(frame.height), pixelFormat, SWS_BICUBIC, nil, nil, nil)
        guard let sws else { throw fail("cannot convert BGRA for the encoder") }
        if quality != nil {
            // JPEG: full-range BT.601 YCbCr.
            sws_setColorspaceDetails(sws, sws_getCoefficients(SWS_CS_DEFAULT), 1, sws_getCoefficients(SWS_CS_ITU601), 1, 0, 1 << 16, 1 << 16)
        }
        frame.withUnsafeBytes { b in
            var src: [UnsafePointer<UInt8>?] = [b.baseAddress!.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
            var srcStride: [Int32] = [Int32(frame.bytesPerRow), 0, 0, 0]
            var dst: [UnsafeMutablePointer<UInt8>?] = (0..<4).map { vfx_frame_plane(picture, Int32($0)) }
            var dstStride: [Int32] = (0..<4).map { vfx_frame_linesize(picture, Int32($0)) }
            _ = sws_scale(sws, &src, &srcStride, 0, Int32(frame.height), &dst, &dstStride)
        }
        guard avcodec_send_frame(ctx, picture) >= 0, avcodec_send_frame(ctx, nil) >= 0 else { throw fail("encoding failed") }
        var out: [UInt8] = []
        while avcodec_receive_packet(ctx, packet) == 0 {
            out += UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size))
            av_packet_unref(packet)
        }
        guard !out.isEmpty else { throw fail("the encoder produced nothing") }
        return out
    }
}
