

/// What a media input contains, as read from its headers.
///
/// Sizes are the *displayed* ones: after the display matrix (rotation, mirror)
/// and after scaling non-square pixels to square, which is how ``FrameSource``
/// delivers frames. Encoded as JSON by `vidfx probe --json`.
public struct MediaInfo: Sendable, Codable, Equatable {
    /// The input as given.
    public var input: String
    /// Container format (FFmpeg's short name, e.g. `mov,mp4,m4a,3gp,3g2,mj2`).
    public var container: String
    /// Length in seconds, when the container or stream says.
    public var duration: Double?
    /// Displayed width in pixels.
    public var width: Int
    /// Displayed height in pixels.
    public var height: Int
    /// Nominal frame rate in frames per second (nil for stills and unknown rates).
    public var frameRate: Double?
    /// Clockwise rotation, in degrees (0, 90, 180 or 270), applied to show the picture upright.
    public var rotation: Int
    /// Whether the display matrix also mirrors the picture horizontally.
    public var mirrored: Bool
    /// Overall bit rate in bits per second, when known.
    public var bitRate: Int?
    /// The video stream that frames come from.
    public var video: VideoStreamInfo
    /// Every audio stream, in file order.
    public var audio: [AudioStreamInfo]
    /// Damage noticed in the headers (a file cut short), or nil.
    public var problem: String?
    /// The container's metadata as FFmpeg reads it (`creation_time`, `location`, `make`,
    /// `com.apple.quicktime.model`…).
    public var tags: [String: String] = [:]

    /// Whether the input is a single still picture (PNG, JPEG…).
    public var isStillImage: Bool { video.isStillImage }
}

/// The chosen video stream.
public struct VideoStreamInfo: Sendable, Codable, Equatable {
    /// Index of the stream in the container.
    public var index: Int
    /// Codec short name (`h264`, `vp9`, `png`…).
    public var codec: String
    /// Codec long name.
    public var codecLongName: String
    /// Codec profile name, when the codec has profiles.
    public var profile: String?
    /// Pixel format as decoded (`yuv420p`, `yuv420p10le`…).
    public var pixelFormat: String
    /// Bits per colour component.
    public var bitDepth: Int
    /// Stored width, before rotation and pixel-aspect correction.
    public var codedWidth: Int
    /// Stored height, before rotation and pixel-aspect correction.
    public var codedHeight: Int
    /// Pixel (sample) aspect ratio as `num:den`; `1:1` for square pixels.
    public var sampleAspectRatio: String
    /// Nominal frame rate as an exact fraction (`30000/1001`), when known.
    public var frameRate: String?
    /// Average frame rate over the stream, when known (differs from `frameRate` for variable-rate video).
    public var averageFrameRate: Double?
    /// Number of frames, when the container says.
    public var frameCount: Int?
    /// Colour matrix as tagged (`bt709`, `smpte170m`, `unknown`…).
    public var colorMatrix: String
    /// Colour range as tagged: `limited`, `full` or `unknown`.
    public var colorRange: String
    /// Colour primaries as tagged.
    public var colorPrimaries: String
    /// Transfer characteristic as tagged.
    public var colorTransfer: String
    /// Matrix used to decode it to RGB (after the untagged policy and any override).
    public var decodeMatrix: String
    /// Range used to decode it to RGB.
    public var decodeRange: String
    /// First timestamp of the stream in seconds.
    public var startTime: Double?
    /// Stream length in seconds, when known.
    public var duration: Double?
    /// Whether this is a single still picture.
    public var isStillImage: Bool
    /// Whether the stream carries alpha (its pixel format has it, or WebM says so:
    /// VP9 keeps alpha in a side stream, `alpha_mode`).
    public var hasAlpha: Bool = false
    /// `progressive`, `interlaced (top field first)`, `interlaced (bottom field first)`,
    /// or `unknown` when the container does not say (many MP4s).
    public var scan: String = "unknown"
    /// What the first pictures show, where `--deinterlace auto` measured them and they
    /// disagree with ``scan`` or it is unknown: `interlaced (top field first)`,
    /// `interlaced (bottom field first)` or `progressive`. Set by `probe`, which decodes
    /// the first pictures; nil otherwise.
    public var measuredScan: String?
    /// `HLG` or `PQ` for high dynamic range transfers; nil for SDR.
    public var hdr: String?
    /// The stream's metadata (`language`, `title`, `creation_time`, `handler_name`…).
    public var tags: [String: String] = [:]
    /// How HDR frames are tone-mapped to SDR (`mobius, peak 1000 nits`); nil for SDR
    /// input or with tone mapping off.
    public var toneMap: String?
}

/// One audio stream.
public struct AudioStreamInfo: Sendable, Codable, Equatable {
    /// Index of the stream in the container.
    public var index: Int
    /// Codec short name (`aac`, `opus`…).
    public var codec: String
    /// Samples per second.
    public var sampleRate: Int
    /// Channel count.
    public var channels: Int
    /// Channel layout description (`stereo`, `5.1`…), when known.
    public var channelLayout: String?
    /// Stream length in seconds, when known.
    public var duration: Double?
    /// Bit rate in bits per second, when known.
    public var bitRate: Int?
    /// Language tag, when present.
    public var language: String?
    /// The stream's metadata (`language`, `title`, `creation_time`…).
    public var tags: [String: String] = [:]
}
