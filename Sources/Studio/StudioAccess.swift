import Foundation
import Hummingbird

/// Who may use the studio: a request must come to a host name the studio answers to
/// (so a DNS-rebound page cannot reach it) and carry the session's token (in the query,
/// then in the cookie the page sets, or as a bearer token).
public struct StudioAccess: Sendable {
    /// What a request is answered with when it may not proceed.
    public enum Refusal: Equatable, Sendable {
        /// No token at all: 401.
        case noToken
        /// A token that is not the session's: 403.
        case wrongToken
        /// A Host (or a WebSocket's Origin) the studio does not answer to: 403.
        case foreignHost(String)
    }

    /// The session's secret.
    public let token: String
    /// The address the server listens on (`127.0.0.1`, `::1`, `0.0.0.0`…).
    public let listenHost: String
    /// Whether the studio answers on other addresses (`--allow-remote`).
    public let allowRemote: Bool
    /// The cookie that carries the token once the page has loaded.
    public static let cookieName = "vidfx_studio"

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

    /// Checks a request's Host, Origin (when present: a WebSocket or a fetch from
    /// another site) and token.
    public func check(host: String?, origin: String?, queryToken: String?, cookieHeader: String?, authorization: String?) -> Refusal? {
        guard let host, allows(host: host) else { return .foreignHost(host ?? "(none)") }
        if let origin {
            // An Origin header names the page that made the request: only the studio's own,
            // the very host and port it was served from. Another port of localhost is
            // another program's page (and the same *site*, so a SameSite cookie goes with
            // it); `null` is a sandboxed frame or a file, never the studio's page.
            guard Self.sameOrigin(origin, host: host) else { return .foreignHost(origin) }
        }
        let offered = [queryToken, Self.cookie(Self.cookieName, in: cookieHeader), Self.bearer(authorization)].compactMap { $0 }
        guard !offered.isEmpty else { return .noToken }
        return offered.contains(where: { Self.equalInConstantTime($0, token) }) ? nil : .wrongToken
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

    static func cookie(_ name: String, in header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    static func bearer(_ header: String?) -> String? {
        guard let header, header.lowercased().hasPrefix("bearer ") else { return nil }
        return String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }

    /// Compares without stopping at the first difference, so timing says nothing of the token.
    static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) { difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0) }
        return difference == 0
    }
}

/// Refuses every request that ``StudioAccess`` does not allow, before any route runs;
/// the first page load with the token in its query sets the cookie.
struct StudioAccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: StudioAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let query = request.uri.queryParameters.get("token")
        let refusal = access.check(host: request.head.authority, origin: request.headers[.origin], queryToken: query,
                                   cookieHeader: request.headers[.cookie], authorization: request.headers[.authorization])
        switch refusal {
        case .noToken:
            return StudioResponse.error(.unauthorized, "this studio needs its token: open the address vidfx printed (…/?token=…)")
        case .wrongToken:
            return StudioResponse.error(.forbidden, "wrong token")
        case .foreignHost(let host):
            return StudioResponse.error(.forbidden, "\(host): not a host this studio answers to")
        case nil:
            var response = try await next(request, context)
            if query != nil {
                // HttpOnly: scripts never see it; Strict: no other site's page sends it.
                response.headers[.setCookie] = "\(StudioAccess.cookieName)=\(access.token); Path=/; HttpOnly; SameSite=Strict"
            }
            return response
        }
    }
}
