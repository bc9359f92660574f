public import FrameCore
#if canImport(Glibc)
import Glibc
#endif

/// Draws frames in the terminal with 24-bit colour half-block characters (`▀`: the
/// foreground is the upper pixel, the background the lower), so one character cell
/// shows two square-ish pixels. For SSH sessions and machines without a display.
///
/// It talks to the controlling terminal (`/dev/tty`), not to standard output, so a
/// y4m stream on stdout can run beside it. It switches to the alternate screen, hides
/// the cursor and reads keys without echo; all of that is undone by ``close()``, at
/// exit, and on a crash signal. Ctrl-C still raises SIGINT. Only cells that changed
/// since the last frame are redrawn.
public final class TerminalSink: PreviewSink {
    public let name = "terminal"
    public var isVisible: Bool { true }

    private let fd: Int32
    private var columns = 0, rows = 0
    /// Colours drawn in each cell last time (upper, lower), to redraw only changes.
    private var previous: [UInt64] = []
    private var output: [UInt8] = []
    private var pending: [UInt8] = []
    private var closed = false

    /// Takes over the controlling terminal.
    /// - Throws: ``SinkError`` when there is no terminal (a cron job, a pipe with no tty).
    public init() throws(SinkError) {
        fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            throw SinkError(path: "terminal", reason: "no terminal to draw on (/dev/tty: \(String(cString: strerror(errno))))")
        }
        var modes = termios()
        guard tcgetattr(fd, &modes) == 0 else {
            let why = String(cString: strerror(errno))
            Glibc.close(fd)
            throw SinkError(path: "terminal", reason: "/dev/tty is not a terminal (\(why))")
        }
        TerminalRestore.arm(fd: fd, modes: modes)
        var raw = modes
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)  // keys one at a time, unechoed; ISIG stays (Ctrl-C)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        tcsetattr(fd, TCSANOW, &raw)
        put(Array("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J".utf8))
    }

    deinit { close() }

    public func show(_ frame: Frame, caption: String?) throws(SinkError) -> Bool {
        if closed { return false }
        var size = winsize()
        if ioctl(fd, UInt(TIOCGWINSZ), &size) != 0 || size.ws_col == 0 || size.ws_row < 2 { size.ws_col = 80; size.ws_row = 24 }
        let cols = Int(size.ws_col), lines = Int(size.ws_row)
        if cols != columns || lines != rows {
            columns = cols
            rows = lines
            previous = []
            put(Array("\u{1B}[0m\u{1B}[2J".utf8))
        }
        // The picture takes every line but the last (the status line).
        let fit = FrameScaler.fit(width: frame.width, height: frame.height, into: (cols, 2 * (lines - 1)))
        let cellRows = (fit.height + 1) / 2
        let left = (cols - fit.width) / 2, top = (lines - 1 - cellRows) / 2
        let picture = FrameScaler.resize(frame, width: fit.width, height: cellRows * 2)
        if previous.count != fit.width * cellRows { previous = [UInt64](repeating: .max, count: fit.width * cellRows) }

        output.removeAll(keepingCapacity: true)
        picture.withUnsafeBytes { b in
            let p = b.baseAddress!.assumingMemoryBound(to: UInt32.self), stride = picture.bytesPerRow / 4
            var fg: UInt32 = .max, bg: UInt32 = .max
            for row in 0..<cellRows {
                var cursorAt = -1  // column the cursor is at on this row, -1 when unknown
                for x in 0..<fit.width {
                    let upper = p[2 * row * stride + x] & 0xFF_FFFF, lower = p[(2 * row + 1) * stride + x] & 0xFF_FFFF
                    let key = UInt64(upper) << 32 | UInt64(lower)
                    if previous[row * fit.width + x] == key { continue }
                    previous[row * fit.width + x] = key
                    if cursorAt != x { moveCursor(row: top + row, column: left + x); cursorAt = x }
                    if upper != fg { color(38, upper); fg = upper }
                    if lower != bg { color(48, lower); bg = lower }
                    output += [0xE2, 0x96, 0x80]  // ▀
                    cursorAt += 1
                }
            }
        }
        // Status line: the caption, cut to the width.
        moveCursor(row: lines - 1, column: 0)
        output += Array("\u{1B}[0m\u{1B}[2K".utf8)
        if let caption { output += Array(caption.utf8.prefix(cols - 1)) }
        put(output)
        return true
    }

    public func pollControls() -> [PreviewControl] {
        var bytes = [UInt8](repeating: 0, count: 64)
        while true {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard !closed, poll(&pfd, 1, 0) > 0 else { break }
            let n = read(fd, &bytes, bytes.count)
            guard n > 0 else { break }
            pending += bytes[0..<n]
        }
        var controls: [PreviewControl] = []
        var i = 0
        while i < pending.count {
            let c = pending[i]
            if c == 0x1B {
                // An arrow is ESC [ A…D; a lone ESC is the Esc key.
                if i + 2 < pending.count, pending[i + 1] == UInt8(ascii: "[") {
                    switch pending[i + 2] {
                    case UInt8(ascii: "A"): controls.append(.increase)
                    case UInt8(ascii: "B"): controls.append(.decrease)
                    case UInt8(ascii: "C"): controls.append(.nextEffect)
                    case UInt8(ascii: "D"): controls.append(.previousEffect)
                    default: break
                    }
                    i += 3
                    continue
                }
                if i + 1 == pending.count { controls.append(.quit) }
                i += 1
                continue
            }
            switch c {
            case UInt8(ascii: "q"), UInt8(ascii: "Q"): controls.append(.quit)
            case UInt8(ascii: " "): controls.append(.togglePause)
            case UInt8(ascii: "l"), UInt8(ascii: "L"): controls.append(.toggleLoop)
            default: break
            }
            i += 1
        }
        pending.removeAll()
        return controls
    }

    public func close() {
        guard !closed else { return }
        closed = true
        TerminalRestore.restore()
        Glibc.close(fd)
    }

    // MARK: Output

    private func moveCursor(row: Int, column: Int) {
        output += [0x1B, UInt8(ascii: "[")]
        decimal(row + 1)
        output.append(UInt8(ascii: ";"))
        decimal(column + 1)
        output.append(UInt8(ascii: "H"))
    }

    /// `ESC [ 38;2;r;g;b m` (38 foreground, 48 background) for a BGRA pixel.
    private func color(_ layer: Int, _ bgr: UInt32) {
        output += [0x1B, UInt8(ascii: "[")]
        decimal(layer)
        output += [UInt8(ascii: ";"), UInt8(ascii: "2"), UInt8(ascii: ";")]
        decimal(Int(bgr >> 16 & 0xFF))
        output.append(UInt8(ascii: ";"))
        decimal(Int(bgr >> 8 & 0xFF))
        output.append(UInt8(ascii: ";"))
        decimal(Int(bgr & 0xFF))
        output.append(UInt8(ascii: "m"))
    }

    private func decimal(_ v: Int) {
        if v >= 100 { output.append(UInt8(48 + v / 100)) }
        if v >= 10 { output.append(UInt8(48 + v / 10 % 10)) }
        output.append(UInt8(48 + v % 10))
    }

    private func put(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { b in
            var done = 0
            while done < b.count {
                let n = Glibc.write(fd, b.baseAddress! + done, b.count - done)
                if n < 0 { if errno == EINTR || errno == EAGAIN { continue }; return }
                done += n
            }
        }
    }
}

/// What undoes the terminal set-up, reachable from a signal handler: the saved modes
/// and the escape sequence, kept in plain globals because a handler may only call
/// async-signal-safe functions (write, tcsetattr) and must not allocate.
private enum TerminalRestore {
    nonisolated(unsafe) static var fd: Int32 = -1
    /// On the heap: Swift sizes a `termios` global at 57 bytes, but copies 60 (the C
    /// struct's stride) into it, which AddressSanitizer rightly calls an overflow.
    nonisolated(unsafe) static let modes: UnsafeMutablePointer<termios> = {
        let p = UnsafeMutablePointer<termios>.allocate(capacity: 1)
        p.initialize(to: termios())
        return p
    }()
    nonisolated(unsafe) static var armed = false
    static let sequence: [UInt8] = Array("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l".utf8)
    nonisolated(unsafe) static let bytes: UnsafeMutablePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: sequence.count)
        p.initialize(from: sequence, count: sequence.count)
        return p
    }()
    nonisolated(unsafe) static var installed = false

    static func arm(fd: Int32, modes: termios) {
        _ = bytes  // built now, not inside a handler
        self.fd = fd
        self.modes.pointee = modes
        armed = true
        guard !installed else { return }
        installed = true
        atexit { TerminalRestore.restore() }
        for sig in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP] {
            signal(sig) { sig in
                TerminalRestore.restore()
                signal(sig, SIG_DFL)
                raise(sig)
            }
        }
    }

    static func restore() {
        guard armed else { return }
        armed = false
        _ = write(fd, bytes, sequence.count)
        tcsetattr(fd, TCSANOW, modes)
    }
}
