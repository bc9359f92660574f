import Foundation
import Synchronization

/// The stills a person asks for come before the studio's background work (the timeline's
/// scan of the whole clip, started when the studio opens): while a still is asked for or
/// being made, and for ``quiet`` after the last one, background work waits at its next
/// picture. A hand scrubbing a clip just opened then has both cores, as it has once the
/// timeline is made.
///
/// Background work waits on a thread of its own (never one of Swift's cooperative
/// threads); the clock is injected, so that tests decide when the quiet has passed.
final class StillPriority: Sendable {
    /// How long background work waits after the last still: a hand scrubbing asks every
    /// few tens of milliseconds, and the scan should not take the gaps between.
    let quiet: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state = Mutex<(asked: Int, lastEnd: ContinuousClock.Instant?)>((0, nil))

    init(quiet: Duration = .milliseconds(300), now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.quiet = quiet
        self.now = now
    }

    /// A still was asked for: background work waits until it is answered (``ended()``).
    func asked() { state.withLock { $0.asked += 1 } }

    /// A still was answered (or dropped).
    func ended() {
        let at = now()
        state.withLock { s in
            s.asked = max(0, s.asked - 1)
            s.lastEnd = at
        }
    }

    /// Whether background work should wait now.
    var stillsFirst: Bool {
        let at = now()
        return state.withLock { s in s.asked > 0 || s.lastEnd.map { at - $0 < quiet } ?? false }
    }

    /// Blocks the calling thread (background work's own) while ``stillsFirst``, looking
    /// again every `every`; returns at once when `stopped` says so.
    func waitForTurn(every: Duration = .milliseconds(10), stopped: () -> Bool) {
        let micro = useconds_t(max(1, every.components.seconds * 1_000_000 + every.components.attoseconds / 1_000_000_000_000))
        while stillsFirst, !stopped() { usleep(micro) }
    }
}
