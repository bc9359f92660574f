import CFFmpegShim
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Outputs that appear whole or not at all. A file or folder is built under a hidden
/// name beside its target (`.NAME.vidfx-PID.part`) and moved into place when complete.
/// Without overwrite, the move itself refuses a target that appeared meanwhile (another
/// run, another program), so nothing the user had is lost to a race; a run killed
/// outright leaves its hidden work behind, which the next run into that folder removes.
public enum AtomicOutput {
    /// The hidden name `target` is built under by this process.
    public static func workPath(for target: String) -> String {
        let url = URL(fileURLWithPath: target)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).vidfx-\(getpid()).part").path
    }

    /// Moves the finished `work` to `target`. Without `overwrite`, fails naming the
    /// target if something is there now; with it, replaces a file (or an empty folder).
    public static func publish(_ work: String, to target: String, overwrite: Bool) throws(SinkError) {
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

    /// The PID in `.NAME.vidfx-PID.part`, or nil for any other name.
    static func stalePID(_ name: String) -> pid_t? {
        guard let marker = name.range(of: ".vidfx-", options: .backwards) else { return nil }
        let digits = name[marker.upperBound...].dropLast(".part".count)
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let pid = pid_t(digits), pid > 0 else { return nil }
        return pid
    }
}
