@testable import Detection
import Foundation
import FrameCore
import Testing

/// A face detector that finds one face on a plain frame, and on a redacted one (the
/// recheck marks it with a negative tick) the outline left where it was, `outlines`
/// times in all.
final class OutlineDetector: Detector {
    let name = "faces"
    var outlines: Int
    private(set) var plainLooks = 0, redactedLooks = 0
    init(outlines: Int) { self.outlines = outlines }

    static let face = Rect(x: 100, y: 100, width: 40, height: 40)
    static let outline = Rect(x: 96, y: 90, width: 48, height: 60)

    func detect(_ frame: Frame) throws(DetectionError) -> [Observation] {
        guard frame.tick < 0 else {
            plainLooks += 1
            return [Observation(kind: .face, bounds: Self.face, confidence: 0.9)]
        }
        redactedLooks += 1
        guard outlines > 0 else { return [] }
        outlines -= 1
        return [Observation(kind: .face, bounds: Self.outline, confidence: 0.25)]
    }
}

@Suite struct RedactionRecheckTests {
    @Test func aBoxOverAHeadWidensItsFaceAndOneElsewhereIsLeftOut() {
        let face = Observation(kind: .face, bounds: Rect(x: 100, y: 100, width: 40, height: 40), confidence: 0.9, trackID: 3)
        let code = Observation(kind: .qr, bounds: Rect(x: 0, y: 0, width: 10, height: 10))
        let over = Observation(kind: .face, bounds: Rect(x: 96, y: 90, width: 48, height: 60), confidence: 0.25)
        let missed = Observation(kind: .face, bounds: Rect(x: 400, y: 50, width: 10, height: 12), confidence: 0.3)
        let (out, taken) = RedactionRecheck.widen([code, face], with: [over, missed])
        #expect(taken == 1)
        #expect(out.count == 2)
        #expect(out[0] == code, "codes are left alone")
        // The outline grown by `growth` about its centre, joined to the face's box.
        let g = RedactionRecheck.growth
        let grown = Rect(x: 120 - 24 * g, y: 120 - 30 * g, width: 48 * g, height: 60 * g)
        #expect(out[1].trackID == 3 && out[1].bounds == Rect(x: min(100, grown.x), y: min(100, grown.y),
                                                             width: max(140, grown.x + grown.width) - min(100, grown.x),
                                                             height: max(140, grown.y + grown.height) - min(100, grown.y)))
        #expect(out[1].bounds.width > 40 && out[1].bounds.height > 60, "wider than both the face and the outline")
        #expect(RedactionRecheck.widen([face], with: []).observations == [face])
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
        #expect(found == 0 ? box == OutlineDetector.face : box.width > OutlineDetector.outline.width)
    }

    @Test func withoutARecheckTheFrameIsLookedAtOnce() throws {
        let detector = OutlineDetector(outlines: 3)
        _ = try render(DetectionTimeline(every: 4, detectorSets: [[detector]], redacting: true), ticks: 5)
        #expect(detector.plainLooks == 2 && detector.redactedLooks == 0)
    }
}
