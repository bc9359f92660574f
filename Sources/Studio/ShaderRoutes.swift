import Effects
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Sinks
import Synchronization

/// The shader workbench's routes: a shader typed into the page compiled as it is typed
/// (kept as a draft the chain reads), a shader file of the outputs folder opened, and the
/// typed text saved into the folder. Every byte of it is the page's, so hostile: a name is
/// a shader file's name in the folder, a text at most ``ShaderSource``'s 64 KiB, with no
/// `#include`; compiles are two at a time and bounded in time (the compiler's) and size
/// (the program's), and drafts are few (``ShaderDrafts``).
extension StudioServer {
    func addShaderRoutes(_ router: Router<BasicWebSocketRequestContext>) {
        router.get("/api/shader") { [self] request, _ in
            await answer { try openShader(request.uri.queryParameters.get("name").map { String($0).removingPercentEncoding ?? String($0) }) }
        }
        router.post("/api/shader") { [self] request, _ in
            await answer { try await compileShader(request) }
        }
        router.post("/api/shader/save") { [self] request, _ in
            await answer { try await saveShader(request) }
        }
    }

    /// The longest shader text taken, in bytes (as a file's).
    static let longestShader = 64 << 10

    /// A shader file's name from the page: a plain name in the outputs folder with a
    /// shader's extension, not a built-in's name.
    func shaderName(_ raw: String?) throws(StudioRequestError) -> String {
        guard let name = raw, !name.isEmpty else { throw StudioRequestError(.badRequest, "name: the shader file's name is needed (name=glow.glsl)") }
        if let problem = OutputFolder.problem(with: name) { throw StudioRequestError(.badRequest, "name: \(problem)") }
        guard EffectRegistry.effect(named: name) == nil, EffectRegistry.namesFile(name), !name.contains(":"), !name.contains(","),
              !name.contains("#"), !name.hasPrefix("@") else {
            throw StudioRequestError(.badRequest, "name: '\(name.prefix(80))' is not a shader file's name (.glsl, .frag, .metal or .hook)")
        }
        return name
    }

    /// `GET /api/shader?name=FILE`: the text to edit: the draft typed, else the file of the
    /// outputs folder (read as file parameters are: no link, no pipe, at most 64 KiB).
    func openShader(_ raw: String?) throws -> Response {
        let name = try shaderName(raw)
        if let draft = drafts.text(name) { return StudioResponse.json(ShaderText(name: name, source: draft, draft: true)) }
        guard configuration.folder.holdsRegularFile(name) else {
            throw StudioRequestError(.notFound, "\(name): no such shader in the outputs folder")
        }
        let bytes: [UInt8]
        do { bytes = try configuration.folder.readRegularFile(name, largest: Self.longestShader) } catch {
            throw StudioRequestError(.badRequest, "\(name): \(error)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw StudioRequestError(.badRequest, "\(name): not UTF-8 text") }
        return StudioResponse.json(ShaderText(name: name, source: text, draft: false))
    }

    /// `POST /api/shader` `{"name", "source"}`: compiles the text as the file `name` would
    /// be, and keeps it as that name's draft when it compiles; answers the effect's
    /// description (as `/api/effect`), or the compiler's line (`wave.glsl:4:12: …`), 400.
    func compileShader(_ request: Request) async throws -> Response {
        let typed = try ShaderRequest.decode(try await shaderBody(request))
        let name = try shaderName(typed.name)
        guard typed.source.utf8.count <= Self.longestShader else {
            throw StudioRequestError(.contentTooLarge, "\(name): \(typed.source.utf8.count) bytes; a shader may have up to \(Self.longestShader >> 10) KiB")
        }
        guard let files = EffectRegistry.fileEffects else { throw StudioRequestError(.badRequest, "name: this studio was built without shaders") }
        // The text is read as the file `name`; every other file (an image parameter) as the
        // chain reads it.
        var resources = configuration.resources
        let base = resources.readFile
        let source = typed.source
        resources.readFile = { file in file == name ? Array(source.utf8) : try base?(file) ?? [] }
        let json = try await compiledDescription(name, files: files, resources: resources)
        try drafts.keep(source, as: name)
        return StudioResponse.bytes(Array(json), type: "application/json")
    }

    /// `POST /api/shader/save` `{"name", "source", "overwrite"?}`: the text into the outputs
    /// folder, whole or not at all, never over a file unless `overwrite` (409 otherwise);
    /// a draft equal to it is forgotten (the chain reads the file again).
    func saveShader(_ request: Request) async throws -> Response {
        let saving = try SaveShaderRequest.decode(try await shaderBody(request))
        let name = try shaderName(saving.name)
        guard saving.source.utf8.count <= Self.longestShader else {
            throw StudioRequestError(.contentTooLarge, "\(name): \(saving.source.utf8.count) bytes; a shader may have up to \(Self.longestShader >> 10) KiB")
        }
        // Anything at the name that is not a regular file (a link, a pipe, a folder) is a
        // name taken, even with overwrite: only a file the studio could have written is replaced.
        if configuration.folder.holdsAnything(name) && !(saving.overwrite && configuration.folder.holdsRegularFile(name)) {
            throw StudioRequestError(.conflict, "\(name) exists in the outputs folder; save over it, or choose another name")
        }
        do {
            try AtomicOutput.write(Data(saving.source.utf8), to: configuration.folder.file(name), overwrite: saving.overwrite, intoDevices: false)
        } catch {
            if error.kind == .targetExists { throw StudioRequestError(.conflict, "\(name) exists in the outputs folder; save over it, or choose another name") }
            throw StudioRequestError(.internalServerError, "\(name): \(error.reason)")
        }
        if drafts.text(name) == saving.source { drafts.forget(name) }
        return StudioResponse.json(SavedShader(name: name, size: saving.source.utf8.count))
    }

    /// A shader request's body: at most 512 KiB of JSON (a 64 KiB text escaped).
    private func shaderBody(_ request: Request) async throws -> Data {
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > Self.largestShaderBody {
            throw StudioRequestError(.contentTooLarge, "the body is \(declared) bytes; a shader may have up to \(Self.longestShader >> 10) KiB")
        }
        do { return Data(buffer: try await request.body.collect(upTo: Self.largestShaderBody)) } catch {
            throw StudioRequestError(.contentTooLarge, "a shader may have up to \(Self.longestShader >> 10) KiB")
        }
    }

    static let largestShaderBody = 512 << 10

    /// Describes the shader `name` read through `resources`, compiled on a thread of its own
    /// (two at a time: a third is told to ask again).
    func compiledDescription(_ name: String, files: EffectRegistry.FileEffects, resources: EffectResources) async throws -> Data {
        guard describing.enter() else { throw StudioRequestError(.serviceUnavailable, "name: two shaders are being compiled already; ask again") }
        let counter = describing
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                let described = Result { try Self.describe(name, files: files, resources: resources) }
                // The place is given back before the answer: a page's next compile, sent as
                // soon as this one is answered, finds it free.
                counter.leave()
                continuation.resume(with: described)
            }.start()
        }
    }
}

/// `POST /api/shader`'s body: `{"name": "wave.glsl", "source": "…"}`.
package struct ShaderRequest: StudioRequestBody, Sendable, Equatable {
    package var name: String
    package var source: String
    package static let expected = ["name": "a shader file's name (wave.glsl)", "source": "the shader's text"]
    package static let shape = "{\"name\": \"wave.glsl\", \"source\": \"…\"}"
}

/// `POST /api/shader/save`'s body: `{"name", "source", "overwrite"?}`.
package struct SaveShaderRequest: StudioRequestBody, Sendable, Equatable {
    package var name: String
    package var source: String
    package var overwrite: Bool
    package static let expected = ["name": "a shader file's name (wave.glsl)", "source": "the shader's text", "overwrite": "true or false"]
    package static let shape = "{\"name\": \"wave.glsl\", \"source\": \"…\", \"overwrite\": false}"
    private enum CodingKeys: String, CodingKey { case name, source, overwrite }
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        source = try c.decode(String.self, forKey: .source)
        overwrite = try c.decodeIfPresent(Bool.self, forKey: .overwrite) ?? false
    }
}

/// A shader's text for the editor.
struct ShaderText: Encodable {
    let name: String
    let source: String
    /// Whether it is the page's draft (typed, not saved) rather than the file.
    let draft: Bool
}

/// A shader saved.
struct SavedShader: Encodable {
    let name: String
    let size: Int
}

/// Shader files written in the outputs folder, for the page to reload (a WebSocket message).
struct ShadersChanged: Encodable {
    let changed: [String]
}

/// Text messages for every open page (shader files changed on disk), as the frames are
/// sent: each page's socket takes them from a stream of its own.
final class PageNotices: Sendable {
    private let pages = Mutex<(next: Int, streams: [Int: AsyncStream<String>.Continuation])>((0, [:]))

    /// A stream of the messages for one page, and its number for ``unwatch(_:)``.
    func watch() -> (Int, AsyncStream<String>) {
        // A page that does not read is not waited on: the newest few are kept.
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(8))
        let id = pages.withLock { $0.next += 1; $0.streams[$0.next] = continuation; return $0.next }
        return (id, stream)
    }

    /// Ends a page's stream.
    func unwatch(_ id: Int) { pages.withLock { $0.streams.removeValue(forKey: id) }?.finish() }

    /// Sends `text` to every page.
    func send(_ text: String) {
        for page in pages.withLock({ Array($0.streams.values) }) { page.yield(text) }
    }
}
