import Foundation
public import FrameCore

/// Runs detectors over a render's frames in tick order, on every `every`-th frame and
/// on a pool of worker threads, and gives each frame its observations. Between two
/// detections the boxes are carried over: a face or code seen at both ends moves
/// linearly from one box to the other; one seen at only one end is covered over the
/// whole interval. Offline that is a look-ahead: a frame is handed back only once the
/// detection after it is done, so a face is covered from its first tick, before the
/// detector has seen it.
///
/// A frame that starts a new shot (a hard cut, told by the caller) is detected, and so is
/// the last frame before it: no box is carried across a cut, and the tracker holds no
/// face of the old shot into the new one.
///
/// At most `workers` detections run at once, and at most `(workers + 1) * every`
/// frames wait here: memory stays flat however long the video.
public final class DetectionTimeline: @unchecked Sendable {
    /// Detect on every this many frames (1: every frame).
    public let every: Int
    private let tracker: Tracker
    private let condition = NSCondition()
    private var idle: [Worker]
    private var pending: [Frame] = []          // frames not yet handed back, in order
    private var firstPending = 0               // index (in the stream) of pending[0]
    private var count = 0                      // frames pushed
    private var results: [Int: Result<[Observation], DetectionError>] = [:]  // by frame index
    private var lastKey: (index: Int, observations: [Observation])?
    private var keys: [Int] = []                // detections started and not yet collected, in order
    private var nextRegular = 0                 // the next frame detected on the `every` cadence
    private var shotStarts = Set<Int>()         // frames after a cut, not yet collected
    private var running = 0
    private var failure: DetectionError?
    /// Detections run so far.
    public private(set) var detections = 0
    private let redacting: Bool
    private let recheck: RedactionRecheck?
    private var finds = 0
    /// Boxes a recheck found over heads (and widened them by) so far.
    public var recheckFinds: Int { condition.withLock { finds } }

    /// A timeline detecting every `every` frames with `workers` sets of detectors (one
    /// set per worker thread: a detector is used by one thread at a time). With
    /// `redacting`, a face is held through `Tracker`'s short misses and its carried boxes
    /// get a margin for the motion between detections. With `recheck`, each detection
    /// frame is redacted and looked at again, and what is still found over a head widens
    /// that head (``RedactionRecheck``): by `recheckLooks` (one face detector per set, as a
    /// detector is used by one thread at a time), or else by the set's own face detector
    /// (the one named "faces").
    public init(every: Int, detectorSets: [[any Detector]], redacting: Bool = false, recheck: RedactionRecheck? = nil,
                recheckLooks: [any Detector] = []) {
        precondition(!detectorSets.isEmpty, "at least one worker")
        precondition(recheckLooks.isEmpty || recheckLooks.count == detectorSets.count, "one recheck look per set")
        self.every = max(1, every)
        self.redacting = redacting
        self.recheck = recheck
        tracker = Tracker(hold: redacting ? 2 : 0)
        idle = detectorSets.enumerated().map { Worker(detectors: $1, look: recheckLooks.isEmpty ? nil : recheckLooks[$0]) }
    }

    /// Tracks started so far (distinct IDs handed out).
    public var tracksStarted: Int { condition.withLock { tracker.tracksStarted } }

    /// Takes the next frame (`startsShot`: the first after a hard cut); returns the frames
    /// whose observations are now final, in order.
    /// - Throws: the first ``DetectionError`` a detector raised.
    public func push(_ frame: Frame, startsShot: Bool = false) throws(DetectionError) -> [Frame] {
        condition.lock()
        defer { condition.unlock() }
        if let failure { throw failure }
        let index = count
        count += 1
        pending.append(frame)
        if startsShot && index > 0 {
            // The old shot's last frame and the new one's first: nothing spans the cut.
            if keys.last.map({ $0 < index - 1 }) ?? (lastKey.map { $0.index < index - 1 } ?? true) { startDetection(index - 1) }
            shotStarts.insert(index)
            nextRegular = index
        }
        if index == nextRegular {
            startDetection(index)
            nextRegular = index + every
        }
        return try collect(final: false)
    }

    /// Detects on the last frame if it was not a detection frame, waits for every
    /// detection, and returns the remaining frames.
    public func finish() throws(DetectionError) -> [Frame] {
        condition.lock()
        defer { condition.unlock() }
        if let failure { throw failure }
        if count > 0, (keys.last ?? lastKey?.index ?? -1) < count - 1 { startDetection(count - 1) }
        while running > 0 { condition.wait() }
        return try collect(final: true)
    }

    /// Starts detection on frame `index` (lock held), waiting for a free worker.
    private func startDetection(_ index: Int) {
        while idle.isEmpty { condition.wait() }
        let worker = idle.removeLast()
        let frame = pending[index - firstPending]
        keys.append(index)
        running += 1
        detections += 1
        DispatchQueue.global().async { [self] in
            var result: Result<[Observation], DetectionError> = .success([])
            for detector in worker.detectors {
                do throws(DetectionError) {
                    let found = try detector.detect(frame)
                    result = result.map { $0 + found }
                } catch {
                    result = .failure(error)
                    break
                }
            }
            var finds = 0
            if let recheck, case .success(let found) = result,
               let faces = worker.look ?? worker.detectors.first(where: { $0.name == "faces" }) {
                // The whole frame: each network is run at one input size per clip (OpenCV's
                // CenterFace gives garbage after a look at a region of another size,
                // docs/detection.md), so a smaller look is another net.
                do throws(DetectionError) {
                    let checked = try recheck.run(on: frame, found: found) { (redacted) throws(DetectionError) in try faces.detect(redacted) }
                    result = .success(checked.observations)
                    finds = checked.finds
                } catch {
                    result = .failure(error)
                }
            }
            condition.lock()
            results[index] = result
            self.finds += finds
            idle.append(worker)
            running -= 1
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Hands back every frame up to the next detection whose result is in, and so on
    /// (lock held). With `final`, everything pending (every detection has finished).
    private func collect(final: Bool) throws(DetectionError) -> [Frame] {
        var out: [Frame] = []
        while firstPending < count, let key = keys.first {
            guard let result = results.removeValue(forKey: key) else { break }
            keys.removeFirst()
            // A new shot: the old one's faces are not held into it.
            if shotStarts.remove(key) != nil { tracker.endShot() }
            let observations: [Observation]
            switch result {
            case .failure(let e): failure = e; throw e
            case .success(let o): observations = tracker.assign(o)
            }
            // Frames before `key` lie between the previous detection and this one.
            if let previous = lastKey {
                let span = Double(key - previous.index)
                while firstPending < key {
                    var frame = pending.removeFirst()
                    frame.observations = DetectionTimeline.between(previous.observations, observations,
                                                                   Double(firstPending - previous.index) / span,
                                                                   margin: redacting)
                    out.append(frame)
                    firstPending += 1
                }
            }
            var frame = pending.removeFirst()
            frame.observations = observations
            out.append(frame)
            firstPending += 1
            lastKey = (key, observations)
        }
        return out
    }

    /// The boxes at `t` (0…1) of the way from one detection to the next. With `margin`, a
    /// face's box moving between them grows on each side by a quarter of the distance it
    /// moves: faces do not move in straight lines at constant speed.
    static func between(_ a: [Observation], _ b: [Observation], _ t: Double, margin: Bool = false) -> [Observation] {
        var out: [Observation] = []
        let later = Dictionary(b.map { ($0.trackID, $0) }, uniquingKeysWith: { x, _ in x })
        for o in a {
            var carried = o
            if let end = later[o.trackID] {
                carried.bounds = o.bounds.interpolated(to: end.bounds, t)
                if margin, o.kind == .face {
                    let m = hypot(end.bounds.center.x - o.bounds.center.x, end.bounds.center.y - o.bounds.center.y) / 4
                    carried.bounds = Rect(x: carried.bounds.x - m, y: carried.bounds.y - m,
                                          width: carried.bounds.width + 2 * m, height: carried.bounds.height + 2 * m)
                }
                if o.corners.count == end.corners.count {
                    carried.corners = zip(o.corners, end.corners).map { Point(x: $0.x + ($1.x - $0.x) * t, y: $0.y + ($1.y - $0.y) * t) }
                }
                for (name, p) in o.landmarks {
                    if let q = end.landmarks[name] { carried.landmarks[name] = Point(x: p.x + (q.x - p.x) * t, y: p.y + (q.y - p.y) * t) }
                }
            }
            carried.isInterpolated = true
            out.append(carried)
        }
        let earlier = Set(a.map(\.trackID))
        for o in b where !earlier.contains(o.trackID) {
            var ahead = o  // appears before the detector saw it: cover the whole interval
            ahead.isInterpolated = true
            out.append(ahead)
        }
        return out
    }
}

/// One worker's detectors, the first look's and the recheck's when it has its own; handed
/// to one thread at a time (each detector is used by one thread at a time).
private struct Worker: @unchecked Sendable {
    var detectors: [any Detector]
    var look: (any Detector)?
}
