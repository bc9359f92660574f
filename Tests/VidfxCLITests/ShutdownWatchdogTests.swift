import Foundation
import Synchronization
import Testing
@testable import vidfx

/// The studio's last resort after a signal (ShutdownWatchdog), on a schedule the test runs
/// by hand: no clock involved.
@Suite struct ShutdownWatchdogTests {
    /// A watchdog whose grace periods wait until `lapse()`, and the signals it acted on.
    final class Watched: Sendable {
        /// What the watchdog scheduled and did, behind a lock.
        final class Record: Sendable {
            let pending = Mutex<[@Sendable () -> Void]>([])
            let signals = Mutex<[Int32]>([])
        }
        private let record = Record()
        let watchdog: ShutdownWatchdog

        init() {
            let record = self.record
            watchdog = ShutdownWatchdog(grace: .seconds(2), watchSignals: false,
                                        schedule: { work in record.pending.withLock { $0.append(work) } },
                                        act: { sig in record.signals.withLock { $0.append(sig) } })
        }

        /// Runs every grace period scheduled so far, as if its time had come.
        func lapse() { for work in record.pending.withLock({ list in defer { list = [] }; return list }) { work() } }
        var acted: [Int32] { record.signals.withLock { $0 } }
    }

    @Test func aGraceThatLapsesActsOnceWithTheFirstSignal() {
        let watched = Watched()
        watched.watchdog.signalled(SIGTERM)
        watched.watchdog.signalled(SIGINT)
        #expect(watched.acted.isEmpty, "nothing before the grace lapses")
        watched.lapse()
        #expect(watched.acted == [SIGTERM])
    }

    /// The CI failure of stop 55: the shutdown had finished, LeakSanitizer's scan at exit took
    /// longer than the grace, and the grace period scheduled before `end()` still ended the
    /// process with 143.
    @Test func aGraceThatLapsesAfterTheEndDoesNothing() {
        let watched = Watched()
        watched.watchdog.signalled(SIGTERM)
        watched.watchdog.end()
        watched.lapse()
        #expect(watched.acted.isEmpty)
    }
}
