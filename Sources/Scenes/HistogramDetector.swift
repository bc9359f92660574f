public import FrameCore

/// Cuts where the luma histogram changes: the correlation of this picture's `bins`-bin
/// histogram with the previous one's falls to `1 − threshold` or below. PySceneDetect's
/// `detect-hist`.
public final class HistogramDetector: SceneDetector {
    private let threshold: Double
    private let bins: Int
    private let minimum: MinimumSceneLength
    private var lastHistogram: [Float]?
    private var lastCut: (frame: Int, time: Rational)?
    /// PySceneDetect 0.7's threshold (0.6 used 0.05 with 256 bins).
    public static let defaultThreshold = 0.20

    /// The last picture's histogram correlation with the one before (1 for the first).
    public private(set) var lastScore = 1.0

    /// PySceneDetect's defaults (0.7): threshold 0.20 (a correlation of 0.80), 128 bins.
    public init(threshold: Double = defaultThreshold, bins: Int = 128, minSceneLength: Int, minSceneSeconds: Double? = nil) {
        self.threshold = min(1, max(0, 1 - threshold))
        self.bins = min(256, max(1, bins))
        self.minimum = MinimumSceneLength(pictures: minSceneLength, seconds: minSceneSeconds)
    }

    /// Pearson correlation of two histograms, as OpenCV's `compareHist(HISTCMP_CORREL)`
    /// computes it on its float histograms: sums in double, in its two-lane order.
    static func correlation(_ a: [Float], _ b: [Float]) -> Double {
        // Lane 0 takes elements 0 and 2 of each four, lane 1 elements 1 and 3; the tail
        // (fewer than four) goes to the scalar sums after the lanes are added.
        var lanes = [[Double]](repeating: [0, 0, 0, 0, 0], count: 2)  // s1, s2, s11, s12, s22
        var j = 0
        while j + 4 <= a.count {
            for k in 0..<4 {
                let (x, y) = (Double(a[j + k]), Double(b[j + k]))
                let l = k % 2
                lanes[l][3] += x * y; lanes[l][2] += x * x; lanes[l][4] += y * y
                lanes[l][0] += x; lanes[l][1] += y
            }
            j += 4
        }
        var s = (0..<5).map { lanes[0][$0] + lanes[1][$0] }
        while j < a.count {
            let (x, y) = (Double(a[j]), Double(b[j]))
            s[3] += x * y; s[0] += x; s[2] += x * x; s[1] += y; s[4] += y * y
            j += 1
        }
        let scale = 1 / Double(a.count)
        let num = s[3] - s[0] * s[1] * scale
        let den = (s[2] - s[0] * s[0] * scale) * (s[4] - s[1] * s[1] * scale)
        return abs(den) > Double.ulpOfOne ? num / den.squareRoot() : 1
    }

    /// The luma histogram as PySceneDetect makes it: counts scaled to a unit length
    /// (OpenCV's `normalize`, in float).
    static func histogram(_ picture: Frame, bins: Int) -> [Float] {
        var counts = [Int](repeating: 0, count: bins)
        for y in lumaPlane(picture) { counts[Int(y) * bins / 256] += 1 }
        let squares = counts.reduce(0.0) { $0 + Double($1) * Double($1) }  // exact: whole numbers
        let length = squares.squareRoot()
        let scale = Float(length > Double.ulpOfOne ? 1 / length : 0)
        return counts.map { Float($0) * scale }
    }

    /// The correlation of the luma histogram with the last picture measured's (nil for the first).
    public func measure(_ picture: Frame) -> Double? {
        let histogram = HistogramDetector.histogram(picture, bins: bins)
        defer { lastHistogram = histogram }
        guard let lastHistogram else { return nil }
        return HistogramDetector.correlation(lastHistogram, histogram)
    }

    /// A cut where the correlation falls to the threshold, a shortest scene after the last.
    public func process(frame: Int, time: Rational, score similarity: Double?) -> [Cut] {
        if lastCut == nil { lastCut = (frame, time) }  // PySceneDetect resets this at a cut on frame 0
        guard let similarity else { return [] }
        lastScore = similarity
        guard similarity <= threshold, minimum.isMet(from: lastCut!, to: (frame, time)) else { return [] }
        lastCut = (frame, time)
        return [Cut(frame: frame, time: time, score: 1 - similarity)]
    }
}
