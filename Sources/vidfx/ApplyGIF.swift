import ArgumentParser
import Effects
import Foundation
import FrameSource
import Render
import Sinks

extension Apply {
    /// `apply clip.mp4 -o clip.gif`: ffmpeg's two-pass GIF, with the chain. The clip is
    /// rendered twice, each time as the cadence gives it: first for its palette
    /// (`palettegen`; with `--palette scenes|FILE`, one for each scene), then mapped to it
    /// (`paletteuse`, error diffusion) and encoded.
    /// Twice the decoding rather than every frame kept: memory stays flat however long
    /// the clip. `--size` scales (Lanczos) before both passes; there is no sound. `--loop N`
    /// is the GIF's play count (the clip is in the file once); without it, it plays for ever.
    func writeGIF(chain: EffectChain?) throws {
        let interruption = Interruption()
        defer { interruption.end() }
        var configuration = source.configuration(timeline: timeline, quiet: render.quiet)
        // --loop N is the GIF's own play count: the clip is in the file once.
        configuration.loop = .once
        // --palette scenes|FILE: the ticks that first show each cut start a palette.
        let cuts = try palette == "clip" ? nil
            : CutTimes.named(palette, input: input, source: source, option: "--palette", configuration: configuration)
        var settings = GIFSink.Settings(output: output, frameRate: configuration.frameRate)
        settings.plays = timeline.loop
        let output = RenderPlan.Output.gif(settings, sceneStarts: [])
        var plan = RenderPlan(input: try source.input(input, access: RenderPlan.access(for: output, pictures: .cadence, keepsAudio: false)),
                              output: output)
        plan.source = configuration
        plan.chain = chain
        plan.detection = detection.settings
        plan.reviewed = reviewed.path
        plan.overwrite = render.yes
        let stop = StopSignal()
        plan.opened = { opening, output in
            interruption.arm {
                opening.stop()
                stop.request()
            }
            // The first pass: the palettes' size (one in proportion needs the picture's) and scenes.
            guard case .gif(var settings, _) = output else { return }
            settings.size = size.map { $0.fixed ?? $0.resolved(for: opening.info, chain: chain) }
            output = .gif(settings, sceneStarts: cuts?.ticks(of: opening.whole, info: opening.info, total: opening.ticks.map(Int64.init)) ?? [])
        }
        let result = try plan.run(stop: stop)
        if let signal = interruption.signal {
            Console.note("interrupted; nothing written to \(self.output)")
            throw ExitCode(128 + signal)
        }
        say(result, chain: chain)
        if !render.quiet, let written = result.gif?.written {
            let seconds = Double(written.frames) / result.opening.configuration.frameRate.seconds
            Console.note("wrote \(self.output): \(Console.count(written.frames, "frame")), \(written.width)x\(written.height) gif, "
                         + String(format: "%.2f s", seconds)
                         + (result.palettes == 1 ? ", one palette of 256 colours" : ", \(result.palettes) palettes (one a scene)")
                         + (timeline.loop.map { ", plays \($0 == 1 ? "once" : "\($0) times")" } ?? ""))
        }
    }
}
