import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// The bytes of a connection's first request, read before the HTTP parser sees them:
/// what the parser and the WebSocket upgrade cannot answer well themselves.
/// - A request line longer than ``longestLine`` gets 414, a head longer than
///   ``longestHead`` 431 (the parser would hold a 1 MB line and answer nothing).
/// - A head not complete within the time allowed is closed with 408 (a slow client holds
///   no connection for long).
/// - A WebSocket upgrade that ``StudioAccess`` refuses gets its 401 or 403 (the upgrade
///   path answers every refusal with a bare 400).
/// Each refusal is one line of JSON, and the connection closes. Once the first head has
/// passed, the guard steps aside.
final class RequestHeadGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
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
        if let end = Self.endOfHead(head, from: searchFrom) {
            let text = String(decoding: head[..<end], as: UTF8.self)
            finished = true
            timer?.cancel()
            if let refusal = check(text) {
                refuse(context, status: refusal.status, refusal.message)
                return
            }
            head = []
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        if (lineEnd ?? head.count) > Self.longestLine {
            finished = true
            refuse(context, status: "414 URI Too Long", "the request line is longer than \(Self.longestLine >> 10) KiB")
        } else if head.count > Self.longestHead {
            finished = true
            refuse(context, status: "431 Request Header Fields Too Large", "the request's head is longer than \(Self.longestHead >> 10) KiB")
        } else {
            context.fireChannelRead(data)
        }
    }

    /// Where the head ends (after its blank line), if it has, looking from `start` on.
    static func endOfHead(_ bytes: [UInt8], from start: Int = 0) -> Int? {
        for i in bytes.indices.dropFirst(max(start, 1)) where bytes[i] == 10 {
            if bytes[i - 1] == 10 { return i + 1 }
            if i >= 3, bytes[i - 1] == 13, bytes[i - 2] == 10 { return i + 1 }
        }
        return nil
    }

    /// The refusal of a complete head: a WebSocket upgrade without the right token, host or
    /// origin, or a line or head too long; nil to let it through to the router.
    func check(_ text: String) -> (status: String, message: String)? {
        let lines = text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" })
        guard let requestLine = lines.first else { return nil }
        if requestLine.utf8.count > Self.longestLine {
            return ("414 URI Too Long", "the request line is longer than \(Self.longestLine >> 10) KiB")
        }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            fields[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard fields["upgrade"]?.lowercased() == "websocket" else { return nil }
        let target = requestLine.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        var token: String?
        if let query = target.split(separator: "?", maxSplits: 1).dropFirst().first {
            for pair in query.split(separator: "&") where pair.hasPrefix("token=") { token = String(pair.dropFirst(6)) }
        }
        switch access.check(host: fields["host"], origin: fields["origin"], queryToken: token, cookieHeader: fields["cookie"],
                            authorization: fields["authorization"]) {
        case .noToken: return ("401 Unauthorized", "this studio needs its token: open the address vidfx printed (…/?token=…)")
        case .wrongToken: return ("403 Forbidden", "wrong token")
        case .foreignHost(let host): return ("403 Forbidden", "\(host): not a host this studio answers to")
        case nil: return nil
        }
    }

    /// Answers `status` with `{"error": message}`, then ends the connection: its output is
    /// closed once the answer is out, its input drained for up to 2 s, then it is closed.
    private func refuse(_ context: ChannelHandlerContext, status: String, _ message: String) {
        refused = true
        let body = StudioResponse.errorBody(message)
        let head = "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n"
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

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        context.fireChannelInactive()
    }
}

/// A server child channel with a ``RequestHeadGuard`` in front of everything `base` sets up.
struct GuardedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let access: StudioAccess
    let headTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let (access, headTimeout) = (access, headTimeout)
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(RequestHeadGuard(access: access, headTimeout: headTimeout), position: .first)
        }.flatMap { base.setup(channel: channel, logger: logger) }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
