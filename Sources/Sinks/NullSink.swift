public import FrameCore

/// A sink that keeps no frame: for a render whose product is something else (its
/// detections file), and for measuring what comes before the sink.
public final class NullSink: FrameSink {
    /// A sink that drops every frame.
    public init() {}

    /// `null`.
    public var name: String { "null" }

    /// Drops the frame; the reader is always there.
    public func write(_ frame: Frame) throws(SinkError) -> Bool { true }

    /// Nothing to complete.
    public func finish() throws(SinkError) {}

    /// Nothing to drop.
    public func abandon() {}
}
