import CFFmpeg
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

    /// The times of every packet of the best audio stream, read by a demuxer of the test's own.
    static func audioPacketTimes(_ path: String) throws -> [Double] {
        var format: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_open_input(&format, path, nil, nil) >= 0, let ctx = format else { throw CocoaError(.fileReadUnknown) }
        defer { avformat_close_input(&format) }
        _ = avformat_find_stream_info(ctx, nil)
        let index = av_find_best_stream(ctx, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        let tb = ctx.pointee.streams[Int(index)]!.pointee.time_base
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        var times: [Double] = []
        while av_read_frame(ctx, packet) >= 0 {
            if packet!.pointee.stream_index == index { times.append(Double(packet!.pointee.pts) * Double(tb.num) / Double(tb.den)) }
            av_packet_unref(packet)
        }
        return times
    }

    /// Drains pass `pass` of what `handoff` holds: the packets' times, and how it ended.
    static func drain(_ handoff: AudioHandoff, pass: Int, timeBase: AVRational) -> (times: [Double], ending: AudioHandoff.Next) {
        handoff.enter(pass: pass)
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        var times: [Double] = []
        while true {
            let next = handoff.next(into: packet!)
            guard next == .packet else { return (times, next) }
            times.append(Double(packet!.pointee.pts) * Double(timeBase.num) / Double(timeBase.den))
            av_packet_unref(packet)
        }
    }

    /// The video reader hands every audio packet it reads to the audio writer, pass by
    /// pass: the input has one demuxer. A whole clip looped twice gives every packet of the
    /// file in each pass; a clip from 1 s gives packets from before its start (the seek
    /// lands on a key frame at or before it, half a second early) through its end.
    @Test func theVideoReaderHandsTheAudioOverPassByPass() throws {
        let path = TestMedia.path("h264-30fps.mp4")
        let expected = try Self.audioPacketTimes(path)
        #expect(expected.count > 100)
        let input = try MediaInput(path, access: .shared)
        var configuration = FrameSource.Configuration()
        configuration.loop = .count(2)
        let source = try FrameSource(input: input, configuration: configuration)
        let handoff = try #require(input.audioHandoff)
        #expect(!handoff.claim(), "the source claimed it")
        var frames = 0
        while try source.nextFrame() != nil { frames += 1 }
        source.close()
        #expect(frames == 180)
        let stream = try #require(handoff.stream ?? nil)
        for pass in 0..<2 {
            let (times, ending) = Self.drain(handoff, pass: pass, timeBase: stream.timeBase)
            #expect(times == expected, "pass \(pass): \(times.count) packets of \(expected.count)")
            #expect(ending == .end)
        }

        let clip = try MediaInput(path, access: .shared)
        configuration = FrameSource.Configuration()
        configuration.start = Rational(1)
        configuration.duration = Rational(1)
        let part = try FrameSource(input: clip, configuration: configuration)
        while try part.nextFrame() != nil {}
        part.close()
        let partHandoff = try #require(clip.audioHandoff)
        let (times, ending) = Self.drain(partHandoff, pass: 0, timeBase: stream.timeBase)
        #expect(ending == .end)
        #expect((times.first ?? 9) <= 0.5 && (times.last ?? 0) >= 2, "\(times.first ?? -1)…\(times.last ?? -1)")
        #expect(times == times.sorted() && Set(times).count == times.count, "each packet once, in order")
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
