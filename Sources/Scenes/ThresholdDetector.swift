public import FrameCore

/// Cuts at fades: where the mean of a picture's B, G and R falls under `threshold` (a
/// fade out) and later comes back (a fade in), the cut is between the two, moved by
/// `fadeBias` (−1 at the fade out, 1 at the fade in). PySceneDetect's `detect-threshold`
/// (floor method), whose CLI also cuts at a last fade out (`addFinalScene`). As in
/// PySceneDetect 0.7, a fade out shorter than `minOutLength` seconds (on the pictures'
/// times) makes no cut, and the cut's picture is rounded half to even.
public final class ThresholdDetector: SceneDetector {
    private let threshold: Double
    private let minimum: MinimumSceneLength
    private let fadeBias: Double
    private let addFinalScene: Bool
    private let minOut: MinimumSceneLength
    private var fadeTime = Rational(0)
    /// The last picture's duration (to its successor): the final fade out lasts to the
    /// end of the last picture.
    private var lastDuration = Rational(0)
    private var lastSceneCut: (frame: Int, time: Rational)?
    private var lastTime = Rational(0)
    private var fadeFrame = 0
    private var fadedOut: Bool?
    private var recent: RecentPictures
    /// The last picture's mean level, 0–255.
    public private(set) var lastScore = 0.0

    /// PySceneDetect's CLI defaults: threshold 12, no bias, a cut at a last fade out,
    /// fades of 0.1 s or longer.
    public init(threshold: Double = 12, minSceneLength: Int, minSceneSeconds: Double? = nil, fadeBias: Double = 0,
                addFinalScene: Bool = true, minOutLength: Double = defaultMinOutLength) {
        // PySceneDetect keeps the threshold as a whole number.
        self.threshold = threshold.rounded(.towardZero)
        self.minimum = MinimumSceneLength(pictures: minSceneLength, seconds: minSceneSeconds)
        self.fadeBias = fadeBias
        self.addFinalScene = addFinalScene
        self.minOut = MinimumSceneLength(pictures: 0, seconds: minOutLength)
        self.recent = RecentPictures(capacity: 1 << 14)
    }

    /// PySceneDetect 0.7's CLI: a fade must stay out this many seconds to cut.
    public static let defaultMinOutLength = 0.1

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
        if lastSceneCut == nil { lastSceneCut = (frame, time) }
        if time > lastTime { lastDuration = time - lastTime }
        lastTime = time
        guard let out = fadedOut else {
            fadeFrame = 0
            fadeTime = time
            fadedOut = level < threshold
            return []
        }
        if !out, level < threshold {
            fadedOut = true
            fadeFrame = frame
            fadeTime = time
        } else if out, level >= threshold {
            var cuts: [Cut] = []
            if minimum.isMet(from: lastSceneCut!, to: (frame, time)), minOut.isMet(from: (fadeFrame, fadeTime), to: (frame, time)) {
                let split = fadeFrame + Int((Double(frame - fadeFrame) * (1 + fadeBias) / 2).rounded(.toNearestOrEven))
                // Between the fade's ends; its time is the fade in's when the split is older than what is kept.
                cuts.append(recent.cut(at: split) ?? Cut(frame: split, time: time, score: level))
                lastSceneCut = (frame, time)
            }
            fadedOut = false
            fadeFrame = frame
            fadeTime = time
            return cuts
        }
        return []
    }

    /// A clip that ends faded out is cut where the fade began.
    public func finish(lastFrame: Int?) -> [Cut] {
        guard let lastFrame, fadedOut == true, addFinalScene, let lastSceneCut else { return [] }
        guard minimum.isMet(from: lastSceneCut, to: (lastFrame, lastTime)),
              minOut.isMet(from: (fadeFrame, fadeTime), to: (lastFrame + 1, lastTime + lastDuration)) else { return [] }
        return recent.cut(at: fadeFrame).map { [$0] } ?? []
    }
}
