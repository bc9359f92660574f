import Foundation
public import FrameCore

/// Detection for real-time playback, which must never wait for a detector: a worker
/// thread detects on the newest frame it is handed while it is idle (frames that
/// arrive while it is busy are not detected — skipped, never queued), and every frame
/// gets the latest result at once, its boxes carried forward along each track's recent
/// motion so that they follow a moving face between detections.
public final class LiveDetection: @unchecked Sendable {
    private let detectors: [any Detector]
    private let recheck: RedactionRecheck?
    private let recheckLook: (any Detector)?
    private let tracker = Tracker()
    private let condition = NSCondition()
    private var pending: Frame?
    private var latest: (tick: Int64, observations: [Observation])?
    private var previous: (tick: Int64, observations: [Observation])?
    private var ended = false
    private var failure: DetectionError?
    private var detected = 0
    private var passedOver = 0
    /// Frames detected on so far.
    public var detections: Int { condition.withLock { detected } }
    /// Frames shown without a detection of their own (the worker was busy).
    public var skipped: Int { condition.withLock { passedOver } }

    /// Starts the worker with its detectors (used by it alone). With `recheck`, as when
    /// rendering, each detection's frame is redacted and looked at again, by `recheckLook`
    /// or else the face detector among `detectors`, and the heads whose outline is still
    /// found are widened: the preview redacts as the render will.
    public init(detectors: [any Detector], recheck: RedactionRecheck? = nil, recheckLook: (any Detector)? = nil) {
        self.detectors = detectors
        self.recheck = recheck
        self.recheckLook = recheckLook
        let thread = Thread { [self] in run() }
        thread.name = "vidfx.detect"
        thread.start()
    }

    deinit { end() }

    /// Stops the worker (after the detection in progress).
    public func end() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    /// The first error a detector raised, if any (detection then stops).
    public var error: DetectionError? { condition.withLock { failure } }

    /// What is in `frame`, as far as is known now: never waits.
    public func observe(_ frame: Frame) -> [Observation] {
        condition.lock()
        defer { condition.unlock() }
        if pending == nil && !busy && failure == nil {
            pending = frame
            condition.broadcast()
        } else {
            passedOver += 1
        }
        guard let latest else { return [] }
        return LiveDetection.carried(latest, previous, to: frame.tick)
    }

    private var busy = false

    private func run() {
        while true {
            condition.lock()
            while pending == nil && !ended { condition.wait() }
            guard !ended, let frame = pending else { condition.unlock(); return }
            pending = nil
            busy = true
            condition.unlock()
            var found: [Observation] = []
            var error: DetectionError?
            for detector in detectors {
                do throws(DetectionError) { found += try detector.detect(frame) } catch let e { error = e; break }
            }
            if error == nil, let recheck, let faces = recheckLook ?? detectors.first(where: { $0.name == "faces" }) {
                do throws(DetectionError) {
                    found = try recheck.run(on: frame, found: found) { (redacted) throws(DetectionError) in try faces.detect(redacted) }.observations
                } catch let e { error = e }
            }
            condition.lock()
            busy = false
            detected += 1
            if let error { failure = error } else {
                previous = latest
                latest = (frame.tick, tracker.assign(found))
            }
            condition.unlock()
        }
    }

    /// The boxes of the latest detection moved on to `tick` at each track's speed over
    /// the last two detections (at most as far ahead as those two were apart).
    static func carried(_ latest: (tick: Int64, observations: [Observation]), _ previous: (tick: Int64, observations: [Observation])?,
                        to tick: Int64) -> [Observation] {
        guard tick != latest.tick else { return latest.observations }
        guard let previous, latest.tick > previous.tick else {
            return latest.observations.map { var o = $0; o.isInterpolated = true; return o }
        }
        let span = Double(latest.tick - previous.tick)
        let ahead = min(Double(tick - latest.tick), span) / span
        let before = Dictionary(previous.observations.map { ($0.trackID, $0) }, uniquingKeysWith: { a, _ in a })
        return latest.observations.map { o in
            var moved = o
            moved.isInterpolated = true
            guard let p = before[o.trackID] else { return moved }
            let (dx, dy) = ((o.bounds.x - p.bounds.x) * ahead, (o.bounds.y - p.bounds.y) * ahead)
            moved.bounds.x += dx
            moved.bounds.y += dy
            moved.corners = o.corners.map { Point(x: $0.x + dx, y: $0.y + dy) }
            moved.landmarks = o.landmarks.mapValues { Point(x: $0.x + dx, y: $0.y + dy) }
            return moved
        }
    }
}
