import Foundation
import TestSupport
import Testing

/// The source's metadata (issue 67, item 8): a phone clip's creation time, make, model,
/// location and stream languages are kept; `--metadata strip` drops them; a redaction
/// leaves out the location by default and says so.
@Suite struct MetadataTests {
    static let location = "+48.8584+002.2945/"

    /// A clip tagged as a phone tags it (MP4 with QuickTime's keys).
    static func phoneClip(in scratch: borrowing Scratch) async throws -> String {
        let path = scratch.path("phone.mp4")
        _ = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=1",
            "-f", "lavfi", "-i", "sine=d=1", "-c:v", "libx264", "-g", "15", "-c:a", "aac",
            "-metadata", "creation_time=2026-05-01T10:20:30.000000Z", "-metadata", "location=\(location)",
            "-metadata", "make=Google", "-metadata", "model=Pixel 8",
            "-metadata", "com.apple.quicktime.location.ISO6709=+48.8584+002.2945+035.000/",
            "-metadata:s:v:0", "language=eng", "-metadata:s:a:0", "language=fra", "-movflags", "use_metadata_tags", path])
        return path
    }

    /// ffprobe's tags: the container's, the video stream's, the audio stream's.
    static func tags(_ path: String) async throws -> (format: [String: String], video: [String: String], audio: [String: String]) {
        let data = try await Subprocess.output("/usr/bin/env", ["ffprobe", "-v", "error", "-show_entries",
            "format_tags:stream=codec_type:stream_tags", "-of", "json", path])
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        func lowered(_ tags: Any?) -> [String: String] {
            Dictionary(((tags as? [String: Any]) ?? [:]).map { ($0.key.lowercased(), "\($0.value)") }, uniquingKeysWith: { a, _ in a })
        }
        let streams = json["streams"] as? [[String: Any]] ?? []
        let video = streams.first { $0["codec_type"] as? String == "video" }?["tags"]
        let audio = streams.first { $0["codec_type"] as? String == "audio" }?["tags"]
        return (lowered((json["format"] as? [String: Any])?["tags"]), lowered(video), lowered(audio))
    }

    @Test(arguments: ["mp4", "mov", "mkv"])
    func aPhoneClipsTagsAreKept(container: String) async throws {
        let scratch = Scratch()
        let clip = try await Self.phoneClip(in: scratch)
        let out = scratch.path("out.\(container)")
        let r = try await CLI.run(["apply", clip, "-e", "sepia", "-o", out, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let t = try await Self.tags(out)
        #expect(t.format["creation_time"] == "2026-05-01T10:20:30.000000Z", "\(t.format)")
        #expect(t.format["make"] == "Google" && t.format["model"] == "Pixel 8", "\(t.format)")
        #expect(t.format["location"] == Self.location && t.format["com.apple.quicktime.location.iso6709"] != nil, "\(t.format)")
        #expect(t.video["language"] == "eng" && t.audio["language"] == "fra", "\(t.video) \(t.audio)")
        // What described the input's encoding is the output's own.
        #expect(t.format["encoder"]?.hasPrefix("Lavf") ?? true)
    }

    @Test func stripLeavesNone() async throws {
        let scratch = Scratch()
        let clip = try await Self.phoneClip(in: scratch)
        let out = scratch.path("out.mp4")
        let r = try await CLI.run(["apply", clip, "--metadata", "strip", "-o", out, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let t = try await Self.tags(out)
        for key in ["creation_time", "make", "model", "location", "location-eng", "com.apple.quicktime.location.iso6709"] {
            #expect(t.format[key] == nil, "\(key) kept: \(t.format)")
        }
        #expect(t.video["language"] != "eng" && t.audio["language"] != "fra")
    }

    @Test func aRedactionLeavesOutTheLocationAndSaysSo() async throws {
        let scratch = Scratch()
        let clip = try await Self.phoneClip(in: scratch)
        let out = scratch.path("redacted.mp4")
        let r = try await CLI.run(["apply", clip, "-e", "faceblur", "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("location") && r.stderr.contains("left out"), "\(r.stderr)")
        let t = try await Self.tags(out)
        #expect(!t.format.keys.contains { $0.contains("location") }, "\(t.format)")
        #expect(t.format["creation_time"] == "2026-05-01T10:20:30.000000Z" && t.format["make"] == "Google")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path("redacted.redaction.json")))) as? [String: Any]
        #expect((report?["locationRemoved"] as? [String])?.contains("location") == true, "\(report ?? [:])")
        // Asked for, it stays.
        let kept = scratch.path("kept.mp4")
        #expect(try await CLI.run(["apply", clip, "-e", "faceblur", "--metadata", "keep", "-o", kept, "-q"]).status == 0)
        #expect(try await Self.tags(kept).format["location"] == Self.location)
    }

    /// A split by copy and a frame-exact one keep them in every file; segments rendered
    /// with a redaction and joined keep the creation time and make, not the location.
    @Test func splitsAndJoinedSegmentsKeepThem() async throws {
        let scratch = Scratch()
        let clip = try await Self.phoneClip(in: scratch)
        let cuts = scratch.path("cuts.txt")
        try "0.5\n".write(toFile: cuts, atomically: true, encoding: .utf8)
        for (exact, name) in [(false, "copy"), (true, "exact")] {
            let r = try await CLI.run(["split", clip, "--cuts", cuts] + (exact ? ["--exact"] : []) + ["-o", scratch.path("\(name)-{n}.mp4"), "-q"])
            #expect(r.status == 0, "\(r.stderr)")
            for n in 1...2 {
                let t = try await Self.tags(scratch.path("\(name)-\(n).mp4"))
                #expect(t.format["creation_time"] == "2026-05-01T10:20:30.000000Z" && t.format["model"] == "Pixel 8"
                        && t.format["location"] == Self.location, "split \(name) \(n): \(t.format)")
                #expect(t.video["language"] == "eng" && t.audio["language"] == "fra", "split \(name) \(n): \(t.video) \(t.audio)")
            }
        }
        let stripped = try await CLI.run(["split", clip, "--cuts", cuts, "--metadata", "strip", "-o", scratch.path("bare-{n}.mp4"), "-q"])
        #expect(stripped.status == 0, "\(stripped.stderr)")
        #expect(try await Self.tags(scratch.path("bare-1.mp4")).format["make"] == nil)
        for i in 1...2 {
            let r = try await CLI.run(["apply", clip, "-e", "faceblur", "--segment", "\(i)/2", "-o", scratch.path("seg\(i).mp4"), "-q"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let joined = scratch.path("joined.mp4")
        let r = try await CLI.run(["concat", scratch.path("seg1.mp4"), scratch.path("seg2.mp4"), "--audio-from", clip, "-o", joined, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let t = try await Self.tags(joined)
        #expect(t.format["creation_time"] == "2026-05-01T10:20:30.000000Z" && t.format["make"] == "Google", "\(t.format)")
        #expect(!t.format.keys.contains { $0.contains("location") || $0.hasPrefix("vidfx_") }, "\(t.format)")
        #expect(t.video["language"] == "eng")
    }
}
