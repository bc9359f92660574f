public import FrameCore

/// The shortest scene a detector keeps: a count of pictures, or seconds measured on the
/// pictures' own times, as PySceneDetect 0.7 measures a length given in seconds (its
/// CLI's `0.6s`). On variable-rate video the two differ: 18 pictures are 0.45 s where
/// the clip runs at 40 fps.
public struct MinimumSceneLength: Sendable, Equatable {
    /// The length in pictures (at the nominal rate, when it was given in seconds).
    public let pictures: Int
    /// The length in seconds, when it was given so: then times decide, not counts.
    public let seconds: Double?

    /// A length of `pictures`, or of `seconds` when given.
    public init(pictures: Int, seconds: Double? = nil) {
        self.pictures = max(0, pictures)
        self.seconds = seconds.map { max(0, $0) }
    }

    /// Whether the length is zero: every cut is kept.
    public var isNone: Bool { seconds.map { $0 <= 0 } ?? (pictures <= 0) }

    /// Whether picture `to` is at least the length past picture `from`.
    public func isMet(from: (frame: Int, time: Rational), to: (frame: Int, time: Rational)) -> Bool {
        guard let seconds else { return to.frame - from.frame >= pictures }
        // PySceneDetect's OpenCV backend reads times in whole microseconds.
        let microseconds = (to.time.seconds * 1e6).rounded() - (from.time.seconds * 1e6).rounded()
        return microseconds / 1e6 >= seconds
    }
}
