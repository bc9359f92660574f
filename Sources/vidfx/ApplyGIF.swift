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
        configuration.prefetch = 0
        // --loop N is the GIF's own play count: the clip is in the file once.
        configuration.loop = .once
        let media = try source.input(input, access: .seekable)
        // A size in proportion to the picture needs the input's (a GIF's palette is made at it).
        let gifSize = try size.map { size throws -> (width: Int, height: Int) in
            if let fixed = size.fixed { return fixed }
            let probe = try FrameSource(input: media, configuration: configuration)
            defer { probe.close() }
            return size.resolved(for: probe.info, chain: chain)
        }
        let reviewedFile = try reviewed.load(tickLimit: nil)
        let reportPath = DetectionStage.redacts(chain) ? RedactionReport.path(for: output, folder: false) : nil
        try RedactionReport.check(reportPath, overwrite: render.yes)
        var stage: DetectionStage?
        func pass(into sink: any FrameSink, last: Bool) throws -> Renderer.Outcome {
            let frames = try FrameSource(input: media, configuration: configuration)
            defer { frames.close() }
            configuration = frames.configuration  // --fps source: the rate found, for the GIF's timing
            chain?.describeOutput(frameRate: frames.configuration.frameRate, ticks: frames.configuration.expectedTicks(for: frames.info), input: input)
            // The second pass's detections are the GIF's (its log's and its report's).
            var settings = detection.settings
            if !last { settings.logPath = nil }
            stage = try DetectionStage.make(chain: chain, settings: settings, reviewed: reviewedFile,
                                            frameRate: frames.configuration.frameRate.seconds, overwrite: render.yes)
            interruption.arm { frames.stop() }
            let renderer = Renderer(chain: chain, detection: stage, sink: sink)
            renderer.keepsStoppedOutput = false
            renderer.isStopped = { interruption.signal != nil }
            return try renderer.run(frames)
        }
        // --palette scenes|FILE: the ticks that first show each cut start a palette.
        var sceneStarts: Set<Int64> = []
        if self.palette != "clip" {
            let cuts = try CutTimes.named(self.palette, input: input, source: source, option: "--palette", configuration: configuration)
            let probe = try FrameSource(input: media, configuration: configuration)
            let total = probe.configuration.expectedTicks(for: probe.info)
            sceneStarts = keyFrameTicks(cuts, configuration: probe.configuration, info: probe.info, total: total.map(Int64.init))
            probe.close()
        }
        let palette = GIFPaletteSink(size: gifSize, sceneStarts: sceneStarts)
        _ = try pass(into: palette, last: false)
        if let signal = interruption.signal { throw ExitCode(128 + signal) }
        var settings = GIFSink.Settings(output: output, frameRate: configuration.frameRate)
        settings.size = gifSize
        settings.overwrite = render.yes
        settings.plays = timeline.loop
        let gif = try GIFSink(settings: settings, palette: palette)
        _ = try pass(into: gif, last: true)
        if let signal = interruption.signal {
            Console.note("interrupted; nothing written to \(output)")
            throw ExitCode(128 + signal)
        }
        try reportRender(chain: chain, stage: stage, reportPath: reportPath)
        if !render.quiet, let written = gif.written {
            let seconds = Double(written.frames) / configuration.frameRate.seconds
            Console.note("wrote \(output): \(Console.count(written.frames, "frame")), \(written.width)x\(written.height) gif, "
                         + String(format: "%.2f s", seconds)
                         + (palette.paletteCount == 1 ? ", one palette of 256 colours" : ", \(palette.paletteCount) palettes (one a scene)")
                         + (timeline.loop.map { ", plays \($0 == 1 ? "once" : "\($0) times")" } ?? ""))
        }
    }
}
