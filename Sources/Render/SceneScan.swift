import Foundation
public import FrameCore
public import FrameSource
public import MediaInput
public import Scenes

/// One pass of a scene detector over a clip's pictures: the scene list, and every
/// picture's score when asked. `scenes`, `dump --scenes` and the studio's timeline use it.
///
/// A whole local file is read in pieces at once, one decoder each (see `inPieces`);
/// otherwise one decoder reads every picture in order.
///
/// ```swift
/// let scan = try SceneScan(media: MediaInput("clip.mp4", access: .seekable), options: PictureScanner.Options(),
///                          minimumLength: .pictures(15)) { NamedDetector(name: "content", ContentDetector(minSceneLength: $0)) }
/// print(scan.list.text())
/// ```
public struct SceneScan {
    /// The scenes and cuts found.
    public let list: SceneList
    /// The pictures' rate, per second.
    public let rate: Double
    /// How many pictures were looked at.
    public let pictures: Int
    /// The minimum scene length, in pictures.
    public let minimumLength: Int
    /// The detector's name.
    public let detectorName: String
    /// Every picture's score, when asked for (`recordScores`).
    public let scores: [(frame: Int, time: Rational, score: Double)]
    /// The parts of the scores, when asked for (`recordScores`): by picture number (as in
    /// ``scores``) and stats file column (`SceneDetector.recordMeasures()`).
    public let measures: [Int: [String: Double]]
    /// The stats file's columns besides the score's (the detector's `SceneDetector.measureColumns`).
    public let measureColumns: [String]
    /// How many pieces the clip was read in.
    public let pieces: Int

    /// A clip shorter than this is read in one piece: opening more decoders costs more
    /// than they save.
    public static let shortestInPieces = 20.0

    /// A scan ended by a stop (Ctrl-C) before it finished: nothing to write.
    public struct Stopped: Error {
        /// How many pictures were looked at.
        public let pictures: Int
    }

    /// A length in pictures, or in seconds to be turned into pictures at the stream's rate.
    public enum MinimumLength: Sendable, Equatable {
        /// A count of pictures.
        case pictures(Int)
        /// Seconds: turned into pictures at the stream's rate for counts, and compared
        /// on the pictures' times by detectors given ``seconds``.
        case seconds(Double)

        /// The length in seconds, when it was given so (for the detectors'
        /// `minSceneSeconds`).
        public var seconds: Double? {
            if case .seconds(let s) = self { s } else { nil }
        }

        /// `15` (pictures) or `0.6s`; nil for anything else, or out of range.
        public init?(_ text: String) {
            if text.hasSuffix("s"), let s = Double(text.dropLast()), s.isFinite, (0...3600).contains(s) { self = .seconds(s); return }
            if let n = Int(text), (0...1_000_000).contains(n) { self = .pictures(n); return }
            return nil
        }

        /// As PySceneDetect converts: seconds × rate, rounded.
        public func pictures(rate: Double) -> Int {
            switch self {
            case .pictures(let n): n
            case .seconds(let s): Int((s * rate).rounded())
            }
        }
    }

    /// The error for a scan that met no picture: the range's fault only when one was
    /// chosen; otherwise the video's (nothing in it decodes).
    static func nothingScanned(_ input: String, options: PictureScanner.Options) -> RenderError {
        guard options.start > Rational(0) || options.duration != nil else {
            return RenderError("\(input): no video frames could be decoded (the video data is damaged or missing)")
        }
        let end = options.duration.map { " to \(String(format: "%g", (options.start + $0).seconds)) s" } ?? " to the end"
        return RenderError("\(input): no pictures from \(String(format: "%g", options.start.seconds)) s\(end)")
    }

    /// Scans `media`'s pictures (at `options`' size and range) with the detector
    /// `detector(minimumLength in pictures)` makes, using up to `decoders` decoders; with
    /// `recordScores`, every picture's score, and with `recordMeasures` too, its parts.
    /// `watch` is given the scan's stop action (to call from a signal handler);
    /// `isStopped` says afterwards whether it was called. `between` is called on this
    /// thread before each picture of a scan with one decoder: a caller whose other work
    /// comes first (the studio's stills) may wait there.
    /// - Throws: ``Stopped`` after a stop; ``RenderError`` for a still image or an empty
    ///   range; `FrameSourceError` when the input cannot be read.
    public init(media: MediaInput, options: PictureScanner.Options, minimumLength: MinimumLength, recordScores: Bool = false,
                recordMeasures: Bool = false, decoders: Int = 1, watch: (@escaping @Sendable () -> Void) -> Void = { _ in }, isStopped: () -> Bool = { false },
                between: () -> Void = {}, detector: (Int) -> NamedDetector) throws {
        let input = media.location
        let recordMeasures = recordScores && recordMeasures
        if decoders > 1, let scan = try SceneScan.inPieces(media: media, options: options, watch: watch, isStopped: isStopped,
                                                           minimumLength: minimumLength, recordScores: recordScores,
                                                           recordMeasures: recordMeasures,
                                                           decoders: decoders, detector: detector) {
            self = scan
            return
        }
        let scanner = try PictureScanner(input: media, options: options)
        watch { scanner.stop() }
        if scanner.info.isStillImage { throw RenderError("\(input): a still image has no scenes") }
        let rate = SceneScan.rate(of: scanner)
        let minLength = minimumLength.pictures(rate: rate)
        let detector = detector(minLength)
        if recordMeasures { detector.detector.recordMeasures() }
        var measures: [Int: [String: Double]] = [:]
        var cuts: [Cut] = []
        var first: Frame?
        var last: Frame?
        var count = 0
        var scores: [(frame: Int, time: Rational, score: Double)] = []
        while true {
            between()
            guard let picture = try scanner.next() else { break }
            if first == nil { first = picture }
            cuts += detector.process(picture)
            if recordScores {
                scores.append((Int(picture.tick), picture.time, detector.detector.lastScore))
                SceneScan.take(detector.detector, measuredFor: Int(picture.tick), parts: detector.detector.lastMeasures, into: &measures)
            }
            last = picture
            count += 1
        }
        if isStopped() { throw Stopped(pictures: count) }
        guard let first, let last else { throw SceneScan.nothingScanned(input, options: options) }
        cuts += detector.finish(last: last)
        if recordScores { SceneScan.take(detector.detector, measuredFor: nil, parts: [:], into: &measures) }
        cuts = cuts.filter { $0.frame > Int(first.tick) }.sorted { $0.frame < $1.frame }
        // The end of the last scene: where the last picture stops being shown.
        let lastLength = scanner.nominalFrameDuration ?? Rational(1, Int64(max(1, rate.rounded())))
        let end = SceneList.Position(frame: Int(last.tick) + 1, time: last.time + lastLength)
        list = SceneList(cuts: cuts, start: .init(frame: Int(first.tick), time: first.time), end: end)
        self.rate = rate
        pictures = count
        self.minimumLength = minLength
        detectorName = detector.name
        self.scores = scores
        self.measures = measures
        measureColumns = recordMeasures ? detector.detector.measureColumns : []
        pieces = 1
    }

    private init(list: SceneList, rate: Double, pictures: Int, minimumLength: Int, detectorName: String,
                 scores: [(frame: Int, time: Rational, score: Double)], measures: [Int: [String: Double]], measureColumns: [String],
                 pieces: Int) {
        self.list = list
        self.rate = rate
        self.pictures = pictures
        self.minimumLength = minimumLength
        self.detectorName = detectorName
        self.scores = scores
        self.measures = measures
        self.measureColumns = measureColumns
        self.pieces = pieces
    }

    /// Files picture `frame`'s `parts` (when it has any) and what `detector` decided since
    /// it was last asked, in `measures`.
    private static func take(_ detector: any SceneDetector, measuredFor frame: Int?, parts: [String: Double],
                             into measures: inout [Int: [String: Double]]) {
        if let frame, !parts.isEmpty { measures[frame, default: [:]].merge(parts) { $1 } }
        for d in detector.takeDecidedMeasures() { measures[d.frame, default: [:]][d.column] = d.value }
    }

    private static func rate(of scanner: PictureScanner) -> Double {
        scanner.nominalFrameDuration.map { 1 / $0.seconds } ?? scanner.info.frameRate ?? 30
    }

    /// A detector's scan with `decoders` decoders at once, each on one thread,
    /// over pieces of the clip that begin at key frames: a piece decodes exactly as it
    /// does from the top. Each piece's pictures are scored against the picture before,
    /// and a piece reads on to the key frame that begins the next, so that picture's
    /// score is against the last picture before it, as in one pass. Then one detector
    /// decides every score in order: the cuts and scores of one pass, sooner (one
    /// decoder's threads wait on each other; pieces do not).
    ///
    /// Nil, for one pass instead: not a whole local file,
    /// shorter than ``shortestInPieces``, no key frame to start a second piece at, or a
    /// piece that did not end on the key frame the next begins with.
    static func inPieces(media: MediaInput, options: PictureScanner.Options, watch: (@escaping @Sendable () -> Void) -> Void,
                         isStopped: () -> Bool, minimumLength: MinimumLength, recordScores: Bool, recordMeasures: Bool, decoders: Int,
                         detector makeDetector: (Int) -> NamedDetector) throws -> SceneScan? {
        let input = media.location
        guard !media.isRemote, !media.isStandardInput, !media.isLive, !options.keyFramesOnly,
              options.start == Rational(0), options.duration == nil else { return nil }
        var pieceOptions = options
        pieceOptions.decoderThreads = 1
        let first = try PictureScanner(input: media, options: pieceOptions)
        if first.info.isStillImage { throw RenderError("\(input): a still image has no scenes") }
        guard let duration = first.info.duration, duration >= shortestInPieces else { return nil }
        let rate = SceneScan.rate(of: first)
        let minLength = minimumLength.pictures(rate: rate)
        let named = makeDetector(minLength), decider = named.detector
        if recordMeasures { decider.recordMeasures() }

        func measurer() -> any SceneDetector {
            let d = makeDetector(minLength).detector
            if recordMeasures { d.recordMeasures() }
            return d
        }
        var pieces = [Piece(scanner: first, start: Rational(0), measure: measurer())]
        for k in 1..<decoders {
            let at = Rational(Int64((duration * Double(k) / Double(decoders) * 1000).rounded()), 1000)
            let scanner = try PictureScanner(input: media, options: pieceOptions)
            guard let start = scanner.start(atKeyFrameBefore: at), start > pieces[pieces.count - 1].start else { continue }
            pieces.append(Piece(scanner: scanner, start: start, measure: measurer()))
        }
        guard pieces.count > 1 else { return nil }
        for k in 0..<(pieces.count - 1) { pieces[k].end = pieces[k + 1].start }
        let scanners = pieces.map(\.scanner)
        watch { for s in scanners { s.stop() } }

        // The first piece here, the others each on a thread of its own.
        let done = DispatchGroup()
        for piece in pieces.dropFirst() {
            done.enter()
            let thread = Thread {
                piece.read()
                done.leave()
            }
            thread.name = "vidfx.scenes"
            thread.start()
        }
        pieces[0].read()
        done.wait()
        let counted = pieces.reduce(0) { $0 + $1.entries.count }
        if isStopped() { throw Stopped(pictures: counted) }
        if let failure = pieces.lazy.compactMap(\.failure).first { throw failure }

        // Piece k + 1 begins with the key frame piece k ended on (and scored against the
        // picture before it); else the pieces do not join, and one pass decides.
        var entries: [(time: Rational, score: Double?, parts: [String: Double])] = []
        for (k, piece) in pieces.enumerated() {
            var own = piece.entries
            if k > 0 {
                guard let joint = entries.last, let head = own.first, joint.time == head.time else { return nil }
                own.removeFirst()
            }
            if let end = piece.end, own.last?.time != end { return nil }
            entries += own
        }
        guard let firstTime = entries.first?.time, let lastTime = entries.last?.time else {
            throw SceneScan.nothingScanned(input, options: options)
        }
        var cuts: [Cut] = []
        var scores: [(frame: Int, time: Rational, score: Double)] = []
        var measures: [Int: [String: Double]] = [:]
        for (n, entry) in entries.enumerated() {
            cuts += decider.process(frame: n, time: entry.time, score: entry.score)
            if recordScores {
                scores.append((n, entry.time, decider.lastScore))
                take(decider, measuredFor: n, parts: entry.parts, into: &measures)
            }
        }
        cuts += decider.finish(lastFrame: entries.count - 1)
        if recordScores { take(decider, measuredFor: nil, parts: [:], into: &measures) }
        cuts = cuts.filter { $0.frame > 0 }.sorted { $0.frame < $1.frame }
        let lastLength = first.nominalFrameDuration ?? Rational(1, Int64(max(1, rate.rounded())))
        let end = SceneList.Position(frame: entries.count, time: lastTime + lastLength)
        let list = SceneList(cuts: cuts, start: .init(frame: 0, time: firstTime), end: end)
        return SceneScan(list: list, rate: rate, pictures: entries.count, minimumLength: minLength, detectorName: named.name,
                         scores: scores, measures: measures, measureColumns: recordMeasures ? decider.measureColumns : [],
                         pieces: pieces.count)
    }

    /// One piece of a clip read in pieces: from its key frame `start` to the key frame
    /// `end` the next piece begins with (included), or to the end.
    private final class Piece: @unchecked Sendable {  // read by one thread, then by the caller after it joined
        let scanner: PictureScanner
        let start: Rational
        var end: Rational?
        let measure: any SceneDetector
        private(set) var entries: [(time: Rational, score: Double?, parts: [String: Double])] = []
        private(set) var failure: FrameSourceError?

        init(scanner: PictureScanner, start: Rational, measure: any SceneDetector) {
            self.scanner = scanner
            self.start = start
            self.measure = measure
        }

        func read() {
            do {
                while let picture = try scanner.next() {
                    if let end, picture.time > end { break }
                    let score = measure.measure(picture)
                    entries.append((picture.time, score, measure.lastMeasures))
                    if picture.time == end { break }
                }
            } catch {
                failure = error
            }
        }
    }
}

/// A scene detector and the name the summary line gives it.
public struct NamedDetector {
    /// The shortest scene of `vidfx scenes` without options (PySceneDetect's default).
    public static let defaultMinimumLength = SceneScan.MinimumLength.seconds(defaultShortestScene)
    private static let defaultShortestScene = 0.6

    /// The detector of `vidfx scenes` without options, for a shortest scene of `minLength`
    /// pictures: the content detector with PySceneDetect's settings (what the studio's
    /// timeline, `dump --scenes` and `apply --keyframes-at scenes` run too).
    public static func standard(minLength: Int) -> NamedDetector {
        NamedDetector(name: "content", ContentDetector(threshold: ContentDetector.defaultThreshold, minSceneLength: minLength,
                                                       minSceneSeconds: defaultShortestScene))
    }

    /// The name (`content`, `adaptive`…).
    public let name: String
    /// The detector.
    public let detector: any SceneDetector

    /// `detector`, called `name`.
    public init(name: String, _ detector: any SceneDetector) {
        self.name = name
        self.detector = detector
    }

    /// Gives the detector a picture; the cuts it decided on.
    public func process(_ picture: Frame) -> [Cut] { detector.process(picture) }

    /// Ends the scan after `last`; the cuts still pending.
    public func finish(last: Frame?) -> [Cut] { detector.finish(last: last) }
}
