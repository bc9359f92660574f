public import FrameCore

/// Cuts where the luma histogram changes: the correlation of this picture's `bins`-bin
/// histogram with the previous one's falls to `1 − threshold` or below. PySceneDetect's
/// `detect-hist`.
public final class HistogramDetector: SceneDetector {
    private let threshold: Double
    private let bins: Int
    private let minSceneLength: Int
    private var lastHistogram: [Double]?
    private var lastCut: Int?
    /// The last picture's histogram correlation with the one before (1 for the first).
    public private(set) var lastScore = 1.0

    /// PySceneDetect's defaults: threshold 0.05 (a correlation of 0.95), 256 bins.
    public init(threshold: Double = 0.05, bins: Int = 256, minSceneLength: Int) {
        self.threshold = min(1, max(0, 1 - threshold))
        self.bins = min(256, max(1, bins))
        self.minSceneLength = minSceneLength
    }

    /// Pearson correlation of two histograms (OpenCV's HISTCMP_CORREL).
    static func correlation(_ a: [Double], _ b: [Double]) -> Double {
        let n = Double(a.count)
        let ma = a.reduce(0, +) / n, mb = b.reduce(0, +) / n
        var num = 0.0, da = 0.0, db = 0.0
        for i in a.indices {
            let x = a[i] - ma, y = b[i] - mb
            num += x * y; da += x * x; db += y * y
        }
        let den = (da * db).squareRoot()
        return den > Double.ulpOfOne ? num / den : 1
    }

    /// The correlation of the luma histogram with the last picture measured's (nil for the first).
    public func measure(_ picture: Frame) -> Double? {
        var histogram = [Double](repeating: 0, count: bins)
        for y in lumaPlane(picture) { histogram[Int(y) * bins / 256] += 1 }
        defer { lastHistogram = histogram }
        guard let lastHistogram else { return nil }
        return HistogramDetector.correlation(lastHistogram, histogram)
    }

    /// A cut where the correlation falls to the threshold, a shortest scene after the last.
    public func process(frame: Int, time: Rational, score similarity: Double?) -> [Cut] {
        if lastCut == nil { lastCut = frame }  // PySceneDetect resets this at a cut on frame 0
        guard let similarity else { return [] }
        lastScore = similarity
        guard similarity <= threshold, frame - lastCut! >= minSceneLength else { return [] }
        lastCut = frame
        return [Cut(frame: frame, time: time, score: 1 - similarity)]
    }
}
