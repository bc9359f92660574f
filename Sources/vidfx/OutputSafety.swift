import Foundation
import Shaders

#if canImport(Glibc)
import Glibc
#endif

/// Checks that keep the user's files safe: no silent overwrite, never the input itself.
enum OutputSafety {
    /// Throws when `output` exists (and `overwrite` is false) or is the same file as `input`
    /// (also through symlinks, hard links or another spelling of the path).
    static func check(output: String, input: String, overwrite: Bool, folder: Bool = false) throws {
        guard output != "-" else { return }
        if input != "-", isSameFile(input, output) {
            throw CommandFailure(message: "\(output): is the input file; refusing to overwrite it (choose another output)")
        }
        var info = stat()
        if !folder, stat(output, &info) == 0, info.st_mode & S_IFMT == S_IFREG, !overwrite {
            throw CommandFailure(message: "\(output): already exists (use -y to overwrite)")
        }
        let dir = URL(fileURLWithPath: output).deletingLastPathComponent().path
        var d = stat()
        if stat(dir, &d) != 0 || d.st_mode & S_IFMT != S_IFDIR {
            throw CommandFailure(message: "\(output): folder \(dir) does not exist")
        }
        if access(dir, W_OK) != 0 {
            throw CommandFailure(message: "\(output): cannot write in \(dir) (\(String(cString: strerror(errno))))")
        }
    }

    static func isSameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        guard stat(localPath(a), &sa) == 0, stat(localPath(b), &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }
}

extension OutputSafety {
    /// The file a local input or output names, however it is spelled: a path, or a
    /// `file:` URL (`file:///abs/in.mp4`, `file:in.mp4`, percent-escapes decoded), as
    /// FFmpeg's file protocol reads it. Anything else is returned as it is.
    static func localPath(_ name: String) -> String {
        guard name.lowercased().hasPrefix("file:") else { return name }
        var rest = String(name.dropFirst(5))
        if rest.hasPrefix("//") { rest = String(rest.dropFirst(2)) }  // file://host/path: the host is empty or localhost
        if rest.hasPrefix("localhost/") { rest = String(rest.dropFirst(9)) }
        return rest.removingPercentEncoding ?? rest
    }
}

/// Ctrl-C and SIGTERM: the first one asks the running command to stop cleanly (it then
/// finalizes what it has); the signal number decides the exit code (130 / 143).
final class Interruption: @unchecked Sendable {
    private let lock = NSLock()
    private var received: Int32 = 0
    private var sources: [any DispatchSourceSignal] = []
    private var handler: (@Sendable () -> Void)?

    /// Starts catching SIGINT and SIGTERM; `onSignal` runs once, on a background queue.
    /// Without one yet (see ``arm(_:)``), a signal ends the process at once with 128 + its
    /// number: opening an input writes nothing, so there is nothing to finish or clean up,
    /// and a stalled open must not hold the user until the network timeout.
    init(onSignal: (@Sendable () -> Void)? = nil) {
        handler = onSignal
        for sig in [SIGINT, SIGTERM] {
            Glibc.signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [weak self] in self?.fire(sig) }
            source.resume()
            sources.append(source)
        }
    }

    private func fire(_ sig: Int32) {
        lock.lock()
        let first = received == 0
        if first { received = sig }
        let h = handler
        lock.unlock()
        guard first else { return }
        // A shader on the device would hold the stop until its frame ends.
        ShaderProgram.interrupt()
        guard let h else {
            Console.note("interrupted before anything was written")
            exit(128 + sig)
        }
        h()
    }

    /// From now on a signal runs `onSignal` (once) instead of ending the process; if one
    /// already arrived, it runs now.
    func arm(_ onSignal: @escaping @Sendable () -> Void) {
        lock.lock()
        handler = onSignal
        let pending = received != 0
        lock.unlock()
        if pending { onSignal() }
    }

    /// The signal that arrived, if any.
    var signal: Int32? {
        lock.lock()
        defer { lock.unlock() }
        return received == 0 ? nil : received
    }

    /// Exit status for the signal: 128 + its number.
    var exitCode: Int32 { 128 + (signal ?? 0) }

    /// Stops catching (restores the default action).
    func end() {
        for s in sources { s.cancel() }
        for sig in [SIGINT, SIGTERM] { Glibc.signal(sig, SIG_DFL) }
    }
}

/// Reading small files whole.
enum TextFile {
    /// The bytes of `path`, read through a FileHandle: Foundation's
    /// `Data(contentsOf:)` and `String(contentsOf:)` leak their buffer on an empty file
    /// in this toolchain (AddressSanitizer reports it), and job logs and stderr captures
    /// are often empty.
    static func data(_ path: String) throws -> Data {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        return try handle.readToEnd() ?? Data()
    }

    /// The file as UTF-8 text, or nil when it is not.
    static func text(_ path: String) throws -> String? {
        String(data: try data(path), encoding: .utf8)
    }
}
