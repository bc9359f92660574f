public import FrameCore

/// Drops a frame that is a near-copy of the last one kept (`dump --dedupe`): frames whose
/// perceptual hashes differ in at most `bits` of 64 add nothing to a data set.
public struct NearDuplicates: Sendable {
    /// The most bits two hashes may differ in and still be near-copies (0…64).
    public let bits: Int
    /// How many frames were dropped so far.
    public private(set) var dropped = 0
    private var lastKept: PerceptualHash?

    /// A filter for hashes `bits` apart or nearer; nil when `bits` is outside 0…64.
    public init?(bits: Int) {
        guard (0...64).contains(bits) else { return nil }
        self.bits = bits
    }

    /// Whether `frame` is kept: not a near-copy of the last frame kept.
    public mutating func keeps(_ frame: Frame) -> Bool {
        let hash = PerceptualHash(frame)
        if let lastKept, hash.distance(to: lastKept) <= bits {
            dropped += 1
            return false
        }
        lastKept = hash
        return true
    }
}
