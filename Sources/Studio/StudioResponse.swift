import Foundation
import Hummingbird

/// The studio's answers: JSON bodies, errors as `{"error": "…"}`.
enum StudioResponse {
    static func json(_ answer: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        bytes(encoded(answer), type: "application/json", status: status)
    }

    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        json(ErrorAnswer(error: message), status: status)
    }

    /// `{"error": message}` as bytes, for answers written below the router.
    static func errorBody(_ message: String) -> [UInt8] {
        Array(encoded(ErrorAnswer(error: message)))
    }

    /// An answer as JSON text, for a WebSocket message.
    static func text(_ answer: some Encodable) -> String {
        String(decoding: encoded(answer), as: UTF8.self)
    }

    /// An answer as JSON, keys sorted. Every answer type encodes (plain fields only).
    private static func encoded(_ answer: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(answer)) ?? Data("{}".utf8)
    }

    static func bytes(_ data: some Sequence<UInt8>, type: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: Array(data))))
    }
}

/// Something a request asked for that the studio refuses, with the status to answer.
package struct StudioRequestError: Error {
    let status: HTTPResponse.Status
    /// The refusal's one line.
    package let message: String
    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }
}
