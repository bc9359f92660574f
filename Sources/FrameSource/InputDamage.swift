import Foundation
import Synchronization

/// What reading an input left out: playlist segments refused or lost, packets the
/// demuxer flagged as damaged, pictures the decoder could not decode. A render that
/// dropped any of it is not the whole input, and says so.
public struct InputDamage: Sendable, Equatable {
    /// A playlist entry that was not read: its URI and why.
    public struct SkippedSegment: Sendable, Equatable {
        /// The segment's URI as the playlist gives it.
        public var uri: String
        /// Why it was not read ("protocol 'file' is not allowed…", "HTTP error 404 Not Found").
        public var reason: String
    }

    /// Playlist segments not read, in the order they were met (each URI once).
    public var skippedSegments: [SkippedSegment] = []
    /// How many times a segment was skipped (a URI listed twice, or played again by a
    /// loop, counts each time).
    public var segmentsSkipped = 0
    /// Video packets the demuxer marked corrupt (decoded all the same, as ffmpeg does).
    public var damagedPackets = 0
    /// Video packets the decoder rejected as invalid data: pictures lost or damaged.
    public var undecodablePackets = 0

    /// Nothing dropped.
    public static let none = InputDamage()

    /// Nothing was dropped.
    public var isEmpty: Bool { segmentsSkipped == 0 && damagedPackets == 0 && undecodablePackets == 0 }

    /// One line for the end of a run: the counts, in words ("" when nothing was dropped).
    public var summary: String {
        var parts: [String] = []
        func count(_ n: Int, _ one: String, _ many: String) { if n > 0 { parts.append("\(n) \(n == 1 ? one : many)") } }
        count(segmentsSkipped, "playlist segment skipped", "playlist segments skipped")
        count(damagedPackets, "damaged packet", "damaged packets")
        count(undecodablePackets, "undecodable packet skipped", "undecodable packets skipped")
        return parts.joined(separator: ", ")
    }
}

/// Gathers an input's ``InputDamage`` from the threads that read it. FFmpeg's log lines
/// carry no reference to the input, so a reading thread names its collector first
/// (``FFmpegLog/collect(into:)``) and the log sink finds it there.
final class DamageCollector: Sendable {
    private let state = Mutex(InputDamage())
    private let input: String
    private let warn: @Sendable (String) -> Void

    init(input: String, warn: @escaping @Sendable (String) -> Void) {
        self.input = input
        self.warn = warn
    }

    var damage: InputDamage { state.withLock { $0 } }

    /// A segment the playlist lost: warned at once, once per URI (a playlist opened
    /// again to loop loses the same ones again).
    func skipped(uri: String, reason: String) {
        let isNew = state.withLock { damage in
            damage.segmentsSkipped += 1
            guard !damage.skippedSegments.contains(where: { $0.uri == uri }) else { return false }
            damage.skippedSegments.append(.init(uri: uri, reason: reason))
            return true
        }
        if isNew { warn("\(input): skipped playlist segment \(uri): \(reason)") }
    }

    func damagedPacket() { state.withLock { $0.damagedPackets += 1 } }

    func undecodablePacket() { state.withLock { $0.undecodablePackets += 1 } }
}
