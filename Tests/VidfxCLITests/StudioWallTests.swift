import Foundation
import TestSupport
import Testing

/// The studio's walls below its router (issue 46): what a hostile client sends before a
/// route runs is answered with a 4xx and one line of JSON, and the studio keeps answering.
@Suite struct StudioWallTests {
    /// Sends each raw request on its own connection (python3's sockets: a 1 MB request line
    /// is more than a command line can carry) and gives back each answer's status line and
    /// body, or "closed"/"timeout". `slow` connections send half a head and wait.
    static func raw(_ studio: StudioProcess, _ requests: [String], slow: Int = 0) async throws -> [String] {
        let port = studio.base.split(separator: ":").last.map(String.init) ?? ""
        let script = """
            import json, socket, sys, threading
            port, token, slow = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
            requests = [r.replace("TOKEN", token).replace("PORT", str(port)) for r in json.loads(sys.argv[4])]
            def expand(r):
                r = r.replace("<LONGLINE>", "a" * 1_000_000).replace("<BIGHEADER>", "X-Big: " + "a" * 200_000)
                return r.replace("<BIGBODY>", "{" * 1_100_000).encode()
            def ask(data):
                s = socket.create_connection(("127.0.0.1", port)); s.settimeout(120)
                try:
                    s.sendall(data)
                    got = b""
                    while True:
                        chunk = s.recv(65536)
                        if not chunk: break
                        got += chunk
                        if b"\\r\\n\\r\\n" in got:
                            head, _, body = got.partition(b"\\r\\n\\r\\n")
                            length = [int(l.split(b":")[1]) for l in head.split(b"\\r\\n") if l.lower().startswith(b"content-length:")]
                            if head.startswith(b"HTTP/1.1 101") or (length and len(body) >= length[0]): break
                    if not got: return "closed"
                    head, _, body = got.partition(b"\\r\\n\\r\\n")
                    return head.split(b"\\r\\n")[0].decode() + " " + body.decode("utf-8", "replace")
                except socket.timeout:
                    return "timeout"
                except (ConnectionResetError, BrokenPipeError):
                    return "reset"
                finally:
                    s.close()
            answers = {}
            def slow_one(i):
                answers[("slow", i)] = ask(("GET /api/info HTTP/1.1\\r\\nHost: 127.0.0.1:%d\\r\\nX-Half: " % port).encode())
            threads = [threading.Thread(target=slow_one, args=(i,)) for i in range(slow)]
            for t in threads: t.start()
            out = [ask(expand(r)) for r in requests]
            for t in threads: t.join()
            out += [answers[("slow", i)] for i in range(slow)]
            print(json.dumps(out))
            """
        let list = String(decoding: try JSONSerialization.data(withJSONObject: requests), as: UTF8.self)
        let outcome = try await Subprocess.outcome(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, port, studio.token, "\(slow)", list],
                                                   slotted: false)
        let data = outcome.stdout
        return try JSONSerialization.jsonObject(with: data) as? [String] ?? []
    }

    static let head = "Host: 127.0.0.1:PORT\r\n"
    static let upgrade = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"

    @Test func longLinesHeadsAndBodiesAreRefusedInOneLine() async throws {
        let studio = try await StudioProcess.start()
        defer { Task { await studio.stop() } }
        let answers = try await Self.raw(studio, [
            "GET /<LONGLINE> HTTP/1.1\r\n\(Self.head)\r\n",
            "GET /api/info?token=TOKEN HTTP/1.1\r\n\(Self.head)<BIGHEADER>\r\n\r\n",
            "POST /api/render?token=TOKEN HTTP/1.1\r\n\(Self.head)Content-Type: application/json\r\nContent-Length: 1100000\r\n\r\n<BIGBODY>",
            "GET /api/info?token=TOKEN HTTP/1.1\r\n\(Self.head)Connection: close\r\n\r\n",
        ])
        #expect(answers.count == 4)
        #expect(answers[0].hasPrefix("HTTP/1.1 414 ") && answers[0].contains(#"{"error":"the request line is longer"#), "\(answers[0])")
        #expect(answers[1].hasPrefix("HTTP/1.1 431 ") && answers[1].contains(#"{"error":"#), "\(answers[1])")
        #expect(answers[2].hasPrefix("HTTP/1.1 413 ") && answers[2].contains(#"{"error":"#), "\(answers[2])")
        #expect(!answers.joined().contains("NIO"), "no internal type names: \(answers)")
        #expect(answers[3].hasPrefix("HTTP/1.1 200 ") && answers[3].contains("\"ticks\":90"), "it still answers: \(answers[3])")
        #expect(await studio.stop() == 0)
    }

    @Test func aWebSocketWithoutTheRightTokenGets401Or403() async throws {
        let studio = try await StudioProcess.start()
        defer { Task { await studio.stop() } }
        let answers = try await Self.raw(studio, [
            "GET /ws HTTP/1.1\r\n\(Self.head)\(Self.upgrade)\r\n",
            "GET /ws?token=0123 HTTP/1.1\r\n\(Self.head)\(Self.upgrade)\r\n",
            "GET /ws?token=TOKEN HTTP/1.1\r\n\(Self.head)Origin: http://127.0.0.1:3000\r\n\(Self.upgrade)\r\n",
            "GET /ws?token=TOKEN HTTP/1.1\r\n\(Self.head)Origin: null\r\n\(Self.upgrade)\r\n",
            "GET /ws?token=TOKEN HTTP/1.1\r\n\(Self.head)Origin: http://127.0.0.1:PORT\r\n\(Self.upgrade)\r\n",
        ])
        #expect(answers.count == 5)
        #expect(answers[0].hasPrefix("HTTP/1.1 401 ") && answers[0].contains("token"), "\(answers[0])")
        #expect(answers[1].hasPrefix("HTTP/1.1 403 ") && answers[1].contains("wrong token"), "\(answers[1])")
        #expect(answers[2].hasPrefix("HTTP/1.1 403 ") && answers[3].hasPrefix("HTTP/1.1 403 "), "other origins: \(answers[2]) \(answers[3])")
        #expect(answers[4].hasPrefix("HTTP/1.1 101 "), "its own origin opens it: \(answers[4])")
        #expect(await studio.stop() == 0)
    }

    @Test func slowHeadsAreClosedAndTheStudioKeepsAnswering() async throws {
        let studio = try await StudioProcess.start()
        defer { Task { await studio.stop() } }
        // 40 connections each send half a head and stop (each closed after 30 s); meanwhile a
        // whole request is answered.
        let answers = try await Self.raw(studio, ["GET /api/info?token=TOKEN HTTP/1.1\r\n\(Self.head)Connection: close\r\n\r\n"], slow: 40)
        #expect(answers.count == 41)
        #expect(answers[0].hasPrefix("HTTP/1.1 200 "), "\(answers[0])")
        let slow = answers.dropFirst()
        #expect(slow.allSatisfy { $0.hasPrefix("HTTP/1.1 408 ") }, "every half head is closed with 408: \(Set(slow))")
        #expect(await studio.stop() == 0)
    }
}
