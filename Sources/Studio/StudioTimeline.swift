import Foundation
import FrameCore
import FrameSource
import MediaInput
import Render
import Scenes
import Sinks
import Synchronization

/// The clip along the scrub bar: a strip of thumbnails, each the exact picture at its
/// time (as `storyboard` makes them), and the scene cuts `scenes` finds with its
/// defaults. Made once, on a thread of its own, when the studio starts, and kept in the
/// outputs folder's private `.vidfx-cache` folder (never listed or served as an output),
/// so the next studio on the same clip has it at once.
final class StudioTimeline: Sendable {
    /// What the page draws.
    struct Strip: Codable, Equatable, Sendable {
        /// How many thumbnails, side by side in one JPEG.
        var count: Int
        /// Each thumbnail's size in pixels.
        var width: Int
        var height: Int
        /// The time each thumbnail shows, in seconds.
        var times: [Double]
        /// The times the scenes after the first begin, in seconds.
        var cuts: [Double]
    }

    enum State: Sendable {
        case working
        case ready(Strip, jpeg: [UInt8])
        case failed(String)
    }

    /// The most thumbnails in a strip, and each one's width.
    static let most = 48
    static let thumbnailWidth = 160

    private let state = Mutex<State>(.working)
    /// Whether ``stop()`` was called, and the running scene scan's stop action.
    private let stopping = Mutex<(stopped: Bool, scan: (@Sendable () -> Void)?)>((false, nil))
    /// Whether the thread has ended, and who waits for it to.
    private let ending = Mutex<(ended: Bool, waiting: [CheckedContinuation<Void, Never>])>((true, []))

    /// The studio's private folder in the outputs folder, `.vidfx-cache`, made with mode
    /// 0700: nil (nothing is kept) when something else has that name, a link, a folder
    /// of another user's or one that others may enter. Inside it no one else can plant a
    /// pipe or a link where the strip is written or read (a FIFO planted at the strip's
    /// name in the outputs folder itself once received the strip).
    static func privateFolder(in folder: OutputFolder) -> String? {
        let path = folder.file(".vidfx-cache")
        if mkdir(path, 0o700) != 0 && errno != EEXIST { return nil }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid(), info.st_mode & 0o077 == 0 else {
            return nil
        }
        return path
    }

    /// Where the strip is kept for the input `identity` names (its path, size and change
    /// time), in ``privateFolder(in:)``.
    static func cacheNames(folder: OutputFolder, identity: String) -> (json: String, jpeg: String)? {
        guard let cache = privateFolder(in: folder) else { return nil }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in identity.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01b3 }
        let stem = cache + "/timeline-" + String(hash, radix: 16)
        return (stem + ".json", stem + ".jpg")
    }

    /// The bytes of a regular file at `path`, opened without following a link or waiting
    /// on a pipe; nil for anything else.
    static func readKept(_ path: String) -> Data? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size < 64 << 20 else { return nil }
        return try? FileHandle(fileDescriptor: fd, closeOnDealloc: false).readToEnd()
    }

    /// What the page asks for now.
    var current: State { state.withLock { $0 } }

    /// Starts making the strip of `media` (`duration` seconds), or takes it from the folder,
    /// waiting at each picture while `priority` says stills come first.
    func start(media: MediaInput, configuration: FrameSource.Configuration, duration: Double?, folder: OutputFolder,
               priority: StillPriority = StillPriority()) {
        ending.withLock { $0.ended = false }
        let thread = Thread { [self] in
            do {
                let made = try make(media: media, configuration: configuration, duration: duration, folder: folder, priority: priority)
                state.withLock { $0 = .ready(made.strip, jpeg: made.jpeg) }
            } catch {
                state.withLock { $0 = .failed("\(error)") }
            }
            for waiting in ending.withLock({ e in e.ended = true; defer { e.waiting = [] }; return e.waiting }) { waiting.resume() }
        }
        thread.name = "vidfx studio timeline"
        thread.qualityOfService = .utility
        thread.start()
    }

    /// Stops the strip's work and returns when its thread has ended: a process that
    /// exits under a thread still decoding can crash in its exit handlers.
    func stop() async {
        stopping.withLock { $0.stopped = true; return $0.scan }?()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = ending.withLock { e in
                if !e.ended { e.waiting.append(continuation) }
                return e.ended
            }
            if ended { continuation.resume() }
        }
    }

    private var stopped: Bool { stopping.withLock { $0.stopped } }

    private func make(media: MediaInput, configuration: FrameSource.Configuration, duration: Double?,
                      folder: OutputFolder, priority: StillPriority) throws -> (strip: Strip, jpeg: [UInt8]) {
        guard let duration, duration > 0 else { throw RenderError("\(media.location): its length is unknown, so it has no timeline") }
        let identity = StillInput.identity(of: media.location) + ":\(Self.most):\(Self.thumbnailWidth)"
        let names = Self.cacheNames(folder: folder, identity: identity)
        if let names, let data = Self.readKept(names.json), let strip = try? JSONDecoder().decode(Strip.self, from: data),
           let jpeg = Self.readKept(names.jpeg) {
            return (strip, [UInt8](jpeg))
        }

        // Thumbnails: the picture on screen at the start of each of `count` equal parts.
        let ticks = Int((duration * configuration.frameRate.seconds).rounded(.up))
        let count = max(1, min(Self.most, ticks))
        let reader = try StillReader(input: media, configuration: configuration)
        var times: [Double] = []
        var sheet: Frame?
        var height = 0
        for k in 0..<count {
            priority.waitForTurn { stopped }
            if stopped { throw RenderError("the timeline was stopped") }
            let time = Rational(Int64(k) * Int64(ticks) / Int64(count), 1) / configuration.frameRate
            guard let picture = try reader.picture(at: time) else { break }
            if sheet == nil {
                height = max(2, Int((Double(Self.thumbnailWidth) * Double(picture.height) / Double(max(1, picture.width))).rounded()))
                sheet = Frame(width: Self.thumbnailWidth * count, height: height)
            }
            sheet!.place(FrameScaler.resize(picture, width: Self.thumbnailWidth, height: height), x: k * Self.thumbnailWidth, y: 0)
            times.append(time.seconds)
        }
        guard let sheet, !times.isEmpty else { throw RenderError("\(media.location): no pictures for the timeline") }

        // Cuts: `scenes` with its defaults (the content detector, PySceneDetect's settings).
        let scan = try SceneScan(media: media, options: PictureScanner.Options(), minimumLength: NamedDetector.defaultMinimumLength, watch: { [self] action in
            let stoppedAlready = stopping.withLock { s in
                s.scan = action
                return s.stopped
            }
            if stoppedAlready { action() }
        }, between: { priority.waitForTurn { stopped } }) { length in
            NamedDetector.standard(minLength: length)
        }
        if stopped { throw RenderError("the timeline was stopped") }
        let strip = Strip(count: times.count, width: Self.thumbnailWidth, height: height, times: times,
                          cuts: scan.list.cuts.map(\.time.seconds))
        let jpeg = try ImageEncoder().encode(sheet, as: .jpeg(quality: 80))
        // Kept for the next studio; a folder that cannot take it only costs the next one this work.
        if let names {
            try? AtomicOutput.write(Data(jpeg), to: names.jpeg, overwrite: true, intoDevices: false)
            if let json = try? JSONEncoder().encode(strip) { try? AtomicOutput.write(json, to: names.json, overwrite: true, intoDevices: false) }
        }
        return (strip, jpeg)
    }
}
