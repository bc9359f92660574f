import Detection
import Foundation
public import FrameCore
import Sinks

/// `--detections FILE`: each tick's detections as JSON Lines, written beside the target
/// and renamed into place once the render succeeded.
public final class DetectionLog {
    private let path: String
    private let work: String
    private let overwrite: Bool
    private let handle: FileHandle
    private var buffer = Data()
    private let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    public init(path: String, overwrite: Bool) throws {
        if !overwrite, FileManager.default.fileExists(atPath: path) {
            throw RenderError("\(path): already exists (use -y to overwrite)")
        }
        self.path = path
        self.overwrite = overwrite
        AtomicOutput.removeStaleWork(besides: path)
        work = AtomicOutput.workPath(for: path)
        guard FileManager.default.createFile(atPath: work, contents: nil), let handle = FileHandle(forWritingAtPath: work) else {
            throw RenderError("\(path): cannot write (\(String(cString: strerror(errno))))")
        }
        self.handle = handle
    }

    /// Adds the line of `frame`'s tick.
    public func write(_ frame: Frame) throws {
        buffer.append(try encoder.encode(TickJSON(frame)))
        buffer.append(0x0A)
        if buffer.count > 1 << 16 { try flush() }
    }

    private func flush() throws {
        do { try handle.write(contentsOf: buffer) } catch {
            throw RenderError("\(path): write failed (\(error.localizedDescription))")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Moves the finished file into place.
    public func publish() throws {
        try flush()
        try handle.synchronize()
        try handle.close()
        do { try AtomicOutput.publish(work, to: path, overwrite: overwrite) } catch {
            unlink(work)
            throw error
        }
    }

    /// Removes the unfinished file.
    public func abandon() {
        try? handle.close()
        unlink(work)
    }
}

