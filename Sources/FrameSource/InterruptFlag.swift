import CFFmpeg
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

    /// Polled by FFmpeg from whichever thread is reading.
    var shouldInterrupt: Bool {
        if stopped.load(ordering: .relaxed) { return true }
        if let ctx = UnsafeMutablePointer<AVFormatContext>(bitPattern: watched.load(ordering: .relaxed)), let pb = ctx.pointee.pb {
            let n = pb.pointee.bytes_read
            if n != bytesSeen.load(ordering: .relaxed) {
                bytesSeen.store(n, ordering: .relaxed)
                touch()
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
