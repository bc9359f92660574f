import ArgumentParser
import Foundation
import FrameCore
import FrameSource
import MediaInput
import Sinks

/// `vidfx storyboard INPUT -o DIR`: sprite sheets and the WebVTT thumbnail track that web
/// players show while scrubbing.
struct StoryboardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storyboard",
        abstract: "Write scrubbing thumbnails: sprite JPEGs and a WebVTT track (thumbnails.vtt) for web players.",
        discussion: """
        One thumbnail every --interval seconds, tiled --tile columns by rows into DIR/sprite_1.jpg, sprite_2.jpg…;
        DIR/thumbnails.vtt has a cue per thumbnail, sprite_N.jpg#xywh=x,y,w,h, covering the whole clip, and
        DIR/storyboard.json says which picture each tile shows: the first picture that starts within its interval \
        (the one on screen at its time when one picture lasts through it; the decoder seeks from tile to tile), \
        or with --fast the key frame nearest it (only key frames are decoded).
        """
    )

    @Argument(help: "Video file, http(s) URL, or - for standard input.")
    var input: String

    @Option(name: .shortAndLong, help: "Output folder.")
    var output: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds between thumbnails.", valueName: "seconds"))
    var interval = TimeArgument(argument: "10")!

    @Option(parsing: .unconditional, help: ArgumentHelp("Thumbnail width in pixels (the height keeps the aspect).", valueName: "pixels"))
    var width = 160

    @Option(help: ArgumentHelp("Thumbnails per sprite, columns x rows.", valueName: "CxR"))
    var tile = "5x5"

    @Flag(help: "Show the key frame nearest each time, not the picture on screen then (decodes only key frames).")
    var fast = false

    // The default since 2026-11-29; kept so that earlier command lines still run.
    @Flag(help: .hidden)
    var exact = false

    /// Whether each tile is the picture on screen at its time.
    var showsExact: Bool { !fast }

    @Option(parsing: .unconditional, help: "JPEG quality, 1–100.")
    var quality = 80

    @OptionGroup var range: ClipRangeOptions

    @Flag(name: .shortAndLong, help: "Replace an earlier storyboard in the folder.")
    var yes = false

    @Flag(name: .shortAndLong, help: "No messages except errors.")
    var quiet = false

    @OptionGroup var source: SourceOptions

    var grid: (columns: Int, rows: Int)? { Tiles.grid(tile, limit: 50) }

    func validate() throws {
        if grid == nil { throw ValidationError("--tile: '\(tile)' is not CxR with 1…50 each (5x5)") }
        if !(16...1920).contains(width) { throw ValidationError("--width must be 16…1920") }
        if !(1...100).contains(quality) { throw ValidationError("--quality must be 1…100") }
        if interval.value <= Rational(0) || interval.value < Rational(1, 10) { throw ValidationError("--interval must be at least 0.1 s") }
        if fast && exact { throw ValidationError("--fast and --exact: choose one (exact is the default)") }
    }

    /// A thumbnail: the tile's time on the clip's timeline and the picture shown.
    struct Tile: Codable {
        var time: Double
        var sourceTime: Double
        var sprite: String
        var x: Int, y: Int
    }

    struct Manifest: Codable {
        var input: String
        var interval: Double
        var width: Int, height: Int
        var columns: Int, rows: Int
        var exact: Bool
        var tiles: [Tile]
    }

    func run() throws {
        let interruption = Interruption()
        defer { interruption.end() }
        let grid = grid!
        try OutputSafety.check(output: output, input: input, overwrite: yes, folder: true)
        let fm = FileManager.default
        var isDir: ObjCBool = false
        let existing = fm.fileExists(atPath: output, isDirectory: &isDir)
        if existing && !isDir.boolValue { throw CommandFailure(message: "\(output): exists and is not a folder") }
        if existing && !yes && !((try? fm.contentsOfDirectory(atPath: output)) ?? []).isEmpty {
            throw CommandFailure(message: "\(output): folder is not empty (use -y to replace its storyboard)")
        }

        let media = try self.source.input(input, access: .seekable)
        var configuration = self.source.configuration(quiet: quiet)
        let from = range.start?.value ?? Rational(0)
        configuration.start = from
        configuration.duration = range.duration?.value
        // One decoder seeks from tile to tile: to the picture at each time, or (--fast),
        // decoding key frames only, to the key frame nearest it.
        if fast { configuration.keyFramesOnly = true }
        let stills = try StillReader(input: media, configuration: configuration)
        let info = stills.info
        guard !info.isStillImage else { throw CommandFailure(message: "\(input): a still image has no timeline to storyboard") }
        guard let total = info.duration else {
            throw CommandFailure(message: "\(input): its duration is unknown (a live stream?); give --duration")
        }
        let span = range.duration.map { min($0.value.seconds, total - from.seconds) } ?? total - from.seconds
        guard span > 0 else { throw CommandFailure(message: "\(input): --start \(from.seconds) s is at or past the end (\(String(format: "%.3f", total)) s)", code: 2) }
        let step = interval.value.seconds
        let count = max(1, Int((span / step - 1e-9).rounded(.up)))  // tiles at 0, step, 2·step… before the end
        let tileWidth = width
        var tileHeight = 0
        let perSprite = grid.columns * grid.rows

        AtomicOutput.removeStaleWork(besides: output)
        let work = AtomicOutput.workPath(for: output)
        do { try fm.createDirectory(atPath: work, withIntermediateDirectories: false) } catch {
            throw CommandFailure(message: "\(output): cannot create the folder (\(error.localizedDescription))")
        }
        var published = false
        defer { if !published { try? fm.removeItem(atPath: work) } }

        var sprite: Frame?
        var tiles: [Tile] = []
        func spriteName(_ n: Int) -> String { "sprite_\(n + 1).jpg" }
        func flushSprite() throws {
            guard let s = sprite else { return }
            let n = (tiles.count - 1) / perSprite
            let used = tiles.count - n * perSprite
            let rows = (used + grid.columns - 1) / grid.columns
            // The last sprite is only as tall as its rows.
            let out = rows == grid.rows ? s : Tiles.topRows(s, height: rows * tileHeight)
            try ImageWriter.write(out, to: work + "/" + spriteName(n), as: .jpeg(quality: quality))
            sprite = nil
        }
        // Tiles closer together than key frames repeat a picture: scaled once.
        var lastTile: (source: Rational, small: Frame)?
        func place(_ picture: Frame) throws {
            if tileHeight == 0 {
                tileHeight = max(2, Int((Double(tileWidth) * Double(picture.height) / Double(max(1, picture.width))).rounded()))
            }
            let index = tiles.count
            let slot = index % perSprite
            if slot == 0 { sprite = Frame(width: grid.columns * tileWidth, height: grid.rows * tileHeight) ; clear(&sprite!) }
            let small = lastTile?.source == picture.sourceTime ? lastTile!.small : FrameScaler.resize(picture, width: tileWidth, height: tileHeight)
            lastTile = (picture.sourceTime, small)
            let (x, y) = (slot % grid.columns * tileWidth, slot / grid.columns * tileHeight)
            Tiles.place(small, into: &sprite!, x: x, y: y)
            tiles.append(Tile(time: from.seconds + Double(index) * step, sourceTime: picture.sourceTime.seconds,
                              sprite: spriteName(index / perSprite), x: x, y: y))
            if slot == perSprite - 1 { try flushSprite() }
        }

        // Tile k is at start + k·interval: the first picture that starts within its interval
        // (the one on screen at its time when a picture is held through it), or (--fast)
        // the key frame nearest it within the range.
        let rangeEnd = range.duration.map { from + $0.value }
        while tiles.count < count, interruption.signal == nil {
            let t = from + interval.value * Int64(tiles.count)
            let end = rangeEnd.map { min($0, t + interval.value) } ?? t + interval.value
            guard let frame = showsExact ? try stills.picture(startingFrom: t, before: end)
                                         : try stills.keyFrame(nearest: t, notBefore: from, before: rangeEnd) else { break }
            try place(frame)
        }
        if let sig = interruption.signal {
            Console.note("interrupted; nothing written to \(output)")
            throw ExitCode(128 + sig)
        }
        guard !tiles.isEmpty else { throw CommandFailure(message: "\(input): no pictures could be read for the storyboard") }
        // A clip that ends early (truncated) still gets a cue for every tile it has: the last picture repeats.
        try flushSprite()

        let end = from.seconds + span
        var vtt = "WEBVTT\n"
        for t in tiles {
            let cueEnd = min(end, t.time + step)
            vtt += "\n\(Self.timestamp(t.time)) --> \(Self.timestamp(cueEnd))\n\(t.sprite)#xywh=\(t.x),\(t.y),\(tileWidth),\(tileHeight)\n"
        }
        let manifest = Manifest(input: input, interval: step, width: tileWidth, height: tileHeight, columns: grid.columns, rows: grid.rows,
                                exact: showsExact, tiles: tiles)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            try Data(vtt.utf8).write(to: URL(fileURLWithPath: work + "/thumbnails.vtt"))
            try encoder.encode(manifest).write(to: URL(fileURLWithPath: work + "/storyboard.json"))
        } catch { throw CommandFailure(message: "\(output): cannot write the track (\(error.localizedDescription))") }

        do {
            if existing {
                // Into the folder the user named: the old storyboard gives way, anything else
                // stays; the track last, so that it never names a sprite not yet in place.
                try AtomicOutput.merge(work, into: output, belongs: { $0.hasPrefix("sprite_") || $0 == "thumbnails.vtt" || $0 == "storyboard.json" },
                                       last: { $0 == "thumbnails.vtt" })
            } else {
                try AtomicOutput.publish(work, to: output, overwrite: false)
            }
            published = true
        }
        if !quiet {
            let sprites = (tiles.count + perSprite - 1) / perSprite
            Console.note("\(Console.count(tiles.count, "thumbnail")) of \(tileWidth)x\(tileHeight) every \(String(format: "%g", step)) s"
                         + " in \(Console.count(sprites, "sprite")) (\(showsExact ? "exact" : "nearest key frames")) -> \(output)/thumbnails.vtt")
        }
    }

    /// WebVTT's HH:MM:SS.mmm.
    static func timestamp(_ seconds: Double) -> String {
        let ms = Int((max(0, seconds) * 1000).rounded())
        return String(format: "%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }

    private func clear(_ frame: inout Frame) {
        frame.withUnsafeMutableBytes { p in
            for i in stride(from: 0, to: p.count, by: 4) { p[i] = 0; p[i + 1] = 0; p[i + 2] = 0; p[i + 3] = 255 }
        }
    }
}
