public import FrameCore

/// Finds things in a frame: codes, faces. A detector is used by one thread at a time
/// (zbar's scanner and a network's buffers are not shared); run several for several
/// threads. Coordinates are the frame's pixels, as `Observation` (FrameCore) describes them.
public protocol Detector: AnyObject {
    /// What it finds, for messages and summaries ("codes", "faces").
    var name: String { get }
    /// What `frame` contains. Track IDs are left 0: a ``Tracker`` assigns them.
    /// - Throws: ``DetectionError`` when the detector cannot run (never for a frame
    ///   that simply contains nothing).
    func detect(_ frame: Frame) throws(DetectionError) -> [Observation]
}

/// Why detection could not run: one line naming what failed and why.
public struct DetectionError: Error, Sendable, CustomStringConvertible {
    /// What failed (the detector, or a model file).
    public var subject: String
    /// Why.
    public var reason: String

    /// An error about `subject`.
    public init(_ subject: String, _ reason: String) {
        self.subject = subject
        self.reason = reason
    }

    /// "subject: reason".
    public var description: String { "\(subject): \(reason)" }
}

extension DetectionError: UserFacingError {}
