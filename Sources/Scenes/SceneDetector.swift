public import FrameCore

/// A cut: the first picture of a new scene.
public struct Cut: Sendable, Equatable {
    /// The picture's number in the stream, from 0 (as PySceneDetect counts).
    public var frame: Int
    /// The picture's presentation time in seconds.
    public var time: Rational
    /// The detector's score for the picture (its own scale: see each detector).
    public var score: Double

    /// A cut at `frame`, shown at `time`, scored `score`.
    public init(frame: Int, time: Rational, score: Double) {
        self.frame = frame
        self.time = time
        self.score = score
    }
}

/// Finds scene cuts in a stream of pictures, one picture at a time.
///
/// Pictures arrive in order with consecutive numbers (``Frame/tick``) and their
/// presentation times (``Frame/time``), small (see `PictureScanner`): each detector
/// reads the BGRA pixels and reports the cuts it has decided on, which may lie a few
/// pictures back (a flash filter or a window looks ahead). The detectors follow
/// PySceneDetect's of the same names, so that their cuts agree with it.
public protocol SceneDetector: AnyObject {
    /// The picture's score on the detector's scale, against the last picture this
    /// detector measured where the score compares two (nil for the first), deciding
    /// nothing: pieces of a clip can be measured by detectors of their own at once.
    func measure(_ picture: Frame) -> Double?
    /// Decides picture `frame` (the next in order, shown at `time`) from its score;
    /// returns the cuts decided with it, oldest first.
    func process(frame: Int, time: Rational, score: Double?) -> [Cut]
    /// The stream has ended after picture `lastFrame`: the cuts still held back.
    func finish(lastFrame: Int?) -> [Cut]
    /// The score of the last picture processed, on the detector's scale (for a stats file).
    var lastScore: Double { get }
    /// Measures the parts of each score too from now on, for a stats file: the content
    /// detector's edges cost a Canny pass a picture, so only when asked.
    func recordMeasures()
    /// The last picture measured's parts of its score, by their stats file column
    /// (``recordMeasures()``; empty by default).
    var lastMeasures: [String: Double] { get }
    /// Measures decided since the last call, for pictures before the last processed (the
    /// adaptive detector's ratio, known a window later), by picture number and column.
    func takeDecidedMeasures() -> [(frame: Int, column: String, value: Double)]
    /// The stats file's columns besides the score's (a row without one says `None`).
    var measureColumns: [String] { get }
}

extension SceneDetector {
    /// Measures the picture and decides it: one pass, in order.
    public func process(_ picture: Frame) -> [Cut] {
        process(frame: Int(picture.tick), time: picture.time, score: measure(picture))
    }

    /// The stream has ended after picture `last`: the cuts still held back.
    public func finish(last: Frame?) -> [Cut] { finish(lastFrame: last.map { Int($0.tick) }) }

    /// Nothing is held back by default.
    public func finish(lastFrame: Int?) -> [Cut] { [] }

    /// No parts to record by default.
    public func recordMeasures() {}
    /// No parts by default.
    public var lastMeasures: [String: Double] { [:] }
    /// Nothing decided late by default.
    public func takeDecidedMeasures() -> [(frame: Int, column: String, value: Double)] { [] }
    /// No columns besides the score's by default.
    public var measureColumns: [String] { [] }
}

/// The scores and times of the last pictures, so that a cut decided late can say both:
/// a ring indexed by picture number, O(1) a picture.
struct RecentPictures {
    private var entries: [(frame: Int, time: Rational, score: Double)?]

    init(capacity: Int) { entries = Array(repeating: nil, count: max(4, capacity)) }

    mutating func add(frame: Int, time: Rational, score: Double) {
        entries[frame % entries.count] = (frame, time, score)
    }

    /// A cut at `frame`, when it is one of the recent pictures.
    func cut(at frame: Int) -> Cut? {
        guard frame >= 0, let e = entries[frame % entries.count], e.frame == frame else { return nil }
        return Cut(frame: e.frame, time: e.time, score: e.score)
    }
}

/// Reads a BGRA frame's pixels row by row, without the row padding.
extension Frame {
    func forEachPixel(_ body: (_ b: Int32, _ g: Int32, _ r: Int32, _ index: Int) -> Void) {
        let (w, h, stride) = (width, height, bytesPerRow)
        withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let p = raw.bindMemory(to: UInt8.self)
            for y in 0..<h {
                let row = y * stride
                for x in 0..<w {
                    let o = row + 4 * x
                    body(Int32(p[o]), Int32(p[o + 1]), Int32(p[o + 2]), y * w + x)
                }
            }
        }
    }
}
