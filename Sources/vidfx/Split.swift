import ArgumentParser
import Effects
import Foundation
import FrameCore
import FrameSource
import Render
import Sinks

/// `vidfx split IN --scenes --exact -o 'scene-{n:03}.mp4'`: a file per scene.
struct Split: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a file per scene: cut where `vidfx scenes` finds cuts, or where a cut list says.",
        discussion: """
        By default each scene is copied, not re-encoded (PySceneDetect's `split-video \
        --copy`): it begins at the key frame nearest its cut, so the files hold every picture \
        and sound packet of the clip once, in seconds whatever the clip's length. \
        `apply --keyframes-at scenes` first makes a file with a key frame at every cut, which \
        then splits exactly. --exact renders each scene through the chain at the cadence, \
        frame-exact: the scene files hold, one after another, the very ticks of one `vidfx \
        apply` of the whole clip (a scene begins at the first tick that shows its first \
        picture), each with its sound in step. The output name holds {n} for the scene's \
        number from 1, {n:03} with leading zeros.
          vidfx split talk.mp4 --scenes -o 'talk-{n:03}.mp4'
          vidfx scenes talk.mp4 -o cuts.json
          vidfx split talk.mp4 --cuts cuts.json --exact -e sepia -o 'scene-{n}.mkv'
        """
    )

    @Argument(help: "Video file or http(s) URL.")
    var input: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Output name with {n} (or {n:03}) for each scene's number, from 1.", valueName: "pattern"))
    var output: String

    @Flag(help: "Cut where `vidfx scenes` finds cuts (its defaults).")
    var scenes = false

    @Option(help: ArgumentHelp("Cut where this file says: `vidfx scenes --json`, PySceneDetect's CSV, or times.", valueName: "file"))
    var cuts: String?

    @Flag(help: "Re-encode each scene, frame-exact, through the chain (-e).")
    var exact = false

    @Option(name: [.customShort("e"), .customLong("effects")], help: "Effect chain for every scene, as for apply.")
    var effects: String?

    @Option(parsing: .unconditional, help: "Output frames per second: 30, 29.97, 30000/1001…, or source for the input's own.")
    var fps = OutputRateArgument(Rational(30))

    @Option(parsing: .unconditional, help: "Quality for the codec's constant-quality mode (lower is better; 0 is lossless for H.264).")
    var crf: Int?

    @Option(help: "Encoder speed, as for apply.")
    var preset: String?

    @Option(help: ArgumentHelp("The input's metadata in each file (creation time, make, model, location, stream languages): keep, or strip. By default it is kept, but a redaction (faceblur) leaves out the location.",
                                valueName: "keep|strip"))
    var metadata: SourceMetadata.Choice?

    @Flag(name: .customLong("no-audio"), help: "Drop the audio.")
    var noAudio = false

    @Flag(name: .shortAndLong, help: "Overwrite existing outputs.")
    var yes = false

    @Flag(name: .shortAndLong, help: "No messages except errors.")
    var quiet = false

    @OptionGroup var source: SourceOptions

    func validate() throws {
        if scenes == (cuts != nil) { throw ValidationError("say where to cut: --scenes, or --cuts FILE") }
        if !exact {
            let needExact = [(effects != nil, "-e"), (crf != nil, "--crf"), (preset != nil, "--preset")].filter(\.0).map(\.1)
            if let first = needExact.first { throw ValidationError("\(first) needs --exact: a split by copy keeps the pictures as they are") }
        }
        guard Self.number(in: output) != nil else {
            throw ValidationError("-o: '\(output)' needs {n} or {n:03} for the scene's number, so that each scene has a file of its own")
        }
        if output == "-" { throw ValidationError("-o: a split writes files, one a scene") }
    }

    /// The most files one split writes.
    static let mostScenes = 10_000

    /// The `{n}` or `{n:0W}` in `pattern`: its range and the width to pad to.
    static func number(in pattern: String) -> (range: Range<String.Index>, width: Int)? {
        if let r = pattern.range(of: "{n}") { return (r, 0) }
        guard let r = pattern.range(of: #"\{n:0?[1-9]\}"#, options: .regularExpression) else { return nil }
        return (r, Int(String(pattern[r].dropFirst(3).dropLast().filter(\.isNumber))) ?? 0)
    }

    /// The output name of scene `n`.
    func name(_ n: Int) -> String {
        guard let (range, width) = Self.number(in: output) else { return output }
        let digits = String(n)
        return output.replacingCharacters(in: range, with: String(repeating: "0", count: max(0, width - digits.count)) + digits)
    }

    func run() throws {
        if !exact { return try copy() }
        let chain = try EffectChainParsing.chain(effects)
        let interruption = Interruption()
        defer { interruption.end() }
        var configuration = source.configuration(quiet: quiet)
        fps.apply(to: &configuration)
        configuration.prefetch = 0
        configuration.decoderThreads = 1
        let cutList = try CutTimes.named(cuts ?? "scenes", input: input, source: source, option: cuts == nil ? "--scenes" : "--cuts",
                                         configuration: configuration)
        // The whole render's length in ticks, and the ticks each scene begins at.
        let probe = try FrameSource(input: try source.input(input, access: .seekable), configuration: configuration)
        configuration.frameRate = probe.configuration.frameRate  // --fps source: the input's, found
        configuration.rateFromSource = false
        let total = configuration.expectedTicks(for: probe.info).map(Int64.init)
        let hasAudio = !probe.info.audio.isEmpty
        let kept = RenderPlan.sourceMetadata(of: probe.info).chosen(metadata, redacting: DetectionStage.redacts(chain))
        probe.close()
        guard let total, total > 0 else {
            throw CommandFailure(message: "\(input): its length is unknown (a live stream?), so it cannot be split")
        }
        let starts = [Int64(0)] + cutList.ticks(start: configuration.start, length: configuration.duration, speed: Rational(1),
                                                frameRate: configuration.frameRate, total: total).sorted()
        // A file per scene: a cut list of a million times is not a million files.
        guard starts.count <= Self.mostScenes else {
            throw CommandFailure(message: "\(cuts ?? input): \(starts.count) scenes; split writes at most \(Self.mostScenes) files", code: 2)
        }
        let bounds = starts + [total]
        let names = (1...starts.count).map(name)
        for file in names { try OutputSafety.check(output: file, input: input, overwrite: yes) }

        var frames = 0
        for (i, file) in names.enumerated() {
            let (first, end) = (bounds[i], bounds[i + 1])
            let media = try source.input(input, access: noAudio || !hasAudio ? .seekable : .shared)
            let frameSource = try FrameSource(input: media, configuration: configuration) { _ in first..<end }
            defer { frameSource.close() }
            let span = frameSource.span
            let sceneConfiguration = frameSource.configuration
            chain?.describeOutput(frameRate: configuration.frameRate, ticks: Int(total), input: input)
            var settings = EncoderSink.Settings(output: file)
            settings.overwrite = yes
            settings.crf = crf
            settings.preset = preset
            settings.frameRate = configuration.frameRate
            settings.sourceMetadata = kept
            let stop = StopSignal()
            settings.stop = stop
            // The scene's stretch of the source, as the segment's pictures are.
            if !noAudio && hasAudio { settings.keepSound(of: media, playedAs: sceneConfiguration, chain: chain) }
            let sink = try EncoderSink(settings: settings)
            let stage = try DetectionStage.make(chain: chain, settings: DetectionSettings(), reviewed: nil,
                                                frameRate: configuration.frameRate.seconds, overwrite: yes)
            stage?.tickShift = span?.shift ?? 0
            interruption.arm {
                frameSource.stop()
                stop.request()
            }
            let renderer = Renderer(chain: chain, detection: stage, sink: sink)
            if let span { renderer.window = .init(shift: span.shift, first: span.first, frameRate: configuration.frameRate) }
            renderer.keepsStoppedOutput = false
            renderer.isStopped = { interruption.signal != nil }
            let outcome = try renderer.run(frameSource)
            if let signal = interruption.signal {
                Console.note("interrupted in scene \(i + 1); wrote \(Console.count(i, "scene")) whole, nothing of scene \(i + 1)")
                throw ExitCode(128 + signal)
            }
            frames += outcome.frames
        }
        if !quiet {
            let span = names.count == 1 ? names[0] : "\(names[0]) … \(names[names.count - 1])"
            Console.note("wrote \(Console.count(names.count, "scene")): \(span), \(Console.count(frames, "frame")), "
                         + String(format: "%.2f s", Double(frames) / configuration.frameRate.seconds))
        }
    }

    /// The split by stream copy: a file a scene, each from the key frame nearest its cut.
    private func copy() throws {
        let interruption = Interruption()
        defer { interruption.end() }
        let configuration = source.configuration(quiet: quiet)
        if configuration.start != Rational(0) || configuration.duration != nil {
            throw CommandFailure(message: "--start and --duration need --exact: a split by copy takes the whole clip", code: 64)
        }
        let media = try source.input(input, access: .seekable)
        guard !media.isStandardInput, !media.isLive else {
            throw CommandFailure(message: "\(input): a split by copy reads the file twice; give a file or a URL", code: 2)
        }
        // What the file is, before any cut list is read or scan made.
        let info = try StillReader(input: media, configuration: configuration).info
        guard !info.isStillImage else { throw CommandFailure(message: "\(input): a still image has no scenes to split") }
        let cutList = try CutTimes.named(cuts ?? "scenes", input: input, source: source, option: cuts == nil ? "--scenes" : "--cuts",
                                         configuration: configuration)
        guard cutList.seconds.count < Self.mostScenes else {
            throw CommandFailure(message: "\(cuts ?? input): \(cutList.seconds.count + 1) scenes; split writes at most \(Self.mostScenes) files", code: 2)
        }
        // Every name a piece may take, checked as --exact checks them (never the input, a folder or a link's target).
        for n in 1...(cutList.seconds.count + 1) { try OutputSafety.check(output: name(n), input: input, overwrite: yes) }
        let split = CopySplit(input: media.location, cuts: cutList.seconds)
        split.metadata = metadata
        let pieces: [CopySplit.Piece]
        do {
            pieces = try split.run(path: { name($0 + 1) }, overwrite: yes, audio: !noAudio, isStopped: { interruption.signal != nil })
        } catch {
            if let signal = interruption.signal {
                Console.note("interrupted; the scenes not yet whole were not written")
                throw ExitCode(128 + signal)
            }
            throw CommandFailure(message: error.description)
        }
        if !quiet {
            let names = pieces.map(\.path)
            let span = names.count == 1 ? names[0] : "\(names[0]) … \(names[names.count - 1])"
            let moved = cutList.seconds.filter { cut in !pieces.contains { abs($0.start - cut.seconds) <= 0.0005 } }.count
            Console.note("copied \(Console.count(pieces.count, "scene")): \(span), \(Console.count(pieces.reduce(0) { $0 + $1.pictures }, "picture"))"
                         + (moved > 0 ? "; \(moved) of the cuts moved to their nearest key frame (apply --keyframes-at scenes puts key frames there)" : ""))
        }
    }
}
