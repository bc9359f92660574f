import Effects
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Shaders
@testable import Studio
import TestSupport
import Testing

/// The studio as a shader workbench (issue 69), through its routes: a shader typed into
/// the page is compiled and shown as typed, saved into the outputs folder, and told to
/// the page when another program writes it; and the walls a page's text meets.
@Suite struct StudioWorkbenchTests {
    static let sepia = """
        uniform float amount; // range 0…1; default 1
        vec4 effect(vec2 position, vec4 color) {
            vec3 s = vec3(dot(color.rgb, vec3(0.393, 0.769, 0.189)), dot(color.rgb, vec3(0.349, 0.686, 0.168)),
                          dot(color.rgb, vec3(0.272, 0.534, 0.131)));
            return vec4(mix(color.rgb, clamp(s, 0.0, 1.0), amount), color.a);
        }
        """

    static func body(_ object: [String: Any]) throws -> ByteBuffer {
        ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: object))
    }

    static func answer(_ r: TestResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(r.body.readableBytesView)) as? [String: Any]) ?? [:]
    }

    /// Typed, compiled, shown, saved: the still of the typed text is `vidfx dump --at` of
    /// the saved file to the byte; a typo answers its line and column and leaves the last
    /// good text shown; saving over a file asks first.
    @Test func aTypedShaderIsTheDumpOfTheSavedFile() async throws {
        ShaderEffect.register()
        try await StudioRouteTests.withStudio { server, client, folder in
            let headers = StudioRouteTests.headers(server, [.contentType: "application/json"])
            func compile(_ source: String, as name: String = "warm.glsl") async throws -> TestResponse {
                try await client.execute(uri: "/api/shader", method: .post, headers: headers, body: try Self.body(["name": name, "source": source]))
            }
            func still(_ chain: String) async throws -> TestResponse {
                try await client.execute(uri: "/api/frame?t=1&chain=\(chain.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                                         method: .get, headers: StudioRouteTests.headers(server))
            }
            // Not there yet: the chain cannot name it.
            #expect(try await still("warm.glsl:amount=0.5").status == .badRequest)
            let compiled = try await compile(Self.sepia)
            let parameters = Self.answer(compiled)["parameters"] as? [[String: Any]]
            #expect(compiled.status == .ok && parameters?.first?["name"] as? String == "amount", "\(String(buffer: compiled.body))")
            let typed = try await still("warm.glsl:amount=0.5")
            #expect(typed.status == .ok, "\(String(buffer: typed.body))")
            // Not saved: the editor gets the draft back.
            let opened = try await client.execute(uri: "/api/shader?name=warm.glsl", method: .get, headers: StudioRouteTests.headers(server))
            #expect(Self.answer(opened)["draft"] as? Bool == true && Self.answer(opened)["source"] as? String == Self.sepia)
            // A typo: its line and column in the user's text, one line, and the last good text still shown.
            let typo = try await compile(Self.sepia.replacingOccurrences(of: "return vec4(mix(color.rgb", with: "return vec4(mix(colr.rgb"))
            let said = Self.answer(typo)["error"] as? String ?? ""
            #expect(typo.status == .badRequest && said.hasPrefix("warm.glsl:5:21: ") && said.contains("colr") && !said.contains("\n"), "\(typo.status) \(said)")
            #expect(Data(try await still("warm.glsl:amount=0.5").body.readableBytesView) == Data(typed.body.readableBytesView))
            // Saved, then what the command line renders from the file is the page's still.
            let save = try await client.execute(uri: "/api/shader/save", method: .post, headers: headers,
                                                body: try Self.body(["name": "warm.glsl", "source": Self.sepia]))
            #expect(save.status == .ok, "\(String(buffer: save.body))")
            #expect(try String(contentsOfFile: folder.path("warm.glsl"), encoding: .utf8) == Self.sepia)
            let scratch = try ScratchDirectory("vidfx-workbench-dump")
            let r = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--at", "1", "-e", folder.path("warm.glsl") + ":amount=0.5",
                                       "-o", scratch.path("f"), "-q"])
            #expect(r.status == 0, "\(r.stderr)")
            let png = try #require(FileManager.default.contents(atPath: scratch.path("f/frame_000000.png")))
            #expect(Data(typed.body.readableBytesView) == png, "the typed shader's still is the saved file's dump")
            #expect(Self.answer(try await client.execute(uri: "/api/shader?name=warm.glsl", method: .get,
                                                        headers: StudioRouteTests.headers(server)))["draft"] as? Bool == false)
            // Over a file: asked first (409), then with overwrite.
            let again = try await client.execute(uri: "/api/shader/save", method: .post, headers: headers,
                                                 body: try Self.body(["name": "warm.glsl", "source": "// mine\n" + Self.sepia]))
            #expect(again.status == .conflict && (Self.answer(again)["error"] as? String ?? "").contains("exists"))
            let over = try await client.execute(uri: "/api/shader/save", method: .post, headers: headers,
                                                body: try Self.body(["name": "warm.glsl", "source": "// mine\n" + Self.sepia, "overwrite": true]))
            let written = try String(contentsOfFile: folder.path("warm.glsl"), encoding: .utf8)
            #expect(over.status == .ok && written.hasPrefix("// mine\n"))
            // A link at the name is a name taken, even with overwrite: never written through.
            let outside = try ScratchDirectory("vidfx-workbench-outside")
            try "keep".write(toFile: outside.path("x.glsl"), atomically: false, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: folder.path("link.glsl"), withDestinationPath: outside.path("x.glsl"))
            let link = try await client.execute(uri: "/api/shader/save", method: .post, headers: headers,
                                                body: try Self.body(["name": "link.glsl", "source": Self.sepia, "overwrite": true]))
            let kept = try String(contentsOfFile: outside.path("x.glsl"), encoding: .utf8)
            #expect(link.status == .conflict && kept == "keep")
        }
    }

    /// What a page's text meets: a size, no #include however it is spelt, names of the
    /// folder's shaders only, few drafts, two compiles at a time (fifty asked at once are
    /// each answered in one line, and the studio answers meanwhile).
    @Test func aPagesShaderMeetsTheWalls() async throws {
        ShaderEffect.register()
        try await StudioRouteTests.withStudio { server, client, _ in
            let headers = StudioRouteTests.headers(server, [.contentType: "application/json"])
            func compile(_ source: String, as name: String = "wall.glsl") async throws -> (HTTPResponse.Status, String) {
                let r = try await client.execute(uri: "/api/shader", method: .post, headers: headers, body: try Self.body(["name": name, "source": source]))
                return (r.status, Self.answer(r)["error"] as? String ?? "")
            }
            let effect = "\nvec4 effect(vec2 p, vec4 c) { return c; }\n"
            for (source, name, status, said) in [
                (String(repeating: "// a long comment\n", count: 60_000), "wall.glsl", HTTPResponse.Status.contentTooLarge, "up to 64 KiB"),
                ("#include \"/etc/passwd\"" + effect, "wall.glsl", .badRequest, "wall.glsl:1: #include \"/etc/passwd\" is not read"),
                ("  #  include \"../../etc/passwd\"" + effect, "wall.glsl", .badRequest, "#include \"../../etc/passwd\" is not read"),
                ("#inc\\\nlude \"../../etc/passwd\"" + effect, "wall.glsl", .badRequest, "wall.glsl:1: #include \"../../etc/passwd\" is not read"),
                ("#extension GL_GOOGLE_include_directive : enable" + effect, "wall.glsl", .badRequest, "include extensions are not taken"),
                ("#extension GL_GOOGLE_inc\\\nlude_directive : enable" + effect, "wall.glsl", .badRequest, "include extensions are not taken"),
                ("#include <metal_stdlib>\n#include \"/etc/passwd\"\n[[stitchable]] half4 f(float2 p, half4 c) { return c; }", "wall.metal",
                 .badRequest, "wall.metal:2: #include \"/etc/passwd\" is not read"),
                (effect, "../wall.glsl", .badRequest, "name: "),
                (effect, "sepia", .badRequest, "not a shader file's name"),
                (effect, "wall.glsl:amount=1", .badRequest, "not a shader file's name"),
                (effect, "wall.txt", .badRequest, "not a shader file's name"),
            ] {
                let (got, text) = try await compile(source, as: name)
                #expect(got == status && text.contains(said) && !text.contains("\n") && !text.contains("root:"), "\(name) \(source.prefix(40)): \(got) \(text)")
            }
            // Macros expanding a small text into a huge program (six levels of eight: 18 MB of
            // SPIR-V, 1.3 GB in the studio's process to build) are refused before the device
            // builds it.
            var bomb = ["#define A0 x = x * 1.0001 + 0.1;"]
            for i in 1...6 { bomb.append("#define A\(i) " + Array(repeating: "A\(i - 1)", count: 8).joined(separator: " ")) }
            bomb.append("vec4 effect(vec2 p, vec4 c) { float x = c.r; A6 return vec4(x); }")
            let (bombed, bombSaid) = try await compile(bomb.joined(separator: "\n"), as: "bomb.glsl")
            // (On a loaded machine the compiler's own 20 s limit may end it first: a wall too.)
            #expect(bombed == .badRequest && bombSaid.hasPrefix("bomb.glsl: ")
                    && (bombSaid.contains("a shader may make up to 4 MB") || bombSaid.contains("the compiler took more than")), "\(bombed) \(bombSaid)")
            // A body past its limit is refused before it is read whole.
            let huge = try await client.execute(uri: "/api/shader", method: .post, headers: headers,
                                                body: ByteBuffer(bytes: [UInt8](repeating: 32, count: 1 << 20)))
            #expect(huge.status == .contentTooLarge)
            // Sixteen drafts at most.
            for i in 0..<ShaderDrafts.most { let r = try await compile(effect, as: "d\(i).glsl"); #expect(r.0 == .ok, "\(r)") }
            let (status, text) = try await compile(effect, as: "one-more.glsl")
            #expect(status == .serviceUnavailable && text.contains("save or close one"), "\(status) \(text)")
            #expect(try await compile(effect + "// again\n", as: "d3.glsl").0 == .ok, "a draft kept is typed again")
            // Fifty compiles at once: each one line, two compiling at a time, and the studio answers meanwhile.
            let answers = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for i in 0..<50 {
                    group.addTask { try await compile(effect + "// \(i)\n", as: "d\(i % 8).glsl").0 }
                }
                let info = try await client.execute(uri: "/api/info", method: .get, headers: StudioRouteTests.headers(server))
                #expect(info.status == .ok)
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(answers.allSatisfy { $0 == .ok || $0 == .serviceUnavailable } && answers.contains(.ok), "\(answers)")
        }
    }

    /// A shader that runs past its limit on a still is ended with its line, the studio
    /// answers meanwhile, and the same shader renders the next still (it is halted, not
    /// lost: the device is not held by the loop).
    @Test func aRunawayShaderIsEndedAndTheStudioGoesOn() async throws {
        ShaderEffect.register()
        try await StudioRouteTests.withStudio { server, client, _ in
            let headers = StudioRouteTests.headers(server, [.contentType: "application/json"])
            let runaway = """
                #define STEP x = fract(sin(x * 12.9898 + 1.0) * 43758.5453);
                #define S8 STEP STEP STEP STEP STEP STEP STEP STEP
                #define S64 S8 S8 S8 S8 S8 S8 S8 S8
                uniform int turns; // range 0…100000; default 60000
                vec4 effect(vec2 p, vec4 c) {
                    float x = c.r;
                    for (int j = 0; j < turns; j++) { S64 S64 S64 S64 S64 S64 S64 S64 }
                    return vec4(x, c.g, c.b, 1.0);
                }
                """
            let compiled = try await client.execute(uri: "/api/shader", method: .post, headers: headers,
                                                    body: try Self.body(["name": "loop.glsl", "source": runaway]))
            #expect(compiled.status == .ok, "\(String(buffer: compiled.body))")
            let stuck = Task {
                try await client.execute(uri: "/api/frame?t=1&format=bmp&chain=loop.glsl", method: .get, headers: StudioRouteTests.headers(server))
            }
            try await Task.sleep(for: .milliseconds(500))
            let info = try await client.execute(uri: "/api/info", method: .get, headers: StudioRouteTests.headers(server))
            #expect(info.status == .ok)
            let ended = try await stuck.value
            let said = Self.answer(ended)["error"] as? String ?? ""
            #expect(ended.status == .badRequest && said.contains("loop.glsl: the shader ran for more than 10 s on one frame"), "\(ended.status) \(said)")
            let next = try await client.execute(uri: "/api/frame?t=1&format=bmp&chain=loop.glsl:turns=1", method: .get, headers: StudioRouteTests.headers(server))
            #expect(next.status == .ok, "\(String(buffer: next.body))")
            // Its pixels are the shader's: those of the same text under a name never halted.
            let fresh = try await client.execute(uri: "/api/shader", method: .post, headers: headers,
                                                 body: try Self.body(["name": "fresh.glsl", "source": runaway]))
            #expect(fresh.status == .ok)
            let same = try await client.execute(uri: "/api/frame?t=1&format=bmp&chain=fresh.glsl:turns=1", method: .get, headers: StudioRouteTests.headers(server))
            let plain = try await client.execute(uri: "/api/frame?t=1&format=bmp", method: .get, headers: StudioRouteTests.headers(server))
            #expect(same.status == .ok && Data(same.body.readableBytesView) == Data(next.body.readableBytesView)
                    && Data(plain.body.readableBytesView) != Data(next.body.readableBytesView))
        }
    }

    /// A shader file written by another program (the user's own editor) is told to every
    /// open page within the watch's 100 ms, once for a burst of writes; other files are not.
    @Test func aShaderWrittenElsewhereIsToldToThePage() async throws {
        ShaderEffect.register()
        try await StudioRouteTests.withStudio { server, _, folder in
            let (id, notes) = server.notices.watch()
            defer { server.notices.unwatch(id) }
            try await Task.sleep(for: .milliseconds(200))
            try "x".write(toFile: folder.path("notes.txt"), atomically: false, encoding: .utf8)
            for i in 0..<5 { try "// \(i)\n".write(toFile: folder.path("wave.glsl"), atomically: true, encoding: .utf8) }
            try "// b\n".write(toFile: folder.path("b.metal"), atomically: false, encoding: .utf8)
            var told: [String] = []
            for await note in notes {
                let changed = (try? JSONSerialization.jsonObject(with: Data(note.utf8)) as? [String: Any])?["changed"] as? [String] ?? []
                told += changed
                if Set(told).isSuperset(of: ["wave.glsl", "b.metal"]) { break }
            }
            #expect(!told.contains("notes.txt") && told.filter { $0 == "wave.glsl" }.count <= 2, "\(told)")
        }
    }
}
