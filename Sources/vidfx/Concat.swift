import ArgumentParser
import Effects
import Foundation
import FrameCore
import FrameSource
import MediaInput
import Sinks

/// `vidfx concat SEG… -o OUT --audio-from IN`: join segments rendered apart.
struct Concat: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join segments rendered with `apply --segment I/N` (on one machine or many) into one video, with the source's audio.",
        discussion: """
        Each segment carries a label (its number, its ticks and its render's fingerprint), so they are put in \
        order, and a missing, repeated or foreign segment is refused, naming it, before anything is written \
        (--force joins the files as given). The segments are joined by stream copy on one timeline; the audio is taken once \
        from --audio-from and cut as the whole render would cut it (give the same --start and --duration), so \
        there is no gap or click at the seams. With a lossless setting (--crf 0) the result decodes to the same \
        frames as a render on one machine.

        Example, four machines:
          vidfx apply talk.mp4 -e @grade.chain --segment 2/4 -o seg2.mkv     # on machine 2, and so on
          vidfx concat seg1.mkv seg2.mkv seg3.mkv seg4.mkv --audio-from talk.mp4 -o talk-graded.mp4
        """
    )

    @Argument(help: "The segments of one render (any order).")
    var segments: [String]

    @Option(name: .shortAndLong, help: "Output video file.")
    var output: String

    @Option(name: .customLong("audio-from"), help: "The source whose audio goes with the video (the input the segments were rendered from).")
    var audioFrom: String?

    @Option(parsing: .unconditional, help: "The cadence the segments were rendered at: 30, 29.97, 30000/1001…")
    var fps = RateArgument(Rational(30))

    @Option(parsing: .unconditional, help: "The render's --start, for the audio.")
    var start: TimeArgument?

    @Option(parsing: .unconditional, help: "The render's --duration, for the audio.")
    var duration: TimeArgument?

    @Option(parsing: .unconditional, help: "The render's --loop, for the audio.")
    var loop: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("The render's --speed, for the audio (its pitch kept, as apply keeps it).", valueName: "F"))
    var speed: RateArgument?

    @Option(name: [.customShort("e"), .customLong("effects")], help: "The render's chain, for the audio: its fades act on the sound as in the whole render.")
    var effects: String?

    @Option(help: "Container: mp4, mov, mkv, webm or ts (default: from the extension).")
    var container: OutputContainer?

    @Flag(name: .shortAndLong, help: "Overwrite an existing output.")
    var yes = false

    @Flag(help: "Join the files in the order given, labelled as segments of one render or not.")
    var force = false

    @Flag(name: .shortAndLong, help: "No messages except errors.")
    var quiet = false

    @OptionGroup var network: NetworkOptions

    func validate() throws {
        guard !segments.isEmpty else { throw ValidationError("no segments given") }
        try InputLimits.checkCount(loop, option: "--loop")
        if let speed, speed.value < FrameSource.Configuration.slowest || speed.value > FrameSource.Configuration.fastest {
            throw ValidationError("--speed must be between 0.25 and 8 (got \(speed.value.seconds))")
        }
        if let speed, speed.value != Rational(1), let loop, loop > 1 {
            throw ValidationError("--speed and --loop together are not joined yet: render those in one piece")
        }
    }

    func run() throws {
        for segment in segments {
            try OutputSafety.check(output: output, input: segment, overwrite: yes)
        }
        if let audioFrom { try OutputSafety.check(output: output, input: audioFrom, overwrite: yes) }
        var segments = self.segments
        if !force {
            segments = try SegmentLabel.order(segments)
            if segments != self.segments && !quiet { Console.note("joining in the render's order: " + segments.joined(separator: ", ")) }
        }
        let interruption = Interruption()
        defer { interruption.end() }
        var settings = SegmentJoiner.Settings(output: output)
        settings.overwrite = yes
        settings.container = container
        settings.frameRate = fps.value
        settings.audioStart = start?.value ?? Rational(0)
        settings.audioDuration = duration?.value
        let stop = StopSignal()
        settings.stop = stop
        if let audioFrom {
            let media: MediaInput
            media = try MediaInput(audioFrom, access: .seekable, network: network.settings)
            settings.audioInput = media
            if let loop, loop > 1 {
                // Each pass is the clip: --duration, or what the video has after --start.
                let start = settings.audioStart
                var length = settings.audioDuration
                if length == nil {
                    let source = try FrameSource(input: media)
                    defer { source.close() }
                    if let seconds = source.info.duration { length = Rational(Int64((seconds * 1_000_000).rounded()), 1_000_000) - start }
                }
                guard let length, length > Rational(0) else {
                    throw CommandFailure(message: "\(audioFrom): --loop needs the clip's length, which the input does not say; give --duration")
                }
                settings.passLength = length
            }
        }
        if let speed { settings.audioSpeed = speed.value }
        if let chain = try EffectChainParsing.chain(effects) {
            // A fade out needs the render's length: the last segment's label says it.
            let total = force ? nil : segments.last.flatMap { try? SegmentLabel.read(from: $0) }.map { Int($0.endTick) }
            if total == nil, chain.needsOutputDuration {
                throw CommandFailure(message: "-e: a fade out needs the render's length, which unlabelled segments (--force) do not say")
            }
            chain.describeOutput(frameRate: fps.value, ticks: total, input: audioFrom ?? "")
            settings.audioGain = chain.audioGain
        }
        interruption.arm { stop.request() }
        let summary: SegmentJoiner.Summary
        summary = try SegmentJoiner(settings: settings).join(segments)
        if let sig = interruption.signal { throw ExitCode(128 + sig) }
        if !quiet {
            for note in summary.notes { Console.note(note) }
            Console.note("wrote \(output): \(Console.count(summary.segments, "segment")), \(Console.count(summary.frames, "frame")), "
                         + String(format: "%.2f s", Double(summary.frames) / fps.value.seconds)
                         + (summary.audio.map { ", audio \($0)" } ?? ", no audio"))
        }
    }
}
