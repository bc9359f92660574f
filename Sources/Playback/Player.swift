import Effects
public import FrameCore
public import FrameSource
public import Sinks
import Synchronization

/// Plays a ``FrameSource`` through a live effect chain to preview sinks in real time,
/// the way a render view fed by a 30 Hz timer does, but as a real player.
///
/// Tick `k` is due at `origin + k / fps` on the clock, the origin set by the first
/// frame (for a live source, by the earliest-arriving one). A tick that would be a whole
/// tick late once its effects are rendered (judged by the recent render time) is
/// dropped before rendering (sinks that keep a timeline repeat their last frame), so a
/// slow frame costs later ticks, never drift. Otherwise the effects are rendered at once and the
/// frame is shown when due. While no sink is visible (minimized window) the clock
/// runs on and ticks pass without effects. Pausing stops the clock: on resume the
/// origin moves by the time spent paused.
///
/// The source should be unpaced and, for looping, set to loop forever: the player
/// decides when to stop (``Options/passes``, the `l` key), so looping can be toggled
/// while playing.
///
/// Call ``run()`` on one thread (the main thread when a window is among the sinks);
/// ``stop()`` may be called from any thread and ends playback within one tick.
public final class Player: @unchecked Sendable {
    /// How playback runs.
    public struct Options: Sendable {
        /// The cadence (the source's frame rate).
        public var frameRate: Rational = Rational(30)
        /// Passes over the clip to play; nil loops until stopped.
        public var passes: Int? = 1
        /// The clock pacing is measured against (inject a ``ManualClock`` in tests).
        public var clock: any PlaybackClock = MonotonicClock()
        /// How long a caption stays up after a key changed something.
        public var captionTime: Duration = .seconds(3)
        /// Called on each frame about to be rendered, before its effects: where a
        /// caller attaches what detection found, or gives the frame the time and tick the
        /// effects should see (it must not wait: playback is paced by the source's tick).
        public var annotate: (@Sendable (inout Frame) -> Void)?
        /// The source is a live capture, paced by its device: a frame that arrives
        /// before its due time moves the schedule earlier, so frames show as they come
        /// rather than as late as the first one did.
        public var live = false

        /// Defaults: 30 fps, one pass, the monotonic clock.
        public init() {}
    }

    /// How playback went.
    public struct Report: Sendable {
        /// Shown and dropped ticks, and lateness of the shown ones against their due time.
        public var statistics = PlaybackStatistics()
        /// Ticks that passed while no sink was visible (no effects rendered).
        public var hidden = 0
        /// True when playback ended by ``stop()`` or a quit key rather than at the end.
        public var stoppedEarly = false
    }

    private let source: FrameSource
    private var live: LiveChain
    private let sinks: [any PreviewSink]
    private let options: Options
    private let stopped = Atomic<Bool>(false)
    /// A chain handed over by ``replaceChain(_:)``, taken at the next tick.
    private let pendingChain = Mutex<LiveChain?>(nil)

    // Playback state, touched only by run().
    private var origin: Duration?
    private var paused = false
    private var pausedAt: Duration?
    private var passes: Int?
    private var currentPass = 0
    private var caption: String?
    private var captionUntil: Duration = .zero
    private var lastSource: Frame?
    private var lateness = LatenessHistogram()
    /// Recent time to render a frame's effects, so a frame that cannot be ready in time
    /// is dropped before it is rendered rather than shown late.
    private var renderCost: Duration = .zero
    private var report = Report()

    /// - Parameters:
    ///   - source: an unpaced source (see the type's notes on looping).
    ///   - chain: the effects, adjustable with the keys.
    ///   - sinks: where frames are shown; every sink gets every frame.
    public init(source: FrameSource, chain: LiveChain, sinks: [any PreviewSink], options: Options = Options()) {
        self.source = source
        self.live = chain
        self.sinks = sinks
        self.options = options
        self.passes = options.passes
    }

    /// Ends playback within one tick; safe from any thread or a signal handler's queue.
    public func stop() {
        stopped.store(true, ordering: .releasing)
        source.stop()
    }

    private var isStopped: Bool { stopped.load(ordering: .acquiring) }

    /// Replaces the effects from the next tick on; a paused picture is redrawn with
    /// them at once. Safe from any thread (a control surface calls it as the user edits).
    public func replaceChain(_ chain: LiveChain) {
        pendingChain.withLock { $0 = chain }
    }

    /// Plays until the clip (or the requested passes) ends, a sink's viewer goes
    /// away, a quit key, or ``stop()``.
    /// - Throws: the source's or a sink's error.
    public func run() throws -> Report {
        let clock = options.clock
        let tick = Self.duration(of: options.frameRate.inverse)
        playing: while !isStopped {
            guard try handleControls() else { break }
            if paused {
                clock.sleep(until: clock.now() + .milliseconds(10))
                continue
            }
            guard var frame = try source.nextFrame() else { break }
            if let passes, frame.pass >= passes { break }
            currentPass = frame.pass
            // The source's tick paces the frame; `annotate` may renumber it for the effects
            // (the studio's ticks on the input's timeline after a seek).
            let paced = frame.tick
            let now = clock.now()
            var origin = self.origin ?? (now - tick * Int(frame.tick))
            // Live: a frame here before its due time was queued behind a late first one
            // (the window opening, the device starting), and would keep every later
            // frame that late. The schedule follows the earliest arrival instead.
            if options.live { origin = min(origin, now - tick * Int(frame.tick)) }
            self.origin = origin
            var due = origin + tick * Int(frame.tick)
            if now + renderCost >= due + tick {
                // A tick late by the time it would be rendered: drop it before spending
                // time on effects.
                report.statistics.dropped += 1
                for sink in sinks { guard try sink.skip(tick: frame.tick) else { break playing } }
                continue
            }
            let visible = sinks.contains { $0.isVisible }
            lastSource = frame
            if visible {
                options.annotate?(&frame)
                describe(live.chain)
                live.chain?.apply(to: &frame)
                // What rendering costs, smoothed (1/8 of each new sample).
                renderCost = (renderCost * 7 + (clock.now() - now)) / 8
            }
            // Wait for the due time, still answering keys (a pause moves `origin`).
            while true {
                guard let current = self.origin, !isStopped else { break playing }
                due = current + tick * Int(paced)
                let now = clock.now()
                if now >= due && !paused { break }
                guard try handleControls() else { break playing }
                if paused { clock.sleep(until: clock.now() + .milliseconds(10)); continue }
                clock.sleep(until: min(due, now + .milliseconds(5)))
            }
            if !visible {
                report.hidden += 1
                continue
            }
            let shownAt = clock.now()
            for sink in sinks where sink.isVisible {
                guard try sink.show(frame, caption: captionText(at: shownAt)) else { break playing }
            }
            lateness.record(shownAt - due)
            report.statistics.delivered += 1
        }
        report.stoppedEarly = isStopped
        lateness.fill(&report.statistics)
        return report
    }

    // MARK: Controls

    /// Applies every pending control; false when one asks to quit.
    private func handleControls() throws -> Bool {
        if let next = pendingChain.withLock({ pending -> LiveChain? in defer { pending = nil }; return pending }) {
            live = next
            if paused { try redrawPaused() }
        }
        for sink in sinks {
            for control in sink.pollControls() {
                switch control {
                case .quit:
                    stopped.store(true, ordering: .releasing)
                    return false
                case .togglePause:
                    setPaused(!paused)
                case .pause:
                    setPaused(true)
                case .resume:
                    setPaused(false)
                case .previousEffect, .nextEffect:
                    try live.step(control == .nextEffect ? 1 : -1)
                    setCaption(live.caption)
                case .increase, .decrease:
                    try live.adjust(control == .increase ? 1 : -1)
                    setCaption(live.caption)
                case .toggleLoop:
                    if passes == nil || passes! > currentPass + 1 {
                        passes = currentPass + 1
                        setCaption("loop off: ends after this pass")
                    } else {
                        passes = nil
                        setCaption("loop on")
                    }
                }
                if paused, ![.togglePause, .pause, .resume].contains(control) { try redrawPaused() }
            }
        }
        return true
    }

    private func setPaused(_ pause: Bool) {
        guard pause != paused else { return }
        paused = pause
        if paused {
            pausedAt = options.clock.now()
            setCaption("paused")
        } else {
            // The clock stood still while paused: later ticks are due that much later.
            if let at = pausedAt, let o = origin { origin = o + (options.clock.now() - at) }
            pausedAt = nil
            setCaption("playing")
        }
    }

    private func setCaption(_ text: String) {
        caption = text
        captionUntil = options.clock.now() + options.captionTime
    }

    private func captionText(at time: Duration) -> String? {
        if paused { return "paused" + (caption.map { $0 == "paused" ? "" : " - " + $0 } ?? "") }
        return time < captionUntil ? caption : nil
    }

    /// Tells a chain not yet told the cadence and the input (a caption's timecode and name),
    /// and the length of a clip that plays once (a fade out then ends it, as in `apply`); a
    /// looping or live preview's length is not known.
    private func describe(_ chain: EffectChain?) {
        guard let chain, chain.frameRate == nil else { return }
        let once = source.configuration.loop == .once ? source.configuration.expectedTicks(for: source.info) : nil
        chain.describeOutput(frameRate: options.frameRate, ticks: once, input: source.input)
    }

    /// While paused, a changed effect is shown on the paused picture at once.
    private func redrawPaused() throws {
        guard var frame = lastSource else { return }
        options.annotate?(&frame)
        describe(live.chain)
        live.chain?.apply(to: &frame)
        for sink in sinks where sink.isVisible { _ = try sink.show(frame, caption: captionText(at: options.clock.now())) }
    }

    static func duration(of seconds: Rational) -> Duration {
        .nanoseconds(Int64(Int128(seconds.numerator) * 1_000_000_000 / Int128(seconds.denominator)))
    }
}
