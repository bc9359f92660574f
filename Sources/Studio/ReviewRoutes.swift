import Detection
import Foundation
import FrameCore
import FrameSource
import Hummingbird
import MediaInput
import Render
import HummingbirdWebSocket
import Sinks

/// The redaction review's API: find the faces of the whole clip into a detections file,
/// follow a box drawn by hand through the frames around it, and save the reviewed file
/// that a render then uses exactly (`apply --use-detections`).
extension StudioServer {
    func addReviewRoutes(_ router: Router<BasicWebSocketRequestContext>) {
        router.post("/api/detect") { [self] request, _ in
            await answer { try await startDetection(request) }
        }
        router.post("/api/follow") { [self] request, _ in
            await answer { try await follow(request) }
        }
        router.put("/api/detections/:name") { [self] request, context in
            let name = context.parameters.get("name") ?? ""
            return await answer { try await save(request, name: name) }
        }
    }

    /// `POST /api/detect` `{"output": "NAME.jsonl"}`: what `vidfx detect INPUT --what faces --redaction
    /// --detections NAME.jsonl` writes, the faces as faceblur finds them, as a job in this
    /// process (`GET /api/render/ID`).
    private func startDetection(_ request: Request) async throws -> Response {
        let output = try DetectRequest.decode(try await Self.body(request)).output
        if let problem = OutputFolder.problem(with: output) { throw StudioRequestError(.badRequest, "output: \(problem)") }
        if configuration.folder.holdsAnything(output) {
            throw StudioRequestError(.conflict, "output: \(output) exists in the outputs folder; choose another name")
        }
        let arguments = ["detect", configuration.input, "--what", "faces", "--redaction", "--detections", output, "-q"]
            + configuration.commandOptions
        let command = Self.commandLine(["vidfx"] + arguments.map { $0 == configuration.input ? configuration.inputForCommands : $0 })
        let (input, source, folder) = (configuration.input, configuration.stillConfiguration, configuration.folder)
        let id = try await renders.start(output: output, command: command) { stop, progress in
            // The faces a redaction would find, into the detections file, and no pictures.
            var plan = RenderPlan(input: try MediaInput(input, access: .seekable), output: .detectionsOnly)
            plan.source = source
            plan.detecting = .init(needs: .faces, codes: [], redacting: true)
            plan.detection.logPath = folder.file(output)
            var total: Int?
            plan.opened = { opening, _ in total = opening.expectedFrames }
            plan.progress = { ticks in if let total, total > 0 { progress(Double(ticks) / Double(total)) } }
            let complete = try plan.run(stop: stop).outcome.ending == .complete
            guard complete else { throw StudioRequestError(.conflict, "cancelled") }
        }
        return StudioResponse.json(JobStarted(id: id, command: command))
    }

    /// `POST /api/follow` `{"tick": N, "box": {"x", "y", "width", "height"}, "limit"?: TICKS}`: the box
    /// drawn on tick N followed forwards and backwards (at most `limit` ticks each way, 150
    /// by default) until it is lost: `{"boxes": [{"tick", "x", "y", "width", "height"}]}`.
    private func follow(_ request: Request) async throws -> Response {
        let asked = try FollowRequest.decode(try await Self.body(request))
        let (tick, limit) = (asked.tick, asked.limit)
        let box = Rect(x: asked.x, y: asked.y, width: asked.width, height: asked.height)
        let (rate, open) = (configuration.frameRate, configuration.openSource)
        // Decoding and matching block: a thread of their own, not the server's, and a few
        // at a time (each decodes the clip: fifty requests at once would be fifty decoders).
        guard following.enter() else {
            throw StudioRequestError(.serviceUnavailable, "follow: \(following.most) boxes are being followed already; ask again when one is done")
        }
        let counter = following
        let followed: [(Int64, Rect)] = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                let result = Result { try ClipFollow(frameRate: rate, open: open).run(tick: tick, box: box, limit: limit) }
                counter.leave()
                continuation.resume(with: result)
            }
        }
        return StudioResponse.json(FollowedBoxes(boxes: followed.map { .init(tick: $0.0, x: $0.1.x, y: $0.1.y, width: $0.1.width, height: $0.1.height) }))
    }

    /// `PUT /api/detections/NAME` with a detections file (JSON Lines): checked as
    /// `--use-detections` checks it, and saved in the outputs folder (never over a file).
    private func save(_ request: Request, name: String) async throws -> Response {
        if let problem = OutputFolder.problem(with: name) { throw StudioRequestError(.badRequest, problem) }
        guard name.hasSuffix(".jsonl") else { throw StudioRequestError(.badRequest, "\(name): a detections file's name ends in .jsonl") }
        // Bounded, and one at a time: three 200 MB bodies at once once took the studio to
        // 3.4 GB. A declared length over the limit is refused before a byte is read.
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > Self.largestDetections {
            throw StudioRequestError(.contentTooLarge, "\(name): \(declared) bytes; a detections file may have up to \(Self.largestDetections >> 20) MB")
        }
        guard detectionUploads.withLock({ busy in busy ? false : { busy = true; return true }() }) else {
            throw StudioRequestError(.serviceUnavailable, "another detections file is being saved; send this one when it is done")
        }
        defer { detectionUploads.withLock { $0 = false } }
        let body: Data
        do { body = Data(buffer: try await request.body.collect(upTo: Self.largestDetections)) } catch {
            throw StudioRequestError(.contentTooLarge, "\(name): a detections file may have up to \(Self.largestDetections >> 20) MB")
        }
        let file: DetectionsFile
        do { file = try DetectionsFile.parse(body, path: name, tickLimit: clipTicks) } catch {
            throw StudioRequestError(.badRequest, error.description)
        }
        // A file of blank lines passes as "no boxes"; saving it helps no one.
        guard file.lastTick >= 0 else { throw StudioRequestError(.badRequest, "\(name): no ticks in it (an empty or blank file)") }
        let target = configuration.folder.file(name)
        // Never over a file: one of that name, there before or appearing meanwhile, is kept.
        // Anything at the name is a name taken: a link (to /dev/null, to a FIFO) or a pipe is
        // never written into (a FIFO with no reader once held the upload lock for ever).
        do { try AtomicOutput.write(body, to: target, overwrite: false, intoDevices: false) } catch {
            if error.kind == .targetExists { throw StudioRequestError(.conflict, "\(name) exists in the outputs folder; choose another name") }
            throw StudioRequestError(.internalServerError, "\(name): \(error.reason)")
        }
        return StudioResponse.json(SavedDetections(name: name, tracks: file.tracks, manualBoxes: file.manualBoxes, lastTick: file.lastTick))
    }

    /// The largest detections file taken: a two-hour clip at 30 fps with a few faces a tick.
    static let largestDetections = 128 << 20

    /// A request's body, up to 1 MB (413 beyond).
    static func body(_ request: Request) async throws -> Data {
        Data(buffer: try await request.body.collect(upTo: 1 << 20))
    }
}

/// One follow of a drawn box through the clip: forwards from its tick in one pass, and
/// backwards in short spans decoded before it (a few frames held at a time, however
/// far back the face goes).
struct ClipFollow {
    let frameRate: Rational
    let open: @Sendable (Rational, Bool) throws -> FrameSource
    static let span: Int64 = 8

    func run(tick: Int64, box: Rect, limit: Int) throws -> [(Int64, Rect)] {
        let first = try open(frameRate.inverse * tick, false)
        defer { first.close() }
        guard let drawn = try first.nextFrame() else {
            throw StudioRequestError(.badRequest, "tick: \(tick) is past the end of the clip")
        }
        guard let start = BoxFollower(box: box, in: drawn) else {
            throw StudioRequestError(.badRequest, "box: at least 4 pixels a side, inside the frame")
        }
        var out: [(Int64, Rect)] = [(tick, box)]
        var ahead = start
        var k = tick
        while k - tick < limit, let frame = try first.nextFrame() {
            k += 1
            guard let b = ahead.next(frame) else { break }
            out.append((k, b))
        }
        var behind = start
        var end = tick  // the span before `end` is next
        back: while end > 0 && tick - end < limit {
            let from = max(0, end - Self.span, tick - Int64(limit))
            let source = try open(frameRate.inverse * from, false)
            defer { source.close() }
            var frames: [Frame] = []
            while Int64(frames.count) < end - from, let f = try source.nextFrame() { frames.append(f) }
            guard Int64(frames.count) == end - from else { break }
            for (i, frame) in frames.enumerated().reversed() {
                guard let b = behind.next(frame) else { break back }
                out.append((from + Int64(i), b))
            }
            end = from
        }
        return out.sorted { $0.0 < $1.0 }
    }
}
