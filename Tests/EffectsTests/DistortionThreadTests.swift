import Effects
import FrameCore
import Testing

/// A distortion keeps its output→source map per frame size; one chain (its effect
/// objects) applied from many tasks at once to frames of different sizes, as the
/// redaction's recheck does on its workers, gives each frame what a chain of its own
/// gives it.
@Suite struct DistortionThreadTests {
    static let chain = "kaleidoscope:count=5:angle=20,affine:transform=0.8,0.1,-0.1,0.8,6,4,straighten:angle=10"

    @Test func oneChainOnManyThreadsAndSizes() async throws {
        let shared = try EffectChain(parsing: Self.chain)
        let sizes = [(96, 64), (64, 96), (80, 80), (50, 30), (120, 40), (33, 71)]
        let expected = try sizes.map { w, h in
            try EffectChain(parsing: Self.chain).apply(to: Fixture.random(width: w, height: h, seed: UInt64(w * 1000 + h)), time: 0).packedBytes()
        }
        let results = await withTaskGroup(of: (Int, Bool).self) { group in
            // More sizes than the map keeps (4): maps are dropped and built again meanwhile.
            for round in 0..<48 {
                let i = round % sizes.count
                let (w, h) = sizes[i]
                group.addTask {
                    let out = shared.apply(to: Fixture.random(width: w, height: h, seed: UInt64(w * 1000 + h)), time: 0)
                    return (i, out.packedBytes() == expected[i])
                }
            }
            var all: [(Int, Bool)] = []
            for await r in group { all.append(r) }
            return all
        }
        #expect(results.count == 48)
        let wrong = results.filter { !$0.1 }.map { sizes[$0.0] }
        #expect(wrong.isEmpty, "frames differ from a chain of their own at \(wrong)")
    }
}
