import Foundation
public import FrameCore

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
        // Controls, and format characters: a right-to-left override makes `evil\u{202E}4pm.exe`
        // read as `evilexe.mp4` in a listing.
        if name.utf8.count > 200 || name.unicodeScalars.contains(where: { s in
            s.value < 0x20 || (0x7F...0x9F).contains(s.value) || s.properties.generalCategory == .format
                || s.properties.generalCategory == .lineSeparator || s.properties.generalCategory == .paragraphSeparator
        }) {
            return "'\(name.unicodeScalars.map { $0.value < 0x20 || $0.value > 0x7E ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined())': not a usable file name (no control or direction characters)"
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

    /// Whether anything is at `name`: a file, a folder, a pipe, a link (even one to nothing).
    func holdsAnything(_ name: String) -> Bool {
        var info = stat()
        return lstat(file(name), &info) == 0
    }

    /// The largest file a chain's parameter may name (a 65³ `.cube` is about 7 MB).
    static let largestParameterFile = 256 << 20

    /// Opens `name`, a regular file of the folder itself, for reading, and hands `body` a
    /// path to the opened file (`/proc/self/fd/N`) that stays valid until it returns. The
    /// check is made on what was opened: a name swapped for a link, a FIFO or a device
    /// since any earlier check is refused, never followed or waited on.
    /// - Throws: ``ParameterFileError`` when the name is refused or is not such a file.
    func withRegularFile<T>(_ name: String, largest: Int = largestParameterFile, _ body: (String) throws -> T) throws -> T {
        if let problem = Self.problem(with: name) { throw ParameterFileError(message: problem) }
        // O_NOFOLLOW: a link at the name fails the open; O_NONBLOCK: a FIFO's open does not
        // wait for a writer (it is refused by the type check below).
        let fd = open(file(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = errno == ELOOP ? "a link, not a file of the outputs folder" : String(cString: strerror(errno))
            throw ParameterFileError(message: "'\(name)': \(reason)")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw ParameterFileError(message: "'\(name)': not a regular file (pipes and devices are not read)")
        }
        guard Int(info.st_size) <= largest else {
            throw ParameterFileError(message: "'\(name)': \(info.st_size) bytes; such a file may have up to \(largest >> 20) MB")
        }
        return try body("/proc/self/fd/\(fd)")
    }

    /// The bytes of `name`, a regular file of the folder itself, opened as
    /// ``withRegularFile(_:_:)`` opens it.
    func readRegularFile(_ name: String, largest: Int = largestParameterFile) throws -> [UInt8] {
        try withRegularFile(name, largest: largest) { path in
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ParameterFileError(message: "'\(name)': cannot be read")
            }
            return [UInt8](data)
        }
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

/// Why a file a chain names cannot be read from the outputs folder.
public struct ParameterFileError: UserFacingError {
    /// The one line: the name and the cause.
    public let message: String
    /// The message.
    public var description: String { message }
}
