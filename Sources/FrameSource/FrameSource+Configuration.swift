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

    /// Whether interlaced pictures are deinterlaced (libavfilter's bwdif, one frame per
    /// frame, so the frame rate stays the frame rate).
    public enum Deinterlacing: String, Sendable, CaseIterable {
        /// Pictures flagged interlaced are deinterlaced. When the first ones are
        /// flagged progressive, or neither the stream nor its codec can say (VP9, AV1,
        /// MJPEG… with no field order), up to 8 are measured, and if their fields show
        /// two instants every picture is deinterlaced in the field order they show.
        /// Soft telecine (film frames flagged progressive in an interlaced stream)
        /// measures progressive and is left alone. Captured frames are not measured:
        /// the driver's flags are believed.
        case auto
        /// Every picture is deinterlaced.
        case on
        /// Pictures are shown as decoded, fields woven together.
        case off
    }

    /// What `--deinterlace auto` found in a stream's first pictures.
    public enum ScanFinding: Sendable, Equatable {
        /// Pictures flagged interlaced: those are deinterlaced.
        case flaggedInterlaced
        /// Nothing flagged interlaced, and the pictures' fields are one instant (or
        /// nothing moved enough to tell, or captured frames, which are not measured):
        /// left as they are.
        case progressive
        /// Flagged progressive or not flagged, but the fields are two instants, in
        /// this order: every picture is deinterlaced.
        case measuredInterlaced(topFieldFirst: Bool)
    }

    /// Which tick a picture starts on, from its time: the two roundings of ffmpeg's
    /// `fps` filter.
    public enum TickRounding: String, Sendable, CaseIterable {
        /// The first tick at or after the picture's time: tick k shows the picture on
        /// screen at k/rate, a sample and hold (ffmpeg's `fps=N:round=up`). A picture
        /// is never shown before its time, and may be up to a tick late.
        case up
        /// The tick nearest the picture's time, a half away from zero (ffmpeg's `fps`
        /// filter's default, `round=near`): a picture lands within half a tick of its
        /// time, sometimes that much early.
        case near
    }

    /// What to read and how to deliver it.
    public struct Configuration: Sendable {
        /// Output ticks per second (default 30).
        public var frameRate: Rational = Rational(30)
        /// Take the input's own frame rate for ``frameRate`` when it is opened (default
        /// false): a constant-rate stream's, exactly; a variable-rate stream's average.
        /// An input with no rate (a still) keeps ``frameRate``. The opened source's
        /// ``FrameSource/configuration`` holds the rate taken.
        public var rateFromSource = false
        /// Which tick each picture starts on (default ``TickRounding/up``).
        public var tickRounding: TickRounding = .up
        /// Where on the source timeline the first tick looks, in seconds (frame-accurate).
        public var start: Rational = Rational(0)
        /// Length of the clip from `start`, in seconds; nil for up to the end.
        public var duration: Rational?
        /// How many times the clip (from `start`, `duration` long) plays.
        public var loop: Loop = .once
        /// How fast the source plays, ``slowest``…``fastest`` (default 1): tick k shows
        /// what is on screen at `start + speed·k/frameRate` of the source. `start` and
        /// `duration` are source times; the output lasts `duration / speed`.
        public var speed = Rational(1)
        /// Cap on the total output time in seconds, across loops; nil for none.
        public var outputLimit: Rational?
        /// Cap on the number of frames, across loops (with ``outputLimit``, the lower
        /// cap wins); nil for none. A count rather than a time, so that it holds for the
        /// rate ``rateFromSource`` finds.
        public var frameLimit: Int64?
        /// YUV→RGB matrix (default: as tagged, BT.601 when untagged).
        public var colorMatrix: ColorMatrix = .auto
        /// YUV range (default: as tagged).
        public var colorRange: ColorRange = .auto
        /// HDR (HLG, PQ) to SDR BT.709: the operator, or ``ToneMapping/off`` (default
        /// ``ToneMapping/auto``: Hable's curve).
        public var toneMapping: ToneMapping = .auto
        /// The HDR peak the curve maps to SDR white's ceiling, in nits; nil takes the
        /// stream's light-level or mastering metadata, else 1000 nits.
        public var peakNits: Double?
        /// How the tone map is computed (default: the table sampled from libavfilter).
        public var toneMapEngine: ToneMapEngine = .table
        /// Interlaced pictures (default ``Deinterlacing/auto``).
        public var deinterlace: Deinterlacing = .auto
        /// Scale non-square pixels to square (default true), widening or narrowing the width.
        public var squarePixels = true
        /// How many frames decoding may run ahead of the consumer (default 3). 0 converts
        /// each frame only when the consumer asks for it: one BGRA frame in flight, the
        /// least memory, for consumers that hand their work to another thread (apply).
        public var prefetch = 3
        /// Decoder threads; nil lets FFmpeg choose (one more than the cores). Fewer
        /// threads hold fewer frames in flight, worth it when something else (an
        /// encoder) is the bottleneck.
        public var decoderThreads: Int?
        /// Key frames only, instead of the cadence: one frame for each key frame from
        /// `start` for `duration`, its `tick` counting them from 0 and its `time` (and
        /// `sourceTime`) the key frame's own time. Only key frames are decoded, so this
        /// reads a long clip many times faster than the cadence does. Loops are not
        /// supported with it.
        public var keyFramesOnly = false
        /// Receives one-line warnings about recoverable problems (damaged data skipped,
        /// input ending early). Called on the decode thread.
        public var warningHandler: (@Sendable (String) -> Void)?
        /// Receives what `--deinterlace auto` found in the first pictures, before the
        /// first frame is delivered (again if the input is reopened to seek). Called on
        /// the decode thread.
        public var scanHandler: (@Sendable (ScanFinding) -> Void)?

        /// The defaults: 30 fps, whole clip, once.
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
}

extension FrameSource.Configuration {
    /// Throws when a value cannot work, naming it.
    func validate(input: String) throws(FrameSourceError) {
        func bad(_ reason: String) -> FrameSourceError { FrameSourceError(input: input, kind: .invalidConfiguration, reason: reason) }
        guard frameRate > Rational(0) else { throw bad("frame rate must be positive (got \(frameRate))") }
        guard frameRate <= Rational(1000) else { throw bad("frame rate \(frameRate) is above 1000 fps") }
        guard start >= Rational(0) else { throw bad("start must not be negative (got \(start.seconds) s)") }
        if let duration, duration <= Rational(0) { throw bad("duration must be positive (got \(duration.seconds) s)") }
        if let outputLimit, outputLimit <= Rational(0) { throw bad("output limit must be positive (got \(outputLimit.seconds) s)") }
        if let frameLimit, frameLimit <= 0 { throw bad("frame limit must be positive (got \(frameLimit))") }
        if case .count(let n) = loop, n < 1 { throw bad("loop count must be at least 1 (got \(n))") }
        if keyFramesOnly && loop != .once { throw bad("key frames only cannot loop") }
        guard speed >= Self.slowest && speed <= Self.fastest else {
            throw bad("speed must be between \(Self.slowest.seconds) and \(Self.fastest.seconds) (got \(speed.seconds))")
        }
        if keyFramesOnly && speed != Rational(1) { throw bad("key frames only cannot change speed") }
        guard prefetch >= 0 else { throw bad("prefetch must be 0 or more") }
        if let peakNits, !(peakNits >= 100 && peakNits <= 10000) {
            throw bad("peak must be between 100 and 10000 nits (got \(peakNits))")
        }
    }
}

extension FrameSource.Configuration {
    /// The slowest ``speed``: a quarter.
    public static let slowest = Rational(1, 4)
    /// The fastest ``speed``: eight times.
    public static let fastest = Rational(8)
}

extension FrameSource.Configuration {
    /// How many ticks the clip will produce, when the input's duration and the loop count
    /// are known (nil for a live input, or one looped forever).
    public func expectedTicks(for info: MediaInfo) -> Int? {
        guard let duration = info.duration, case .count(let passes) = loop else { return nil }
        var length = max(0, duration - start.seconds)
        if let d = self.duration { length = min(length, d.seconds) }
        let rule: FloatingPointRoundingRule = tickRounding == .near ? .toNearestOrAwayFromZero : .up
        var ticks = Int((length / speed.seconds * frameRate.seconds).rounded(rule)) * passes
        if let outputLimit { ticks = min(ticks, Int((outputLimit.seconds * frameRate.seconds).rounded(.up))) }
        if let frameLimit { ticks = min(ticks, Int(frameLimit)) }
        return ticks
    }
}

extension FrameSource {
    /// The rate ``Configuration/rateFromSource`` takes from a stream that says
    /// `average` frames a second (and `grid`, its timestamps' rate, when it differs):
    /// the average itself when it is a plain fraction (24, 25, 30000/1001, 60), else the
    /// nearer of the whole and NTSC (×1000/1001) rates within 0.2 % of it, or the average to a
    /// thousandth; bounded to 1…1000 fps. Nil for no usable rate.
    public static func outputRate(fromStreamAverage average: Rational) -> Rational? {
        let value = average.seconds
        guard value.isFinite, value > 0 else { return nil }
        let bounded = min(max(value, 1), 1000)
        if bounded == value, average.denominator <= 1001, average.numerator <= 1001 * 1000 { return average }
        let whole = bounded.rounded(), ntsc = (bounded * 1.001).rounded()
        let near = [(Rational(Int64(whole)), whole), (Rational(Int64(ntsc) * 1000, 1001), ntsc * 1000 / 1001)]
            .filter { $0.1 >= 1 && abs($0.1 - bounded) / bounded < 0.002 }
            .min { abs($0.1 - bounded) < abs($1.1 - bounded) }
        return near?.0 ?? Rational(Int64((bounded * 1000).rounded()), 1000)
    }
}

extension FrameSource.Configuration {
    /// With ``rateFromSource``, takes the opened stream's rate for ``frameRate`` (and
    /// clears the flag, so that the rate is found once).
    mutating func takeRate(of decoder: VideoDecoder) {
        guard rateFromSource else { return }
        rateFromSource = false
        guard !decoder.info.isStillImage, let stream = decoder.streamRate,
              let rate = FrameSource.outputRate(fromStreamAverage: stream.average) else { return }
        frameRate = rate
        // A variable rate becomes its average, a constant one: say so, as the pictures'
        // own times are not kept.
        if let grid = stream.grid, abs(grid.seconds - stream.average.seconds) > 0.002 * stream.average.seconds {
            warningHandler?("\(decoder.input): its frame rate varies (\(Self.rateText(stream.average)) fps on average); "
                            + "the output is a constant \(Self.rateText(rate)) fps")
        }
    }

    /// A rate for a message: `29.97`, `25`.
    static func rateText(_ rate: Rational) -> String {
        let v = rate.seconds
        return v == v.rounded() ? String(Int(v)) : String(format: "%.5g", v)
    }
}
