@testable import Detection
import Foundation
import FrameCore
import Synchronization
import Testing

/// Issue 67, 4: boxes end at a hard cut. A face seen in the first shot is neither carried
/// over the frames of the next shot between two detections, nor held there by the
/// tracker; a face of the second shot is not drawn back over the first.
@Suite struct ShotCutTests {
    /// Sees a face on frames whose tick is below `cut` (the first shot), another one
    /// elsewhere on frames from `secondFace` on (nil: none), and counts its looks.
    final class ShotDetector: Detector, @unchecked Sendable {
        let cut: Int64, secondFace: Int64?
        let looked = Mutex<[Int64]>([])
        init(cut: Int64, secondFace: Int64?) { (self.cut, self.secondFace) = (cut, secondFace) }
        var name: String { "faces" }
        static let first = Rect(x: 10, y: 10, width: 20, height: 20), second = Rect(x: 60, y: 40, width: 20, height: 20)
        func detect(_ frame: Frame) throws(DetectionError) -> [Observation] {
            looked.withLock { $0.append(frame.tick) }
            if frame.tick < cut { return [Observation(kind: .face, bounds: Self.first, confidence: 0.9)] }
            if let secondFace, frame.tick >= secondFace { return [Observation(kind: .face, bounds: Self.second, confidence: 0.9)] }
            return []
        }
    }

    static func render(_ timeline: DetectionTimeline, ticks: Int, cut: Int64?) throws -> [Frame] {
        var out: [Frame] = []
        for k in 0..<ticks {
            var f = Frame(width: 96, height: 64)
            f.tick = Int64(k)
            out += try timeline.push(f, startsShot: Int64(k) == cut)
        }
        return out + (try timeline.finish())
    }

    @Test(arguments: [false, true])
    func noBoxCrossesACut(redacting: Bool) throws {
        // Detections every 4 frames: 0, 4, 8, 12…; the cut at 10 falls between two.
        let detector = ShotDetector(cut: 10, secondFace: 14)
        let timeline = DetectionTimeline(every: 4, detectorSets: [[detector]], redacting: redacting)
        let frames = try Self.render(timeline, ticks: 24, cut: 10)
        #expect(frames.map(\.tick) == (0..<24).map(Int64.init))
        for f in frames {
            let boxes = f.observations.map(\.bounds)
            if f.tick < 10 {
                #expect(boxes.contains { $0.iou(ShotDetector.first) > 0.5 } && !boxes.contains(ShotDetector.second), "tick \(f.tick): \(boxes)")
            } else {
                #expect(!boxes.contains { $0.iou(ShotDetector.first) > 0.1 }, "tick \(f.tick) carries the first shot's face: \(boxes)")
            }
        }
        // The frames either side of the cut were looked at, and the cadence goes on from it.
        let looked = Set(detector.looked.withLock { $0 })
        #expect(looked.isSuperset(of: [0, 4, 8, 9, 10, 14, 18, 22, 23]), "\(looked.sorted())")
    }

    /// Without a cut, the same frames are carried and held as before: the cut is what ends them.
    @Test func withoutACutTheBoxIsCarried() throws {
        let detector = ShotDetector(cut: 10, secondFace: nil)
        let timeline = DetectionTimeline(every: 4, detectorSets: [[detector]], redacting: true)
        let frames = try Self.render(timeline, ticks: 24, cut: nil)
        #expect(frames[10].observations.contains { $0.bounds.iou(ShotDetector.first) > 0.1 },
                "tick 10: the face of detection 8 is carried towards detection 12")
        #expect(Set(detector.looked.withLock { $0 }) == [0, 4, 8, 12, 16, 20, 23])
    }
}
