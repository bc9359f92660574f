import Foundation
public import FrameCore

/// `vidfx detect`'s table: a line a find, saying what it is (a code's payload, a face's
/// score) and where (a code's corners, a face's box, and its landmarks when asked).
/// A tracked find between two detections is marked `~` after its ID.
public struct DetectionTable: Sendable {
    /// Whether a face's landmarks follow its box.
    public let landmarks: Bool

    /// The table's heading line.
    public static let heading = "tick      time  kind      id  payload or score                     where: corners (TL TR BR BL) or box (x,y WxH)\n"

    /// A face's landmarks in a fixed order, then any others by name.
    private static let landmarkOrder = ["leftEye", "rightEye", "nose", "mouthLeft", "mouthRight"]

    /// A table that shows faces' landmarks when `landmarks`.
    public init(landmarks: Bool = false) { self.landmarks = landmarks }

    /// The lines of `frame`'s finds, each ending in a newline.
    public func lines(_ frame: Frame) -> String {
        var text = ""
        for o in frame.observations {
            let payload: String, place: String
            if o.kind == .face {
                payload = String(format: "score %.3f", o.confidence)
                var box = String(format: "%.0f,%.0f %.0fx%.0f", o.bounds.x, o.bounds.y, o.bounds.width, o.bounds.height)
                if landmarks {
                    let names = Self.landmarkOrder.filter { o.landmarks[$0] != nil } + o.landmarks.keys.filter { !Self.landmarkOrder.contains($0) }.sorted()
                    for name in names {
                        guard let p = o.landmarks[name] else { continue }
                        box += " \(name) " + String(format: "%.0f,%.0f", p.x, p.y)
                    }
                }
                place = box
            } else {
                payload = (o.payload ?? o.payloadBase64.map { "base64:" + $0 } ?? "").replacingOccurrences(of: "\n", with: " ")
                place = o.corners.map { String(format: "%.0f,%.0f", $0.x, $0.y) }.joined(separator: " ")
            }
            text += String(format: "%-6lld %7.3f  ", frame.tick, frame.time.seconds)
                + o.kind.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
                + String(format: "%4d", o.trackID) + (o.isInterpolated ? "~ " : "  ")
                + String(payload.prefix(36)).padding(toLength: 37, withPad: " ", startingAt: 0) + place + "\n"
        }
        return text
    }
}
