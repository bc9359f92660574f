public import FrameCore

/// A destination for rendered frames: a video file, a raw stream, a folder of images, or
/// several at once (``TeeSink``). Frames arrive in tick order from one thread; a sink
/// that works in the background (the encoder, the image writers) reports its failures
/// on a later ``write(_:)`` or on ``finish()``.
///
/// Every sink that writes files publishes them atomically: it builds its output beside
/// the target and moves it into place in ``finish()`` (``AtomicOutput``), so a failed or
/// interrupted render leaves the target as it was after ``abandon()``.
///
/// The preview sinks (``PreviewSink``) are views rather than destinations: they show
/// frames in real time and may skip them.
public protocol FrameSink: AnyObject {
    /// What the user called it (the output path, `-`), for messages.
    var name: String { get }
    /// Takes the next frame. Returns false when the destination's reader has gone (the
    /// program reading a pipe quit): the render then ends without an error.
    /// - Throws: ``SinkError`` naming the output and the cause.
    func write(_ frame: Frame) throws(SinkError) -> Bool
    /// Completes the output: waits for background work and moves the result into place.
    func finish() throws(SinkError)
    /// Drops the output after a failure or an interruption: the target keeps what it held,
    /// and no work file is left beside it.
    func abandon()
}

/// Writes every frame to each of several sinks (a video file and its frames as images).
/// Finishes them in order; one that fails makes the rest abandon.
public final class TeeSink: FrameSink {
    /// The sinks, in the order they receive each frame.
    public let sinks: [any FrameSink]
    private var open: [Bool]

    /// A tee over `sinks`.
    public init(_ sinks: [any FrameSink]) {
        self.sinks = sinks
        open = Array(repeating: true, count: sinks.count)
    }

    /// The sinks' names, joined by `+`.
    public var name: String { sinks.map(\.name).joined(separator: "+") }

    /// Writes to every sink whose reader is still there; false once none is.
    public func write(_ frame: Frame) throws(SinkError) -> Bool {
        for (i, sink) in sinks.enumerated() where open[i] {
            open[i] = try sink.write(frame)
        }
        return open.contains(true)
    }

    /// Finishes every sink; after the first failure, abandons the others and rethrows it.
    public func finish() throws(SinkError) {
        for (i, sink) in sinks.enumerated() {
            do { try sink.finish() } catch {
                for other in sinks[(i + 1)...] { other.abandon() }
                throw error
            }
        }
    }

    /// Abandons every sink.
    public func abandon() { for sink in sinks { sink.abandon() } }
}

/// Keeps every frame in memory: for tests and for callers that want the frames
/// themselves. ``limit`` bounds how many are kept (a closed reader after that many).
public final class CollectingSink: FrameSink {
    /// The frames written so far, in order.
    public private(set) var frames: [Frame] = []
    /// Whether ``finish()`` was called (and not ``abandon()``).
    public private(set) var isFinished = false
    /// The most frames kept; ``write(_:)`` returns false once it is reached.
    public let limit: Int

    /// A sink keeping up to `limit` frames.
    public init(limit: Int = .max) { self.limit = limit }

    /// "frames".
    public var name: String { "frames" }

    /// Keeps the frame; false once ``limit`` frames are kept.
    public func write(_ frame: Frame) throws(SinkError) -> Bool {
        guard frames.count < limit else { return false }
        frames.append(frame)
        return frames.count < limit
    }

    /// Marks the collection complete.
    public func finish() throws(SinkError) { isFinished = true }

    /// Drops what was collected.
    public func abandon() { frames.removeAll() }
}
