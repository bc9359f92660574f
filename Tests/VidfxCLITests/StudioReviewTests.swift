import Foundation
import TestSupport
import Testing

/// The redaction review's API through a running studio: the faces of the clip into a
/// detections file, a drawn box followed through the clip, the reviewed file checked
/// and saved, and a render that uses it.
@Suite struct StudioReviewTests {
    /// crowd.mp4 pans at 10 px/s: a box drawn on a face at tick 30 is followed over the
    /// whole clip, each tick's box where the pan put that face (within 2 px).
    @Test func aDrawnBoxIsFollowedBothWays() async throws {
        let studio = try await StudioProcess.start("crowd.mp4")
        defer { Task { await studio.stop() } }
        // The face at (56.7, 130.2) 33x42 in the photograph is at (x - 10 t, y - 30) in the clip.
        let t30 = (x: 56.7 - 10.0, y: 130.2 - 30)
        let answer = try await studio.request("/api/follow", method: "POST",
                                             body: "{\"tick\": 30, \"box\": {\"x\": \(t30.x), \"y\": \(t30.y), \"width\": 33, \"height\": 42}}")
        #expect(answer.status == 200, "\(answer.text)")
        let boxes = try #require(answer.json?["boxes"] as? [[String: Double]])
        #expect(boxes.map { Int($0["tick"] ?? -1) } == Array(0..<60), "followed from the first tick to the last")
        for b in boxes {
            let tick = b["tick"] ?? 0
            let expected = t30.x + (30 - tick) * 10 / 30
            #expect(abs((b["x"] ?? 0) - expected) <= 2 && abs((b["y"] ?? 0) - t30.y) <= 2, "tick \(tick): \(b) vs x \(expected)")
            #expect(b["width"] == 33 && b["height"] == 42)
        }
        // A box outside the frame, or too small, is refused.
        let outside = try await studio.request("/api/follow", method: "POST", body: "{\"tick\": 3, \"box\": {\"x\": 770, \"y\": 10, \"width\": 40, \"height\": 40}}")
        #expect(outside.status == 400 && outside.text.contains("inside the frame"), "\(outside.text)")
        #expect(await studio.stop() == 0)
    }

    /// Follows are a few at a time: sixteen asked at once (each decodes the clip on a
    /// thread of its own; before the wall, sixteen threads and decoders) are each followed
    /// whole or told in one line of JSON to ask again (503), and the studio answers
    /// `/api/info` meanwhile.
    @Test func followsAreAFewAtATime() async throws {
        let studio = try await StudioProcess.start("crowd.mp4")
        defer { Task { await studio.stop() } }
        let body = "{\"tick\": 30, \"box\": {\"x\": 46.7, \"y\": 100.2, \"width\": 33, \"height\": 42}, \"limit\": 3000}"
        let answers = try await withThrowingTaskGroup(of: StudioProcess.Answer.self) { group in
            for _ in 0..<16 { group.addTask { try await studio.request("/api/follow", method: "POST", body: body) } }
            group.addTask { try await studio.request("/api/info") }
            var all: [StudioProcess.Answer] = []
            for try await a in group { all.append(a) }
            return all
        }
        let followed = answers.filter { $0.status == 200 && $0.json?["boxes"] != nil }
        let refused = answers.filter { $0.status == 503 }
        print("16 follows at once: \(followed.count) followed, \(refused.count) told to ask again")
        #expect(answers.filter { $0.status == 200 && $0.json?["input"] != nil }.count == 1, "/api/info answered meanwhile")
        #expect(followed.count + refused.count == 16, "\(answers.map { "\($0.status) \($0.text.prefix(120))" })")
        #expect(!followed.isEmpty && !refused.isEmpty, "\(followed.count) followed, \(refused.count) refused")
        for r in refused { #expect(!r.text.contains("\n") && r.text.contains("follow:"), "\(r.text)") }
        // Every follow that ran gives the same boxes: none was cut short by another.
        #expect(Set(followed.map { ($0.json?["boxes"] as? [[String: Double]])?.count ?? -1 }) == [60])
        #expect(await studio.stop() == 0)
    }

    /// Find faces (a job), save a reviewed file (checked as --use-detections checks it,
    /// never over a file), render with it: the render's report counts its drawn boxes.
    @Test func findSaveAndRenderWithAReviewedFile() async throws {
        let studio = try await StudioProcess.start("crowd.mp4")
        defer { Task { await studio.stop() } }
        let started = try await studio.request("/api/detect", method: "POST", body: "{\"output\": \"faces.jsonl\"}")
        #expect(started.status == 200, "\(started.text)")
        let id = try #require(started.json?["id"] as? String)
        #expect((started.json?["command"] as? String)?.contains("detect ") == true)
        let states = try await studio.awaitRender(id)
        #expect(states.last?["state"] as? String == "done", "\(states.last ?? [:])")
        let found = try String(contentsOfFile: studio.outputs.path("faces.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(found.count == 60)
        // The same name again is a conflict.
        #expect(try await studio.request("/api/detect", method: "POST", body: "{\"output\": \"faces.jsonl\"}").status == 409)

        let bad = try await studio.request("/api/detections/bad.jsonl", method: "PUT", body: "{\"tick\": 0, \"detections\": []}\n{\"tick\": 99, \"detections\": []}\n")
        #expect(bad.status == 400 && bad.text.contains("bad.jsonl:2: tick 99 is beyond the clip"), "\(bad.text)")
        #expect(!FileManager.default.fileExists(atPath: studio.outputs.path("bad.jsonl")))
        let outside = try await studio.request("/api/detections/..%2Fx.jsonl", method: "PUT", body: "")
        #expect(outside.status == 400)
        // Blank lines are no file; a declared length over the limit is refused before its
        // body is read (the server never waits for those 200 MB), with a 413.
        let blank = try await studio.request("/api/detections/blank.jsonl", method: "PUT", body: "\n\n\n")
        #expect(blank.status == 400 && blank.text.contains("no ticks"), "\(blank.text)")
        let huge = try await studio.request("/api/detections/huge.jsonl", method: "PUT", headers: ["Content-Length: 200000000"], body: "{}")
        #expect(huge.status == 413 && huge.text.contains("128 MB"), "\(huge.status) \(huge.text)")
        #expect(!FileManager.default.fileExists(atPath: studio.outputs.path("blank.jsonl")))

        let reviewed = (0..<60).map { tick in
            "{\"tick\": \(tick), \"detections\": [" + (tick >= 10 && tick <= 20
                ? "{\"trackID\": 7, \"manual\": true, \"bounds\": {\"x\": 600, \"y\": 380, \"width\": 80, \"height\": 90}}" : "") + "]}"
        }.joined(separator: "\n")
        let saved = try await studio.request("/api/detections/reviewed.jsonl", method: "PUT", body: reviewed)
        #expect(saved.status == 200 && saved.json?["manualBoxes"] as? Int == 11, "\(saved.text)")
        #expect(try await studio.request("/api/detections/reviewed.jsonl", method: "PUT", body: reviewed).status == 409)
        #expect(try await studio.request("/api/render", method: "POST",
                                         body: "{\"chain\": \"faceblur\", \"output\": \"r.mp4\", \"detections\": \"nothere.jsonl\"}").status == 400)

        let render = try await studio.request("/api/render", method: "POST",
                                              body: "{\"chain\": \"faceblur\", \"output\": \"r.mp4\", \"detections\": \"reviewed.jsonl\"}")
        #expect(render.status == 200, "\(render.text)")
        #expect((render.json?["command"] as? String)?.contains("--use-detections reviewed.jsonl") == true)
        let done = try await studio.awaitRender(try #require(render.json?["id"] as? String))
        #expect(done.last?["state"] as? String == "done", "\(done.last ?? [:])")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: studio.outputs.path("r.redaction.json")))) as? [String: Any])
        #expect(report["manualBoxes"] as? Int == 11 && report["faceBoxes"] as? Int == 11, "\(report)")
        #expect(await studio.stop() == 0)
    }
}
