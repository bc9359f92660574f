import Effects
public import FrameCore
public import FrameSource
public import MediaInput
import Foundation
import Render

extension StudioServer.Configuration {
    /// Everything the studio needs to serve `media`: the input opened once and probed
    /// (size, length), stills read as `dump --at` reads them, live playback from any
    /// time, chains parsed with images (LUTs, overlays) decoded by FrameSource, and the
    /// live detection a chain needs. The command line and the tests build the studio the
    /// same way; the caller may still change any part (host, port, chain parser…).
    ///
    /// - Parameters:
    ///   - media: the input, described for seeking (nothing is read before this call).
    ///   - location: how vidfx commands name it: an absolute path or a URL.
    ///   - folder: where renders go and file parameters come from; a local input inside
    ///     it is shown by its name there.
    ///   - frameRate: the cadence.
    ///   - source: the input options every source on it takes (colour, tone mapping…).
    /// - Throws: ``FrameSourceError`` when the input cannot be opened or has no video.
    public static func serving(_ media: MediaInput, at location: String, folder: OutputFolder, frameRate: Rational,
                               source: FrameSource.Configuration = .init()) throws(FrameSourceError) -> Self {
        let isURL = location.contains("://")
        let shown = !isURL && location.hasPrefix(folder.path + "/") ? String(location.dropFirst(folder.path.count + 1)) : location
        var base = source
        base.frameRate = frameRate
        base.prefetch = 2
        let playing = base
        // Stills as `dump --at` reads them: its prefetch, FFmpeg's decoder threads.
        var stills = base
        stills.prefetch = 1
        let probe = try FrameSource(input: media, configuration: base)
        let info = probe.info
        probe.close()
        // A chain's files are names in the outputs folder (checked before it is parsed),
        // opened here as files of the folder: what is decoded or read is what was opened,
        // even if the name was swapped for a link or a FIFO after the check. Font paths are
        // not taken from a page at all.
        let drafts = ShaderDrafts()
        let resources = EffectResources(loadImage: { name in
            try folder.withRegularFile(name) { path in
                do {
                    let image = try FrameSource(path)
                    defer { image.close() }
                    guard let frame = try image.nextFrame() else {
                        throw FrameSourceError(input: name, kind: .noFrames, reason: "no picture in the image")
                    }
                    return frame
                } catch let error as FrameSourceError {
                    // Named as the page named it, not by the descriptor's path.
                    throw FrameSourceError(input: name, kind: error.kind, reason: error.reason)
                }
            }
        }, readFile: { name in
            // A shader typed into the page and not saved is read as it was typed.
            if let typed = drafts.text(name) { return Array(typed.utf8) }
            return try folder.readRegularFile(name)
        }, fontFilesAllowed: false)
        var configuration = Self(
            input: location, inputForCommands: shown, folder: folder,
            media: media, stillConfiguration: stills, frameRate: frameRate,
            width: info.width, height: info.height, duration: info.duration,
            openSource: { start, forever in
                var c = playing
                c.start = start
                c.loop = forever ? .forever : .once
                return try FrameSource(input: media, configuration: c)
            },
            parseChain: { text in text.isEmpty ? nil : try EffectChain(parsing: text, resources: resources) })
        configuration.resources = resources
        configuration.drafts = drafts
        if frameRate != Rational(30) { configuration.commandOptions = ["--fps", frameRate.description] }
        configuration.detection = { chain in
            guard let chain, let live = try DetectionStage.liveDetection(for: chain) else { return nil }
            return LiveAnnotation(annotate: { frame in frame.observations = live.observe(frame) }, end: { live.end() })
        }
        return configuration
    }
}
