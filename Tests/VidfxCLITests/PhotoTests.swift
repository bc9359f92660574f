import Foundation
import TestSupport
import Testing

/// Photos in, photos out (issue 48): `apply` with an image name writes one picture, the
/// same pixels `dump` gives, redaction and its report included; `batch` runs it over
/// many photos; a video is refused with one line and nothing written.
@Suite struct PhotoTests {
    /// The decoded RGB bytes and size of an image file, by ffmpeg.
    static func pixels(_ path: String) async throws -> Data {
        try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-frames:v", "1",
                                                     "-pix_fmt", "rgb24", "-f", "rawvideo", "-"])
    }

    static func codec(_ path: String) async throws -> String {
        let out = try await Subprocess.output("/usr/bin/env", ["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,width,height",
                                                               "-of", "csv=p=0", path])
        return String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aRedactedPhotoIsDumpsPictureWithItsReport() async throws {
        let scratch = Scratch()
        let photo = scratch.path("redacted.png"), folder = scratch.path("frames")
        var r = try await CLI.run(["apply", CLI.media("crowd.jpg"), "-e", "faceblur", "-o", photo])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("wrote \(photo): 800x564 png"), "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: scratch.path("redacted.redaction.json")), "\(scratch.contents)")
        r = try await CLI.run(["dump", CLI.media("crowd.jpg"), "-e", "faceblur", "-o", folder])
        #expect(r.status == 0, "\(r.stderr)")
        let ours = try await Self.pixels(photo), dumped = try await Self.pixels(folder + "/frame_000000.png")
        let plain = try await Self.pixels(CLI.directory.appendingPathComponent(CLI.media("crowd.jpg")).path)
        #expect(ours.count == 800 * 564 * 3 && ours == dumped, "the photo is dump's picture")
        #expect(ours != plain, "the faces are redacted")
    }

    @Test(arguments: [("jpg", "mjpeg"), ("jpeg", "mjpeg"), ("webp", "webp"), ("png", "png")])
    func theNameChoosesTheFormat(ext: String, codec: String) async throws {
        let scratch = Scratch()
        let out = scratch.path("sepia.\(ext)")
        let r = try await CLI.run(["apply", CLI.media("still.jpg"), "-e", "sepia", "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let found = try await Self.codec(out)
        #expect(found.hasPrefix(codec + ","), "\(found)")
        #expect(scratch.contents == ["sepia.\(ext)"], "no work file is left: \(scratch.contents)")
    }

    /// `--size` on a photo: Lanczos by libavfilter's `scale`; fit keeps the shape inside the
    /// box with no bars, fill covers it and crops the middle, stretch gives the box. Each
    /// against ffmpeg's own scale of dump's picture.
    @Test(arguments: [("fit", "320x226", "scale=320:240:force_original_aspect_ratio=decrease:flags=lanczos"),
                      ("fill", "320x240", "scale=320:240:force_original_aspect_ratio=increase:flags=lanczos,crop=320:240"),
                      ("stretch", "320x240", "scale=320:240:flags=lanczos")])
    func sizeScalesAPhotoAsFfmpegsScaleDoes(fit: String, size: String, filter: String) async throws {
        let scratch = Scratch()
        let photo = scratch.path("small.png"), folder = scratch.path("frames"), theirs = scratch.path("theirs.png")
        var r = try await CLI.run(["apply", CLI.media("crowd.jpg"), "--size", "320x240", "--fit", fit, "-o", photo])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("wrote \(photo): \(size) png"), "\(r.stderr)")
        r = try await CLI.run(["dump", CLI.media("crowd.jpg"), "-o", folder])
        #expect(r.status == 0, "\(r.stderr)")
        _ = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", folder + "/frame_000000.png",
                                                        "-vf", "format=bgra,\(filter)", theirs])
        let a = try await Self.pixels(photo), b = try await Self.pixels(theirs)
        #expect(a.count == b.count && !a.isEmpty, "\(a.count) against \(b.count) bytes")
        let worst = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 255
        #expect(worst <= 1, "largest difference from ffmpeg's scale: \(worst)")
    }

    @Test func qualityChangesTheSize() async throws {
        let scratch = Scratch()
        for q in ["20", "95"] {
            let r = try await CLI.run(["apply", CLI.media("crowd.jpg"), "--quality", q, "-o", scratch.path("q\(q).jpg")])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let size = { (name: String) in (try? FileManager.default.attributesOfItem(atPath: scratch.path(name))[.size] as? Int) ?? 0 }
        #expect(size("q20.jpg") > 0 && size("q20.jpg") * 2 < size("q95.jpg"), "\(size("q20.jpg")) vs \(size("q95.jpg"))")
    }

    @Test(arguments: ["0", "101", "-5"])
    func aQualityOutOfRangeIsOneLine(quality: String) async throws {
        let scratch = Scratch()
        let r = try await CLI.run(["apply", CLI.media("still.jpg"), "--quality", quality, "-o", scratch.path("q.jpg")])
        #expect(r.status != 0 && r.stderr.contains("--quality must be 1…100"), "\(r.stderr)")
        #expect(scratch.contents.isEmpty)
    }

    @Test func aVideoIntoAnImageIsOneLineAndNothingWritten() async throws {
        let scratch = Scratch()
        let out = scratch.path("frame.png")
        let r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-o", out])
        #expect(r.status != 0)
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("an image holds one picture")
                && r.stderr.contains("h264-30fps.mp4") && r.stderr.contains("dump"), "\(r.stderr)")
        #expect(scratch.contents.isEmpty, "\(scratch.contents)")
        // Nothing the user had is replaced without -y.
        try Data("mine".utf8).write(to: URL(fileURLWithPath: out))
        let again = try await CLI.run(["apply", CLI.media("still.png"), "-o", out])
        #expect(again.status != 0 && again.stderr.contains("already exists"), "\(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data("mine".utf8))
    }

    @Test func batchWorksOverAFolderOfPhotos() async throws {
        let scratch = Scratch()
        let inputs = ["crowd.jpg", "still.png", "pitch.jpg"].map { CLI.media($0) }
        let r = try await CLI.run(["batch"] + inputs + ["-o", scratch.path("out/{name}.webp"), "-e", "vignette", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        for name in ["crowd", "still", "pitch"] {
            let found = try await Self.codec(scratch.path("out/\(name).webp"))
            #expect(found.hasPrefix("webp,"), "\(name): \(found)")
        }
    }
}
