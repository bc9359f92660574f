public import FrameCore

/// Cuts where a picture's content score stands out from its neighbours': the score over
/// the mean of the `window` scores either side, at least `ratio` and at least
/// `minContent`. Fast camera motion raises every score in a window alike, so it cuts
/// less there than ``ContentDetector``. PySceneDetect's `detect-adaptive` (its CLI's
/// default); cuts are decided `window` pictures late.
public final class AdaptiveDetector: SceneDetector {
    private let content: ContentDetector
    private let ratio: Double
    private let minContent: Double
    private let window: Int
    private let minimum: MinimumSceneLength
    private var lastCut: (frame: Int, time: Rational)?
    private var buffer: [(frame: Int, time: Rational, score: Double)] = []
    /// The last picture's content score (its ratio is known `window` pictures later).
    public private(set) var lastScore = 0.0
    private var recording = false
    private var decided: [(frame: Int, column: String, value: Double)] = []

    /// PySceneDetect's defaults: ratio 3, window 2, a content score of at least 15.
    public init(ratio: Double = 3, minSceneLength: Int, minSceneSeconds: Double? = nil, window: Int = 2, minContent: Double = 15,
                weights: ContentDetector.Weights = .even) {
        content = ContentDetector(threshold: 255, minSceneLength: 0, weights: weights)
        self.ratio = ratio
        self.minContent = minContent
        self.window = max(1, window)
        self.minimum = MinimumSceneLength(pictures: minSceneLength, seconds: minSceneSeconds)
    }

    /// The content detector's score against the last picture measured (0 for the first).
    public func measure(_ picture: Frame) -> Double? { content.score(picture) }

    /// Records the content score's parts, and each picture's ratio.
    public func recordMeasures() {
        content.recordMeasures()
        recording = true
    }

    /// The content score's parts for the last picture measured.
    public var lastMeasures: [String: Double] { content.lastMeasures }

    /// The ratios decided since the last call.
    public func takeDecidedMeasures() -> [(frame: Int, column: String, value: Double)] {
        defer { decided.removeAll(keepingCapacity: true) }
        return decided
    }

    /// PySceneDetect's ratio column, named with the window, and the content parts.
    public var measureColumns: [String] { [ratioColumn] + content.measureColumns }

    private var ratioColumn: String { "adaptive_ratio (w=\(window))" }

    /// A cut (`window` pictures back) where a picture's score stands out from its neighbours'.
    public func process(frame: Int, time: Rational, score: Double?) -> [Cut] {
        let score = score ?? 0
        lastScore = score
        if lastCut == nil { lastCut = (frame, time) }
        buffer.append((frame, time, score))
        let needed = 1 + 2 * window
        guard buffer.count >= needed else { return [] }
        if buffer.count > needed { buffer.removeFirst(buffer.count - needed) }
        let target = buffer[window]
        let neighbours = buffer.indices.filter { $0 != window }.reduce(0.0) { $0 + buffer[$1].score } / Double(2 * window)
        var adaptive = 0.0
        if abs(neighbours) >= 1e-5 { adaptive = min(target.score / neighbours, 255) }
        else if target.score >= minContent { adaptive = 255 }
        if recording { decided.append((target.frame, ratioColumn, adaptive)) }
        // As PySceneDetect 0.7: the scene length is counted to the target (0.6 counted to the newest picture).
        guard adaptive >= ratio, target.score >= minContent, minimum.isMet(from: lastCut!, to: (target.frame, target.time)) else { return [] }
        lastCut = (target.frame, target.time)
        return [Cut(frame: target.frame, time: target.time, score: adaptive)]
    }
}
