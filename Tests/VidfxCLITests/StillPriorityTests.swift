import Foundation
@testable import Studio
import Synchronization
import Testing

/// Issue 67, 11: the studio's stills come before its background scan. The clock is
/// injected: what is checked is which state the priority is in, never how long anything took.
@Suite struct StillPriorityTests {
    final class Clock: Sendable {
        private let instant = Mutex(ContinuousClock.now)
        var now: ContinuousClock.Instant { instant.withLock { $0 } }
        func advance(_ d: Duration) { instant.withLock { $0 += d } }
    }

    @Test func backgroundWorkWaitsForEveryStillAndAQuietAfter() {
        let clock = Clock()
        let priority = StillPriority(quiet: .milliseconds(300), now: { clock.now })
        #expect(!priority.stillsFirst)
        priority.asked()
        priority.asked()
        #expect(priority.stillsFirst)
        priority.ended()
        clock.advance(.seconds(5))
        #expect(priority.stillsFirst, "one still is still asked for")
        priority.ended()
        clock.advance(.milliseconds(299))
        #expect(priority.stillsFirst, "within the quiet after the last")
        clock.advance(.milliseconds(2))
        #expect(!priority.stillsFirst)
        // More answers than asks (a bug elsewhere) never leave the count below zero.
        priority.ended()
        clock.advance(.seconds(1))
        priority.asked()
        #expect(priority.stillsFirst)
    }

    /// Every still of the queue is counted from its request to its answer, and a still
    /// pushed out by a newer one is answered too: none is left counted for good.
    @Test func theQueueCountsItsStillsAndTheirEnds() async throws {
        let clock = Clock()
        let priority = StillPriority(quiet: .milliseconds(300), now: { clock.now })
        try await StillQueueTests.supersede(StillQueue(depth: 1, priority: priority)) {
            #expect(priority.stillsFirst, "a still being made")
        }
        clock.advance(.seconds(1))
        #expect(!priority.stillsFirst, "every still, the dropped one too, was answered")
    }

    /// The background thread waits while stills come first and goes on once the quiet has
    /// passed; a stop ends the wait at once.
    @Test func theBackgroundThreadWaitsItsTurn() async throws {
        let clock = Clock()
        let priority = StillPriority(quiet: .milliseconds(300), now: { clock.now })
        priority.asked()
        let returned = Mutex<Bool?>(nil)
        let started = Mutex(false)
        let waiter = Thread {
            started.withLock { $0 = true }
            priority.waitForTurn(every: .milliseconds(1)) { false }
            returned.withLock { $0 = priority.stillsFirst }
        }
        waiter.start()
        // Once it is waiting (a wait that did not wait would have returned with stills first).
        for _ in 0..<60_000 where !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        try await Task.sleep(for: .milliseconds(20))
        #expect(returned.withLock { $0 } == nil, "it waits while a still is asked for")
        priority.ended()
        clock.advance(.milliseconds(301))
        for _ in 0..<60_000 where returned.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(1)) }
        #expect(returned.withLock { $0 } == false, "returned only once the stills were done")
        priority.asked()
        let stopped = Mutex(false)
        let stoppedWaiter = Thread {
            priority.waitForTurn(every: .milliseconds(1)) { true }
            stopped.withLock { $0 = true }
        }
        stoppedWaiter.start()
        for _ in 0..<60_000 where !stopped.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        #expect(stopped.withLock { $0 } && priority.stillsFirst, "a stop ends the wait while stills still come first")
    }
}
