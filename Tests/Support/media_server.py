#!/usr/bin/env python3
"""A loopback HTTP server for vidfx's remote-input tests: honours Range requests
(Python's http.server does not) and injects faults on request.

    python3 media_server.py ROOT      prints "PORT <n>" on stdout, then serves ROOT

Paths (NAME is a file under ROOT, may contain slashes):
  /files/NAME                 the file, with Range support (206 + Content-Range)
  /norange/NAME               the whole file every time, Range ignored
  /drop-once/N/NAME           the first response for NAME closes after N body bytes
  /drop-always/N/NAME         every response closes after N body bytes
  /stall/N/NAME               sends headers and N body bytes, then nothing, forever
  /slow/BPS/NAME              the file at BPS bytes per second
  /status/CODE                an empty response with that status
  /garbage                    200 with 64 KiB of bytes that are no media format
  /nulls                      200, no length, MPEG-TS null packets until the client leaves
  /loop/N                     302 to /loop/N+1, forever (a redirect loop)
Every request is logged to stderr as "METHOD PATH RANGE UA=… X-Token=…".
"""
import os, random, signal, socketserver, sys, threading, time
from http.server import BaseHTTPRequestHandler, HTTPServer

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
dropped = set()
lock = threading.Lock()


class Server(socketserver.ThreadingMixIn, HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def do_HEAD(self):
        self.handle_request(head=True)

    def do_GET(self):
        self.handle_request(head=False)

    def handle_request(self, head):
        extra = f" UA={self.headers.get('User-Agent', '-')} X-Token={self.headers.get('X-Token', '-')}"
        sys.stderr.write(f"{self.command} {self.path} {self.headers.get('Range', '-')}{extra}\n")
        sys.stderr.flush()
        parts = self.path.split("?")[0].lstrip("/").split("/")
        kind = parts[0]
        try:
            if kind == "status":
                self.send_response(int(parts[1]))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if kind == "loop":
                self.send_response(302)
                self.send_header("Location", f"/loop/{int(parts[1]) + 1}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if kind == "nulls":
                self.send_response(200)
                self.send_header("Content-Type", "video/mp2t")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                if not head:
                    chunk = (b"\x47\x1f\xff\x10" + b"\xff" * 184) * 1000
                    while True:  # ends with BrokenPipeError when the client hangs up
                        self.wfile.write(chunk)
                return
            if kind == "garbage":
                body = random.Random(7).randbytes(65536)
                self.send_response(200)
                self.send_header("Content-Type", "video/mp4")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if not head:
                    self.wfile.write(body)
                return
            if kind == "files":
                self.serve("/".join(parts[1:]), head, ranges=True)
            elif kind == "norange":
                self.serve("/".join(parts[1:]), head, ranges=False)
            elif kind in ("drop-once", "drop-always"):
                name = "/".join(parts[2:])
                with lock:
                    first = name not in dropped
                    dropped.add(name)
                limit = int(parts[1]) if (kind == "drop-always" or first) else None
                self.serve(name, head, ranges=True, limit=limit)
            elif kind == "stall":
                self.serve("/".join(parts[2:]), head, ranges=True, limit=int(parts[1]), stall=True)
            elif kind == "slow":
                self.serve("/".join(parts[2:]), head, ranges=True, rate=int(parts[1]))
            else:
                self.send_error(404)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def serve(self, name, head, ranges, limit=None, stall=False, rate=None):
        path = os.path.normpath(os.path.join(ROOT, name))
        if not path.startswith(ROOT) or not os.path.isfile(path):
            self.send_error(404)
            return
        size = os.path.getsize(path)
        start, end = 0, size - 1
        wanted = self.headers.get("Range")
        partial = False
        if ranges and wanted and wanted.startswith("bytes="):
            a, _, b = wanted[6:].split(",")[0].partition("-")
            if a:
                start = int(a)
                end = min(int(b), size - 1) if b else size - 1
            else:  # suffix range
                start = max(0, size - int(b))
            if start >= size:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            partial = True
        length = end - start + 1
        self.send_response(206 if partial else 200)
        self.send_header("Content-Type", content_type(name))
        self.send_header("Content-Length", str(length))
        if ranges:
            self.send_header("Accept-Ranges", "bytes")
        if partial:
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.end_headers()
        if head:
            return
        with open(path, "rb") as f:
            f.seek(start)
            sent = 0
            while sent < length:
                chunk = f.read(min(65536 if rate is None else max(1, rate // 20), length - sent))
                if limit is not None and sent + len(chunk) > limit:
                    chunk = chunk[: max(0, limit - sent)]
                    self.wfile.write(chunk)
                    self.wfile.flush()
                    if stall:
                        while True:
                            time.sleep(3600)
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                self.wfile.write(chunk)
                sent += len(chunk)
                if rate is not None:
                    self.wfile.flush()
                    time.sleep(len(chunk) / rate)


def content_type(name):
    for ext, t in ((".mp4", "video/mp4"), (".webm", "video/webm"), (".m3u8", "application/vnd.apple.mpegurl"),
                   (".ts", "video/mp2t"), (".m4s", "video/iso.segment"), (".mkv", "video/x-matroska")):
        if name.endswith(ext):
            return t
    return "application/octet-stream"


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # whatever the parent ignored
    server = Server(("127.0.0.1", 0), Handler)
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()
