public import FrameSource
public import Sinks
import Detection
import Foundation
import MediaInput

/// A clip's faces found into a detections file (JSON Lines), as a redaction finds them:
/// what `vidfx detect IN --what faces --redaction --detections FILE` writes, for the
/// studio's review and for scripts. The file appears whole or not at all.
public struct DetectionsRender: Sendable {
    /// The input: a file or URL.
    public var input: String
    /// The detections file to write.
    public var output: String
    /// The cadence and the part of the timeline.
    public var source = FrameSource.Configuration()
    /// How faces are detected (``DetectionSettings/logPath`` is set to ``output``).
    public var detection = DetectionSettings()

    /// The faces of `input` into `output`, with the command line's defaults.
    public init(input: String, output: String) {
        self.input = input
        self.output = output
    }

    /// Runs on the calling thread (a thread of its own, not Swift's cooperative pool).
    /// `progress` gets the ticks looked at and the expected total. After `stop` is
    /// requested the run ends at the next frame and writes nothing.
    /// - Returns: whether it ran to the end (and the file was written).
    /// - Throws: the input's or the detector's error; nothing is written then.
    public func run(stop: StopSignal, progress: @escaping (_ ticks: Int, _ total: Int?) -> Void = { _, _ in }) throws -> Bool {
        let media = try MediaInput(input, access: .seekable)
        let frames = try FrameSource(input: media, configuration: source)
        defer { frames.close() }
        var settings = detection
        settings.logPath = output
        guard let stage = try DetectionStage(needs: .faces, settings: settings, overwrite: false, codes: [], redacting: true) else {
            return false
        }
        let total = frames.configuration.expectedTicks(for: frames.info)
        let renderer = Renderer(chain: nil, detection: stage, sink: NullSink())
        renderer.keepsStoppedOutput = false
        renderer.progress = { progress($0, total) }
        renderer.isStopped = { stop.isRequested }
        return try renderer.run(frames).ending == .complete
    }
}
