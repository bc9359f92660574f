import ArgumentParser
import Foundation
import FrameCore
import FrameSource

/// `vidfx plan IN --segments N`: the segments of a render, as JSON, for any scheduler.
struct Plan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the segments of a render as JSON, for a scheduler to run `apply --segment` on each.",
        discussion: """
        The render's ticks (after --start, --duration and --loop) split into N segments on tick boundaries, \
        or into segments of about S seconds. Each entry has the `--segment` argument to pass and its ticks; \
        `concat` is the command that joins them (with the timeline options given here). \
        scripts/render-parallel.sh and scripts/render-slurm.sbatch use it.
        """
    )

    @Argument(help: "Video file, http(s) URL.")
    var input: String

    @Option(parsing: .unconditional, help: "How many segments.")
    var segments: Int?

    @Option(name: .customLong("segment-seconds"), parsing: .unconditional, help: "Segments of about this many seconds instead.")
    var segmentSeconds: Double?

    @OptionGroup var timeline: TimelineOptions
    @OptionGroup var source: SourceOptions

    func validate() throws {
        guard (segments == nil) != (segmentSeconds == nil) else { throw ValidationError("give --segments N or --segment-seconds S") }
        if let n = segments, !(1...100_000).contains(n) { throw ValidationError("--segments: must be 1…100000") }
        if let s = segmentSeconds, !(s > 0 && s <= 1e6) { throw ValidationError("--segment-seconds: must be above 0") }
    }

    struct Entry: Encodable {
        var segment: String
        var firstTick: Int64
        var endTick: Int64
        var seconds: Double
    }

    struct Output: Encodable {
        var input: String
        var fps: String
        var ticks: Int64
        var seconds: Double
        var segments: [Entry]
    }

    func run() throws {
        let requested = self.source.configuration(timeline: timeline, quiet: true)
        let source = try FrameSource(input: self.source.input(input, access: .seekable), configuration: requested)
        let info = source.info
        let configuration = source.configuration  // --fps source: the rate found
        source.close()
        guard let total = configuration.expectedTicks(for: info).map(Int64.init), total > 0 else {
            throw CommandFailure(message: "\(input): the input does not say how long it is (a live stream?); segments need it")
        }
        let rate = configuration.frameRate
        let count = segments.map(Int64.init) ?? max(1, Int64((Double(total) / (segmentSeconds! * rate.seconds)).rounded()))
        let n = min(count, total)
        let list = (1...n).map { i in
            let s = SegmentArgument(argument: "\(i)/\(n)")!
            let (first, end) = s.ticks(of: total)
            return Entry(segment: "\(i)/\(n)", firstTick: first, endTick: end, seconds: Double(end - first) / rate.seconds)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let out = Output(input: input, fps: rate.description, ticks: total, seconds: Double(total) / rate.seconds, segments: list)
        try Console.output(try encoder.encode(out) + Data("\n".utf8))
    }
}
