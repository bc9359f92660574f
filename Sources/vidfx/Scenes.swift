public import ArgumentParser
import Foundation
import FrameCore
import FrameSource
import MediaInput
public import Scenes
import Render
import Sinks

/// `vidfx scenes INPUT`: the cut list, with PySceneDetect's detectors and defaults.
struct ScenesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenes",
        abstract: "List the scene cuts of a video (PySceneDetect 0.7's detectors and defaults, on every picture).",
        discussion: """
        Frames are the source's pictures counted from 0, times their presentation times in seconds (true
        times for variable-rate video). --csv prints the layout of `scenedetect list-scenes`; --json prints
        {"cuts": [{"frame", "time", "score"}], "scenes": [{"start": {"frame", "time"}, "end": {"frame", "time"}}]},
        where a scene's end is the next one's start (the end of the video for the last).
        """
    )

    enum DetectorName: String, ExpressibleByArgument, CaseIterable {
        case content, adaptive, threshold, hash, histogram
    }

    @Argument(help: "Video file, http(s) URL, or - for standard input.")
    var input: String

    @Option(help: "content (colour and brightness jumps, the default), adaptive (jumps that stand out from their neighbours), threshold (fades to black), hash (perceptual hash), histogram (luma histogram).")
    var detector: DetectorName = .content

    @Option(parsing: .unconditional, help: ArgumentHelp("The detector's threshold (PySceneDetect 0.7's defaults: content 27, adaptive 3, threshold 12, hash 0.35, histogram 0.20).", valueName: "x"))
    var threshold: Double?

    @Option(name: .customLong("min-scene-len"), parsing: .unconditional, help: ArgumentHelp("The shortest scene: pictures, or seconds with an s (default 0.6s).", valueName: "n"))
    var minSceneLength: String = "0.6s"

    @Flag(help: "Print JSON.")
    var json = false

    @Flag(help: "Print the CSV of `scenedetect list-scenes`.")
    var csv = false

    @Option(help: "text, csv, json, edl (CMX 3600), otio (OpenTimelineIO), fcpxml (Final Cut Pro) or html (default: from the -o name's extension, else text).")
    var format: SceneListFormat?

    @Option(parsing: .unconditional, help: ArgumentHelp("Decoders reading the clip at once, each a piece from a key frame on (whole local files of 20 s or more; the cuts and scores are those of one decoder). Default: one per core.", valueName: "n"))
    var decoders: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: ArgumentHelp("Also write every picture's score to this CSV, in the layout of scenedetect's --stats (Frame Number, Timecode, the score's column and, for content and adaptive, its parts: delta_hue, delta_sat, delta_lum, delta_edges, the adaptive ratio).", valueName: "file"))
    var stats: String?

    @Option(name: .shortAndLong, help: "Write the list to this file (atomically) instead of standard output.")
    var output: String?

    @Flag(name: .shortAndLong, help: "Overwrite an existing output.")
    var yes = false

    @Flag(name: .shortAndLong, help: "No messages except errors.")
    var quiet = false

    @OptionGroup var range: ClipRangeOptions

    @Flag(help: "Shrink pictures straight from the decoder's YUV and skip H.264's loop filter: about 1.5 times faster, scores about 2% off PySceneDetect's (a cut near the threshold can move).")
    var fast = false

    @Option(name: .customLong("analysis-width"), parsing: .unconditional, help: ArgumentHelp("Width the pictures are scaled to for detection (default: PySceneDetect 0.7's, 256 on the longer side when it is longer).", valueName: "pixels"))
    var analysisWidth: Int?

    @OptionGroup var network: NetworkOptions

    func validate() throws {
        if [json, csv, format != nil].filter({ $0 }).count > 1 { throw ValidationError("--json, --csv and --format: choose one") }
        if let threshold, !threshold.isFinite || threshold < 0 { throw ValidationError("--threshold must be a number ≥ 0") }
        if let analysisWidth, !(16...4096).contains(analysisWidth) { throw ValidationError("--analysis-width must be 16…4096") }
        if !(1...64).contains(decoders) { throw ValidationError("--decoders must be 1…64") }
        guard MinimumLength(minSceneLength) != nil else {
            throw ValidationError("--min-scene-len: '\(minSceneLength)' is not a count of pictures or seconds (15, 0.6s)")
        }
    }

    typealias MinimumLength = SceneScan.MinimumLength

    func run() throws {
        let interruption = Interruption()
        defer { interruption.end() }
        if let output { try OutputSafety.check(output: output, input: input, overwrite: yes, folder: false) }
        if let stats { try OutputSafety.check(output: stats, input: input, overwrite: yes, folder: false) }
        let media: MediaInput
        media = try MediaInput(input, access: .seekable, network: network.settings)
        var options = PictureScanner.Options()
        options.width = analysisWidth
        if fast { options.scaling = .direct }
        if let start = range.start { options.start = start.value }
        options.duration = range.duration?.value
        options.warningHandler = { message in if !quiet { Console.warning(message) } }
        let scan = try SceneScan(input: input, media: media, options: options, interruption: interruption,
                                 minimumLength: MinimumLength(minSceneLength)!, recordScores: stats != nil,
                                 recordMeasures: stats != nil, decoders: decoders) { minLength in
            makeDetector(minLength: minLength)
        }
        let list = scan.list, rate = scan.rate

        let format = self.format ?? (json ? .json : csv ? .csv : output.flatMap(SceneListFormat.init(fileName:)) ?? .text)
        let text = list.written(as: format, source: SceneListSource(location: input, rate: rate))
        if let stats { try write(scan.statsFile, to: stats, what: "the scores") }
        if let output {
            try write(text, to: output, what: "the scene list")
        } else {
            // A reader that stopped early has what it wanted; the summary still follows.
            try Console.output(Data(text.utf8))
        }
        if !quiet {
            Console.note("\(input): \(Console.count(list.cuts.count, "cut")), \(Console.count(list.scenes.count, "scene")) in \(Console.count(scan.pictures, "picture")) (\(scan.detectorName), min \(scan.minimumLength)\(scan.pieces > 1 ? ", \(scan.pieces) decoders" : ""))")
        }
    }

    /// Publishes `text` at `path` whole or not at all.
    private func write(_ text: String, to path: String, what: String) throws {
        do { try AtomicOutput.write(Data(text.utf8), to: path, overwrite: yes) } catch {
            throw CommandFailure(message: "\(path): cannot write \(what) (\(error.reason))")
        }
    }

    func makeDetector(minLength: Int) -> NamedDetector {
        let seconds = MinimumLength(minSceneLength)?.seconds
        return switch detector {
        case .content:
            NamedDetector(name: "content", ContentDetector(threshold: threshold ?? ContentDetector.defaultThreshold, minSceneLength: minLength,
                                                           minSceneSeconds: seconds))
        case .adaptive:
            NamedDetector(name: "adaptive", AdaptiveDetector(ratio: threshold ?? 3, minSceneLength: minLength, minSceneSeconds: seconds))
        case .threshold:
            NamedDetector(name: "threshold", ThresholdDetector(threshold: threshold ?? 12, minSceneLength: minLength, minSceneSeconds: seconds))
        case .hash:
            NamedDetector(name: "hash", HashDetector(threshold: threshold ?? HashDetector.defaultThreshold, minSceneLength: minLength,
                                                     minSceneSeconds: seconds))
        case .histogram:
            NamedDetector(name: "histogram", HistogramDetector(threshold: threshold ?? HistogramDetector.defaultThreshold, minSceneLength: minLength,
                                                               minSceneSeconds: seconds))
        }
    }
}

extension SceneScan {
    /// A scan that Ctrl-C stops: a stopped scan says how far it got, writes nothing and
    /// exits 128 + the signal.
    init(input: String, media: MediaInput, options: PictureScanner.Options, interruption: Interruption,
         minimumLength: MinimumLength, recordScores: Bool = false, recordMeasures: Bool = false, decoders: Int = 1,
         detector: (Int) -> NamedDetector) throws {
        do {
            try self.init(media: media, options: options, minimumLength: minimumLength, recordScores: recordScores,
                          recordMeasures: recordMeasures, decoders: decoders,
                          watch: { interruption.arm($0) }, isStopped: { interruption.signal != nil }, detector: detector)
        } catch let stopped as SceneScan.Stopped {
            Console.note("interrupted after \(Console.count(stopped.pictures, "picture")); nothing written")
            throw ExitCode(128 + (interruption.signal ?? SIGINT))
        }
    }
}

extension SceneListFormat: ExpressibleByArgument {}
