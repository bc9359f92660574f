import Foundation
import TestSupport
import Testing

/// `vidfx storyboard`: sprites and a WebVTT track that cover the clip, each tile its moment.
@Suite struct StoryboardTests {
    struct Cue { var start: Double; var end: Double; var sprite: String; var x, y, w, h: Int }

    static func seconds(_ s: Substring) -> Double {
        let p = s.split(separator: ":").compactMap { Double($0) }
        return p.count == 3 ? p[0] * 3600 + p[1] * 60 + p[2] : -1
    }

    static func cues(_ folder: String) throws -> [Cue] {
        let text = try String(contentsOfFile: folder + "/thumbnails.vtt", encoding: .utf8)
        #expect(text.hasPrefix("WEBVTT\n"))
        var cues: [Cue] = []
        let lines = text.split(separator: "\n")
        for (i, line) in lines.enumerated() where line.contains(" --> ") {
            let times = line.components(separatedBy: " --> ")
            let target = lines[i + 1].split(separator: "#")
            let box = target[1].dropFirst("xywh=".count).split(separator: ",").compactMap { Int($0) }
            cues.append(Cue(start: seconds(Substring(times[0])), end: seconds(Substring(times[1])), sprite: String(target[0]),
                            x: box[0], y: box[1], w: box[2], h: box[3]))
        }
        return cues
    }

    /// The mean R, G, B of a region of an image file (decoded by ffmpeg).
    static func means(_ path: String, x: Int, y: Int, w: Int, h: Int) async throws -> [Double] {
        let out = try await Subprocess.output("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-vf", "crop=\(w):\(h):\(x):\(y)",
                                                                  "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        var sum = [0.0, 0.0, 0.0]
        for (i, b) in out.enumerated() { sum[i % 3] += Double(b) }
        return sum.map { $0 / Double(max(1, out.count / 3)) }
    }

    /// The default shows the picture on screen at each time; --fast the nearest key frame;
    /// --exact (the default before) still runs.
    @Test(arguments: [[], ["--fast"], ["--exact"]])
    func cuesCoverTheClipAndEachTileIsItsMoment(mode: [String]) async throws {
        let exact = mode != ["--fast"]
        let scratch = try ScratchDirectory("storyboard")
        let out = scratch.path("board")
        let r = try await CLI.run(["storyboard", "testmedia/cuts.mp4", "-o", out, "--interval", "0.5", "--tile", "4x3"] + mode)
        #expect(r.status == 0, "\(r.stderr)")
        let cues = try Self.cues(out)
        #expect(cues.count == 20, "9.6 s at 0.5 s: 20 thumbnails")
        #expect(cues.first?.start == 0 && abs((cues.last?.end ?? 0) - 9.6) < 0.001, "the whole clip")
        #expect(zip(cues, cues.dropFirst()).allSatisfy { $0.end == $1.start }, "no gaps")
        #expect(Set(cues.map(\.sprite)) == ["sprite_1.jpg", "sprite_2.jpg"])
        #expect(cues.allSatisfy { $0.w == 160 && $0.h == 90 })
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/storyboard.json"))) as? [String: Any]
        let tiles = try #require(manifest?["tiles"] as? [[String: Any]])
        // Each tile against the picture it says it shows, and against the other moments:
        // its colours are nearest its own picture's.
        let stills = scratch.path("stills")
        let times = tiles.compactMap { $0["sourceTime"] as? Double }
        if exact { #expect(zip(times, cues).allSatisfy { abs($0 - $1.start) < 0.034 }, "the picture on screen at each time") }
        // Half a microsecond on, so that a time printed to the microsecond is not before its picture.
        let d = try await CLI.run(["dump", "testmedia/cuts.mp4", "--at", times.map { String(format: "%.6f", $0 + 5e-7) }.joined(separator: ","), "-o", stills, "-q"])
        #expect(d.status == 0, "\(d.stderr)")
        var stillMeans: [[Double]] = []
        for i in times.indices { stillMeans.append(try await Self.means(stills + String(format: "/frame_%06d.png", i), x: 0, y: 0, w: 640, h: 360)) }
        for (i, cue) in cues.enumerated() {
            let tile = try await Self.means(out + "/" + cue.sprite, x: cue.x, y: cue.y, w: cue.w, h: cue.h)
            let distance = stillMeans.map { zip($0, tile).map { abs($0 - $1) }.reduce(0, +) }
            #expect(distance[i] < 6, "tile \(i) is \(distance[i]) from its picture")
            // Moments of one shot look alike: no other moment may be clearly nearer.
            #expect(distance[i] <= distance.min()! + 1, "tile \(i) looks more like another moment")
        }
    }

    /// A tile shows a picture that starts within its interval (issue 67): on a 29.97 fps
    /// clip cut at frame 180 (6.006 s), the 6–8 s tile is the new shot, not frame 179,
    /// which is still on screen at 6.000 for 6 ms. A picture held through a whole interval
    /// (a clip of 1 fps) is still shown.
    @Test func aTileJustBeforeACutShowsTheNewShot() async throws {
        let scratch = try ScratchDirectory("storyboard-cut")
        let clip = scratch.path("cut.mp4")
        let made = try await Subprocess.outcome(URL(fileURLWithPath: "/usr/bin/env"), [
            "ffmpeg", "-v", "error", "-f", "lavfi", "-i", "color=c=red:s=64x48:r=30000/1001:d=6.006", "-f", "lavfi",
            "-i", "color=c=blue:s=64x48:r=30000/1001:d=2", "-filter_complex", "[0][1]concat=n=2:v=1", "-c:v", "libx264",
            "-pix_fmt", "yuv420p", clip])
        #expect(made.status == 0, "\(made.stderrText)")
        let out = scratch.path("board")
        let r = try await CLI.run(["storyboard", clip, "-o", out, "--interval", "2", "--tile", "4x1", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let cues = try Self.cues(out)
        try #require(cues.count == 5, "\(cues.count) cues")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/storyboard.json"))) as? [String: Any]
        let tiles = try #require(manifest?["tiles"] as? [[String: Any]])
        let sourceTimes = tiles.compactMap { $0["sourceTime"] as? Double }
        #expect(abs(sourceTimes[3] - 6.006) < 0.001, "tile 3 shows the picture at \(sourceTimes[3]) s")
        let tile = try await Self.means(out + "/" + cues[3].sprite, x: cues[3].x, y: cues[3].y, w: cues[3].w, h: cues[3].h)
        #expect(tile[2] > 200 && tile[0] < 40, "tile 3 is \(tile), not blue")
        let before = try await Self.means(out + "/" + cues[2].sprite, x: cues[2].x, y: cues[2].y, w: cues[2].w, h: cues[2].h)
        #expect(before[0] > 200 && before[2] < 40, "tile 2 is \(before), not red")
        // One picture a second, tiles every 0.25 s: most intervals start no picture and show the one on screen.
        let slow = scratch.path("slow.mp4")
        let slowMade = try await Subprocess.outcome(URL(fileURLWithPath: "/usr/bin/env"), [
            "ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=64x48:r=1:d=3", "-c:v", "libx264", "-pix_fmt", "yuv420p", slow])
        #expect(slowMade.status == 0)
        let slowBoard = scratch.path("slow-board")
        let s = try await CLI.run(["storyboard", slow, "-o", slowBoard, "--interval", "0.25", "--tile", "4x3", "-q"])
        #expect(s.status == 0, "\(s.stderr)")
        let slowTiles = try #require((try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: slowBoard + "/storyboard.json")))
            as? [String: Any])?["tiles"] as? [[String: Any]])
        #expect(slowTiles.compactMap { $0["sourceTime"] as? Double } == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2], "\(slowTiles.map { $0["sourceTime"] ?? "" })")
    }

    @Test func aFolderIsNotOverwrittenWithoutYesAndBadOptionsGetOneLine() async throws {
        let scratch = try ScratchDirectory("storyboard-safety")
        let out = scratch.path("board")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: out + "/notes.txt"))
        let refused = try await CLI.run(["storyboard", "testmedia/cuts.mp4", "-o", out])
        #expect(refused.status != 0 && refused.stderr.contains("-y"), "\(refused.stderr)")
        let ok = try await CLI.run(["storyboard", "testmedia/cuts.mp4", "-o", out, "-y", "-q"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(names == ["notes.txt", "sprite_1.jpg", "storyboard.json", "thumbnails.vtt"])
        for (arguments, cause) in [(["--tile", "0x3"], "--tile"), (["--interval", "0"], "--interval"), (["--width", "5"], "--width")] {
            let r = try await CLI.run(["storyboard", "testmedia/cuts.mp4", "-o", scratch.path("x")] + arguments)
            #expect(r.status != 0 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(cause), "\(r.stderr)")
        }
        let still = try await CLI.run(["storyboard", "testmedia/still.png", "-o", scratch.path("y")])
        #expect(still.status != 0 && still.stderr.contains("still image"), "\(still.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("x")) && !FileManager.default.fileExists(atPath: scratch.path("y")))
    }
}

/// The track as a browser reads it: headless Chromium loads thumbnails.vtt in a `<video>`'s
/// `<track>` (served from 127.0.0.1) and lists its cues. Chromium: the serialized phase.
@Suite(.serialized, .timeLimit(.minutes(10))) struct StoryboardPageRealClockTests {
    @Test func chromiumParsesTheTrackAndItsCuesCoverTheClip() async throws {
        let scratch = try ScratchDirectory("storyboard-page")
        let out = scratch.path("board")
        let r = try await CLI.run(["storyboard", "testmedia/cuts.mp4", "-o", out, "--interval", "2", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        try FileManager.default.createSymbolicLink(atPath: out + "/cuts.mp4", withDestinationPath: CLI.testmedia.appendingPathComponent("cuts.mp4").path)
        let page = """
            <!doctype html><video id=v src="cuts.mp4" preload=metadata muted></video>
            <script>
            const v = document.getElementById('v');
            const t = document.createElement('track');
            t.kind = 'metadata'; t.src = 'thumbnails.vtt'; t.default = true; v.appendChild(t);
            t.track.mode = 'hidden';
            window.studio = { ready: new Promise((ok, no) => { t.addEventListener('load', ok); t.addEventListener('error', () => no('track error')); }) };
            </script>
            """
        try Data(page.utf8).write(to: URL(fileURLWithPath: out + "/index.html"))
        let server = try await StaticServer(root: out)
        let results = try await StudioPageRealClockTests.drive(server.url("index.html"), [
            "Array.from(document.getElementById('v').textTracks[0].cues).map(c => [c.startTime, c.endTime, c.text])",
            "new Promise(r => { const i = new Image(); i.onload = () => r([i.naturalWidth, i.naturalHeight]); i.onerror = () => r('no sprite'); i.src = 'sprite_1.jpg'; })",
        ])
        let cues = try #require(results.first as? [[Any]])
        #expect(cues.count == 5, "9.6 s every 2 s")
        #expect((cues.first?[0] as? Double) == 0 && abs((cues.last?[1] as? Double ?? 0) - 9.6) < 0.001)
        #expect(cues.allSatisfy { ($0[2] as? String)?.range(of: #"^sprite_1\.jpg#xywh=\d+,\d+,160,90$"#, options: .regularExpression) != nil })
        #expect((results[1] as? [Int]) == [800, 90], "a 5x5 sprite with one row used")
    }
}

/// Python's static file server on 127.0.0.1, for a page and what it loads.
final class StaticServer: Sendable {
    let port: Int
    private let process: Process

    init(root: String) async throws {
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(probe, $0, &length) } }
        close(probe)
        port = Int(UInt16(bigEndian: address.sin_port))
        process = Process()
        (process.executableURL, process.arguments) = Subprocess.withoutInheritedDescriptors(
            "python3", ["-m", "http.server", "--bind", "127.0.0.1", "--directory", root, "\(port)"])
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Ready once it answers; a few seconds at most, even on a busy machine.
        for _ in 0..<200 {
            if (try? await Subprocess.run("/usr/bin/curl", ["-sf", "-o", "/dev/null", "http://127.0.0.1:\(port)/"]))?.status == 0 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        throw CocoaError(.fileReadUnknown)
    }

    deinit { kill(process.processIdentifier, SIGKILL) }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }
}
