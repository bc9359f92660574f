import Foundation
import FrameCore
package import Sinks

/// Renders started from the page, each a job of this process (the library's
/// `RenderPlan`, what `vidfx apply` does), run on a thread of its own so that no Swift
/// cooperative thread waits on an encoder. A job tells its progress and its end in
/// values, not by lines of a child's stderr; its output is written atomically, and a
/// cancelled or failed render leaves nothing behind.
///
/// At most ``parallel`` run at once (one per core: each wants every core it gets); the
/// rest wait in order, `queued` with their place, and at most ``waitingLimit`` wait: a
/// page cannot start fifty encoders.
package actor RenderJobs {
    /// What `GET /api/render/ID` reports.
    package struct Status: Sendable {
        /// queued, running, done or failed.
        package var state = "queued"
        /// 1 for the next to start, while queued.
        package var place: Int?
        package var progress = 0.0
        package var eta: Double?
        package var error: String?
        package var output: String
        package var command: String
    }

    /// One render's work, run to its end on a thread of its own: it stops soon after
    /// `stop` is requested, reports the share done (0…1) through `progress`, and throws
    /// on failure (the error's one line is what the page shows).
    package typealias Work = @Sendable (_ stop: StopSignal, _ progress: @escaping @Sendable (Double) -> Void) throws -> Void

    private struct Job {
        var work: Work
        var stop = StopSignal()
        var status: Status
        var started: ContinuousClock.Instant?
    }

    private var jobs: [String: Job] = [:]
    /// Ids waiting to start, first first.
    private var waiting: [String] = []
    private var counter = 0
    /// Renders running at once.
    package let parallel: Int
    /// Renders waiting at most; more are refused (503).
    package let waitingLimit: Int

    package init(parallel: Int = ProcessInfo.processInfo.activeProcessorCount, waitingLimit: Int = 16) {
        self.parallel = max(1, parallel)
        self.waitingLimit = waitingLimit
    }

    /// Queues `work` writing `output`, started at once when fewer than ``parallel`` run;
    /// its id. `command` is the command line that renders the same, for the page.
    package func start(output: String, command: String, work: @escaping Work) throws -> String {
        if jobs.values.contains(where: { $0.status.output == output && ["running", "queued"].contains($0.status.state) }) {
            throw StudioRequestError(.conflict, "output: \(output) is being rendered; choose another name")
        }
        guard waiting.count < waitingLimit else {
            throw StudioRequestError(.serviceUnavailable, "\(waiting.count) renders are waiting already; start this one when one has finished")
        }
        counter += 1
        let id = "r\(counter)"
        jobs[id] = Job(work: work, status: Status(output: output, command: command))
        waiting.append(id)
        startWaiting()
        return id
    }

    /// Starts waiting jobs while fewer than ``parallel`` run, and renumbers the rest.
    private func startWaiting() {
        while !waiting.isEmpty, jobs.values.filter({ $0.status.state == "running" }).count < parallel {
            let id = waiting.removeFirst()
            jobs[id]?.status.state = "running"
            jobs[id]?.status.place = nil
            jobs[id]?.started = .now
            launch(id)
        }
        for (i, id) in waiting.enumerated() { jobs[id]?.status.place = i + 1 }
    }

    private func launch(_ id: String) {
        guard let job = jobs[id] else { return }
        let (work, stop) = (job.work, job.stop)
        // Strong captures: the jobs live as long as the studio, and a weak one gives them a
        // side table that LeakSanitizer cannot see referenced and reports at exit.
        let thread = Thread { [self] in
            let reported = Reported()
            var failure: String?
            do {
                try work(stop) { share in
                    // A task per whole percent, not per frame.
                    guard reported.advance(to: share) else { return }
                    Task { await self.progressed(id, share: share) }
                }
            } catch let error as any UserFacingError {
                failure = error.message
            } catch {
                failure = "\(error)"
            }
            Task { await self.ended(id, failure: failure) }
        }
        thread.name = "vidfx render \(id)"
        // An encoder and the effects' setup want more than a secondary thread's default stack.
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// The job's status, nil for an unknown id.
    package func status(_ id: String) -> Status? { jobs[id]?.status }

    /// Stops a job (a running render ends at its next frame and leaves nothing); false
    /// for an unknown id.
    package func cancel(_ id: String) -> Bool {
        guard let job = jobs[id] else { return false }
        if let i = waiting.firstIndex(of: id) {
            // Not started: nothing to stop.
            waiting.remove(at: i)
            jobs[id]?.status.state = "failed"
            jobs[id]?.status.error = "cancelled"
            jobs[id]?.status.place = nil
            for (i, id) in waiting.enumerated() { jobs[id]?.status.place = i + 1 }
            return true
        }
        guard job.status.state == "running" else { return true }
        jobs[id]?.status.error = "cancelled"
        job.stop.request()
        return true
    }

    /// Stops every job and waits until the running ones have ended (the studio is closing).
    package func cancelAll() async {
        for id in waiting { jobs[id]?.status.state = "failed"; jobs[id]?.status.error = "cancelled"; jobs[id]?.status.place = nil }
        waiting.removeAll()
        for (id, job) in jobs where job.status.state == "running" {
            jobs[id]?.status.error = "cancelled"
            job.stop.request()
        }
        // A render ends at its next frame; an encoder's flush takes a moment more.
        while jobs.values.contains(where: { $0.status.state == "running" }) {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    private func progressed(_ id: String, share: Double) {
        guard var s = jobs[id]?.status, s.state == "running" else { return }
        // Never backwards: tasks may run out of order.
        s.progress = max(s.progress, min(1, share))
        if let started = jobs[id]?.started, s.progress > 0 {
            let elapsed = (ContinuousClock.now - started) / .seconds(1)
            s.eta = elapsed * (1 - s.progress) / s.progress
        }
        jobs[id]?.status = s
    }

    private func ended(_ id: String, failure: String?) {
        guard var s = jobs[id]?.status else { return }
        if let failure {
            s.state = "failed"
            // A cancelled render fails as it stops; its own words are not the reason.
            if s.error != "cancelled" { s.error = failure }
        } else {
            // Finished before it saw a cancel: the output is whole, and there.
            s.state = "done"
            s.error = nil
            s.progress = 1
            s.eta = 0
        }
        jobs[id]?.status = s
        // Its core is free: the next waiting render starts.
        startWaiting()
    }
}

/// The last whole percent a job told, so that progress goes to the actor once a percent.
private final class Reported: @unchecked Sendable {
    private var percent = -1

    /// Whether `share` reaches a new whole percent (called on the job's thread only).
    func advance(to share: Double) -> Bool {
        let p = Int(share * 100)
        guard p > percent else { return false }
        percent = p
        return true
    }
}
