import CZbar
import Foundation
public import FrameCore

/// QR codes and 1-D barcodes (EAN, UPC, Code 128/39/93, Interleaved 2 of 5, Codabar,
/// DataBar), read with zbar. Payloads come back as the code's raw bytes: text when
/// they are UTF-8, base64 otherwise. zbar's corner points are normalised to reading
/// order: a QR code's four corners (zbar lists them counter-clockwise from the top-left
/// finder pattern) become top-left, top-right, bottom-right, bottom-left; a barcode's
/// scan-line points become the rectangle they span, turned to the way the code reads.
public final class CodeDetector: Detector {
    /// Which codes to look for.
    public struct Symbologies: OptionSet, Sendable {
        public let rawValue: Int
        /// Creates a set from its raw bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// QR codes.
        public static let qr = Symbologies(rawValue: 1)
        /// Every 1-D barcode zbar reads.
        public static let barcodes = Symbologies(rawValue: 2)
        /// Both.
        public static let all: Symbologies = [.qr, .barcodes]
    }

    /// "codes".
    public let name = "codes"
    /// What it looks for.
    public let symbologies: Symbologies
    /// Frames wider or taller than this are scanned at a reduced size (a code of 60
    /// pixels in a 1080p frame is still 40 at 720p), and the corners scaled back.
    public let largestScan: Int

    /// Nil when zbar could not be loaded (`unavailable` says why): detecting then throws.
    private let scanner: OpaquePointer?
    private let unavailable: String?
    private var luma: [UInt8] = []

    /// A detector for `symbologies`, scanning frames at most `largestScan` pixels on
    /// their longer side.
    public init(symbologies: Symbologies = .all, largestScan: Int = 1920) {
        self.symbologies = symbologies
        self.largestScan = max(64, largestScan)
        // zbar is loaded with the first detector, not at start.
        let failure = vfx_load_zbar().map { String(cString: $0) }
        guard failure == nil, let scanner = zbar_image_scanner_create() else {
            unavailable = failure ?? "zbar cannot make a scanner"
            scanner = nil
            return
        }
        self.scanner = scanner
        unavailable = nil
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        let qr: [zbar_symbol_type_t] = [ZBAR_QRCODE]
        let barcodes: [zbar_symbol_type_t] = [ZBAR_EAN13, ZBAR_EAN8, ZBAR_UPCA, ZBAR_UPCE, ZBAR_ISBN13, ZBAR_CODE128,
                                             ZBAR_CODE39, ZBAR_CODE93, ZBAR_I25, ZBAR_CODABAR, ZBAR_DATABAR, ZBAR_DATABAR_EXP]
        for type in (symbologies.contains(.qr) ? qr : []) + (symbologies.contains(.barcodes) ? barcodes : []) {
            zbar_image_scanner_set_config(scanner, type, ZBAR_CFG_ENABLE, 1)
        }
        // The payload as encoded, not zbar's guess at a character set: we decide what is text.
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
    }

    deinit { if let scanner { zbar_image_scanner_destroy(scanner) } }

    public func detect(_ frame: Frame) throws(DetectionError) -> [Observation] {
        guard let scanner else { throw DetectionError(name, unavailable ?? "zbar is not loaded") }
        let longer = max(frame.width, frame.height)
        let step = (longer + largestScan - 1) / largestScan  // 1: full size
        let w = frame.width / step, h = frame.height / step
        guard w > 0, h > 0 else { return [] }
        fillLuma(from: frame, step: step, width: w, height: h)
        guard let image = zbar_image_create() else { throw DetectionError(name, "out of memory") }
        defer { zbar_image_destroy(image) }
        zbar_image_set_format(image, CodeDetector.y800)
        zbar_image_set_size(image, UInt32(w), UInt32(h))
        let scale = Double(step)
        return luma.withUnsafeBufferPointer { buffer in
            zbar_image_set_data(image, buffer.baseAddress, UInt(w * h), nil)
            guard zbar_scan_image(scanner, image) > 0 else { return [] }
            var found: [Observation] = []
            var symbol = zbar_image_first_symbol(image)
            while let s = symbol {
                if let o = observation(s, scale: scale) { found.append(o) }
                symbol = zbar_symbol_next(s)
            }
            return found
        }
    }

    /// 'Y800': 8-bit greyscale, one byte a pixel.
    private static let y800: UInt = 0x3030_3859

    /// BGRA to luma (BT.601 weights, as zbar expects), every `step`-th pixel.
    private func fillLuma(from frame: Frame, step: Int, width w: Int, height h: Int) {
        if luma.count != w * h { luma = [UInt8](repeating: 0, count: w * h) }
        let stride = frame.bytesPerRow / 4
        frame.withUnsafeBytes { raw in
            let src = raw.baseAddress!.assumingMemoryBound(to: UInt32.self)
            luma.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    let row = src + y * step * stride
                    for x in 0..<w {
                        let p = row[x * step]
                        let b = p & 0xFF, g = (p >> 8) & 0xFF, r = (p >> 16) & 0xFF
                        dst[y * w + x] = UInt8(truncatingIfNeeded: (77 &* r &+ 150 &* g &+ 29 &* b) >> 8)
                    }
                }
            }
        }
    }

    private func observation(_ symbol: OpaquePointer, scale: Double) -> Observation? {
        guard let kind = CodeDetector.kind(zbar_symbol_get_type(symbol)) else { return nil }
        let n = Int(zbar_symbol_get_loc_size(symbol))
        guard n > 0 else { return nil }
        // zbar's points are pixel indices; +0.5 is the pixel's centre, in frame coordinates.
        let points = (0..<n).map { i in
            Point(x: (Double(zbar_symbol_get_loc_x(symbol, UInt32(i))) + 0.5) * scale,
                  y: (Double(zbar_symbol_get_loc_y(symbol, UInt32(i))) + 0.5) * scale)
        }
        let corners: [Point]
        if kind == .qr && n == 4 {
            corners = [points[0], points[3], points[2], points[1]]  // CCW from TL → TL, TR, BR, BL
        } else {
            corners = CodeDetector.readingOrder(Rect(enclosing: points), zbar_symbol_get_orientation(symbol))
        }
        let length = Int(zbar_symbol_get_data_length(symbol))
        var bytes: [UInt8] = []
        if let data = zbar_symbol_get_data(symbol), length > 0 {
            bytes = [UInt8](UnsafeRawBufferPointer(start: data, count: length))
        }
        let text = String(validating: bytes, as: UTF8.self)
        return Observation(kind: kind, bounds: Rect(enclosing: corners), corners: corners,
                           payload: text, payloadBase64: text == nil ? Data(bytes).base64EncodedString() : nil)
    }

    /// A barcode's rectangle, its corners listed from where the code starts reading.
    static func readingOrder(_ r: Rect, _ orientation: zbar_orientation_t) -> [Point] {
        let tl = Point(x: r.x, y: r.y), tr = Point(x: r.x + r.width, y: r.y)
        let br = Point(x: r.x + r.width, y: r.y + r.height), bl = Point(x: r.x, y: r.y + r.height)
        switch orientation {
        case ZBAR_ORIENT_RIGHT: return [tr, br, bl, tl]  // reads top to bottom
        case ZBAR_ORIENT_DOWN: return [br, bl, tl, tr]   // upside down
        case ZBAR_ORIENT_LEFT: return [bl, tl, tr, br]   // reads bottom to top
        default: return [tl, tr, br, bl]
        }
    }

    static func kind(_ type: zbar_symbol_type_t) -> Observation.Kind? {
        switch type {
        case ZBAR_QRCODE: .qr
        case ZBAR_EAN13, ZBAR_ISBN13: .ean13
        case ZBAR_EAN8: .ean8
        case ZBAR_UPCA: .upca
        case ZBAR_UPCE: .upce
        case ZBAR_CODE128: .code128
        case ZBAR_CODE39: .code39
        case ZBAR_CODE93: .code93
        case ZBAR_I25: .i25
        case ZBAR_CODABAR: .codabar
        case ZBAR_DATABAR, ZBAR_DATABAR_EXP: .databar
        default: nil
        }
    }
}
