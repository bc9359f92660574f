import Foundation
import Hummingbird

/// Who may use the studio: a request must come to a host name the studio answers to
/// (so a DNS-rebound page cannot reach it), from the studio's own page when a browser
/// says where it comes from (`Origin`, `Sec-Fetch-Site`), and carry the session's token
/// as a bearer token (`Authorization: Bearer …`; a WebSocket offers it as a subprotocol,
/// `vidfx-token.…`, since a page cannot give a WebSocket headers). No cookie holds it: a
/// browser sends cookies to every port of 127.0.0.1, so any local program's page would
/// receive it; and no URL carries it, since logs and histories keep URLs.
public struct StudioAccess: Sendable {
    /// What a request is answered with when it may not proceed.
    public enum Refusal: Equatable, Sendable {
        /// No token at all: 401.
        case noToken
        /// A token that is not the session's: 403.
        case wrongToken
        /// A Host (or a WebSocket's Origin) the studio does not answer to: 403.
        case foreignHost(String)
        /// A browser's request made by another page (`Sec-Fetch-Site` other than
        /// `same-origin`): 403.
        case foreignPage(String)

        /// The status and the one line it is answered with.
        public var answer: (status: Int, message: String) {
            switch self {
            case .noToken: (401, "this studio needs its token: open the address vidfx printed (…/#token=…)")
            case .wrongToken: (403, "wrong token")
            case .foreignHost(let host): (403, "\(host): not a host this studio answers to")
            case .foreignPage(let site): (403, "a request from another page (Sec-Fetch-Site: \(site)) is not answered")
            }
        }
    }

    /// The session's secret.
    public let token: String
    /// The address the server listens on (`127.0.0.1`, `::1`, `0.0.0.0`…).
    public let listenHost: String
    /// Whether the studio answers on other addresses (`--allow-remote`).
    public let allowRemote: Bool
    /// The WebSocket subprotocol the page asks for, and the studio answers with.
    public static let webSocketProtocol = "vidfx"
    /// The prefix of the subprotocol that carries the token on a WebSocket.
    public static let tokenProtocolPrefix = "vidfx-token."
    /// What is served without the token: the page itself, which holds no secret, loaded
    /// from the address vidfx printed (the token after `#`, which no request carries).
    public static let publicPaths: Set<String> = ["/", "/studio.js", "/studio.css"]

    /// - Parameters:
    ///   - token: the session's secret.
    ///   - listenHost: the address listened on.
    ///   - allowRemote: whether non-loopback addresses are allowed (then any IP literal is a fine Host).
    public init(token: String, listenHost: String, allowRemote: Bool) {
        self.token = token
        self.listenHost = listenHost
        self.allowRemote = allowRemote
    }

    /// A new random token: 32 hex digits from the system's generator.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Whether a Host header (`name[:port]`) names this studio: localhost, the loopback
    /// addresses, the listen address, or with `--allow-remote` any IP address. A name
    /// that DNS resolves (an attacker's domain rebound to 127.0.0.1) is refused.
    public func allows(host header: String) -> Bool {
        let name = Self.hostName(header).lowercased()
        if ["localhost", "127.0.0.1", "::1"].contains(name) { return true }
        if name == listenHost.lowercased() && !["0.0.0.0", "::"].contains(name) { return true }
        return allowRemote && Self.isIPLiteral(name)
    }

    /// Checks a request's Host, Origin and `Sec-Fetch-Site` (when present: a browser's),
    /// and its token, given by `authorization` (`Bearer …`) or among a WebSocket's
    /// `protocols` (`Sec-WebSocket-Protocol`).
    /// - Parameters:
    ///   - path: the request's path: one of ``publicPaths`` needs no token, and may be
    ///     a page the user opened (`Sec-Fetch-Site: none`).
    public func check(host: String?, origin: String?, fetchSite: String? = nil, authorization: String?,
                      protocols: String? = nil, path: String = "/api") -> Refusal? {
        guard let host, allows(host: host) else { return .foreignHost(host ?? "(none)") }
        if let origin {
            // An Origin header names the page that made the request: only the studio's own,
            // the very host and port it was served from. Another port of localhost is
            // another program's page; `null` is a sandboxed frame or a file.
            guard Self.sameOrigin(origin, host: host) else { return .foreignHost(origin) }
        }
        let isPublic = Self.publicPaths.contains(path)
        if let site = fetchSite?.lowercased(), site != "same-origin", !(isPublic && site == "none") {
            // `same-site` is another port of 127.0.0.1: an `<img>` or a link from it.
            return .foreignPage(site)
        }
        if isPublic { return nil }
        let offered = [Self.bearer(authorization), Self.protocolToken(protocols)].compactMap { $0 }
        guard !offered.isEmpty else { return .noToken }
        return offered.allSatisfy({ Self.equalInConstantTime($0, token) }) ? nil : .wrongToken
    }

    /// Whether `origin` (`http://name:port`) is the page served at `host` (`name:port`):
    /// the same name, case aside, and the same port (80 when none is given).
    static func sameOrigin(_ origin: String, host: String) -> Bool {
        guard let url = URL(string: origin), url.scheme?.lowercased() == "http", url.path.isEmpty || url.path == "/",
              url.user == nil, url.query == nil, let name = url.host(percentEncoded: false) else { return false }
        let originName = name.hasPrefix("[") ? String(name.dropFirst().dropLast()) : name
        return originName.lowercased() == hostName(host).lowercased() && (url.port ?? 80) == (port(host) ?? 80)
    }

    /// The port of a Host header, nil when it names none.
    static func port(_ header: String) -> Int? {
        if header.hasPrefix("["), let close = header.firstIndex(of: "]") {
            let rest = header[header.index(after: close)...]
            return rest.hasPrefix(":") ? Int(rest.dropFirst()) : nil
        }
        guard header.filter({ $0 == ":" }).count == 1, let colon = header.lastIndex(of: ":") else { return nil }
        return Int(header[header.index(after: colon)...])
    }

    /// The name part of a Host header: `[::1]:8080` → `::1`, `localhost:80` → `localhost`.
    static func hostName(_ header: String) -> String {
        if header.hasPrefix("["), let close = header.firstIndex(of: "]") {
            return String(header[header.index(after: header.startIndex)..<close])
        }
        if let colon = header.lastIndex(of: ":"), header.filter({ $0 == ":" }).count == 1 { return String(header[..<colon]) }
        return header
    }

    static func isIPLiteral(_ name: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, name, &v4) == 1 || inet_pton(AF_INET6, name, &v6) == 1
    }

    static func bearer(_ header: String?) -> String? {
        guard let header, header.lowercased().hasPrefix("bearer ") else { return nil }
        return String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }

    /// The token among a WebSocket's offered subprotocols (`vidfx, vidfx-token.T`).
    static func protocolToken(_ header: String?) -> String? {
        guard let header else { return nil }
        for item in header.split(separator: ",") {
            let p = item.trimmingCharacters(in: .whitespaces)
            if p.hasPrefix(tokenProtocolPrefix) { return String(p.dropFirst(tokenProtocolPrefix.count)) }
        }
        return nil
    }

    /// Compares without stopping at the first difference, so timing says nothing of the token.
    static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) { difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0) }
        return difference == 0
    }
}

/// Refuses every request that ``StudioAccess`` does not allow, before any route runs, and
/// marks every answer as never to be framed by another page, nor cached.
struct StudioAccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: StudioAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let refusal = access.check(host: request.head.authority, origin: request.headers[.origin],
                                   fetchSite: request.headers[.init("Sec-Fetch-Site")!],
                                   authorization: request.headers[.authorization],
                                   protocols: request.headers[.secWebSocketProtocol], path: request.uri.path)
        var response: Response
        if let refusal {
            let (status, message) = refusal.answer
            response = StudioResponse.error(HTTPResponse.Status(code: status), message)
        } else {
            response = try await next(request, context)
        }
        Self.secure(&response.headers)
        return response
    }

    /// The headers every answer carries: no other page may frame the studio (a same-site
    /// page could otherwise overlay it and steer a user's clicks), nothing is cached or
    /// sniffed, and no address is passed on as a referrer.
    static func secure(_ headers: inout HTTPFields) {
        headers[.contentSecurityPolicy] = "frame-ancestors 'none'"
        headers[.init("X-Frame-Options")!] = "DENY"
        headers[.xContentTypeOptions] = "nosniff"
        headers[.init("Referrer-Policy")!] = "no-referrer"
        if headers[.cacheControl] == nil { headers[.cacheControl] = "no-store" }
    }
}
