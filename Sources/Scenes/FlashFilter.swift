public import FrameCore

/// Keeps scenes at least `length` long (pictures, or seconds on the pictures' times), as
/// PySceneDetect's flash filter does.
///
/// `merge` (the default): a run of pictures over the threshold that comes too soon after
/// the last cut is one event, cut at its last picture once it has lasted `length`
/// (so a flash of a few bright pictures makes no cut). `suppress`: a picture over the
/// threshold within `length` of the last cut is ignored.
public struct FlashFilter: Sendable {
    /// How cuts too close together are treated.
    public enum Mode: String, Sendable, CaseIterable {
        /// Cuts closer than the length merge into one, at the end of the run.
        case merge
        /// Cuts closer than the length are dropped.
        case suppress
    }

    private let mode: Mode
    private let length: MinimumSceneLength
    private var lastAbove: (frame: Int, time: Rational)?
    private var mergeEnabled = false
    private var merging = false
    private var mergeStart = (frame: 0, time: Rational(0))

    /// A filter of `length` pictures (0 turns it off).
    public init(mode: Mode, length: Int) {
        self.init(mode: mode, minimum: MinimumSceneLength(pictures: length))
    }

    /// A filter of `minimum` (zero turns it off).
    public init(mode: Mode, minimum: MinimumSceneLength) {
        self.mode = mode
        self.length = minimum
    }

    /// The cut frames decided by picture `frame`, which is or is not over the threshold
    /// (for a length in pictures: times do not matter).
    public mutating func filter(frame: Int, above: Bool) -> [Int] {
        filter(frame: frame, time: Rational(0), above: above)
    }

    /// The cut frames decided by picture `frame` shown at `time`, which is or is not over
    /// the threshold.
    public mutating func filter(frame: Int, time: Rational, above: Bool) -> [Int] {
        guard !length.isNone else { return above ? [frame] : [] }
        let now = (frame: frame, time: time)
        if lastAbove == nil { lastAbove = now }
        let lengthMet = length.isMet(from: lastAbove!, to: now)
        switch mode {
        case .suppress:
            guard above && lengthMet else { return [] }
            lastAbove = now
            return [frame]
        case .merge:
            if above { lastAbove = now }
            if merging {
                // The run ends once nothing is over the threshold for `length` and it
                // has lasted `length` itself: cut where it last was.
                if lengthMet && !above && length.isMet(from: mergeStart, to: lastAbove!) {
                    merging = false
                    return [lastAbove!.frame]
                }
                return []
            }
            guard above else { return [] }
            if lengthMet {
                mergeEnabled = true
                return [frame]
            }
            if mergeEnabled {
                merging = true
                mergeStart = now
            }
            return []
        }
    }
}
