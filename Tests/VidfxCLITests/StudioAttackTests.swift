import Detection
import Foundation
import FrameCore
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Shaders
import Studio
import TestSupport
import Testing

/// Issue 65: what a red team on the same machine broke in the studio, each attack tried
/// again in this process (HummingbirdTesting, the routes behind the same middleware)
/// where it can be; the attacks on the HTTP server itself are in StudioWallTests.
@Suite struct StudioAttackTests {
    typealias Routes = StudioRouteTests

    static func json(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    /// 2 and 3: a time whose terms are huge, and a render's start or length of 9e18, are
    /// 400s with a line; they once trapped the seek's, the decoder's and the audio's
    /// arithmetic and ended the studio (no token was needed for the still, as an `<img>`).
    @Test func numbersFromThePageCannotTrapTheStudio() async throws {
        try await Routes.withStudio { server, client, _ in
            for t in ["9223372036854775806/9223372036854775807", "1/9223372036854775807", "9223372036854775807",
                      "4611686018427387904/2", "1e300", "-1", "0.0000001", "1/0", "nan"] {
                let r = try await client.execute(uri: "/api/frame?t=\(t)", method: .get, headers: Routes.headers(server))
                #expect(r.status == .badRequest && String(buffer: r.body).hasPrefix(#"{"error":"t: "#), "\(t): \(r.status) \(String(buffer: r.body))")
            }
            // Fractions and microseconds still work: 1/3 s is tick 10.
            for t in ["1/3", "0.000001", "2.999999"] {
                #expect(try await client.execute(uri: "/api/frame?t=\(t)&format=bmp", method: .get, headers: Routes.headers(server)).status == .ok, "\(t)")
            }
            for body in [#"{"output": "a.mp4", "start": 9e18}"#, #"{"output": "a.mp4", "duration": 9e18}"#,
                         #"{"output": "a.mp4", "start": 100000001}"#, #"{"output": "a.mp4", "start": 1e-320, "duration": 1e308}"#] {
                let r = try await client.execute(uri: "/api/render", method: .post, headers: Routes.headers(server), body: Self.json(body))
                #expect(r.status == .badRequest, "\(body): \(r.status) \(String(buffer: r.body))")
            }
            let late = try await client.execute(uri: "/api/render", method: .post, headers: Routes.headers(server),
                                                body: Self.json(#"{"output": "a.mp4", "start": 5}"#))
            #expect(late.status == .badRequest && String(buffer: late.body).contains("past the clip's end (3 s)"), "\(String(buffer: late.body))")
            // And the studio is still there.
            #expect(try await client.execute(uri: "/api/info", method: .get, headers: Routes.headers(server)).status == .ok)
        }
    }

    /// 5: a `.cube` swapped with a link to a file outside the folder (renameat2's exchange,
    /// looped in another process) while 300 stills are made: each still is the folder's own
    /// LUT's or a refusal naming the link, never the outside file's (590 of 2,000 read
    /// /etc/passwd before); swapped with a FIFO, every still still answers.
    @Test func aSwappedFileIsNeverReadThroughTheSwap() async throws {
        try await Routes.withStudio { server, client, folder in
            let outside = try ScratchDirectory("vidfx-race-outside")
            func cube(_ map: (Int, Int, Int) -> (Int, Int, Int)) -> String {
                "LUT_3D_SIZE 2\n" + (0..<8).map { i in let (r, g, b) = map(i & 1, i >> 1 & 1, i >> 2); return "\(r) \(g) \(b)" }.joined(separator: "\n") + "\n"
            }
            try cube { ($0, $1, $2) }.write(toFile: folder.path("race.cube"), atomically: false, encoding: .utf8)
            try cube { (1 - $0, 1 - $1, 1 - $2) }.write(toFile: outside.path("evil.cube"), atomically: false, encoding: .utf8)
            try cube { (1 - $0, 1 - $1, 1 - $2) }.write(toFile: folder.path("evil.cube"), atomically: false, encoding: .utf8)
            func still(_ name: String) async throws -> (HTTPResponse.Status, Data) {
                let r = try await client.execute(uri: "/api/frame?t=1&format=bmp&chain=lut%3Afile%3D\(name)", method: .get, headers: Routes.headers(server))
                return (r.status, Data(r.body.readableBytesView))
            }
            let good = try await still("race.cube")
            let evil = try await still("evil.cube")
            #expect(good.0 == .ok && evil.0 == .ok && good.1 != evil.1)
            for swapIn in ["link", "fifo"] {
                let other = folder.path("swap")
                if swapIn == "link" {
                    try FileManager.default.createSymbolicLink(atPath: other, withDestinationPath: outside.path("evil.cube"))
                } else {
                    #expect(mkfifo(other, 0o600) == 0)
                }
                // The swapper: RENAME_EXCHANGE of race.cube and the link (or FIFO), as fast as it can, until told to stop.
                let stop = folder.path("stop")
                let swapper = """
                    import ctypes, os, sys
                    libc = ctypes.CDLL(None, use_errno=True)
                    a, b, stop = sys.argv[1].encode(), sys.argv[2].encode(), sys.argv[3]
                    open(stop + ".started", "w").close()
                    n = 0
                    while not os.path.exists(stop) and n < 2_000_000:
                        libc.renameat2(-100, a, -100, b, 2); n += 1
                    if n % 2: libc.renameat2(-100, a, -100, b, 2)
                    print(n)
                    """
                let running = Task { try await Subprocess.outcome(URL(fileURLWithPath: "/usr/bin/env"),
                                                                   ["python3", "-c", swapper, folder.path("race.cube"), other, stop], slotted: false) }
                for _ in 0..<2400 where !FileManager.default.fileExists(atPath: stop + ".started") {
                    try await Task.sleep(for: .milliseconds(50))
                }
                try? FileManager.default.removeItem(atPath: stop + ".started")
                var (read, refused, wrong) = (0, 0, 0)
                for _ in 0..<300 {
                    let (status, body) = try await still("race.cube")
                    if status == .ok && body == good.1 { read += 1 } else if status == .badRequest { refused += 1 } else { wrong += 1 }
                    #expect(body != evil.1, "the outside file was read through the \(swapIn)")
                }
                _ = FileManager.default.createFile(atPath: stop, contents: nil)
                let swaps = String(decoding: try await running.value.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                try FileManager.default.removeItem(atPath: stop)
                try FileManager.default.removeItem(atPath: other)
                print("race with a \(swapIn): \(swaps) swaps; \(read) stills of the folder's LUT, \(refused) refused, \(wrong) other")
                #expect(wrong == 0 && read + refused == 300, "\(swapIn): \(read) read, \(refused) refused, \(wrong) other")
                #expect(Int(swaps) ?? 0 > 0, "the swapper ran")
            }
        }
    }

    /// 7: a detections file is never saved into a device or a FIFO through a link, nor
    /// into a FIFO at its name: anything at the name is a name taken (409), at once, and
    /// the upload lock is free for the next one.
    @Test func aSavedDetectionsFileNeverGoesIntoAPipeOrADevice() async throws {
        try await Routes.withStudio { server, client, folder in
            let file = #"{"tick": 3, "detections": [{"trackID": 1, "bounds": {"x": 1, "y": 2, "width": 30, "height": 40}}]}"# + "\n"
            try FileManager.default.createSymbolicLink(atPath: folder.path("devnull.jsonl"), withDestinationPath: "/dev/null")
            #expect(mkfifo(folder.path("fifo.jsonl"), 0o600) == 0)
            try FileManager.default.createSymbolicLink(atPath: folder.path("fifolink.jsonl"), withDestinationPath: folder.path("fifo.jsonl"))
            try FileManager.default.createSymbolicLink(atPath: folder.path("dangling.jsonl"), withDestinationPath: folder.path("nothing-here"))
            for name in ["devnull.jsonl", "fifo.jsonl", "fifolink.jsonl", "dangling.jsonl"] {
                let r = try await client.execute(uri: "/api/detections/\(name)", method: .put, headers: Routes.headers(server), body: Self.json(file))
                #expect(r.status == .conflict, "\(name): \(r.status) \(String(buffer: r.body))")
            }
            #expect(!FileManager.default.fileExists(atPath: folder.path("nothing-here")))
            let saved = try await client.execute(uri: "/api/detections/good.jsonl", method: .put, headers: Routes.headers(server), body: Self.json(file))
            #expect(saved.status == .ok, "the lock is free: \(String(buffer: saved.body))")
        }
    }

    /// 9 and 10: a render's or a still's detections file is read by descriptor (a link or
    /// a FIFO is refused) and bounded: ticks within the clip (a 10^15-tick gap is refused
    /// at once), at most 1,000 boxes a tick.
    @Test func aDetectionsFileIsReadAsAFileOfTheFolderAndBounded() async throws {
        try await Routes.withStudio { server, client, folder in
            let outside = try ScratchDirectory("vidfx-detections-outside")
            let line = { (tick: Int64) in #"{"tick": \#(tick), "detections": [{"trackID": 1, "bounds": {"x": 1, "y": 2, "width": 30, "height": 40}}]}"# }
            try (line(0) + "\n" + line(89) + "\n").write(toFile: outside.path("d.jsonl"), atomically: false, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: folder.path("link.jsonl"), withDestinationPath: outside.path("d.jsonl"))
            #expect(mkfifo(folder.path("fifo.jsonl"), 0o600) == 0)
            try (line(0) + "\n" + line(1_000_000_000_000_000) + "\n").write(toFile: folder.path("gap.jsonl"), atomically: false, encoding: .utf8)
            let crowd = (0..<2).map { tick in
                #"{"tick": \#(tick), "detections": ["# + (0..<8000).map { #"{"trackID": \#($0 + 1), "bounds": {"x": 1, "y": 2, "width": 3, "height": 4}}"# }
                    .joined(separator: ",") + "]}"
            }.joined(separator: "\n")
            try crowd.write(toFile: folder.path("crowd.jsonl"), atomically: false, encoding: .utf8)
            for (name, cause) in [("link.jsonl", "a link"), ("fifo.jsonl", "not a regular file"), ("gap.jsonl", "beyond"),
                                  ("crowd.jsonl", "8000 boxes in one tick")] {
                let render = try await client.execute(uri: "/api/render", method: .post, headers: Routes.headers(server),
                                                      body: Self.json(#"{"chain": "faceblur", "output": "r.mp4", "detections": "\#(name)"}"#))
                #expect(render.status == .badRequest && String(buffer: render.body).contains(cause), "\(name): \(String(buffer: render.body))")
                let still = try await client.execute(uri: "/api/frame?t=0&chain=faceblur&detections=\(name)", method: .get, headers: Routes.headers(server))
                #expect(still.status == .badRequest, "\(name): \(String(buffer: still.body))")
            }
            #expect(!FileManager.default.fileExists(atPath: folder.path("r.mp4")))
        }
    }

    /// 10: interpolation is done as ticks are asked for, so a long gap costs nothing: two
    /// boxes 2^39 ticks apart parse at once, and the tick half-way has the box half-way.
    @Test func interpolationIsLazy() throws {
        let far: Int64 = 1 << 39
        let text = #"{"tick": 0, "detections": [{"trackID": 7, "bounds": {"x": 0, "y": 0, "width": 10, "height": 10}}]}"# + "\n"
            + #"{"tick": \#(far), "detections": [{"trackID": 7, "bounds": {"x": 100, "y": 50, "width": 10, "height": 10}}]}"# + "\n"
            + #"{"tick": 5, "detections": [{"bounds": {"x": 3, "y": 3, "width": 4, "height": 4}}]}"# + "\n"
        let file = try DetectionsFile.parse(Data(text.utf8), path: "gap.jsonl")
        #expect(file.lastTick == far && file.tracks == 2)
        let middle = file.observations(at: far / 2)
        #expect(middle.count == 1 && middle[0].isInterpolated && abs(middle[0].bounds.x - 50) < 1e-6 && abs(middle[0].bounds.y - 25) < 1e-6)
        #expect(file.observations(at: 5).count == 2, "the box without a track is at its own tick only")
        #expect(file.observations(at: 6).count == 1 && file.observations(at: far + 1).isEmpty)
        #expect(file.observations(at: 0).first?.isInterpolated == false)
        #expect(throws: DetectionsFileError.self) { try DetectionsFile.parse(Data(text.utf8), path: "gap.jsonl", tickLimit: 90) }
    }

    /// Issue 66 in the studio: a shader is a file of the outputs folder, read by descriptor
    /// as every file parameter is. The folder's own shader renders; a path, a link to a
    /// shader outside and a FIFO under a shader's name are refused, and stills go on.
    @Test func aShaderIsAFileOfTheFolder() async throws {
        ShaderEffect.register()
        try await Routes.withStudio { server, client, folder in
            let outside = try ScratchDirectory("vidfx-shader-outside")
            let sepia = try String(contentsOf: CLI.directory.appendingPathComponent("shaders/sepia.glsl"), encoding: .utf8)
            try sepia.write(toFile: folder.path("tone.glsl"), atomically: false, encoding: .utf8)
            try sepia.write(toFile: outside.path("tone.glsl"), atomically: false, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: folder.path("link.glsl"), withDestinationPath: outside.path("tone.glsl"))
            #expect(mkfifo(folder.path("pipe.glsl"), 0o600) == 0)
            func still(_ chain: String) async throws -> (HTTPResponse.Status, String) {
                let r = try await client.execute(uri: "/api/frame?t=1&format=bmp&chain=\(chain.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                                                 method: .get, headers: Routes.headers(server))
                return (r.status, r.status == .ok ? "" : String(buffer: r.body))
            }
            let shaded = try await client.execute(uri: "/api/frame?t=1&format=bmp&chain=tone.glsl%3D0.5", method: .get, headers: Routes.headers(server))
            let builtIn = try await client.execute(uri: "/api/frame?t=1&format=bmp&chain=sepia%3D0.5", method: .get, headers: Routes.headers(server))
            #expect(shaded.status == .ok && builtIn.status == .ok)
            let (a, b) = (Array(shaded.body.readableBytesView), Array(builtIn.body.readableBytesView))
            #expect(a.count == b.count && zip(a, b).allSatisfy { abs(Int($0) - Int($1)) <= 1 }, "the folder's shader is the built-in sepia")
            for (chain, said) in [("link.glsl", "not a file of the outputs folder"), ("pipe.glsl", "not a file of the outputs folder"),
                                  ("\(outside.path("tone.glsl"))", "without '/'"), ("./tone.glsl", "without '/'")] {
                let (status, text) = try await still(chain)
                #expect(status == .badRequest && text.contains(said), "\(chain): \(status) \(text)")
            }
            #expect(try await still("tone.glsl").0 == .ok, "stills go on")
            // The page asks for a shader's parameters by name: the folder's file, by the
            // same rules, described as the built-ins are.
            func described(_ name: String) async throws -> (HTTPResponse.Status, String) {
                let r = try await client.execute(uri: "/api/effect?name=\(name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                                                 method: .get, headers: Routes.headers(server))
                return (r.status, String(buffer: r.body))
            }
            let (status, json) = try await described("tone.glsl")
            let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
            let parameters = object?["parameters"] as? [[String: Any]]
            #expect(status == .ok && object?["name"] as? String == "tone.glsl" && parameters?.first?["name"] as? String == "amount"
                    && parameters?.first?["max"] as? Double == 1, "\(status) \(json)")
            for (name, said) in [("link.glsl", "not a file of the outputs folder"), ("pipe.glsl", "not a file of the outputs folder"),
                                 (outside.path("tone.glsl"), "without '/'"), ("sepia", "not a shader file's name"),
                                 ("tone.glsl:amount=2", "not a shader file's name"), ("missing.glsl", "not a file of the outputs folder")] {
                let (status, text) = try await described(name)
                #expect(status == .badRequest && text.contains(said) && !text.contains("\n"), "\(name): \(status) \(text)")
            }
            try "vec4 effect(vec2 p, vec4 c) { return colr; }".write(toFile: folder.path("typo.glsl"), atomically: false, encoding: .utf8)
            let typo = try await described("typo.glsl")
            #expect(typo.0 == .badRequest && typo.1.contains("typo.glsl:1:") && typo.1.contains("colr"), "\(typo)")
        }
    }
}
