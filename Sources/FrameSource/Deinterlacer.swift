import CFFmpeg
import FrameCore

/// Deinterlaces decoded pictures with libavfilter's bwdif, one picture per picture
/// (`mode=send_frame`), so a 30 fps interlaced stream stays 30 fps and the cadence
/// keeps its meaning. Which pictures: those flagged interlaced; or, when neither the
/// stream nor its codec can say (VP9, AV1, MJPEG… with no field order), all if
/// libavfilter's idet finds the first ones combed.
/// Owned by the decoder's thread.
final class Deinterlacer {
    /// How many pictures idet measures before deciding.
    static let measuredPictures = 8

    private let mode: FrameSource.Deinterlacing
    private let fieldOrder: AVFieldOrder
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
    /// Whether the first pictures are measured with idet when none is flagged.
    private let measuresContent: Bool

    init(mode: FrameSource.Deinterlacing, codec: AVCodecID, fieldOrder: AVFieldOrder, timeBase: AVRational, input: String,
         warn: @escaping @Sendable (String) -> Void) {
        self.mode = mode
        self.fieldOrder = fieldOrder
        // Only where nothing says otherwise: idet takes fine horizontal detail (test
        // patterns, text) for combing, so a stream or codec that says is believed.
        measuresContent = fieldOrder == AV_FIELD_UNKNOWN && !Deinterlacer.flaggingCodecs.contains(codec)
        self.timeBase = timeBase
        self.input = input
        self.warn = warn
        switch mode {
        case .off: decision = ""
        case .on: decision = "deint=all:parity=auto"
        case .auto: decision = nil  // the pictures' flags, or idet, decide
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
            if decision == "" && mode == .auto && !measuresContent && vfx_frame_interlaced(picture) != 0 {
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

    /// Decides from the first pictures: flagged interlaced → deinterlace those flagged
    /// (the first picture is enough; later ones are watched in ``next(into:read:)``);
    /// nothing that could say → idet over up to ``measuredPictures``, and every picture
    /// if it finds more interlaced than progressive ones.
    private func measure(_ read: (UnsafeMutablePointer<AVFrame>) throws(FrameSourceError) -> Bool) throws(FrameSourceError) {
        var idet: FilterGraph?
        var counts = (tff: 0, bff: 0, progressive: 0)
        let result = av_frame_alloc()
        defer { var r = result; av_frame_free(&r) }
        // Where the flags decide, the first picture's is enough (later ones are watched
        // as they come): no look-ahead, so a live capture gains no latency.
        let lookAhead = measuresContent ? Deinterlacer.measuredPictures : 1
        while held.count < lookAhead {
            var picture = av_frame_alloc()
            guard let p = picture, try read(p) else { av_frame_free(&picture); ended = true; break }
            held.append(p)
            if vfx_frame_interlaced(p) != 0 {
                decision = "deint=interlaced:parity=auto"
                return
            }
            // Soft telecine says interlaced but flags its pictures progressive: the
            // pictures' flags are what counts.
            guard let result, measuresContent else { continue }
            if idet == nil { idet = try? FilterGraph("idet", for: p, timeBase: timeBase) }
            var copy = av_frame_clone(p)
            try? idet?.push(copy)
            av_frame_free(&copy)
            while (try? idet?.pull(into: result)) == true {
                counts = (Deinterlacer.count(result, "tff"), Deinterlacer.count(result, "bff"), Deinterlacer.count(result, "progressive"))
                av_frame_unref(result)
            }
        }
        let fields = counts.tff + counts.bff
        if fields >= 2 && fields > counts.progressive {
            decision = "deint=all:parity=\(counts.tff >= counts.bff ? "tff" : "bff")"
            warn("\(input): the stream does not say whether it is interlaced, but its pictures are (\(fields) of \(fields + counts.progressive) measured); deinterlacing every picture (--deinterlace off to keep them as they are)")
        } else {
            decision = ""
        }
    }

    /// idet's running count of pictures judged `kind` over several pictures.
    private static func count(_ frame: UnsafeMutablePointer<AVFrame>, _ kind: String) -> Int {
        guard let entry = av_dict_get(frame.pointee.metadata, "lavfi.idet.multiple.\(kind)", nil, 0) else { return 0 }
        return Int(Double(String(cString: entry.pointee.value)) ?? 0)  // "3.00"
    }
}
