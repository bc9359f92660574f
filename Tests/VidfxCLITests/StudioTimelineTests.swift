import Foundation
import TestSupport
import Testing

/// The studio's timeline (issue 46): thumbnails along the scrub bar and the scene cuts
/// `scenes` finds, made once in the background and kept in the outputs folder.
@Suite struct StudioTimelineTests {
    /// The cut times `vidfx scenes` finds in a testmedia clip.
    static func sceneCuts(_ clip: String) async throws -> [Double] {
        let r = try await CLI.run(["scenes", CLI.media(clip), "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        return (list["cuts"] as? [[String: Any]] ?? []).compactMap { $0["time"] as? Double }
    }

    /// Polls `/api/timeline` until it is no longer being made (each poll a loopback request).
    static func timeline(_ studio: StudioProcess) async throws -> [String: Any] {
        while true {
            let t = try #require(try await studio.request("/api/timeline").json)
            if t["state"] as? String != "working" { return t }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test func theStripHasAThumbnailPerPartAndTheScenesCuts() async throws {
        let studio = try await StudioProcess.start("cuts.mp4")
        defer { Task { await studio.stop() } }
        let t = try await Self.timeline(studio)
        #expect(t["state"] as? String == "ready", "\(t)")
        let cuts = try await Self.sceneCuts("cuts.mp4")
        #expect(cuts.count == 7)
        let served = t["cuts"] as? [Double] ?? []
        #expect(served.count == cuts.count && zip(served, cuts).allSatisfy { abs($0 - $1) < 1e-5 }, "\(served) against \(cuts)")
        // 288 ticks in 48 parts: a thumbnail every 6 ticks, from 0.
        let times = t["times"] as? [Double] ?? []
        #expect(times.count == 48 && t["count"] as? Int == 48)
        #expect(times.enumerated().allSatisfy { abs($0.element - Double($0.offset * 6) / 30) < 1e-9 })
        let jpeg = try await studio.request("/api/timeline.jpg")
        #expect(jpeg.status == 200)
        let file = studio.outputs.path("strip.jpg")
        try jpeg.body.write(to: URL(fileURLWithPath: file))
        let probe = try await Subprocess.output("/usr/bin/env", ["ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", file])
        #expect(String(decoding: probe, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "7680,90")
        // Kept in the folder's private folder (mode 0700): not listed, not served as outputs.
        #expect(studio.allOutputFiles == [".vidfx-cache", "strip.jpg"], "\(studio.allOutputFiles)")
        let cache = studio.outputs.path(".vidfx-cache")
        let attributes = try FileManager.default.attributesOfItem(atPath: cache)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        let kept = try FileManager.default.contentsOfDirectory(atPath: cache)
        #expect(kept.count == 2 && kept.allSatisfy { $0.hasPrefix("timeline-") }, "\(kept)")
        let listing = try await studio.request("/api/outputs")
        #expect(!listing.text.contains("timeline-") && !listing.text.contains(".vidfx-cache"))
        #expect(try await studio.request("/outputs/.vidfx-cache").status == 400)
        #expect(await studio.stop() == 0)
    }

    /// SIGTERM while the strip is being made: the studio stops its thread before it exits
    /// (a process ending under a decoding thread can crash in its exit handlers), and the
    /// folder holds the whole cached pair or nothing of it.
    @Test func aStudioStoppedWhileMakingItsTimelineEndsCleanly() async throws {
        let scratch = try ScratchDirectory("vidfx-timeline-long")
        let clip = scratch.path("long.mp4")
        _ = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=120",
                                                         "-c:v", "libx264", "-preset", "ultrafast", "-g", "600", clip])
        let studio = try await StudioProcess.start(clip)
        // Stopped while the strip is being made, not before it starts or after it is done:
        // two minutes of 640x360 take far longer to scan than the studio takes to answer.
        let state = try await studio.request("/api/timeline").json?["state"] as? String
        #expect(state == "working", "the timeline is \(state ?? "?") when the stop comes")
        let status = await studio.stop()
        #expect(status == 0)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: studio.outputs.path(".vidfx-cache"))) ?? []
        #expect(studio.allOutputFiles.allSatisfy { $0 == ".vidfx-cache" }, "\(studio.allOutputFiles)")
        #expect(left.isEmpty || (left.count == 2 && left.allSatisfy { $0.hasPrefix("timeline-") && !$0.hasSuffix(".part") }), "\(left)")
    }

    /// Issue 65, 8: the strip is never written into or read from what another user planted.
    /// A `.vidfx-cache` that is a link, or a folder others may write in, is not used (the
    /// strip is made and served, and nothing is kept); inside the studio's own folder no
    /// one else can plant a FIFO.
    @Test func aPlantedCacheIsNeverWrittenInto() async throws {
        for planted in ["link", "open folder"] {
            let outputs = try ScratchDirectory("vidfx-studio-planted")
            let elsewhere = try ScratchDirectory("vidfx-studio-elsewhere")
            let cache = outputs.path(".vidfx-cache")
            if planted == "link" {
                try FileManager.default.createSymbolicLink(atPath: cache, withDestinationPath: elsewhere.url.path)
            } else {
                try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o777])
                chmod(cache, 0o777)
            }
            let studio = try await StudioProcess.start(outputs: outputs)
            var state = ""
            for _ in 0..<600 where state != "ready" {
                state = try await studio.request("/api/timeline").json?["state"] as? String ?? ""
                if state != "ready" { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(state == "ready", "\(planted)")
            #expect(try await studio.request("/api/timeline.jpg").status == 200)
            let inside = (try? FileManager.default.contentsOfDirectory(atPath: planted == "link" ? elsewhere.url.path : cache)) ?? []
            #expect(inside.isEmpty, "\(planted): \(inside)")
            #expect(await studio.stop() == 0)
        }
    }
}
