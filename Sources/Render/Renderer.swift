public import Effects
public import FrameCore
public import Sinks
public import FrameSource
public import MediaInput
import Foundation

/// Offline rendering, the twin of `Player`: frames from a ``FrameSupply`` (the cadence of
/// a `FrameSource`, stills at times, chosen frames) go through detection when the chain
/// needs it (a ``DetectionStage``, which looks ahead), then the `EffectChain`, then one
/// `FrameSink`, as fast as the sink takes them. `apply`, `dump`, `detect`, the studio's
/// stills and a script's render are each one of these with different parts.
///
/// ```swift
/// let source = try FrameSource("clip.mp4")
/// let sink = try EncoderSink(settings: EncoderSink.Settings(output: "out.mp4"))
/// let renderer = Renderer(chain: try EffectChain(parsing: "sepia"), sink: sink)
/// let outcome = try renderer.run(source)  // the output is published when it returns
/// ```
///
/// The renderer owns how a render ends: on an error the sink and the stage abandon what
/// they wrote and the error is rethrown; when the sink's reader goes away (a player
/// reading a pipe quits) the render ends without error; when ``isStopped`` says so (Ctrl-C)
/// the frames so far are published or dropped as ``keepsStoppedOutput`` says; otherwise
/// the sink is finished and the detections file published.
public final class Renderer {
    /// How a render ended.
    public enum Ending: Sendable, Equatable {
        /// Every frame the supply gave was rendered and the output published.
        case complete
        /// ``isStopped`` said stop; ``Outcome/published`` says whether the frames so far were kept.
        case stopped
        /// The sink's reader went away (a closed pipe): nothing more could be written.
        case readerClosed
    }

    /// What a render did.
    public struct Outcome: Sendable, Equatable {
        /// Frames the sink took.
        public var frames: Int
        /// How it ended.
        public var ending: Ending
        /// Whether the sink's output was finished and moved into place.
        public var published: Bool

        /// An outcome of `frames` ending as `ending`.
        public init(frames: Int, ending: Ending, published: Bool) {
            self.frames = frames
            self.ending = ending
            self.published = published
        }
    }

    /// A render of the ticks `first..<` of a longer one (a segment, `--segment I/N`):
    /// the effects see the whole render's ticks and times (keyframes, grain), the sink
    /// gets them counted from 0.
    public struct TickWindow: Sendable, Equatable {
        /// Added to a supplied frame's tick to get the whole render's tick.
        public var shift: Int64
        /// The whole render's first tick of this part; earlier ones are dropped.
        public var first: Int64
        /// The cadence.
        public var frameRate: Rational

        /// A window starting at the whole render's tick `first`, supplied frames counted from `shift`.
        public init(shift: Int64, first: Int64, frameRate: Rational) {
            self.shift = shift
            self.first = first
            self.frameRate = frameRate
        }
    }

    /// The effects (nil: frames pass unchanged).
    public let chain: EffectChain?
    /// Detection between the supply and the chain (nil: none).
    public let detection: DetectionStage?
    /// Where the frames go.
    public let sink: any FrameSink
    /// Part of a longer render (nil: the whole).
    public var window: TickWindow?
    /// Decides after the effects whether a frame is written (a near-duplicate is not);
    /// nil writes every frame.
    public var keep: ((Frame) -> Bool)?
    /// Called with the number of frames written so far, after each.
    public var progress: ((Int) -> Void)?
    /// Called after a frame is written with the note its supply gave for it (why it was chosen).
    public var noted: ((String) -> Void)?
    /// Asked before each frame is taken from the supply: true ends the render as stopped.
    public var isStopped: () -> Bool = { false }
    /// Whether a stopped render publishes what it wrote so far (a video: a shorter,
    /// playable file) or abandons it (a folder of stills: all or nothing). Nothing is
    /// published when no frame was written.
    public var keepsStoppedOutput = true

    /// A renderer through `chain` (after `detection`) into `sink`.
    public init(chain: EffectChain?, detection: DetectionStage? = nil, sink: any FrameSink) {
        self.chain = chain
        self.detection = detection
        self.sink = sink
    }

    /// Renders every frame of `supply`, then ends the output (see the type's description).
    /// - Throws: what the supply, the detectors or the sink threw, after abandoning the output.
    public func run(_ supply: some FrameSupply) throws -> Outcome {
        var written = 0
        var delivered = 0
        var readerClosed = false
        var interrupted = false
        // Frames leave the detection stage in the order they entered it, one for one, so
        // the n-th delivered frame is the n-th supplied: its note is the supply's n-th.
        func deliver(_ frame: consuming Frame) throws -> Bool {
            // Moved, not copied: the colour effects then render into the only reference.
            var out = consume frame
            let index = delivered
            delivered += 1
            if let window {
                let tick = out.tick + window.shift
                if tick < window.first { return true }
                out.tick = tick
                out.time = window.frameRate.inverse * tick
                chain?.apply(to: &out)
                out.tick = tick - window.first
                out.time = window.frameRate.inverse * out.tick
            } else {
                chain?.apply(to: &out)
            }
            if let why = chain?.failure {
                // The frame is not the chain's picture: not written. Stopping (Ctrl-C
                // during a shader) ends as stopped; any other failure ends the render.
                if isStopped() { interrupted = true; return false }
                throw RenderError("-e: \(why)")
            }
            // A frame whose effects ran while the stop came (Ctrl-C cuts a shader's wait) is
            // not the chain's picture for sure: the output ends at the frame before it.
            if isStopped() && chain?.hasFallibleEffects == true { interrupted = true; return false }
            if let keep, !keep(out) { return true }
            guard try sink.write(out) else { readerClosed = true; return false }
            written += 1
            if let noted, let note = supply.note(forFrame: index) { noted(note) }
            progress?(written)
            return true
        }
        do {
            var going = true
            while going, !isStopped(), let frame = try supply.next() {
                going = try DetectionStage.pass(consume frame, through: detection, to: deliver)
            }
            if going { try DetectionStage.drain(detection, to: deliver) }
        } catch {
            sink.abandon()
            detection?.abandon()
            throw error
        }
        if readerClosed {
            sink.abandon()
            detection?.abandon()
            return Outcome(frames: written, ending: .readerClosed, published: false)
        }
        let stopped = isStopped() || interrupted
        if stopped && (written == 0 || !keepsStoppedOutput) {
            sink.abandon()
            detection?.abandon()
            return Outcome(frames: written, ending: .stopped, published: false)
        }
        do {
            try sink.finish()
        } catch {
            detection?.abandon()
            if error.isReaderClosed { return Outcome(frames: written, ending: .readerClosed, published: false) }
            throw error
        }
        try detection?.publish()
        return Outcome(frames: written, ending: stopped ? .stopped : .complete, published: true)
    }
}

extension Renderer {
    /// The still of `media` at `time` through `chain`, exactly as `dump --at` gives it: the
    /// picture on screen at `time`, its `time` set to it, with the observations of
    /// `detection` when given (a reviewed file's boxes, or a detection of this picture).
    /// - Throws: ``RenderError`` (exit code 2) when `time` is at or past the input's end;
    ///   what the input or the detectors threw.
    public static func still(of media: MediaInput, configuration: FrameSource.Configuration, at time: Rational,
                             chain: EffectChain?, detection: DetectionStage? = nil) throws -> Frame {
        let source = try FrameSource(input: media, configuration: Stills.configuration(configuration, at: time))
        defer { source.close() }
        describe(chain, frameRate: configuration.frameRate, ticks: configuration.expectedTicks(for: source.info), input: media.location)
        try checkStill(at: time, duration: source.info.duration, input: media.location)
        return try still(Stills(media: media, configuration: configuration, times: [time], first: source), at: time,
                         chain: chain, detection: detection, input: media.location)
    }

    /// The same still from `reader`, an input kept open between stills (a viewer scrubbing):
    /// a time a little after the last decodes on instead of seeking. The same pixels.
    public static func still(from reader: StillReader, at time: Rational, chain: EffectChain?,
                             detection: DetectionStage? = nil, input: String) throws -> Frame {
        describe(chain, frameRate: reader.configuration.frameRate, ticks: reader.configuration.expectedTicks(for: reader.info), input: input)
        try checkStill(at: time, duration: reader.info.duration, input: input)
        return try still(Stills(reader: reader, times: [time]), at: time, chain: chain, detection: detection, input: input)
    }

    /// Tells a chain not yet told what a still belongs to: the render of the input at the
    /// cadence, `ticks` long. A caption's timecode counts the cadence's frames, and a fade
    /// out darkens the stills near the end as it does that render's frames (a caller may
    /// have said otherwise already).
    private static func describe(_ chain: EffectChain?, frameRate: Rational, ticks: Int?, input: String) {
        guard let chain, chain.frameRate == nil else { return }
        chain.describeOutput(frameRate: frameRate, ticks: ticks, input: input)
    }

    private static func checkStill(at time: Rational, duration: Double?, input: String) throws {
        if let duration, time.seconds >= duration {
            throw RenderError("\(input): \(String(format: "%g", time.seconds)) s is at or past the end of the video "
                              + "(\(String(format: "%.3f", duration)) s)", exitCode: 2)
        }
    }

    private static func still(_ supply: Stills, at time: Rational, chain: EffectChain?, detection: DetectionStage?,
                              input: String) throws -> Frame {
        let sink = CollectingSink(limit: 2)
        _ = try Renderer(chain: chain, detection: detection, sink: sink).run(supply)
        guard let frame = sink.frames.first else {
            throw RenderError("\(input): no picture at \(String(format: "%g", time.seconds)) s")
        }
        return frame
    }
}
