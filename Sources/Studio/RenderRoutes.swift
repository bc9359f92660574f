import Foundation
import FrameCore
import FrameSource
import Hummingbird
import HummingbirdWebSocket
import MediaInput
import NIOCore
import Render
import Sinks

/// Renders into the outputs folder: start one (what `apply` renders, in this process),
/// ask how it goes, cancel it.
extension StudioServer {
    func addRenderRoutes(_ router: Router<BasicWebSocketRequestContext>) {
        router.post("/api/render") { [self] request, context in
            await answer { try await startRender(request, context: context) }
        }
        router.get("/api/render/:id") { [self] _, context in
            let id = context.parameters.get("id") ?? ""
            guard let s = await renders.status(id) else { return StudioResponse.error(.notFound, "no render '\(id)'") }
            return StudioResponse.json(JobStatus(id: id, s))
        }
        router.delete("/api/render/:id") { [self] _, context in
            let id = context.parameters.get("id") ?? ""
            return await renders.cancel(id) ? StudioResponse.json(JobCancelling(id: id))
                : StudioResponse.error(.notFound, "no render '\(id)'")
        }
    }

    /// `POST /api/render` `{"chain", "output", "start"?, "duration"?, "loop"?, "detections"?}`: what `apply` renders,
    /// into the outputs folder; `detections` names a reviewed detections file there (`--use-detections`).
    func startRender(_ request: Request, context: BasicWebSocketRequestContext) async throws -> Response {
        let body = try await request.body.collect(upTo: 1 << 20)
        let render = try RenderRequest.decode(Data(buffer: body))
        let output = render.output
        if let problem = OutputFolder.problem(with: output) { throw StudioRequestError(.badRequest, "output: \(problem)") }
        let chain = try checkedChain(render.chain)
        if configuration.folder.holdsAnything(output) {
            throw StudioRequestError(.conflict, "output: \(output) exists in the outputs folder; choose another name")
        }
        // The command line that renders the same, for the page to copy.
        var options: [String] = []
        if let start = render.start, let length = configuration.duration, start >= length {
            throw StudioRequestError(.badRequest, "start: \(Self.seconds(start)) s is past the clip's end (\(Self.seconds(length)) s)")
        }
        if let start = render.start { options += ["--start", Self.seconds(start)] }
        if let duration = render.duration { options += ["--duration", Self.seconds(duration)] }
        if let loop = render.loop { options += ["--loop", String(loop)] }
        if let name = render.detections {
            if let problem = OutputFolder.problem(with: name) { throw StudioRequestError(.badRequest, "detections: \(problem)") }
            try checkReviewed(name)
            options += ["--use-detections", name]
        }
        var arguments = ["apply", configuration.inputForCommands]
        if !chain.isEmpty { arguments += ["-e", chain] }
        arguments += ["-o", output] + options + configuration.commandOptions
        let command = Self.commandLine(["vidfx"] + arguments)
        // The render itself, in this process: the times as that command line reads them.
        var span = configuration.stillConfiguration
        span.start = render.start.flatMap(InputLimits.time(seconds:)) ?? Rational(0)
        span.duration = render.duration.flatMap(InputLimits.time(seconds:))
        span.loop = .count(render.loop ?? 1)
        let source = span
        let (input, parse, folder) = (configuration.input, configuration.parseChain, configuration.folder)
        let detections = render.detections
        let load = reviewedLoader
        let id = try await renders.start(output: output, command: command) { stop, progress in
            var plan = RenderPlan(input: try MediaInput(input, access: .shared), output: .video(EncoderSink.Settings(output: folder.file(output))))
            plan.chain = try parse(chain)
            plan.source = source
            plan.keepsStoppedOutput = false
            if let detections {
                plan.reviewedFile = try load(detections)
                plan.reviewed = detections
            }
            var total: Int?
            plan.opened = { opening, _ in total = opening.expectedFrames }
            plan.progress = { frames in if let total, total > 0 { progress(Double(frames) / Double(total)) } }
            let done = try plan.run(stop: stop)
            guard done.outcome.ending == .complete else { throw StudioRequestError(.conflict, "cancelled") }
        }
        return StudioResponse.json(JobStarted(id: id, command: command))
    }
}
