import Synchronization

/// A request to stop, for a sink's own blocking reads (the audio it copies or
/// transcodes from the input): set from any thread (a Ctrl-C handler), polled by
/// FFmpeg through `poll` while a read waits on the network or a pipe.
public final class StopSignal: Sendable {
    private let requested = Atomic<Bool>(false)

    /// A signal not yet raised.
    public init() {}

    /// Asks every read that polls this signal to give up (AVERROR_EXIT).
    public func request() { requested.store(true, ordering: .relaxed) }

    /// Whether ``request()`` was called.
    public var isRequested: Bool { requested.load(ordering: .relaxed) }

    /// FFmpeg's interrupt callback over a StopSignal passed unretained as `opaque`.
    static let poll: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { opaque in
        guard let opaque else { return 0 }
        return Unmanaged<StopSignal>.fromOpaque(opaque).takeUnretainedValue().isRequested ? 1 : 0
    }

    /// This signal as FFmpeg's `opaque` (valid while the signal is alive).
    var opaque: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}
