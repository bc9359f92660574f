public import FrameCore
public import Foundation
public import MediaInput
import Synchronization

/// Frames of a video, decoded, converted to upright BGRA and resampled to a
/// constant cadence.
///
/// Tick `k` is shown at exactly `k / fps` seconds and carries the latest source
/// picture whose time is at or before that instant (ffmpeg's `fps=N:round=up`).
/// Decoding runs on its own thread, with FFmpeg's frame threading, up to
/// `prefetch` frames ahead of the consumer.
///
/// ```swift
/// let source = try FrameSource("clip.mp4")
/// for try await frame in source.frames() {
///     print(frame.tick, frame.time, frame.width, frame.height)
/// }
/// ```
///
/// Frames can be pulled with ``nextFrame()`` (blocking) or iterated with
/// ``frames()`` (suspending); use one consumer at a time. ``stop()`` may be called
/// from any thread or task; the sequence then ends at the consumer's next pull.
public final class FrameSource: Sendable {
    /// The input as given (path, `file:` / `http(s):` URL, or `-` for standard input).
    public var input: String { mediaInput.location }
    /// The input, opened once: other readers of it (the audio) share it.
    public let mediaInput: MediaInput
    /// What the input contains.
    public let info: MediaInfo
    /// How frames are produced.
    public let configuration: Configuration

    private let queue: FrameQueue
    private let interrupt: InterruptFlag
    private let pending: Mutex<DecodeLoop?>
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)
    private let damageCollector: DamageCollector
    private let audioHandoff: AudioHandoff?

    /// What reading has dropped so far: playlist segments skipped (each also warned
    /// about when met), damaged and undecodable packets. Safe to read from any thread.
    public var damage: InputDamage { damageCollector.damage }

    /// The part of the whole render's ticks this source plays, when opened for a segment
    /// (``init(input:configuration:segment:)``).
    public let span: TickSpan?

    /// Ticks `first..<end` of a render of `total` ticks.
    public struct TickSpan: Sendable, Equatable {
        /// The segment's first tick, numbered as in the whole render.
        public var first: Int64
        /// One past its last tick.
        public var end: Int64
        /// The whole render's tick count.
        public var total: Int64
        /// What to add to this source's tick numbers for the whole render's: the source
        /// starts at `first` when it can seek there (a clip played once), and plays
        /// through from tick 0 when it loops.
        public var shift: Int64
    }

    /// Reads the video of `input` and its headers. Decoding starts with the first pull.
    /// - Throws: ``FrameSourceError`` naming the input and the cause.
    public convenience init(input: MediaInput, configuration: Configuration = Configuration()) throws(FrameSourceError) {
        try self.init(input: input, configuration: configuration, pick: nil)
    }

    /// Reads one segment of a render split on tick boundaries: `segment(total)` picks the
    /// ticks from the whole render's count, which the input's headers give. The input is
    /// opened once, for the count and the frames alike. A clip played once seeks straight
    /// to the segment's first tick; a loop plays through and ends at the segment's end (a
    /// consumer drops the ticks before ``span``'s first).
    /// - Throws: ``FrameSourceError`` when the input does not say its length (a live
    ///   stream), or the segment is empty.
    public convenience init(input: MediaInput, configuration: Configuration = Configuration(),
                            segment: @escaping (_ total: Int64) -> Range<Int64>) throws(FrameSourceError) {
        try self.init(input: input, configuration: configuration, pick: segment)
    }

    private init(input: MediaInput, configuration: Configuration, pick: ((Int64) -> Range<Int64>)?) throws(FrameSourceError) {
        var configuration = configuration
        try configuration.validate(input: input.location)
        if input.isLive {
            func live(_ what: String) -> FrameSourceError {
                FrameSourceError(input: input.location, kind: .invalidConfiguration, reason: "a live capture cannot \(what)")
            }
            if configuration.loop != .once { throw live("loop (it has no end to loop from)") }
            if configuration.start > Rational(0) { throw live("start later (it has no timeline to seek in; --duration limits it)") }
        }
        self.mediaInput = input
        let interrupt = InterruptFlag(timeout: input.network.timeout)
        // The first source of a `.shared` input hands its audio to the audio writer.
        let handoff = input.audioHandoff.flatMap { $0.claim() ? $0 : nil }
        let decoder: VideoDecoder
        do {
            decoder = try VideoDecoder(input: input, configuration: configuration, interrupt: interrupt, audio: handoff)
        } catch {
            handoff?.readerEnded()
            throw error
        }
        self.damageCollector = decoder.damage
        configuration.takeRate(of: decoder)
        if let pick {
            guard let total = configuration.expectedTicks(for: decoder.info), total > 0 else {
                throw FrameSourceError(input: input.location, kind: .invalidConfiguration,
                                       reason: "a segment needs the input's length, which it does not say (a live stream?)")
            }
            let ticks = pick(Int64(total))
            guard !ticks.isEmpty else {
                throw FrameSourceError(input: input.location, kind: .invalidConfiguration,
                                       reason: "the segment is empty: the render has only \(total) ticks")
            }
            let rate = configuration.frameRate
            var shift: Int64 = 0
            if configuration.loop == .once {
                // Tick j of the shorter clip shows what tick first + j of the whole one shows
                // (the same picture rule). Start and duration are source times: a tick
                // covers `speed` of the source's seconds for each of the output's.
                let speed = configuration.speed
                configuration.start = configuration.start + rate.inverse * ticks.lowerBound * speed
                configuration.duration = rate.inverse * (ticks.upperBound - ticks.lowerBound) * speed
                shift = ticks.lowerBound
            } else {
                configuration.outputLimit = rate.inverse * ticks.upperBound
            }
            span = TickSpan(first: ticks.lowerBound, end: ticks.upperBound, total: Int64(total), shift: shift)
        } else {
            span = nil
        }
        self.configuration = configuration
        let queue = FrameQueue(capacity: configuration.prefetch)
        // Enough buffers for the queue, the frame being converted and a few held by the consumer.
        let pool = FramePool(capacity: configuration.prefetch + 2)
        self.info = decoder.info
        self.interrupt = interrupt
        self.queue = queue
        self.pending = Mutex(DecodeLoop(decoder: decoder, queue: queue, configuration: configuration, interrupt: interrupt, pool: pool))
        self.audioHandoff = decoder.audioHandoff
    }

    /// Opens a path, URL or `-` for one reader, front to back, with the default network
    /// settings. See ``init(input:configuration:)``.
    public convenience init(_ location: String, configuration: Configuration = Configuration()) throws(FrameSourceError) {
        let input: MediaInput
        do { input = try MediaInput(location) } catch {
            throw FrameSourceError(input: location, kind: .invalidConfiguration, reason: error.reason)
        }
        try self.init(input: input, configuration: configuration)
    }

    /// Opens a file or network URL. See ``init(input:configuration:)``.
    public convenience init(url: URL, configuration: Configuration = Configuration()) throws(FrameSourceError) {
        try self.init(url.isFileURL ? url.path : url.absoluteString, configuration: configuration)
    }

    deinit {
        stop()
    }

    /// Starts decoding now rather than at the first pull (to hide start-up latency).
    public func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        guard let loop = pending.withLock({ $0.take() }) else { finished.signal(); return }
        let box = LoopBox(loop)
        let done = finished
        let thread = Thread {
            box.run()
            done.signal()
        }
        thread.name = "vidfx.decode"
        thread.start()
    }

    /// Ends the sequence: the consumer's next pull returns nil, decoding stops, and
    /// every FFmpeg resource is released shortly after (``close()`` waits for that).
    public func stop() {
        interrupt.requestStop()
        queue.close()
        if !started.exchange(true, ordering: .acquiringAndReleasing) {
            audioHandoff?.readerEnded()  // never started: no audio will come
            _ = pending.withLock { $0.take() }  // never started: free the decoder here
            finished.signal()
        }
    }

    /// Stops and waits until the decode thread has ended and released FFmpeg's resources.
    public func close() {
        stop()
        finished.wait()
        finished.signal()  // let later close() calls through
    }

    /// The next frame, blocking until it is decoded. Returns nil at the end of the clip
    /// or after ``stop()``. Real-time pacing is the player's (`Playback`), not the source's.
    public func nextFrame() throws(FrameSourceError) -> Frame? {
        start()
        switch queue.take() {
        case .end(let error):
            if let error { throw error }
            return nil
        case .frame(let frame):
            return frame
        }
    }

    /// The frames as an asynchronous sequence. Cancelling the iterating task stops the source.
    public func frames() -> Frames { Frames(source: self) }

    /// Async counterpart of ``nextFrame()``.
    func nextFrameAsync() async throws(FrameSourceError) -> Frame? {
        start()
        let next = await withTaskCancellationHandler { await queue.take() } onCancel: { self.stop() }
        switch next {
        case .end(let error):
            if let error { throw error }
            return nil
        case .frame(let frame):
            return Task.isCancelled ? nil : frame
        }
    }
}

/// Hands the decode loop to its thread and drops it (freeing FFmpeg) as soon as it returns.
private final class LoopBox: @unchecked Sendable {
    private var loop: DecodeLoop?
    init(_ loop: DecodeLoop) { self.loop = loop }
    func run() {
        loop?.run()
        loop = nil
    }
}

extension FrameSource {
    /// The frames of a ``FrameSource`` as an `AsyncSequence`.
    public struct Frames: AsyncSequence, Sendable {
        public typealias Element = Frame
        public typealias Failure = FrameSourceError

        let source: FrameSource

        public func makeAsyncIterator() -> Iterator { Iterator(source: source) }

        /// Pulls frames from the source.
        public struct Iterator: AsyncIteratorProtocol {
            let source: FrameSource

            public mutating func next() async throws(FrameSourceError) -> Frame? {
                try await source.nextFrameAsync()
            }

            public mutating func next(isolation actor: isolated (any Actor)?) async throws(FrameSourceError) -> Frame? {
                try await source.nextFrameAsync()
            }
        }
    }
}
