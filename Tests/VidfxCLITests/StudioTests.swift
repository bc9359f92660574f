import Effects
import Foundation
import Studio
import TestSupport
import Testing

/// A `vidfx studio` started for a test: a free port on loopback, a scratch outputs folder.
final class StudioProcess: Sendable {
    let running: Subprocess.Running
    /// `http://127.0.0.1:PORT`
    let base: String
    let token: String
    let outputs: ScratchDirectory
    let page: String
    /// Holds the studio's stderr, shown when it ends with a status other than 0.
    private let log: ScratchDirectory

    private init(running: Subprocess.Running, page: String, outputs: ScratchDirectory, log: ScratchDirectory) {
        self.running = running
        self.page = page
        self.outputs = outputs
        self.log = log
        base = String(page[..<page.range(of: "/#token=")!.lowerBound])
        token = String(page[page.range(of: "token=")!.upperBound...].prefix { $0.isHexDigit })
    }

    /// Starts the studio on `input` (a testmedia file, or an absolute path) and waits for its address.
    /// `outputs` is the folder to serve (a new scratch folder when nil); `environment` is
    /// added to the studio's; `browser: true` leaves out `--no-browser`.
    static func start(_ input: String = "h264-30fps.mp4", options: [String] = [], outputs given: ScratchDirectory? = nil,
                      environment: [String: String] = [:], browser: Bool = false) async throws -> StudioProcess {
        let outputs = try given ?? ScratchDirectory("vidfx-studio")
        let log = try ScratchDirectory("vidfx-studio-log")
        _ = FileManager.default.createFile(atPath: log.path("stderr"), contents: nil)
        let process = Process()
        let path = input.hasPrefix("/") ? input : CLI.testmedia.appendingPathComponent(input).path
        // It runs as long as its test: it must not keep other tests' pipes open.
        (process.executableURL, process.arguments) = Subprocess.withoutInheritedDescriptors(
            CLI.executable.path, ["studio", path, "--outputs", outputs.url.path] + (browser ? [] : ["--no-browser"]) + options)
        process.currentDirectoryURL = CLI.directory
        // A clean stop is what the tests check; under CI's load the 2 s watchdog could end a
        // studio whose shutdown was merely slow (ShutdownWatchdogTests hold the watchdog).
        process.environment = ProcessInfo.processInfo.environment.merging(["VIDFX_STUDIO_STOP_GRACE": "30"].merging(environment) { $1 }) { $1 }
        process.standardInput = FileHandle.nullDevice
        let out = Pipe()
        process.standardOutput = out
        process.standardError = try FileHandle(forWritingTo: log.url.appendingPathComponent("stderr"))
        let running = try Subprocess.Running(process)
        var text = ""
        for await chunk in Subprocess.chunks(out.fileHandleForReading) {
            text += String(decoding: chunk, as: UTF8.self)
            if text.contains("\n") { break }
        }
        guard let line = text.split(separator: "\n").first, line.hasPrefix("vidfx studio: http://") else {
            running.signal(SIGKILL)
            _ = await running.exit()
            throw StudioTestError("vidfx studio printed no address: '\(text)'")
        }
        return StudioProcess(running: running, page: String(line.dropFirst("vidfx studio: ".count)), outputs: outputs, log: log)
    }

    /// Ends it as Ctrl-C would; its exit status.
    @discardableResult
    func stop() async -> Int32 {
        running.signal(SIGTERM)
        let status = await running.exit().status
        if status != 0 {
            // What the studio said is the only clue to an exit that load or a sanitizer caused.
            let said = String(decoding: FileManager.default.contents(atPath: log.path("stderr")) ?? Data(), as: UTF8.self)
            FileHandle.standardError.write(Data("vidfx studio ended with status \(status); its stderr:\n\(said.suffix(8000))\n".utf8))
        }
        return status
    }

    struct Answer {
        var status: Int
        var body: Data
        var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// One request through curl (which, unlike URLSession, sends the Host it is told to).
    func request(_ path: String, method: String = "GET", headers: [String] = [], body: String? = nil, token: Bool = true) async throws -> Answer {
        let scratch = try ScratchDirectory("vidfx-studio-curl")
        var arguments = ["-s", "-o", scratch.path("body"), "-w", "%{http_code}", "-X", method]
        if token { arguments += ["-H", "Authorization: Bearer \(self.token)"] }
        for h in headers { arguments += ["-H", h] }
        if let body { arguments += ["-H", "Content-Type: application/json", "--data-binary", body] }
        arguments.append(base + path)
        // No slot: a request would wait for one behind other tests' programs while the
        // studio's own 30-min limit runs (in a CI run beside two busy loops, 2026-11-27,
        // that limit killed the studios mid-test).
        let outcome = try await Subprocess.outcome(URL(fileURLWithPath: "/usr/bin/curl"), arguments, slotted: false)
        let status = Int(String(decoding: outcome.stdout, as: UTF8.self)) ?? -1
        return Answer(status: status, body: FileManager.default.contents(atPath: scratch.path("body")) ?? Data())
    }

    /// Polls a render until it is no longer running; every status seen.
    func awaitRender(_ id: String) async throws -> [[String: Any]] {
        var seen: [[String: Any]] = []
        while true {
            let s = try #require(try await request("/api/render/\(id)").json)
            seen.append(s)
            if s["state"] as? String != "running" { return seen }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The visible and hidden files in the outputs folder, but the timeline strip kept there.
    var outputFiles: [String] { allOutputFiles.filter { $0 != ".vidfx-cache" } }

    /// Every file in the outputs folder.
    var allOutputFiles: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: outputs.url.path)) ?? []).sorted() }
}

struct StudioTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What the studio lets in, and what it refuses, checked without a server.
@Suite struct StudioAccessTests {
    let access = StudioAccess(token: "abc123", listenHost: "127.0.0.1", allowRemote: false)

    @Test func hostsItAnswersTo() {
        for host in ["127.0.0.1:8700", "localhost:8700", "LOCALHOST", "[::1]:8700", "127.0.0.1"] {
            #expect(access.allows(host: host), "\(host)")
        }
        // DNS rebinding: an attacker's name resolving to 127.0.0.1.
        for host in ["evil.example:8700", "127.0.0.1.evil.example", "192.168.1.5:8700", "", "[::2]:80"] {
            #expect(!access.allows(host: host), "\(host)")
        }
        let remote = StudioAccess(token: "t", listenHost: "0.0.0.0", allowRemote: true)
        #expect(remote.allows(host: "192.168.1.5:8700") && remote.allows(host: "[fe80::1]:8700"))
        #expect(!remote.allows(host: "evil.example:8700"))
    }

    /// Issue 65, 1 and 14: the token is taken as a bearer token or a WebSocket's
    /// subprotocol, never from a query or a cookie (a browser sends cookies to every port
    /// of 127.0.0.1, and a same-site page could plant one); a browser's request made by
    /// another page (Sec-Fetch-Site) is refused with the token too.
    @Test func tokenOnlyAsBearerOrSubprotocol() {
        func check(bearer: String? = nil, protocols: String? = nil, host: String = "127.0.0.1:1", origin: String? = nil,
                   site: String? = nil, path: String = "/api/info") -> StudioAccess.Refusal? {
            access.check(host: host, origin: origin, fetchSite: site, authorization: bearer, protocols: protocols, path: path)
        }
        #expect(check() == .noToken)
        #expect(check(bearer: "Bearer abc123") == nil)
        #expect(check(bearer: "Bearer abc12") == .wrongToken)
        #expect(check(bearer: "Basic abc123") == .noToken)
        #expect(check(protocols: "vidfx, vidfx-token.abc123") == nil)
        #expect(check(protocols: "vidfx, vidfx-token.abc1234") == .wrongToken)
        #expect(check(protocols: "vidfx") == .noToken)
        // Two tokens, one wrong: refused (the guard and the router read the same).
        #expect(check(bearer: "Bearer abc123", protocols: "vidfx-token.nope") == .wrongToken)
        #expect(check(bearer: "Bearer abc123", host: "evil.example:1") == .foreignHost("evil.example:1"))
        // The page itself needs no token (it holds no secret); its API does.
        for path in ["/", "/studio.js", "/studio.css"] { #expect(check(path: path) == nil, "\(path)") }
        #expect(check(site: "none", path: "/") == nil, "the user opening the address")
        #expect(check(bearer: "Bearer abc123", site: "same-origin") == nil)
        for site in ["same-site", "cross-site", "none"] {
            #expect(check(bearer: "Bearer abc123", site: site) == .foreignPage(site), "\(site)")
        }
        #expect(check(site: "same-site", path: "/") == .foreignPage("same-site"), "not framed or fetched by another port's page")
        // A page of another site (its Origin) is refused even with the token.
        #expect(check(bearer: "Bearer abc123", origin: "http://evil.example") == .foreignHost("http://evil.example"))
        #expect(check(bearer: "Bearer abc123", host: "127.0.0.1:8700", origin: "http://127.0.0.1:8700") == nil)
        #expect(check(bearer: "Bearer abc123", host: "localhost:8700", origin: "http://LOCALHOST:8700") == nil)
        #expect(check(bearer: "Bearer abc123", host: "[::1]:8700", origin: "http://[::1]:8700") == nil)
        for origin in ["http://localhost:3000", "http://127.0.0.1:3000", "null", "http://127.0.0.1", "https://127.0.0.1:8700",
                       "http://localhost:8700", "file://", "http://127.0.0.1:8700.evil.example"] {
            #expect(check(bearer: "Bearer abc123", host: "127.0.0.1:8700", origin: origin) == .foreignHost(origin), "\(origin)")
        }
    }

    /// Numbers from the page (a seek's tick, an edit's number) are whole and in range, or
    /// ignored: 2^63 − 1 as a seek once overflowed the tick arithmetic and ended the studio.
    /// A field of the wrong kind is left out and the message's other fields still apply.
    @Test func numbersFromThePageAreCheckedBeforeUse() throws {
        let limit: Int64 = 1 << 31
        for (json, expected) in [("0", Int64(0)), ("30", 30), ("2147483648", limit)] {
            #expect(LiveCommand.decode("{\"seek\": \(json), \"play\": true}") == LiveCommand(play: true, seek: expected), "\(json)")
        }
        for json in ["9223372036854775807", "4611686018427387904", "2147483649", "-1", "1.5", "1e300", "-1e300", "\"5\"", "true",
                     "false", "null", "[1]", "{}", "18446744073709551616"] {
            #expect(LiveCommand.decode("{\"seek\": \(json), \"play\": false}") == LiveCommand(play: false), "\(json)")
            #expect(LiveCommand.decode("{\"edit\": \(json), \"chain\": \"sepia\"}") == LiveCommand(chain: "sepia"), "\(json)")
        }
        #expect(LiveCommand.decode("{\"edit\": 2147483647, \"chain\": \"\"}") == LiveCommand(chain: "", edit: 2_147_483_647))
        #expect(LiveCommand.decode("{\"split\": null}") == LiveCommand(setsSplit: true))
        #expect(LiveCommand.decode("{\"split\": 0.25}") == LiveCommand(setsSplit: true, split: 0.25))
        #expect(LiveCommand.decode("{\"play\": 1}") == LiveCommand(), "1 is not true")
        for notAnObject in ["[]", "\"seek\"", "", "{", "null"] { #expect(LiveCommand.decode(notAnObject) == nil, "\(notAnObject)") }
    }

    /// A render's request, typed: each field of the wrong type or out of range is refused
    /// with a line naming it, before anything starts.
    @Test func renderRequestsAreReadField() throws {
        func refusal(_ json: String) -> String? {
            do { _ = try RenderRequest.decode(Data(json.utf8)); return nil } catch { return error.message }
        }
        #expect(try RenderRequest.decode(Data(#"{"chain": "sepia", "output": "a.mp4", "start": 1.5, "duration": 2, "loop": 3, "detections": "d.jsonl"}"#.utf8))
                == RenderRequest(chain: "sepia", output: "a.mp4", start: 1.5, duration: 2, loop: 3, detections: "d.jsonl"))
        #expect(try RenderRequest.decode(Data(#"{"output": "a.mp4"}"#.utf8)) == RenderRequest(output: "a.mp4"))
        for (json, field) in [(#"{"chain": "sepia"}"#, "output: a file name is needed"), (#"{"output": 5}"#, "output: "),
                              (#"{"output": "a.mp4", "start": -1}"#, "start: a number of seconds"), (#"{"output": "a.mp4", "start": "1"}"#, "start: "),
                              (#"{"output": "a.mp4", "duration": true}"#, "duration: "), (#"{"output": "a.mp4", "loop": 0}"#, "loop: how many times"),
                              (#"{"output": "a.mp4", "loop": 1.5}"#, "loop: "), (#"{"output": "a.mp4", "loop": 1e300}"#, "loop: "),
                              (#"{"output": "a.mp4", "loop": 100001}"#, "loop: "), (#"{"output": "a.mp4", "detections": ["x"]}"#, "detections: "),
                              (#"{"output": "a.mp4", "chain": {}}"#, "chain: "), (#"[1]"#, "the body must be a JSON object"),
                              ("not json", "the body must be a JSON object"), ("", "the body must be a JSON object")] {
            let said = refusal(json)
            #expect(said?.hasPrefix(field) == true, "\(json): \(said ?? "accepted")")
        }
    }

    /// The review's bodies are typed too: a follow's tick, box and limit and a search's
    /// output are each checked as read, and a refusal names the field.
    @Test func reviewRequestsAreReadField() throws {
        let follow = try FollowRequest.decode(Data(#"{"tick": 12, "box": {"x": 1.5, "y": 2, "width": 30, "height": 40}}"#.utf8))
        #expect(follow.tick == 12 && follow.x == 1.5 && follow.height == 40 && follow.limit == 150)
        #expect(try FollowRequest.decode(Data(#"{"tick": 0, "box": {"x": 0, "y": 0, "width": 4, "height": 4}, "limit": 0}"#.utf8)).limit == 0)
        func refusal<T: StudioRequestBody>(_ type: T.Type, _ json: String) -> String? {
            do { _ = try T.decode(Data(json.utf8)); return nil } catch { return error.message }
        }
        let box = #""box": {"x": 1, "y": 2, "width": 30, "height": 40}"#
        for (json, field) in [(#"{\#(box)}"#, "tick: "), (#"{"tick": 1.5, \#(box)}"#, "tick: "), (#"{"tick": -1, \#(box)}"#, "tick: "),
                              (#"{"tick": 1e300, \#(box)}"#, "tick: "), (#"{"tick": "3", \#(box)}"#, "tick: "), (#"{"tick": 3}"#, "box: "),
                              (#"{"tick": 3, "box": {"x": 1, "y": 2, "width": 30}}"#, "box: "), (#"{"tick": 3, "box": [1, 2, 3, 4]}"#, "box: "),
                              (#"{"tick": 3, \#(box), "limit": 3001}"#, "limit: "), (#"{"tick": 3, \#(box), "limit": 2.5}"#, "limit: "),
                              ("[]", "the body must be a JSON object {\"tick\"")] {
            let said = refusal(FollowRequest.self, json)
            #expect(said?.hasPrefix(field) == true, "\(json): \(said ?? "accepted")")
        }
        #expect(try DetectRequest.decode(Data(#"{"output": "faces.jsonl"}"#.utf8)).output == "faces.jsonl")
        for json in [#"{"output": "faces.json"}"#, #"{"output": 3}"#, "{}"] {
            #expect(refusal(DetectRequest.self, json) == "output: a file name ending in .jsonl is needed", "\(json)")
        }
    }

    @Test func outputNames() {
        for good in ["out.mp4", "take 2.mov", "grade.cube", "été.mp4"] { #expect(OutputFolder.problem(with: good) == nil, "\(good)") }
        // Issue 65, 14: right-to-left overrides and other direction or invisible characters too.
        for bad in ["", "../out.mp4", "..", "/tmp/out.mp4", "sub/out.mp4", ".hidden.mp4", "a..b.mp4", "x\u{1}.mp4", "-y.mp4", "--help",
                    "evil\u{202E}4pm.exe", "a\u{2066}b.mp4", "a\u{200F}.mp4", "a\u{200B}.mp4", "a\u{85}.mp4", "a\u{2028}.mp4", "\u{FEFF}a.mp4"] {
            #expect(OutputFolder.problem(with: bad) != nil, "\(bad)")
        }
    }

    @Test func filesOfAChainAreFoundWithoutOpeningThem() throws {
        #expect(try EffectChain.files(in: "sepia,lut:file=/etc/passwd:intensity=0.5,overlay:file=../x.png") == ["/etc/passwd", "../x.png"])
        #expect(try EffectChain.files(in: "lut=grade.cube") == ["grade.cube"])
        #expect(try EffectChain.files(in: "sepia:amount=0@0,1@2s,pixelate=8").isEmpty)
        #expect(throws: EffectError.self) { try EffectChain.files(in: "nosuch") }
    }
}

/// The studio's API and its guards, through a running `vidfx studio`.
@Suite struct StudioServerTests {
    // The token, Origin and Host walls, the assets, the effects' JSON, exact stills and
    // files with ranges are driven in this process by StudioRouteTests.
    @Test func byteRangesAreReadAsRFC9110Says() {
        #expect(ByteRange(header: nil, size: 100) == .whole)
        #expect(ByteRange(header: "bytes=0-0", size: 100) == .part(0...0))
        #expect(ByteRange(header: "bytes=10-", size: 100) == .part(10...99))
        #expect(ByteRange(header: "bytes=-30", size: 100) == .part(70...99))
        #expect(ByteRange(header: "bytes=-300", size: 100) == .part(0...99))
        #expect(ByteRange(header: "bytes=90-200", size: 100) == .part(90...99))
        #expect(ByteRange(header: "bytes=0-1,5-6", size: 100) == .whole)
        #expect(ByteRange(header: "items=0-1", size: 100) == .whole)
        for bad in ["bytes=100-", "bytes=5-4", "bytes=-0", "bytes=-", "bytes=a-b", "bytes=99999999999999999999-", "bytes=1-2-3"] {
            #expect(ByteRange(header: bad, size: 100) == .unsatisfiable, "\(bad)")
        }
        #expect(ByteRange(header: "bytes=0-", size: 0) == .unsatisfiable)
    }

    /// The page's format while scrubbing: a BMP whose rows are dump's raw BGRA, byte for
    /// byte, behind the 122-byte header (a top-down 32-bit bitmap with explicit masks).
    @Test func aBMPStillCarriesTheDumpsPixels() async throws {
        let studio = try await StudioProcess.start()
        defer { Task { await studio.stop() } }
        let chain = "sepia:amount=0.3@0,0.9@3,pixelate=6"
        for t in ["2", "0.5", "0.533333"] {
            let served = try await studio.request("/api/frame?t=\(t)&format=bmp&chain=\(chain.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            let scratch = try ScratchDirectory("vidfx-studio-bmp")
            let r = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--at", t, "-e", chain, "--format", "bgra", "-o", scratch.path("f.bgra"), "-q"])
            #expect(r.status == 0, "\(r.stderr)")
            let raw = try #require(FileManager.default.contents(atPath: scratch.path("f.bgra")))
            #expect(served.status == 200 && served.body.count == 122 + raw.count, "t=\(t)")
            #expect(served.body.prefix(2) == Data("BM".utf8) && served.body.dropFirst(122) == raw, "t=\(t)")
        }
        #expect(try await studio.request("/api/frame?t=1&format=gif").status == 400)
        #expect(await studio.stop() == 0)
    }

    /// Real footage's conversions (an HLG 10-bit tone map, a rotation, interlaced fields)
    /// in the kept decoder give dump's bytes too, seeking back and decoding on.
    @Test(arguments: ["hlg-10bit.mkv", "rotated90.mp4", "interlaced.ts"])
    func stillsOfRealFootageAreTheDumps(clip: String) async throws {
        let studio = try await StudioProcess.start(clip)
        defer { Task { await studio.stop() } }
        for t in ["0.3", "0", "0.333334", "0.4"] {
            let served = try await studio.request("/api/frame?t=\(t)&chain=vibrance")
            let scratch = try ScratchDirectory("vidfx-studio-dump")
            let r = try await CLI.run(["dump", CLI.media(clip), "--at", t, "-e", "vibrance", "-o", scratch.path("f"), "-q"])
            #expect(r.status == 0, "\(r.stderr)")
            let png = try #require(FileManager.default.contents(atPath: scratch.path("f/frame_000000.png")))
            #expect(served.status == 200 && served.body == png, "\(clip) t=\(t)")
        }
        #expect(await studio.stop() == 0)
    }

    @Test func namesAndFilesOutsideTheFolderAreRefused() async throws {
        let studio = try await StudioProcess.start()
        defer { Task { await studio.stop() } }
        for output in ["../escape.mp4", "/tmp/escape.mp4", "sub/x.mp4", ".hidden.mp4", "..", "-y.mp4"] {
            let r = try await studio.request("/api/render", method: "POST", body: #"{"chain": "sepia", "output": "\#(output)"}"#)
            #expect(r.status == 400, "\(output): \(r.text)")
        }
        for chain in ["lut:file=/etc/passwd", "overlay:file=../x.png", "lut=sub/../../grade.cube", "@/etc/passwd"] {
            let render = try await studio.request("/api/render", method: "POST", body: #"{"chain": "\#(chain)", "output": "x.mp4"}"#)
            #expect(render.status == 400, "\(chain): \(render.text)")
            let still = try await studio.request("/api/frame?t=0&chain=\(chain.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            #expect(still.status == 400, "\(chain): \(still.text)")
        }
        #expect(try await studio.request("/outputs/..%2F..%2Fetc%2Fpasswd").status != 200)
        #expect(try await studio.request("/outputs/.hidden").status == 400)
        #expect(!FileManager.default.fileExists(atPath: studio.outputs.url.deletingLastPathComponent().appendingPathComponent("escape.mp4").path))
        #expect(studio.outputFiles.isEmpty)
        #expect(await studio.stop() == 0)
    }

    /// Links and special files inside the folder are not its files: a link to /etc/passwd
    /// is neither served, listed nor read as a LUT, and a FIFO is never opened (a read of
    /// one blocks until something writes).
    @Test func linksAndPipesInTheFolderAreNotItsFiles() async throws {
        let studio = try await StudioProcess.start()
        defer { Task { await studio.stop() } }
        let folder = studio.outputs.url.path
        try FileManager.default.createSymbolicLink(atPath: folder + "/passwd-link", withDestinationPath: "/etc/passwd")
        try FileManager.default.createSymbolicLink(atPath: folder + "/grade.cube", withDestinationPath: "/etc/passwd")
        #expect(mkfifo(folder + "/fifo.cube", 0o600) == 0)
        let served = try await studio.request("/outputs/passwd-link")
        #expect(served.status == 404 && !served.text.contains("root:"), "\(served.status) \(served.text.prefix(80))")
        let listing = try await studio.request("/api/outputs")
        #expect(listing.status == 200 && !listing.text.contains("passwd-link") && !listing.text.contains("fifo.cube"), "\(listing.text)")
        for chain in ["lut:file=grade.cube", "lut:file=fifo.cube", "lut:file=pipe:0", "overlay:file=passwd-link"] {
            let still = try await studio.request("/api/frame?t=0&chain=\(chain.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            #expect(still.status == 400 && still.text.contains("not a file of the outputs folder"), "\(chain): \(still.status) \(still.text)")
            let render = try await studio.request("/api/render", method: "POST", body: #"{"chain": "\#(chain)", "output": "x.mp4"}"#)
            #expect(render.status == 400, "\(chain): \(render.text)")
        }
        // A chain longer than any made by hand (166,000 effects once hung the server).
        let long = Array(repeating: "sepia", count: 4000).joined(separator: ",")
        let refused = try await studio.request("/api/render", method: "POST", body: #"{"chain": "\#(long)", "output": "x.mp4"}"#)
        #expect(refused.status == 400 && refused.text.contains("the studio takes chains of up to"), "\(refused.status) \(refused.text.prefix(200))")
        #expect(await studio.stop() == 0)
    }

    /// Issue 65, 4: the shipped command parses the page's chains with the studio's own
    /// safe parser: a font is a name, never a path (`/etc/shadow` was opened, a FIFO
    /// froze every later still), and a file parameter is a file of the folder, read by
    /// descriptor. The route tests build the server as `serving()` does; this is the
    /// command's own configuration, through a running `vidfx studio`.
    @Test func theShippedCommandUsesTheSafeChainParser() async throws {
        let studio = try await StudioProcess.start(options: ["-e", "sepia"])
        defer { Task { await studio.stop() } }
        let fifo = studio.outputs.path("font.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        for font in ["/etc/shadow", fifo, "/etc/passwd"] {
            let chain = "text:text=hi:font=\(font)".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let still = try await studio.request("/api/frame?t=0&chain=\(chain)")
            #expect(still.status == 400 && still.text.contains("font files are not read here"), "\(font): \(still.status) \(still.text)")
        }
        // A fontconfig name still works, and stills go on after the refusals.
        let named = try await studio.request("/api/frame?t=0&chain=" + "text:text=hi:font=DejaVu Sans".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        #expect(named.status == 200, "\(named.text)")
        let outside = try ScratchDirectory("vidfx-studio-outside")
        try "LUT_3D_SIZE 2\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n".write(toFile: outside.path("a.cube"), atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: studio.outputs.path("a.cube"), withDestinationPath: outside.path("a.cube"))
        #expect(try await studio.request("/api/frame?t=0&chain=lut%3Afile%3Da.cube").status == 400)
        #expect(await studio.stop() == 0)
    }

    /// Issue 65, 12: the browser is given a private page's path, never the token (a
    /// command line is public: `ps`). The page is mode 0600 in a folder of mode 0700,
    /// sends the browser on to the address with its token after `#`, and is gone when the
    /// studio ends. A stand-in `xdg-open` on the PATH records what it was given.
    @Test func theBrowserIsStartedWithoutTheToken() async throws {
        let bin = try ScratchDirectory("vidfx-fake-xdg-open")
        let record = bin.path("record")
        try """
            #!/bin/sh
            f="${1#file://}"
            { echo "args: $*"; stat -c '%a' "$f"; stat -c '%a' "$(dirname "$f")"; cat "$f"; } > \(record).part && mv \(record).part \(record)
            """.write(toFile: bin.path("xdg-open"), atomically: false, encoding: .utf8)
        chmod(bin.path("xdg-open"), 0o755)
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let runtime = try ScratchDirectory("vidfx-runtime")
        let studio = try await StudioProcess.start(environment: ["DISPLAY": ":987", "PATH": bin.url.path + ":" + path,
                                                                 "XDG_RUNTIME_DIR": runtime.url.path], browser: true)
        var said = ""
        for _ in 0..<1200 where said.isEmpty {
            said = (try? String(contentsOfFile: record, encoding: .utf8)) ?? ""
            if said.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        }
        let lines = said.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count > 3, "\(said)")
        if lines.count > 3 {
            #expect(lines[0].hasPrefix("args: file://\(runtime.url.path)/vidfx-studio-") && !lines[0].contains(studio.token), "\(lines[0])")
            #expect(lines[1] == "600" && lines[2] == "700", "\(lines[1]) \(lines[2])")
            #expect(said.contains("location.replace(\"\(studio.base)/#token=\(studio.token)\")"), "\(said)")
        }
        #expect(await studio.stop() == 0)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: runtime.url.path)) ?? []
        #expect(left.isEmpty, "the page and its folder are removed: \(left)")
    }

    @Test func aNonLoopbackAddressNeedsTheFlag() async throws {
        // A name that merely starts like a loopback address is a name (resolved by DNS).
        for listen in ["0.0.0.0:0", "127.evil.example:0", "127.0.0.1.nip.io:0", "[::2]:0"] {
            let r = try await CLI.run(["studio", CLI.media("h264-30fps.mp4"), "--listen", listen, "--no-browser"])
            #expect(r.status != 0, "\(listen)")
            #expect(r.stderr.contains("--allow-remote") && r.stderr.split(separator: "\n").count == 1, "\(listen): \(r.stderr)")
        }
        // With it, the studio starts (and still wants the token).
        let studio = try await StudioProcess.start(options: ["--listen", "0.0.0.0:0", "--allow-remote"])
        defer { Task { await studio.stop() } }
        #expect(try await studio.request("/api/info", token: false).status == 401)
        #expect(try await studio.request("/api/info").status == 200)
        #expect(await studio.stop() == 0)
    }

    @Test func aRenderIsTheApplyOfItsChain() async throws {
        let studio = try await StudioProcess.start()
        defer { Task { await studio.stop() } }
        let chain = "sepia:amount=0.2@0,1@3,pixelate:size=8"
        let started = try await studio.request("/api/render", method: "POST", body: #"{"chain": "\#(chain)", "output": "look.mp4"}"#)
        let id = try #require(started.json?["id"] as? String, "\(started.text)")
        let seen = try await studio.awaitRender(id)
        let last = try #require(seen.last)
        #expect(last["state"] as? String == "done", "\(last)")
        let progress = seen.compactMap { ($0["progress"] as? NSNumber)?.doubleValue }
        #expect(progress == progress.sorted() && progress.last == 1)
        #expect(studio.outputFiles == ["look.mp4"])
        // The same frames as the command line's apply with that chain.
        let scratch = try ScratchDirectory("vidfx-studio-apply")
        let cli = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-e", chain, "-o", scratch.path("cli.mp4"), "-q"])
        #expect(cli.status == 0, "\(cli.stderr)")
        let ours = try await Self.frameHashes(studio.outputs.path("look.mp4"))
        let theirs = try await Self.frameHashes(scratch.path("cli.mp4"))
        #expect(ours.count == 90 && ours == theirs)
        // The output is served for playing and downloading; an existing name is not overwritten.
        let served = try await studio.request("/outputs/look.mp4")
        #expect(served.status == 200 && served.body == FileManager.default.contents(atPath: studio.outputs.path("look.mp4")))
        let again = try await studio.request("/api/render", method: "POST", body: #"{"chain": "sepia", "output": "look.mp4"}"#)
        #expect(again.status == 409)
        #expect(await studio.stop() == 0)
    }

    @Test func aCancelledRenderLeavesNothing() async throws {
        let studio = try await StudioProcess.start()
        defer { Task { await studio.stop() } }
        // An hour and a half of output: still running when the cancel comes, however busy the machine.
        let started = try await studio.request("/api/render", method: "POST",
                                               body: #"{"chain": "sepia", "output": "cut.mp4", "loop": 1800}"#)
        let id = try #require(started.json?["id"] as? String, "\(started.text)")
        #expect(try await studio.request("/api/render/\(id)").json?["state"] as? String == "running")
        #expect(try await studio.request("/api/render/\(id)", method: "DELETE").status == 200)
        let last = try #require(try await studio.awaitRender(id).last)
        #expect(last["state"] as? String == "failed" && last["error"] as? String == "cancelled", "\(last)")
        #expect(studio.outputFiles.isEmpty, "\(studio.outputFiles)")
        #expect(try await studio.request("/api/render/nosuch").status == 404)
        #expect(await studio.stop() == 0)
    }

    /// Each decoded frame's MD5, from ffmpeg.
    static func frameHashes(_ path: String) async throws -> [String] {
        let out = try await Subprocess.output("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-map", "0:v", "-f", "framemd5", "-"])
        return String(decoding: out, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.split(separator: ",").last ?? "") }
    }
}

/// The stills' queue, in process: while one still renders, a newer request pushes the
/// oldest waiting one out (answered at once), and the newest is always rendered.
@Suite struct StillQueueTests {
    /// Holds the stills' thread (a Dispatch thread, not a cooperative one) until opened.
    final class Gate: @unchecked Sendable {
        private let condition = NSCondition()
        private var isOpen = false
        private var entered = false

        var hasEntered: Bool { condition.lock(); defer { condition.unlock() }; return entered }

        func enterAndWait() {
            condition.lock()
            entered = true
            while !isOpen { condition.wait() }
            condition.unlock()
        }

        func open() {
            condition.lock()
            isOpen = true
            condition.broadcast()
            condition.unlock()
        }
    }

    @Test func aNewerStillSupersedesTheOldestWaiting() async throws {
        try await Self.supersede(StillQueue(depth: 1))
    }

    /// Three stills on a queue of depth 1: the first holds the thread (`held` runs then),
    /// the second waits and is pushed out by the third, answered while the first still
    /// holds the thread; the first and the third are made.
    static func supersede(_ queue: StillQueue, held: () -> Void = {}) async throws {
        let gate = Gate()
        let first = Task { try await queue.run { gate.enterAndWait(); return 1 } }
        while !gate.hasEntered { try await Task.sleep(for: .milliseconds(5)) }
        held()
        let second = Task { try await queue.run { 2 } }
        // Once the second waits (the first took its job off the queue), a third pushes it out.
        while queue.waitingCount < 1 { try await Task.sleep(for: .milliseconds(5)) }
        let third = Task { try await queue.run { 3 } }
        await #expect(throws: (any Error).self) { try await second.value }
        gate.open()
        #expect(try await first.value == 1)
        #expect(try await third.value == 3)
    }
}

/// The render queue, in process, with a double for the render: work that runs until it
/// is stopped, or to a given end. At most `parallel` run; the rest wait in order with
/// their place; a full queue refuses; a cancel frees a place or a core, and the next
/// waiting render starts; progress and failures arrive as values.
@Suite struct RenderQueueTests {
    /// A render that ends only when stopped (polling, as the renderer does between frames),
    /// and then fails as a stopped render does.
    static let untilStopped: RenderJobs.Work = { stop, progress in
        progress(0.25)
        // On the job's own thread (RenderJobs starts one), not a cooperative one.
        let pause = NSCondition()
        pause.lock()
        while !stop.isRequested { _ = pause.wait(until: Date(timeIntervalSinceNow: 0.002)) }
        pause.unlock()
        throw StudioTestError("stopped")
    }

    @Test func atMostOnePerCoreRunsAndTheRestWaitInOrder() async throws {
        let jobs = RenderJobs(parallel: 2, waitingLimit: 3)
        var ids: [String] = []
        for n in 1...5 { ids.append(try await jobs.start(output: "r\(n).mp4", command: "r\(n)", work: Self.untilStopped)) }
        func states() async -> [String] {
            var out: [String] = []
            for id in ids { let s = await jobs.status(id)!; out.append(s.state + (s.place.map { " \($0)" } ?? "")) }
            return out
        }
        #expect(await states() == ["running", "running", "queued 1", "queued 2", "queued 3"])
        // A sixth has no place; a name being rendered or waiting is refused too.
        await #expect(throws: (any Error).self) { _ = try await jobs.start(output: "r6.mp4", command: "r6", work: Self.untilStopped) }
        await #expect(throws: (any Error).self) { _ = try await jobs.start(output: "r4.mp4", command: "r4", work: Self.untilStopped) }
        // A waiting render cancelled: the others move up.
        #expect(await jobs.cancel(ids[3]))
        #expect(await states() == ["running", "running", "queued 1", "failed", "queued 2"])
        // A running one cancelled: the first waiting starts once its work has ended.
        #expect(await jobs.cancel(ids[0]))
        for _ in 0..<600 where await jobs.status(ids[2])?.state != "running" { try await Task.sleep(for: .milliseconds(100)) }
        #expect(await states() == ["failed", "running", "running", "failed", "queued 1"])
        #expect(await jobs.status(ids[0])?.error == "cancelled")
        // Progress reported by a running render reaches its status.
        for _ in 0..<600 where await jobs.status(ids[1])?.progress != 0.25 { try await Task.sleep(for: .milliseconds(100)) }
        #expect(await jobs.status(ids[1])?.progress == 0.25)
        // Closing: every job stops, and none is left running or waiting.
        await jobs.cancelAll()
        let closed = await states()
        #expect(closed.allSatisfy { $0 == "failed" }, "\(closed)")
        #expect(await jobs.status("nosuch") == nil)
    }

    /// A render that ends by itself is done at 100%; one that throws is failed with its
    /// error's one line, and the next waiting one starts.
    @Test func anEndIsDoneOrFailedWithItsLine() async throws {
        let jobs = RenderJobs(parallel: 1)
        let good = try await jobs.start(output: "a.mp4", command: "a") { _, progress in progress(0.5); progress(1) }
        let bad = try await jobs.start(output: "b.mp4", command: "b") { _, _ in throw StudioTestError("the encoder ran out of disk") }
        for _ in 0..<600 where await jobs.status(bad)?.state != "failed" { try await Task.sleep(for: .milliseconds(50)) }
        let a = try #require(await jobs.status(good)), b = try #require(await jobs.status(bad))
        #expect(a.state == "done" && a.progress == 1 && a.error == nil && a.eta == 0, "\(a)")
        #expect(b.state == "failed" && b.error == "the encoder ran out of disk", "\(b)")
    }
}
