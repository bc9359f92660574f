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
        /// Cut times, in seconds.
        var cutTimes: [Double]
        /// Its stats file's rows, split at commas (the header first).
        var stats: [[String]]
    }

    /// The oracle's cuts and stats file, from one run (0.6.7's threshold detector moved
    /// the fade's cut from run to run with a stats file; 0.7.2 gives every detector's list
    /// the same with one as without, on cuts.mp4, cuts-vfr.mkv and pitch.mp4).
    static func oracle(_ clip: String, detector: String) async throws -> Oracle {
        let scratch = try ScratchDirectory("scenes-oracle")
        let stats = scratch.path("stats.csv")
        let outcome = try await Subprocess.outcome(scenedetect, ["-i", clip, "-q", "-s", stats, oracleCommand[detector]!,
                                                                 "list-scenes", "-o", scratch.url.path, "-q"], in: CLI.directory)
        #expect(outcome.status == 0, "scenedetect: \(outcome.stderrText)")
        let name = URL(fileURLWithPath: clip).deletingPathExtension().lastPathComponent
        let csv = try String(contentsOfFile: scratch.path("\(name)-Scenes.csv"), encoding: .utf8)
        let rows = csv.split(separator: "\n").dropFirst(2).map { $0.split(separator: ",") }
        let cuts = rows.dropFirst().compactMap { Int($0[1]).map { $0 - 1 } }
        let times = rows.dropFirst().compactMap { Double($0[3]) }
        let statRows = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n").map { csvFields($0) }
        return Oracle(csv: csv, cuts: cuts, cutTimes: times, stats: statRows)
    }

    /// A CSV row's fields (quoted fields hold commas: "adaptive_ratio (w=2)" does not,
    /// "hash_dist [size=8 lowpass=2]" does not either, but be safe).
    static func csvFields(_ line: Substring) -> [String] {
        var fields: [String] = [], field = "", quoted = false
        for c in line {
            if c == "\"" { quoted.toggle() } else if c == ",", !quoted { fields.append(field); field = "" } else { field.append(c) }
        }
        return fields + [field]
    }

    static func vidfx(_ clip: String, detector: String, extra: [String] = []) async throws -> (cuts: [[String: Any]], scenes: [[String: Any]]) {
        let r = try await CLI.run(["scenes", clip, "--detector", detector, "--json", "-q"] + extra)
        #expect(r.status == 0, "\(r.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        return (try #require(document["cuts"] as? [[String: Any]]), try #require(document["scenes"] as? [[String: Any]]))
    }

    /// Each detector on clips with hard cuts, a flash and fades (`cuts.mp4`, a 1080p
    /// copy, shrunk 7.5 times for analysis, and a 720p copy stored on its side with a
    /// rotation tag, as phones record portrait video: OpenCV turns it upright first, and
    /// PySceneDetect 0.7 shrinks it by its longer side; and a small one so tagged), a
    /// crowd and a stadium (real pictures), 25 fps, and a minute of them all joined and
    /// repeated: the same cuts, and every picture's score and its parts as
    /// PySceneDetect 0.7.2's stats file prints them, character for character. The hash
    /// detector's bits next to its median may fall the other way (OpenCV's float DCT):
    /// a few scores differ, by whole bits. The content detector (the default) sees every
    /// clip and the others four to six each, so that each clip meets at least two
    /// detectors (35 oracle runs were a tenth of the suite's time).
    @Test func everyScoreAndCutIsPySceneDetects() async throws {
        let scratch = try ScratchDirectory("scenes-scores")
        let big = scratch.path("cuts-1080.mp4")
        let made = try await Subprocess.run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", CLI.directory.appendingPathComponent("testmedia/cuts.mp4").path,
                                                                "-t", "4", "-vf", "scale=1920:1080", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "20", big])
        #expect(made.status == 0)
        let side = scratch.path("side.mp4"), portrait = scratch.path("portrait.mp4")
        let sideMade = try await Subprocess.run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", CLI.directory.appendingPathComponent("testmedia/cuts.mp4").path,
                                                                    "-t", "4", "-vf", "scale=1280:720", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "20", side])
        let tagged = try await Subprocess.run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", side, "-c", "copy", "-metadata:s:v:0", "rotate=90", portrait])
        #expect(sideMade.status == 0 && tagged.status == 0)
        // A long one: cuts.mp4, pitch.mp4 and crowd.mp4 joined and played four times (62 s,
        // 1871 pictures, timecodes past a minute).
        let long = scratch.path("long.mp4")
        let media = ["cuts.mp4", "pitch.mp4", "crowd.mp4"].flatMap { ["-i", CLI.directory.appendingPathComponent("testmedia/\($0)").path] }
        let joined = try await Subprocess.run("/usr/bin/ffmpeg", ["-v", "error", "-y"] + media + [
            "-filter_complex", "[0:v]fps=30,scale=640:360,setsar=1[a];[1:v]fps=30,scale=640:360,setsar=1[b];[2:v]fps=30,scale=640:360,setsar=1[c];"
                + "[a][b][c]concat=n=3:v=1:a=0,loop=loop=3:size=32767:start=0[v]",
            "-map", "[v]", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "23", long])
        #expect(joined.status == 0)
        let (cuts, rotated, crowd, pitch, pal) = ("testmedia/cuts.mp4", "testmedia/rotated90.mp4", "testmedia/crowd.mp4",
                                                  "testmedia/pitch.mp4", "testmedia/h264-25fps.mp4")
        let plan: [(detector: String, clips: [String])] = [
            ("content", [cuts, big, portrait, rotated, crowd, pitch, pal, long]),
            ("adaptive", [cuts, portrait, crowd, pitch, pal, long]),
            ("threshold", [cuts, big, rotated, pal]),
            ("hash", [cuts, big, crowd, pitch]),
            ("histogram", [cuts, portrait, rotated, pitch]),
        ]
        for (detector, clips) in plan {
            var checked = 0, differing = 0
            for clip in clips {
                let stats = scratch.path("stats-\(detector).csv")
                async let oracle = Self.oracle(clip, detector: detector)
                async let run = CLI.run(["scenes", clip, "--detector", detector, "--json", "-q", "--stats", stats, "-y"])
                let (theirs, r) = try await (oracle, run)
                #expect(r.status == 0, "\(r.stderr)")
                let document = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
                let mine = try #require(document["cuts"] as? [[String: Any]]).compactMap { $0["frame"] as? Int }
                #expect(mine == theirs.cuts, "\(clip), \(detector): vidfx cuts at \(mine), PySceneDetect at \(theirs.cuts)")
                let rows = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n").map { Self.csvFields($0) }
                let header = try #require(rows.first), theirHeader = try #require(theirs.stats.first)
                // Every column, the score's parts too (the content detector's delta_*, the
                // adaptive ratio), in PySceneDetect's order.
                #expect(header == theirHeader, "\(clip), \(detector): columns \(header), PySceneDetect's \(theirHeader)")
                let theirRows = Dictionary(theirs.stats.dropFirst().map { ($0[0], $0) }, uniquingKeysWith: { a, _ in a })
                #expect(rows.count == theirs.stats.count, "\(clip), \(detector): \(rows.count) rows, PySceneDetect's \(theirs.stats.count)")
                for row in rows.dropFirst() {
                    let their = try #require(theirRows[row[0]], "\(clip), \(detector): no row for frame \(row[0])")
                    #expect(row[1] == their[1], "\(clip), frame \(row[0]): time \(row[1]) against \(their[1])")
                    #expect(row.count == their.count, "\(clip), frame \(row[0]): \(row.count) fields, PySceneDetect's \(their.count)")
                    for column in 2..<min(row.count, their.count, header.count) {
                        if their[column] != "None" { checked += 1 }
                        if row[column] == their[column] { continue }
                        differing += 1
                        if detector == "hash", let a = Double(row[column]), let b = Double(their[column]), (abs(a - b) * 64).rounded() == abs(a - b) * 64 { continue }
                        Issue.record("\(clip), \(detector), frame \(row[0]), \(header[column]): \(row[column]) against PySceneDetect's \(their[column])")
                    }
                }
            }
            print("scores of \(detector): \(differing) of \(checked) differ")
            #expect(checked > 300, "\(detector): \(checked) scores")
            // Measured: 14 of 584 hash scores; none of the other detectors' 29,000 scores and parts.
            #expect(differing <= (detector == "hash" ? checked / 20 : 0), "\(detector): \(differing) of \(checked) scores differ")
        }
    }

    /// Variable timing (30, 20 and 40 fps in turn): PySceneDetect 0.7 measures the
    /// shortest scene in seconds on the pictures' times, and so does vidfx (counting
    /// pictures instead would allow 0.45 s scenes where the clip runs at 40 fps). The
    /// same cuts, at the same times within a picture (PySceneDetect gives a fade's
    /// last cut a time of its frame number at the average rate, between two pictures).
    @Test(arguments: ["content", "adaptive", "threshold", "hash", "histogram"])
    func variableRateCutsAreAtPySceneDetectsTimes(detector: String) async throws {
        let clip = "testmedia/cuts-vfr.mkv"
        let theirs = try await Self.oracle(clip, detector: detector)
        let mine = try await Self.vidfx(clip, detector: detector).cuts.compactMap { $0["time"] as? Double }
        #expect(!mine.isEmpty && mine.count == theirs.cutTimes.count, "\(detector): vidfx cuts at \(mine), PySceneDetect at \(theirs.cutTimes)")
        for (a, b) in zip(mine, theirs.cutTimes) {
            #expect(abs(a - b) < 0.0255, "\(detector): vidfx cuts at \(mine), PySceneDetect at \(theirs.cutTimes)")
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
        // Every scene row has the same ten columns, equal apart from the scene's number.
        for (x, y) in zip(a.dropFirst(2), b.dropFirst(2)) {
            let (p, q) = (x.split(separator: ","), y.split(separator: ","))
            #expect(p.count == 10 && q.count == 10)
            #expect(p[1...] == q[1...], "\(x) against \(y)")
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

    /// `--fast` shrinks pictures straight from YUV (and skips the loop filter): the
    /// same cuts within a picture on the test clip, scores near the exact ones but not
    /// equal to them.
    @Test func fastScalingStaysNearTheExactScores() async throws {
        let scratch = try ScratchDirectory("scenes-fast")
        func scan(_ extra: [String]) async throws -> (cuts: [Int], scores: [Double]) {
            let stats = scratch.path("stats\(extra.count).csv")
            let r = try await CLI.run(["scenes", "testmedia/cuts.mp4", "--json", "-q", "--stats", stats] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            let document = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
            let cuts = try #require(document["cuts"] as? [[String: Any]]).compactMap { $0["frame"] as? Int }
            let scores = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n").dropFirst().compactMap { Double(Self.csvFields($0)[2]) }  // content_val
            return (cuts, scores)
        }
        let exact = try await scan([]), fast = try await scan(["--fast"])
        #expect(exact.cuts.count == fast.cuts.count && zip(exact.cuts, fast.cuts).allSatisfy { abs($0 - $1) <= 1 }, "\(fast.cuts) against \(exact.cuts)")
        #expect(exact.scores.count == 287 && fast.scores.count == 287)
        let relative = zip(exact.scores, fast.scores).filter { $0.0 > 1 }.map { abs($0.1 - $0.0) / $0.0 }.sorted()
        let median = relative[relative.count / 2]
        #expect(median > 0.0001 && median < 0.05, "median relative difference \(median)")
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
            // A header and a row a picture (none for the first, which has nothing to compare with, but for the threshold detector).
            #expect(a.count == b.count && a.count == (detector == "threshold" ? 865 : 864), "\(detector): \(a.count) and \(b.count) rows")
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
        #expect(rows.count == 288 && rows[0] == "Frame Number,Timecode,content_val,delta_edges,delta_hue,delta_lum,delta_sat" && rows[1].hasPrefix("2,00:00:00.033,"), "\(rows.prefix(2))")
        let again = try await CLI.run(["scenes", "testmedia/cuts.mp4", "--json", "-o", out])
        #expect(again.status != 0 && again.stderr.contains("-y"), "\(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)).count > 100, "left as it was")
    }

    /// Issue 67, item 7: a file whose pictures all fail to decode is named as such, not as
    /// an empty range no one chose; a warning met twice is said once, with its count.
    @Test func brokenInputsSayTheirTrueCauseOnce() async throws {
        let scratch = Scratch()
        var data = try Data(contentsOf: URL(fileURLWithPath: CLI.media("h264-30fps-faststart.mp4")))
        let mdat = try #require(data.range(of: Data("mdat".utf8)))
        for i in (mdat.upperBound + 4)..<data.count { data[i] = data[i] &* 7 &+ 13 }
        let undecodable = scratch.path("undecodable.mp4")
        try data.write(to: URL(fileURLWithPath: undecodable))
        var r = try await CLI.run(["scenes", undecodable])
        #expect(r.status != 0 && r.stderr.contains("no video frames could be decoded") && !r.stderr.contains("chosen range"), "\(r.stderr)")
        // Cut short: the scan meets the truncation in each of its pieces, and says it once.
        let original = try Data(contentsOf: URL(fileURLWithPath: CLI.media("h264-30fps-faststart.mp4")))
        let truncated = scratch.path("truncated.mp4")
        try original.prefix(20000).write(to: URL(fileURLWithPath: truncated))
        r = try await CLI.run(["scenes", truncated])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n").filter { $0.contains("file is truncated") }
        #expect(lines.count <= 2 && lines.filter { !$0.contains("times in all") }.count == 1, "\(r.stderr)")
    }
}
