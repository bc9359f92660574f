public import FrameCore
import Foundation

/// Cuts where a perceptual hash changes: luma shrunk to `size·lowpass` square, its DCT's
/// lowest `size`×`size` coefficients each compared with their median; the score is the
/// share of the `size²` bits that differ from the previous picture's hash.
/// PySceneDetect's `detect-hash`.
public final class HashDetector: SceneDetector {
    private let threshold: Double
    private let size: Int
    private let lowpass: Int
    private let minimum: MinimumSceneLength
    private var lastHash: [Bool]?
    private var lastCut: (frame: Int, time: Rational)?
    /// PySceneDetect 0.7's threshold (0.6 used 0.395 with a 16×16 hash).
    public static let defaultThreshold = 0.35

    /// The share of hash bits that changed with the last picture.
    public private(set) var lastScore = 0.0

    /// PySceneDetect's defaults (0.7): threshold 0.35, an 8×8 hash of a 16×16 DCT.
    public init(threshold: Double = defaultThreshold, size: Int = 8, lowpass: Int = 2, minSceneLength: Int, minSceneSeconds: Double? = nil) {
        self.threshold = threshold
        self.size = max(1, size)
        self.lowpass = max(1, lowpass)
        self.minimum = MinimumSceneLength(pictures: minSceneLength, seconds: minSceneSeconds)
    }

    /// The picture's hash: `size²` bits, row by row.
    public static func hash(_ picture: Frame, size: Int = 16, lowpass: Int = 2) -> [Bool] {
        let n = size * lowpass
        var small = areaResize(lumaPlane(picture), width: picture.width, height: picture.height, to: n, n)
        // OpenCV rounds INTER_AREA's result back to 8 bits before the hash scales it.
        for i in small.indices { small[i] = small[i].rounded() }
        return lowFrequencyBits(small, side: n, size: size)
    }

    /// The bits of a perceptual hash of a `side`×`side` plane: scaled by its maximum, an
    /// orthonormal 2-D DCT-II, its lowest `size`×`size` coefficients each against their median.
    static func lowFrequencyBits(_ plane: [Float], side n: Int, size: Int) -> [Bool] {
        let top = max(1, plane.max() ?? 1)
        let scaled = plane.map { Double($0 / top) }
        // Only the low `size`×`size` corner of the DCT is needed.
        var basis = [Double](repeating: 0, count: size * n)
        for k in 0..<size {
            let norm = k == 0 ? (1 / Double(n)).squareRoot() : (2 / Double(n)).squareRoot()
            for i in 0..<n { basis[k * n + i] = norm * cos(Double.pi * Double((2 * i + 1) * k) / Double(2 * n)) }
        }
        var rows = [Double](repeating: 0, count: n * size)  // each row's low coefficients
        for y in 0..<n {
            for k in 0..<size {
                var s = 0.0
                for x in 0..<n { s += scaled[y * n + x] * basis[k * n + x] }
                rows[y * size + k] = s
            }
        }
        var coefficients = [Double](repeating: 0, count: size * size)
        for ky in 0..<size {
            for kx in 0..<size {
                var s = 0.0
                for y in 0..<n { s += rows[y * size + kx] * basis[ky * n + y] }
                coefficients[ky * size + kx] = s
            }
        }
        let sorted = coefficients.sorted()
        let c = sorted.count
        let median = c % 2 == 1 ? sorted[c / 2] : (sorted[c / 2 - 1] + sorted[c / 2]) / 2
        return coefficients.map { $0 > median }
    }

    /// The share of the hash's bits that differ from the last picture measured's (nil for the first).
    public func measure(_ picture: Frame) -> Double? {
        let hash = HashDetector.hash(picture, size: size, lowpass: lowpass)
        defer { lastHash = hash }
        guard let lastHash, lastHash.count == hash.count else { return nil }
        return Double(zip(hash, lastHash).filter { $0 != $1 }.count) / Double(size * size)
    }

    /// A cut where the distance reaches the threshold, a shortest scene after the last.
    public func process(frame: Int, time: Rational, score distance: Double?) -> [Cut] {
        if lastCut == nil { lastCut = (frame, time) }
        guard let distance else { return [] }
        lastScore = distance
        guard distance >= threshold, minimum.isMet(from: lastCut!, to: (frame, time)) else { return [] }
        lastCut = (frame, time)
        return [Cut(frame: frame, time: time, score: distance)]
    }
}
