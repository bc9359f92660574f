import Foundation

/// Compiled shaders kept on disk, so that a shader is compiled once, not once a run:
/// glslang's compiler takes 0.2–0.4 s to start on this machine's kind, more than a
/// 90-frame 1080p sepia takes on lavapipe. A file holds the whole key it was made for
/// (the program's text and the compiler's identity), so that two keys with one file name
/// are a miss, never the other's program.
///
/// The folder is the user's own: made 0700, used only while it is a real folder owned by
/// the user that no one else can write, its files read only when they are regular files
/// of the user's (never through a link) and written by rename, so that another process on
/// the machine can neither feed vidfx a program nor make it write elsewhere.
struct ShaderCache: Sendable {
    /// The folder of compiled programs.
    let folder: String

    /// The largest file read back (a program of a 64 KiB source is far smaller).
    static let largestFile = 16 << 20
    private static let magic: [UInt8] = Array("vidfx-spirv-1\n".utf8)

    /// `$XDG_CACHE_HOME/vidfx/shaders`, else `$HOME/.cache/vidfx/shaders`; nil when
    /// neither names an absolute folder.
    static var standard: ShaderCache? {
        let env = ProcessInfo.processInfo.environment
        if let given = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"], given.hasPrefix("/") {  // on the man page
            return ShaderCache(folder: given + "/vidfx/shaders")
        }
        guard let home = env["HOME"], home.hasPrefix("/") else { return nil }
        return ShaderCache(folder: home + "/.cache/vidfx/shaders")
    }

    /// The key of `program` compiled by `compiler`: its text, and the compiler's path,
    /// size and change time (another glslang, another program); nil when the compiler
    /// cannot be examined.
    static func key(program: String, compiler: String) -> [UInt8]? {
        var info = stat()
        guard stat(compiler, &info) == 0 else { return nil }
        let identity = "\(compiler)\n\(info.st_size)\n\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)\n\(info.st_ino)\n"
        return Array(identity.utf8) + Array(program.utf8)
    }

    /// The file name for `key`: 64-bit FNV-1a, as hex (the key inside decides a hit).
    static func name(_ key: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in key { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + ".spv"
    }

    /// Whether the folder may be trusted: a folder (not a link) of this user's that no
    /// one else can write into.
    private func trusted() -> Bool {
        var info = stat()
        guard lstat(folder, &info) == 0 else { return false }
        return info.st_mode & S_IFMT == S_IFDIR && info.st_uid == geteuid() && info.st_mode & 0o022 == 0
    }

    /// The program kept for `key`, or nil (none, another key's, or a file not to be trusted).
    func load(_ key: [UInt8]) -> [UInt32]? {
        guard trusted() else { return nil }
        let fd = open(folder + "/" + Self.name(key), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(), info.st_mode & 0o022 == 0,
              info.st_size > 0, info.st_size <= Self.largestFile else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            done += n
        }
        // magic, the key's length (8 bytes, little-endian), the key, the program.
        let head = Self.magic.count
        guard bytes.count > head + 8, Array(bytes[0..<head]) == Self.magic else { return nil }
        var length = 0
        for i in 0..<8 { length |= Int(bytes[head + i]) << (8 * i) }
        let start = head + 8
        guard length == key.count, bytes.count - start > length, bytes[start..<(start + length)].elementsEqual(key) else { return nil }
        let program = bytes[(start + length)...]
        guard program.count >= 20, program.count % 4 == 0 else { return nil }
        let words = program.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
        return words.first == 0x0723_0203 ? words : nil
    }

    /// Keeps `words` for `key`; silently does nothing when the folder cannot be made or
    /// trusted (a cache is never a reason to fail).
    func store(_ words: [UInt32], for key: [UInt8]) {
        var path = ""
        for part in folder.split(separator: "/") {
            path += "/" + part
            if mkdir(path, 0o700) != 0 && errno != EEXIST { return }
        }
        guard trusted() else { return }
        var template = Array((folder + "/.new-XXXXXX").utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { return }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var bytes = Self.magic
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: key.count >> (8 * i))) }
        bytes += key
        words.withUnsafeBytes { bytes += $0 }
        var done = 0, failed = false
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { failed = true; break }
            done += n
        }
        close(fd)
        if failed || rename(temporary, folder + "/" + Self.name(key)) != 0 { unlink(temporary) }
    }
}
