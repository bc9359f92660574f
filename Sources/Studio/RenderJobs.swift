import Foundation

/// Renders started from the page: each is `vidfx apply` with the page's chain, run in
/// the outputs folder, so its frames are exactly the command line's and its output is
/// written atomically (a cancelled or failed render leaves nothing behind).
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

    private var jobs: [String: (invocation: VidfxInvocation, status: Status)] = [:]
    /// Ids waiting to start, first first.
    private var waiting: [String] = []
    private var counter = 0
    private let executable: String
    private let folder: OutputFolder
    /// Renders running at once.
    package let parallel: Int
    /// Renders waiting at most; more are refused (503).
    package let waitingLimit: Int

    package init(executable: String, folder: OutputFolder, parallel: Int = ProcessInfo.processInfo.activeProcessorCount, waitingLimit: Int = 16) {
        self.executable = executable
        self.folder = folder
        self.parallel = max(1, parallel)
        self.waitingLimit = waitingLimit
    }

    /// Queues `vidfx ARGUMENTS` (an apply with `--progress json`) writing `output`, started
    /// at once when fewer than ``parallel`` run; its id.
    package func start(arguments: [String], output: String, command: String) throws -> String {
        if jobs.values.contains(where: { $0.status.output == output && ["running", "queued"].contains($0.status.state) }) {
            throw StudioRequestError(.conflict, "output: \(output) is being rendered; choose another name")
        }
        guard waiting.count < waitingLimit else {
            throw StudioRequestError(.serviceUnavailable, "\(waiting.count) renders are waiting already; start this one when one has finished")
        }
        counter += 1
        let id = "r\(counter)"
        let invocation = VidfxInvocation(executable: executable, arguments: arguments, directory: folder.path)
        jobs[id] = (invocation, Status(output: output, command: command))
        waiting.append(id)
        try startWaiting()
        return id
    }

    /// Starts waiting jobs while fewer than ``parallel`` run, and renumbers the rest.
    private func startWaiting() throws {
        while !waiting.isEmpty, jobs.values.filter({ $0.status.state == "running" }).count < parallel {
            let id = waiting.removeFirst()
            jobs[id]?.status.state = "running"
            jobs[id]?.status.place = nil
            do { try launch(id) } catch {
                jobs[id]?.status.state = "failed"
                jobs[id]?.status.error = "could not start vidfx: \(error)"
                throw error
            }
        }
        for (i, id) in waiting.enumerated() { jobs[id]?.status.place = i + 1 }
    }

    private func launch(_ id: String) throws {
        guard let invocation = jobs[id]?.invocation else { return }
        // Strong captures: the jobs live as long as the studio, and a weak one gives them a
        // side table that LeakSanitizer cannot see referenced and reports at exit.
        try invocation.start { [self] line in
            guard line.hasPrefix("{"), let data = line.data(using: .utf8),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return }
            let percent = (object["percent"] as? NSNumber)?.doubleValue
            let eta = (object["eta"] as? NSNumber)?.doubleValue
            Task { await self.progressed(id, percent: percent, eta: eta) }
        }
        Task { [self] in
            let (status, lines) = await invocation.result()
            ended(id, status: status, lines: lines)
        }
    }

    /// The job's status, nil for an unknown id.
    package func status(_ id: String) -> Status? { jobs[id]?.status }

    /// Interrupts a running job (vidfx then discards its output); false for an unknown id.
    package func cancel(_ id: String) -> Bool {
        guard let job = jobs[id] else { return false }
        if let i = waiting.firstIndex(of: id) {
            // Not started: nothing to stop or remove.
            waiting.remove(at: i)
            jobs[id]?.status.state = "failed"
            jobs[id]?.status.error = "cancelled"
            jobs[id]?.status.place = nil
            for (i, id) in waiting.enumerated() { jobs[id]?.status.place = i + 1 }
            return true
        }
        guard job.status.state == "running" else { return true }
        jobs[id]?.status.error = "cancelled"
        // Until it stops: a signal that comes before vidfx has set up its handling is
        // lost (the server ignores SIGINT and SIGTERM, and a child inherits that).
        let invocation = job.invocation
        Task {
            while invocation.isRunning {
                invocation.interrupt()
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        return true
    }

    /// Interrupts every running job (the studio is closing).
    package func cancelAll() {
        waiting.removeAll()
        for (_, job) in jobs where job.status.state == "running" { job.invocation.interrupt() }
    }

    private func progressed(_ id: String, percent: Double?, eta: Double?) {
        guard var s = jobs[id]?.status, s.state == "running" else { return }
        // Never backwards: lines may be handled out of order.
        if let percent { s.progress = max(s.progress, min(1, percent / 100)) }
        s.eta = eta
        jobs[id]?.status = s
    }

    private func ended(_ id: String, status: Int32, lines: [String]) {
        guard var s = jobs[id]?.status else { return }
        if status == 0 && s.error != "cancelled" {
            s.state = "done"
            s.progress = 1
            s.eta = 0
        } else {
            s.state = "failed"
            if s.error == "cancelled" {
                // Interrupted, vidfx apply finalizes what it rendered into a playable file
                // (the command line's Ctrl-C); a cancel from the page wants nothing left.
                try? FileManager.default.removeItem(atPath: folder.file(s.output))
                // And the redaction report an interrupted apply writes beside it.
                try? FileManager.default.removeItem(atPath: folder.file((s.output as NSString).deletingPathExtension + ".redaction.json"))
            } else {
                // vidfx's last message (its error) without the progress lines.
                let message = lines.last(where: { !$0.hasPrefix("{") && !$0.isEmpty }) ?? "vidfx apply exited with status \(status)"
                s.error = message.hasPrefix("vidfx: ") ? String(message.dropFirst(7)) : message
            }
        }
        jobs[id]?.status = s
        // Its core is free: the next waiting render starts.
        try? startWaiting()
    }
}
