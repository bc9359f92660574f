import CFFmpegShim
public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Outputs that appear whole or not at all. A file or folder is built under a hidden
/// name beside its target (`.NAME.vidfx-PID.part`) and moved into place when complete.
/// Without overwrite, the move itself refuses a target that appeared meanwhile (another
/// run, another program), so nothing the user had is lost to a race; a run killed
/// outright leaves its hidden work behind, which the next run into that folder removes.
/// Everything vidfx writes goes through here: files whole (``write(_:to:overwrite:intoDevices:)``),
/// files streamed or folders filled under ``workPath(for:)`` and then ``publish(_:to:overwrite:intoDevices:)``.
///
/// A target that is neither a file nor a folder (`/dev/null`, a named pipe, a terminal)
/// is written into where it is, as the sinks write there: renaming a file over it would
/// put a plain file in a device's place (as root, `/dev/full` itself).
public enum AtomicOutput {
    /// Numbers the work of one process, for writers that may run at once (the studio).
    private static let serial = Atomic<Int>(0)

    /// A hidden work name for `target` that no other writer in this process is using:
    /// `.NAME.vidfx-PID-N.part`.
    public static func uniqueWorkPath(for target: String) -> String {
        let n = serial.wrappingAdd(1, ordering: .relaxed).newValue
        let url = URL(fileURLWithPath: target)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).vidfx-\(getpid())-\(n).part").path
    }

    /// Writes `data` to `target` whole or not at all: into a hidden work file beside it,
    /// flushed, then moved into place (without `overwrite`, never over a file that is
    /// there). On any failure the work file is removed and `target` is as it was.
    /// - Parameters:
    ///   - data: the bytes.
    ///   - target: where they go.
    ///   - overwrite: whether a file at `target` may be replaced.
    ///   - intoDevices: whether a device or named pipe at `target` is written into (the
    ///     command line's `-o /dev/null`); false for writers of names from elsewhere (the
    ///     studio's page), for which anything at the name is a name taken.
    public static func write(_ data: Data, to target: String, overwrite: Bool, intoDevices: Bool = true) throws(SinkError) {
        if intoDevices && isSpecial(target) { return try writeInPlace(data, to: target) }
        let work = uniqueWorkPath(for: target)
        let fd = open(work, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let code = errno
            throw SinkError(path: target, reason: "cannot write (\(String(cString: strerror(code))))", kind: SinkError.kind(errno: code))
        }
        var failure = writeAll(data, to: fd)
        if failure == 0 && close(fd) != 0 { failure = errno } else if failure != 0 { close(fd) }
        guard failure == 0 else {
            unlink(work)
            throw SinkError(path: target, reason: "write failed (\(String(cString: strerror(failure))))", kind: SinkError.kind(errno: failure))
        }
        do { try publish(work, to: target, overwrite: overwrite, intoDevices: intoDevices) } catch {
            unlink(work)
            throw error
        }
    }

    /// Whether `target` exists and is neither a regular file nor a folder (a device, a
    /// named pipe, a socket): what is written there goes into it. A symbolic link is
    /// followed only where the system keeps its names for descriptors and devices
    /// (`/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`); a link anywhere else is a link
    /// (replaced with overwrite, refused without), never a way into a device or a pipe
    /// (`ln -s /dev/null out/x.jsonl` once swallowed a saved file).
    public static func isSpecial(_ target: String) -> Bool {
        var info = stat()
        guard lstat(target, &info) == 0 else { return false }
        if info.st_mode & S_IFMT == S_IFLNK {
            let path = URL(fileURLWithPath: target).standardizedFileURL.path
            guard path.hasPrefix("/dev/") || path.hasPrefix("/proc/"), stat(target, &info) == 0 else { return false }
        }
        let type = info.st_mode & S_IFMT
        return type != S_IFREG && type != S_IFDIR
    }

    /// All of `data` to the open descriptor `fd`, through short writes and interruptions:
    /// 0, or the errno that stopped it (EPIPE: the reader of a pipe has gone).
    public static func writeAll(_ data: Data, to fd: Int32) -> Int32 {
        data.withUnsafeBytes { b -> Int32 in
            guard let base = b.baseAddress else { return 0 }
            var done = 0
            while done < b.count {
                let n = Glibc.write(fd, base + done, b.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += n
            }
            return 0
        }
    }

    /// The work file's bytes copied into the device or pipe `target` a piece at a time
    /// (a file's size need not fit in memory), then the work file removed.
    private static func copyInPlace(_ work: String, to target: String) throws(SinkError) {
        let input = open(work, O_RDONLY | O_CLOEXEC)
        var info = stat()
        guard input >= 0, fstat(input, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            if input >= 0 { close(input) }
            throw SinkError(path: target, reason: "only a file can be written into a device or pipe")
        }
        defer { close(input); unlink(work) }
        let output = open(target, O_WRONLY | O_CLOEXEC)
        guard output >= 0 else {
            let code = errno
            throw SinkError(path: target, reason: "cannot write (\(String(cString: strerror(code))))", kind: SinkError.kind(errno: code))
        }
        var failure: Int32 = 0
        var piece = Data(count: 1 << 20)
        while failure == 0 {
            let n = piece.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; failure = errno; break }
            if n == 0 { break }
            failure = writeAll(piece.prefix(n), to: output)
        }
        if close(output) != 0, failure == 0 { failure = errno }
        guard failure == 0 else {
            throw SinkError(path: target, reason: "write failed (\(String(cString: strerror(failure))))", kind: SinkError.kind(errno: failure))
        }
    }

    /// `data` written into the device or pipe `target`, where it is.
    private static func writeInPlace(_ data: Data, to target: String) throws(SinkError) {
        let fd = open(target, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw SinkError(path: target, reason: "cannot write (\(String(cString: strerror(code))))", kind: SinkError.kind(errno: code))
        }
        var failure = writeAll(data, to: fd)
        if close(fd) != 0, failure == 0 { failure = errno }
        guard failure == 0 else {
            throw SinkError(path: target, reason: "write failed (\(String(cString: strerror(failure))))", kind: SinkError.kind(errno: failure))
        }
    }

    /// The hidden name `target` is built under by this process.
    public static func workPath(for target: String) -> String {
        let url = URL(fileURLWithPath: target)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).vidfx-\(getpid()).part").path
    }

    /// Moves the finished `work` to `target`. Without `overwrite`, fails naming the
    /// target if something is there now; with it, replaces a file (or an empty folder).
    /// A device or pipe at `target` gets the work file's bytes instead, and the work file
    /// is removed.
    /// - Parameters:
    ///   - work: the finished work file or folder.
    ///   - target: where it goes.
    ///   - overwrite: whether a file at `target` may be replaced.
    ///   - intoDevices: as for ``write(_:to:overwrite:intoDevices:)``.
    public static func publish(_ work: String, to target: String, overwrite: Bool, intoDevices: Bool = true) throws(SinkError) {
        if intoDevices && isSpecial(target) { return try copyInPlace(work, to: target) }
        let r = overwrite ? rename(work, target) : vfx_rename_noreplace(work, target)
        guard r == 0 else {
            let code = errno
            if code == EEXIST || code == ENOTEMPTY {
                throw SinkError(path: target, reason: "appeared while rendering; left as it is (use -y to overwrite)", kind: .targetExists)
            }
            throw SinkError(path: target, reason: "cannot move the finished output into place (\(String(cString: strerror(code))))",
                            kind: SinkError.kind(errno: code))
        }
    }

    /// Moves the files of the work folder `work` into `folder`, which exists (empty, or
    /// replaced with -y): the folder's files that `belongs` says are an earlier output's
    /// give way first, then each new file is renamed in, those `last` says after the rest
    /// (a manifest or a track never names a file not yet in place); anything else the
    /// folder holds stays. The work folder is removed.
    /// - Throws: ``SinkError`` naming the folder and the file that could not be moved.
    public static func merge(_ work: String, into folder: String, belongs: (String) -> Bool, last: (String) -> Bool) throws(SinkError) {
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: folder)) ?? [] where belongs(name) {
            try? fm.removeItem(atPath: folder + "/" + name)
        }
        let built = ((try? fm.contentsOfDirectory(atPath: work)) ?? []).sorted()
        for name in built.filter({ !last($0) }) + built.filter(last) {
            guard rename(work + "/" + name, folder + "/" + name) == 0 else {
                throw SinkError(path: folder, reason: "cannot move \(name) into place (\(String(cString: strerror(errno))))")
            }
        }
        try? fm.removeItem(atPath: work)
    }

    /// Removes what killed runs left beside `target`: hidden `.NAME.vidfx-PID.part`
    /// files and folders in its folder whose process no longer exists.
    public static func removeStaleWork(besides target: String) {
        let folder = URL(fileURLWithPath: target).deletingLastPathComponent().path
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(".") && name.hasSuffix(".part") {
            guard let pid = stalePID(name), pid != getpid() else { continue }
            // kill(pid, 0) fails with ESRCH only when no such process exists.
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(atPath: folder + "/" + name)
            }
        }
    }

    /// The PID in `.NAME.vidfx-PID.part` or `.NAME.vidfx-PID-N.part`, or nil for any other name.
    static func stalePID(_ name: String) -> pid_t? {
        guard let marker = name.range(of: ".vidfx-", options: .backwards) else { return nil }
        let tail = name[marker.upperBound...].dropLast(".part".count)
        let digits = tail.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).first ?? tail
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let pid = pid_t(digits), pid > 0 else { return nil }
        return pid
    }
}
