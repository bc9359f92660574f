import Dispatch
import Synchronization

/// Runs the studio's stills one at a time on a thread of their own, off Swift's
/// cooperative threads (a still decodes and renders for tens to hundreds of
/// milliseconds, a redacting one detects faces too). A page scrubbing faster than stills
/// render wants the latest: beyond ``depth`` waiting, the oldest waiting request is
/// answered at once (503, superseded) and the newest takes its place, so the queue never
/// grows and the still for where the hand stopped is always rendered.
package final class StillQueue: Sendable {
    private struct Job: Sendable {
        var run: @Sendable () -> Void
        var drop: @Sendable () -> Void
    }

    private let queue = DispatchQueue(label: "vidfx.studio.stills")
    private let waiting = Mutex<[Job]>([])
    /// The most stills waiting (besides the one rendering).
    package let depth: Int
    /// What background work (the timeline's scan) waits for: every still from its request
    /// to its answer, and a quiet after.
    let priority: StillPriority

    init(depth: Int, priority: StillPriority) {
        self.depth = depth
        self.priority = priority
    }

    package convenience init(depth: Int = 2) { self.init(depth: depth, priority: StillPriority()) }

    /// Requests waiting for the stills' thread now.
    package var waitingCount: Int { waiting.withLock { $0.count } }

    /// The result of `work`, run on the stills' thread; throws a 503 when a newer still
    /// pushed this one out of the queue before it started.
    package func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        priority.asked()
        return try await withCheckedThrowingContinuation { [priority] continuation in
            let job = Job(run: { continuation.resume(with: Result { try work() }); priority.ended() },
                          drop: { continuation.resume(throwing: StudioRequestError(.serviceUnavailable, "superseded by a newer still")); priority.ended() })
            let dropped = waiting.withLock { jobs -> Job? in
                jobs.append(job)
                return jobs.count > depth ? jobs.removeFirst() : nil
            }
            dropped?.drop()
            // One turn of the queue per job: each takes the oldest job still waiting (a
            // dropped job's turn finds the queue shorter and does nothing).
            queue.async { [self] in
                let next = waiting.withLock { jobs in jobs.isEmpty ? nil : jobs.removeFirst() }
                next?.run()
            }
        }
    }
}
