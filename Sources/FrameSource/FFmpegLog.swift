import CFFmpeg
import CFFmpegShim
import Foundation

/// Routes FFmpeg's log lines: the last error line on each thread is kept so that
/// an error can say *why* (FFmpeg's "moov atom not found" beats "Invalid data"),
/// and everything is echoed to stderr when `VIDFX_FFMPEG_LOG` is set
/// (`error`, `warning`, `info`, `verbose` or `debug`).
enum FFmpegLog {
    private static let threadKey = "vidfx.ffmpeg.lastError"

    /// Installs the sink once; later calls do nothing.
    static let installed: Void = {
        let level: Int32
        switch ProcessInfo.processInfo.environment["VIDFX_FFMPEG_LOG"] {
        case "debug": level = AV_LOG_DEBUG
        case "verbose": level = AV_LOG_VERBOSE
        case "info": level = AV_LOG_INFO
        case "warning": level = AV_LOG_WARNING
        default: level = AV_LOG_ERROR
        }
        vfx_install_log_sink({ level, line in
            guard let line else { return }
            let text = String(cString: line).trimmingCharacters(in: .whitespacesAndNewlines)
            if level <= AV_LOG_ERROR, !text.isEmpty {
                Thread.current.threadDictionary[FFmpegLog.threadKey] = text
            }
            if FFmpegLog.echo { FileHandle.standardError.write(Data(("[ffmpeg] " + text + "\n").utf8)) }
        }, level)
    }()

    private static let echo = ProcessInfo.processInfo.environment["VIDFX_FFMPEG_LOG"] != nil

    /// Forgets the calling thread's last error line (call before an operation).
    static func clear() {
        _ = installed
        Thread.current.threadDictionary.removeObject(forKey: threadKey)
        vfx_forget_network_error()
    }

    /// The calling thread's last FFmpeg error line since `clear()`, if any.
    static func lastError() -> String? {
        Thread.current.threadDictionary[threadKey] as? String
    }

    /// The calling thread's last error line from a network protocol (resolver, TCP,
    /// TLS), if any: what a network failure was, where a demuxer's later complaint
    /// ("moov atom not found" after an interrupted read) would only mislead.
    static func lastNetworkError() -> String? {
        vfx_last_network_error().map { String(cString: $0) }
    }

    /// FFmpeg's text for an error code.
    static func message(_ code: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 128)
        buffer.withUnsafeMutableBufferPointer { b in
            vfx_err2str(code, UnsafeMutableRawPointer(b.baseAddress!).assumingMemoryBound(to: CChar.self), b.count)
        }
        return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
    }
}

extension FrameSource {
    /// Routes FFmpeg's log lines through vidfx (kept for error messages; echoed to
    /// stderr only with `VIDFX_FFMPEG_LOG`) for the whole process: call it once, early,
    /// from the executable. A source does it on its own when it opens an input; code that
    /// uses FFmpeg without a source (joining segments) needs it done first.
    public static func routeFFmpegLogs() { _ = FFmpegLog.installed }
}
