import ArgumentParser
import Effects
import Foundation
import FrameSource
import Render
import Sinks

extension Apply {
    /// `apply photo.jpg -e faceblur -o redacted.jpg`: an output named as an image takes
    /// the input's one picture through the chain (detection included) and writes it as
    /// one file, atomically, with the redaction report beside it when the chain redacts.
    /// A video input is refused: an image holds one picture (`dump --at` takes stills).
    func writePhoto(as format: ImageFormat, chain: EffectChain?) throws {
        if !(1...100).contains(quality) { throw ValidationError("--quality must be 1…100") }
        let configuration = source.configuration(timeline: timeline, quiet: render.quiet)
        let media = try source.input(input, access: .stream)
        let frames = try FrameSource(input: media, configuration: configuration)
        defer { frames.close() }
        if let ticks = frames.configuration.expectedTicks(for: frames.info), ticks > 1 {
            throw CommandFailure(message: "\(output): an image holds one picture, and \(input) is a video of \(ticks) frames "
                                 + "at the cadence: name a video (.mp4) to render it, or take stills with "
                                 + "`vidfx dump \(input) --at TIME -o FOLDER`")
        }
        chain?.describeOutput(frameRate: frames.configuration.frameRate, ticks: 1, input: input)
        let reviewedFile = try reviewed.load(tickLimit: 1)
        let stage = try DetectionStage.make(chain: chain, settings: detection.settings, reviewed: reviewedFile,
                                            frameRate: frames.configuration.frameRate.seconds, overwrite: render.yes)
        let reportPath = DetectionStage.redacts(chain) ? RedactionReport.path(for: output, folder: false) : nil
        try RedactionReport.check(reportPath, overwrite: render.yes)
        let sink = ImageFileSink(path: output, format: format)
        sink.size = size.map {
            let (width, height) = $0.resolved(for: frames.info, chain: chain)
            return PhotoSize(width: width, height: height, fit: fit)
        }
        let renderer = Renderer(chain: chain, detection: stage, sink: sink)
        // One picture: the first the input gives (a photo has no second).
        var given = false
        renderer.keep = { _ in defer { given = true }; return !given }
        _ = try renderer.run(frames)
        try reportRender(chain: chain, stage: stage, reportPath: reportPath)
        if !render.quiet, let size = sink.written {
            Console.note("wrote \(output): \(size.width)x\(size.height) \(format.name)")
        }
    }
}
