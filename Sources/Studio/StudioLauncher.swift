public import Foundation

/// How a browser is sent to the studio without the token on a command line (where `ps`
/// shows it to every local user): a page in a private folder (mode 0700, the page 0600)
/// that only the user can read, which sends the browser on to the address with its
/// token. The browser is given the page's path; the folder goes when the studio ends.
public struct StudioLauncher: Sendable {
    /// The private folder.
    public let folder: String
    /// The page to open, `file://…/open.html`.
    public var url: URL { URL(fileURLWithPath: folder + "/open.html") }

    /// Writes the page for `address` (`http://127.0.0.1:P/#token=…`) under `base`
    /// (`$XDG_RUNTIME_DIR`, else the system's temporary folder).
    /// - Throws: ``StudioLauncherError`` when the folder or the page cannot be made.
    public init(address: String, base: String? = nil) throws(StudioLauncherError) {
        let env = ProcessInfo.processInfo.environment
        let root = base ?? env["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSTemporaryDirectory()
        var template = Array((root.hasSuffix("/") ? root : root + "/").utf8CString.dropLast()) + Array("vidfx-studio-XXXXXX".utf8CString)
        // mkdtemp makes the folder with mode 0700, under a name no one can guess.
        guard let made = mkdtemp(&template) else {
            throw StudioLauncherError(message: "cannot make a private folder in \(root) (\(String(cString: strerror(errno))))")
        }
        folder = String(cString: made)
        let page = """
            <!doctype html><meta charset="utf-8"><title>vidfx studio</title>
            <meta name="referrer" content="no-referrer">
            <script>location.replace(\(Self.jsString(address)));</script>
            <p><a href="\(address.replacingOccurrences(of: "\"", with: "%22"))">Open the studio</a></p>

            """
        let fd = open(folder + "/open.html", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            rmdir(folder)
            throw StudioLauncherError(message: "cannot write the studio's start page (\(reason))")
        }
        let bytes = Array(page.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count else {
            remove()
            throw StudioLauncherError(message: "cannot write the studio's start page")
        }
    }

    /// Removes the page and its folder.
    public func remove() {
        unlink(folder + "/open.html")
        rmdir(folder)
    }

    /// `text` as a JavaScript string literal.
    static func jsString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"", "\\": out += "\\" + String(scalar)
            case _ where scalar.value < 0x20 || scalar == "<" || scalar == ">" || scalar.value > 0x7E:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// Why the browser's start page could not be made.
public struct StudioLauncherError: Error, CustomStringConvertible, Sendable {
    /// The one line.
    public let message: String
    /// The message.
    public var description: String { message }
}
