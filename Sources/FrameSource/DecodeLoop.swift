import CFFmpeg
import FrameCore

/// Runs on the decode thread: decodes pictures, resamples them to the cadence,
/// converts each shown picture to BGRA once, and queues the ticks. Handles start
/// offset, duration, looping (seek back, or reopen when the input cannot seek) and stop.
final class DecodeLoop: @unchecked Sendable {
    private var decoder: VideoDecoder
    private let converter: PictureConverter
    private let queue: FrameQueue
    private let configuration: FrameSource.Configuration
    private let interrupt: InterruptFlag
    private let warn: @Sendable (String) -> Void

    init(decoder: VideoDecoder, queue: FrameQueue, configuration: FrameSource.Configuration, interrupt: InterruptFlag, pool: FramePool) {
        self.decoder = decoder
        self.queue = queue
        self.configuration = configuration
        self.interrupt = interrupt
        self.converter = PictureConverter(input: decoder.input, orientation: decoder.orientation, color: decoder.color, configuration: configuration, pool: pool)
        self.warn = configuration.warningHandler ?? { _ in }
    }

    /// Plays the clip into the queue, then marks the queue finished (with the error, if one ended it).
    func run() {
        FFmpegLog.collect(into: decoder.damage)
        defer { FFmpegLog.collect(into: nil) }
        do {
            if configuration.keyFramesOnly { try playKeyFrames() } else { try play() }
            reportDamage()
            // Before the frames' end: the audio writer finishes when the frames do.
            decoder.audioHandoff?.readerEnded()
            queue.finish(nil)
        } catch {
            reportDamage()
            decoder.audioHandoff?.readerEnded()
            queue.finish(interrupt.stopRequested ? nil : error)
        }
    }

    /// One line at the end with what the input lost on the way, when it lost anything.
    private func reportDamage() {
        let summary = decoder.damage.damage.summary
        if !summary.isEmpty { warn("\(decoder.input): \(summary)") }
    }

    /// The picture on screen: decoded frame, its times, and its BGRA once converted.
    private struct Held {
        var sourceTime: Rational
        var pass: Int
        var converted: Frame?
    }

    private func play() throws(FrameSourceError) {
        var heldPicture: UnsafeMutablePointer<AVFrame>? = av_frame_alloc()
        var incoming: UnsafeMutablePointer<AVFrame>? = av_frame_alloc()
        defer { av_frame_free(&heldPicture); av_frame_free(&incoming) }
        guard let picture = heldPicture, let next = incoming else {
            throw FrameSourceError(input: decoder.input, kind: .decodeFailed, reason: "out of memory")
        }

        let rate = configuration.frameRate
        let limits = [configuration.outputLimit.map { Cadence(rate: rate).firstTick(atOrAfter: $0) }, configuration.frameLimit].compactMap { $0 }
        var cadence = Cadence(rate: rate, limit: limits.min(), rounding: configuration.tickRounding)
        let still = decoder.info.isStillImage
        let live = decoder.media.isLive
        // Source time to output time: a clip's seconds last 1/speed of a second.
        let speed = configuration.speed
        if live && speed != Rational(1) {
            throw FrameSourceError(input: decoder.input, kind: .invalidConfiguration, reason: "a live input plays at its own speed")
        }
        // A still has no timeline: it is shown for `duration`, or one tick.
        let start = still ? Rational(0) : configuration.start
        let stillLength = configuration.duration ?? rate.inverse
        let segmentEnd: Rational? = still ? stillLength : configuration.duration.map { start + $0 }
        var held: Held?
        var offset = Rational(0)  // output time at which the current pass begins
        var pass = 0
        var warnedEarlyEnd = false

        /// Queues the held picture on `ticks`. False when the consumer went away.
        func show(_ ticks: Range<Int64>) throws(FrameSourceError) -> Bool {
            guard !ticks.isEmpty, var h = held else { return true }
            if h.converted == nil {
                // Demand-driven: convert only when the consumer asks, so one BGRA frame is alive.
                if queue.demandDriven, !queue.awaitDemand() { return false }
                h.converted = try converter.convert(picture)
                held = h
            }
            for k in ticks {
                var frame = h.converted!
                if k == ticks.upperBound - 1 {
                    // The picture's last tick of this range: hand the buffer over, so the
                    // consumer holds the only reference and can render into it in place.
                    h.converted = nil
                    held = h
                }
                frame.tick = k
                frame.time = cadence.time(ofTick: k)
                frame.sourceTime = h.sourceTime
                frame.pass = h.pass
                // Moved in, so the queue (then the consumer) holds the only reference.
                if !queue.put(consume frame) { return false }
            }
            return true
        }

        let passes = decoder.media.passes
        passes.reset()
        while true {
            // Before any of the pass's frames is queued: the audio looks it up by the frame.
            passes.begin(pass, at: offset)
            decoder.audioHandoff?.beginPass(pass)
            if pass > 0 || start > Rational(0) { try rewind(to: start, pass: pass) }
            var passEnd: Rational?      // source time where this pass's last picture ends
            var picturesThisPass = 0
            var previousTime: Rational?
            // Where a seek is a search by timestamp rather than an index lookup (MPEG-TS,
            // HLS), it can land after the start, or where nothing decodes before the end.
            // Then seek earlier, 1, 2, 4… s before the start, and at last decode from the
            // top: slower, but never a wrong picture or none at all.
            var backoff = Rational(0)
            var fromTop = start == Rational(0) && pass == 0
            func seekEarlier() throws(FrameSourceError) {
                backoff = backoff == Rational(0) ? Rational(1) : backoff * 2
                if start - backoff > Rational(0), decoder.seek(toSeconds: start - backoff) { return }
                // A seek to 0 can overshoot too: open the input again and read it from its first byte.
                let handoff = decoder.audioHandoff
                decoder = try VideoDecoder(input: decoder.media, configuration: configuration, interrupt: interrupt,
                                           damage: decoder.damage, audio: handoff)
                handoff?.restartPass()
                fromTop = true
            }

            if still && pass > 0 {
                passEnd = stillLength
            } else {
                decoding: while true {
                    while try decoder.decode(into: next) {
                        if interrupt.stopRequested { return }
                        let t = still ? Rational(0) : decoder.time(of: next)
                        // A deinterlaced picture is made with its neighbours: the one shown
                        // at the start needs the one before it, as from the top.
                        let leadIn = decoder.deinterlacing ? (decoder.nominalDuration ?? rate.inverse) : Rational(0)
                        if picturesThisPass == 0, !fromTop, start > Rational(0), start < t + leadIn {
                            try seekEarlier()
                            continue
                        }
                        if let segmentEnd, t >= segmentEnd { passEnd = segmentEnd; break }
                        let length = decoder.duration(of: next) ?? previousTime.map { t - $0 }
                            ?? decoder.nominalDuration ?? rate.inverse
                        passEnd = still ? stillLength : t + length
                        if let segmentEnd, segmentEnd < passEnd! { passEnd = segmentEnd }
                        let shownAt = offset + max(Rational(0), t - start) / speed
                        if held == nil {
                            // Ticks before the very first picture show it: there is nothing earlier.
                            av_frame_move_ref(picture, next)
                            held = Held(sourceTime: t, pass: pass)
                            guard try show(cadence.ticks(before: shownAt)) else { return }
                        } else {
                            guard try show(cadence.ticks(before: shownAt)) else { return }
                            av_frame_unref(picture)
                            av_frame_move_ref(picture, next)
                            held = Held(sourceTime: t, pass: pass)
                        }
                        // A live capture: the next tick shows this picture now, rather than
                        // once the next picture says how long this one lasts (a frame of
                        // latency, 62 → 28 ms from screen to dump's output at 720p). Only a
                        // picture arriving within the same tick could have claimed it, and a
                        // capture runs at about the cadence's rate.
                        if live {
                            var until = shownAt + rate.inverse
                            if let segmentEnd { until = min(until, offset + (segmentEnd - start)) }  // --duration
                            guard try show(cadence.ticks(before: until)) else { return }
                        }
                        if cadence.isExhausted {
                            // The output's end: its sound too, up to the source time shown there.
                            if let limit = cadence.limit { decoder.readAudio(through: start + (cadence.time(ofTick: limit) - offset) * speed) }
                            return
                        }
                        picturesThisPass += 1
                        previousTime = t
                        if still { break }
                    }
                    if picturesThisPass == 0, !fromTop, !still, start > Rational(0), decoder.input != "-" || pass == 0 {
                        try seekEarlier()  // nothing decoded from where the seek landed to the end
                        continue decoding
                    }
                    break
                }
                // A clip ends before the input does: read its sound to the end too.
                if let segmentEnd { decoder.readAudio(through: segmentEnd) }
                if let problem = decoder.readError, !warnedEarlyEnd, pass == 0 || picturesThisPass > 0,
                   picturesThisPass > 0 || !decoder.cannotSeekBack {
                    warnedEarlyEnd = true
                    warn("\(decoder.input): input ended early (\(problem)); the file may be truncated")
                }
            }

            guard held != nil else {
                var reason = "no video frames could be decoded"
                if decoder.readError != nil && decoder.cannotSeekBack {
                    // The demuxer read to the end for the index (MP4 without faststart), and the
                    // server will not let it go back: nothing was truncated.
                    throw FrameSourceError(input: decoder.input, kind: .network, reason:
                        "the server does not support Range requests and the file's index is at its end, so it cannot be read as it arrives; download it first, or serve it with Range support")
                }
                if let problem = decoder.readError { reason += " (\(problem); the file may be truncated)" }
                else if decoder.skippedDamage > 0 { reason += " (all video data is damaged)" }
                throw FrameSourceError(input: decoder.input, kind: .noFrames, reason: reason)
            }
            if pass > 0 && picturesThisPass == 0 && !still {
                // The seek "worked" but nothing came back: a pipe or stream that cannot rewind.
                warn("\(decoder.input): cannot rewind the input to loop; played it once")
                return
            }
            let length = max(Rational(0), (passEnd ?? start) - start) / (still ? Rational(1) : speed)
            if length == Rational(0) {
                if pass == 0 {
                    let end = passEnd.map { "\($0.seconds)" } ?? "?"
                    throw FrameSourceError(input: decoder.input, kind: .noFrames,
                                           reason: "start \(start.seconds) s is at or past the end of the video (\(end) s)")
                }
                return  // nothing left to loop
            }
            guard try show(cadence.ticks(before: offset + length)) else { return }
            pass += 1
            if case .count(let n) = configuration.loop, pass >= n { return }
            if cadence.isExhausted || interrupt.stopRequested { return }
            offset = offset + length
        }
    }

    /// Key frames only: each decoded picture is one frame at its own time, no cadence.
    private func playKeyFrames() throws(FrameSourceError) {
        var incoming: UnsafeMutablePointer<AVFrame>? = av_frame_alloc()
        defer { av_frame_free(&incoming) }
        guard let picture = incoming else { throw FrameSourceError(input: decoder.input, kind: .decodeFailed, reason: "out of memory") }
        decoder.keyFramesOnly = true
        let start = configuration.start
        if start > Rational(0) { _ = decoder.seek(toSeconds: start) }
        let end = configuration.duration.map { start + $0 }
        var count: Int64 = 0
        while try decoder.decode(into: picture) {
            if interrupt.stopRequested { return }
            let t = decoder.info.isStillImage ? Rational(0) : decoder.time(of: picture)
            if t < start { continue }
            if let end, t >= end { break }
            // The limit is in output time (dump --frames N sets N ticks' worth): N frames here.
            if let limit = configuration.outputLimit, Double(count) >= (limit.seconds * configuration.frameRate.seconds).rounded() { break }
            if let limit = configuration.frameLimit, count >= limit { break }
            if queue.demandDriven, !queue.awaitDemand() { return }
            var frame = try converter.convert(picture)
            frame.tick = count
            frame.time = t
            frame.sourceTime = t
            if !queue.put(consume frame) { return }
            count += 1
            if decoder.info.isStillImage { break }
        }
        if count == 0 {
            throw FrameSourceError(input: decoder.input, kind: .noFrames,
                                   reason: start > Rational(0) ? "no key frame at or after \(start.seconds) s" : "no key frames could be decoded")
        }
    }

    /// Positions the decoder at `start` for a new pass: seek, or reopen the input
    /// when it cannot seek.
    private func rewind(to start: Rational, pass: Int) throws(FrameSourceError) {
        if decoder.seek(toSeconds: start) { return }
        guard pass > 0 else { return }  // first pass: decode from the top and skip to start
        guard decoder.input != "-" else {
            throw FrameSourceError(input: decoder.input, kind: .invalidConfiguration, reason: "cannot loop: standard input cannot be rewound")
        }
        decoder = try VideoDecoder(input: decoder.media, configuration: configuration, interrupt: interrupt,
                                   damage: decoder.damage, audio: decoder.audioHandoff)
        _ = decoder.seek(toSeconds: start)
    }
}
