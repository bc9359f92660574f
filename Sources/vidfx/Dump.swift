import ArgumentParser
import Foundation
import Effects
import FrameCore
import FrameSource

#if canImport(Glibc)
import Glibc
#endif

/// `vidfx dump`: the cadence frames as raw data.
struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the cadence frames out (raw BGRA for now: --format bgra -o -).",
        discussion: """
        Raw BGRA is width*4 bytes per row, rows top to bottom, frames back to back, no header.
        The size goes to stderr. To view: vidfx dump clip.mp4 --format bgra -o - | \
        ffplay -f rawvideo -pixel_format bgra -video_size WxH -framerate 30 -
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case bgra
    }

    @Argument(help: "Video or image file, or http(s) URL.")
    var input: String

    @Option(name: .shortAndLong, help: "Output file, or - for standard output.")
    var output: String

    @Option(help: "Output format.")
    var format: Format = .bgra

    @Option(name: [.customShort("e"), .customLong("effects")],
            help: ArgumentHelp("Effect chain, e.g. \"sepia=0.8,pixelate:size=12\" (see `vidfx effects`).", valueName: "chain"))
    var effects: String?

    @Flag(name: .shortAndLong, help: "Overwrite an existing output file.")
    var yes = false

    @Flag(name: .shortAndLong, help: "No messages except errors.")
    var quiet = false

    @OptionGroup var timeline: TimelineOptions
    @OptionGroup var color: ColorOptions

    func run() throws {
        var configuration = FrameSource.Configuration()
        timeline.apply(to: &configuration)
        color.apply(to: &configuration)
        let quiet = self.quiet
        configuration.warningHandler = { message in if !quiet { Console.warning(message) } }
        let chain = try EffectChainParsing.chain(effects)
        let source = try FrameSource(input, configuration: configuration)
        defer { source.close() }

        let sink = try RawFileOutput(path: output, overwrite: yes)
        var frames = 0
        var size: (Int, Int)?
        do {
            while var frame = try source.nextFrame() {
                if let chain { frame = chain.apply(to: frame) }
                if size == nil { size = (frame.width, frame.height) }
                guard try sink.write(frame) else { break }  // reader went away
                frames += 1
            }
            try sink.finish()
        } catch {
            sink.abandon()
            throw error
        }
        if !quiet, let (w, h) = size {
            Console.note("\(frames) frames, \(w)x\(h) bgra, \(configuration.frameRate) fps")
        }
    }
}

/// Raw bytes to a file (written beside it, then renamed into place) or to stdout.
final class RawFileOutput {
    private let path: String
    private let temporary: String?
    private let fd: Int32

    init(path: String, overwrite: Bool) throws {
        self.path = path
        if path == "-" {
            fd = STDOUT_FILENO
            temporary = nil
            signal(SIGPIPE, SIG_IGN)  // a closed pipe is an EPIPE we handle, not a crash
            return
        }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            // A device or pipe (/dev/null, a FIFO): write straight to it, nothing to replace.
            fd = open(path, O_WRONLY)
            guard fd >= 0 else { throw CommandFailure(message: "\(path): cannot write (\(String(cString: strerror(errno))))") }
            temporary = nil
            signal(SIGPIPE, SIG_IGN)
            return
        }
        if !overwrite, FileManager.default.fileExists(atPath: path) {
            throw CommandFailure(message: "\(path): already exists (use -y to overwrite)")
        }
        let url = URL(fileURLWithPath: path)
        let tmp = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).vidfx-\(getpid()).part").path
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else {
            throw CommandFailure(message: "\(path): cannot write (\(String(cString: strerror(errno))))")
        }
        temporary = tmp
    }

    /// Writes the frame's rows; false when stdout's reader has gone.
    func write(_ frame: Frame) throws -> Bool {
        let rowBytes = frame.width * 4
        return try frame.withUnsafeBytes { bytes -> Bool in
            if frame.bytesPerRow == rowBytes {
                return try writeAll(bytes.baseAddress!, rowBytes * frame.height)
            }
            for y in 0..<frame.height {
                guard try writeAll(bytes.baseAddress! + y * frame.bytesPerRow, rowBytes) else { return false }
            }
            return true
        }
    }

    private func writeAll(_ p: UnsafeRawPointer, _ count: Int) throws -> Bool {
        var done = 0
        while done < count {
            let n = Glibc.write(fd, p + done, count - done)
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE { return false }
                throw CommandFailure(message: "\(path): write failed (\(String(cString: strerror(errno))))")
            }
            done += n
        }
        return true
    }

    /// Completes the output: flushes and renames the temporary file into place.
    func finish() throws {
        guard let temporary else {
            if fd != STDOUT_FILENO { close(fd) }
            return
        }
        guard fsync(fd) == 0 || errno == EINVAL, close(fd) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CommandFailure(message: "\(path): write failed (\(reason))")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CommandFailure(message: "\(path): cannot move the finished file into place (\(reason))")
        }
    }

    /// Removes the partial output after a failure.
    func abandon() {
        guard let temporary else {
            if fd != STDOUT_FILENO { close(fd) }
            return
        }
        close(fd)
        unlink(temporary)
    }
}
