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
        let output = RenderPlan.Output.photo(path: self.output, format: format, size: nil)
        var plan = RenderPlan(input: try source.input(input, access: RenderPlan.access(for: output, pictures: .cadence, keepsAudio: false)),
                              output: output)
        plan.source = source.configuration(timeline: timeline, quiet: render.quiet)
        plan.chain = chain
        plan.detection = detection.settings
        plan.reviewed = reviewed.path
        plan.overwrite = render.yes
        plan.opened = { opening, output in
            guard let size else { return }
            let (width, height) = size.resolved(for: opening.info, chain: chain)
            output = .photo(path: self.output, format: format, size: PhotoSize(width: width, height: height, fit: fit))
        }
        let result = try plan.run(stop: StopSignal())
        say(result, chain: chain)
        if !render.quiet, let size = result.photo?.written {
            Console.note("wrote \(self.output): \(size.width)x\(size.height) \(format.name)")
        }
    }
}
