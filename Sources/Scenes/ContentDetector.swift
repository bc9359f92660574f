public import FrameCore
import CPixelKernels

/// Cuts where the picture's colour and brightness change at once: the mean absolute
/// difference of hue, saturation and value (HSV, OpenCV's 8-bit scales: hue 0–179) from
/// the previous picture, weighted, against a threshold. PySceneDetect's `detect-content`.
public final class ContentDetector: SceneDetector {
    /// How much each component counts (hue, saturation, value).
    public struct Weights: Sendable, Equatable {
        /// Hue difference weight.
        public var hue: Double
        /// Saturation difference weight.
        public var saturation: Double
        /// Value (brightness) difference weight.
        public var value: Double

        /// Weights for hue, saturation and value.
        public init(hue: Double, saturation: Double, value: Double) {
            self.hue = hue
            self.saturation = saturation
            self.value = value
        }

        /// All three alike (the default).
        public static let even = Weights(hue: 1, saturation: 1, value: 1)
        /// Brightness only.
        public static let lumaOnly = Weights(hue: 0, saturation: 0, value: 1)
    }

    /// PySceneDetect's default threshold.
    public static let defaultThreshold = 27.0

    private let threshold: Double
    private let weights: Weights
    private var flash: FlashFilter
    private var previous: HSVPlanes?
    private var spare: HSVPlanes?
    private var recent: RecentPictures
    /// The last picture's weighted difference (0 for the first).
    public private(set) var lastScore = 0.0
    /// The last picture's parts of its score, when recorded.
    public private(set) var lastMeasures: [String: Double] = [:]
    private var measuresParts = false
    private var edges: EdgeMap?
    private var spareEdges: EdgeMap?

    /// Cuts where the weighted score reaches `threshold`, at least `minSceneLength`
    /// pictures apart (kept so by `filter`).
    public init(threshold: Double = defaultThreshold, minSceneLength: Int, minSceneSeconds: Double? = nil, weights: Weights = .even,
                filter: FlashFilter.Mode = .merge) {
        self.threshold = threshold
        self.weights = weights
        self.flash = FlashFilter(mode: filter, minimum: MinimumSceneLength(pictures: minSceneLength, seconds: minSceneSeconds))
        // A merged run is cut at its last picture, up to two lengths back (in seconds, at up to 240 fps).
        self.recent = RecentPictures(capacity: 2 * max(minSceneLength, Int(((minSceneSeconds ?? 0) * 240).rounded(.up))) + 8)
    }

    /// The weighted mean difference from the previous picture (0 for the first).
    func score(_ picture: Frame) -> Double {
        var planes = spare ?? HSVPlanes()  // the buffers of two pictures ago, reused
        spare = nil
        planes.fill(from: picture)
        defer { spare = previous; previous = planes }
        var lines: EdgeMap?
        if measuresParts {
            lines = spareEdges ?? EdgeMap()
            spareEdges = nil
            lines!.fill(from: planes, width: picture.width, height: picture.height)
        }
        defer { if measuresParts { spareEdges = edges; edges = lines } }
        lastMeasures = [:]
        guard let previous, previous.count == planes.count, planes.count > 0 else { return 0 }
        let (dh, ds, dv) = planes.meanDifferences(from: previous)
        let total = abs(weights.hue) + abs(weights.saturation) + abs(weights.value)
        let score = (dh * weights.hue + ds * weights.saturation + dv * weights.value) / total
        if measuresParts {
            let de = lines.flatMap { now in edges.map { now.meanDifference(from: $0) } } ?? 0
            lastMeasures = ["delta_hue": dh, "delta_sat": ds, "delta_lum": dv, "delta_edges": de]
        }
        return score
    }

    /// Records the score's parts as PySceneDetect's stats file has them: `delta_hue`,
    /// `delta_sat`, `delta_lum` and `delta_edges` (the mean difference of the value
    /// plane's edge maps, which PySceneDetect draws whenever it writes stats, though the
    /// default score weighs them 0).
    public func recordMeasures() { measuresParts = true }

    /// The parts' columns.
    public var measureColumns: [String] { ["delta_edges", "delta_hue", "delta_lum", "delta_sat"] }

    /// The weighted difference from the last picture measured (0 for the first).
    public func measure(_ picture: Frame) -> Double? { score(picture) }

    /// A cut where the score reaches the threshold and the flash filter lets one through.
    public func process(frame: Int, time: Rational, score: Double?) -> [Cut] {
        let score = score ?? 0
        lastScore = score
        recent.add(frame: frame, time: time, score: score)
        return flash.filter(frame: frame, time: time, above: score >= threshold).compactMap { recent.cut(at: $0) }
    }
}

/// A picture as OpenCV's 8-bit HSV planes.
struct HSVPlanes {
    private(set) var hue: [UInt8] = []
    private(set) var saturation: [UInt8] = []
    private(set) var value: [UInt8] = []
    var count: Int { hue.count }

    /// OpenCV's BGR→HSV for 8 bits, in integers rounded as it rounds: V = max,
    /// S = 255·(V − min)/V, H = 30·(sector offset + (a − b)/(V − min)), in 0–179
    /// (a C kernel: see vidfx_hsv.h).
    mutating func fill(from picture: Frame) {
        let n = picture.width * picture.height
        if hue.count != n {
            hue = [UInt8](repeating: 0, count: n)
            saturation = hue
            value = hue
        }
        hue.withUnsafeMutableBufferPointer { h in
            saturation.withUnsafeMutableBufferPointer { s in
                value.withUnsafeMutableBufferPointer { v in
                    picture.withUnsafeBytes { raw in
                        vfx_bgra_to_hsv(raw.bindMemory(to: UInt8.self).baseAddress, picture.bytesPerRow, Int32(picture.width),
                                        Int32(picture.height), h.baseAddress, s.baseAddress, v.baseAddress)
                    }
                }
            }
        }
    }

    /// The value plane (for its edges).
    func withValue<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R { value.withUnsafeBufferPointer(body) }

    /// Mean absolute differences of the three planes from `other`'s.
    func meanDifferences(from other: HSVPlanes) -> (Double, Double, Double) {
        func mean(_ a: [UInt8], _ b: [UInt8]) -> Double {
            let sum = a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in vfx_abs_diff_sum(a.baseAddress, b.baseAddress, a.count) } }
            return Double(sum) / Double(max(1, a.count))
        }
        return (mean(hue, other.hue), mean(saturation, other.saturation), mean(value, other.value))
    }
}

/// A picture's edges as PySceneDetect's content detector draws them: OpenCV's Canny on
/// the value plane, its thresholds two thirds and four thirds of the plane's median,
/// then dilated by a square of 4 + √(pixels)/192 rounded, made odd (5 at 256×144).
struct EdgeMap {
    private(set) var edges: [UInt8] = []

    mutating func fill(from planes: HSVPlanes, width: Int, height: Int) {
        let n = width * height
        if edges.count != n { edges = [UInt8](repeating: 0, count: n) }
        var kernel = 4 + Int((Double(width * height).squareRoot() / 192).rounded(.toNearestOrEven))
        if kernel % 2 == 0 { kernel += 1 }
        planes.withValue { v in
            let median = vfx_plane_median(v.baseAddress, Int64(n))
            let sigma = 1.0 / 3.0
            let low = Int(max(0, (1.0 - sigma) * median)), high = Int(min(255, (1.0 + sigma) * median))
            edges.withUnsafeMutableBufferPointer { e in
                // Out of memory leaves no edges: a score part, never a cut.
                if vfx_canny_dilate(v.baseAddress, Int32(width), Int32(height), Int32(low), Int32(high), Int32(kernel), e.baseAddress) != 0 {
                    e.update(repeating: 0)
                }
            }
        }
    }

    /// Mean absolute difference from `other`'s edges (0 or 255 a pixel).
    func meanDifference(from other: EdgeMap) -> Double {
        guard edges.count == other.edges.count, !edges.isEmpty else { return 0 }
        let sum = edges.withUnsafeBufferPointer { a in other.edges.withUnsafeBufferPointer { b in vfx_abs_diff_sum(a.baseAddress, b.baseAddress, a.count) } }
        return Double(sum) / Double(edges.count)
    }
}
