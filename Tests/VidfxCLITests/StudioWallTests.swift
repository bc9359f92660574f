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
                for k in (60, 70, 90): r = r.replace("<HEAD%dK>" % k, "X-Big: " + "a" * (k * 1000) + "\\r\\n")
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
    static let bearer = "Authorization: Bearer TOKEN\r\n"
    /// The subprotocols the page offers its WebSocket: the token among them.
    static let offer = "Sec-WebSocket-Protocol: vidfx, vidfx-token.TOKEN\r\n"
    static let upgrade = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"

    @Test func longLinesHeadsAndBodiesAreRefusedInOneLine() async throws {
        let studio = try await StudioProcess.start()
        defer { Task { await studio.stop() } }
        let answers = try await Self.raw(studio, [
            "GET /<LONGLINE> HTTP/1.1\r\n\(Self.head)\r\n",
            "GET /api/info HTTP/1.1\r\n\(Self.head)\(Self.bearer)<BIGHEADER>\r\n\r\n",
            "POST /api/render HTTP/1.1\r\n\(Self.head)\(Self.bearer)Content-Type: application/json\r\nContent-Length: 1100000\r\n\r\n<BIGBODY>",
            "GET /api/info HTTP/1.1\r\n\(Self.head)\(Self.bearer)Connection: close\r\n\r\n",
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
            "GET /ws HTTP/1.1\r\n\(Self.head)\(Self.upgrade)Sec-WebSocket-Protocol: vidfx, vidfx-token.0123\r\n\r\n",
            "GET /ws HTTP/1.1\r\n\(Self.head)Origin: http://127.0.0.1:3000\r\n\(Self.upgrade)\(Self.offer)\r\n",
            "GET /ws HTTP/1.1\r\n\(Self.head)Origin: null\r\n\(Self.upgrade)\(Self.offer)\r\n",
            "GET /ws HTTP/1.1\r\n\(Self.head)Origin: http://127.0.0.1:PORT\r\n\(Self.upgrade)\(Self.offer)\r\n",
            // Issue 65, 14: the token in the URL is not a token (logs keep URLs), and a
            // browser's request from another port's page (Sec-Fetch-Site) is refused.
            "GET /ws?token=TOKEN HTTP/1.1\r\n\(Self.head)\(Self.upgrade)\r\n",
            "GET /ws HTTP/1.1\r\n\(Self.head)Sec-Fetch-Site: same-site\r\n\(Self.upgrade)\(Self.offer)\r\n",
        ])
        #expect(answers.count == 7)
        #expect(answers[5].hasPrefix("HTTP/1.1 401 ") && answers[6].hasPrefix("HTTP/1.1 403 "), "\(answers[5]) \(answers[6])")
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
        let answers = try await Self.raw(studio, ["GET /api/info HTTP/1.1\r\n\(Self.head)\(Self.bearer)Connection: close\r\n\r\n"], slow: 40)
        #expect(answers.count == 41)
        #expect(answers[0].hasPrefix("HTTP/1.1 200 "), "\(answers[0])")
        let slow = answers.dropFirst()
        #expect(slow.allSatisfy { $0.hasPrefix("HTTP/1.1 408 ") }, "every half head is closed with 408: \(Set(slow))")
        #expect(await studio.stop() == 0)
    }
    /// Issue 65, 13: the head limit holds however the head arrives: 70 KB and 90 KB heads
    /// in one write get 431 (they got 401, and no answer at all).
    @Test func aLongHeadInOneWriteGets431() async throws {
        let studio = try await StudioProcess.start()
        defer { Task { await studio.stop() } }
        let answers = try await Self.raw(studio, [
            "GET /api/info HTTP/1.1\r\n\(Self.head)<HEAD70K>\r\n",
            "GET /api/info HTTP/1.1\r\n\(Self.head)<HEAD90K>\r\n",
            "GET /api/info HTTP/1.1\r\n\(Self.head)\(Self.bearer)<HEAD60K>Connection: close\r\n\r\n",
        ])
        #expect(answers.count == 3)
        #expect(answers[0].hasPrefix("HTTP/1.1 431 ") && answers[1].hasPrefix("HTTP/1.1 431 "), "\(answers.map { $0.prefix(60) })")
        #expect(answers[2].hasPrefix("HTTP/1.1 200 "), "a head within the limit is served: \(answers[2].prefix(60))")
        #expect(await studio.stop() == 0)
    }

    /// Issue 65, 6: a connection that never shows the token serves one answer and is
    /// closed; a crowd of half-sent heads cannot take the descriptors. 1,000 kept-alive
    /// sockets that read their 401 are all closed by the studio, and 1,000 half heads
    /// later the token's requests are still answered. (Latencies are printed: load
    /// decides them, not the studio.)
    @Test func idleAndHalfOpenConnectionsCannotStarveThePage() async throws {
        let studio = try await StudioProcess.start()
        defer { Task { await studio.stop() } }
        let port = studio.base.split(separator: ":").last.map(String.init) ?? ""
        let script = """
            import json, resource, socket, sys, time
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
            port, token = int(sys.argv[1]), sys.argv[2]
            def info():
                t = time.time(); s = socket.create_connection(("127.0.0.1", port)); s.settimeout(120)
                s.sendall(("GET /api/info HTTP/1.1\\r\\nHost: 127.0.0.1:%d\\r\\nAuthorization: Bearer %s\\r\\nConnection: close\\r\\n\\r\\n" % (port, token)).encode())
                got = b""
                while True:
                    c = s.recv(65536)
                    if not c: break
                    got += c
                s.close()
                return got.split(b"\\r\\n")[0].decode(), round((time.time() - t) * 1000, 1)
            idle = []
            for i in range(1000):
                s = socket.create_connection(("127.0.0.1", port))
                s.sendall(b"GET /api/info HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n")
                idle.append(s)
            during = info()
            closed = 0
            for s in idle:
                s.settimeout(60)
                try:
                    while s.recv(65536): pass
                    closed += 1
                except OSError: pass
                s.close()
            half = []
            for i in range(1000):
                s = socket.create_connection(("127.0.0.1", port))
                s.sendall(b"GET /api/info HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nX-Half: ")
                half.append(s)
            after = [info() for _ in range(5)]
            print(json.dumps({"during": during, "closed": closed, "after": after}))
            """
        let outcome = try await Subprocess.outcome(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, port, studio.token], slotted: false)
        let result = try #require(try JSONSerialization.jsonObject(with: outcome.stdout) as? [String: Any], "\(outcome.stderrText)")
        print("1,000 sockets after their 401: \(result["closed"] ?? "?") closed by the studio; /api/info meanwhile \(result["during"] ?? "?"), "
              + "after 1,000 half heads \(result["after"] ?? "?") (status, ms)")
        #expect(result["closed"] as? Int == 1000)
        #expect((result["during"] as? [Any])?.first as? String == "HTTP/1.1 200 OK")
        #expect((result["after"] as? [[Any]])?.allSatisfy { $0.first as? String == "HTTP/1.1 200 OK" } == true, "\(result)")
        #expect(await studio.stop() == 0, "it stops at once with 1,000 half heads open")
    }

    /// Issue 65, 11: SIGTERM with the page's WebSocket open and a render running: the
    /// socket is closed with 1001, the render stopped at its next frame, no work file is
    /// left, and the studio exits by itself, 0, not ended by its watchdog.
    @Test func sigtermClosesSocketsAndStopsRendersCleanly() async throws {
        let studio = try await StudioProcess.start()
        let started = try await studio.request("/api/render", method: "POST", body: #"{"chain": "blur:sigma=6,sharpen", "output": "long.mp4", "loop": 1000}"#)
        #expect(started.status == 200, "\(started.text)")
        let id = try #require(started.json?["id"] as? String)
        for _ in 0..<600 {
            let s = try await studio.request("/api/render/\(id)").json
            if (s?["progress"] as? Double ?? 0) > 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let port = studio.base.split(separator: ":").last.map(String.init) ?? ""
        let script = """
            import json, os, signal, socket, sys, time
            port, token, pid = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
            s = socket.create_connection(("127.0.0.1", port)); s.settimeout(60)
            s.sendall(("GET /ws HTTP/1.1\\r\\nHost: 127.0.0.1:%d\\r\\nOrigin: http://127.0.0.1:%d\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n"
                       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\nSec-WebSocket-Version: 13\\r\\n"
                       "Sec-WebSocket-Protocol: vidfx, vidfx-token.%s\\r\\n\\r\\n" % (port, port, token)).encode())
            head = b""
            while b"\\r\\n\\r\\n" not in head: head += s.recv(1)
            time.sleep(0.5)
            t = time.time(); os.kill(pid, signal.SIGTERM)
            data, code = b"", None
            try:
                while True:
                    c = s.recv(1 << 20)
                    if not c: break
                    data += c
            except OSError: pass
            # The frames: find the close frame (opcode 8) and its code.
            i = 0
            while i + 2 <= len(data):
                op, n = data[i] & 15, data[i + 1] & 127
                j = i + 2
                if n == 126: n = int.from_bytes(data[j:j + 2], "big"); j += 2
                elif n == 127: n = int.from_bytes(data[j:j + 8], "big"); j += 8
                if op == 8: code = int.from_bytes(data[j:j + 2], "big"); break
                i = j + n
            print(json.dumps({"head": head.split(b"\\r\\n")[0].decode(), "protocol": b"Sec-WebSocket-Protocol: vidfx\\r\\n" in head,
                              "code": code, "closedAfter": round(time.time() - t, 3)}))
            """
        let outcome = try await Subprocess.outcome(URL(fileURLWithPath: "/usr/bin/env"),
                                                   ["python3", "-c", script, port, studio.token, "\(studio.running.process.processIdentifier)"], slotted: false)
        let clock = ContinuousClock.now
        let status = await studio.running.exit().status
        let result = try #require(try JSONSerialization.jsonObject(with: outcome.stdout) as? [String: Any], "\(outcome.stderrText)")
        print("SIGTERM with a socket and a render: closed \(result["code"] ?? "?") after \(result["closedAfter"] ?? "?") s, exited \(ContinuousClock.now - clock) after the socket closed")
        #expect(result["head"] as? String == "HTTP/1.1 101 Switching Protocols" && result["protocol"] as? Bool == true, "\(result)")
        #expect(result["code"] as? Int == 1001, "\(result)")
        #expect(status == 0, "ended by itself, not by the watchdog (\(status))")
        let left = studio.allOutputFiles.filter { $0 != ".vidfx-cache" }
        #expect(left.isEmpty, "no render and no work file: \(left)")
    }
}
