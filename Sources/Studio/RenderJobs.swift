import Foundation

/// Renders started from the page: each is `vidfx apply` with the page's chain, run in
/// the outputs folder, so its frames are exactly the command line's and its output is
/// written atomically (a cancelled or failed render leaves nothing behind).
actor RenderJobs {
    /// What `GET /api/render/ID` reports.
    struct Status: Sendable {
        var state = "running"
        var progress = 0.0
        var eta: Double?
        var error: String?
        var output: String
        var command: String
    }

    private var jobs: [String: (invocation: VidfxInvocation, status: Status)] = [:]
    private var counter = 0
    private let executable: String
    private let folder: OutputFolder

    init(executable: String, folder: OutputFolder) {
        self.executable = executable
        self.folder = folder
    }

    /// Starts `vidfx ARGUMENTS` (an apply with `--progress json`) writing `output`; its id.
    func start(arguments: [String], output: String, command: String) throws -> String {
        if jobs.values.contains(where: { $0.status.output == output && $0.status.state == "running" }) {
            throw StudioRequestError(.conflict, "output: \(output) is being rendered; choose another name")
        }
        counter += 1
        let id = "r\(counter)"
        let invocation = VidfxInvocation(executable: executable, arguments: arguments, directory: folder.path)
        jobs[id] = (invocation, Status(output: output, command: command))
        try invocation.start { [weak self] line in
            guard let self, line.hasPrefix("{"), let data = line.data(using: .utf8),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return }
            let percent = (object["percent"] as? NSNumber)?.doubleValue
            let eta = (object["eta"] as? NSNumber)?.doubleValue
            Task { await self.progressed(id, percent: percent, eta: eta) }
        }
        Task { [weak self] in
            let (status, lines) = await invocation.result()
            await self?.ended(id, status: status, lines: lines)
        }
        return id
    }

    /// The job's status, nil for an unknown id.
    func status(_ id: String) -> Status? { jobs[id]?.status }

    /// Interrupts a running job (vidfx then discards its output); false for an unknown id.
    func cancel(_ id: String) -> Bool {
        guard let job = jobs[id] else { return false }
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
    func cancelAll() {
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
    }
}
