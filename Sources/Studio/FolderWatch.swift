import Foundation
import Synchronization

/// The names of files written in a folder, told as they are written (inotify): a shader
/// saved by the user's own editor reaches the page within a second. Written files only
/// (closed after writing, or moved in, as editors save); names are gathered for 100 ms
/// so that a burst of writes (another process writing the folder all day) is one
/// message, not one per write.
final class FolderWatch: Sendable {
    private let running = Mutex<(thread: Thread?, stop: Int32)>((nil, -1))

    /// Starts watching `folder`; `changed` gets the names `wanted` takes, on the watch's
    /// own thread. Nothing happens when inotify cannot watch the folder.
    func start(folder: String, wanted: @escaping @Sendable (String) -> Bool, changed: @escaping @Sendable (Set<String>) -> Void) {
        let watch = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard watch >= 0 else { return }
        guard inotify_add_watch(watch, folder, UInt32(IN_CLOSE_WRITE | IN_MOVED_TO)) >= 0 else { close(watch); return }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { close(watch); return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let (stopRead, stopWrite) = (ends[0], ends[1])
        let thread = Thread {
            defer { close(watch); close(stopRead) }
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            var names = Set<String>()
            var first: ContinuousClock.Instant?
            while true {
                var fds = [pollfd(fd: watch, events: Int16(POLLIN), revents: 0), pollfd(fd: stopRead, events: Int16(POLLIN), revents: 0)]
                // Waiting for the first write, or out the rest of the 100 ms after it.
                let wait: Int32 = first.map { Int32(max(0, 100 - $0.duration(to: .now) / .milliseconds(1))) } ?? -1
                let ready = poll(&fds, 2, wait)
                if fds[1].revents != 0 { return }
                if ready > 0, fds[0].revents & Int16(POLLIN) != 0 {
                    let count = read(watch, &buffer, buffer.count)
                    if count > 0 {
                        names.formUnion(Self.names(in: buffer[..<count]).filter(wanted))
                        if first == nil && !names.isEmpty { first = .now }
                    }
                }
                if let since = first, since.duration(to: .now) >= .milliseconds(100) {
                    changed(names)
                    names = []
                    first = nil
                }
            }
        }
        thread.name = "vidfx studio folder watch"
        running.withLock { $0 = (thread, stopWrite) }
        thread.start()
    }

    /// Stops watching (the thread ends at once).
    func stop() {
        let stop = running.withLock { r -> Int32 in defer { r = (nil, -1) }; return r.stop }
        guard stop >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(stop, &byte, 1)
        close(stop)
    }

    /// The names in a read of inotify events (`struct inotify_event`: wd, mask, cookie,
    /// len, then len bytes of name padded with NULs).
    static func names(in bytes: ArraySlice<UInt8>) -> [String] {
        var names: [String] = []
        var at = bytes.startIndex
        let head = MemoryLayout<inotify_event>.size
        while at + head <= bytes.endIndex {
            let length = bytes[(at + 12)..<(at + 16)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            let start = at + head, end = start + Int(length)
            guard end <= bytes.endIndex else { break }
            let name = bytes[start..<end].prefix { $0 != 0 }
            if !name.isEmpty, let text = String(validating: name, as: UTF8.self) { names.append(text) }
            at = end
        }
        return names
    }
}
