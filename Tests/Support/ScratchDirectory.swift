public import Foundation

/// A temporary folder for one test's files, removed with this object.
public final class ScratchDirectory: Sendable {
    /// The folder.
    public let url: URL

    /// Makes a new folder named `prefix` and a unique suffix in the temporary directory.
    public init(_ prefix: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` inside the folder.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}
