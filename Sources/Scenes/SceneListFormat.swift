import Foundation

/// The ways a scene list is written: `vidfx scenes --format` (or an output's extension).
public enum SceneListFormat: String, Sendable, CaseIterable {
    /// A line a scene, for reading.
    case text
    /// PySceneDetect's `list-scenes` CSV.
    case csv
    /// The cuts with their scores and the scenes.
    case json
    /// A CMX 3600 edit decision list: an event a scene, non-drop-frame timecodes.
    case edl
    /// OpenTimelineIO's JSON: a timeline whose video track has a clip a scene.
    case otio
    /// Final Cut Pro's XML (FCPXML 1.9): a project whose spine has a clip a scene.
    case fcpxml
    /// A page with the cut list and a table of the scenes.
    case html

    /// The format an output name's extension says, if it names one (`.xml` is FCPXML).
    public init?(fileName: String) {
        switch (fileName as NSString).pathExtension.lowercased() {
        case "txt": self = .text
        case "csv": self = .csv
        case "json": self = .json
        case "edl": self = .edl
        case "otio": self = .otio
        case "fcpxml", "xml": self = .fcpxml
        case "html", "htm": self = .html
        default: return nil
        }
    }
}

/// What an export says about the clip besides its scenes.
public struct SceneListSource: Sendable {
    /// The clip's path or URL as the user gave it.
    public var location: String
    /// The pictures' nominal rate per second (timecodes count frames at it).
    public var rate: Double
    /// The picture's size, when known.
    public var width: Int?
    public var height: Int?

    /// A clip at `location` with pictures at `rate` a second.
    public init(location: String, rate: Double, width: Int? = nil, height: Int? = nil) {
        self.location = location
        self.rate = rate
        self.width = width
        self.height = height
    }

    /// The clip's name without folder or extension (a title for the exports).
    public var name: String {
        let last = location.split(separator: "/").last.map(String.init) ?? location
        let stem = (last as NSString).deletingPathExtension
        return stem.isEmpty ? "video" : stem
    }

    /// A URL for the clip: as given for a URL, `file://` and the absolute path for a file.
    public var url: String {
        if location.contains("://") { return location }
        let absolute = location.hasPrefix("/") ? location : FileManager.default.currentDirectoryPath + "/" + location
        return URL(fileURLWithPath: absolute).standardizedFileURL.absoluteString
    }

    /// Whole frames a second for timecodes (29.97 counts 30, non-drop).
    var timecodeBase: Int { max(1, Int(rate.rounded())) }

    /// The rate as a fraction: NTSC rates exactly (30000/1001), others to a thousandth.
    var rational: (numerator: Int, denominator: Int) {
        let ntsc = rate * 1.001
        if abs(ntsc - ntsc.rounded()) < 0.001 && abs(rate - rate.rounded()) > 0.001 { return (Int(ntsc.rounded()) * 1000, 1001) }
        if abs(rate - rate.rounded()) < 0.0001 { return (Int(rate.rounded()), 1) }
        return (Int((rate * 1000).rounded()), 1000)
    }

    /// HH:MM:SS:FF for frame `frame`, non-drop, at ``timecodeBase``.
    func timecode(frame: Int) -> String {
        let base = timecodeBase, f = max(0, frame)
        let seconds = f / base
        return String(format: "%02d:%02d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60, f % base)
    }
}

extension SceneList {
    /// The list in `format`, for the clip `source`.
    public func written(as format: SceneListFormat, source: SceneListSource) -> String {
        switch format {
        case .text: text()
        case .csv: csv(rate: source.rate)
        case .json: json()
        case .edl: edl(source: source)
        case .otio: otio(source: source)
        case .fcpxml: fcpxml(source: source)
        case .html: html(source: source)
        }
    }
}
