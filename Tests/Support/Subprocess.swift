public import Foundation
import Synchronization

/// Runs programs for the tests (the ffmpeg/ffprobe oracles, the vidfx binary, servers)
/// without ever holding one of Swift's cooperative threads while they run.
///
/// Swift Testing runs every test as a task on the cooperative pool, which has one
/// thread per core: two on a two-core machine. A test that blocks its thread (waiting
/// for a child to exit, a blocking read of its pipe, a sleep) stalls every other test
/// behind it, and a time limit then measures the machine rather than the code. So here
/// pipes are read to their end on threads of their own, and a child's exit arrives
/// through its termination handler, resumed into the awaiting task.
public enum Subprocess {
    /// How to start `executable` with `arguments` so that it holds no pipe but its standard
    /// three: through python3, which closes every other pipe it was given and then becomes
    /// the program (the same process, so signals and the exit status are the program's).
    ///
    /// For children that outlive the test's other children (servers, the studio).
    /// Foundation's `Process` passes on every descriptor not marked close-on-exec, and the
    /// suite runs tests in parallel: a pipe another test had just made for its own child
    /// would stay open in the long-lived one, and that test would wait for the end of its
    /// child's output until the server stopped, while the server's test waited on it.
    /// Sockets are kept: `Process` learns that a child ended when the child's end of a
    /// socket pair closes, so closing that would report a running child as ended.
    public static func withoutInheritedDescriptors(_ executable: String, _ arguments: [String]) -> (URL, [String]) {
        let closeThenRun = """
            import os, stat, sys
            for fd in [int(n) for n in os.listdir('/proc/self/fd') if int(n) > 2]:
                try:
                    if stat.S_ISFIFO(os.fstat(fd).st_mode): os.close(fd)
                except OSError: pass
            os.execvp(sys.argv[1], sys.argv[1:])
            """
        return (URL(fileURLWithPath: "/usr/bin/python3"), ["-c", closeThenRun, executable] + arguments)
    }

    /// What a finished program left: its exit status (or terminating signal) and what it
    /// wrote to its standard output and standard error.
    public struct Outcome: Sendable {
        /// The exit status, or the signal's number when `reason` is `.uncaughtSignal`.
        public var status: Int32
        /// How the program ended.
        public var reason: Process.TerminationReason
        /// Its standard output.
        public var stdout: Data
        /// Its standard error (empty when it was not captured).
        public var stderr: Data
        /// Standard error as text.
        public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    }

    /// Exit status and standard output of `executable arguments…`; standard error is discarded.
    public static func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: Data) {
        let outcome = try await outcome(URL(fileURLWithPath: executable), arguments, captureStandardError: false)
        return (outcome.status, outcome.stdout)
    }

    /// Standard output of a program that must succeed.
    public static func output(_ executable: String, _ arguments: [String]) async throws -> Data {
        let (status, data) = try await run(executable, arguments)
        guard status == 0 else { throw Failure(command: ([executable] + arguments).joined(separator: " "), status: status) }
        return data
    }

    /// Runs `executable` to its end and returns everything it left.
    /// - Parameters:
    ///   - directory: the folder it runs in (this process's when nil).
    ///   - environment: its whole environment (this process's when nil).
    ///   - standardInput: what it reads (nothing: /dev/null, when nil).
    ///   - captureStandardError: false sends its standard error to /dev/null.
    ///   - hangLimit: past this it is killed and ``Hang`` thrown (``hangLimit`` unless told).
    ///   - slotted: false starts it at once, without waiting for one of the ``ProcessSlots``:
    ///     for a light client of a server the test already runs, whose own hang limit
    ///     would otherwise be spent while its requests queue behind other tests' programs.
    public static func outcome(_ executable: URL, _ arguments: [String], in directory: URL? = nil,
                               environment: [String: String]? = nil, standardInput: FileHandle? = nil,
                               captureStandardError: Bool = true, hangLimit: Duration = Subprocess.hangLimit,
                               slotted: Bool = true) async throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if let environment { process.environment = environment }
        process.standardInput = standardInput ?? FileHandle.nullDevice
        let out = Pipe()
        process.standardOutput = out
        let err = captureStandardError ? Pipe() : nil
        process.standardError = err ?? FileHandle.nullDevice
        if slotted { await ProcessSlots.shared.acquire() }
        let running: Running
        do { running = try Running(process, hangLimit: hangLimit) } catch {
            if slotted { await ProcessSlots.shared.release() }
            throw error
        }
        // Both pipes drain at once, so a chatty child never blocks on a full one.
        async let stdout = readToEnd(out.fileHandleForReading)
        let e: Data
        if let err { e = await readToEnd(err.fileHandleForReading) } else { e = Data() }
        let o = await stdout
        let (status, reason) = await running.exit()
        if slotted { await ProcessSlots.shared.release() }
        if running.hung {
            throw Hang(command: ([executable.path] + arguments).joined(separator: " "), limit: hangLimit, stderr: e)
        }
        return Outcome(status: status, reason: reason, stdout: o, stderr: e)
    }

    /// How long a program the tests run may take before it is taken to hang and is killed
    /// (with its process group): far beyond what any of them takes on a loaded machine, so
    /// that a hang fails its own test, by name, instead of stalling the whole run until
    /// CI's limit. `VIDFX_TEST_HANG_LIMIT` (seconds) overrides it.
    public static let hangLimit: Duration = .seconds(
        ProcessInfo.processInfo.environment["VIDFX_TEST_HANG_LIMIT"].flatMap(Int.init) ?? 900)

    /// Programs started with ``Running`` directly (servers a test talks to) live as long
    /// as their test: twice the limit of a single command.
    public static let serverHangLimit: Duration = hangLimit * 2

    /// Everything `handle` gives until its end, read on a thread of its own.
    public static func readToEnd(_ handle: FileHandle) async -> Data {
        await withCheckedContinuation { (continuation: CheckedContinuation<Data, Never>) in
            let reader = Thread { continuation.resume(returning: handle.readDataToEndOfFile()) }
            reader.start()
        }
    }

    /// The result of `work`, which blocks (a `waitpid`, a synchronous playback loop), run on
    /// a thread of its own so that the awaiting task's cooperative thread stays free.
    public static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let thread = Thread { continuation.resume(with: Result { try work() }) }
            thread.start()
        }
    }

    /// What `handle` gives, chunk by chunk as it arrives, until its end: for reading a
    /// child's output while it still runs. The reads happen on a thread of their own.
    public static func chunks(_ handle: FileHandle) -> AsyncStream<Data> {
        AsyncStream(bufferingPolicy: .unbounded) { continuation in
            let reader = Thread {
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    continuation.yield(chunk)
                }
                continuation.finish()
            }
            reader.start()
        }
    }

    /// A started program whose exit can be awaited.
    public final class Running: Sendable {
        /// The program.
        public let process: Process
        private let exitState = ExitState()

        /// Starts `process` (configured, not yet run). A program still running after
        /// `hangLimit` is killed with its process group (Foundation starts each child in a
        /// group of its own), and ``hung`` says so.
        public init(_ process: Process, hangLimit: Duration = Subprocess.serverHangLimit) throws {
            self.process = process
            // Set before it runs, so that no exit can come before anyone listens.
            process.terminationHandler = { [exitState] ended in
                exitState.watchdog.withLock { $0?.cancel() }
                exitState.finish(ended.terminationStatus, ended.terminationReason)
            }
            try process.run()
            let pid = process.processIdentifier
            let task = Task.detached { [exitState] in
                // A sleep, not a blocked thread: cancelled as soon as the program exits.
                try? await Task.sleep(for: hangLimit)
                guard !Task.isCancelled, exitState.ended == nil else { return }
                exitState.killedAsHung.store(true, ordering: .relaxed)
                kill(-pid, SIGKILL)
                kill(pid, SIGKILL)
            }
            exitState.watchdog.withLock { $0 = task }
            if exitState.ended != nil { task.cancel() }
        }

        /// Whether it was killed for running past its hang limit.
        public var hung: Bool { exitState.killedAsHung.load(ordering: .relaxed) }

        /// Its exit status (or signal) and why it ended, once it has.
        public func exit() async -> (status: Int32, reason: Process.TerminationReason) {
            await exitState.wait()
        }

        /// Whether it is still running.
        public var isRunning: Bool { exitState.ended == nil }

        /// Sends it `signal` (SIGTERM unless told).
        public func signal(_ signal: Int32 = SIGTERM) {
            kill(process.processIdentifier, signal)
        }
    }

    /// An exit, and the tasks waiting for it.
    private final class ExitState: Sendable {
        typealias Ended = (status: Int32, reason: Process.TerminationReason)
        private let state = Mutex<(ended: Ended?, waiting: [CheckedContinuation<Ended, Never>])>((nil, []))
        /// The task that kills the program at its hang limit, and whether it did.
        let watchdog = Mutex<Task<Void, Never>?>(nil)
        let killedAsHung = Atomic<Bool>(false)

        var ended: Ended? { state.withLock { $0.ended } }

        func finish(_ status: Int32, _ reason: Process.TerminationReason) {
            let waiting = state.withLock { state in
                state.ended = (status, reason)
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume(returning: (status, reason)) }
        }

        func wait() async -> Ended {
            await withCheckedContinuation { (continuation: CheckedContinuation<Ended, Never>) in
                let ended = state.withLock { state -> Ended? in
                    if let ended = state.ended { return ended }
                    state.waiting.append(continuation)
                    return nil
                }
                if let ended { continuation.resume(returning: ended) }
            }
        }
    }

    /// A program ran past its hang limit and was killed.
    public struct Hang: Error, CustomStringConvertible {
        public var command: String
        public var limit: Duration
        /// What it had written to standard error.
        public var stderr: Data
        public var description: String {
            let said = String(decoding: stderr.suffix(2000), as: UTF8.self)
            return "\(command) did not end within \(limit) (a hang): killed" + (said.isEmpty ? "" : "; its last messages:\n\(said)")
        }
    }

    /// A program exited non-zero.
    public struct Failure: Error, CustomStringConvertible {
        public var command: String
        public var status: Int32
        public var description: String { "\(command) exited with \(status)" }
    }
}

/// How many programs the tests run at once. Awaiting a child frees the test's thread, so
/// without a bound every test of the parallel phase would start its programs together
/// (hundreds of encoders on two cores); with one, the machine runs about as many as it
/// has cores, and the rest wait their turn, suspended.
actor ProcessSlots {
    static let shared = ProcessSlots(ProcessInfo.processInfo.activeProcessorCount + 1)

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { free = max(1, count) }

    func acquire() async {
        if free > 0 { free -= 1; return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}
