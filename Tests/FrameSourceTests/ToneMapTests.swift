import Foundation
import FrameCore
import FrameSource
import TestSupport
import Testing

/// HDR video made here from the crowd clip the way phones and graders carry SDR
/// content in HDR (BT.2408: reference white at 203 nits), 318x180 so that the table's
/// eight- and four-pixel loops also have tails (312 + 4 + 2), and tone-mapped back.
@Suite struct ToneMapTests {
    /// A scratch folder with the SDR original and its HLG and PQ versions.
    final class Clips: Sendable {
        let scratch: ScratchDirectory
        init() throws { scratch = try ScratchDirectory("vidfx-hdr") }
        func path(_ name: String) -> String { scratch.path(name) }

        /// The first frame of the crowd clip at 318x180 as BGRA, the SDR original.
        func original() async throws -> Data {
            try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", TestMedia.path("crowd.mp4"), "-frames:v", "1",
                                                   "-vf", "scale=318:180,setsar=1,format=bgra", "-f", "rawvideo", "-"])
        }

        /// The crowd clip as 10-bit HEVC with `transfer` (arib-std-b67 or smpte2084).
        /// `tagFrames: false` leaves the bitstream untagged: only the container says HDR.
        func make(_ name: String, transfer: String, tagFrames: Bool = true, extra: String = "") async throws -> String {
            let tags = tagFrames ? "colorprim=bt2020:transfer=\(transfer):colormatrix=bt2020nc:" : ""
            _ = try await Subprocess.output("/usr/bin/env", [
                "ffmpeg", "-nostdin", "-v", "error", "-y", "-i", TestMedia.path("crowd.mp4"), "-t", "0.2",
                "-vf", "scale=318:180,setsar=1,format=yuv444p16le,zscale=tin=bt709:min=bt709:pin=bt709:rin=tv:t=\(transfer):m=bt2020nc:p=bt2020:r=tv:npl=203,format=yuv420p10le",
                "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error:\(tags)\(extra)",
                "-color_primaries", "bt2020", "-color_trc", transfer, "-colorspace", "bt2020nc", path(name)])
            return path(name)
        }
    }

    static func firstFrame(_ path: String, _ configure: (inout FrameSource.Configuration) -> Void = { _ in }) throws -> Frame {
        var configuration = FrameSource.Configuration()
        configure(&configuration)
        let source = try FrameSource(path, configuration: configuration)
        defer { source.close() }
        return try #require(try source.nextFrame())
    }

    /// PSNR over B, G and R of two BGRA pictures of the same size.
    static func psnr(_ a: Frame, _ b: Data) -> Double {
        var squares = 0.0
        a.withUnsafeBytes { p in
            b.withUnsafeBytes { q in
                for y in 0..<a.height {
                    for x in 0..<a.width {
                        for c in 0..<3 {
                            let d = Double(p[y * a.bytesPerRow + 4 * x + c]) - Double(q[(y * a.width + x) * 4 + c])
                            squares += d * d
                        }
                    }
                }
            }
        }
        let mse = squares / Double(a.width * a.height * 3)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }

    static func bgra(_ frame: Frame) -> Data {
        var data = Data(capacity: frame.width * frame.height * 4)
        frame.withUnsafeBytes { p in
            for y in 0..<frame.height { data.append(contentsOf: p[(y * frame.bytesPerRow)..<(y * frame.bytesPerRow + frame.width * 4)]) }
        }
        return data
    }

    @Test(arguments: ["arib-std-b67", "smpte2084"])
    func tableMatchesTheLibavfilterReference(transfer: String) async throws {
        let clips = try Clips()
        let clip = try await clips.make("hdr.mkv", transfer: transfer)
        let table = try Self.firstFrame(clip)
        let reference = try Self.firstFrame(clip) { $0.toneMapEngine = .libavfilter }
        let inProcess = Self.psnr(table, Self.bgra(reference))
        #expect(inProcess >= 45, "table vs vidfx's libavfilter engine: \(inProcess) dB")
        // The same chain run by the ffmpeg CLI (whose last step to 8 bits is swscale's).
        let cli = try await Subprocess.output("/usr/bin/env", [
            "ffmpeg", "-nostdin", "-v", "error", "-i", clip, "-frames:v", "1", "-vf",
            "zscale=t=linear:npl=203,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=mobius:desat=0:peak=\(1000.0 / 203),"
                + "zscale=t=bt709:m=bt709:r=pc,format=bgra", "-f", "rawvideo", "-"])
        let againstFFmpeg = Self.psnr(table, cli)
        #expect(againstFFmpeg >= 40, "table vs ffmpeg's zscale,tonemap: \(againstFFmpeg) dB")
    }

    @Test(arguments: ["arib-std-b67", "smpte2084"])
    func toneMappedFramesComeBackCloseToTheSDROriginal(transfer: String) async throws {
        let clips = try Clips()
        let clip = try await clips.make("hdr.mkv", transfer: transfer)
        let original = try await clips.original()
        let mapped = Self.psnr(try Self.firstFrame(clip), original)
        let plain = Self.psnr(try Self.firstFrame(clip) { $0.toneMapping = .off }, original)
        // Measured at 1080p: 30 (HLG) and 29 dB (PQ) tone-mapped, 23 dB plain.
        #expect(mapped >= 22, "tone-mapped: \(mapped) dB")
        #expect(mapped >= plain + 3, "tone-mapped \(mapped) dB, plain \(plain) dB")
    }

    @Test func everyOperatorRunsAndTheyDiffer() async throws {
        let clips = try Clips()
        let clip = try await clips.make("pq.mkv", transfer: "smpte2084", extra: "max-cll=1000,400")
        var seen: [Data] = []
        for mapping in [FrameSource.ToneMapping.mobius, .hable, .reinhard, .clip] {
            let frame = Self.bgra(try Self.firstFrame(clip) { $0.toneMapping = mapping })
            #expect(!seen.contains(frame), "\(mapping) gives the same picture as another operator")
            seen.append(frame)
        }
        // A lower peak brightens: the same light is a larger share of it (Hable's curve
        // scales everything by its value at the peak).
        func mean(_ d: Data) -> Double { d.enumerated().reduce(0.0) { $0 + ($1.offset % 4 == 3 ? 0 : Double($1.element)) } / Double(d.count) }
        let dim = mean(Self.bgra(try Self.firstFrame(clip) { $0.peakNits = 4000; $0.toneMapping = .hable }))
        let bright = mean(Self.bgra(try Self.firstFrame(clip) { $0.peakNits = 400; $0.toneMapping = .hable }))
        #expect(bright > dim + 2, "peak 400: \(bright), peak 4000: \(dim)")
    }

    /// Phones store portrait HDR video landscape with a rotation: the tone map stores each
    /// pixel at its turned place as it goes, and must give exactly the upright picture,
    /// turned. The same bitstream is remuxed with each display rotation.
    @Test(arguments: [90, 180, 270])
    func rotatedHDRIsTheUprightPictureTurned(rotation: Int) async throws {
        let clips = try Clips()
        let upright = try await clips.make("upright.mov", transfer: "arib-std-b67")
        let turned = clips.path("turned-\(rotation).mov")
        // The rotate tag is the angle to turn back (counter-clockwise), as phones write it.
        _ = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", upright, "-c", "copy",
                                                        "-metadata:s:v:0", "rotate=\(360 - rotation)", turned])
        let a = try Self.firstFrame(upright), b = try Self.firstFrame(turned)
        let swaps = rotation != 180
        #expect((b.width, b.height) == (swaps ? (a.height, a.width) : (a.width, a.height)))
        // Upright (x, y) shows at the turned picture's (X, Y), clockwise by `rotation`.
        func place(_ x: Int, _ y: Int) -> (Int, Int) {
            switch rotation {
            case 90: return (a.height - 1 - y, x)
            case 180: return (a.width - 1 - x, a.height - 1 - y)
            default: return (y, a.width - 1 - x)
            }
        }
        var differing = 0
        a.withUnsafeBytes { p in
            b.withUnsafeBytes { q in
                for y in 0..<a.height {
                    for x in 0..<a.width {
                        let (X, Y) = place(x, y)
                        for c in 0..<4 where p[y * a.bytesPerRow + 4 * x + c] != q[Y * b.bytesPerRow + 4 * X + c] { differing += 1 }
                    }
                }
            }
        }
        #expect(differing == 0, "\(differing) bytes differ from the upright picture turned \(rotation)°")
    }

    @Test func untaggedFramesTakeTheStreamTags() async throws {
        let clips = try Clips()
        let tagged = try await clips.make("tagged.mkv", transfer: "arib-std-b67")
        let untagged = try await clips.make("untagged.mkv", transfer: "arib-std-b67", tagFrames: false)
        let a = try Self.firstFrame(tagged), b = try Self.firstFrame(untagged)
        #expect(Self.psnr(a, Self.bgra(b)) >= 45)
        let plain = try Self.firstFrame(untagged) { $0.toneMapping = .off }
        #expect(Self.psnr(b, Self.bgra(plain)) < 35, "the untagged frames were tone-mapped")
    }
}
