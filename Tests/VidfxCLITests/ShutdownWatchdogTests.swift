import Foundation
import Synchronization
import Testing
@testable import vidfx

/// The studio's last resort after a signal (ShutdownWatchdog), on a schedule the test runs
/// by hand: no clock involved.
@Suite struct ShutdownWatchdogTests {
    final class Schedule: Sendable {
        let pending = Mutex<[@Sendable () -> Void]>([])
        func add(_ work: @escaping @Sendable () -> Void) { pending.withLock { $0.append(work) } }
        func lapse() { for work in pending.withLock({ list in defer { list = [] }; return list }) { work() } }
    }

    @Test func aGraceThatLapsesActsOnceWithTheFirstSignal() {
        let schedule = Schedule()
        let acted = Mutex<[Int32]>([])
        let watchdog = ShutdownWatchdog(grace: .seconds(2), watchSignals: false, schedule: schedule.add) { sig in
            acted.withLock { $0.append(sig) }
        }
        watchdog.signalled(SIGTERM)
        watchdog.signalled(SIGINT)
        #expect(acted.withLock { $0 }.isEmpty, "nothing before the grace lapses")
        schedule.lapse()
        #expect(acted.withLock { $0 } == [SIGTERM])
        withExtendedLifetime(watchdog) {}
    }

    /// The CI failure of stop 55: the shutdown had finished, LeakSanitizer's scan at exit took
    /// longer than the grace, and the grace period scheduled before `end()` still ended the
    /// process with 143.
    @Test func aGraceThatLapsesAfterTheEndDoesNothing() {
        let schedule = Schedule()
        let acted = Mutex<[Int32]>([])
        let watchdog = ShutdownWatchdog(grace: .seconds(2), watchSignals: false, schedule: schedule.add) { sig in
            acted.withLock { $0.append(sig) }
        }
        watchdog.signalled(SIGTERM)
        watchdog.end()
        schedule.lapse()
        #expect(acted.withLock { $0 }.isEmpty)
        withExtendedLifetime(watchdog) {}
    }
}
