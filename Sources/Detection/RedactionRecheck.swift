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

    /// The size of the recheck's look, as a share of the first look's: three quarters
    /// costs about half a look and, on the crowd pan, leaves about as many outlines for
    /// vidfx's detector at 0.2 and 0.3 as a look at full size (docs/detection.md).
    public static let lookSize = 0.75

    /// How much larger than the box a recheck finds its redaction is: what is found is the
    /// redacted blob's own outline, and covering just that leaves a new edge around it.
    public static let growth = 2.0

    /// How far a face's box may be widened, as a fraction of its size on each side (of
    /// the box the detector first gave). Unbounded, looks that keep finding outlines
    /// widen the box again and again, and the blur swallows whole people.
    public static let reach = 0.6

    /// Looks again at `frame` redacted with `found` (what the first look found), with
    /// `look`, up to ``passes`` times, stopping at a look that widens nothing.
    /// - Returns: the observations, widened, and how many boxes were widened in all.
    /// - Throws: what `look` throws.
    public func run(on frame: Frame, found: [Observation], look: (Frame) throws(DetectionError) -> [Observation])
        throws(DetectionError) -> (observations: [Observation], finds: Int) {
        var current = found, finds = 0
        for _ in 0..<passes {
            let again = try look(redact(frame, current))
            let (widened, indices) = RedactionRecheck.widen(current, with: again, first: found)
            if indices.isEmpty { break }
            finds += indices.count
            current = widened
        }
        return (current, finds)
    }

    /// `observations` with `found` (faces seen in the redacted frame) taken in: a box found
    /// over a face's head, and not more than twice the face's size, widens that face's
    /// box to cover it (grown by ``growth``), within ``reach`` of `first`, the face's box
    /// as first detected (same indices as `observations`). The track then carries the
    /// wider box between detections. A box found elsewhere is left out: measured, those
    /// were mostly not faces (a hand at 0.25), and a small box redacted becomes a smooth
    /// oval that OpenCV's Haar cascade then finds.
    /// - Returns: the observations, and the indices of those widened.
    public static func widen(_ observations: [Observation], with found: [Observation], first: [Observation])
        -> (observations: [Observation], widened: [Int]) {
        var result = observations
        var widened: [Int] = []
        for hit in found where hit.kind == .face {
            let g = hit.bounds
            let grown = g.expanded(by: (growth - 1) / 2)
            // Over a head: the face's box grown by half its size each side (about the
            // region faceblur covers with its default padding and the hair).
            guard let i = first.indices.first(where: {
                let f = first[$0].bounds
                return first[$0].kind == .face && f.expanded(by: 0.5).contains(g.center)
                    && max(g.width, g.height) <= 2 * max(f.width, f.height)
            }) else { continue }
            let wider = result[i].bounds.union(grown).intersection(first[i].bounds.expanded(by: reach))
            if wider != result[i].bounds {
                result[i].bounds = wider
                if !widened.contains(i) { widened.append(i) }
            }
        }
        return (result, widened)
    }
}

extension Rect {
    /// The box grown on each side by `fraction` of its width (left, right) and height (top, bottom).
    func expanded(by fraction: Double) -> Rect {
        Rect(x: x - width * fraction, y: y - height * fraction, width: width * (1 + 2 * fraction), height: height * (1 + 2 * fraction))
    }

    /// Whether `p` lies inside (edges included).
    func contains(_ p: Point) -> Bool { p.x >= x && p.x <= x + width && p.y >= y && p.y <= y + height }

    /// The part of this box inside `other` (this box itself when they do not meet).
    func intersection(_ other: Rect) -> Rect {
        let left = Swift.max(x, other.x), top = Swift.max(y, other.y)
        let right = Swift.min(x + width, other.x + other.width), bottom = Swift.min(y + height, other.y + other.height)
        return right > left && bottom > top ? Rect(x: left, y: top, width: right - left, height: bottom - top) : self
    }

    /// The smallest box holding both.
    func union(_ other: Rect) -> Rect {
        let left = Swift.min(x, other.x), top = Swift.min(y, other.y)
        let right = Swift.max(x + width, other.x + other.width), bottom = Swift.max(y + height, other.y + other.height)
        return Rect(x: left, y: top, width: right - left, height: bottom - top)
    }
}
