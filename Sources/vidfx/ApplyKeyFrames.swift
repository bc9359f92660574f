import Foundation
import FrameCore
import FrameSource
import Render
import Scenes

extension Apply {
    /// The source times `--keyframes-at` names: the cuts `vidfx scenes` finds (its
    /// defaults, over the render's range), or those a file lists.
    func cutTimes(_ argument: String, configuration: FrameSource.Configuration) throws -> CutTimes {
        try CutTimes.named(argument, input: input, source: source, option: "--keyframes-at", configuration: configuration)
    }
}

extension CutTimes {
    /// The cuts `argument` names for a command's `option`: `scenes` (found as `vidfx
    /// scenes` finds them, with its defaults, over the configuration's range) or a file
    /// (`vidfx scenes --json`, PySceneDetect's CSV, or times).
    static func named(_ argument: String, input: String, source: SourceOptions, option: String,
                      configuration: FrameSource.Configuration) throws -> CutTimes {
        guard argument == "scenes" else {
            let data: Data
            do { data = try TextFile.data(argument) } catch {
                throw CommandFailure(message: "\(option): \(argument): cannot read the cut list (\((error as NSError).localizedDescription))", code: 2)
            }
            guard data.count <= 16 << 20, let text = String(data: data, encoding: .utf8) else {
                throw CommandFailure(message: "\(option): \(argument): not a cut list (text of at most 16 MB)", code: 2)
            }
            return try CutTimes.parse(text, file: argument)
        }
        if input == "-" {
            throw CommandFailure(message: "-: \(option) scenes reads the clip twice, and standard input once; give a file, or a cut list", code: 2)
        }
        let media = try source.input(input, access: .seekable)
        var options = PictureScanner.Options()
        options.start = configuration.start
        options.duration = configuration.duration
        let scan = try SceneScan(media: media, options: options, minimumLength: NamedDetector.defaultMinimumLength) { length in
            NamedDetector.standard(minLength: length)
        }
        return CutTimes(scan.list.cuts.map { $0.time })
    }
}
