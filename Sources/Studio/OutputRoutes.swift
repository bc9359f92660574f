import Foundation
import Hummingbird
import HummingbirdWebSocket
import MediaInput
import NIOCore
import Render
import Sinks

/// The outputs folder: its listing, and its files served with Range support (the page's
/// player seeks in a long render), never a link, a FIFO or a name outside it.
extension StudioServer {
    func addOutputRoutes(_ router: Router<BasicWebSocketRequestContext>) {
        router.get("/api/outputs") { [self] _, _ in
            StudioResponse.json(configuration.folder.listing().map { OutputEntry(name: $0.name, size: $0.size) })
        }
        router.get("/outputs/:name") { [self] request, context in
            // The page percent-encodes the name (spaces, accents); a name that does not
            // decode is not one of the folder's, and a decoded `/` is refused as any other.
            guard let name = (context.parameters.get("name") ?? "").removingPercentEncoding else {
                return StudioResponse.error(.badRequest, "the name is not percent-encoded UTF-8")
            }
            if let problem = OutputFolder.problem(with: name) { return StudioResponse.error(.badRequest, problem) }
            let path = configuration.folder.file(name)
            var info = stat()
            // lstat: a symbolic link in the folder is not one of its files (it may point anywhere).
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return StudioResponse.error(.notFound, "\(name): no such output") }
            let size = Int(info.st_size)
            // Checked again as it is opened: the name may point elsewhere by then.
            let file = OutputFile(path: path, size: size, threads: fileThreads)
            var headers = HTTPFields()
            headers[.contentType] = Self.mediaType(of: name)
            headers[.acceptRanges] = "bytes"
            // The page's player seeks in a long render with Range requests.
            switch ByteRange(header: request.headers[.range], size: size) {
            case .whole:
                headers[.contentLength] = String(size)
                return Response(status: .ok, headers: headers, body: file.body(nil))
            case .part(let range):
                headers[.contentLength] = String(range.count)
                headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
                return Response(status: .partialContent, headers: headers, body: file.body(range))
            case .unsatisfiable:
                var refusal = StudioResponse.error(.rangeNotSatisfiable, "\(name): the range is outside its \(size) bytes")
                refusal.headers[.contentRange] = "bytes */\(size)"
                return refusal
            }
        }
    }

    static func mediaType(of name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "mp4", "m4v": "video/mp4"
        case "mov": "video/quicktime"
        case "webm": "video/webm"
        case "mkv": "video/x-matroska"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "jsonl", "json": "application/json"
        case "cube", "txt": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}
