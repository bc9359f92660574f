import Hummingbird
import NIOCore
package import NIOPosix
package import _NIOFileSystem

/// A file of the outputs folder sent as a response body, checked again when it is opened:
/// a name that passed the folder's check (``OutputFolder/holdsRegularFile(_:)``) may be
/// swapped for a link or another file before the body is read. The open does not follow
/// a link, and the opened file must still be a regular file of the size announced.
package struct OutputFile {
    /// The file's path in the folder.
    package let path: String
    /// Its size when the headers were made.
    package let size: Int
    /// The threads that read files.
    package let threads: NIOThreadPool

    /// Opens the file for reading without following a link at its name, and checks it
    /// is a regular file of ``size`` bytes.
    /// - Throws: when it is a link, not regular, or another size now.
    package func open() async throws -> ReadFileHandle {
        let handle = try await FileSystem(threadPool: threads).openFile(forReadingAt: .init(path),
                                                                        options: .init(followSymbolicLinks: false, closeOnExec: true))
        do {
            let info = try await handle.info()
            guard info.type == .regular, info.size == Int64(size) else { throw StudioRequestError(.notFound, "\(path) changed") }
            return handle
        } catch {
            try? await handle.close()
            throw error
        }
    }

    /// - Parameters:
    ///   - path: the file's path in the folder.
    ///   - size: its size when the headers were made.
    ///   - threads: the threads that read files.
    package init(path: String, size: Int, threads: NIOThreadPool) {
        (self.path, self.size, self.threads) = (path, size, threads)
    }

    /// The bytes of `range` (the whole file when nil), read in chunks as they are sent.
    func body(_ range: ClosedRange<Int>?) -> ResponseBody {
        // An empty file has no range (0...-1 would trap).
        guard size > 0 else { return ResponseBody() }
        let range = range ?? 0...(size - 1)
        return ResponseBody(contentLength: range.count) { writer in
            let handle = try await open()
            do {
                for try await chunk in handle.readChunks(in: Int64(range.lowerBound)...Int64(range.upperBound), chunkLength: .kibibytes(128)) {
                    try await writer.write(chunk)
                }
                try await handle.close()
            } catch {
                try? await handle.close()
                throw error
            }
            try await writer.finish(nil)
        }
    }
}
