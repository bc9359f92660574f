import ArgumentParser
import Detection
import Render

/// What the commands that render (apply, dump) and `detect` share about detection.
struct DetectionOptions: ParsableArguments {
    @Option(name: .customLong("detect-every"), parsing: .unconditional,
            help: ArgumentHelp("Run the detectors on every Nth tick and carry the boxes between (default: 1 for codes, 4 for faces).", valueName: "N"))
    var detectEvery: Int?

    @Option(name: .customLong("detections"), help: ArgumentHelp("Also write each tick's detections (JSON Lines, as `vidfx detect --json`) to this file.", valueName: "file.jsonl"))
    var detectionsPath: String?

    @Option(name: .customLong("face-model"), help: ArgumentHelp("The CenterFace ONNX model (default: the one make setup installed).", valueName: "path"))
    var faceModel: String?

    @Option(name: .customLong("face-threshold"), parsing: .unconditional,
            help: ArgumentHelp("Least face score, 0…1: lower finds more (and more false faces). Default 0.3; 0.2 when redacting (faceblur), where a missed face costs more than a blurred patch, and small faces (up to 8% of the picture's longer side) down to half the score.", valueName: "score"))
    var faceThreshold: Double?

    @Option(name: .customLong("face-size"), parsing: .unconditional,
            help: ArgumentHelp("The longer side, in pixels, of the picture the face network sees, never more than the frame's (larger: smaller faces, slower). Default 1280; 1920 when redacting.", valueName: "px"))
    var faceSize: Int?

    @Option(name: .customLong("face-recheck"), parsing: .unconditional,
            help: ArgumentHelp("When redacting: look again at each detection frame once redacted, up to N times, and widen every head whose outline is still found as a face. Default 0 with faceblur's patch or erase (they leave no outline), 1 with blur, pixelate or fill (each look costs about half a detection).", valueName: "N"))
    var faceRecheck: Int?

    @Option(name: .customLong("face-recheck-size"), parsing: .unconditional,
            help: ArgumentHelp("The size of each recheck look, as a share of the first look's (0.25…1). Default 0.75: about half a detection's cost, and as many outlines left as a look at full size.", valueName: "share"))
    var faceRecheckSize: Double?

    /// The options as the Render library takes them.
    var settings: DetectionSettings {
        var s = DetectionSettings()
        s.every = detectEvery
        s.logPath = detectionsPath
        s.faceModel = faceModel
        s.faceThreshold = faceThreshold
        s.faceSize = faceSize
        s.faceRecheck = faceRecheck
        s.faceRecheckSize = faceRecheckSize
        return s
    }

    func validate() throws {
        if let problem = settings.problem { throw ValidationError(problem) }
    }
}

/// `--use-detections FILE`, for the commands that render (apply, dump, preview).
struct ReviewedDetectionsOption: ParsableArguments {
    @Option(name: .customLong("use-detections"),
            help: ArgumentHelp("Draw and redact exactly the boxes in this detections file (JSON Lines, as `vidfx detect --json` writes; a reviewed one), and detect nothing. A track left out stays untouched; a box with \"manual\": true is redacted on its ticks; a track's boxes are interpolated between the ticks that give them.", valueName: "file.jsonl"))
    var path: String?

    /// The file, checked (against `tickLimit`, the render's ticks, when known).
    func load(tickLimit: Int?) throws -> DetectionsFile? {
        guard let path else { return nil }
        return try DetectionsFile.load(path: path, tickLimit: tickLimit.map { Int64($0) })
    }
}
