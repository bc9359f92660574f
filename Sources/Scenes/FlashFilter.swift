/// Keeps scenes at least `length` pictures long, as PySceneDetect's flash filter does.
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
    private let length: Int
    private var lastAbove: Int?
    private var mergeEnabled = false
    private var merging = false
    private var mergeStart = 0

    /// A filter of `length` pictures (0 turns it off).
    public init(mode: Mode, length: Int) {
        self.mode = mode
        self.length = length
    }

    /// The cut frames decided by picture `frame`, which is or is not over the threshold.
    public mutating func filter(frame: Int, above: Bool) -> [Int] {
        guard length > 0 else { return above ? [frame] : [] }
        if lastAbove == nil { lastAbove = frame }
        let lengthMet = frame - lastAbove! >= length
        switch mode {
        case .suppress:
            guard above && lengthMet else { return [] }
            lastAbove = frame
            return [frame]
        case .merge:
            if above { lastAbove = frame }
            if merging {
                // The run ends once nothing is over the threshold for `length` pictures
                // and it has lasted `length` itself: cut where it last was.
                if lengthMet && !above && lastAbove! - mergeStart >= length {
                    merging = false
                    return [lastAbove!]
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
                mergeStart = frame
            }
            return []
        }
    }
}
