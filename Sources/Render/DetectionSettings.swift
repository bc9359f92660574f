/// How a render detects codes and faces: what the `--detect-every`, `--detections`,
/// `--face-…` options say, for any caller. Every nil is the default for the job (a
/// redacting render favours recall: a lower threshold and a larger picture).
public struct DetectionSettings: Sendable, Equatable {
    /// Run the detectors on every Nth tick and carry the boxes between (nil: 1 for codes, 4 for faces).
    public var every: Int?
    /// Also write each tick's detections (JSON Lines) to this file.
    public var logPath: String?
    /// The CenterFace ONNX model (nil: the installed one).
    public var faceModel: String?
    /// Least face score, 0…1.
    public var faceThreshold: Double?
    /// The longer side, in pixels, of the picture the face network sees.
    public var faceSize: Int?
    /// Looks a redacting render takes again at each redacted detection frame (0…4).
    public var faceRecheck: Int?
    /// The size of each recheck look as a share of the first look's (0.25…1).
    public var faceRecheckSize: Double?

    /// The defaults.
    public init() {}

    /// The first setting out of range, as one line naming its option; nil when all are in range.
    public var problem: String? {
        if let n = faceRecheck, !(0...4).contains(n) { return "--face-recheck: must be 0…4, not \(n)" }
        if let n = every, !(1...300).contains(n) { return "--detect-every: must be 1…300, not \(n)" }
        if let t = faceThreshold, !(t > 0 && t < 1) { return "--face-threshold: must be between 0 and 1" }
        if let faceSize, !(64...4096).contains(faceSize) { return "--face-size: must be 64…4096 pixels" }
        if let s = faceRecheckSize, !(s >= 0.25 && s <= 1) { return "--face-recheck-size: must be 0.25…1, not \(s)" }
        return nil
    }
}
