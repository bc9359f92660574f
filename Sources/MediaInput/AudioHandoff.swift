package import CFFmpeg
package import FrameCore
import Synchronization

/// The input's audio packets, read by the video reader's demuxer and handed to the audio
/// writer: one demuxer per input, however many streams are taken from it.
///
/// The video reader (one `FrameSource`'s decode loop, which claims the handoff) offers
/// every packet of the audio stream it reads, marks where each loop pass begins, and
/// says when a seek replaced what it read since the pass began. Before a pass ends short
/// of the input's end (a clip, a loop of one), it reads on until the audio has passed
/// the clip's end too, so the writer never has to read the input itself.
///
/// The writer (the encoder sink's audio path, on its own thread) takes packets without
/// ever waiting for the reader: a packet not read yet is written with a later frame.
/// At the writer's finish the reader has ended, so everything is there.
///
/// Packets wait here only as long as the video is ahead of the encoder (a few frames);
/// if they pile up past ``limit`` anyway, the handoff fails rather than grow without end.
package final class AudioHandoff: Sendable {
    /// What the video reader found: the audio stream's codec parameters (a copy owned
    /// here), time base, and the zero of the input's timeline (where its video starts).
    package struct Stream: @unchecked Sendable {
        package let parameters: UnsafeMutablePointer<AVCodecParameters>
        package let timeBase: AVRational
        package let origin: Rational
    }

    /// What ``next(into:)`` found.
    package enum Next: Equatable {
        /// A packet of the current pass, moved into the caller's packet.
        case packet
        /// The current pass has no packet read yet; the reader will hand more over.
        case later
        /// The current pass has no more packets.
        case end
        /// More than ``AudioHandoff/limit`` bytes waited for the writer, and were dropped.
        case overflowed
    }

    /// How far before a clip's start (source time) its audio is read from, by the video
    /// reader's seek and by an audio demuxer's alike: a container may store the sound
    /// of a moment after the picture it goes with (MPEG-TS), and an audio decoder started
    /// cold gets its first frame wrong. Both read from at least this early, so a clip's
    /// sound is whole and its samples the same however it was read.
    package static let lead = Rational(1, 2)

    /// Most bytes waiting before the handoff fails (the writer fell that far behind).
    package static let limit = 256 << 20

    private struct Packet: @unchecked Sendable { let pointer: UnsafeMutablePointer<AVPacket> }
    private enum Entry: Sendable {
        case packet(Packet)
        case pass(Int)
    }
    private struct State: Sendable {
        var claimed = false
        var described: Stream??  // nil: not yet; .some(nil): the input has no audio
        var entries: [Entry] = []
        var head = 0
        var bytes = 0
        var readerEnded = false
        var closed = false
        var overflowed = false
    }
    private let state = Mutex(State())

    /// An empty handoff; ``MediaInput`` makes one for `.shared` access.
    package init() {}

    deinit {
        state.withLock { s in
            s.closed = true
            Self.free(&s)
            if case .some(.some(let stream)) = s.described {
                var p: UnsafeMutablePointer<AVCodecParameters>? = stream.parameters
                avcodec_parameters_free(&p)
            }
        }
    }

    // MARK: The video reader's side

    /// Makes the caller the one reader that hands the audio over; false when another
    /// reader already is (a second source of the same input hands nothing over).
    package func claim() -> Bool {
        state.withLock { s in
            if s.claimed { return false }
            s.claimed = true
            return true
        }
    }

    /// Records the audio stream the reader keeps, or that the input has none (nil).
    /// Only the first description counts (a reader reopened to seek finds the same).
    package func describe(_ parameters: UnsafePointer<AVCodecParameters>?, timeBase: AVRational, origin: Rational) {
        state.withLock { s in
            guard s.described == nil else { return }
            guard let parameters, let copy = avcodec_parameters_alloc() else { s.described = .some(nil); return }
            avcodec_parameters_copy(copy, parameters)
            s.described = .some(Stream(parameters: copy, timeBase: timeBase, origin: origin))
        }
    }

    /// Pass `pass` begins: what is offered from now on belongs to it.
    package func beginPass(_ pass: Int) {
        state.withLock { s in
            guard !s.closed else { return }
            s.entries.append(.pass(pass))
        }
    }

    /// The reader sought again before the pass's first picture: drops what it read since
    /// the pass began, which it reads again from where the seek landed.
    package func restartPass() {
        state.withLock { s in
            guard !s.closed else { return }
            var cut = s.entries.count
            while cut > s.head, case .packet = s.entries[cut - 1] { cut -= 1 }
            // Nothing of the pass is taken yet: its marker (or the start) is still queued.
            for entry in s.entries[cut...] {
                if case .packet(let p) = entry {
                    s.bytes -= Int(p.pointer.pointee.size)
                    var pointer: UnsafeMutablePointer<AVPacket>? = p.pointer
                    av_packet_free(&pointer)
                }
            }
            s.entries.removeSubrange(cut...)
        }
    }

    /// A packet of the audio stream, just read and mended: a new reference is kept.
    package func offer(_ packet: UnsafePointer<AVPacket>) {
        state.withLock { s in
            guard !s.closed, !s.overflowed else { return }
            guard let copy = av_packet_clone(packet) else { s.overflowed = true; return }
            s.bytes += Int(copy.pointee.size)
            s.entries.append(.packet(Packet(pointer: copy)))
            if s.bytes > Self.limit {
                s.overflowed = true
                Self.free(&s)
            }
        }
    }

    /// The reader has read all it will (the end, a stop, or an error).
    package func readerEnded() {
        state.withLock { $0.readerEnded = true }
    }

    // MARK: The writer's side

    /// The audio stream as the reader described it: nil before the reader has opened
    /// the input; `.some(nil)` when the input has no audio.
    package var stream: Stream?? { state.withLock { $0.described } }

    /// Moves to pass `pass`: what is left of earlier passes is dropped.
    package func enter(pass: Int) {
        state.withLock { s in
            defer { Self.compact(&s) }
            while s.head < s.entries.count {
                switch s.entries[s.head] {
                case .pass(let p) where p > pass:
                    return
                case .pass(let p):
                    s.head += 1
                    if p == pass { return }  // what follows is this pass's
                case .packet(let p):
                    s.bytes -= Int(p.pointer.pointee.size)
                    var pointer: UnsafeMutablePointer<AVPacket>? = p.pointer
                    av_packet_free(&pointer)
                    s.head += 1
                }
            }
        }
    }

    /// The current pass's next packet, moved into `packet`.
    package func next(into packet: UnsafeMutablePointer<AVPacket>) -> Next {
        state.withLock { s in
            if s.overflowed { return .overflowed }
            guard s.head < s.entries.count else { return s.readerEnded || s.closed ? .end : .later }
            switch s.entries[s.head] {
            case .pass:
                return .end
            case .packet(let p):
                s.head += 1
                s.bytes -= Int(p.pointer.pointee.size)
                av_packet_move_ref(packet, p.pointer)
                var pointer: UnsafeMutablePointer<AVPacket>? = p.pointer
                av_packet_free(&pointer)
                Self.compact(&s)
                return .packet
            }
        }
    }

    /// The writer is gone: what waits is freed and nothing more is kept.
    package func close() {
        state.withLock { s in
            s.closed = true
            Self.free(&s)
        }
    }

    private static func compact(_ s: inout State) {
        if s.head > 1024 && s.head * 2 > s.entries.count {
            s.entries.removeFirst(s.head)
            s.head = 0
        }
    }

    private static func free(_ s: inout State) {
        for entry in s.entries[s.head...] {
            if case .packet(let p) = entry {
                var pointer: UnsafeMutablePointer<AVPacket>? = p.pointer
                av_packet_free(&pointer)
            }
        }
        s.entries = []
        s.head = 0
        s.bytes = 0
    }
}
