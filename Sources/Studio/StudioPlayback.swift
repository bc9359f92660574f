import Effects
import Foundation
public import FrameCore
import FrameSource
import Playback
import Synchronization

/// What detection adds to live frames for a chain that draws or redacts detections
/// (faces, codes): the caller's live detector, which must never make playback wait.
public struct LiveAnnotation: Sendable {
    /// Attaches the newest observations to a frame about to be rendered.
    public var annotate: @Sendable (inout Frame) -> Void
    /// Stops the detector.
    public var end: @Sendable () -> Void

    /// - Parameters:
    ///   - annotate: attaches observations to a frame (called on the playback thread).
    ///   - end: stops the detector.
    public init(annotate: @escaping @Sendable (inout Frame) -> Void, end: @escaping @Sendable () -> Void) {
        self.annotate = annotate
        self.end = end
    }
}

/// The live preview: the input played by the ``Player`` through the page's chain to the
/// ``StudioSink``, looped, on a thread of its own. A seek starts a new source at the
/// tick asked for (the same frame-exact start `dump --at` uses), plays to the end, then
/// loops from the start; a chain edit is handed to the running player.
final class StudioPlayback: @unchecked Sendable {
    struct Setup: Sendable {
        var frameRate: Rational
        /// A source from `start` on; looping forever or playing once.
        var openSource: @Sendable (_ start: Rational, _ loopForever: Bool) throws -> FrameSource
        /// The live detection a chain needs, nil when it needs none.
        var detection: @Sendable (EffectChain?) throws -> LiveAnnotation?
        var resources: EffectResources
        /// One line for problems the page cannot be told of otherwise.
        var warn: @Sendable (String) -> Void
        /// Tells the pages that the chain failed on a frame (a shader past its time limit);
        /// playback goes on without it.
        var failed: @Sendable (String) -> Void = { _ in }
    }

    private struct Control {
        var chain: EffectChain?
        var seek: Int64?
        var stopped = false
        var player: Player?
        var playerNeeds = DetectionNeeds()
        var thread: Thread?
    }

    let sink: StudioSink
    private let setup: Setup
    private let control = Mutex(Control())
    private let done = Mutex<[CheckedContinuation<Void, Never>]?>([])

    init(setup: Setup) {
        self.setup = setup
        self.sink = StudioSink(frameRate: setup.frameRate)
    }

    /// Starts playing on a new thread.
    func start() {
        let thread = Thread { [self] in
            play()
            let waiting = done.withLock { w -> [CheckedContinuation<Void, Never>] in defer { w = nil }; return w ?? [] }
            for w in waiting { w.resume() }
        }
        thread.name = "studio playback"
        thread.start()
    }

    /// Uses `chain` from the next frame on; `edit` numbers it for the page.
    func setChain(_ chain: EffectChain?, edit: Int) {
        control.withLock { c in
            c.chain = chain
            sink.setEdit(edit)
            guard let player = c.player else { return }
            if (chain?.needs ?? []) != c.playerNeeds {
                // A detector to start or stop: a new player, where this one is.
                c.seek = sink.lastTick
                player.stop()
            } else {
                player.replaceChain(LiveChain(chain, resources: setup.resources))
            }
        }
    }

    /// The furthest tick a seek may ask for: 2^31 (over two years at 30 fps), far inside
    /// what the tick arithmetic holds at any frame rate.
    package static let largestTick: Int64 = 1 << 31

    /// Plays on from `tick` (on the input's timeline), clamped to 0…``largestTick``.
    func seek(tick: Int64) {
        control.withLock { c in
            c.seek = min(max(0, tick), Self.largestTick)
            c.player?.stop()
        }
    }

    /// Ends playback; returns once the thread has finished.
    func stop() async {
        control.withLock { c in
            c.stopped = true
            c.player?.stop()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = done.withLock { w -> Bool in
                guard w != nil else { return true }
                w!.append(continuation)
                return false
            }
            if finished { continuation.resume() }
        }
        sink.close()
    }

    private func play() {
        var startTick: Int64 = 0
        while true {
            let (chain, stopped, seek) = control.withLock { c in
                defer { c.seek = nil }
                return (c.chain, c.stopped, c.seek)
            }
            if stopped { return }
            if let seek { startTick = seek }
            let start = setup.frameRate.inverse * startTick
            let source: FrameSource
            let annotation: LiveAnnotation?
            do {
                source = try setup.openSource(start, startTick == 0)
            } catch {
                setup.warn("cannot play from \(start.seconds) s: \(error)")
                if !waitForSeek() { return }
                continue
            }
            do { annotation = try setup.detection(chain) } catch {
                setup.warn("\(error)")
                annotation = nil
            }
            var options = Player.Options()
            options.frameRate = setup.frameRate
            // From the start the source loops on; from a seek it plays to the end once,
            // then playback loops from the start.
            options.passes = startTick == 0 ? nil : 1
            let sink = self.sink
            let clock = InputTicks(startTick: startTick, frameRate: setup.frameRate)
            let frameTime = setup.frameRate.inverse
            let failed = setup.failed
            options.annotate = { [self] frame in
                // A chain that failed a frame (its pixels were left as they came) is told to
                // the pages once and dropped, so that a runaway shader does not hold the
                // device a limit's length every frame.
                if let why = control.withLock({ $0.chain?.failure }) {
                    setChain(nil, edit: sink.currentEdit)
                    failed(why)
                }
                // The source counts its ticks on from where it started, across loops; effects
                // want the input's time (keyframes, enable ranges), as `dump --at` gives them.
                frame.time = clock.time(of: frame)
                // Live detection follows the source's own ticks, which only go forward.
                annotation?.annotate(&frame)
                // Then the tick of the input's time, so that a caption's {tick} and
                // {timecode} after a seek or a loop are the ones `apply` burns in.
                frame.tick = frame.time.floor(in: frameTime)
                sink.keepOriginal(frame)
            }
            let player = Player(source: source, chain: LiveChain(chain, resources: setup.resources), sinks: [sink], options: options)
            let cancelled = control.withLock { c -> Bool in
                c.player = player
                c.playerNeeds = chain?.needs ?? []
                return c.stopped || c.seek != nil
            }
            if !cancelled {
                do { _ = try player.run() } catch { setup.warn("\(error)") }
            }
            source.close()
            annotation?.end()
            let next = control.withLock { c -> Int64? in
                c.player = nil
                return c.seek
            }
            // The end of a pass that began at a seek: loop from the start.
            if next == nil { startTick = 0 }
        }
    }

    /// After a failed start: waits for a seek (true) or the end (false).
    private func waitForSeek() -> Bool {
        while true {
            let (stopped, seek) = control.withLock { ($0.stopped, $0.seek) }
            if stopped { return false }
            if seek != nil { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}

/// Where a played frame is on the input's timeline: the source's ticks count on from
/// the start tick and through every loop; each pass starts the input again at tick 0.
/// Used on the playback thread only.
private final class InputTicks: @unchecked Sendable {
    private let startTick: Int64
    private let frameRate: Rational
    private var pass = 0
    private var passStart: Int64 = 0

    init(startTick: Int64, frameRate: Rational) {
        self.startTick = startTick
        self.frameRate = frameRate
    }

    func time(of frame: Frame) -> Rational {
        if frame.pass != pass {
            pass = frame.pass
            passStart = frame.tick
        }
        let tick = pass == 0 ? startTick + frame.tick : frame.tick - passStart
        return frameRate.inverse * tick
    }
}
