public import Effects
import Foundation
public import FrameCore
public import FrameSource
public import MediaInput
import Detection
import Render
import Sinks
public import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// `vidfx studio`: a web page served by vidfx that previews the input through a chain
/// live and steers it. It is a control surface over the same pieces as the command
/// line: the ``Player`` with a preview sink of its own for the live view, the
/// ``Renderer`` in this process for exact stills, and a `RenderPlan` (what `apply`
/// does) in this process for renders.
public final class StudioServer: Sendable {
    /// What the studio serves and how.
    public struct Configuration: Sendable {
        /// The input, as vidfx commands take it (an absolute path or a URL).
        public var input: String
        /// The input as the page's command lines show it.
        public var inputForCommands: String
        /// Where renders go and file parameters come from.
        public var folder: OutputFolder
        /// The address to listen on.
        public var host = "127.0.0.1"
        /// The port; 0 picks a free one.
        public var port = 0
        /// Whether a non-loopback address may be listened on and named in Host.
        public var allowRemote = false
        /// The session's secret (see ``StudioAccess``).
        public var token = StudioAccess.newToken()
        /// The input, opened once, that stills are read from.
        public var media: MediaInput
        /// How stills read the input (its cadence, tone mapping, deinterlacing): a still at
        /// `t` is what a source of this configuration shows at `t`.
        public var stillConfiguration: FrameSource.Configuration
        /// The cadence.
        public var frameRate: Rational
        /// Options given to every `dump` and `apply` the studio runs (`--fps 25`).
        public var commandOptions: [String] = []
        /// The input's size and length, for the page.
        public var width: Int
        /// The input's height.
        public var height: Int
        /// The input's duration in seconds, nil when unknown.
        public var duration: Double?
        /// A source on the input from `start`, looping forever or playing once.
        public var openSource: @Sendable (_ start: Rational, _ loopForever: Bool) throws -> FrameSource
        /// Builds a chain from its text (loading LUT and overlay images); nil for none.
        public var parseChain: @Sendable (String) throws -> EffectChain?
        /// The live detection a chain needs (nil when it needs none).
        public var detection: @Sendable (EffectChain?) throws -> LiveAnnotation? = { _ in nil }
        /// Resources the live chains are built with.
        public var resources = EffectResources()
        /// Where one-line warnings go.
        public var warn: @Sendable (String) -> Void = { _ in }
        /// Shaders typed into the page: the chain's file reader (``resources``) reads them
        /// first (``serving(_:at:folder:frameRate:source:)`` wires it).
        var drafts = ShaderDrafts()

        /// The required parts; the rest have defaults.
        public init(input: String, inputForCommands: String, folder: OutputFolder,
                    media: MediaInput, stillConfiguration: FrameSource.Configuration, frameRate: Rational,
                    width: Int, height: Int, duration: Double?,
                    openSource: @escaping @Sendable (Rational, Bool) throws -> FrameSource,
                    parseChain: @escaping @Sendable (String) throws -> EffectChain?) {
            self.input = input
            self.inputForCommands = inputForCommands
            self.folder = folder
            self.media = media
            self.stillConfiguration = stillConfiguration
            self.frameRate = frameRate
            self.width = width
            self.height = height
            self.duration = duration
            self.openSource = openSource
            self.parseChain = parseChain
        }
    }

    /// The configuration served.
    public let configuration: Configuration
    private let access: StudioAccess
    private let playback: StudioPlayback
    let renders: RenderJobs
    private let edits = EditCounter()
    private let stills = StillQueue()
    /// Shader files being described or compiled (``describeFile(_:)``, ``compileShader(_:)``):
    /// two at a time.
    let describing = Admission(most: 2)
    /// Shaders typed into the page and not saved (the chain reads them first).
    var drafts: ShaderDrafts { configuration.drafts }
    /// Messages for every open page: shader files changed on disk, a chain that failed.
    let notices: PageNotices
    /// Shader files written in the outputs folder, by the user's own editor or anyone.
    private let folderWatch = FolderWatch()
    /// Boxes being followed through the clip (`POST /api/follow`): two at a time, each on a
    /// thread of its own decoding the clip.
    let following = Admission(most: 2)

    /// Work a request starts on a thread of its own, a few at a time: the page (or any
    /// other process) asking for fifty at once is told to wait, not given fifty threads.
    final class Admission: Sendable {
        private let count = Mutex(0)
        let most: Int
        init(most: Int) { self.most = most }

        /// Takes a place, or says there is none.
        func enter() -> Bool {
            count.withLock { count in
                guard count < most else { return false }
                count += 1
                return true
            }
        }

        /// Gives a place back.
        func leave() { count.withLock { $0 -= 1 } }
    }
    /// Whether a detections file is being received (one at a time).
    let detectionUploads = Mutex(false)
    private let stillInput: StillInput
    /// Thumbnails and cuts along the scrub bar, made once in the background.
    private let timeline = StudioTimeline()
    /// Reads the outputs' files for `GET /outputs/…`. The studio's own, started and shut
    /// down with it: NIO's shared pool is never shut down, and LeakSanitizer counted its
    /// queue as a leak at exit.
    let fileThreads = NIOThreadPool(numberOfThreads: 1)
    /// The pages' open WebSockets, each with how to close it.
    let sockets = LiveSockets()
    /// The connections open now (``ConnectionBook``).
    let connections = ConnectionBook(most: StudioServer.mostConnections)

    /// - Parameter configuration: what to serve.
    public init(configuration: Configuration) {
        self.configuration = configuration
        access = StudioAccess(token: configuration.token, listenHost: configuration.host, allowRemote: configuration.allowRemote)
        let notices = PageNotices()
        self.notices = notices
        playback = StudioPlayback(setup: .init(frameRate: configuration.frameRate, openSource: configuration.openSource,
                                               detection: configuration.detection, resources: configuration.resources,
                                               warn: configuration.warn,
                                               failed: { why in notices.send(StudioResponse.text(ChainAnswer(ok: false, edit: 0, error: why))) }))
        renders = RenderJobs()
        stillInput = StillInput(media: configuration.media, configuration: configuration.stillConfiguration)
    }

    /// The page's address with its token, for a bound port. The token is in the fragment
    /// (`/#token=…`), which a browser never sends: the page reads it, keeps it in memory
    /// (and the tab's session storage, which no other port's page can read) and takes it
    /// out of the address bar.
    public func address(port: Int) -> String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        let shown = ["0.0.0.0", "[::]"].contains(host) ? "127.0.0.1" : host
        return "http://\(shown):\(port)/#token=\(configuration.token)"
    }

    /// Serves until the task is cancelled; `ready` gets the page's address once listening.
    /// Ctrl-C or SIGTERM stops it within a second: renders stop at their next frame (their
    /// work files removed), the page's WebSockets close with 1001 (going away), the server
    /// stops accepting, then playback and the timeline end.
    public func run(ready: @escaping @Sendable (String) -> Void) async throws {
        let app = application(ready: ready)
        start()
        var logger = Logger(label: "vidfx.studio")
        logger.logLevel = .critical
        // Services shut down last first: the renders' stop runs before the server's, so a
        // render never outlives the studio half-written.
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: app), .init(service: StudioStopping(renders: renders, sockets: sockets, connections: connections),
                                              successTerminationBehavior: .ignore)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            await stop()
            throw error
        }
        await stop()
    }

    /// The studio's routes behind its walls (Host, Origin, token), its WebSocket and
    /// its HTTP server, as a Hummingbird application: ``run(ready:)`` serves it, and tests
    /// drive it in their own process (HummingbirdTesting). Call ``start()`` before the
    /// first request and ``stop()`` after the last.
    /// - Parameter ready: gets the page's address once listening.
    public func application(ready: @escaping @Sendable (String) -> Void = { _ in }) -> some ApplicationProtocol {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.add(middleware: StudioAccessMiddleware(access: access))
        addRoutes(router)
        let sockets = Router(context: BasicWebSocketRequestContext.self)
        sockets.add(middleware: StudioAccessMiddleware(access: access))
        // The page offers `vidfx` and `vidfx-token.…` (checked before the upgrade); the answer
        // names the first, as a browser requires of a subprotocol it offered.
        sockets.ws("/ws") { _, _ in .upgrade([.secWebSocketProtocol: StudioAccess.webSocketProtocol]) } onUpgrade: { [self] inbound, outbound, _ in
            try await live(inbound: inbound, outbound: outbound)
        }
        var logger = Logger(label: "vidfx.studio")
        logger.logLevel = .critical
        return Application(
            router: router,
            server: Self.server(sockets: sockets.buildResponder(), access: access, book: connections),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "vidfx studio"),
            onServerRunning: { [self] channel in ready(address(port: channel.localAddress?.port ?? configuration.port)) },
            logger: logger
        )
    }

    /// Starts what works beside the routes: the file readers, the live playback (idle
    /// until a page connects) and the timeline's thumbnails and cuts.
    public func start() {
        fileThreads.start()
        playback.start()
        timeline.start(media: configuration.media, configuration: configuration.stillConfiguration, duration: configuration.duration,
                       folder: configuration.folder, priority: stills.priority)
        let notices = notices
        folderWatch.start(folder: configuration.folder.path, wanted: { EffectRegistry.namesFile($0) && OutputFolder.problem(with: $0) == nil }) { names in
            notices.send(StudioResponse.text(ShadersChanged(changed: names.sorted())))
        }
    }

    /// Ends renders, playback and the timeline's work, and the file readers.
    public func stop() async {
        folderWatch.stop()
        await renders.cancelAll()
        await playback.stop()
        await timeline.stop()
        try? await fileThreads.shutdownGracefully()
    }

    // MARK: Routes

    private func addRoutes(_ router: Router<BasicWebSocketRequestContext>) {
        router.get("/") { _, _ in StudioResponse.bytes(PackageResources.index_html, type: "text/html; charset=utf-8") }
        router.get("/studio.js") { _, _ in StudioResponse.bytes(PackageResources.studio_js, type: "text/javascript; charset=utf-8") }
        router.get("/studio.css") { _, _ in StudioResponse.bytes(PackageResources.studio_css, type: "text/css; charset=utf-8") }
        router.get("/api/effects") { _, _ in
            StudioResponse.bytes(try EffectCatalog.json(), type: "application/json")
        }
        router.get("/api/effect") { [self] request, _ in
            await answer { try await describeFile(request.uri.queryParameters.get("name").map { String($0) }) }
        }
        router.get("/api/info") { [self] _, _ in
            var info = StudioInfo(input: configuration.inputForCommands, width: configuration.width, height: configuration.height,
                                  frameRate: configuration.frameRate.description, fps: configuration.frameRate.seconds,
                                  outputs: configuration.folder.path, commandOptions: configuration.commandOptions)
            if let d = configuration.duration {
                info.duration = d
                // Tick k shows the picture on screen at k/N, for every k/N before the end.
                info.ticks = max(1, Int((d * configuration.frameRate.seconds - 1e-9).rounded(.up)))
            }
            return StudioResponse.json(info)
        }
        router.get("/api/timeline") { [self] _, _ in
            switch timeline.current {
            case .working: return StudioResponse.json(TimelineAnswer(state: "working"))
            case .failed(let why): return StudioResponse.json(TimelineAnswer(state: "failed", error: why))
            case .ready(let strip, _):
                return StudioResponse.json(TimelineAnswer(state: "ready", count: strip.count, width: strip.width, height: strip.height,
                                                          times: strip.times, cuts: strip.cuts, image: "/api/timeline.jpg"))
            }
        }
        router.get("/api/timeline.jpg") { [self] _, _ in
            guard case .ready(_, let jpeg) = timeline.current else { return StudioResponse.error(.notFound, "the timeline is not ready") }
            return StudioResponse.bytes(jpeg, type: "image/jpeg")
        }
        router.get("/api/frame") { [self] request, _ in
            await answer { try await still(request) }
        }
        addRenderRoutes(router)
        addReviewRoutes(router)
        addShaderRoutes(router)
        addOutputRoutes(router)
    }

    /// HTTP/1.1 with the WebSocket upgrade, behind a ``RequestHeadGuard``: long lines and
    /// heads, slow heads and WebSocket requests without the token are answered before the
    /// parser and the upgrade see them.
    static func server(sockets: some HTTPResponder<BasicWebSocketRequestContext>, access: StudioAccess, book: ConnectionBook) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            // The idle timeout counts from the last whole request or answer: a kept-alive
            // connection trickling the next head a byte at a time is closed all the same.
            GuardedChildChannel(base: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: sockets,
                                                                   configuration: .init(http1: .init(idleTimeout: idleTimeout),
                                                                                        ws: .init(maxFrameSize: 1 << 20))),
                                access: access, headTimeout: .seconds(30), book: book)
        }
    }

    /// How long a kept-alive connection may wait between requests.
    static let idleTimeout = TimeAmount.seconds(30)

    /// The most connections open at once: half the descriptors the process may have (the
    /// rest are its inputs, decoders and outputs), and never more than 512.
    static var mostConnections: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 256 }
        return Int(max(16, min(512, limit.rlim_cur / 2)))
    }

    /// Runs a handler, turning a refusal into its status and message.
    func answer(_ body: () async throws -> Response) async -> Response {
        do { return try await body() } catch let error as StudioRequestError {
            return StudioResponse.error(error.status, error.message)
        } catch let error as any UserFacingError {
            // The library's one line: the same message the command line prints.
            return StudioResponse.error(.badRequest, error.message)
        } catch is NIOTooManyBytesError {
            return StudioResponse.error(.contentTooLarge, "the request's body is larger than this route takes")
        } catch {
            // What went wrong inside is no business of the page's: no type names, no paths.
            return StudioResponse.error(.internalServerError, "the studio could not answer this request")
        }
    }

    /// The longest chain the page may send, in bytes.
    static let longestChain = 16 << 10

    /// Checks a chain from the page: it parses, and its files are names in the outputs folder.
    func checkedChain(_ text: String) throws -> String {
        // Building a chain costs more than linear time in its length (10,000 effects took
        // 2 s): a page may not send one longer than any hand-made chain.
        guard text.utf8.count <= Self.longestChain else {
            throw StudioRequestError(.badRequest, "chain: \(text.utf8.count) bytes; the studio takes chains of up to \(Self.longestChain)")
        }
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.hasPrefix("@") else { throw StudioRequestError(.badRequest, "chain files (@FILE) are not read by the studio") }
        guard !text.isEmpty else { return "" }
        let files: [String]
        do { files = try EffectChain.files(in: text) } catch { throw StudioRequestError(.badRequest, "chain: \(error.message)") }
        for file in files {
            if let problem = OutputFolder.problem(with: file) {
                throw StudioRequestError(.badRequest, "chain: \(problem) (file parameters name files in the outputs folder)")
            }
            guard configuration.folder.holdsRegularFile(file) || drafts.holds(file) else {
                throw StudioRequestError(.badRequest, "chain: '\(file)' is not a file of the outputs folder (links, pipes and devices are not read)")
            }
        }
        return text
    }

    /// `GET /api/effect?name=FILE`: a shader file's effect (a file of the outputs folder),
    /// described as `/api/effects` describes the built-ins: its parameters from the file,
    /// compiled on the stills' thread (a compile is bounded, but not a cooperative
    /// thread's to wait on).
    func describeFile(_ raw: String?) async throws -> Response {
        guard let name = raw.map({ $0.removingPercentEncoding ?? $0 }), !name.isEmpty else {
            throw StudioRequestError(.badRequest, "name: the shader file's name is needed (name=glow.glsl)")
        }
        guard EffectRegistry.effect(named: name) == nil, EffectRegistry.namesFile(name), !name.contains(":"), !name.contains(",") else {
            throw StudioRequestError(.badRequest, "name: '\(name.prefix(80))' is not a shader file's name")
        }
        let checked = try checkedChain(name)
        guard let files = EffectRegistry.fileEffects else { throw StudioRequestError(.badRequest, "name: this studio was built without shaders") }
        let json = try await compiledDescription(checked, files: files, resources: configuration.resources)
        return StudioResponse.bytes(Array(json), type: "application/json")
    }

    /// A shader file's descriptor as JSON (kept out of async code: see ``checkReviewed``).
    static func describe(_ name: String, files: EffectRegistry.FileEffects, resources: EffectResources) throws -> Data {
        do {
            let (descriptor, _) = try files.load(name, resources)
            return try EffectCatalog.json(describing: descriptor, kind: .layer)
        } catch let error as EffectError {
            throw StudioRequestError(.badRequest, error.message)
        }
    }

    /// `GET /api/frame?t=SECONDS&chain=CHAIN[&detections=NAME][&format=png|bmp]`: the still `vidfx dump
    /// INPUT --at SECONDS -e CHAIN [--use-detections NAME]` writes, as one PNG (its bytes) or BMP (its
    /// pixels, uncompressed: what the page asks for while scrubbing), rendered in this process on the
    /// stills' own thread from the input kept open there (``StillInput``).
    private func still(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        // Parsed as dump's --at parses it (exact decimals), so the still is dump's to the byte.
        // Both terms bounded, not just the value: 9223372036854775806/9223372036854775807
        // is less than a second, and it once trapped the seek's arithmetic.
        guard let t = query.get("t"), let time = Rational(String(t)), time >= Rational(0), InputLimits.isWorkableTime(time),
              time.seconds <= Self.latestStill else {
            throw StudioRequestError(.badRequest, "t: a time in seconds is needed, 0…\(Int(Self.latestStill)), to the microsecond (t=1.5)")
        }
        let text = try checkedChain(query.get("chain").map { String($0).removingPercentEncoding ?? String($0) } ?? "")
        var reviewed: String?
        if let name = query.get("detections").map({ String($0).removingPercentEncoding ?? String($0) }), !text.isEmpty {
            if let problem = OutputFolder.problem(with: name) { throw StudioRequestError(.badRequest, "detections: \(problem)") }
            guard configuration.folder.holdsRegularFile(name) else {
                throw StudioRequestError(.badRequest, "detections: '\(name)' is not a file of the outputs folder")
            }
            reviewed = configuration.folder.file(name)
        }
        guard let format = StillImage(rawValue: query.get("format").map { String($0) } ?? "png") else {
            throw StudioRequestError(.badRequest, "format: png or bmp")
        }
        let (input, parse, rate) = (stillInput, configuration.parseChain, configuration.frameRate.seconds)
        let reviewedPath = reviewed
        let load = reviewedLoader
        let files = filesIdentity(text)
        let image: [UInt8] = try await stills.run {
            try input.image(at: time, chainText: text, files: files, reviewed: reviewedPath, frameRate: rate, format: format, makeChain: parse,
                            loadReviewed: { path in try load(URL(fileURLWithPath: path).lastPathComponent) })
        }
        return StudioResponse.bytes(image, type: format.mediaType)
    }

    /// What the files a chain names hold now: each draft's text, each file's size and
    /// change time (kept stills of an older text are not served for a newer one).
    func filesIdentity(_ chain: String) -> String {
        guard !chain.isEmpty, let files = try? EffectChain.files(in: chain) else { return "" }
        return files.map { name in
            if let typed = drafts.text(name) { return "\(name):typed:\(typed.hashValue)" }
            return StillInput.identity(of: configuration.folder.file(name))
        }.joined(separator: "|")
    }

    /// The clip's number of ticks, when its length is known.
    var clipTicks: Int64? {
        configuration.duration.map { Int64(max(1, min(Double(1 << 40), ($0 * configuration.frameRate.seconds - 1e-9).rounded(.up)))) }
    }

    /// Reads a detections file of the outputs folder by name as a file parameter is read:
    /// opened once without following a link or waiting on a pipe, checked by `fstat`, at
    /// most ``largestDetections`` bytes, its ticks within the clip.
    var reviewedLoader: @Sendable (String) throws -> DetectionsFile {
        let (folder, ticks) = (configuration.folder, clipTicks)
        return { name in
            let bytes = try folder.readRegularFile(name, largest: Self.largestDetections)
            return try DetectionsFile.parse(Data(bytes), path: name, tickLimit: ticks)
        }
    }

    /// Reads the detections file `name` now, by descriptor, so that a link, a pipe or a
    /// file out of bounds is refused before a render starts. (A function of its own, not
    /// in the async route: Swift 6.3's optimiser crashed splitting that coroutine.)
    func checkReviewed(_ name: String) throws(StudioRequestError) {
        do { _ = try reviewedLoader(name) } catch {
            throw StudioRequestError(.badRequest, "detections: \(error)")
        }
    }

    /// The latest time a still may be asked for: 2^31 ticks at 1000 fps, as the seek's limit.
    static let latestStill = Double(1 << 31) / 1000

    // MARK: Live preview

    /// One page's WebSocket: frames out; chain edits, play/pause, seeks and the wipe in.
    private func live(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let (id, frames) = playback.sink.watch()
        defer { playback.sink.unwatch(id) }
        let sender = Task {
            for await message in frames {
                try await outbound.write(.binary(ByteBuffer(bytes: message)))
            }
        }
        defer { sender.cancel() }
        let (notice, notes) = notices.watch()
        defer { notices.unwatch(notice) }
        let noting = Task {
            for await text in notes { try await outbound.write(.text(text)) }
        }
        defer { noting.cancel() }
        // The studio stopping closes the page's socket as going away (1001), at once: the
        // server's shutdown would otherwise wait on it until the watchdog ended the process.
        let messages = Task { try await serve(inbound: inbound, outbound: outbound) }
        let number = sockets.open {
            Task {
                try? await outbound.close(.goingAway, reason: "the studio is stopping")
                // A page that does not answer the close is not waited on for long.
                try? await Task.sleep(for: .milliseconds(300))
                messages.cancel()
            }
        }
        defer { sockets.close(number) }
        try await withTaskCancellationHandler { try await messages.value } onCancel: { messages.cancel() }
    }

    /// The page's messages, until its socket closes.
    private func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        for try await message in inbound.messages(maxSize: 1 << 20) {
            guard case .text(let text) = message, let command = LiveCommand.decode(text) else { continue }
            if let chain = command.chain {
                let edit = command.edit ?? edits.next()
                do {
                    let checked = try checkedChain(chain)
                    let parsed = try checked.isEmpty ? nil : configuration.parseChain(checked)
                    playback.setChain(parsed, edit: edit)
                    try await outbound.write(.text(StudioResponse.text(ChainAnswer(ok: true, edit: edit))))
                } catch let error as StudioRequestError {
                    try await outbound.write(.text(StudioResponse.text(ChainAnswer(ok: false, edit: edit, error: error.message))))
                } catch {
                    try await outbound.write(.text(StudioResponse.text(ChainAnswer(ok: false, edit: edit, error: "\(error)"))))
                }
            }
            if let play = command.play { playback.sink.setPaused(!play) }
            if let tick = command.seek { playback.seek(tick: tick) }
            if command.setsSplit { playback.sink.setSplit(command.split) }
        }
    }

    // MARK: Helpers

    static func seconds(_ value: Double) -> String {
        var text = String(format: "%.6f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// A command line a shell reads back as `arguments`: words quoted only where needed.
    static func commandLine(_ arguments: [String]) -> String {
        arguments.map { word in
            let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "-_./:=,@%+".unicodeScalars.contains($0) }
            return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }.joined(separator: " ")
    }
}

/// Numbers chain edits that came without one.
final class EditCounter: Sendable {
    private let value = Mutex(0)
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
}

/// Stops what would hold the server's shutdown, first when the studio is asked to stop:
/// the pages' sockets close (1001), connections without the token close, and renders
/// end at their next frame, removing their work files.
struct StudioStopping: Service {
    let renders: RenderJobs
    let sockets: LiveSockets
    let connections: ConnectionBook

    func run() async throws {
        try? await gracefulShutdown()
        sockets.closeAll()
        // Connections that never showed the token (half heads) would hold the server's
        // shutdown until their head timeout.
        connections.closeUnauthorized()
        await renders.cancelAll()
    }
}

/// The pages' open WebSockets, so that a stopping studio can close them (1001).
final class LiveSockets: Sendable {
    private let open = Mutex<(next: Int, closers: [Int: @Sendable () -> Void])>((0, [:]))

    /// Books a socket that `close` closes; its number.
    func open(_ close: @escaping @Sendable () -> Void) -> Int {
        open.withLock { $0.next += 1; $0.closers[$0.next] = close; return $0.next }
    }

    /// Forgets a socket that has closed.
    func close(_ number: Int) { _ = open.withLock { $0.closers.removeValue(forKey: number) } }

    /// Closes every one.
    func closeAll() {
        for close in open.withLock({ o in defer { o.closers = [:] }; return Array(o.closers.values) }) { close() }
    }
}
