import Foundation
import Synchronization

/// One run of the vidfx binary (a `dump` for an exact still, an `apply` for a render):
/// the same commands a user types, so what the studio shows and writes is what the
/// command line gives. Its standard error is read line by line on a thread of its own
/// and its end awaited through the termination handler, so no server thread blocks.
final class VidfxInvocation: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var status: Int32?
    private var readerDone = false
    private var lines: [String] = []
    private var waiter: CheckedContinuation<(Int32, [String]), Never>?

    /// - Parameters:
    ///   - executable: the vidfx binary.
    ///   - arguments: its arguments.
    ///   - directory: where it runs (the outputs folder: relative file names resolve there).
    init(executable: String, arguments: [String], directory: String) {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
    }

    /// Starts it; `line` gets each line of its standard error as it comes (on the reader's thread).
    func start(line: @escaping @Sendable (String) -> Void = { _ in }) throws {
        let pipe = Pipe()
        process.standardError = pipe
        process.terminationHandler = { [weak self] p in
            Self.running.withLock { _ = $0.remove(p.processIdentifier) }
            self?.finished(status: p.terminationStatus, reader: false)
        }
        try process.run()
        let pid = process.processIdentifier
        Self.running.withLock { _ = $0.insert(pid) }
        let handle = pipe.fileHandleForReading
        let thread = Thread { [self] in
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 10) {
                    let text = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    self.keep(text)
                    line(text)
                }
            }
            if !pending.isEmpty { self.keep(String(decoding: pending, as: UTF8.self)) }
            self.finished(status: nil, reader: true)
        }
        thread.start()
    }

    /// Asks it to stop as Ctrl-C would: vidfx then removes its unfinished output.
    func interrupt() {
        if process.isRunning { process.interrupt() }
    }

    /// The process ids of the runs not yet ended.
    private static let running = Mutex<Set<Int32>>([])

    /// Ends every run at once (SIGKILL): the studio is exiting without its graceful
    /// shutdown. Their hidden work files stay; the next run writing there removes them.
    package static func killAll() {
        for pid in running.withLock({ $0 }) { kill(pid, SIGKILL) }
    }

    /// Whether it has not yet exited.
    var isRunning: Bool { process.isRunning }

    /// Its exit status and the last lines of its standard error, once it has ended.
    func result() async -> (Int32, [String]) {
        await withCheckedContinuation { (continuation: CheckedContinuation<(Int32, [String]), Never>) in
            lock.lock()
            if let status, readerDone {
                let kept = lines
                lock.unlock()
                continuation.resume(returning: (status, kept))
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }

    private func keep(_ text: String) {
        lock.lock()
        lines.append(text)
        if lines.count > 20 { lines.removeFirst(lines.count - 20) }
        lock.unlock()
    }

    private func finished(status: Int32?, reader: Bool) {
        lock.lock()
        if let status { self.status = status }
        if reader { readerDone = true }
        var resume: (CheckedContinuation<(Int32, [String]), Never>, Int32, [String])?
        if let s = self.status, readerDone, let w = waiter {
            resume = (w, s, lines)
            waiter = nil
        }
        lock.unlock()
        if let (w, s, l) = resume { w.resume(returning: (s, l)) }
    }
}
