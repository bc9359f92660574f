import Effects
import FrameCore
import Render
import Sinks
import Testing

/// Frames 0..<count at 30 fps, each 4×2 and filled with its tick as its blue value; the
/// n-th carries the note "n"; throws at `failAt` when given.
final class CountingSupply: FrameSupply {
    let count: Int
    let failAt: Int?
    private(set) var given = 0

    struct Failure: Error {}

    init(count: Int, failAt: Int? = nil) {
        self.count = count
        self.failAt = failAt
    }

    func next() throws -> Frame? {
        guard given < count else { return nil }
        if given == failAt { throw Failure() }
        var frame = Frame(width: 4, height: 2)
        frame.tick = Int64(given)
        frame.time = Rational(Int64(given), 30)
        let value = UInt32(0xFF00_0000) | UInt32(given & 0xFF)
        let count = frame.bytesPerRow / 4 * frame.height
        frame.withUnsafeMutableBytes { b in
            let p = b.baseAddress!.assumingMemoryBound(to: UInt32.self)
            for i in 0..<count { p[i] = value }
        }
        given += 1
        return frame
    }

    func note(forFrame index: Int) -> String? { "\(index)" }
}

@Suite struct RendererTests {
    @Test func everyFrameOnceInOrderThenPublished() throws {
        let sink = CollectingSink()
        let renderer = Renderer(chain: nil, sink: sink)
        var progress: [Int] = []
        renderer.progress = { progress.append($0) }
        let outcome = try renderer.run(CountingSupply(count: 7))
        #expect(outcome == Renderer.Outcome(frames: 7, ending: .complete, published: true))
        #expect(sink.isFinished)
        #expect(sink.frames.map(\.tick) == Array(0..<7))
        #expect(progress == Array(1...7))
    }

    @Test func theChainRendersEachFrame() throws {
        let sink = CollectingSink()
        // Blue 128 over every frame (whose blue was its tick).
        let renderer = Renderer(chain: try EffectChain(parsing: "constantcolor=#102080"), sink: sink)
        _ = try renderer.run(CountingSupply(count: 3))
        let pixels = sink.frames.map { f in f.withUnsafeBytes { Array($0.prefix(4)) } }
        #expect(pixels == Array(repeating: [0x80, 0x20, 0x10, 0xFF], count: 3))
    }

    /// A segment: the effects and the sink see the whole render's ticks shifted, the
    /// ticks before the window's first are dropped, and the sink counts from 0.
    @Test func aWindowDropsEarlierTicksAndCountsFromZero() throws {
        let sink = CollectingSink()
        let renderer = Renderer(chain: nil, sink: sink)
        renderer.window = .init(shift: 10, first: 12, frameRate: Rational(30))
        let outcome = try renderer.run(CountingSupply(count: 6))  // whole-render ticks 10…15
        #expect(outcome.frames == 4)
        #expect(sink.frames.map(\.tick) == [0, 1, 2, 3])
        #expect(sink.frames.map(\.time) == [0, 1, 2, 3].map { Rational(Int64($0), 30) })
        // The pictures are the supply's ticks 2…5.
        #expect(sink.frames.map { f in f.withUnsafeBytes { $0[0] } } == [2, 3, 4, 5])
    }

    /// Notes follow their frames, also when `keep` drops some between.
    @Test func notesFollowTheirFramesPastDrops() throws {
        let sink = CollectingSink()
        let renderer = Renderer(chain: nil, sink: sink)
        renderer.keep = { $0.tick % 2 == 0 }
        var notes: [String] = []
        renderer.noted = { notes.append($0) }
        let outcome = try renderer.run(CountingSupply(count: 6))
        #expect(outcome.frames == 3)
        #expect(notes == ["0", "2", "4"])
    }

    @Test func aStopKeepsOrDropsWhatWasWrittenAsAsked() throws {
        for keeps in [true, false] {
            let sink = CollectingSink()
            let renderer = Renderer(chain: nil, sink: sink)
            renderer.keepsStoppedOutput = keeps
            var taken = 0
            renderer.isStopped = { taken >= 3 }
            renderer.progress = { taken = $0 }
            let outcome = try renderer.run(CountingSupply(count: 10))
            #expect(outcome.ending == .stopped && outcome.frames == 3)
            #expect(outcome.published == keeps && sink.isFinished == keeps)
        }
        // Stopped before any frame: nothing is published, whatever the setting.
        let sink = CollectingSink()
        let renderer = Renderer(chain: nil, sink: sink)
        renderer.isStopped = { true }
        let outcome = try renderer.run(CountingSupply(count: 10))
        #expect(outcome == Renderer.Outcome(frames: 0, ending: .stopped, published: false))
        #expect(!sink.isFinished)
    }

    @Test func aClosedReaderEndsTheRenderWithoutAnError() throws {
        let sink = CollectingSink(limit: 2)
        let supply = CountingSupply(count: 10)
        let outcome = try Renderer(chain: nil, sink: sink).run(supply)
        #expect(outcome.ending == .readerClosed && !outcome.published)
        // The render asked for no frame after the reader went.
        #expect(supply.given == 2)
    }

    @Test func anErrorAbandonsTheOutputAndIsRethrown() throws {
        let sink = CollectingSink()
        #expect(throws: CountingSupply.Failure.self) {
            _ = try Renderer(chain: nil, sink: sink).run(CountingSupply(count: 10, failAt: 4))
        }
        #expect(!sink.isFinished && sink.frames.isEmpty)
    }
}
