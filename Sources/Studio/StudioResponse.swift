import Foundation
import Hummingbird

/// The studio's answers: JSON bodies, errors as `{"error": "…"}`.
enum StudioResponse {
    static func json(_ object: Any, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return bytes(data, type: "application/json", status: status)
    }

    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        json(["error": message], status: status)
    }

    /// `{"error": message}` as bytes, for answers written below the router.
    static func errorBody(_ message: String) -> [UInt8] {
        Array((try? JSONSerialization.data(withJSONObject: ["error": message], options: [.withoutEscapingSlashes])) ?? Data("{}".utf8))
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
