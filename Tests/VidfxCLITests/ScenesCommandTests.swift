import Foundation
import TestSupport
import Testing

/// `vidfx scenes` against PySceneDetect (the oracle venv's `scenedetect` CLI, OpenCV
/// backend, its defaults) on clips with hard cuts, a flash, a fade to black and back,
/// variable timing, and at 1080p (scaled for analysis as PySceneDetect scales it).
@Suite struct ScenesCommandTests {
    static let scenedetect = CLI.directory.appendingPathComponent(".oracle-venv/bin/scenedetect")

    /// What PySceneDetect's CLI names each detector.
    static let oracleCommand = ["content": "detect-content", "adaptive": "detect-adaptive", "threshold": "detect-threshold",
                                "hash": "detect-hash", "histogram": "detect-hist"]

    struct Oracle {
        var csv: String
        /// Cut frames, from 0.
        var cuts: [Int]
        /// Each picture's score as its stats file gives it, by frame from 0.
        var scores: [Int: Double]
    }

    /// The oracle's cuts, and (for the content detector) each picture's score. The cuts
    /// come from a run without a stats file: with one, scenedetect 0.6.7's threshold
    /// detector put the fade's cut at 233, 234 or 236 from one run to the next on the
    /// same clip (the other detectors gave the same cuts either way, run after run).
    static func oracle(_ clip: String, detector: String) async throws -> Oracle {
        let scratch = try ScratchDirectory("scenes-oracle")
        let stats = scratch.path("stats.csv")
        let outcome = try await Subprocess.outcome(scenedetect, ["-i", clip, "-q", oracleCommand[detector]!,
                                                                 "list-scenes", "-o", scratch.url.path, "-q"], in: CLI.directory)
        #expect(outcome.status == 0, "scenedetect: \(outcome.stderrText)")
        if detector == "content" {
            let scored = try await Subprocess.outcome(scenedetect, ["-i", clip, "-q", "-s", stats, "detect-content"], in: CLI.directory)
            #expect(scored.status == 0, "scenedetect: \(scored.stderrText)")
        }
        let name = URL(fileURLWithPath: clip).deletingPathExtension().lastPathComponent
        let csv = try String(contentsOfFile: scratch.path("\(name)-Scenes.csv"), encoding: .utf8)
        let rows = csv.split(separator: "\n").dropFirst(2).map { $0.split(separator: ",") }
        let cuts = rows.dropFirst().compactMap { Int($0[1]).map { $0 - 1 } }
        var scores: [Int: Double] = [:]
        let statRows = (try? String(contentsOfFile: stats, encoding: .utf8))?.split(separator: "\n").map { $0.split(separator: ",") } ?? []
        if let header = statRows.first, let column = header.firstIndex(of: "content_val") {
            for row in statRows.dropFirst() where row.count > column {
                if let frame = Int(row[0]), let score = Double(row[column]) { scores[frame - 1] = score }
            }
        }
        return Oracle(csv: csv, cuts: cuts, scores: scores)
    }

    static func vidfx(_ clip: String, detector: String, extra: [String] = []) async throws -> (cuts: [[String: Any]], scenes: [[String: Any]]) {
        let r = try await CLI.run(["scenes", clip, "--detector", detector, "--json", "-q"] + extra)
        #expect(r.status == 0, "\(r.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        return (try #require(document["cuts"] as? [[String: Any]]), try #require(document["scenes"] as? [[String: Any]]))
    }

    /// Every cut of each side has one on the other within a frame, except where the
    /// oracle's own content score is within 3% of the threshold (a borderline picture:
    /// vidfx scales from YUV in one step where OpenCV converts then resizes, and the scores
    /// differ by about 2%: median measured 1.9%).
    static func agree(_ mine: [Int], _ theirs: Oracle, detector: String) -> [String] {
        func borderline(_ frame: Int) -> Bool {
            guard detector == "content", let s = theirs.scores[frame] else { return false }
            return abs(s - 27) <= 0.03 * 27
        }
        var problems: [String] = []
        // A borderline picture moves the cut to the next picture over the threshold: a few frames on.
        func nearBorderline(_ c: Int) -> Bool { theirs.cuts.contains { abs($0 - c) <= 3 && borderline($0) } }
        for c in mine where !theirs.cuts.contains(where: { abs($0 - c) <= 1 }) && !nearBorderline(c) { problems.append("vidfx cut at \(c) not in PySceneDetect's \(theirs.cuts)") }
        for c in theirs.cuts where !mine.contains(where: { abs($0 - c) <= 1 }) && !borderline(c) { problems.append("PySceneDetect's cut at \(c) missing from \(mine)") }
        return problems
    }

    @Test(arguments: ["content", "adaptive", "threshold", "hash", "histogram"])
    func sameCutsAsPySceneDetect(detector: String) async throws {
        for clip in ["testmedia/cuts.mp4", "testmedia/cuts-vfr.mkv"] {
            let theirs = try await Self.oracle(clip, detector: detector)
            let mine = try await Self.vidfx(clip, detector: detector).cuts.compactMap { $0["frame"] as? Int }
            #expect(!theirs.cuts.isEmpty, "the clip has cuts for \(detector) to find")
            let problems = Self.agree(mine, theirs, detector: detector)
            #expect(problems.isEmpty, "\(clip), \(detector): \(problems)")
        }
    }

    @Test func csvIsTheLayoutOfListScenes() async throws {
        let theirs = try await Self.oracle("testmedia/cuts.mp4", detector: "content")
        let r = try await CLI.run(["scenes", "testmedia/cuts.mp4", "--csv", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let mine = String(decoding: r.stdout, as: UTF8.self)
        let (a, b) = (mine.split(separator: "\n"), theirs.csv.split(separator: "\n"))
        #expect(a.count == b.count)
        #expect(a.dropFirst().first == b.dropFirst().first, "the header row")
        #expect(a.first?.hasPrefix("Timecode List:") == true)
        // Every scene row has the same ten columns, and the start frames agree within one.
        for (x, y) in zip(a.dropFirst(2), b.dropFirst(2)) {
            let (p, q) = (x.split(separator: ","), y.split(separator: ","))
            #expect(p.count == 10 && q.count == 10)
            #expect(abs((Int(p[1]) ?? -9) - (Int(q[1]) ?? 9)) <= 1, "\(x) against \(y)")
        }
    }

    @Test func variableRateTimesAreThePicturesOwn() async throws {
        let (cuts, scenes) = try await Self.vidfx("testmedia/cuts-vfr.mkv", detector: "hash")
        let probe = try await Subprocess.output("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time",
                                                                     "-of", "csv=p=0", CLI.directory.appendingPathComponent("testmedia/cuts-vfr.mkv").path])
        let times = String(decoding: probe, as: UTF8.self).split(separator: "\n").compactMap { $0.split(separator: ",").first.flatMap { Double($0) } }
        #expect(times.count == 288)
        #expect(cuts.count >= 5)
        for cut in cuts {
            let frame = try #require(cut["frame"] as? Int), time = try #require(cut["time"] as? Double)
            try #require(frame < times.count)
            #expect(abs(time - times[frame]) < 0.0005, "cut at \(frame): \(time) s, its picture is at \(times[frame]) s")
        }
        // Past picture 100 the clip runs at 20 fps: a frame count over 30 would be seconds off.
        #expect(cuts.contains { ($0["frame"] as? Int ?? 0) > 200 && abs(($0["time"] as? Double ?? 0) - Double($0["frame"] as! Int) / 30) > 1 })
        let last = try #require(scenes.last?["end"] as? [String: Any])
        #expect(last["frame"] as? Int == 288)
        #expect(abs((last["time"] as? Double ?? 0) - times[287]) < 0.06, "the end is where the last picture stops")
    }

    @Test func fullHDIsAnalysedAtPySceneDetectsSize() async throws {
        let scratch = try ScratchDirectory("scenes-1080")
        let clip = scratch.path("cuts-1080.mp4")
        let made = try await Subprocess.run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", CLI.directory.appendingPathComponent("testmedia/cuts.mp4").path,
                                                                "-t", "6", "-vf", "scale=1920:1080", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "20", clip])
        #expect(made.status == 0)
        let theirs = try await Self.oracle(clip, detector: "content")
        let mine = try await Self.vidfx(clip, detector: "content").cuts.compactMap { $0["frame"] as? Int }
        #expect(theirs.cuts.count >= 4)
        #expect(Self.agree(mine, theirs, detector: "content").isEmpty, "\(mine) against \(theirs.cuts)")
    }

    /// A clip read in pieces at once (`--decoders`, each piece from a key frame on) gives
    /// the cuts and every picture's score of one decoder reading it all, byte for byte:
    /// H.264 with B-pictures (every detector), HEVC with open GOPs (pictures after a key
    /// frame shown before it), MPEG-TS (whose seeks are searches by timestamp) and
    /// variable timing.
    @Test(arguments: [("h264.mp4", ["-c:v", "libx264", "-preset", "veryfast", "-g", "90"]),
                      ("hevc.mp4", ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error"]),
                      ("h264.ts", ["-c:v", "libx264", "-preset", "veryfast", "-g", "90"]),
                      ("vfr.mkv", ["-c", "copy"])])
    func piecesGiveTheCutsAndScoresOfOnePass(name: String, encoding: [String]) async throws {
        let scratch = try ScratchDirectory("scenes-pieces")
        let clip = scratch.path(name)
        let source = CLI.directory.appendingPathComponent(name == "vfr.mkv" ? "testmedia/cuts-vfr.mkv" : "testmedia/cuts.mp4").path
        // Three times over: 29 s, past the 20 s below which one decoder reads; small, so
        // that its 16 scans stay cheap under AddressSanitizer on a busy machine.
        let small = name == "vfr.mkv" ? [] : ["-vf", "scale=320:180"]
        let made = try await Subprocess.run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-stream_loop", "2", "-i", source] + small + encoding + [clip])
        #expect(made.status == 0)
        func scan(_ detector: String, _ decoders: String) async throws -> (json: Data, stats: String, summary: String) {
            let stats = scratch.path("stats-\(detector)-\(decoders).csv")
            let r = try await CLI.run(["scenes", clip, "--detector", detector, "--json", "--decoders", decoders, "--stats", stats])
            #expect(r.status == 0, "\(r.stderr)")
            return (r.stdout, try String(contentsOfFile: stats, encoding: .utf8), r.stderr)
        }
        for detector in name == "h264.mp4" ? ["content", "adaptive", "threshold", "hash", "histogram"] : ["content"] {
            let one = try await scan(detector, "1"), three = try await scan(detector, "3")
            #expect(three.summary.contains("3 decoders"), "\(detector), read in pieces: \(three.summary)")
            #expect(!one.summary.contains("decoders"), "\(one.summary)")
            #expect(one.summary.contains("864 pictures"), "\(one.summary)")
            if detector == "content" { #expect(one.summary.contains(" cuts,") && !one.summary.contains(" 0 cuts"), "\(one.summary)") }
            #expect(three.json == one.json, "\(detector): the cut lists differ")
            let (a, b) = (one.stats.split(separator: "\n"), three.stats.split(separator: "\n"))
            #expect(a.count == b.count && a.count == 865, "\(detector): \(a.count) and \(b.count) rows")
            let differing = zip(a, b).filter { $0 != $1 }.count
            let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            #expect(differing == 0, "\(detector): \(differing) rows differ, from row \(first ?? 0)")
        }
    }

    @Test func aRangeFindsTheSameCutsNumberedFromTheTop() async throws {
        let all = try await Self.vidfx("testmedia/cuts.mp4", detector: "hash").cuts.compactMap { $0["frame"] as? Int }
        let part = try await Self.vidfx("testmedia/cuts.mp4", detector: "hash", extra: ["--start", "3", "--duration", "3.5"])
        let frames = part.cuts.compactMap { $0["frame"] as? Int }
        // Numbered from the top; a scene starts at the range's start, so (as in PySceneDetect)
        // no cut comes within the shortest scene (0.6 s, 18 pictures) of it.
        #expect(frames == all.filter { $0 >= 90 + 18 && $0 < 195 }, "\(frames) against \(all)")
        #expect(frames.count >= 2)
        let first = try #require(part.scenes.first?["start"] as? [String: Any])
        #expect(first["frame"] as? Int == 90)
        #expect(abs((first["time"] as? Double ?? 0) - 3) < 0.001)
    }

    @Test func aStillAFolderAndBadOptionsGetOneLine() async throws {
        for (arguments, cause) in [(["scenes", "testmedia/still.png"], "a still image has no scenes"),
                                   (["scenes", "testmedia/garbage.mp4"], "garbage.mp4"),
                                   (["scenes", "testmedia/nothing-here.mp4"], "nothing-here.mp4"),
                                   (["scenes", "testmedia/cuts.mp4", "--json", "--csv"], "choose one"),
                                   (["scenes", "testmedia/cuts.mp4", "--min-scene-len", "soon"], "--min-scene-len"),
                                   (["scenes", "testmedia/cuts.mp4", "--detector", "magic"], "magic")] {
            let r = try await CLI.run(arguments)
            #expect(r.status != 0, "\(arguments)")
            #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(cause), "\(arguments): \(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
    }

    @Test func anOutputFileIsWrittenWholeAndNotOverwritten() async throws {
        let scratch = try ScratchDirectory("scenes-out")
        let out = scratch.path("cuts.json"), stats = scratch.path("scores.csv")
        let r = try await CLI.run(["scenes", "testmedia/cuts.mp4", "--json", "-o", out, "--stats", stats])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("7 cuts") && r.stderr.contains("288 pictures"), "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any]
        #expect((json?["cuts"] as? [Any])?.count == 7)
        let rows = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n")
        #expect(rows.count == 289 && rows[0] == "Frame,Time,content")
        let again = try await CLI.run(["scenes", "testmedia/cuts.mp4", "--json", "-o", out])
        #expect(again.status != 0 && again.stderr.contains("-y"), "\(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)).count > 100, "left as it was")
    }
}
