import Foundation
import FrameCore
import FrameSource
import MediaInput
import Testing

/// One input read by several readers, and the loop-pass table they share.
@Suite struct MediaInputTests {
    @Test func aLoopedSourceRecordsWhereEachPassBegins() throws {
        // 3 s clip from 1 s, 0.5 s long, three passes: passes begin at 0, 0.5 and 1.0 s.
        let input = try MediaInput(TestMedia.path("h264-30fps.mp4"))
        var configuration = FrameSource.Configuration()
        configuration.start = Rational(1)
        configuration.duration = Rational(1, 2)
        configuration.loop = .count(3)
        let source = try FrameSource(input: input, configuration: configuration)
        defer { source.close() }
        var firstTickOfPass: [Int: Int64] = [:]
        while let frame = try source.nextFrame() {
            if firstTickOfPass[frame.pass] == nil { firstTickOfPass[frame.pass] = frame.tick }
            // The pass is recorded before any of its frames is delivered.
            #expect(input.passes.start(of: frame.pass) == Rational(Int64(frame.pass), 2), "tick \(frame.tick)")
        }
        #expect(firstTickOfPass == [0: 0, 1: 15, 2: 30])
    }

    @Test func thePassTableStaysSmallHoweverManyLoops() {
        let passes = LoopPasses()
        for pass in 1...10_000 { passes.begin(pass, at: Rational(Int64(pass), 10)) }
        #expect(passes.start(of: 10_000) == Rational(1000))
        #expect(passes.start(of: 10_000 - LoopPasses.remembered + 1) == Rational(Int64(10_000 - LoopPasses.remembered + 1), 10))
        #expect(passes.start(of: 5) == Rational(0), "long-gone passes are forgotten")
    }

    @Test func twoReadersOfOneFileInputDecodeTheSameFrames() throws {
        let input = try MediaInput(TestMedia.path("h264-25fps.mp4"), access: .shared)
        var configuration = FrameSource.Configuration()
        configuration.duration = Rational(1)
        let a = try FrameSource(input: input, configuration: configuration)
        let b = try FrameSource(input: input, configuration: configuration)
        defer { a.close(); b.close() }
        var count = 0
        while let x = try a.nextFrame() {
            let y = try #require(try b.nextFrame())
            #expect(TestMedia.frameNumber(x) == TestMedia.frameNumber(y))
            count += 1
        }
        #expect(count == 30)
        #expect(try b.nextFrame() == nil)
    }

    @Test func aHeaderWithALineBreakIsRefusedNamingTheInput() {
        var network = MediaInput.Network()
        network.headers = ["X-A: b\r\nX-Injected: 1"]
        #expect {
            _ = try MediaInput("http://127.0.0.1:9/clip.mp4", network: network)
        } throws: { error in
            "\(error)".hasPrefix("http://127.0.0.1:9/clip.mp4: header")
        }
    }
}
