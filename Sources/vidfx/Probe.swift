import ArgumentParser
import Foundation
import FrameSource
import Synchronization

/// `vidfx probe INPUT`: what a media file contains.
struct Probe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what a video contains: size, rate, codecs, colour, rotation, audio."
    )

    @Argument(help: "Video or image file, http(s) URL, or - for standard input.")
    var input: String

    @Flag(help: "Print JSON for scripts instead of text.")
    var json = false

    @OptionGroup var source: SourceOptions

    func run() throws {
        // Standard input through a spool: seekable (an MP4 indexed at the end).
        let media = try self.source.input(input, access: .seekable)
        var configuration = self.source.configuration(quiet: true)
        let finding = Mutex<FrameSource.ScanFinding?>(nil)
        configuration.scanHandler = { found in finding.withLock { $0 = found } }
        let source = try FrameSource(input: media, configuration: configuration)  // a problem is the error
        defer { source.close() }
        var info = source.info
        // The stream's word on its scan can be wrong (interlaced footage encoded as
        // progressive): the first pictures are decoded and measured, as apply and dump
        // would, unless that is off or the input is a capture.
        if !info.isStillImage && !media.isLive && configuration.deinterlace == .auto && info.problem == nil {
            _ = try? source.nextFrame()
            info.video.measuredScan = Probe.measuredScan(finding.withLock { $0 }, stream: info.video.scan)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try Console.output(try encoder.encode(info) + Data("\n".utf8))
        } else {
            try Console.output(Data(Probe.describe(info).utf8))
        }
        if let problem = info.problem {
            throw CommandFailure(message: "\(input): \(problem)")
        }
    }

    /// What the first pictures showed, where it is news: it disagrees with the stream's
    /// `stream` scan, or that is unknown.
    static func measuredScan(_ finding: FrameSource.ScanFinding?, stream: String) -> String? {
        switch finding {
        case .measuredInterlaced(let top)?:
            let measured = "interlaced (\(top ? "top" : "bottom") field first)"
            return measured == stream ? nil : measured
        case .progressive? where stream == "unknown": return "progressive"
        default: return nil
        }
    }

    /// The human-readable summary.
    static func describe(_ info: MediaInfo) -> String {
        let v = info.video
        var lines: [String] = []
        func row(_ key: String, _ value: String) { lines.append(key.padding(toLength: 12, withPad: " ", startingAt: 0) + value) }
        row("input", info.input)
        row("container", info.container)
        if let d = info.duration { row("duration", String(format: "%.3f s", d)) }
        var size = "\(info.width)x\(info.height)"
        if v.codedWidth != info.width || v.codedHeight != info.height {
            size += " (stored \(v.codedWidth)x\(v.codedHeight)" + (v.sampleAspectRatio == "1:1" ? ")" : ", pixel aspect \(v.sampleAspectRatio))")
        }
        row("size", size)
        if info.isStillImage {
            row("frames", "1 (still image)")
        } else {
            var rate = v.frameRate.map { "\($0) fps" } ?? "unknown"
            if let r = info.frameRate, v.frameRate?.contains("/") == true { rate += String(format: " (%.3f)", r) }
            if let count = v.frameCount { rate += ", \(Console.count(count, "frame"))" }
            row("rate", rate)
        }
        var orientation = info.rotation == 0 ? "upright" : "rotated \(info.rotation)° clockwise"
        if info.mirrored { orientation += ", mirrored" }
        row("orientation", orientation)
        var codec = v.codec
        if let p = v.profile { codec += " (\(p))" }
        codec += ", \(v.pixelFormat), \(v.bitDepth)-bit"
        row("video", "#\(v.index) \(codec)")
        row("colour", "tagged \(v.colorMatrix)/\(v.colorRange) (primaries \(v.colorPrimaries), transfer \(v.colorTransfer)); decoded as \(v.decodeMatrix) \(v.decodeRange)")
        if let hdr = v.hdr {
            row("hdr", v.toneMap.map { "\(hdr), tone-mapped to SDR BT.709 (\($0))" }
                ?? "\(hdr), not tone-mapped (--tonemap off): frames look flat and pale")
        }
        if let measured = v.measuredScan {
            let action = measured == "progressive" ? "left as it is" : "deinterlaced (--deinterlace off to keep it as it is)"
            row("scan", "\(v.scan) by the stream; \(measured) by its first pictures: \(action)")
        } else {
            row("scan", v.scan)
        }
        row("alpha", v.hasAlpha ? "yes (kept by dump to PNG and apply to .mov --codec prores or .webm; composited over --background otherwise)" : "no")
        if info.audio.isEmpty { row("audio", "none") }
        for a in info.audio {
            var text = "#\(a.index) \(a.codec), \(a.sampleRate) Hz, \(a.channelLayout ?? "\(a.channels) channels")"
            if let d = a.duration { text += String(format: ", %.3f s", d) }
            if let l = a.language, l != "und" { text += ", \(l)" }
            row("audio", text)
        }
        if let b = info.bitRate, b > 0 { row("bit rate", "\(b / 1000) kb/s") }  // playlists report 0
        return lines.joined(separator: "\n") + "\n"
    }
}
