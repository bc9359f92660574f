import Effects
import Foundation
import FrameCore
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MediaInput
import NIOCore
import NIOPosix
import Studio
import TestSupport
import Testing

/// The studio's routes driven in this process (HummingbirdTesting sends each request
/// straight to the router, behind the same access middleware the server uses): no
/// process, port or curl. The HTTP server's own walls (long lines, slow heads, the
/// WebSocket's token) are before the router, so their tests start a studio process.
@Suite struct StudioRouteTests {
    /// A studio on a testmedia clip with a scratch outputs folder, its services started
    /// for `body` and stopped after.
    static func withStudio<T: Sendable>(_ clip: String = "h264-30fps.mp4",
                                        _ body: @Sendable (StudioServer, any TestClientProtocol, ScratchDirectory) async throws -> T) async throws -> T {
        let folder = try ScratchDirectory("vidfx-studio-routes")
        let path = CLI.testmedia.appendingPathComponent(clip).path
        let configuration = try StudioServer.Configuration.serving(
            try MediaInput(path, access: .seekable), at: path, folder: OutputFolder(path: folder.url.path),
            frameRate: Rational(30))
        let server = StudioServer(configuration: configuration)
        server.start()
        do {
            let value = try await server.application().test(.router) { client in try await body(server, client, folder) }
            await server.stop()
            return value
        } catch {
            await server.stop()
            throw error
        }
    }

    /// The session's token as a bearer header, with `more`.
    static func headers(_ server: StudioServer, _ more: [HTTPField.Name: String] = [:]) -> HTTPFields {
        var fields = HTTPFields()
        fields[.authorization] = "Bearer \(server.configuration.token)"
        for (name, value) in more { fields[name] = value }
        return fields
    }

    @Test func refusesWithoutTheTokenFromAForeignOriginOrHost() async throws {
        try await Self.withStudio { server, client, _ in
            let token = server.configuration.token
            #expect(try await client.execute(uri: "/api/info", method: .get).status == .unauthorized)
            var wrong = HTTPFields()
            wrong[.authorization] = "Bearer wrong"
            #expect(try await client.execute(uri: "/api/info", method: .get, headers: wrong).status == .forbidden)
            // Issue 65, 1: a token in the query or a cookie is not a token (a cookie goes to
            // every port of 127.0.0.1; a query is logged); the page sets no cookie.
            #expect(try await client.execute(uri: "/api/info?token=\(token)", method: .get).status == .unauthorized)
            var withCookie = HTTPFields()
            withCookie[.cookie] = "vidfx_studio=\(token)"
            #expect(try await client.execute(uri: "/api/info", method: .get, headers: withCookie).status == .unauthorized)
            // The router's requests come to `localhost`: the studio's own origin is
            // http://localhost (port 80 as none is named); another port, `null` or
            // another site are refused, even with the token, for a change above all.
            for origin in ["http://localhost:3000", "null", "http://evil.example", "https://localhost"] {
                let r = try await client.execute(uri: "/api/render", method: .post, headers: Self.headers(server, [.origin: origin]),
                                                 body: ByteBuffer(string: #"{"chain": "sepia", "output": "x.mp4"}"#))
                #expect(r.status == .forbidden, "\(origin): \(r.status)")
                #expect(String(buffer: r.body).contains(origin), "\(origin)")
            }
            #expect(try await client.execute(uri: "/api/info", method: .get, headers: Self.headers(server, [.origin: "http://localhost"])).status == .ok)
            // The page needs no token and holds none; it sets no cookie, and no page may frame it.
            let page = try await client.execute(uri: "/", method: .get)
            #expect(page.status == .ok && String(buffer: page.body).contains("<script src=\"/studio.js\">"))
            #expect(page.headers[.setCookie] == nil)
            #expect(page.headers[.contentSecurityPolicy] == "frame-ancestors 'none'" && page.headers[.init("X-Frame-Options")!] == "DENY")
            let info = try await client.execute(uri: "/api/info", method: .get, headers: Self.headers(server))
            #expect(info.status == .ok)
            #expect(info.headers[.contentSecurityPolicy] == "frame-ancestors 'none'")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(info.body.readableBytesView)) as? [String: Any])
            #expect(json["width"] as? Int == 320 && json["height"] as? Int == 240 && json["ticks"] as? Int == 90, "\(json)")
            #expect(json["frameRate"] as? String == "30", "\(json)")
        }
    }

    /// The page, script and style sheet are the files in Sources/Studio/Assets, with
    /// their types, and name no other host (no CDN, fonts or scripts from elsewhere).
    @Test func assetsAreTheFilesAndNameNoOtherHost() async throws {
        let assets = CLI.directory.appendingPathComponent("Sources/Studio/Assets")
        try await Self.withStudio { server, client, _ in
            for (path, file, type) in [("/", "index.html", "text/html"), ("/studio.js", "studio.js", "text/javascript"),
                                       ("/studio.css", "studio.css", "text/css")] {
                let r = try await client.execute(uri: path, method: .get, headers: Self.headers(server))
                let served = Data(r.body.readableBytesView)
                #expect(r.status == .ok && r.headers[.contentType]?.hasPrefix(type) == true, "\(path): \(r.headers)")
                #expect(served == (try Data(contentsOf: assets.appendingPathComponent(file))), "\(path)")
                let text = String(decoding: served, as: UTF8.self)
                #expect(!text.contains("http://") && !text.contains("https://") && !text.contains("//cdn"), "\(path)")
            }
        }
    }

    @Test func effectsAreTheCatalogsJSON() async throws {
        try await Self.withStudio { server, client, _ in
            let r = try await client.execute(uri: "/api/effects", method: .get, headers: Self.headers(server))
            #expect(r.status == .ok && r.headers[.contentType] == "application/json")
            let catalog = try EffectCatalog.json()
            #expect(Data(r.body.readableBytesView) == catalog)
            let list = try #require(try JSONSerialization.jsonObject(with: Data(r.body.readableBytesView)) as? [[String: Any]])
            #expect(list.contains { $0["name"] as? String == "faceblur" } && list.count == EffectRegistry.all.count, "\(list.count)")
        }
    }

    /// A still in this process is `vidfx dump --at`'s PNG, byte for byte, out of order,
    /// neighbours and a repeat; bad times and chains are 400s with the library's message.
    @Test func aStillIsTheDumpsPNG() async throws {
        let chain = "sepia:amount=0.3@0,0.9@3,pixelate=6"
        let encoded = chain.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        try await Self.withStudio { server, client, _ in
            for t in ["1.5", "0", "2.233334", "2.266667", "0"] {
                let served = try await client.execute(uri: "/api/frame?t=\(t)&chain=\(encoded)", method: .get, headers: Self.headers(server))
                #expect(served.status == .ok && served.headers[.contentType] == "image/png", "t=\(t): \(served.status)")
                let scratch = try ScratchDirectory("vidfx-studio-dump")
                let r = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--at", t, "-e", chain, "-o", scratch.path("f"), "-q"])
                #expect(r.status == 0, "\(r.stderr)")
                let png = try #require(FileManager.default.contents(atPath: scratch.path("f/frame_000000.png")))
                #expect(Data(served.body.readableBytesView) == png, "t=\(t)")
            }
            for (query, says) in [("t=1&chain=nosuch", "unknown effect 'nosuch'"), ("t=-1", "a time in seconds is needed"),
                                  ("t=99&chain=sepia", "99 s is at or past the end of the video"),
                                  ("t=9223372036854775807", "a time in seconds is needed"), ("t=nan", "a time in seconds is needed"),
                                  ("t=1&format=gif", "format: png or bmp")] {
                let r = try await client.execute(uri: "/api/frame?\(query)", method: .get, headers: Self.headers(server))
                let error = (try? JSONSerialization.jsonObject(with: Data(r.body.readableBytesView)) as? [String: Any])?["error"] as? String ?? ""
                #expect(r.status == .badRequest && error.contains(says), "\(query): \(r.status) \(error)")
            }
        }
    }

    /// A file in the folder is served whole or in the part a Range asks for, under its
    /// percent-encoded name; a link or a name that leaves the folder is not served.
    @Test func outputsAreServedAsFilesAndOnlyTheFoldersOwn() async throws {
        try await Self.withStudio { server, client, folder in
            let bytes = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try bytes.write(to: folder.url.appendingPathComponent("prise 2 été.mp4"))
            try FileManager.default.createSymbolicLink(atPath: folder.path("passwd-link"), withDestinationPath: "/etc/passwd")
            let name = "prise%202%20%C3%A9t%C3%A9.mp4"
            let whole = try await client.execute(uri: "/outputs/\(name)", method: .get, headers: Self.headers(server))
            #expect(whole.status == .ok && Data(whole.body.readableBytesView) == bytes)
            #expect(whole.headers[.contentType] == "video/mp4" && whole.headers[.acceptRanges] == "bytes", "\(whole.headers)")
            for (range, part) in [("bytes=100-199", 100...199), ("bytes=990-", 990...999), ("bytes=-10", 990...999)] {
                let r = try await client.execute(uri: "/outputs/\(name)", method: .get, headers: Self.headers(server, [.range: range]))
                #expect(r.status == .partialContent && Data(r.body.readableBytesView) == bytes[part], "\(range): \(r.status)")
                #expect(r.headers[.contentRange] == "bytes \(part.lowerBound)-\(part.upperBound)/1000", "\(range)")
            }
            // An empty file is served empty (a range of it is unsatisfiable).
            _ = FileManager.default.createFile(atPath: folder.path("empty.mp4"), contents: Data())
            let empty = try await client.execute(uri: "/outputs/empty.mp4", method: .get, headers: Self.headers(server))
            #expect(empty.status == .ok && empty.body.readableBytes == 0 && empty.headers[.contentLength] == "0", "\(empty.headers)")
            let emptyPart = try await client.execute(uri: "/outputs/empty.mp4", method: .get, headers: Self.headers(server, [.range: "bytes=0-"]))
            #expect(emptyPart.status == .rangeNotSatisfiable)
            let beyond = try await client.execute(uri: "/outputs/\(name)", method: .get, headers: Self.headers(server, [.range: "bytes=1000-"]))
            #expect(beyond.status == .rangeNotSatisfiable && beyond.headers[.contentRange] == "bytes */1000")
            for refused in ["..%2Fescape.mp4", "%FF%FE.mp4", ".hidden", "-rf.mp4"] {
                #expect(try await client.execute(uri: "/outputs/\(refused)", method: .get, headers: Self.headers(server)).status == .badRequest,
                        "\(refused)")
            }
            let link = try await client.execute(uri: "/outputs/passwd-link", method: .get, headers: Self.headers(server))
            #expect(link.status == .notFound && !String(buffer: link.body).contains("root:"))
            let listing = try await client.execute(uri: "/api/outputs", method: .get, headers: Self.headers(server))
            let names = (try JSONSerialization.jsonObject(with: Data(listing.body.readableBytesView)) as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            #expect(names.contains("prise 2 été.mp4") && !names.contains("passwd-link"), "\(names)")
        }
    }

    /// A chain's files are opened as files of the folder when the chain is built, not
    /// only checked by name before: a name swapped since for a link (to a good LUT or
    /// image outside the folder) or a FIFO is refused, never followed or waited on. A
    /// font path from the page is refused; a fontconfig name is taken.
    @Test func aChainsFilesAreOpenedAsFilesOfTheFolder() async throws {
        try await Self.withStudio { server, client, folder in
            let outside = try ScratchDirectory("vidfx-outside")
            let cube = "LUT_3D_SIZE 2\n" + (0..<8).map { i in "\(i & 1) \(i >> 1 & 1) \(i >> 2)" }.joined(separator: "\n") + "\n"
            for place in [folder.path("look.cube"), outside.path("look.cube")] { try cube.write(toFile: place, atomically: false, encoding: .utf8) }
            for place in [folder.path("mark.png"), outside.path("mark.png")] {
                try FileManager.default.copyItem(atPath: CLI.media("still.png"), toPath: place)
            }
            let parse = server.configuration.parseChain
            // As checked: files of the folder, read from it (whatever the current folder is).
            #expect(try parse("lut:file=look.cube") != nil)
            #expect(try parse("overlay:file=mark.png") != nil)
            let still = try await client.execute(uri: "/api/frame?t=0&chain=lut%3Afile%3Dlook.cube", method: .get, headers: Self.headers(server))
            #expect(still.status == .ok, "\(String(buffer: still.body))")
            // Swapped after the check for links to the same files outside: not followed.
            for name in ["look.cube", "mark.png"] {
                try FileManager.default.removeItem(atPath: folder.path(name))
                try FileManager.default.createSymbolicLink(atPath: folder.path(name), withDestinationPath: outside.path(name))
            }
            for chain in ["lut:file=look.cube", "overlay:file=mark.png", "lut:file=mark.png"] {
                #expect(throws: (any Error).self, "\(chain)") { _ = try parse(chain) }
                do { _ = try parse(chain) } catch { #expect("\(error)".contains("a link, not a file of the outputs folder"), "\(chain): \(error)") }
            }
            // A FIFO: refused at once (a read of one would wait for a writer for ever).
            for name in ["look.cube", "mark.png"] {
                try FileManager.default.removeItem(atPath: folder.path(name))
                #expect(mkfifo(folder.path(name), 0o600) == 0)
            }
            for chain in ["lut:file=look.cube", "overlay:file=mark.png"] {
                do { _ = try parse(chain); Issue.record("\(chain): a FIFO was read") } catch {
                    #expect("\(error)".contains("not a regular file"), "\(chain): \(error)")
                }
            }
            // Fonts: by fontconfig name only.
            #expect(try parse("text:text=a:font='DejaVu Sans'") != nil)
            for font in ["/dev/stdin", "/etc/passwd", "fonts/x.ttf"] {
                do { _ = try parse("text:text=a:font='\(font)'"); Issue.record("\(font) was taken") } catch {
                    #expect("\(error)".contains("font files are not read here"), "\(font): \(error)")
                }
                let chain = "text:text=a:font='\(font)'".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let refused = try await client.execute(uri: "/api/frame?t=0&chain=\(chain)", method: .get, headers: Self.headers(server))
                #expect(refused.status == .badRequest && String(buffer: refused.body).contains("font files are not read here"),
                        "\(font): \(refused.status) \(String(buffer: refused.body))")
            }
        }
    }

    /// The check when a file is opened to be sent, after the name's check: a name swapped
    /// for a link since (to /etc/passwd) or for a file of another size is not opened.
    @Test func aFileIsCheckedAgainWhenOpened() async throws {
        let folder = try ScratchDirectory("vidfx-output-file")
        let threads = NIOThreadPool(numberOfThreads: 1)
        threads.start()
        let path = folder.path("take.mp4")
        try Data(repeating: 7, count: 100).write(to: URL(fileURLWithPath: path))
        let handle = try await OutputFile(path: path, size: 100, threads: threads).open()
        try await handle.close()
        await #expect(throws: (any Error).self) { _ = try await OutputFile(path: path, size: 99, threads: threads).open() }
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/etc/passwd")
        let passwd = try FileManager.default.attributesOfItem(atPath: "/etc/passwd")[.size] as? Int ?? 0
        await #expect(throws: (any Error).self) { _ = try await OutputFile(path: path, size: passwd, threads: threads).open() }
        try await threads.shutdownGracefully()
    }
}
