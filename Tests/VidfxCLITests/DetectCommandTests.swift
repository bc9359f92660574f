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

    @Test(arguments: [
        (["--what", "faces"], "face detection is not in this build yet"),
        (["--what", "cats"], "'cats' is not one of qr, barcodes, codes"),
        (["--detect-every", "0"], "--detect-every: must be 1…300"),
    ])
    func refusalsAreOneLine(arguments: [String], message: String) throws {
        let r = try CLI.run(["detect", CLI.media("qr-moving.mp4")] + arguments)
        #expect(r.status != 0)
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(message), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }
}
