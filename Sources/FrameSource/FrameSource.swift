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
    private let pacer = Mutex(Pacer())

    /// Reads the video of `input` and its headers. Decoding starts with the first pull.
    /// - Throws: ``FrameSourceError`` naming the input and the cause.
    public init(input: MediaInput, configuration: Configuration = Configuration()) throws(FrameSourceError) {
        try configuration.validate(input: input.location)
        self.mediaInput = input
        self.configuration = configuration
        let interrupt = InterruptFlag(timeout: input.network.timeout)
        let decoder = try VideoDecoder(input: input, configuration: configuration, interrupt: interrupt)
        let queue = FrameQueue(capacity: configuration.prefetch)
        // Enough buffers for the queue, the frame being converted and a few held by the consumer.
        let pool = FramePool(capacity: configuration.prefetch + 2)
        self.info = decoder.info
        self.interrupt = interrupt
        self.queue = queue
        self.pending = Mutex(DecodeLoop(decoder: decoder, queue: queue, configuration: configuration, interrupt: interrupt, pool: pool))
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

    /// Delivery figures so far (realtime lateness and drops; delivered count in every mode).
    public var statistics: PlaybackStatistics { pacer.withLock { $0.statistics() } }

    /// The next frame, blocking until it is decoded (and, when realtime, until it is due).
    /// Returns nil at the end of the clip or after ``stop()``.
    public func nextFrame() throws(FrameSourceError) -> Frame? {
        start()
        while true {
            switch queue.take() {
            case .end(let error):
                if let error { throw error }
                return nil
            case .frame(let frame):
                switch admit(frame) {
                case .deliver: return frame
                case .drop: continue
                case .wait(let clock, let deadline):
                    clock.sleep(until: deadline)
                    if interrupt.stopRequested { return nil }
                    record(frame, clock: clock)
                    return frame
                }
            }
        }
    }

    /// The frames as an asynchronous sequence. Cancelling the iterating task stops the source.
    public func frames() -> Frames { Frames(source: self) }

    /// Async counterpart of ``nextFrame()``.
    func nextFrameAsync() async throws(FrameSourceError) -> Frame? {
        start()
        let result: Result<Frame?, FrameSourceError> = await withTaskCancellationHandler {
            while true {
                switch await queue.take() {
                case .end(let error):
                    if let error { return .failure(error) }
                    return .success(nil)
                case .frame(let frame):
                    switch admit(frame) {
                    case .deliver: return .success(frame)
                    case .drop: continue
                    case .wait(let clock, let deadline):
                        await clock.sleep(until: deadline)
                        if interrupt.stopRequested || Task.isCancelled { return .success(nil) }
                        record(frame, clock: clock)
                        return .success(frame)
                    }
                }
            }
        } onCancel: {
            self.stop()
        }
        return try result.get()
    }

    // MARK: Pacing

    private enum Admission {
        case deliver
        case drop
        case wait(any PlaybackClock, Duration)
    }

    /// Decides what to do with a frame taken from the queue.
    private func admit(_ frame: Frame) -> Admission {
        guard case .realtime(let clock) = configuration.pacing else {
            pacer.withLock { $0.delivered += 1 }
            return .deliver
        }
        let now = clock.now()
        let rate = configuration.frameRate
        return pacer.withLock { p in
            let origin = p.origin ?? (now - Pacer.duration(of: rate.inverse * frame.tick))
            p.origin = origin
            let due = origin + Pacer.duration(of: rate.inverse * frame.tick)
            let nextDue = origin + Pacer.duration(of: rate.inverse * (frame.tick + 1))
            if now >= nextDue {
                p.dropped += 1
                return .drop
            }
            return .wait(clock, due)
        }
    }

    private func record(_ frame: Frame, clock: any PlaybackClock) {
        let now = clock.now()
        let rate = configuration.frameRate
        pacer.withLock { p in
            p.delivered += 1
            if let origin = p.origin {
                p.lateness.record(now - (origin + Pacer.duration(of: rate.inverse * frame.tick)))
            }
        }
    }
}

/// Realtime delivery state.
private struct Pacer: ~Copyable {
    var origin: Duration?
    var delivered = 0
    var dropped = 0
    var lateness = LatenessHistogram()

    func statistics() -> PlaybackStatistics {
        var s = PlaybackStatistics(delivered: delivered, dropped: dropped)
        lateness.fill(&s)
        return s
    }

    static func duration(of seconds: Rational) -> Duration {
        // Exact to the nanosecond: seconds.numerator / denominator.
        let ns = Int128(seconds.numerator) * 1_000_000_000 / Int128(seconds.denominator)
        return .nanoseconds(Int64(ns))
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
