import Foundation
import FrameCore
import Testing
@testable import Sinks

/// Outputs appear whole or not at all, and never replace what appeared meanwhile
/// unless asked to (`-y`).
@Suite struct AtomicOutputTests {
    let dir: URL
    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-atomic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    func text(_ url: URL) -> String? { try? String(contentsOf: url, encoding: .utf8) }

    func frame(_ tick: Int) -> Frame {
        var f = Frame(width: 64, height: 48)
        f.time = Rational(Int64(tick), 30)
        return f
    }

    @Test func aFileThatAppearedWhileRenderingIsKept() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.mp4")
        let sink = try EncoderSink(settings: EncoderSink.Settings(output: out.path))
        for k in 0..<5 { #expect(try sink.write(frame(k))) }
        try "mine".write(to: out, atomically: false, encoding: .utf8)  // another program, mid-render
        #expect(throws: SinkError.self) { try sink.finish() }
        #expect(text(out) == "mine", "the file that appeared is untouched")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(left == ["out.mp4"], "no work file left behind: \(left)")
    }

    @Test func overwriteReplacesIt() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.mp4")
        var settings = EncoderSink.Settings(output: out.path)
        settings.overwrite = true
        let sink = try EncoderSink(settings: settings)
        for k in 0..<5 { #expect(try sink.write(frame(k))) }
        try "mine".write(to: out, atomically: false, encoding: .utf8)
        try sink.finish()
        #expect(sink.summary?.frames == 5)
        #expect(text(out) != "mine")
    }

    @Test func publishRefusesAnExistingTargetWithoutOverwrite() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let work = dir.appendingPathComponent("work"), target = dir.appendingPathComponent("target")
        try "new".write(to: work, atomically: false, encoding: .utf8)
        try "old".write(to: target, atomically: false, encoding: .utf8)
        #expect(throws: SinkError.self) { try AtomicOutput.publish(work.path, to: target.path, overwrite: false) }
        #expect(text(target) == "old" && text(work) == "new")
        try AtomicOutput.publish(work.path, to: target.path, overwrite: true)
        #expect(text(target) == "new" && !FileManager.default.fileExists(atPath: work.path))
        // A folder is published the same way, and never onto an existing one.
        let folderWork = dir.appendingPathComponent("fw"), folder = dir.appendingPathComponent("folder")
        try FileManager.default.createDirectory(at: folderWork, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        #expect(throws: SinkError.self) { try AtomicOutput.publish(folderWork.path, to: folder.path, overwrite: false) }
        try FileManager.default.removeItem(at: folder)
        try AtomicOutput.publish(folderWork.path, to: folder.path, overwrite: false)
        #expect(FileManager.default.fileExists(atPath: folder.path))
    }

    @Test func replacingAFolderLeavesItWholeUntilTheEnd() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = dir.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        for name in ["frame_000000.png", "frame_000001.png", "frame_000002.png", "manifest.json", "notes.txt"] {
            try "old \(name)".write(to: folder.appendingPathComponent(name), atomically: false, encoding: .utf8)
        }
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        // Interrupted: the folder is exactly as it was, and no work folder is left.
        let interrupted = try ImageSequenceSink(folder: folder.path, format: .png, input: "x", fps: 30, overwrite: true, threads: 1)
        #expect(try interrupted.write(frame(0)))
        interrupted.abandon()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == before)
        #expect(text(folder.appendingPathComponent("frame_000000.png")) == "old frame_000000.png")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["frames"])
        // Finished: two new frames and a new manifest; the old third frame is gone, notes.txt stays.
        let done = try ImageSequenceSink(folder: folder.path, format: .png, input: "x", fps: 30, overwrite: true, threads: 1)
        #expect(try done.write(frame(0)))
        #expect(try done.write(frame(1)))
        try done.finish()
        #expect(done.written.map(\.file) == ["frame_000000.png", "frame_000001.png"])
        let after = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(after == ["frame_000000.png", "frame_000001.png", "manifest.json", "notes.txt"])
        #expect(text(folder.appendingPathComponent("manifest.json"))?.contains("old") == false)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["frames"])
    }

    @Test func staleWorkOfDeadProcessesIsRemoved() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let dead = dir.appendingPathComponent(".out.mp4.vidfx-2147483646.part")  // above any pid_max
        let deadFolder = dir.appendingPathComponent(".frames.vidfx-2147483645.part")
        let alive = dir.appendingPathComponent(".other.mp4.vidfx-\(getpid()).part")  // this test process
        let unrelated = dir.appendingPathComponent(".cache.part")
        for f in [dead, alive, unrelated] { try "x".write(to: f, atomically: false, encoding: .utf8) }
        try FileManager.default.createDirectory(at: deadFolder, withIntermediateDirectories: false)
        AtomicOutput.removeStaleWork(besides: dir.appendingPathComponent("out.mp4").path)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(left == [alive.lastPathComponent, unrelated.lastPathComponent].sorted())
        #expect(AtomicOutput.stalePID(".a.b.vidfx-123.part") == 123 && AtomicOutput.stalePID(".a.vidfx-x.part") == nil)
    }

    /// The one writer of whole files: data appears whole, never over a file without
    /// overwrite, and a failure leaves nothing behind; writers at once get their own work.
    @Test func dataIsWrittenWholeOrNotAtAll() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("report.json")
        try AtomicOutput.write(Data("first".utf8), to: out.path, overwrite: false)
        #expect(text(out) == "first")
        let refused = #expect(throws: SinkError.self) { try AtomicOutput.write(Data("second".utf8), to: out.path, overwrite: false) }
        #expect(refused?.kind == .targetExists)
        #expect(text(out) == "first", "kept without overwrite")
        try AtomicOutput.write(Data("third".utf8), to: out.path, overwrite: true)
        #expect(text(out) == "third")
        let missing = dir.appendingPathComponent("no-such-folder/x.json").path
        #expect(throws: SinkError.self) { try AtomicOutput.write(Data("x".utf8), to: missing, overwrite: true) }
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(left == ["report.json"], "no work file left: \(left)")
        let a = AtomicOutput.uniqueWorkPath(for: out.path), b = AtomicOutput.uniqueWorkPath(for: out.path)
        #expect(a != b && a.hasSuffix(".part") && URL(fileURLWithPath: a).lastPathComponent.hasPrefix(".report.json.vidfx-"))
        // Both work names are this process's, so a later run knows whose they were.
        #expect(AtomicOutput.stalePID(URL(fileURLWithPath: a).lastPathComponent) == getpid())
        #expect(AtomicOutput.stalePID(".x.mp4.vidfx-123-7.part") == 123 && AtomicOutput.stalePID(".x.mp4.vidfx-123.part") == 123)
        #expect(AtomicOutput.stalePID(".x.mp4.vidfx-abc.part") == nil)
    }

    /// A named pipe or a device at the target is written into where it is, whole files and
    /// published work alike: renaming a file over it once put a plain file in its place
    /// (`vidfx scenes -o /dev/full -y`, as root, replaced the device).
    @Test func aPipeOrDeviceIsWrittenIntoNotReplaced() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let pipe = dir.appendingPathComponent("pipe").path
        #expect(mkfifo(pipe, 0o600) == 0)
        // The reader first, without blocking, so that opening the pipe to write does not wait.
        let reader = open(pipe, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        try AtomicOutput.write(Data("whole".utf8), to: pipe, overwrite: true)
        let work = AtomicOutput.workPath(for: pipe)
        try Data(", then streamed".utf8).write(to: URL(fileURLWithPath: work))
        try AtomicOutput.publish(work, to: pipe, overwrite: false)
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(reader, &buffer, buffer.count)
        #expect(String(decoding: buffer.prefix(max(0, n)), as: UTF8.self) == "whole, then streamed")
        var info = stat()
        #expect(stat(pipe, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "still a pipe")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["pipe"], "no work file left")
        // A device takes the bytes without -y: it is not a file of the user's to keep.
        try AtomicOutput.write(Data("gone".utf8), to: "/dev/null", overwrite: false)
        #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
    }
    /// A link is never a way into a device or a pipe (issue 65, 7): a link in a folder to
    /// /dev/null or to a FIFO is refused without overwrite and replaced (the link itself)
    /// with it, and the device or pipe gets nothing. The system's own names for descriptors
    /// (`/dev/stdout`, `/dev/fd/N`) are still written into. With `intoDevices: false`, a
    /// pipe at the name itself is a name taken.
    @Test func aLinkIsNeverAWayIntoADeviceOrAPipe() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let pipe = dir.appendingPathComponent("pipe").path
        #expect(mkfifo(pipe, 0o600) == 0)
        let reader = open(pipe, O_RDONLY | O_NONBLOCK)
        defer { close(reader) }
        for (name, target) in [("null-link", "/dev/null"), ("pipe-link", pipe)] {
            let link = dir.appendingPathComponent(name).path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            #expect(!AtomicOutput.isSpecial(link), "\(name)")
            #expect(throws: SinkError.self, "\(name)") { try AtomicOutput.write(Data("secret".utf8), to: link, overwrite: false) }
            try AtomicOutput.write(Data("kept".utf8), to: link, overwrite: true)
            var info = stat()
            #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFREG, "\(name): the link was replaced by the file")
            #expect(try String(contentsOfFile: link, encoding: .utf8) == "kept")
        }
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(read(reader, &buffer, buffer.count) <= 0, "the pipe got nothing")
        #expect(AtomicOutput.isSpecial("/dev/stdout") == AtomicOutput.isSpecial("/proc/self/fd/1"))
        #expect(AtomicOutput.isSpecial("/dev/null"))
        #expect(throws: SinkError.self) { try AtomicOutput.write(Data("x".utf8), to: pipe, overwrite: false, intoDevices: false) }
        #expect(read(reader, &buffer, buffer.count) <= 0, "the pipe got nothing")
    }
}
