import Foundation
import Synchronization

/// A monotonic clock that realtime playback is paced against. Inject a
/// ``ManualClock`` to test pacing without sleeping.
public protocol PlaybackClock: Sendable {
    /// Time elapsed since an arbitrary fixed origin; never goes backwards.
    func now() -> Duration
    /// Blocks the calling thread until `now() >= deadline`.
    func sleep(until deadline: Duration)
    /// Suspends the calling task until `now() >= deadline` (returns early when cancelled).
    func sleep(until deadline: Duration) async
}

/// The system's monotonic clock (`ContinuousClock`).
public struct MonotonicClock: PlaybackClock {
    private let origin = ContinuousClock.now

    /// Creates a clock whose origin is now.
    public init() {}

    public func now() -> Duration { origin.duration(to: .now) }

    public func sleep(until deadline: Duration) {
        let remaining = deadline - now()
        guard remaining > .zero else { return }
        let (s, atto) = remaining.components
        var ts = timespec(tv_sec: Int(s), tv_nsec: Int(atto / 1_000_000_000))
        var rest = timespec()
        while nanosleep(&ts, &rest) != 0 && errno == EINTR { ts = rest }
    }

    public func sleep(until deadline: Duration) async {
        try? await Task.sleep(until: origin + deadline, clock: .continuous)
    }
}

/// A clock that moves only when told: `sleep` jumps straight to the deadline, and
/// ``advance(by:)`` simulates work taking time. Deterministic pacing for tests.
public final class ManualClock: PlaybackClock {
    private let current = Mutex<Duration>(.zero)

    /// Creates a clock at time zero.
    public init() {}

    public func now() -> Duration { current.withLock { $0 } }

    /// Moves the clock forward.
    public func advance(by amount: Duration) { current.withLock { $0 += amount } }

    public func sleep(until deadline: Duration) { advance(to: deadline) }

    public func sleep(until deadline: Duration) async { advance(to: deadline) }

    private func advance(to deadline: Duration) { current.withLock { $0 = max($0, deadline) } }
}
