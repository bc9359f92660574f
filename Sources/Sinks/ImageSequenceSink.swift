import Foundation
public import FrameCore

#if canImport(Glibc)
import Glibc
#endif

/// Writes frames as numbered image files (`frame_000000.png`, …) in a folder, with
/// `manifest.json` listing each file's tick, time and source time. Images are encoded
/// on several threads at once. A new folder is built under a temporary name and
/// renamed into place when complete, so a failed dump leaves nothing behind.
public final class ImageSequenceSink: FrameSink, @unchecked Sendable {
    /// One written image, as listed in the manifest.
    public struct Entry: Codable, Sendable {
        /// File name inside the folder.
        public var file: String
        /// Cadence tick it shows.
        public var tick: Int64
        /// Output time in seconds (the requested time for `--at` stills).
        public var time: Double
        /// Time of the source picture on the input's timeline, in seconds.
        public var sourceTime: Double
        /// Loop pass.
        public var pass: Int
        /// Why this frame was chosen, when it was chosen by content (`dump --count`).
        public var reason: String?
    }

    private struct Manifest: Codable {
        var input: String
        var format: String
        var fps: Double
        var width: Int
        var height: Int
        var frames: [Entry]
    }

    private let folder: String
    private let workFolder: String
    private let newFolder: Bool
    private let format: ImageFormat
    private let fileExtension: String
    private let input: String
    private let fps: Double
    private let condition = NSCondition()
    private var queue: [(Int, Frame)] = []
    private var entries: [Entry] = []
    private var failure: SinkError?
    private var closed = false
    private var running = 0
    private let capacity: Int
    private var size = (0, 0)

    /// Prepares `folder`. An existing folder must be empty unless `overwrite`, in which
    /// case its earlier `frame_*` files and manifest are replaced when the render
    /// finishes (until then, and after a failure, the folder is as it was).
    public init(folder: String, format: ImageFormat, input: String, fps: Double, overwrite: Bool,
                threads: Int? = nil) throws(SinkError) {
        let threads = threads ?? ProcessInfo.processInfo.activeProcessorCount
        self.folder = folder
        self.format = format
        self.input = input
        self.fps = fps
        switch format {
        case .png: fileExtension = "png"
        case .jpeg: fileExtension = "jpg"
        case .webp: fileExtension = "webp"
        case .ppm: fileExtension = "ppm"
        case .bgra: fileExtension = "bgra"
        }
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: folder, isDirectory: &isDir) {
            guard isDir.boolValue else { throw SinkError(path: folder, reason: "exists and is not a folder") }
            let contents = (try? fm.contentsOfDirectory(atPath: folder)) ?? []
            if !contents.isEmpty && !overwrite {
                throw SinkError(path: folder, reason: "folder is not empty (use -y to replace its frames)")
            }
            newFolder = false
        } else {
            newFolder = true
        }
        // Frames are always built in a hidden folder beside the target, so that an
        // interrupted or failed render leaves what the target held untouched.
        AtomicOutput.removeStaleWork(besides: folder)
        workFolder = AtomicOutput.workPath(for: folder)
        do { try fm.createDirectory(atPath: workFolder, withIntermediateDirectories: false) } catch {
            throw SinkError(path: folder, reason: "cannot create the folder (\(error.localizedDescription))")
        }
        capacity = 1  // each worker holds a frame already; a longer queue only adds 8 MB a frame
        for i in 0..<max(1, threads) {
            let t = Thread { [self] in self.work() }
            t.name = "vidfx.images.\(i)"
            running += 1
            t.start()
        }
    }

    /// File name of the `index`-th frame.
    public func fileName(_ index: Int) -> String {
        String(format: "frame_%06d.%@", index, fileExtension)
    }

    /// The folder as given.
    public var name: String { folder }

    /// The images written, once ``finish()`` has succeeded.
    public private(set) var written: [Entry] = []

    /// Queues a frame for encoding; throws the first write error seen so far. Always
    /// true: a folder has no reader to go away.
    public func write(_ frame: Frame) throws(SinkError) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= capacity && failure == nil { condition.wait() }
        if let failure { throw failure }
        let index = entries.count
        if index == 0 { size = (frame.width, frame.height) }
        entries.append(Entry(file: fileName(index), tick: frame.tick, time: frame.time.seconds,
                             sourceTime: frame.sourceTime.seconds, pass: frame.pass))
        queue.append((index, frame))
        condition.broadcast()
        // Hand-off: return once a worker has taken it, so the caller's next frame is not
        // decoded while this one still waits (one 8 MB frame fewer in flight).
        while !queue.isEmpty && failure == nil { condition.wait() }
        return true
    }

    /// Overrides the manifest time of the latest frame (stills taken with `--at`).
    public func setLastTime(_ seconds: Double) {
        condition.lock()
        if !entries.isEmpty { entries[entries.count - 1].time = seconds }
        condition.unlock()
    }

    /// Says in the manifest why the latest frame was chosen.
    public func setLastReason(_ reason: String) {
        condition.lock()
        if !entries.isEmpty { entries[entries.count - 1].reason = reason }
        condition.unlock()
    }

    /// Waits for every image, writes the manifest and moves a new folder into place.
    /// ``written`` then lists the images.
    public func finish() throws(SinkError) {
        condition.lock()
        closed = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        let failure = self.failure
        let entries = self.entries
        condition.unlock()
        if let failure { abandon(); throw failure }
        guard !entries.isEmpty else { abandon(); throw SinkError(path: folder, reason: "no frames to write") }
        let manifest = Manifest(input: input, format: fileExtension, fps: fps, width: size.0, height: size.1, frames: entries)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            try writeAtomically(try encoder.encode(manifest), to: workFolder + "/manifest.json")
        } catch let e as SinkError {
            abandon(); throw e
        } catch {
            abandon(); throw SinkError(path: folder, reason: "cannot write manifest.json (\(error.localizedDescription))")
        }
        do throws(SinkError) {
            if newFolder {
                try AtomicOutput.publish(workFolder, to: folder, overwrite: false)
            } else {
                try moveFrames(from: workFolder, into: folder)
            }
        } catch {
            abandon()
            throw error
        }
        written = entries
    }

    /// Into an existing folder (empty, or with -y): its earlier `frame_*` files and
    /// manifest give way to the new ones, which are renamed in (the manifest last);
    /// anything else the folder holds stays.
    private func moveFrames(from work: String, into folder: String) throws(SinkError) {
        try AtomicOutput.merge(work, into: folder, belongs: { $0.hasPrefix("frame_") || $0 == "manifest.json" }, last: { $0 == "manifest.json" })
    }

    /// Stops and removes the hidden work folder; the target keeps whatever it held.
    public func abandon() {
        condition.lock()
        closed = true
        queue.removeAll()
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
        try? FileManager.default.removeItem(atPath: workFolder)
    }

    private func work() {
        let encoder = ImageEncoder()
        while true {
            condition.lock()
            while queue.isEmpty && !closed { condition.wait() }
            if queue.isEmpty || failure != nil {
                running -= 1
                condition.broadcast()
                condition.unlock()
                return
            }
            let (index, frame) = queue.removeFirst()
            condition.broadcast()
            condition.unlock()
            do {
                try encoder.write(frame, as: format, toFile: workFolder + "/" + fileName(index))
            } catch {
                condition.lock()
                if failure == nil { failure = SinkError(path: error.path, reason: error.reason) }
                queue.removeAll()
                condition.broadcast()
                condition.unlock()
            }
        }
    }

    /// Whole or not at all, through the one atomic writer.
    private func writeAtomically(_ data: Data, to path: String) throws(SinkError) {
        try AtomicOutput.write(data, to: path, overwrite: true)
    }
}
