import CFFmpeg
import CFFmpegShim
public import FrameCore

/// What a segment file is: segment `index` of `count` of one render, the ticks it holds,
/// and that render's fingerprint (its input, chain and options). `apply --segment I/N`
/// writes it into the segment's container metadata (``EncoderSink/Settings/metadata``);
/// ``SegmentLabel/order(_:)`` reads it back, so that `concat` joins the segments of one
/// render, each once, in order, whatever order it is given them in.
public struct SegmentLabel: Sendable, Equatable {
    /// 1…`count`.
    public var index: Int
    /// How many segments the render was split into.
    public var count: Int
    /// The render's ticks this segment holds: `firstTick..<endTick`.
    public var firstTick: Int64
    /// One past the segment's last tick.
    public var endTick: Int64
    /// The render's fingerprint (``fingerprint(_:)``): equal for every segment of it.
    public var render: String

    /// A label.
    public init(index: Int, count: Int, firstTick: Int64, endTick: Int64, render: String) {
        self.index = index
        self.count = count
        self.firstTick = firstTick
        self.endTick = endTick
        self.render = render
    }

    static let segmentKey = "VIDFX_SEGMENT", ticksKey = "VIDFX_TICKS", renderKey = "VIDFX_RENDER"
    /// The most segments a render is split into (`apply --segment` takes N ≤ 100,000). A
    /// file's tags are the file's author's: a larger count is no label, not a loop over it.
    public static let largestCount = 100_000

    /// The container tags that carry it.
    public var metadata: [String: String] {
        [Self.segmentKey: "\(index)/\(count)", Self.ticksKey: "\(firstTick)-\(endTick)", Self.renderKey: render]
    }

    /// The label in a file's tags; nil when they carry none, or a damaged one.
    public init?(metadata: [String: String]) {
        let tags = Dictionary(metadata.map { ($0.key.uppercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        guard let segment = tags[Self.segmentKey]?.split(separator: "/", omittingEmptySubsequences: false), segment.count == 2,
              let index = Int(segment[0]), let count = Int(segment[1]), (1...Self.largestCount).contains(count), (1...count).contains(index),
              let ticks = tags[Self.ticksKey]?.split(separator: "-", omittingEmptySubsequences: false), ticks.count == 2,
              let first = Int64(ticks[0]), let end = Int64(ticks[1]), first >= 0, end > first,
              let render = tags[Self.renderKey], !render.isEmpty, render.count <= 64 else { return nil }
        self.init(index: index, count: count, firstTick: first, endTick: end, render: render)
    }

    /// The label a file carries, nil when it has none.
    /// - Throws: ``SinkError`` when the file cannot be opened as media.
    public static func read(from path: String) throws(SinkError) -> SegmentLabel? {
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        let r = avformat_open_input(&ctx, path, nil, nil)
        guard r >= 0, let c = ctx else { throw SinkError.ffmpeg(path, "cannot open the segment", r) }
        defer { avformat_close_input(&ctx) }
        var tags: [String: String] = [:]
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let e = av_dict_get(c.pointee.metadata, "", entry, AV_DICT_IGNORE_SUFFIX) {
            tags[String(cString: e.pointee.key)] = String(cString: e.pointee.value)
            entry = e
        }
        return SegmentLabel(metadata: tags)
    }

    /// A render's fingerprint: 128 bits of FNV-1a over the parts (each length-prefixed, so
    /// no two lists of parts run together into the same bytes), as 32 hex digits. Not a
    /// cryptographic hash: it tells renders apart, it does not stand up to forgery.
    public static func fingerprint(_ parts: [String]) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325, b: UInt64 = 0x8422_2325_cbf2_9ce4
        func mix(_ byte: UInt8) {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            b = (b ^ UInt64(byte ^ 0x5c)) &* 0x0000_0100_0000_01b3
        }
        for part in parts {
            for byte in String(part.utf8.count).utf8 { mix(byte) }
            mix(0x3a)
            for byte in part.utf8 { mix(byte) }
        }
        func hex(_ v: UInt64) -> String {
            let digits = String(v, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return hex(a) + hex(b)
    }

    /// Why segments cannot be joined as one render.
    public struct OrderError: Error, Sendable, CustomStringConvertible {
        /// The file at fault (or the first of a pair); nil when the fault is one missing.
        public let path: String?
        /// What is wrong, in words.
        public let reason: String
        public var description: String { (path.map { "\($0): " } ?? "") + reason + "; --force joins them as given" }

        init(path: String?, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    /// The segments in render order, each checked to be labelled, of the same render as
    /// the first, given once, none missing and their ticks following on.
    /// - Throws: ``OrderError`` naming the file and the reason (one that cannot be opened
    ///   too).
    public static func order(_ paths: [String]) throws(OrderError) -> [String] {
        var labelled: [(path: String, label: SegmentLabel)] = []
        for path in paths {
            let found: SegmentLabel?
            do { found = try read(from: path) } catch { throw OrderError(path: path, reason: error.reason) }
            guard let label = found else {
                throw OrderError(path: path, reason: "carries no segment label (not made by apply --segment, or in MPEG-TS, which keeps no tags)")
            }
            labelled.append((path, label))
        }
        guard let first = labelled.first else { return [] }
        for (path, label) in labelled.dropFirst() where label.render != first.label.render || label.count != first.label.count {
            throw OrderError(path: path, reason: "is from another render than \(first.path) (its input, chain or options differ)")
        }
        var byIndex: [Int: String] = [:]
        for (path, label) in labelled {
            if let other = byIndex[label.index] {
                throw OrderError(path: path, reason: "is segment \(label.index) of \(label.count) again (so is \(other))")
            }
            byIndex[label.index] = path
        }
        let missing = (1...first.label.count).filter { byIndex[$0] == nil }
        if !missing.isEmpty {
            let names = missing.map(String.init).joined(separator: ", ")
            throw OrderError(path: nil, reason: "segment\(missing.count == 1 ? "" : "s") \(names) of \(first.label.count) \(missing.count == 1 ? "is" : "are") missing")
        }
        let sorted = labelled.sorted { $0.label.index < $1.label.index }
        var next: Int64 = 0
        for (path, label) in sorted {
            guard label.firstTick == next else {
                throw OrderError(path: path, reason: "holds ticks \(label.firstTick)-\(label.endTick), but the segments before it end at \(next)")
            }
            next = label.endTick
        }
        return sorted.map(\.path)
    }
}

extension SegmentLabel.OrderError: UserFacingError {}
