@testable import Detection
import Foundation
import FrameCore
import Testing

/// A detector that reports a scripted scene: object A (a face) moving 10 px a tick from
/// x = 0, and object B appearing at tick `bAppears`, still, at x = 300.
final class ScriptedDetector: Detector {
    let name = "scripted"
    let bAppears: Int64
    private(set) var calls: [Int64] = []
    init(bAppears: Int64) { self.bAppears = bAppears }

    static func a(_ tick: Int64) -> Rect { Rect(x: Double(10 * tick), y: 20, width: 40, height: 40) }
    static let b = Rect(x: 300, y: 100, width: 50, height: 50)

    func detect(_ frame: Frame) throws(DetectionError) -> [Observation] {
        calls.append(frame.tick)
        var found = [Observation(kind: .face, bounds: Self.a(frame.tick), confidence: 0.9)]
        if frame.tick >= bAppears { found.append(Observation(kind: .face, bounds: Self.b, confidence: 0.8)) }
        return found
    }
}

final class FailingDetector: Detector {
    let name = "model"
    func detect(_ frame: Frame) throws(DetectionError) -> [Observation] {
        throw DetectionError("faces.onnx", "not a model file")
    }
}

@Suite struct TimelineTests {
    func frames(_ n: Int) -> [Frame] {
        (0..<n).map { k in var f = Frame(width: 8, height: 8); f.tick = Int64(k); return f }
    }

    func run(_ timeline: DetectionTimeline, _ frames: [Frame]) throws -> [Frame] {
        var out: [Frame] = []
        for f in frames { out += try timeline.push(f) }
        return out + (try timeline.finish())
    }

    @Test func everyFrameComesBackOnceInOrder() throws {
        for every in [1, 2, 4, 5] {
            let timeline = DetectionTimeline(every: every, detectorSets: [[ScriptedDetector(bAppears: 6)], [ScriptedDetector(bAppears: 6)]])
            let out = try run(timeline, frames(12))
            #expect(out.map(\.tick) == Array(0..<12), "every \(every)")
            // Detections on every Nth frame and on the last.
            let expected = Set(stride(from: 0, to: 12, by: every)).union([11]).count
            #expect(timeline.detections == expected)
        }
    }

    @Test func boxesMoveLinearlyBetweenDetectionsAndKeepTheirTrack() throws {
        let timeline = DetectionTimeline(every: 4, detectorSets: [[ScriptedDetector(bAppears: 100)]])
        let out = try run(timeline, frames(12))
        for f in out {
            let a = try #require(f.observations.first)
            #expect(f.observations.count == 1)
            #expect(a.trackID == 1, "tick \(f.tick)")
            #expect(abs(a.bounds.x - ScriptedDetector.a(f.tick).x) < 1e-9, "tick \(f.tick): linear motion is carried exactly")
            #expect(a.isInterpolated == !(f.tick % 4 == 0 || f.tick == 11))
        }
    }

    @Test func somethingThatAppearsIsCoveredFromItsFirstTick() throws {
        // B appears at tick 6; the detector sees it only at tick 8. Offline, ticks 5–7
        // already carry it (look-ahead), so a redaction covers it from tick 6 on.
        let timeline = DetectionTimeline(every: 4, detectorSets: [[ScriptedDetector(bAppears: 6)]])
        let out = try run(timeline, frames(12))
        for f in out where f.tick >= 6 {
            let b = f.observations.first { $0.bounds == ScriptedDetector.b }
            #expect(b != nil, "tick \(f.tick) covers B")
            #expect(b?.trackID == 2)
        }
        #expect(out[3].observations.count == 1, "before the interval B appears in, it is not there")
    }

    @Test func aDetectorFailureEndsTheRunWithItsReason() throws {
        let timeline = DetectionTimeline(every: 1, detectorSets: [[FailingDetector()]])
        #expect {
            _ = try run(timeline, frames(3))
        } throws: { error in
            "\(error)" == "faces.onnx: not a model file"
        }
    }

    @Test func theTrackerKeepsIDsAndStartsNewOnes() {
        let tracker = Tracker()
        let code = Observation(kind: .qr, bounds: Rect(x: 0, y: 0, width: 100, height: 100), payload: "menu")
        var moved = code
        moved.bounds.x = 400  // far away, no overlap: the payload says it is the same code
        let face = Observation(kind: .face, bounds: Rect(x: 0, y: 0, width: 100, height: 100))
        var nudged = face
        nudged.bounds.x = 20   // overlaps its last box (IoU 0.67)
        let first = tracker.assign([code, face])
        let second = tracker.assign([moved, nudged])
        #expect(first.map(\.trackID) == [1, 2])
        #expect(second.map(\.trackID) == [1, 2])
        var other = face
        other.bounds.x = 600   // a different face
        #expect(tracker.assign([other]).first?.trackID == 3)
        // Tracks end after `patience` missed detections; their IDs are never reused.
        for _ in 0...tracker.patience { _ = tracker.assign([]) }
        #expect(tracker.assign([nudged]).first?.trackID == 4)
    }
}

/// Live detection never waits: its results come from a worker thread in its own time,
/// so the test waits on the real clock, and a hang is the failure (the serialized phase).
@Suite(.serialized, .timeLimit(.minutes(5))) struct LiveDetectionRealClockTests {
    @Test func observingNeverWaitsAndResultsArriveLater() async throws {
        let live = LiveDetection(detectors: [ScriptedDetector(bAppears: 1000)])
        defer { live.end() }
        var frame = Frame(width: 8, height: 8)
        #expect(live.observe(frame).isEmpty, "nothing is known before the first detection")
        // The worker finishes in its own time (the suite's limit catches a hang).
        var seen: [Observation] = []
        while seen.isEmpty {
            try await Task.sleep(for: .milliseconds(5))
            frame.tick += 1
            seen = live.observe(frame)
        }
        #expect(seen.count == 1 && seen[0].trackID == 1)
        #expect(live.detections >= 1)
    }

    /// With the render's recheck, the preview's boxes are widened as the render's are: the
    /// outline its own look finds in the redacted frame, and the set's detector never looks twice.
    @Test func aRedactingPreviewRechecksAsTheRenderDoes() async throws {
        let first = OutlineDetector(outlines: 0), look = OutlineDetector(outlines: 100)
        let recheck = RedactionRecheck(passes: 1) { frame, observations in
            var redacted = frame
            redacted.tick = -1 - Int64(observations.count)
            return redacted
        }
        let live = LiveDetection(detectors: [first], recheck: recheck, recheckLook: look)
        defer { live.end() }
        var frame = Frame(width: 8, height: 8)
        var seen: [Observation] = []
        while seen.isEmpty {
            try await Task.sleep(for: .milliseconds(5))
            frame.tick += 1
            seen = live.observe(frame)
        }
        #expect(seen.count == 1, "the outline widened the face, no new face")
        #expect(seen[0].bounds.height > OutlineDetector.face.height, "\(seen[0].bounds)")
        #expect(first.redactedLooks == 0 && look.redactedLooks >= 1 && look.plainLooks == 0)
    }
}

/// Between detections, live boxes follow each track's motion: pure arithmetic, no limit.
@Suite struct LiveDetectionCarryTests {
    @Test func boxesAreCarriedAlongEachTracksMotion() {
        let a0 = Observation(kind: .face, bounds: Rect(x: 0, y: 0, width: 10, height: 10), trackID: 1)
        var a1 = a0
        a1.bounds.x = 20  // 20 px in 4 ticks
        let carried = LiveDetection.carried((8, [a1]), (4, [a0]), to: 10)
        #expect(carried.first?.bounds.x == 30 && carried.first?.isInterpolated == true)
        // No further ahead than the two detections were apart.
        #expect(LiveDetection.carried((8, [a1]), (4, [a0]), to: 100).first?.bounds.x == 40)
        #expect(LiveDetection.carried((8, [a1]), (4, [a0]), to: 8).first == a1)
    }
}
