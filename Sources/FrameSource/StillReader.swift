import CFFmpeg
public import FrameCore
public import MediaInput

/// Single pictures at chosen times of one input, from one decoder that seeks from one to
/// the next: for thumbnails, contact sheets and storyboards. Opened for key frames only
/// (`configuration.keyFramesOnly`), it gives the key frame nearest each time instead
/// (``keyFrame(nearest:notBefore:before:)``).
///
/// A ``FrameSource`` per picture would read the input's headers, probe its streams and
/// start the decoder's threads again for every one; here that happens once. Each picture
/// is the one a ``FrameSource`` started at that time shows on its first tick (the latest
/// picture at or before the time, or the first when none is), converted the same way
/// (upright, square pixels, tone-mapped, deinterlaced as configured), and its bytes are
/// the same. Not for live captures, nor standard input read as a stream: neither can seek.
///
/// ```swift
/// let stills = try StillReader(input: MediaInput("clip.mp4"))
/// for second in 0..<10 {
///     if let frame = try stills.picture(at: Rational(Int64(second))) { … }
/// }
/// ```
///
/// Use from one thread at a time.
public final class StillReader {
    /// What the input contains.
    public let info: MediaInfo

    private var decoder: VideoDecoder
    private let converter: PictureConverter
    /// How it reads the input: its cadence, tone mapping, deinterlacing.
    public let configuration: FrameSource.Configuration
    private let interrupt: InterruptFlag
    private let picture: UnsafeMutablePointer<AVFrame>
    private let next: UnsafeMutablePointer<AVFrame>
    /// The source time of the picture in `picture`, when it holds one the decoder has
    /// moved past only as far as `next`; nil after a seek or at the start.
    private var heldTime: Rational?
    /// Whether the decoder stands at the input's start (nothing read yet).
    private var atTop = true
    /// The key frame ``keyFrame(nearest:notBefore:before:)`` gave last.
    private var lastKeyFrame: Frame?
    private let damageCollector: DamageCollector

    /// What reading has dropped so far (damaged and undecodable packets, playlist
    /// segments), asked from any thread.
    public var damage: @Sendable () -> InputDamage {
        let collector = damageCollector
        return { collector.damage }
    }

    /// Ends the read in progress and every later one, from any thread (Ctrl-C): the
    /// reader then answers nil.
    public var stop: @Sendable () -> Void {
        let interrupt = self.interrupt
        return { interrupt.requestStop() }
    }

    /// How far ahead of the last picture a request continues decoding instead of seeking:
    /// a seek restarts at a key frame, so a short step forward is cheaper decoded through.
    public static let decodeThrough = Rational(1, 2)

    /// Opens `input` for pictures at chosen times; `configuration`'s start, duration,
    /// loop and output limit do not apply.
    /// - Throws: ``FrameSourceError`` naming the input and the cause (one that cannot seek among them).
    public init(input: MediaInput, configuration: FrameSource.Configuration = FrameSource.Configuration()) throws(FrameSourceError) {
        try configuration.validate(input: input.location)
        if input.isLive || (input.isStandardInput && input.access == .stream) {
            throw FrameSourceError(input: input.location, kind: .invalidConfiguration,
                                   reason: "pictures at chosen times need an input that can seek (a file, a URL, or standard input opened for seeking)")
        }
        var c = configuration
        c.start = Rational(0)
        c.duration = nil
        c.outputLimit = nil
        c.frameLimit = nil
        c.loop = .once
        interrupt = InterruptFlag(timeout: input.network.timeout)
        decoder = try VideoDecoder(input: input, configuration: c, interrupt: interrupt)
        c.takeRate(of: decoder)
        self.configuration = c
        decoder.keyFramesOnly = c.keyFramesOnly
        damageCollector = decoder.damage
        info = decoder.info
        converter = PictureConverter(input: decoder.input, orientation: decoder.orientation, color: decoder.color,
                                     configuration: c, pool: FramePool(capacity: 2))
        guard let a = av_frame_alloc(), let b = av_frame_alloc() else {
            throw FrameSourceError(input: input.location, kind: .decodeFailed, reason: "out of memory")
        }
        picture = a
        next = b
    }

    deinit {
        var a: UnsafeMutablePointer<AVFrame>? = picture
        var b: UnsafeMutablePointer<AVFrame>? = next
        av_frame_free(&a)
        av_frame_free(&b)
    }

    /// The picture on screen at `time` (seconds on the source's timeline, 0 at its first
    /// picture), with `time` as its time and source time; nil when `time` is past the end.
    /// - Throws: ``FrameSourceError`` when the input fails to read or decode.
    public func picture(at time: Rational) throws(FrameSourceError) -> Frame? {
        // A fresh timeout for each request: the time between two is the caller's (a studio
        // page idle for a minute), not a stalled input. Without it, the first read after a
        // pause longer than the network timeout was interrupted and looked like the end.
        interrupt.touch()
        FFmpegLog.collect(into: decoder.damage)
        defer { FFmpegLog.collect(into: nil) }
        guard time >= Rational(0) else { return try picture(at: Rational(0)) }
        if info.isStillImage {
            if atTop {
                guard try decoder.decode(into: picture) else { return nil }
                atTop = false
                heldTime = Rational(0)
            }
            return try converted(at: time)
        }
        guard try position(at: time, window: Self.decodeThrough), let held = heldTime else { return nil }
        if next.pointee.buf.0 == nil {
            // The end: the held picture lasts until the stream's end, if `time` is before it.
            let length = decoder.duration(of: picture) ?? decoder.nominalDuration ?? configuration.frameRate.inverse
            guard time < held + length else { return nil }
        }
        return try converted(at: time)
    }

    /// The first picture that starts at or after `time` and before `end`, or, when none
    /// does (one picture held through the whole interval), the one on screen at `time`:
    /// what a thumbnail of the interval shows, so that a tile just before a cut is the new
    /// shot and not the last frame of the old one, on screen for a few milliseconds more.
    /// Its time is `time`, its source time its own start; nil when `time` is past the end.
    /// - Throws: ``FrameSourceError`` when the input fails to read or decode.
    public func picture(startingFrom time: Rational, before end: Rational) throws(FrameSourceError) -> Frame? {
        guard !info.isStillImage, time >= Rational(0) else { return try picture(at: time) }
        interrupt.touch()
        FFmpegLog.collect(into: decoder.damage)
        defer { FFmpegLog.collect(into: nil) }
        guard try position(at: time, window: Self.decodeThrough), let held = heldTime else { return nil }
        if held < time, next.pointee.buf.0 != nil {
            let nextTime = decoder.time(of: next)
            if nextTime < end {
                // The next picture starts within the interval: it becomes the held one.
                av_frame_unref(picture)
                av_frame_move_ref(picture, next)
                heldTime = nextTime
                try decodeThrough(to: nextTime)
                return try converted(at: time)
            }
        }
        if next.pointee.buf.0 == nil {
            let length = decoder.duration(of: picture) ?? decoder.nominalDuration ?? configuration.frameRate.inverse
            guard time < held + length else { return nil }
        }
        return try converted(at: time)
    }

    /// The key frame whose time is nearest `time` (of two as near, the earlier) among those
    /// at or after `lower` and before `upper` (when given), with its own time as time and
    /// source time; nil when there is none. `time` is taken into that range.
    ///
    /// For a reader opened with `configuration.keyFramesOnly`: its decoder reads every
    /// packet but decodes only key frames, and seeks when `time` lies more than two key
    /// frames ahead.
    /// - Throws: ``FrameSourceError`` when the input fails to read or decode.
    public func keyFrame(nearest time: Rational, notBefore lower: Rational = Rational(0), before upper: Rational? = nil)
        throws(FrameSourceError) -> Frame? {
        precondition(configuration.keyFramesOnly, "a StillReader opened for key frames only")
        if info.isStillImage { return try picture(at: time) }
        interrupt.touch()  // a fresh timeout for each request, as in picture(at:)
        FFmpegLog.collect(into: decoder.damage)
        defer { FFmpegLog.collect(into: nil) }
        var time = max(time, lower, Rational(0))
        if let upper, time >= upper {
            guard upper > lower else { return nil }
            time = max(lower, upper - Rational(1, 1_000_000))
        }
        // Decoding through costs a key frame per key frame passed; a seek costs one or two.
        var window = Self.decodeThrough
        if let held = heldTime, next.pointee.buf.0 != nil {
            window = max(window, (decoder.time(of: next) - held) * 2)
        }
        guard try position(at: time, window: window), let held = heldTime else { return nil }
        func fits(_ t: Rational) -> Bool { t >= lower && upper.map { t < $0 } ?? true }
        let heldFits = fits(held)
        var chosen = held, source = picture
        if next.pointee.buf.0 != nil {
            let after = decoder.time(of: next)
            if fits(after), !heldFits || after - time < time - held { (chosen, source) = (after, next) }
        }
        guard chosen != held || heldFits else { return nil }
        // Times closer together than key frames ask for the same one again: convert it once.
        if let last = lastKeyFrame, last.sourceTime == chosen { return last }
        var frame = try converter.convert(source)
        frame.time = chosen
        frame.sourceTime = chosen
        lastKeyFrame = frame
        return frame
    }

    /// Puts the latest picture at or before `time` in `picture` (the first picture when
    /// none is), with `heldTime`, and the one after it in `next` (empty at the end):
    /// decoding on from where the decoder stands when `time` is less than `window` past
    /// the next picture, else seeking. False when there is no picture at all.
    private func position(at time: Rational, window: Rational) throws(FrameSourceError) -> Bool {
        // Already decoded through: the held picture is still the latest at `time`.
        if let held = heldTime, held <= time {
            if next.pointee.buf.0 != nil {
                let nextTime = decoder.time(of: next)
                if time < nextTime { return true }
                // `next` is at or before `time`: carry on from it.
                if time - nextTime < window {
                    av_frame_unref(picture)
                    av_frame_move_ref(picture, next)
                    heldTime = nextTime
                    try decodeThrough(to: time)
                    return true
                }
            } else if time - held < window || configuration.keyFramesOnly {
                // Decoded to the end already: nothing after the held picture.
                try decodeThrough(to: time)
                return true
            }
        }
        return try seek(to: time)
    }

    /// Seeks to the key frame at or before `time` (earlier and earlier when a search by
    /// timestamp lands after it), then decodes up to it. False when nothing is there.
    private func seek(to time: Rational) throws(FrameSourceError) -> Bool {
        var backoff = Rational(0)
        while true {
            av_frame_unref(picture)
            av_frame_unref(next)
            heldTime = nil
            var target = max(Rational(0), time - backoff)
            if target == Rational(0) && atTop {
                // Nothing read yet: the input's start is where decoding begins anyway.
            } else if target == Rational(0) || !decoder.seek(toSeconds: target) {
                // No seeking (or to the very top): read the input from its first byte again.
                decoder = try VideoDecoder(input: decoder.media, configuration: configuration, interrupt: interrupt, damage: decoder.damage)
                decoder.keyFramesOnly = configuration.keyFramesOnly
                target = Rational(0)
            }
            atTop = false
            guard try decoder.decode(into: picture) else {
                // Nothing from there to the end: past the end, unless the seek overshot.
                if target > Rational(0) && backoff == Rational(0) {
                    backoff = Rational(1)
                    continue
                }
                return false
            }
            let first = decoder.time(of: picture)
            // A deinterlaced picture is made with its neighbours: the one shown at `time`
            // needs the one before it too, as from the top (the decision may come only
            // with the first pictures after the seek).
            let leadIn = decoder.deinterlacing ? (decoder.nominalDuration ?? Rational(0)) : Rational(0)
            if first + leadIn > time && target > Rational(0) {
                // Landed after the time: look further back (1, 2, 4… s), as FrameSource does.
                backoff = backoff == Rational(0) ? Rational(1) : backoff * 2
                continue
            }
            heldTime = first
            try decodeThrough(to: time)
            return true
        }
    }

    /// With `picture` at or before `time` (or the first picture), decodes until the next
    /// picture is after `time`, or to the end (`next` then empty).
    private func decodeThrough(to time: Rational) throws(FrameSourceError) {
        while true {
            guard try decoder.decode(into: next) else {
                av_frame_unref(next)
                return
            }
            let t = decoder.time(of: next)
            if t > time { return }
            av_frame_unref(picture)
            av_frame_move_ref(picture, next)
            heldTime = t
        }
    }

    /// The tick of the cadence at `frameRate` on screen at `time`, as a render of the
    /// input would number it: the last one at or before it (0 before the start).
    public static func tick(at time: Rational, frameRate: Rational) -> Int64 {
        max(0, time.floor(in: frameRate.inverse))
    }

    private func converted(at time: Rational) throws(FrameSourceError) -> Frame? {
        var frame = try converter.convert(picture)
        frame.tick = Self.tick(at: time, frameRate: configuration.frameRate)
        frame.time = time
        frame.sourceTime = heldTime ?? time
        return frame
    }
}
