import FrameCore
import FrameSource
import Foundation
@testable import Render
import Testing

/// The detection stage's cut finder (issue 67, 4) finds the hard cuts `vidfx scenes`
/// finds on the cut test clip, decided on the frame itself, and nothing within a shot.
@Suite struct ShotChangesTests {
    @Test func theCutsOfTheClipAreFoundOnTheirFrames() throws {
        let source = try FrameSource(RenderPlanTests.media("cuts.mp4"))
        defer { source.close() }
        let shots = ShotChanges()
        var flagged: [Int64] = []
        while let frame = try source.nextFrame() {
            if shots.startsShot(frame) { flagged.append(frame.tick) }
        }
        // `vidfx scenes testmedia/cuts.mp4`: 7 cuts, at these pictures (30 fps, as the source).
        let scenes: [Int64] = [60, 105, 141, 159, 186, 222, 244]
        #expect(Set(flagged).isSuperset(of: scenes), "\(flagged)")
        #expect(flagged.count <= scenes.count + 2, "\(flagged)")
        #expect(!flagged.contains(0))
    }
}
