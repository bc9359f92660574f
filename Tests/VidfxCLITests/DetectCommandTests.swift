import Foundation
import Testing

/// `vidfx detect`: one JSON object per tick, the summary on stderr, clear refusals.
@Suite struct DetectCommandTests {
    static let url = "https://vidfx.example/menu?table=12"

    func lines(_ data: Data) throws -> [[String: Any]] {
        try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func jsonLinesHaveOneObjectPerTickWithTheCodeAndItsTrack() throws {
        let r = try CLI.run(["detect", CLI.media("qr-moving.mp4"), "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let ticks = try lines(r.stdout)
        #expect(ticks.count == 60)
        #expect(ticks.enumerated().allSatisfy { ($0.element["tick"] as? Int) == $0.offset })
        let codes = ticks.compactMap { ($0["detections"] as? [[String: Any]])?.first }
        #expect(codes.count >= 57)
        #expect(codes.allSatisfy { $0["payload"] as? String == Self.url && $0["kind"] as? String == "qr" })
        #expect(Set(codes.compactMap { $0["trackID"] as? Int }) == [1], "one code in view: one track")
        #expect(codes.allSatisfy { ($0["corners"] as? [[String: Double]])?.count == 4 })
        #expect(r.stderr.contains("60 ticks") && r.stderr.contains("qr") && r.stderr.contains("1 track"), "\(r.stderr)")
    }

    @Test func detectingEveryFifthTickCarriesTheBoxesBetween() throws {
        let r = try CLI.run(["detect", CLI.media("qr-moving.mp4"), "--json", "--detect-every", "5", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let ticks = try lines(r.stdout)
        #expect(ticks.count == 60)
        let detections = ticks.compactMap { ($0["detections"] as? [[String: Any]])?.first }
        #expect(detections.count == 60, "every tick has the code")
        let measured = detections.filter { $0["interpolated"] as? Bool == false }.count
        #expect(measured == 13, "ticks 0, 5, … 55 and the last")
        #expect(r.stderr.isEmpty)
    }

    @Test func aTableByDefaultAndStandardInputToo() throws {
        let r = try CLIProcess.shell("cat testmedia/ean13-moving.mp4 | \"$0\" detect - --what barcodes --duration 0.5", [])
        #expect(r.status == 0, "\(r.stderr)")
        let text = String(decoding: r.stdout, as: UTF8.self)
        #expect(text.hasPrefix("tick"))
        #expect(text.split(separator: "\n").filter { $0.contains("ean13") && $0.contains("4006381333931") }.count == 15)
    }

    @Test func nothingFoundIsNotAnError() throws {
        let r = try CLI.run(["detect", CLI.media("no-codes.mp4"), "--json"])
        #expect(r.status == 0)
        #expect(try lines(r.stdout).allSatisfy { ($0["detections"] as? [Any])?.isEmpty == true })
        #expect(r.stderr.contains("nothing found"))
    }

    @Test func facesInACrowdAreFoundAndCounted() throws {
        let r = try CLI.run(["detect", CLI.media("crowd.mp4"), "--what", "faces", "--json", "--duration", "0.5"])
        #expect(r.status == 0, "\(r.stderr)")
        let ticks = try lines(r.stdout)
        #expect(ticks.count == 15)
        for tick in ticks {
            let faces = (tick["detections"] as? [[String: Any]]) ?? []
            #expect(faces.count >= 17 && faces.allSatisfy { $0["kind"] as? String == "face" && $0["landmarks"] != nil })
        }
        #expect(r.stderr.contains("15 ticks") && r.stderr.contains("faces"), "\(r.stderr)")
    }

    @Test func applyRedactsFacesKeepingTimingAndAudio() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-faceblur-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.mp4").path, log = dir.appendingPathComponent("faces.jsonl").path
        // A clip with audio: the render keeps all of it, in sync.
        let r = try CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-e", "faceblur", "-o", out, "--detections", log, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Probe(out).video["nb_read_frames"] == "90")
        try CLIProcess.expectInSync(out)
        #expect(try lines(Data(contentsOf: URL(fileURLWithPath: log))).count == 90)
        // The crowd: every tick's faces in the log, and nothing left beside the outputs.
        let crowd = dir.appendingPathComponent("crowd.mp4").path, crowdLog = dir.appendingPathComponent("crowd.jsonl").path
        let c = try CLI.run(["apply", CLI.media("crowd.mp4"), "-e", "faceblur:mode=pixelate", "-o", crowd, "--detections", crowdLog, "-q"])
        #expect(c.status == 0, "\(c.stderr)")
        let ticks = try lines(Data(contentsOf: URL(fileURLWithPath: crowdLog)))
        #expect(ticks.count == 60 && ticks.allSatisfy { (($0["detections"] as? [Any])?.count ?? 0) >= 17 })
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["crowd.jsonl", "crowd.mp4", "faces.jsonl", "out.mp4"])
        // An existing log is not overwritten without -y, and the render does not start.
        let again = try CLI.run(["apply", CLI.media("crowd.mp4"), "-e", "faceblur", "-o", dir.appendingPathComponent("new.mp4").path, "--detections", crowdLog])
        #expect(again.status != 0 && again.stderr.contains("already exists"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("new.mp4").path))
    }

    @Test(arguments: [
        (["--what", "faces", "--face-model", "/nonexistent.onnx"], "/nonexistent.onnx: no face model here"),
        (["--what", "cats"], "'cats' is not one of qr, barcodes, codes, faces"),
        (["--detect-every", "0"], "--detect-every: must be 1…300"),
    ])
    func refusalsAreOneLine(arguments: [String], message: String) throws {
        let r = try CLI.run(["detect", CLI.media("qr-moving.mp4")] + arguments)
        #expect(r.status != 0)
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(message), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }
}
