public import FrameCore
public import FrameSource
public import MediaInput

/// Where a ``Renderer``'s frames come from, in order: the cadence of a `FrameSource`,
/// ``Stills`` at given times, ``RepresentativeFrames``, or a caller's own.
public protocol FrameSupply: AnyObject {
    /// The next frame, or nil at the end.
    func next() throws -> Frame?
    /// What to say about the supply's `index`-th frame (counting from 0) where it is
    /// written (an image folder's manifest); nil for nothing.
    func note(forFrame index: Int) -> String?
}

extension FrameSupply {
    /// Nothing to say.
    public func note(forFrame index: Int) -> String? { nil }
}

extension FrameSource: FrameSupply {
    /// The next tick's frame.
    public func next() throws -> Frame? { try nextFrame() }
}

/// Exact stills at given times, each carrying its time (`dump --at`, the studio's frame):
/// the picture on screen at each time, as the cadence would show it there.
public final class Stills: FrameSupply {
    private let media: MediaInput?
    private let configuration: FrameSource.Configuration
    private let times: [Rational]
    private let notes: [String]
    private var first: FrameSource?
    private var reader: StillReader?
    private var index = 0
    /// The notes of the stills given so far (a time with no picture gives none).
    private var given: [String] = []

    /// The configuration of a source that gives the still at `time` as its only frame.
    public static func configuration(_ configuration: FrameSource.Configuration, at time: Rational) -> FrameSource.Configuration {
        var c = configuration
        c.start = time
        c.frameLimit = 1
        return c
    }

    /// Stills of `media` at `times`; `first`, when given, is a source opened with
    /// ``configuration(_:at:)`` at the first time (one that was opened already to check
    /// the input); the rest come from one decoder that seeks. `notes` go with the stills
    /// in order.
    public init(media: MediaInput, configuration: FrameSource.Configuration, times: [Rational], notes: [String] = [],
                first: FrameSource? = nil) {
        self.media = media
        self.configuration = configuration
        self.times = times
        self.notes = notes
        self.first = first
    }

    /// Stills at `times` from `reader`, an input kept open between calls (the studio's):
    /// a time just after the last one decodes on from there instead of seeking. The
    /// pictures are the same.
    public init(reader: StillReader, times: [Rational], notes: [String] = []) {
        media = nil
        configuration = FrameSource.Configuration()
        self.times = times
        self.notes = notes
        self.reader = reader
    }

    /// The next still; a time with no picture (past a stream's end) is skipped.
    public func next() throws -> Frame? {
        while index < times.count {
            let t = times[index]
            defer { index += 1 }
            let picture: Frame?
            if reader == nil, index == 0, let media {
                let source = try first ?? FrameSource(input: media, configuration: Self.configuration(configuration, at: t))
                picture = try source.nextFrame()
                if first == nil { source.close() }
            } else {
                if reader == nil, let media { reader = try StillReader(input: media, configuration: configuration) }
                picture = try reader!.picture(at: t)
            }
            guard var frame = picture else { continue }
            frame.time = t
            // The tick of the cadence whose frame this is (the one on screen at t), so that
            // a caption's {tick} and {timecode} and a manifest say where the still stands.
            let rate = reader?.configuration.frameRate ?? configuration.frameRate
            frame.tick = StillReader.tick(at: t, frameRate: rate)
            given.append(index < notes.count ? notes[index] : "")
            return frame
        }
        return nil
    }

    /// The note of the `index`-th still given.
    public func note(forFrame index: Int) -> String? { index < given.count && !given[index].isEmpty ? given[index] : nil }
}
