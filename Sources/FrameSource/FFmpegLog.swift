import CFFmpeg
import CFFmpegShim
import Foundation
import MediaInput

/// Routes FFmpeg's log lines: the last error line on each thread is kept so that
/// an error can say *why* (FFmpeg's "moov atom not found" beats "Invalid data"); the
/// HLS demuxer's segment lines tell the thread's `DamageCollector` which playlist
/// segment was skipped and why; and everything is echoed to stderr when
/// `VIDFX_FFMPEG_LOG` is set (`error`, `warning`, `info`, `verbose` or `debug`).
enum FFmpegLog {
    private static let threadKey = FFmpegErrorText.threadKey

    /// Installs the sink once; later calls do nothing.
    static let installed: Void = {
        vfx_install_log_sink({ level, line in
            guard let line else { return }
            let text = String(cString: line).trimmingCharacters(in: .whitespacesAndNewlines)
            // The HLS demuxer's segment lines arrive whatever the level (see vidfx_log.c).
            if text.hasPrefix("HLS request for url '") {
                FFmpegLog.segmentRequested(text)
            } else if text.hasPrefix("Failed to open segment ") {
                FFmpegLog.segmentFailed()
            } else if text.hasPrefix("HTTP error ") {
                Thread.current.threadDictionary[FFmpegLog.segmentErrorKey] = text  // a warning, but the reason
            }
            if level <= AV_LOG_ERROR, !text.isEmpty {
                Thread.current.threadDictionary[FFmpegLog.threadKey] = text
                Thread.current.threadDictionary[FFmpegLog.segmentErrorKey] = text
            }
            if FFmpegLog.echo && level <= FFmpegLog.level { try? FileHandle.standardError.write(contentsOf: Data(("[ffmpeg] " + text + "\n").utf8)) }
        }, level)
    }()

    /// The level asked for with `VIDFX_FFMPEG_LOG` (errors only by default).
    private static let level: Int32 = {
        switch ProcessInfo.processInfo.environment["VIDFX_FFMPEG_LOG"] {
        case "debug": return AV_LOG_DEBUG
        case "verbose": return AV_LOG_VERBOSE
        case "info": return AV_LOG_INFO
        case "warning": return AV_LOG_WARNING
        default: return AV_LOG_ERROR
        }
    }()

    private static let echo = ProcessInfo.processInfo.environment["VIDFX_FFMPEG_LOG"] != nil

    private static let collectorKey = "vidfx.ffmpeg.damage"
    private static let segmentKey = "vidfx.ffmpeg.segment"
    private static let segmentErrorKey = "vidfx.ffmpeg.segmentError"

    /// Names the collector of what the calling thread's reads drop (nil: none).
    static func collect(into collector: DamageCollector?) {
        _ = installed
        if let collector { Thread.current.threadDictionary[collectorKey] = collector }
        else { Thread.current.threadDictionary.removeObject(forKey: collectorKey) }
    }

    /// The calling thread's collector, if it named one.
    static var collector: DamageCollector? { Thread.current.threadDictionary[collectorKey] as? DamageCollector }

    /// "HLS request for url 'URI', offset …": the segment the demuxer tries next.
    private static func segmentRequested(_ text: String) {
        let rest = text.dropFirst("HLS request for url '".count)
        guard let end = rest.range(of: "', offset", options: .backwards) else { return }
        let thread = Thread.current.threadDictionary
        thread[segmentKey] = String(rest[..<end.lowerBound])
        thread.removeObject(forKey: segmentErrorKey)
    }

    /// "Failed to open segment N of playlist M": the demuxer skipped the segment it tried.
    private static func segmentFailed() {
        let thread = Thread.current.threadDictionary
        guard let collector = thread[collectorKey] as? DamageCollector else { return }
        let uri = thread[segmentKey] as? String ?? "(unknown)"
        let error = thread[segmentErrorKey] as? String
        let reason: String
        if let error, let range = error.firstMatch(of: /Protocol '([^']+)' not on whitelist/) {
            reason = "the '\(range.1)' protocol is not read from a remote input"
        } else if let error {
            reason = error
        } else if !(uri.hasPrefix("http://") || uri.hasPrefix("https://")) {
            // The demuxer refuses other schemes (concat:, subfile:…) without a word.
            reason = "only http and https segments are read from a remote playlist"
        } else {
            reason = "it could not be opened"
        }
        collector.skipped(uri: uri, reason: reason)
    }

    /// Forgets the calling thread's last error line (call before an operation).
    static func clear() {
        _ = installed
        Thread.current.threadDictionary.removeObject(forKey: threadKey)
        vfx_forget_network_error()
    }

    /// The calling thread's last FFmpeg error line since `clear()`, if any.
    static func lastError() -> String? { FFmpegErrorText.last }

    /// The calling thread's last error line from a network protocol (resolver, TCP,
    /// TLS), if any: what a network failure was, where a demuxer's later complaint
    /// ("moov atom not found" after an interrupted read) would only mislead.
    static func lastNetworkError() -> String? {
        vfx_last_network_error().map { String(cString: $0) }
    }

    /// FFmpeg's text for an error code.
    static func message(_ code: Int32) -> String { FFmpegErrorText.message(code) }
}

extension FrameSource {
    /// Routes FFmpeg's log lines through vidfx (kept for error messages; echoed to
    /// stderr only with `VIDFX_FFMPEG_LOG`) for the whole process: call it once, early,
    /// from the executable. A source does it on its own when it opens an input; code that
    /// uses FFmpeg without a source (joining segments) needs it done first.
    public static func routeFFmpegLogs() { _ = FFmpegLog.installed }
}
