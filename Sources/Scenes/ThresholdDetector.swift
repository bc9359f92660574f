public import FrameCore

/// Cuts at fades: where the mean of a picture's B, G and R falls under `threshold` (a
/// fade out) and later comes back (a fade in), the cut is between the two, moved by
/// `fadeBias` (−1 at the fade out, 1 at the fade in). PySceneDetect's `detect-threshold`
/// (floor method), whose CLI also cuts at a last fade out (`addFinalScene`).
public final class ThresholdDetector: SceneDetector {
    private let threshold: Double
    private let minSceneLength: Int
    private let fadeBias: Double
    private let addFinalScene: Bool
    private var lastSceneCut: Int?
    private var fadeFrame = 0
    private var fadedOut: Bool?
    private var recent: RecentPictures
    /// The last picture's mean level, 0–255.
    public private(set) var lastScore = 0.0

    /// PySceneDetect's CLI defaults: threshold 12, no bias, a cut at a last fade out.
    public init(threshold: Double = 12, minSceneLength: Int, fadeBias: Double = 0, addFinalScene: Bool = true) {
        // PySceneDetect keeps the threshold as a whole number.
        self.threshold = threshold.rounded(.towardZero)
        self.minSceneLength = minSceneLength
        self.fadeBias = fadeBias
        self.addFinalScene = addFinalScene
        self.recent = RecentPictures(capacity: 1 << 14)
    }

    /// The mean of B, G and R over the picture, 0–255.
    static func meanLevel(_ picture: Frame) -> Double {
        var sum = 0
        picture.forEachPixel { b, g, r, _ in sum &+= Int(b + g + r) }
        return Double(sum) / Double(max(1, 3 * picture.width * picture.height))
    }

    /// The picture's mean level (of B, G and R), which needs no other picture.
    public func measure(_ picture: Frame) -> Double? { ThresholdDetector.meanLevel(picture) }

    /// A cut where the level comes back above the threshold after a fade out.
    public func process(frame: Int, time: Rational, score: Double?) -> [Cut] {
        let level = score ?? 0
        lastScore = level
        recent.add(frame: frame, time: time, score: level)
        if lastSceneCut == nil { lastSceneCut = frame }
        guard let out = fadedOut else {
            fadeFrame = 0
            fadedOut = level < threshold
            return []
        }
        if !out, level < threshold {
            fadedOut = true
            fadeFrame = frame
        } else if out, level >= threshold {
            var cuts: [Cut] = []
            if frame - lastSceneCut! >= minSceneLength {
                let split = (frame + fadeFrame + Int(fadeBias * Double(frame - fadeFrame))) / 2
                // Between the fade's ends; its time is the fade in's when the split is older than what is kept.
                cuts.append(recent.cut(at: split) ?? Cut(frame: split, time: time, score: level))
                lastSceneCut = frame
            }
            fadedOut = false
            fadeFrame = frame
            return cuts
        }
        return []
    }

    /// A clip that ends faded out is cut where the fade began.
    public func finish(lastFrame: Int?) -> [Cut] {
        guard let lastFrame, fadedOut == true, addFinalScene, let lastSceneCut else { return [] }
        guard lastFrame - lastSceneCut >= minSceneLength else { return [] }
        return recent.cut(at: fadeFrame).map { [$0] } ?? []
    }
}
