import Foundation

/// The one folder the studio writes renders into and reads file parameters from.
/// Names are single path components: no `/`, no `..`, no hidden files (in-progress
/// renders are hidden temporaries), so nothing outside the folder can be named.
public struct OutputFolder: Sendable {
    /// The folder, absolute.
    public let path: String

    /// - Parameter path: the folder (made absolute against the current one).
    public init(path: String) {
        self.path = URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// Why `name` may not name a file of the folder, or nil when it may.
    public static func problem(with name: String) -> String? {
        if name.isEmpty { return "an empty name" }
        if name.contains("/") || name.contains("\\") { return "'\(name)': a name in the outputs folder, without '/'" }
        if name == "." || name == ".." || name.contains("..") { return "'\(name)': '..' may not appear in a name" }
        if name.hasPrefix(".") { return "'\(name)': hidden names are not allowed" }
        // A command line would read it as an option.
        if name.hasPrefix("-") { return "'\(name)': a name may not begin with '-'" }
        if name.utf8.count > 200 || name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "'\(name)': not a usable file name"
        }
        return nil
    }

    /// The full path of `name`, which must pass ``problem(with:)``.
    func file(_ name: String) -> String { path + "/" + name }

    /// Whether `name` is a regular file of the folder itself: not a symbolic link (whose
    /// target may be anywhere: /etc/passwd), not a FIFO or device (a read that blocks the
    /// server), and there. `lstat`, so a link is never followed.
    func holdsRegularFile(_ name: String) -> Bool {
        guard Self.problem(with: name) == nil else { return false }
        var info = stat()
        return lstat(file(name), &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// The folder's visible files, with their sizes, sorted by name.
    func listing() -> [(name: String, size: Int)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().compactMap { name in
            var info = stat()
            guard lstat(file(name), &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            return (name, Int(info.st_size))
        }
    }
}
