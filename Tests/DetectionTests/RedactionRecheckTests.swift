@testable import Detection
import Foundation
import FrameCore
import Testing

/// A face detector that finds one face on a plain frame, and on a redacted one (the
/// recheck marks it with a negative tick) the outline left where it was, `outlines`
/// times in all: a small one first, then a larger one. Its counts are behind a lock: a
/// live detection's worker may still be looking while a test reads them.
final class OutlineDetector: Detector, @unchecked Sendable {
    let name = "faces"
    private let lock = NSLock()
    private var left: Int, plain = 0, redacted = 0
    init(outlines: Int) { left = outlines }

    /// How many plain and redacted frames it has looked at.
    var plainLooks: Int { lock.withLock { plain } }
    var redactedLooks: Int { lock.withLock { redacted } }

    static let face = Rect(x: 100, y: 100, width: 40, height: 40)
    static let outlines = [Rect(x: 110, y: 104, width: 20, height: 24), Rect(x: 96, y: 90, width: 48, height: 60)]

    func detect(_ frame: Frame) throws(DetectionError) -> [Observation] {
        lock.withLock {
            guard frame.tick < 0 else {
                plain += 1
                return [Observation(kind: .face, bounds: Self.face, confidence: 0.9)]
            }
            redacted += 1
            guard left > 0 else { return [] }
            left -= 1
            return [Observation(kind: .face, bounds: Self.outlines[min(redacted - 1, 1)], confidence: 0.25)]
        }
    }
}

@Suite struct RedactionRecheckTests {
    @Test func aBoxOverAHeadWidensItsFaceWithinReachAndOthersAreLeftOut() {
        let face = Observation(kind: .face, bounds: Rect(x: 100, y: 100, width: 40, height: 40), confidence: 0.9, trackID: 3)
        let code = Observation(kind: .qr, bounds: Rect(x: 0, y: 0, width: 10, height: 10))
        let small = Observation(kind: .face, bounds: Rect(x: 110, y: 104, width: 20, height: 24), confidence: 0.25)
        let over = Observation(kind: .face, bounds: Rect(x: 96, y: 90, width: 48, height: 60), confidence: 0.25)
        let huge = Observation(kind: .face, bounds: Rect(x: 60, y: 60, width: 120, height: 120), confidence: 0.3)
        let missed = Observation(kind: .face, bounds: Rect(x: 400, y: 50, width: 10, height: 12), confidence: 0.3)
        let first = [code, face]

        // A small outline: its box grown twice about its centre (100…140 by 92…140), joined
        // to the face's.
        let (a, widenedA) = RedactionRecheck.widen(first, with: [small, missed, huge], first: first)
        #expect(widenedA == [1] && a[0] == code, "codes, boxes elsewhere and boxes over twice the face's size are left alone")
        #expect(a[1].trackID == 3 && a[1].bounds == Rect(x: 100, y: 92, width: 40, height: 48), "\(a[1].bounds)")

        // A larger one reaches past `reach` (0.6 of the face's size each side): the box stops there.
        let (b, widenedB) = RedactionRecheck.widen(a, with: [over], first: first)
        let r = RedactionRecheck.reach * 40
        #expect(widenedB == [1] && b[1].bounds == Rect(x: 100 - r, y: 100 - r, width: 40 + 2 * r, height: 40 + 2 * r), "\(b[1].bounds)")
        // At the limit, a look that finds the outline again widens nothing.
        #expect(RedactionRecheck.widen(b, with: [over], first: first).widened.isEmpty)
        #expect(RedactionRecheck.widen(first, with: [], first: first).observations == first)
    }

    func render(_ timeline: DetectionTimeline, ticks: Int) throws -> [Frame] {
        var out: [Frame] = []
        for k in 0..<ticks {
            var f = Frame(width: 8, height: 8)
            f.tick = Int64(k)
            out += try timeline.push(f)
        }
        return out + (try timeline.finish())
    }

    /// What the redacted frame still shows is taken in, a pass at a time, up to the
    /// passes given; a pass that finds nothing ends the recheck.
    @Test(arguments: [(0, 1), (1, 2), (5, 2)])
    func eachDetectionIsLookedAtAgain(outlines: Int, passes: Int) throws {
        let detector = OutlineDetector(outlines: outlines)
        let recheck = RedactionRecheck(passes: passes) { frame, observations in
            var redacted = frame
            redacted.tick = -1 - Int64(observations.count)
            return redacted
        }
        let timeline = DetectionTimeline(every: 4, detectorSets: [[detector]], redacting: true, recheck: recheck)
        let frames = try render(timeline, ticks: 1)
        #expect(frames.count == 1 && detector.plainLooks == 1)
        let found = min(outlines, passes)
        // A look that found something is followed by another while passes remain.
        #expect(detector.redactedLooks == min(passes, outlines + 1))
        #expect(timeline.recheckFinds == found)
        let box = try #require(frames[0].observations.first).bounds
        #expect(frames[0].observations.count == 1, "the outline widened the face's box, no new face")
        #expect(found == 0 ? box == OutlineDetector.face : box.height > OutlineDetector.face.height)
    }

    /// With a look of its own per worker (a smaller network), the recheck runs that one,
    /// and the first look's detector only ever sees plain frames.
    @Test func aRecheckLookOfItsOwnIsTheOneThatLooksAgain() throws {
        let sets = [OutlineDetector(outlines: 0), OutlineDetector(outlines: 0)]
        let looks = [OutlineDetector(outlines: 5), OutlineDetector(outlines: 5)]
        let recheck = RedactionRecheck(passes: 1) { frame, observations in
            var redacted = frame
            redacted.tick = -1 - Int64(observations.count)
            return redacted
        }
        let timeline = DetectionTimeline(every: 4, detectorSets: sets.map { [$0] }, redacting: true, recheck: recheck,
                                         recheckLooks: looks)
        let frames = try render(timeline, ticks: 9)
        #expect(frames.count == 9)
        #expect(sets.map(\.plainLooks).reduce(0, +) == 3 && sets.map(\.redactedLooks).reduce(0, +) == 0)
        #expect(looks.map(\.redactedLooks).reduce(0, +) == 3 && looks.map(\.plainLooks).reduce(0, +) == 0)
        #expect(timeline.recheckFinds == 3, "each detection's outline widened its face")
    }

    @Test func withoutARecheckTheFrameIsLookedAtOnce() throws {
        let detector = OutlineDetector(outlines: 3)
        _ = try render(DetectionTimeline(every: 4, detectorSets: [[detector]], redacting: true), ticks: 5)
        #expect(detector.plainLooks == 2 && detector.redactedLooks == 0)
    }
}
