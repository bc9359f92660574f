import CFFmpeg
import CFFmpegShim
import Foundation
public import FrameCore

/// One input — a file, an http(s) URL or standard input (`-`) — opened once and read by
/// one demuxer: the video reader's (`FrameSource`), which hands the audio packets it
/// reads to the audio writer (`EncoderSink`) through `audioHandoff`.
///
/// It owns what the readers share: standard input's spool (so that a demuxer can seek
/// back in a pipe), the network settings and the protocols an input may name inside
/// itself, the audio handoff, and the table of loop passes the video writes and the
/// audio follows.
///
/// ```swift
/// let input = try MediaInput("https://example.com/clip.mp4", access: .shared)
/// let source = try FrameSource(input: input)
/// ```
public final class MediaInput: Sendable {
    /// How the input will be read.
    public enum Access: Sendable {
        /// Once, front to back, by one reader (preview, `apply --no-audio`): standard input
        /// is read as the pipe it is, a URL straight from the network.
        case stream
        /// By one reader that may seek (dump, probe: an MP4 with its index at the end):
        /// standard input is spooled to an unlinked temporary file as it arrives.
        case seekable
        /// For its video and its audio (`apply`): read as `seekable` by the video reader,
        /// which hands the audio packets it reads to the audio writer (`audioHandoff`).
        case shared
    }

    /// How network inputs are fetched.
    public struct Network: Sendable {
        /// Longest wait for data before a read fails, default 15 s. It bounds everything:
        /// connecting, each read, and FFmpeg's reconnect attempts.
        public var timeout: Duration = .seconds(15)
        /// Extra HTTP request headers, each `Name: value`.
        public var headers: [String] = []
        /// The HTTP `User-Agent`; nil for FFmpeg's (`Lavf/…`).
        public var userAgent: String?

        /// The defaults: 15 s, no extra headers, FFmpeg's user agent.
        public init() {}
    }

    /// The input as given: a path, a `file:` or `http(s):` URL, or `-`.
    public let location: String
    /// How it will be read.
    public let access: Access
    /// How it is fetched when remote.
    public let network: Network
    /// Where each loop pass begins on the output timeline (written by the video reader,
    /// read by the audio so that it loops with the pictures).
    public let passes = LoopPasses()

    /// Where the video reader hands the audio packets it reads to the audio writer; nil
    /// unless the access is `.shared`.
    package let audioHandoff: AudioHandoff?

    /// A capture device read through libavdevice: FFmpeg's input format name and what
    /// it opens.
    public struct Device: Sendable, Equatable {
        /// libavdevice's format: `x11grab`, `v4l2`…
        public var format: String
        /// What the format opens: a display (`:99+10,20`), a device node (`/dev/video0`).
        public var url: String
        /// Options for the format (`video_size`, `framerate`, `input_format`…).
        public var options: [String: String]
    }

    /// The device this input is, when it is one: `x11grab:DISPLAY[+x,y]` (screen
    /// capture), `/dev/videoN` (a V4L2 camera), or any location with `format` given.
    public let device: Device?

    /// Describes an input; nothing is opened until a reader asks.
    /// - Parameters:
    ///   - location: a path, an `http(s)` URL, or `-` for standard input.
    ///   - access: how the readers may read it (``Access``).
    ///   - network: timeout, headers and the like for a remote input.
    ///   - format: libavdevice's input format to read `location` with (`x11grab`,
    ///     `v4l2`…); nil to tell by the location.
    ///   - formatOptions: options for that format (`video_size=1280x720`).
    /// - Throws: ``MediaInputError`` when a network setting cannot work.
    public init(_ location: String, access: Access = .stream, network: Network = Network(),
                format: String? = nil, formatOptions: [String: String] = [:]) throws(MediaInputError) {
        func bad(_ reason: String) -> MediaInputError { MediaInputError(input: location, reason: reason) }
        guard network.timeout > .zero else { throw bad("timeout must be positive") }
        // Scalars, not Characters: "\r\n" is one Character, equal to neither "\r" nor "\n".
        func breaksLine(_ text: String) -> Bool { text.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" } }
        if let agent = network.userAgent, breaksLine(agent) {
            throw bad("user agent must be one line (it contains a line break)")
        }
        for header in network.headers {
            let parts = header.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty, !parts[0].contains(" "), !breaksLine(header) else {
                throw bad("header '\(header)' is not 'Name: value'")
            }
        }
        self.location = location
        self.access = access
        self.network = network
        audioHandoff = access == .shared ? AudioHandoff() : nil
        if let format {
            device = Device(format: format, url: location.hasPrefix("\(format):") ? String(location.dropFirst(format.count + 1)) : location,
                            options: formatOptions)
        } else if location.hasPrefix("x11grab:") {
            device = Device(format: "x11grab", url: String(location.dropFirst("x11grab:".count)), options: formatOptions)
        } else if location.hasPrefix("/dev/video") {
            device = Device(format: "v4l2", url: location, options: formatOptions)
        } else {
            guard formatOptions.isEmpty else { throw bad("input options are for capture devices (x11grab:DISPLAY, /dev/videoN, --input-format)") }
            device = nil
        }
        if let device, device.url.isEmpty { throw bad("no \(device.format) device named (x11grab:DISPLAY, e.g. x11grab::0)") }
    }

    /// Whether the input is live (a capture device): no duration, no seeking, no looping.
    public var isLive: Bool { device != nil }

    /// Whether the input is standard input.
    public var isStandardInput: Bool { location == "-" }

    /// Whether the input is fetched over the network (http or https).
    public var isRemote: Bool { MediaInput.isRemote(location) }

    /// Whether `location` is fetched over the network (http or https).
    public static func isRemote(_ location: String) -> Bool {
        let lower = location.prefix(8).lowercased()
        return lower.hasPrefix("http:") || lower.hasPrefix("https:")
    }

    /// The protocols a remote input may use for what it names inside itself.
    public static let remoteProtocols = "http,https,tls,tcp,crypto,httpproxy"

    // MARK: For the readers (FrameSource, Sinks)

    /// The path or URL FFmpeg opens when no custom reader is used.
    package var ffmpegURL: String {
        if isStandardInput { return "pipe:0" }
        if let device { return device.url }
        if location.hasPrefix("file://") { return URL(string: location)?.path ?? location }
        return location
    }

    /// FFmpeg's protocol options: for http(s), the timeout, reconnects that resume at the
    /// dropped byte and back off until the delay would pass 4 s (each wait also bounded
    /// by the timeout through the interrupt callback), headers and user agent.
    ///
    /// Every remote input, and standard input, also gets `protocol_whitelist`
    /// (``remoteProtocols``): what such an input names inside itself (an HLS playlist's
    /// segments, init section, variants and keys) may only be fetched over the network,
    /// never from local files or through `concat:`, `subfile:` or `data:`. Readers set it
    /// on their format context as well: a custom reader has no whitelist to pass on.
    package var protocolOptions: [(String, String)] {
        if isStandardInput { return [("protocol_whitelist", MediaInput.remoteProtocols)] }
        guard isRemote else { return [] }
        var options: [(String, String)] = [
            ("protocol_whitelist", MediaInput.remoteProtocols),
            ("rw_timeout", String(network.timeout.microseconds)),
            ("reconnect", "1"),
            ("reconnect_on_network_error", "1"),
            ("reconnect_delay_max", "4"),
        ]
        if !network.headers.isEmpty { options.append(("headers", network.headers.map { $0 + "\r\n" }.joined())) }
        if let agent = network.userAgent { options.append(("user_agent", agent)) }
        return options
    }

    /// Why a reader could not be made.
    package enum ReaderFailure: Error {
        /// Standard input cannot be spooled (errno).
        case spool(Int32)
    }

    /// C callbacks a reader passes for its waits.
    package typealias Poll = @convention(c) (UnsafeMutableRawPointer?) -> Int32

    /// A custom reader (an `AVIOContext`, freed with `vfx_stdin_reader_free`) over
    /// standard input's spool, when the input is standard input read with seeking; nil
    /// when the input is to be opened the ordinary way (from ``ffmpegURL`` with
    /// ``protocolOptions``). `interrupt(opaque)` is polled while the reader waits.
    package func makeReader(interrupt: Poll?, opaque: UnsafeMutableRawPointer?) throws(ReaderFailure) -> UnsafeMutableRawPointer? {
        guard isStandardInput, access != .stream else { return nil }
        guard let io = vfx_stdin_reader(interrupt, opaque) else { throw .spool(errno) }
        return io
    }

    /// Whether standard input, as spooled so far, begins with `prefix` (a playlist
    /// cannot be read from a pipe: its segments are named relative to where it lives).
    package func standardInputStarts(with prefix: String) -> Bool {
        guard isStandardInput, access != .stream, let io = vfx_stdin_reader(nil, nil) else { return false }
        defer { vfx_stdin_reader_free(io) }
        let want = Array(prefix.utf8)
        var head = [UInt8](repeating: 0, count: want.count)
        let n = avio_read(io.assumingMemoryBound(to: AVIOContext.self), &head, Int32(want.count))
        return n == want.count && head == want
    }
}

/// A network setting that cannot work, naming the input.
public struct MediaInputError: Error, CustomStringConvertible, Sendable {
    /// The input as given.
    public var input: String
    /// What is wrong.
    public var reason: String
    /// "INPUT: reason".
    public var description: String { "\(input): \(reason)" }
}

extension Duration {
    /// The duration in whole microseconds.
    package var microseconds: Int64 {
        let (s, atto) = components
        return s * 1_000_000 + atto / 1_000_000_000_000
    }
}

extension MediaInputError: UserFacingError {}
