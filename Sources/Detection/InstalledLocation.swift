import Foundation

/// Where the running vidfx binary really is, so that the files installed beside it
/// (the face model, the face network library) are found however it was started: by
/// name from the `PATH`, through a symbolic link, or from another folder. `argv[0]`
/// is none of these reliably: called by name it is just `vidfx`, which resolved
/// against the current folder names nothing.
enum InstalledLocation {
    /// The folder holding the executable (`PREFIX/bin`, or `.build/debug`).
    static let binDirectory: URL = {
        // The kernel's link to the file being run, with every symbolic link resolved.
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path).deletingLastPathComponent()
        }
        // No /proc (not Linux): argv[0] as the last resort.
        return URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath().deletingLastPathComponent()
    }()
}
