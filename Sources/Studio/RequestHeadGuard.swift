import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import Synchronization

/// The bytes of a connection's first request, read before the HTTP parser sees them:
/// what the parser and the WebSocket upgrade cannot answer well themselves.
/// - A request line longer than ``longestLine`` gets 414, a head longer than
///   ``longestHead`` 431, however it arrives: in pieces or in one write.
/// - A head not complete within the time allowed is closed with 408 (a slow client holds
///   no connection for long; later requests on a kept-alive connection are bounded by
///   the HTTP layer's idle timeout, which a trickled head does not reset).
/// - A WebSocket upgrade that ``StudioAccess`` refuses gets its 401 or 403 (the upgrade
///   path answers every refusal with a bare 400).
/// - A first request without the token (a refusal, or the page itself) is passed on with
///   `Connection: close`: a connection that never showed the token serves one answer and
///   closes, so a process without it cannot hold sockets open.
/// Each refusal is one line of JSON, and the connection closes. The head is passed on
/// whole once it has arrived; then the guard passes bytes through, and closes the
/// connection whole 2 s after its output is closed. It also books the connection
/// in a ``ConnectionBook``, which closes the oldest connection that has not shown the
/// token when there are too many.
final class RequestHeadGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The longest request line taken, in bytes.
    static let longestLine = 8 << 10
    /// The longest request head taken (line and header fields), in bytes.
    static let longestHead = 64 << 10

    private let access: StudioAccess
    private let headTimeout: TimeAmount
    private var head: [UInt8] = []
    private var finished = false
    private var timer: Scheduled<Void>?
    /// Where the request line ends, once its newline has arrived.
    private var lineEnd: Int?
    /// Whether the connection was refused (its answer written, its input being drained).
    private var refused = false

    init(access: StudioAccess, headTimeout: TimeAmount) {
        self.access = access
        self.headTimeout = headTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    private func arm(_ context: ChannelHandlerContext) {
        guard timer == nil else { return }
        let seconds = headTimeout.nanoseconds / 1_000_000_000
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: headTimeout) { [self] in
            guard !finished else { return }
            refuse(context, status: "408 Request Timeout", "the request's head did not arrive within \(seconds) s")
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // After a refusal, what the client still sends is read and dropped until it closes:
        // closing with unread bytes would reset the connection, and the reset can reach
        // the client before the answer it was sent.
        if refused { return }
        guard !finished else { context.fireChannelRead(data); return }
        let buffer = unwrapInboundIn(data)
        // Only the new bytes are searched (and the three before them, where a blank line
        // may begin): a client trickling its head a byte at a time costs linear time.
        let searchFrom = max(head.count - 3, 0)
        head += buffer.readableBytesView
        if lineEnd == nil { lineEnd = head[searchFrom...].firstIndex(of: UInt8(ascii: "\n")) }
        let end = Self.endOfHead(head, from: searchFrom)
        // The limits hold however the bytes came: a 70 KB head in one write is as long as
        // one in pieces.
        if (lineEnd ?? head.count) > Self.longestLine {
            finished = true
            refuse(context, status: "414 URI Too Long", "the request line is longer than \(Self.longestLine >> 10) KiB")
            return
        }
        if (end ?? head.count) > Self.longestHead {
            finished = true
            refuse(context, status: "431 Request Header Fields Too Large", "the request's head is longer than \(Self.longestHead >> 10) KiB")
            return
        }
        guard let end else { return }
        let text = String(decoding: head[..<end], as: UTF8.self)
        finished = true
        timer?.cancel()
        switch check(text) {
        case .refuse(let status, let message):
            refuse(context, status: status, message)
            return
        case .pass(let authorized):
            var out = context.channel.allocator.buffer(capacity: head.count + 20)
            if authorized {
                out.writeBytes(head)
                ConnectionBook.authorized(context.channel)
            } else {
                out.writeBytes(Self.closing(head[..<end]))
                out.writeBytes(head[end...])
            }
            head = []
            // The guard stays, passing bytes through, to see the connection closed.
            context.fireChannelRead(wrapInboundOut(out))
        }
    }

    /// The head with every `Connection` field replaced by `Connection: close`.
    static func closing(_ head: ArraySlice<UInt8>) -> [UInt8] {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.components(separatedBy: "\n")
        // The blank line (and the empty piece after its newline) end the head.
        while let last = lines.last, last.isEmpty || last == "\r" { lines.removeLast() }
        lines.removeAll { line in
            line.split(separator: ":", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() == "connection" } ?? false
        }
        return Array((lines.map { $0.hasSuffix("\r") ? String($0.dropLast()) : $0 }.joined(separator: "\r\n")
            + "\r\nConnection: close\r\n\r\n").utf8)
    }

    /// Where the head ends (after its blank line), if it has, looking from `start` on.
    static func endOfHead(_ bytes: [UInt8], from start: Int = 0) -> Int? {
        for i in bytes.indices.dropFirst(max(start, 1)) where bytes[i] == 10 {
            if bytes[i - 1] == 10 { return i + 1 }
            if i >= 3, bytes[i - 1] == 13, bytes[i - 2] == 10 { return i + 1 }
        }
        return nil
    }

    /// What becomes of a complete head.
    enum Verdict: Equatable {
        /// Answered here and closed.
        case refuse(status: String, message: String)
        /// Passed on; `authorized` when it carries the token (else the connection closes
        /// after its answer).
        case pass(authorized: Bool)
    }

    /// The verdict on a complete head: a WebSocket upgrade without the right token, host
    /// or origin is refused here; any other request goes to the router, which answers
    /// its refusals itself.
    func check(_ text: String) -> Verdict {
        let lines = text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" })
        guard let requestLine = lines.first else { return .pass(authorized: false) }
        if requestLine.utf8.count > Self.longestLine {
            return .refuse(status: "414 URI Too Long", message: "the request line is longer than \(Self.longestLine >> 10) KiB")
        }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            // A field given twice is refused by the check below whichever copy is read.
            fields[name] = fields[name].map { $0 + ", " + value } ?? value
        }
        let target = requestLine.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        let path = String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        let refusal = access.check(host: fields["host"], origin: fields["origin"], fetchSite: fields["sec-fetch-site"],
                                   authorization: fields["authorization"], protocols: fields["sec-websocket-protocol"], path: path)
        let upgrade = fields["upgrade"]?.lowercased() == "websocket"
        if upgrade, let refusal {
            let (status, message) = refusal.answer
            return .refuse(status: status == 401 ? "401 Unauthorized" : "403 Forbidden", message: message)
        }
        return .pass(authorized: refusal == nil && !StudioAccess.publicPaths.contains(path))
    }

    /// Answers `status` with `{"error": message}`, then ends the connection: its output is
    /// closed once the answer is out, its input drained for up to 2 s, then it is closed.
    private func refuse(_ context: ChannelHandlerContext, status: String, _ message: String) {
        refused = true
        let body = StudioResponse.errorBody(message)
        let head = "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n"
            + "Content-Security-Policy: frame-ancestors 'none'\r\nX-Frame-Options: DENY\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        var buffer = context.channel.allocator.buffer(capacity: head.utf8.count + body.count)
        buffer.writeString(head)
        buffer.writeBytes(body)
        context.writeAndFlush(wrapOutboundOut(buffer)).assumeIsolated().whenComplete { _ in
            context.close(mode: .output, promise: nil)
            context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(2)) { context.close(promise: nil) }
        }
        self.head = []
    }

    /// A connection whose output is closed (its last answer sent) is closed whole 2 s
    /// later, whatever the client does: a client that keeps its end open holds nothing.
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .output {
            let channel = context.channel
            context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        }
        context.close(mode: mode, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        context.fireChannelInactive()
    }
}

/// The connections open now, so there are never so many that the process runs out of
/// descriptors (1,011 idle sockets once left the user's page unanswered). Past
/// ``most``, a new connection closes the oldest one that has not shown the token: a
/// crowd of them cannot crowd out the page, whose requests show it at once.
final class ConnectionBook: Sendable {
    /// The most connections open at once.
    let most: Int
    private struct Entry { var channel: any Channel; var authorized: Bool }
    private let entries = Mutex<(next: Int, open: [Int: Entry])>((0, [:]))

    init(most: Int) { self.most = most }

    /// Books `channel`; closes the oldest unauthorized connection (or `channel` itself
    /// when every other one has shown the token) when there are too many.
    func open(_ channel: any Channel) {
        let (number, victim): (Int, (any Channel)?) = entries.withLock { book in
            book.next += 1
            let number = book.next
            book.open[number] = Entry(channel: channel, authorized: false)
            guard book.open.count > most else { return (number, nil) }
            // Numbers grow with time: the smallest unauthorized one is the oldest.
            let oldest = book.open.filter { !$0.value.authorized }.min { $0.key < $1.key }?.key ?? number
            return (number, book.open.removeValue(forKey: oldest)?.channel)
        }
        Self.numbers.withLock { $0[ObjectIdentifier(channel)] = (number, self) }
        victim?.close(promise: nil)
        channel.closeFuture.whenComplete { [self] _ in
            entries.withLock { _ = $0.open.removeValue(forKey: number) }
            _ = Self.numbers.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
        }
    }

    /// Marks `channel` as one that showed the token: never closed to make room.
    static func authorized(_ channel: any Channel) {
        guard let (number, book) = numbers.withLock({ $0[ObjectIdentifier(channel)] }) else { return }
        book.entries.withLock { $0.open[number]?.authorized = true }
    }

    /// Closes every connection that has not shown the token.
    func closeUnauthorized() {
        for channel in entries.withLock({ $0.open.values.filter { !$0.authorized }.map(\.channel) }) { channel.close(promise: nil) }
    }

    /// How many are open.
    var count: Int { entries.withLock { $0.open.count } }

    private static let numbers = Mutex<[ObjectIdentifier: (Int, ConnectionBook)]>([:])
}

/// A server child channel with a ``RequestHeadGuard`` in front of everything `base` sets up.
struct GuardedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let access: StudioAccess
    let headTimeout: TimeAmount

    let book: ConnectionBook

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let (access, headTimeout) = (access, headTimeout)
        book.open(channel)
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(RequestHeadGuard(access: access, headTimeout: headTimeout), position: .first)
        }.flatMap { base.setup(channel: channel, logger: logger) }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
