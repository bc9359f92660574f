import FrameCore
import Scenes
import Sinks

/// Tells which frames of a render start a new shot: PySceneDetect's content score
/// (``ContentDetector``) of a small copy of each frame against the frame before, at its
/// threshold, decided on the spot (no shortest-scene rule: a flash taken for a cut costs
/// only a detection more). The detection stage tells its timeline, so that no box is
/// carried or held across a hard cut (issue 67: grey patches of an audience shot stayed
/// on the empty curtain after the cut).
final class ShotChanges {
    /// The copy's width: enough for a cut's change of colour and brightness.
    static let width = 160
    private let detector = ContentDetector(minSceneLength: 0)

    /// Whether `frame` starts a new shot (never the first frame).
    func startsShot(_ frame: Frame) -> Bool {
        guard frame.width > 0, frame.height > 0 else { return false }
        let height = max(2, Int((Double(Self.width) * Double(frame.height) / Double(frame.width)).rounded()))
        let small = FrameScaler.resize(frame, width: Self.width, height: height)
        return (detector.measure(small) ?? 0) >= ContentDetector.defaultThreshold
    }
}
