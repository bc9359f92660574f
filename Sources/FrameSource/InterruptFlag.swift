import CFFmpeg
import CFFmpegShim
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Lets any thread abort FFmpeg's blocking I/O: FFmpeg polls `shouldInterrupt`
/// during every read, so `stop()` and stalled networks end a read promptly instead
/// of waiting on a socket (FFmpeg's own reconnect logic can wait forever).
final class InterruptFlag: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let lastProgress = Atomic<Int64>(0)
    private let expired = Atomic<Bool>(false)
    private let timeoutNanoseconds: Int64
    /// The demuxer whose input bytes count as progress (its address), and the count
    /// last seen: a slow but steady download is not a stall, even inside one long
    /// FFmpeg call such as reading a whole file to find an index at its end.
    private let watched = Atomic<UInt>(0)
    private let bytesSeen = Atomic<Int64>(-1)

    /// While opening a network input and before its first byte: the opening thread's
    /// count of network error lines (-1 when disarmed). See ``armFailFast()``.
    private let failFastBaseline = Atomic<Int>(-1)
    private let networkFailure = Atomic<Bool>(false)
    /// The most bytes the watched demuxer may read before giving up (-1: no limit), and
    /// whether that ended a read. See ``limitBytes(_:)``.
    private let byteLimit = Atomic<Int64>(-1)
    private let overLimit = Atomic<Bool>(false)

    init(timeout: Duration) {
        let (s, atto) = timeout.components
        timeoutNanoseconds = s * 1_000_000_000 + atto / 1_000_000_000
        touch()
    }

    /// Asks every pending and future read to stop.
    func requestStop() { stopped.store(true, ordering: .relaxed) }

    var stopRequested: Bool { stopped.load(ordering: .relaxed) }

    /// Records that data arrived (restarts the no-data timer).
    func touch() { lastProgress.store(InterruptFlag.now(), ordering: .relaxed) }

    /// True once a read waited longer than the timeout.
    var timedOut: Bool { expired.load(ordering: .relaxed) }

    var timeoutDescription: String {
        let seconds = Double(timeoutNanoseconds) / 1e9
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    /// Counts bytes read through `context`'s I/O as progress. Call on the thread that
    /// reads it; the callback runs on that thread too.
    func watch(_ context: UnsafeMutablePointer<AVFormatContext>?) {
        watched.store(context.map { UInt(bitPattern: $0) } ?? 0, ordering: .relaxed)
        bytesSeen.store(-1, ordering: .relaxed)
    }

    /// Stops watching `context` (about to be freed) unless another one replaced it.
    func unwatch(_ context: UnsafeMutablePointer<AVFormatContext>?) {
        guard let context else { return }
        _ = watched.compareExchange(expected: UInt(bitPattern: context), desired: 0, ordering: .relaxed)
    }

    /// Call on the thread about to open a network input. Until its first byte arrives, a
    /// resolver, TCP or TLS error that FFmpeg logs ends the open at once: FFmpeg's
    /// reconnect logic would retry a refused connection or an unknown host until the
    /// timeout and then report only "no data". Once data has flowed, a failed reconnect
    /// is worth retrying, so the check disarms itself.
    func armFailFast() {
        networkFailure.store(false, ordering: .relaxed)
        failFastBaseline.store(Int(vfx_network_errors()), ordering: .relaxed)
    }

    /// Ends the open phase of ``armFailFast()``.
    func disarmFailFast() { failFastBaseline.store(-1, ordering: .relaxed) }

    /// True when a read was interrupted because the network failed before any data
    /// (the reason is the opening thread's last FFmpeg error line).
    var failedBeforeData: Bool { networkFailure.load(ordering: .relaxed) }

    /// Bounds what the watched demuxer may read from now on (nil: no bound). Opening an
    /// input uses it: a stream that never yields a packet (MPEG-TS null packets, noise on
    /// a pipe) would otherwise be read forever, since FFmpeg's probe size counts packets.
    func limitBytes(_ limit: Int64?) {
        byteLimit.store(limit ?? -1, ordering: .relaxed)
        // Lifting the limit keeps the verdict, for the error that follows.
        if limit != nil { overLimit.store(false, ordering: .relaxed) }
    }

    /// True when a read was interrupted by ``limitBytes(_:)``.
    var exceededByteLimit: Bool { overLimit.load(ordering: .relaxed) }

    /// Stop, or past the byte limit: what ends a read of an input that may pause as long
    /// as it likes (standard input), where no timeout applies.
    var shouldInterruptUntimed: Bool {
        if stopped.load(ordering: .relaxed) { return true }
        if let ctx = UnsafeMutablePointer<AVFormatContext>(bitPattern: watched.load(ordering: .relaxed)), let pb = ctx.pointee.pb {
            let n = pb.pointee.bytes_read
            if n != bytesSeen.load(ordering: .relaxed) {
                bytesSeen.store(n, ordering: .relaxed)
                touch()
            }
            let limit = byteLimit.load(ordering: .relaxed)
            if limit >= 0 && n > limit {
                overLimit.store(true, ordering: .relaxed)
                return true
            }
        }
        return false
    }

    /// Polled by FFmpeg from whichever thread is reading.
    var shouldInterrupt: Bool {
        if shouldInterruptUntimed { return true }
        let baseline = failFastBaseline.load(ordering: .relaxed)
        if baseline >= 0 {
            if bytesSeen.load(ordering: .relaxed) > 0 {
                disarmFailFast()
            } else if Int(vfx_network_errors()) > baseline {
                networkFailure.store(true, ordering: .relaxed)
                return true
            }
        }
        if InterruptFlag.now() - lastProgress.load(ordering: .relaxed) > timeoutNanoseconds {
            expired.store(true, ordering: .relaxed)
            return true
        }
        return false
    }

    private static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
