import ArgumentParser
import Foundation
import FrameCore
import FrameSource
import MediaInput
import Render
import Scenes
import Sinks

/// `vidfx sheet INPUT -o sheet.png`: a contact sheet, the file at a glance.
struct SheetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sheet",
        abstract: "Write a contact sheet: a grid of representative frames with their times, under a header about the file.",
        discussion: """
        The frames are chosen as dump --count chooses them: the clip in equal parts, from each the sharpest of a few
        pictures that is neither dark nor flat. The header names the file, its duration, size, codecs and bit rate.
        """
    )

    @Argument(help: "Video file, http(s) URL, or - for standard input.")
    var input: String

    @Option(name: .shortAndLong, help: "The PNG (or .jpg) to write.")
    var output: String

    @Option(help: ArgumentHelp("Columns x rows.", valueName: "CxR"))
    var grid = "4x4"

    @Option(parsing: .unconditional, help: ArgumentHelp("Width of the sheet in pixels.", valueName: "pixels"))
    var width = 1280

    @OptionGroup var range: ClipRangeOptions

    @Flag(name: .shortAndLong, help: "Overwrite an existing output.")
    var yes = false

    @Flag(name: .shortAndLong, help: "No messages except errors.")
    var quiet = false

    @OptionGroup var source: SourceOptions

    var layout: (columns: Int, rows: Int)? { Tiles.grid(grid, limit: 20) }

    func validate() throws {
        if layout == nil { throw ValidationError("--grid: '\(grid)' is not CxR with 1…20 each (4x4)") }
        if !(320...8192).contains(width) { throw ValidationError("--width must be 320…8192") }
        let lower = output.lowercased()
        if !(lower.hasSuffix(".png") || lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg")) {
            throw ValidationError("-o: the sheet is a .png or .jpg file")
        }
    }

    static let gap = 6
    static let scale = 2

    func run() throws {
        let interruption = Interruption()
        defer { interruption.end() }
        let (columns, rows) = layout!
        try OutputSafety.check(output: output, input: input, overwrite: yes)
        let media = try self.source.input(input, access: .seekable)
        var configuration = self.source.configuration(quiet: quiet)
        configuration.start = range.start?.value ?? Rational(0)
        configuration.duration = range.duration?.value
        // One reader for the length and every picture looked at.
        let stills = try StillReader(input: media, configuration: configuration)
        let info = stills.info
        guard !info.isStillImage else { throw CommandFailure(message: "\(input): a still image has no frames to choose from") }
        let chooser = try RepresentativeFrames(reader: stills, configuration: configuration, count: columns * rows, input: input)

        let tileWidth = (width - Self.gap * (columns + 1)) / columns
        let tileHeight = max(2, Int((Double(tileWidth) * Double(info.height) / Double(max(1, info.width))).rounded()))
        let header = headerLines(info)
        let headerHeight = Self.gap + header.count * (Caption.lineHeight(scale: Self.scale) + 2 * Self.scale)
        var sheet = Frame(width: width, height: headerHeight + Self.gap + rows * (tileHeight + Self.gap))
        let stride = sheet.bytesPerRow / 4
        let (w, h) = (sheet.width, sheet.height)
        sheet.withUnsafeMutableBytes { raw in
            let p = raw.bindMemory(to: UInt32.self).baseAddress!
            for i in 0..<(stride * h) { p[i] = 0xFF20_2020 }  // dark grey, opaque
            for (i, line) in header.enumerated() {
                Caption.draw(line, into: p, stride: stride, width: w, height: h, x: Self.gap,
                             y: Self.gap + i * (Caption.lineHeight(scale: Self.scale) + 2 * Self.scale), scale: Self.scale)
            }
        }
        var placed = 0
        for slot in 0..<(columns * rows) {
            if interruption.signal != nil { break }
            guard let choice = try chooser.choose(slot: slot) else { continue }
            let tile = FrameScaler.resize(choice.frame, width: tileWidth, height: tileHeight)
            let x = Self.gap + (slot % columns) * (tileWidth + Self.gap)
            let y = headerHeight + Self.gap + (slot / columns) * (tileHeight + Self.gap)
            let label = SceneList.timecode(choice.time.seconds)
            Tiles.place(tile, into: &sheet, x: x, y: y)
            sheet.withUnsafeMutableBytes { raw in
                let p = raw.bindMemory(to: UInt32.self).baseAddress!
                let scale = tileWidth >= 200 ? Self.scale : 1
                Caption.draw(label, into: p, stride: stride, width: w, height: h, x: x + tileWidth - Caption.advance(scale: scale) * label.count - 2 * scale,
                             y: y + tileHeight - Caption.lineHeight(scale: scale) - 2 * scale, scale: scale, background: 0xC000_0000)
            }
            placed += 1
        }
        if let sig = interruption.signal {
            Console.note("interrupted; nothing written to \(output)")
            throw ExitCode(128 + sig)
        }
        guard placed > 0 else { throw CommandFailure(message: "\(input): no frames could be read for the sheet") }
        let work = AtomicOutput.workPath(for: output)
        let lower = output.lowercased()
        do {
            try ImageWriter.write(sheet, to: work, as: lower.hasSuffix(".png") ? .png : .jpeg(quality: 90))
            try AtomicOutput.publish(work, to: output, overwrite: yes)
        } catch {
            unlink(work)
            throw error
        }
        if !quiet { Console.note("\(Console.count(placed, "frame")) in \(columns)x\(rows), \(sheet.width)x\(sheet.height) -> \(output)") }
    }

    /// The header: name, then duration, size, codecs and bit rate (the font has capitals, digits and a little punctuation).
    private func headerLines(_ info: MediaInfo) -> [String] {
        let name = URL(fileURLWithPath: input).lastPathComponent
        let duration = info.duration.map { SceneList.timecode($0) } ?? "UNKNOWN"
        let rate = info.frameRate.map { String(format: "%g FPS", $0) } ?? ""
        var video = "VIDEO \(info.video.codec) \(info.width)X\(info.height) \(rate)"
        if info.video.bitDepth > 8 { video += " \(info.video.bitDepth)-BIT" }
        let audio = info.audio.first.map { "AUDIO \($0.codec) \($0.sampleRate / 1000) KHZ \($0.channels) CH" } ?? "NO AUDIO"
        let bits = info.bitRate.map { "\($0 / 1000) KB/S" } ?? ""
        return ["FILE: \(name)", "DURATION \(duration)   \(video)   \(audio)   \(bits)"]
    }
}
