public import FrameCore

extension FrameSource {
    /// How many times the clip plays.
    public enum Loop: Sendable, Equatable {
        /// Plays `n` times in all (`n >= 1`).
        case count(Int)
        /// Plays until stopped.
        case forever

        /// Plays once.
        public static let once = Loop.count(1)
    }

    /// When frames are handed out.
    public enum Pacing: Sendable {
        /// As fast as the consumer takes them (rendering, dumping).
        case unpaced
        /// Tick `k` is delivered at `k / fps` after the first, against `clock`. A tick
        /// whose successor is already due when the consumer asks is dropped (and counted),
        /// so a slow consumer never makes playback drift.
        case realtime(any PlaybackClock)

        /// Realtime against the system's monotonic clock.
        public static var realtime: Pacing { .realtime(MonotonicClock()) }
    }

    /// YUV→RGB matrix choice.
    public enum ColorMatrix: String, Sendable, CaseIterable {
        /// As tagged in the stream; untagged video is BT.601, as FFmpeg decodes it.
        case auto
        /// ITU-R BT.601 (SD), whatever the tag says.
        case bt601
        /// ITU-R BT.709 (HD), whatever the tag says.
        case bt709
        /// ITU-R BT.2020 (UHD, non-constant luminance), whatever the tag says.
        case bt2020
    }

    /// YUV range choice.
    public enum ColorRange: String, Sendable, CaseIterable {
        /// As tagged; untagged is limited (16–235) except for the JPEG pixel formats.
        case auto
        /// Limited ("TV", 16–235), whatever the tag says.
        case limited
        /// Full ("PC", 0–255), whatever the tag says.
        case full
    }

    /// What to read and how to deliver it.
    public struct Configuration: Sendable {
        /// Output ticks per second (default 30).
        public var frameRate: Rational = Rational(30)
        /// Where on the source timeline the first tick looks, in seconds (frame-accurate).
        public var start: Rational = Rational(0)
        /// Length of the clip from `start`, in seconds; nil for up to the end.
        public var duration: Rational?
        /// How many times the clip (from `start`, `duration` long) plays.
        public var loop: Loop = .once
        /// Cap on the total output time in seconds, across loops; nil for none.
        public var outputLimit: Rational?
        /// Unpaced (default) or realtime.
        public var pacing: Pacing = .unpaced
        /// YUV→RGB matrix (default: as tagged, BT.601 when untagged).
        public var colorMatrix: ColorMatrix = .auto
        /// YUV range (default: as tagged).
        public var colorRange: ColorRange = .auto
        /// Scale non-square pixels to square (default true), widening or narrowing the width.
        public var squarePixels = true
        /// Read standard input (`-`) through a spool: an unlinked temporary file filled as
        /// the input arrives, so that another reader of `-` in this process (the audio of
        /// `apply`, through `Sinks`) can read it too, and the demuxer can seek back in
        /// it (an MP4 with its index at the end). Costs disk space the size of the input.
        public var spoolStandardInput = false
        /// Read an http(s) input through a download that other readers of the same URL
        /// in this process join (the audio of `apply`, through `Sinks`), so the input
        /// crosses the network once: blocks are kept in an unlinked temporary file while
        /// any reader is open, and seeks still become range requests. Not for playlists
        /// (.m3u8, .mpd), whose segments the demuxer fetches itself, nor for inputs of
        /// unknown size (live, chunked), which are read the ordinary way.
        public var shareNetworkInput = false
        /// How many frames decoding may run ahead of the consumer (default 3). 0 converts
        /// each frame only when the consumer asks for it: one BGRA frame in flight, the
        /// least memory, for consumers that hand their work to another thread (apply).
        public var prefetch = 3
        /// Decoder threads; nil lets FFmpeg choose (one more than the cores). Fewer
        /// threads hold fewer frames in flight, worth it when something else (an
        /// encoder) is the bottleneck.
        public var decoderThreads: Int?
        /// Longest wait for input data before a read fails (network inputs), default 15 s.
        /// It bounds everything: connecting, each read, and FFmpeg's reconnect attempts.
        public var ioTimeout: Duration = .seconds(15)
        /// Extra HTTP request headers, each `Name: value` (network inputs).
        public var httpHeaders: [String] = []
        /// The HTTP `User-Agent`; nil for FFmpeg's (`Lavf/…`).
        public var userAgent: String?
        /// Receives one-line warnings about recoverable problems (damaged data skipped,
        /// input ending early). Called on the decode thread.
        public var warningHandler: (@Sendable (String) -> Void)?

        /// The defaults: 30 fps, whole clip, once, unpaced.
        public init() {}
    }
}

extension FrameSource {
    /// The most pixels a picture may have (8192 × 8192; 8K UHD is half that): larger
    /// ones are refused before any of their memory is allocated.
    public static let largestPicture = 8192 * 8192
    /// The most an input may make FFmpeg read while opening it (finding its streams)
    /// before vidfx gives up on it: 100 MB, twenty times FFmpeg's probe size.
    public static let openingByteLimit: Int64 = 100 << 20

    /// ``largestPicture`` for messages.
    public static let largestPictureDescription = "8192x8192 (67 megapixels)"

    /// The protocols a remote input may use for what it names inside itself.
    public static let remoteProtocols = "http,https,tls,tcp,crypto,httpproxy"

    /// Whether `input` is fetched over the network (http or https).
    public static func isRemote(_ input: String) -> Bool {
        let lower = input.prefix(8).lowercased()
        return lower.hasPrefix("http:") || lower.hasPrefix("https:")
    }
}

extension FrameSource.Configuration {
    /// FFmpeg's protocol options for `input`: for http(s), the timeout, reconnects
    /// that resume at the dropped byte and back off until the delay would pass 4 s
    /// (each wait also bounded by the timeout through the interrupt callback), headers
    /// and user agent. Other inputs need none. Exposed so
    /// that a second reader of the same input (the audio of `apply`) opens it alike.
    ///
    /// Every remote input, and standard input, also gets `protocol_whitelist`
    /// (``FrameSource/remoteProtocols``): what such an input names inside itself (an HLS
    /// playlist's segments, init section, variants and keys) may only be fetched over
    /// the network, never from local files or through `concat:`, `subfile:` or `data:`.
    public func networkOptions(for input: String) -> [(String, String)] {
        if input == "-" { return [("protocol_whitelist", FrameSource.remoteProtocols)] }
        guard FrameSource.isRemote(input) else { return [] }
        var options: [(String, String)] = [
            ("protocol_whitelist", FrameSource.remoteProtocols),
            ("rw_timeout", String(ioTimeout.microseconds)),
            ("reconnect", "1"),
            ("reconnect_on_network_error", "1"),
            ("reconnect_delay_max", "4"),
        ]
        if !httpHeaders.isEmpty { options.append(("headers", httpHeaders.map { $0 + "\r\n" }.joined())) }
        if let userAgent { options.append(("user_agent", userAgent)) }
        return options
    }

    /// Throws when a value cannot work, naming it.
    func validate(input: String) throws(FrameSourceError) {
        func bad(_ reason: String) -> FrameSourceError { FrameSourceError(input: input, kind: .invalidConfiguration, reason: reason) }
        guard frameRate > Rational(0) else { throw bad("frame rate must be positive (got \(frameRate))") }
        guard frameRate <= Rational(1000) else { throw bad("frame rate \(frameRate) is above 1000 fps") }
        guard start >= Rational(0) else { throw bad("start must not be negative (got \(start.seconds) s)") }
        if let duration, duration <= Rational(0) { throw bad("duration must be positive (got \(duration.seconds) s)") }
        if let outputLimit, outputLimit <= Rational(0) { throw bad("output limit must be positive (got \(outputLimit.seconds) s)") }
        if case .count(let n) = loop, n < 1 { throw bad("loop count must be at least 1 (got \(n))") }
        guard prefetch >= 0 else { throw bad("prefetch must be 0 or more") }
        guard ioTimeout > .zero else { throw bad("timeout must be positive") }
        // Scalars, not Characters: "\r\n" is one Character, equal to neither "\r" nor "\n".
        func breaksLine(_ text: String) -> Bool { text.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" } }
        if let userAgent, breaksLine(userAgent) {
            throw bad("user agent must be one line (it contains a line break)")
        }
        for header in httpHeaders {
            let parts = header.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty, !parts[0].contains(" "), !breaksLine(header) else {
                throw bad("header '\(header)' is not 'Name: value'")
            }
        }
    }
}
