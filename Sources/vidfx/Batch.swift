import ArgumentParser
import Foundation

/// `vidfx batch`: many renders, a worker pool, a job log, and resume.
struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run apply or dump over many inputs: a worker pool, one bad file fails only its own job, a job log and --resume.",
        discussion: """
        Jobs come from inputs and an output pattern, or from a JSON Lines file:
          vidfx batch clips/*.mp4 -o 'out/{name}.mp4' -e sepia --args "--crf 20"
          vidfx batch clips/*.mp4 -o 'out/{name}.mp4' -e faceblur --arg --face-threshold --arg 0.4 -y
          vidfx batch --jobs jobs.jsonl -j 2 --joblog batch.log --resume
        A job line: {"input": "a.mp4", "output": "out/a.mp4", "chain": "sepia", "command": "apply", "args": ["--crf", "20"]}
        ("command" apply by default; "chain" and "args" optional). In -o, {name} is the input's file name without its \
        extension, {base} with it, {n} the job's number; missing output folders are made. Options for every job \
        come as one string in --args, split as a shell splits it, or one argument at a time with --arg, kept as it is. Each job is `vidfx COMMAND INPUT -o OUTPUT [-e CHAIN] ARGS…` \
        in its own process, so outputs stay atomic and a crash stays in its job. The job log has GNU parallel's \
        columns (Seq, Host, Starttime, JobRuntime, Send, Receive, Exitval, Signal, Command); --resume skips jobs \
        the log says finished with exit value 0. Exit status: 0 when every job succeeded, 1 otherwise.
        """
    )

    @Argument(help: "Inputs (with -o PATTERN).")
    var inputs: [String] = []

    @Option(name: .customLong("args"), parsing: .unconditional,
            help: ArgumentHelp("More options for every job given as an input, one string split as a shell would: --args \"--crf 20 --text 'Take 1'\".", valueName: "options"))
    var jobOptions: String?

    @Option(name: .customLong("arg"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("One more argument for every job given as an input, as it is (repeat it: --arg --crf --arg 20).", valueName: "argument"))
    var jobArguments: [String] = []

    @Flag(name: .shortAndLong, help: "Let every job overwrite its output (each job's -y).")
    var yes = false

    @Option(name: .shortAndLong, help: "Output pattern for the inputs: {name}, {base}, {n}.")
    var output: String?

    @Option(name: [.customShort("e"), .customLong("effects")], help: "Effect chain for every job given as an input.")
    var effects: String?

    @Option(help: "The command each input runs: apply or dump.")
    var command: String = "apply"

    @Option(help: ArgumentHelp("Jobs as JSON Lines (one object a line).", valueName: "file.jsonl"))
    var jobs: String?

    // -j as GNU parallel and make spell it; the long name is not --jobs, which is the job file.
    @Option(name: [.customShort("j"), .customLong("workers")], parsing: .unconditional,
            help: ArgumentHelp("Jobs at once (default: the number of cores).", valueName: "n"))
    var workers: Int?

    @Option(help: ArgumentHelp("Append each finished job to this log (GNU parallel's format).", valueName: "file"))
    var joblog: String?

    @Flag(help: "Skip jobs the job log says finished with exit value 0.")
    var resume = false

    @Flag(name: .shortAndLong, help: "No progress line or summary.")
    var quiet = false

    /// One render.
    struct Job: Decodable {
        var input: String
        var output: String
        var chain: String?
        var command: String?
        var args: [String]?

        var argv: [String] {
            var a = [command ?? "apply", input, "-o", output]
            if let chain { a += ["-e", chain] }
            return a + (args ?? []) + ["-q", "--progress", "none"]
        }
    }

    func validate() throws {
        if jobs == nil && inputs.isEmpty { throw ValidationError("give inputs with -o PATTERN, or --jobs FILE.jsonl") }
        if jobs != nil && (output != nil || !inputs.isEmpty) { throw ValidationError("--jobs takes its inputs and outputs from the file: no inputs or -o beside it") }
        if jobs == nil && output == nil { throw ValidationError("-o PATTERN is needed with inputs, e.g. -o 'out/{name}.mp4'") }
        if let workers, !(1...256).contains(workers) { throw ValidationError("-j: must be 1…256") }
        if resume && joblog == nil { throw ValidationError("--resume needs --joblog") }
        guard ["apply", "dump"].contains(command) else { throw ValidationError("--command: apply or dump, not '\(command)'") }
        if let jobOptions { _ = try Self.split(jobOptions) }
    }

    /// The job arguments that come from --args, then --arg.
    func extraArguments() throws -> [String] {
        try (jobOptions.map(Self.split) ?? []) + jobArguments
    }

    /// Splits one string into arguments as a POSIX shell would without expansions: spaces
    /// separate, single quotes keep everything, double quotes keep all but `\"` and `\\`,
    /// a backslash outside quotes keeps the next character.
    static func split(_ text: String) throws(ValidationError) -> [String] {
        var words: [String] = [], word = "", inWord = false
        var quote: Character? = nil
        var escaped = false
        for c in text {
            if escaped {
                if quote == "\"", c != "\"", c != "\\" { word.append("\\") }
                word.append(c); escaped = false; inWord = true; continue
            }
            switch (quote, c) {
            case (nil, " "), (nil, "\t"), (nil, "\n"):
                if inWord { words.append(word); word = ""; inWord = false }
            case (nil, "'"), (nil, "\""): quote = c; inWord = true
            case ("'", "'"), ("\"", "\""): quote = nil
            case (nil, "\\"), ("\"", "\\"): escaped = true
            default: word.append(c); inWord = true
            }
        }
        if escaped || quote != nil {
            throw ValidationError("--args: \(quote.map { "an unclosed \($0)" } ?? "a backslash at the end") in \"\(text)\"")
        }
        if inWord { words.append(word) }
        return words
    }

    func run() throws {
        var list = try makeJobs()
        if yes { list = list.map { var j = $0; j.args = (j.args ?? []) + ["-y"]; return j } }
        let done = resume ? try finishedInLog() : []
        let pending = list.enumerated().filter { !done.contains(Self.commandLine($0.element)) }
        let workers = self.workers ?? max(1, ProcessInfo.processInfo.activeProcessorCount)
        let log = try joblog.map { try JobLog(path: $0) }
        let progress = BatchProgress(total: pending.count, skipped: list.count - pending.count, quiet: quiet)
        let interruption = Interruption()
        defer { interruption.end() }
        let pool = JobPool(workers: workers, makeFolders: true)
        interruption.arm { pool.stop() }
        let failures = pool.run(pending.map { (seq: $0.offset + 1, job: $0.element) }) { seq, job, result in
            log?.append(seq: seq, start: result.start, runtime: result.runtime, exit: result.status, signal: result.signal,
                        command: Self.commandLine(job))
            progress.finished(ok: result.status == 0 && result.signal == 0,
                              line: result.status == 0 ? nil : "job \(seq) (\(job.input)): \(result.reason)")
        }
        progress.end()
        if let sig = interruption.signal { throw ExitCode(128 + sig) }
        if failures > 0 { throw ExitCode(1) }
    }

    /// The jobs, from the JSON Lines file or from the inputs and the pattern.
    func makeJobs() throws -> [Job] {
        if let jobs {
            let text: String
            do {
                guard let t = try TextFile.text(jobs) else { throw CommandFailure(message: "\(jobs): not a text file") }
                text = t
            } catch let error as CommandFailure {
                throw error
            } catch {
                throw CommandFailure(message: "\(jobs): cannot read the job file (\((error as NSError).localizedDescription))")
            }
            var list: [Job] = []
            for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
                do { list.append(try JSONDecoder().decode(Job.self, from: Data(trimmed.utf8))) } catch {
                    throw CommandFailure(message: "\(jobs):\(i + 1): not a job ({\"input\": …, \"output\": …}): \(Self.reason(error))")
                }
                if let c = list.last?.command, !["apply", "dump"].contains(c) {
                    throw CommandFailure(message: "\(jobs):\(i + 1): command must be apply or dump, not '\(c)'")
                }
            }
            guard !list.isEmpty else { throw CommandFailure(message: "\(jobs): no jobs in the file") }
            return list
        }
        let extra = try extraArguments()
        let list = inputs.enumerated().map { n, input in
            let url = URL(fileURLWithPath: input)
            let out = output!.replacingOccurrences(of: "{name}", with: url.deletingPathExtension().lastPathComponent)
                .replacingOccurrences(of: "{base}", with: url.lastPathComponent)
                .replacingOccurrences(of: "{n}", with: String(n + 1))
            return Job(input: input, output: out, chain: effects, command: command, args: extra)
        }
        // Before any job runs: two jobs writing one file, or a job writing another's input,
        // would fail halfway through the batch (or render over a clip still to be read).
        let inputPaths = Set(inputs.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
        var seen: [String: String] = [:]
        for job in list {
            let path = URL(fileURLWithPath: job.output).standardizedFileURL.path
            if let other = seen[path] {
                throw CommandFailure(message: "-o \(output!): \(other) and \(job.input) would both write \(job.output); put {name} or {n} in the pattern")
            }
            if inputPaths.contains(path) {
                throw CommandFailure(message: "-o \(output!): the output for \(job.input) is \(job.output), one of the inputs; put {name} or {n} in the pattern")
            }
            seen[path] = job.input
        }
        return list
    }

    /// The job as the log shows it (and --resume recognises it): quoted for a shell, so the
    /// line pasted into bash runs the same job.
    static func commandLine(_ job: Job) -> String {
        job.argv.map(shellQuoted).joined(separator: " ")
    }

    static func shellQuoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_./:=,+@%".unicodeScalars.contains($0)
        }
        if plain { return word }
        // A log record is one line of tab-separated columns: a newline or tab inside a word is
        // written as bash's $'\n' / $'\t' instead.
        let escaped = word.replacingOccurrences(of: "'", with: "'\\''")
            .replacingOccurrences(of: "\n", with: "'$'\\n''").replacingOccurrences(of: "\t", with: "'$'\\t''")
        return "'\(escaped)'"
    }

    static func reason(_ error: any Error) -> String {
        if case DecodingError.keyNotFound(let key, _) = error { return "no \"\(key.stringValue)\"" }
        if case DecodingError.typeMismatch(_, let c) = error { return c.debugDescription }
        if case DecodingError.dataCorrupted(let c) = error { return c.debugDescription }
        return "\(error)"
    }

    /// Command lines the job log says finished with exit value 0.
    func finishedInLog() throws -> Set<String> {
        guard let joblog, let text = (try? TextFile.text(joblog)) ?? nil else { return [] }
        var done = Set<String>()
        for line in text.split(separator: "\n").dropFirst() {
            let cols = line.split(separator: "\t", maxSplits: 8, omittingEmptySubsequences: false)
            if cols.count == 9, cols[6] == "0", cols[7] == "0" { done.insert(String(cols[8])) }
        }
        return done
    }
}

/// Runs jobs as child processes of this vidfx, `workers` at a time.
final class JobPool: @unchecked Sendable {
    struct Result {
        var start: Date
        var runtime: Double
        var status: Int32
        var signal: Int32
        var reason: String
    }

    private let workers: Int
    private let makeFolders: Bool
    private let condition = NSCondition()
    private var stopped = false
    // Guarded by `condition`.
    private var running = 0
    private var failures = 0
    private var done: ((Int, Batch.Job, Result) -> Void)?

    /// `makeFolders`: create each job's missing output folders before it starts.
    init(workers: Int, makeFolders: Bool = false) {
        self.workers = workers
        self.makeFolders = makeFolders
    }

    /// Stops launching jobs (those running finish: Ctrl-C reaches them too).
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Runs every job; `done` is called for each (one at a time). Returns the failures.
    func run(_ jobs: [(seq: Int, job: Batch.Job)], done: @escaping (Int, Batch.Job, Result) -> Void) -> Int {
        var next = 0
        self.done = done
        // The running binary itself (argv[0] is only `vidfx` when called from the PATH).
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).map(URL.init(fileURLWithPath:))
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        condition.lock()
        while true {
            while running < workers && next < jobs.count && !stopped {
                let (seq, job) = jobs[next]
                next += 1
                running += 1
                let box = JobBox(seq: seq, job: job)
                Thread.detachNewThread { [self] in
                    let result = JobPool.execute(box.job, executable: executable, makeFolders: makeFolders)
                    condition.lock()
                    if result.status != 0 || result.signal != 0 { failures += 1 }
                    self.done?(box.seq, box.job, result)
                    running -= 1
                    condition.broadcast()
                    condition.unlock()
                }
            }
            if running == 0 && (next >= jobs.count || stopped) { break }
            condition.wait()
        }
        let failed = failures
        condition.unlock()
        return failed
    }

    private struct JobBox: @unchecked Sendable {
        let seq: Int
        let job: Batch.Job
    }

    static func execute(_ job: Batch.Job, executable: URL, makeFolders: Bool) -> Result {
        let start = Date()
        if makeFolders, job.output != "-" {
            // The folder the output goes in (dump's output is a folder or a pattern in one).
            let parent = URL(fileURLWithPath: job.output).deletingLastPathComponent()
            do { try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true) } catch {
                return Result(start: start, runtime: 0, status: 1, signal: 0,
                              reason: "\(parent.path): cannot make the output folder (\((error as NSError).localizedDescription))")
            }
        }
        let p = Process()
        p.executableURL = executable
        p.arguments = job.argv
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-batch-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errURL) }
        guard let err = try? FileHandle(forWritingTo: errURL) else {
            return Result(start: start, runtime: 0, status: 1, signal: 0, reason: "cannot make a temporary file")
        }
        p.standardError = err
        do { try p.run() } catch {
            try? err.close()
            return Result(start: start, runtime: 0, status: 1, signal: 0, reason: "cannot start vidfx (\(error.localizedDescription))")
        }
        p.waitUntilExit()
        try? err.close()
        let text = ((try? TextFile.text(errURL.path)) ?? nil) ?? ""
        let last = text.split(separator: "\n").last.map { String($0).replacingOccurrences(of: "vidfx: ", with: "") } ?? ""
        let signal = p.terminationReason == .uncaughtSignal ? p.terminationStatus : 0
        let status = p.terminationReason == .uncaughtSignal ? 128 + p.terminationStatus : p.terminationStatus
        return Result(start: start, runtime: Date().timeIntervalSince(start), status: status, signal: signal,
                      reason: last.isEmpty ? "exit \(status)" : last)
    }
}

/// `--joblog`: GNU parallel's columns, a line per finished job, flushed as it goes.
final class JobLog {
    private let handle: FileHandle
    private let host = ProcessInfo.processInfo.hostName

    init(path: String) throws {
        let fresh = !FileManager.default.fileExists(atPath: path)
        if fresh { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw CommandFailure(message: "\(path): cannot write the job log (\(String(cString: strerror(errno))))")
        }
        handle.seekToEndOfFile()
        self.handle = handle
        if fresh { write("Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n") }
    }

    func append(seq: Int, start: Date, runtime: Double, exit: Int32, signal: Int32, command: String) {
        write(String(format: "%d\t%@\t%.3f\t%.3f\t0\t0\t%d\t%d\t%@\n", seq, host, start.timeIntervalSince1970, runtime, exit, signal, command))
    }

    private func write(_ text: String) { handle.write(Data(text.utf8)) }
}

/// One line on stderr: done, failed, ETA; a failed job's reason on a line of its own.
final class BatchProgress {
    private let total: Int
    private let skipped: Int
    private let quiet: Bool
    private let terminal = isatty(STDERR_FILENO) != 0
    private let started = Date()
    private var ok = 0, failed = 0

    init(total: Int, skipped: Int, quiet: Bool) {
        self.total = total
        self.skipped = skipped
        self.quiet = quiet
        if !quiet && skipped > 0 { Console.note("resuming: \(Console.count(skipped, "job")) already done") }
    }

    func finished(ok success: Bool, line: String?) {
        if success { ok += 1 } else { failed += 1 }
        if let line, !quiet {
            if terminal { try? FileHandle.standardError.write(contentsOf: Data("\r\u{1B}[K".utf8)) }
            Console.error(line)
        }
        draw()
    }

    private func draw() {
        guard !quiet, terminal else { return }
        let done = ok + failed
        let elapsed = Date().timeIntervalSince(started)
        let eta = done > 0 ? elapsed / Double(done) * Double(total - done) : 0
        let text = String(format: "batch: %d/%d done, %d failed, ETA %d:%02d", done, total, failed, Int(eta) / 60, Int(eta) % 60)
        try? FileHandle.standardError.write(contentsOf: Data("\r\u{1B}[K\(text)".utf8))
    }

    func end() {
        guard !quiet else { return }
        if terminal { try? FileHandle.standardError.write(contentsOf: Data("\r\u{1B}[K".utf8)) }
        Console.note("batch: \(Console.count(ok, "job")) done, \(failed) failed" + (skipped > 0 ? ", \(skipped) skipped (done before)" : "")
                     + String(format: " in %.1f s", Date().timeIntervalSince(started)))
    }
}
