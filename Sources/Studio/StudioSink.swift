import Foundation
import FrameCore
import Sinks
import Synchronization

/// The studio's preview sink: each frame the player shows is encoded as JPEG and handed
/// to every page watching, newest first (a page that falls behind skips frames rather
/// than lag). The page's play and pause reach the player as its controls; with no page
/// watching, the player is paused.
///
/// A message is `[4-byte big-endian header length][header JSON][JPEG]`; the header
/// says the frame's tick on the input's timeline, its time, and which chain edit
/// rendered it (so the page can measure how long an edit takes to show).
final class StudioSink: PreviewSink, @unchecked Sendable {
    let name = "studio"

    private struct State {
        var watchers: [Int: AsyncStream<[UInt8]>.Continuation] = [:]
        var nextWatcher = 0
        var paused = false
        var split: Double?
        /// The frame before its effects, for the before/after wipe.
        var original: Frame?
        var edit = 0
        var lastTick: Int64 = 0
    }

    private let state = Mutex(State())
    /// Used only on the player's thread.
    private let encoder = ImageEncoder()
    /// The frames' headers (used on the player's thread only, as the image encoder).
    private let headerEncoder = JSONEncoder()
    private let frameRate: Rational
    /// JPEG quality of the live frames.
    private let quality: Int

    init(frameRate: Rational, quality: Int = 80) {
        self.frameRate = frameRate
        self.quality = quality
    }

    /// A stream of encoded frames for one page, and the id to ``unwatch(_:)`` it with.
    func watch() -> (id: Int, frames: AsyncStream<[UInt8]>) {
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: .bufferingNewest(2))
        let id = state.withLock { s in
            s.nextWatcher += 1
            s.watchers[s.nextWatcher] = continuation
            return s.nextWatcher
        }
        return (id, stream)
    }

    func unwatch(_ id: Int) {
        let c = state.withLock { $0.watchers.removeValue(forKey: id) }
        c?.finish()
    }

    /// Play or pause (every player started later starts in this state too).
    func setPaused(_ paused: Bool) { state.withLock { $0.paused = paused } }

    /// The before/after wipe: the share of the width (from the left) shown without effects; nil for none.
    func setSplit(_ split: Double?) { state.withLock { $0.split = split.map { min(1, max(0, $0)) } } }

    /// The chain edit now handed to the player, reported with the frames it renders.
    func setEdit(_ edit: Int) { state.withLock { $0.edit = edit } }

    /// Called before effects on each frame: keeps it for the wipe when one is shown.
    func keepOriginal(_ frame: Frame) {
        state.withLock { s in s.original = s.split == nil ? nil : frame }
    }

    /// The tick last shown.
    var lastTick: Int64 { state.withLock { $0.lastTick } }
    /// The chain edit the frames are reported with now.
    var currentEdit: Int { state.withLock { $0.edit } }

    var isVisible: Bool { state.withLock { !$0.watchers.isEmpty } }

    func show(_ frame: Frame, caption: String?) throws(SinkError) -> Bool {
        let (split, original, edit) = state.withLock { s in
            defer { s.original = nil }
            return (s.split, s.original, s.edit)
        }
        var shown = frame
        if let split, let original, original.width == frame.width, original.height == frame.height {
            Self.wipe(&shown, with: original, upTo: Int((Double(frame.width) * split).rounded()))
        }
        let jpeg: [UInt8]
        do { jpeg = try encoder.encode(shown, as: .jpeg(quality: quality)) } catch { throw SinkError(path: "studio", reason: error.reason) }
        let tick = frame.time.floor(in: frameRate.inverse)
        // What detection found on this frame (faces, codes), for the page's track list.
        let boxes = frame.observations.map { o in
            FrameHeader.Box(track: o.trackID, kind: o.kind.rawValue, x: Int(o.bounds.x), y: Int(o.bounds.y),
                            w: Int(o.bounds.width), h: Int(o.bounds.height), score: (o.confidence * 1000).rounded() / 1000)
        }
        let fields = FrameHeader(tick: tick, time: frame.time.seconds, edit: edit, width: frame.width, height: frame.height, boxes: boxes)
        // Plain numbers and short names: it cannot fail to encode.
        let header = (try? Array(headerEncoder.encode(fields))) ?? Array("{}".utf8)
        var message = [UInt8]()
        message.reserveCapacity(4 + header.count + jpeg.count)
        let n = UInt32(header.count)
        message += [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
        message += header
        message += jpeg
        let watchers = state.withLock { s in
            s.lastTick = tick
            return Array(s.watchers.values)
        }
        for w in watchers { w.yield(message) }
        return true
    }

    /// Paused by the page, or by no page watching: an idle studio decodes and renders nothing.
    func pollControls() -> [PreviewControl] {
        [state.withLock { $0.paused || $0.watchers.isEmpty } ? .pause : .resume]
    }

    func close() {
        let watchers = state.withLock { s in defer { s.watchers = [:] }; return s.watchers }
        for w in watchers.values { w.finish() }
    }

    /// Copies the left `columns` of `original` over `frame`: the part shown without effects.
    static func wipe(_ frame: inout Frame, with original: Frame, upTo columns: Int) {
        let columns = min(max(columns, 0), frame.width)
        guard columns > 0 else { return }
        let rowBytes = columns * 4, height = frame.height, sourceStride = original.bytesPerRow
        let targetStride = frame.bytesPerRow
        original.withUnsafeBytes { source in
            frame.withUnsafeMutableBytes { target in
                for y in 0..<height {
                    (target.baseAddress! + y * targetStride).copyMemory(from: source.baseAddress! + y * sourceStride, byteCount: rowBytes)
                }
            }
        }
    }
}
