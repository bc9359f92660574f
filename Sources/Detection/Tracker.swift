import Foundation
public import FrameCore

/// Gives the same ID to the same face or code from one detection to the next, as
/// AVFoundation's face IDs do. A track's next box is predicted from its last two
/// (constant velocity: detections every few ticks see fast motion as jumps); an
/// observation continues the track of the same kind whose prediction it overlaps most
/// (intersection over union at least ``minimumOverlap``), or failing that one whose
/// prediction's centre is within one box size of its own. A code also continues a
/// track with the same payload however far it moved. IDs start at 1 and are never
/// reused; a track unseen for more than ``patience`` detections ends. With `hold` above 0
/// a face's track that a detection misses is kept, at its predicted place and marked
/// `Observation.isHeld`, for up to `hold` detections: a redaction then covers a face
/// the detector loses for a moment (turned, blurred by motion, half out of frame).
public final class Tracker {
    /// The least overlap that continues a track.
    public let minimumOverlap: Double
    /// Detections a track may be missing from before it ends.
    public let patience: Int
    /// Detections a missed face is still reported for, at its predicted place.
    public let hold: Int

    private struct Track {
        var id: Int
        var last: Observation
        var missed: Int
        /// Movement of the box's centre per detection, once seen twice.
        var velocity = (x: 0.0, y: 0.0)

        /// Where the box should be at the next detection.
        var predicted: Rect {
            let steps = Double(missed + 1)
            var r = last.bounds
            r.x += velocity.x * steps
            r.y += velocity.y * steps
            return r
        }
    }
    private var tracks: [Track] = []
    private var nextID = 1

    /// A tracker.
    public init(minimumOverlap: Double = 0.3, patience: Int = 8, hold: Int = 0) {
        self.minimumOverlap = minimumOverlap
        self.patience = patience
        self.hold = min(hold, patience)
    }

    /// Ends every track at a hard cut: what the next detection finds starts new tracks,
    /// and no face of the old shot is held into the new one.
    public func endShot() { tracks.removeAll() }

    /// How many distinct tracks have been started.
    public var tracksStarted: Int { nextID - 1 }

    /// `observations` of the next detection with their track IDs set.
    public func assign(_ observations: [Observation]) -> [Observation] {
        var result = observations
        // Every (observation, track) pair that may continue, best first.
        var pairs: [(score: Double, o: Int, t: Int)] = []
        for (i, o) in observations.enumerated() {
            for (j, t) in tracks.enumerated() where t.last.kind == o.kind {
                let predicted = t.predicted
                let overlap = o.bounds.iou(predicted)
                let samePayload = o.kind.isCode && o.payload != nil && o.payload == t.last.payload
                    || o.kind.isCode && o.payloadBase64 != nil && o.payloadBase64 == t.last.payloadBase64
                let size = max(predicted.width, predicted.height, o.bounds.width, o.bounds.height)
                let distance = hypot(o.bounds.center.x - predicted.center.x, o.bounds.center.y - predicted.center.y)
                if samePayload { pairs.append((2 + overlap, i, j)) }
                else if overlap >= minimumOverlap { pairs.append((1 + overlap, i, j)) }
                else if size > 0, distance <= size { pairs.append((1 - distance / size, i, j)) }
            }
        }
        pairs.sort { $0.score > $1.score }
        var takenO = Set<Int>(), takenT = Set<Int>()
        for p in pairs where !takenO.contains(p.o) && !takenT.contains(p.t) {
            takenO.insert(p.o)
            takenT.insert(p.t)
            result[p.o].trackID = tracks[p.t].id
            let (before, after) = (tracks[p.t].last.bounds.center, result[p.o].bounds.center)
            let steps = Double(tracks[p.t].missed + 1)
            tracks[p.t].velocity = ((after.x - before.x) / steps, (after.y - before.y) / steps)
            tracks[p.t].last = result[p.o]
            tracks[p.t].missed = 0
        }
        for j in tracks.indices where !takenT.contains(j) { tracks[j].missed += 1 }
        tracks.removeAll { $0.missed > patience }
        for i in result.indices where !takenO.contains(i) {
            result[i].trackID = nextID
            tracks.append(Track(id: nextID, last: result[i], missed: 0))
            nextID += 1
        }
        for t in tracks where t.missed > 0 && t.missed <= hold && t.last.kind == .face {
            var held = t.last
            held.bounds = t.predicted
            held.isInterpolated = true
            held.isHeld = true
            held.landmarks = [:]
            result.append(held)
        }
        return result
    }
}
