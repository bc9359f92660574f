public import FrameCore

/// A view that playback shows frames on: a window, a terminal, a pipe. Each sink
/// scales to its own size, so one decode can feed several. Sinks are driven from
/// one thread (the main thread: SDL requires it for windows).
///
/// Every preview sink is also a ``FrameSink``: a render can show its frames as it
/// writes them (a ``TeeSink`` of an encoder and a window), unpaced.
public protocol PreviewSink: FrameSink {
    /// What the user called it (`window`, `terminal`, `y4m`), for messages.
    var name: String { get }
    /// False while showing frames is pointless (a minimized or hidden window). When no
    /// sink is visible, playback keeps its clock but skips the effects.
    var isVisible: Bool { get }
    /// Shows a frame. `caption` is a line of text to overlay (the effect being
    /// adjusted and its value), nil for none. Returns false when the viewer has gone
    /// away (the pipe's reader quit): playback then ends without an error.
    func show(_ frame: Frame, caption: String?) throws(SinkError) -> Bool
    /// Called instead of ``show(_:caption:)`` for a tick that playback dropped because
    /// it was late. Timed streams (y4m) repeat their last frame so the reader's
    /// timeline stays whole; views on screen do nothing.
    func skip(tick: Int64) throws(SinkError) -> Bool
    /// Controls typed or clicked since the last call.
    func pollControls() -> [PreviewControl]
    /// Restores what the sink changed (terminal modes) and closes its window.
    func close()
}

extension PreviewSink {
    public func skip(tick: Int64) throws(SinkError) -> Bool { true }
    public func pollControls() -> [PreviewControl] { [] }

    /// Shows the frame (no caption); false once the viewer has gone.
    public func write(_ frame: Frame) throws(SinkError) -> Bool { try show(frame, caption: nil) }
    /// Closes the view: there is nothing to publish.
    public func finish() throws(SinkError) { close() }
    /// Closes the view.
    public func abandon() { close() }
}

/// A playback control from the keyboard or the window.
public enum PreviewControl: Sendable, Equatable {
    /// `q`, Esc, closing the window.
    case quit
    /// Space.
    case togglePause
    /// Pause, or play on, whatever the current state (a page's play and pause buttons).
    case pause, resume
    /// ← and →: the previous or next effect (of the chain, or of the preset list).
    case previousEffect, nextEffect
    /// ↑ and ↓: the current effect's first parameter, one step up or down its range.
    case increase, decrease
    /// `l`.
    case toggleLoop
}
