public import FrameCore

/// A second look at a redacted frame, before a redacting render uses its boxes: the
/// frame is redacted with the faces found, the face detector looks again at the result,
/// and what it still finds over a redacted head widens that head. A blurred head keeps
/// a head's outline on a pair of shoulders, and at its lowest scores a detector finds
/// that outline. Each look that finds something widens the boxes and looks again, up
/// to ``passes`` times (docs/detection.md has the counts this was chosen from).
public struct RedactionRecheck: Sendable {
    /// Looks again at most this many times (0: never).
    public let passes: Int
    /// The frame redacted with the given observations (the chain's redacting effect).
    public let redact: @Sendable (Frame, [Observation]) -> Frame

    /// A recheck of up to `passes` looks, redacting with `redact`.
    public init(passes: Int, redact: @escaping @Sendable (Frame, [Observation]) -> Frame) {
        self.passes = max(0, passes)
        self.redact = redact
    }

    /// How much larger than the box a recheck finds its redaction is: what is found is the
    /// redacted blob's own outline, and covering just that leaves a new edge around it
    /// (crowd pan, every 5th frame, two looks: grown 1.5 times, 2 outlines were left; twice, 1).
    public static let growth = 2.0

    /// `observations` with `found` (faces seen in the redacted frame) taken in: a box found
    /// over a face's head widens that face's box to cover it (grown by ``growth``), so
    /// the track carries the wider box between detections. One found elsewhere is left
    /// out: measured, those were mostly not faces (a hand at 0.25), and a small box
    /// redacted becomes a smooth oval that OpenCV's Haar cascade then finds.
    public static func widen(_ observations: [Observation], with found: [Observation]) -> (observations: [Observation], taken: Int) {
        var result = observations
        var taken = 0
        for hit in found where hit.kind == .face {
            let g = hit.bounds
            let grown = Rect(x: g.x - g.width * (growth - 1) / 2, y: g.y - g.height * (growth - 1) / 2,
                             width: g.width * growth, height: g.height * growth)
            // Over a head: the face's box grown by half its size each side (about the
            // region faceblur covers with its default padding and the hair).
            if let i = result.indices.first(where: { result[$0].kind == .face && headRegion(result[$0].bounds).contains(g.center) }) {
                result[i].bounds = result[i].bounds.union(grown)
                taken += 1
            }
        }
        return (result, taken)
    }

    private static func headRegion(_ face: Rect) -> Rect {
        Rect(x: face.x - face.width / 2, y: face.y - face.height / 2, width: face.width * 2, height: face.height * 2)
    }
}

extension Rect {
    /// Whether `p` lies inside (edges included).
    func contains(_ p: Point) -> Bool { p.x >= x && p.x <= x + width && p.y >= y && p.y <= y + height }

    /// The smallest box holding both.
    func union(_ other: Rect) -> Rect {
        let left = Swift.min(x, other.x), top = Swift.min(y, other.y)
        let right = Swift.max(x + width, other.x + other.width), bottom = Swift.max(y + height, other.y + other.height)
        return Rect(x: left, y: top, width: right - left, height: bottom - top)
    }
}
