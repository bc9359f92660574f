import Effects
import Foundation
import FrameCore
import FrameSource
import Playback
import Sinks
import Synchronization
import TestSupport
import Testing

let media = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("testmedia")

/// The source frame number drawn in the test clips' top half (12 blocks, LSB left).
func frameNumber(_ frame: Frame) -> Int {
    var n = 0
    for bit in 0..<12 {
        let p = frame.pixel(x: Int((Double(bit) + 0.5) * Double(frame.width) / 12), y: frame.height / 4)
        if (Int(p.r) + Int(p.g) + Int(p.b)) / 3 > 128 { n |= 1 << bit }
    }
    return n
}

/// A sink that records what it is given; it can take time on a manual clock, be
/// hidden, and type keys at chosen ticks.
final class RecordingSink: PreviewSink {
    let name = "test"
    var isVisible = true
    var shown: [(tick: Int64, pass: Int, number: Int, caption: String?)] = []
    var skipped: [Int64] = []
    var showCost: Duration = .zero
    /// What showing the first frame costs instead (a window opening).
    var firstShowCost: Duration?
    var clock: ManualClock?
    /// Controls to report at the poll after the given tick was shown.
    var script: [Int64: [PreviewControl]] = [:]
    /// Controls queued for the next poll.
    var queued: [PreviewControl] = []
    var firstPixel: [UInt32] = []
    /// After a pause this sink typed, resume on this many polls.
    var resumeAfterPolls: Int?
    private var pausedPolls: Int?

    func show(_ frame: Frame, caption: String?) throws(SinkError) -> Bool {
        shown.append((frame.tick, frame.pass, frameNumber(frame), caption))
        firstPixel.append(frame.withUnsafeBytes { $0.load(as: UInt32.self) })
        let cost = shown.count == 1 ? firstShowCost ?? showCost : showCost
        if let clock, cost > .zero { clock.advance(by: cost) }
        if let c = script.removeValue(forKey: frame.tick) { queued += c }
        return true
    }

    func skip(tick: Int64) throws(SinkError) -> Bool {
        skipped.append(tick)
        return true
    }

    func pollControls() -> [PreviewControl] {
        defer { queued.removeAll() }
        if queued.contains(.togglePause), pausedPolls == nil, resumeAfterPolls != nil { pausedPolls = 0; return queued }
        if var n = pausedPolls, let limit = resumeAfterPolls {
            n += 1
            pausedPolls = n
            if n == limit { resumeAfterPolls = nil; return [.togglePause] }
        }
        return queued
    }

    func close() {}
}

func source(_ name: String, loopForever: Bool = false, limit: Rational? = nil) throws -> FrameSource {
    var c = FrameSource.Configuration()
    if loopForever { c.loop = .forever }
    c.outputLimit = limit
    return try FrameSource(media.appendingPathComponent(name).path, configuration: c)
}

@Suite struct PlayerTests {
    @Test func loopSeamOverThreePassesRepeatsAndSkipsNothing() throws {
        let clock = ManualClock()
        let sink = RecordingSink()
        var options = Player.Options()
        options.clock = clock
        options.passes = 3
        let src = try source("h264-24fps.mp4", loopForever: true)
        defer { src.close() }
        let report = try Player(source: src, chain: LiveChain(nil), sinks: [sink], options: options).run()
        #expect(report.statistics.dropped == 0)
        #expect(sink.shown.count == 270, "3 s at 30 fps, three times")
        #expect(sink.shown.map(\.tick) == Array(0..<270), "ticks continue across the seams")
        let passes = (0..<3).map { p in sink.shown.filter { $0.pass == p }.map(\.number) }
        #expect(passes[0].count == 90 && passes[1] == passes[0] && passes[2] == passes[0], "every pass shows the same pictures")
        #expect(passes[0].first == 0 && passes[0].last == 71, "the whole 24 fps clip, first to last picture")
        #expect(report.statistics.p99Lateness == .zero, "a manual clock is never late")
    }

    @Test func slowSinkDropsLateTicksAndNeverDrifts() throws {
        let clock = ManualClock()
        let sink = RecordingSink()
        sink.clock = clock
        sink.showCost = .milliseconds(50)  // 1.5 ticks a frame
        var options = Player.Options()
        options.clock = clock
        let src = try source("h264-30fps.mp4")
        defer { src.close() }
        let report = try Player(source: src, chain: LiveChain(nil), sinks: [sink], options: options).run()
        let s = report.statistics
        #expect(s.delivered + s.dropped == 90, "every tick is shown or dropped")
        #expect(sink.skipped.count == s.dropped)
        #expect((29...31).contains(s.dropped), "one tick in three is dropped, got \(s.dropped)")
        // No drift: a shown tick is never more than one tick behind its due time.
        #expect(s.maxLateness < .milliseconds(34), "max lateness \(s.maxLateness)")
        // The clock ran for the clip's length plus one frame's cost, not more.
        #expect(clock.now() <= .milliseconds(3000 + 50 + 34))
    }

    /// A live source is paced by its device, so a frame in hand is shown at once: a slow
    /// first frame (a window opening) must not set a schedule that holds every later
    /// frame back by as much. Here every frame is in hand (the queue a live capture
    /// builds behind a slow start): live, they are shown without waiting on the clock;
    /// a file is paced as always.
    @Test(arguments: [true, false])
    func liveSourcesShowFramesAsTheyComeNotOnTheFirstFramesSchedule(live: Bool) throws {
        let clock = ManualClock()
        let sink = RecordingSink()
        sink.clock = clock
        sink.firstShowCost = .milliseconds(100)
        var options = Player.Options()
        options.clock = clock
        options.live = live
        let src = try source("h264-30fps.mp4")
        defer { src.close() }
        let report = try Player(source: src, chain: LiveChain(nil), sinks: [sink], options: options).run()
        let s = report.statistics
        #expect(s.delivered + s.dropped == 90 && s.dropped == 2, "ticks 1 and 2 were due during the first frame's 100 ms")
        if live {
            #expect(clock.now() == .milliseconds(100), "nothing waited after the first frame: \(clock.now())")
        } else {
            #expect(clock.now() >= .milliseconds(2960), "a file is paced through its 3 s: \(clock.now())")
        }
    }

    @Test func hiddenSinksKeepTheTimelineWithoutRendering() throws {
        let clock = ManualClock()
        let sink = RecordingSink()
        sink.isVisible = false
        var options = Player.Options()
        options.clock = clock
        let src = try source("h264-noaudio.mp4")
        defer { src.close() }
        let report = try Player(source: src, chain: LiveChain(try EffectChain(parsing: "sepia")), sinks: [sink], options: options).run()
        #expect(report.hidden == 60)
        #expect(report.statistics.delivered == 0 && sink.shown.isEmpty)
        #expect(clock.now() >= .milliseconds(1966), "the clock still ran through the clip")
    }

    @Test func pauseStopsTheClockAndResumesWithoutDrops() throws {
        let clock = ManualClock()
        let sink = RecordingSink()
        sink.script = [10: [.togglePause]]
        sink.resumeAfterPolls = 100  // the player polls every 10 ms while paused: one second
        var options = Player.Options()
        options.clock = clock
        let src = try source("h264-noaudio.mp4")
        defer { src.close() }
        let report = try Player(source: src, chain: LiveChain(nil), sinks: [sink], options: options).run()
        #expect(report.statistics.dropped == 0, "the pause does not make later ticks late")
        #expect(report.statistics.delivered == 60)
        #expect(report.statistics.maxLateness == .zero)
        #expect(clock.now() >= .milliseconds(2900), "about a second was spent paused, clock at \(clock.now())")
        #expect(sink.shown[11].caption == "playing", "resuming says so")
    }

    @Test func quitKeyEndsPlayback() throws {
        let sink = RecordingSink()
        sink.script = [5: [.quit]]
        var options = Player.Options()
        options.clock = ManualClock()
        let src = try source("h264-30fps.mp4")
        defer { src.close() }
        let report = try Player(source: src, chain: LiveChain(nil), sinks: [sink], options: options).run()
        #expect(sink.shown.count == 6)
        #expect(report.stoppedEarly)
    }

    @Test func keysChangeTheEffectWhilePlaying() throws {
        let sink = RecordingSink()
        // → from "none" gives the first preset; ↑ raises its first parameter.
        sink.script = [3: [.nextEffect], 6: [.increase]]
        var options = Player.Options()
        options.clock = ManualClock()
        let src = try source("h264-noaudio.mp4", limit: Rational(1, 3))
        defer { src.close() }
        _ = try Player(source: src, chain: LiveChain(nil), sinks: [sink], options: options).run()
        #expect(sink.shown.count == 10)
        #expect(sink.shown[3].caption == nil, "no caption before a key")
        let first = EffectRegistry.all.first { $0.descriptor.parameters.allSatisfy { $0.defaultValue != nil } }!.descriptor
        #expect(sink.shown[4].caption?.hasPrefix(first.name) == true, "caption \(sink.shown[4].caption ?? "nil")")
        #expect(sink.firstPixel[3] != sink.firstPixel[5] || sink.shown[3].number != sink.shown[5].number)
        #expect(sink.shown[7].caption != sink.shown[4].caption, "↑ changed the value shown")
    }
}

@Suite struct LiveChainTests {
    @Test func chainOfSeveralSelectsAndAdjustsWithinRange() throws {
        var live = LiveChain(try EffectChain(parsing: "posterize=6,pixelate=8"))
        #expect(live.caption == "1/2 posterize levels=6")
        try live.adjust(1)
        #expect(live.caption == "1/2 posterize levels=7.4", "a twentieth of the slider range 2…30")
        for _ in 0..<3 { try live.adjust(1) }  // 11.6: the top level rounds past white (clamped)
        for _ in 0..<100 { try live.adjust(-1) }
        let spec = EffectRegistry.effect(named: "posterize")!.descriptor.parameters[0]
        #expect(live.caption == "1/2 posterize levels=\(Int(spec.min!))", "stops at the bottom of the range")
        try live.step(1)
        #expect(live.caption.hasPrefix("2/2 pixelate size=8"))
        try live.step(1)
        #expect(live.caption.hasPrefix("1/2 posterize"), "wraps around")
        #expect(live.chain?.entries.count == 2)
    }

    @Test func presetsCycleThroughEveryEffectAndNone() throws {
        var live = LiveChain(try EffectChain(parsing: "sepia"))
        #expect(live.caption.hasPrefix("sepia"))
        var seen: [String] = []
        // Once round: every effect, and none.
        for _ in 0..<(EffectRegistry.all.count + 2) {
            try live.step(1)
            seen.append(live.chain?.entries.first.map { type(of: $0.effect).descriptor.name } ?? "none")
            if seen.last == "sepia" { break }
        }
        #expect(seen.contains("none") && seen.contains("posterize") && seen.contains("warhol"))
        #expect(!seen.contains("lut"), "effects that need a file are not presets")
        try live.adjust(1)
        let raised = live.caption
        try live.step(1)
        try live.step(-1)
        #expect(live.caption == raised, "a preset keeps its adjusted value")
    }
}

/// The player on the real clock, stopped from another thread: the serialized phase.
@Suite(.serialized, .timeLimit(.minutes(5))) struct PlayerRealClockTests {
    @Test func stopFromAnotherThreadEndsPlayback() async throws {
        let src = try source("h264-30fps.mp4", loopForever: true)
        defer { src.close() }
        let sink = RecordingSink()
        var options = Player.Options()
        options.passes = nil
        let player = Player(source: src, chain: LiveChain(nil), sinks: [sink], options: options)
        let stoppedAt = Mutex<ContinuousClock.Instant?>(nil)
        let stopper = Task {
            try await Task.sleep(for: .milliseconds(500))
            stoppedAt.withLock { $0 = .now }
            player.stop()
        }
        // run() plays on the real clock until stopped: on a thread of its own, not the test's.
        let report = try await Subprocess.offPool { try player.run() }
        try await stopper.value
        // The clip loops forever, so run() may return only after stop(); the suite's
        // time limit catches a hang. How soon it returns is bench/'s business.
        #expect(stoppedAt.withLock { $0 } != nil, "run() returned before anyone stopped it")
        #expect(report.stoppedEarly)
        #expect(sink.shown.count >= 5, "it played before the stop")
    }
}

/// ↑/↓ on a chain with keyframes and ranges: the adjusted parameter takes the value
/// shown; everything else keeps its keys and its ranges.
@Suite struct LiveChainKeyframeTests {
    @Test func adjustingKeepsTheRestOfTheTimeline() throws {
        let chain = try EffectChain(parsing: "sepia:amount=0@0,1@2:enable=1-3,hue:angle=0@0,90@2")
        var live = LiveChain(chain)
        try live.adjust(1)
        let entries = try #require(live.chain?.entries)
        #expect(entries.count == 2)
        #expect(!entries[0].parameters.isAnimated, "the adjusted amount is a value now")
        #expect(entries[0].enable == (try TimeRanges(parsing: "1-3", effect: "sepia")), "its range stays")
        #expect(entries[1].parameters.isAnimated, "the other effect keeps its keys")
        #expect(live.chain?.variesInTime == true)
    }

    /// ↑ steps faceblur's mode (its first parameter) from patch to erase to blur: the
    /// padding, never given, keeps following the mode (1 for the blur, not patch's 0.2).
    @Test func aModeChangedByTheKeysKeepsItsOwnDefaultPadding() throws {
        var live = LiveChain(try EffectChain(parsing: "faceblur"))
        try live.adjust(1)
        try live.adjust(1)
        let text = try #require(live.chain?.description)
        #expect(text.hasPrefix("faceblur:mode=blur") && !text.contains("padding"), "\(text)")
        var given = LiveChain(try EffectChain(parsing: "faceblur:padding=0.3"))
        try given.adjust(1)
        #expect(given.chain?.description.contains("padding=0.3") == true, "\(given.chain?.description ?? "")")
    }
}
