import CFFmpeg
import FrameCore
import MediaInput

/// Deinterlaces decoded pictures with libavfilter's bwdif, one picture per picture
/// (`mode=send_frame`), so a 30 fps interlaced stream stays 30 fps and the cadence
/// keeps its meaning. Which pictures: those flagged interlaced; or all, when the first
/// pictures are flagged progressive or cannot say (VP9, AV1, MJPEG… with no field
/// order) but their fields show two instants (``FieldEvidence``).
/// Owned by the decoder's thread.
final class Deinterlacer {
    /// How many pictures are measured at most before deciding from content; fewer
    /// once the evidence is settled (``FieldEvidence/settled``).
    static let measuredPictures = 8

    private let mode: FrameSource.Deinterlacing
    private let timeBase: AVRational
    private let input: String
    private let warn: @Sendable (String) -> Void
    /// What was decided: nil while undecided; then a bwdif `deint`/`parity` option
    /// string, or "" for pictures left as they are.
    private(set) var decision: String?
    private var graph: FilterGraph?
    private var held: [UnsafeMutablePointer<AVFrame>?] = []  // pictures read while measuring
    private var ended = false
    private var flushed = false
    /// Pictures deinterlaced so far.
    private(set) var deinterlaced = 0

    /// Codecs whose pictures say whether they are interlaced: their flags are believed.
    static let flaggingCodecs: Set<AVCodecID> = [AV_CODEC_ID_H264, AV_CODEC_ID_HEVC, AV_CODEC_ID_MPEG2VIDEO, AV_CODEC_ID_MPEG1VIDEO,
                                                 AV_CODEC_ID_VC1, AV_CODEC_ID_MPEG4, AV_CODEC_ID_PRORES, AV_CODEC_ID_DVVIDEO,
                                                 AV_CODEC_ID_DNXHD, AV_CODEC_ID_H263,
                                                 AV_CODEC_ID_RAWVIDEO]  // captured frames: the driver gives the field order
    /// Whether the codec flags its pictures, so that a flagged picture turns
    /// deinterlacing on (the stream says nothing otherwise).
    private let codecFlags: Bool
    /// Whether pictures not flagged interlaced are measured: everything but captured
    /// frames, which the driver describes and which must not wait for look-ahead.
    private let measuresContent: Bool

    /// A picture's nominal duration in `timeBase` units, when the stream has a rate.
    private let frameDuration: Int64?

    /// Told what auto found, once (per decoder: a reopened input decides again).
    private let found: (@Sendable (FrameSource.ScanFinding) -> Void)?

    init(mode: FrameSource.Deinterlacing, codec: AVCodecID, timeBase: AVRational, frameDuration: Int64?,
         input: String, warn: @escaping @Sendable (String) -> Void, found: (@Sendable (FrameSource.ScanFinding) -> Void)? = nil) {
        self.mode = mode
        self.found = found
        self.frameDuration = frameDuration
        codecFlags = Deinterlacer.flaggingCodecs.contains(codec)
        measuresContent = codec != AV_CODEC_ID_RAWVIDEO
        self.timeBase = timeBase
        self.input = input
        self.warn = warn
        switch mode {
        case .off: decision = ""
        case .on: decision = "deint=all:parity=auto"
        case .auto: decision = nil  // the pictures' flags, or their content, decide
        }
    }

    deinit { dropHeld() }

    private func dropHeld() {
        for i in held.indices { av_frame_free(&held[i]) }
        held = []
    }

    /// Forgets pictures in flight (after a seek); keeps the decision.
    func reset() {
        dropHeld()
        graph = nil
        ended = false
        flushed = false
    }

    /// The next picture, deinterlaced where decided, into `frame`; `read` gives the
    /// decoder's next picture (false at the end).
    func next(into frame: UnsafeMutablePointer<AVFrame>,
              read: (UnsafeMutablePointer<AVFrame>) throws(FrameSourceError) -> Bool) throws(FrameSourceError) -> Bool {
        while true {
            if let graph {
                do {
                    if try graph.pull(into: frame) { deinterlaced += 1; return true }
                } catch {
                    throw FrameSourceError(input: input, kind: .decodeFailed, reason: "deinterlacing failed: \(error.reason)")
                }
                if flushed { return false }
            }
            if decision == nil { try measure(read) }
            // The next picture: one held back while measuring, else a new one.
            let picture: UnsafeMutablePointer<AVFrame>
            var owned: UnsafeMutablePointer<AVFrame>?
            if !held.isEmpty {
                owned = held.removeFirst()
                picture = owned!
            } else if !ended, try read(frame) {
                picture = frame
            } else {
                ended = true
                guard let graph, !flushed else { return false }
                flushed = true
                do { try graph.push(nil) } catch {
                    throw FrameSourceError(input: input, kind: .decodeFailed, reason: "deinterlacing failed: \(error.reason)")
                }
                continue
            }
            defer { av_frame_free(&owned) }
            // Where the pictures' flags decide, a flagged picture later in the stream
            // (a progressive opening, then interlaced) turns deinterlacing on from there.
            if decision == "" && mode == .auto && codecFlags && vfx_frame_interlaced(picture) != 0 {
                decision = "deint=interlaced:parity=auto"
            }
            guard decision != "" else {
                if picture != frame { av_frame_unref(frame); av_frame_move_ref(frame, picture) }
                return true
            }
            if graph == nil {
                do {
                    // Only pictures flagged interlaced when the flags decide; all otherwise.
                    graph = try FilterGraph("bwdif=mode=send_frame:\(decision!)", for: picture, timeBase: timeBase)
                } catch {
                    warn("\(input): cannot deinterlace (\(error.reason)); showing the fields woven")
                    decision = ""
                    continue
                }
            }
            do { try graph!.push(picture) } catch {
                throw FrameSourceError(input: input, kind: .decodeFailed, reason: "deinterlacing failed: \(error.reason)")
            }
        }
    }

    /// Whether `b` follows `a` with no picture between. After a seek the decoder may
    /// skip unreferenced pictures; fields two pictures apart measure progressive even
    /// when interlaced, so such a pair does not vote.
    private func consecutive(_ a: UnsafePointer<AVFrame>, _ b: UnsafePointer<AVFrame>) -> Bool {
        let (ta, tb) = (a.pointee.best_effort_timestamp, b.pointee.best_effort_timestamp)
        guard let frameDuration, ta != VFX_AV_NOPTS_VALUE, tb != VFX_AV_NOPTS_VALUE else { return true }
        return tb - ta <= frameDuration + frameDuration / 2
    }

    /// Decides from the first pictures: one flagged interlaced → deinterlace those
    /// flagged (later ones are watched in ``next(into:read:)``); none flagged → up to
    /// ``measuredPictures`` measured, and every picture deinterlaced if their fields
    /// show two instants (``FieldEvidence``), in the order they show.
    private func measure(_ read: (UnsafeMutablePointer<AVFrame>) throws(FrameSourceError) -> Bool) throws(FrameSourceError) {
        var evidence = FieldEvidence()
        // Without content to measure, the first picture's flag is enough: no look-ahead,
        // so a live capture gains no latency.
        let lookAhead = measuresContent ? Deinterlacer.measuredPictures : 1
        while held.count < lookAhead && !evidence.settled {
            var picture = av_frame_alloc()
            let got: Bool
            do { got = try picture.map(read) ?? false } catch {
                av_frame_free(&picture)
                throw error
            }
            guard got, let p = picture else { av_frame_free(&picture); ended = true; break }
            held.append(p)
            if vfx_frame_interlaced(p) != 0 {
                decision = "deint=interlaced:parity=auto"
                found?(.flaggedInterlaced)
                return
            }
            // Soft telecine says interlaced but flags its pictures progressive: it is
            // measured like the rest, and its film frames measure progressive.
            if held.count >= 2, let previous = held[held.count - 2], consecutive(previous, p) {
                evidence.add(previous, p)
            }
        }
        guard let topFirst = evidence.fieldOrder else {
            decision = ""
            found?(.progressive)
            return
        }
        decision = "deint=all:parity=\(topFirst ? "tff" : "bff")"
        found?(.measuredInterlaced(topFieldFirst: topFirst))
        let order = topFirst ? "top field first" : "bottom field first"
        let said = codecFlags ? "its pictures are flagged progressive, but they are interlaced"
            : "the stream does not say whether it is interlaced, but its pictures are"
        warn("\(input): \(said) (\(evidence.interlaced) of \(evidence.pairs) pairs of pictures measured, \(order)); deinterlacing every picture (--deinterlace off to keep them as they are)")
    }
}
