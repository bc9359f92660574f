#!/usr/bin/env python3
"""Drives a page in headless Chromium through the DevTools protocol, step by step.

    python3 cdp.py URL STEPS.json [SCREENSHOT.png]   prints a JSON array on stdout

STEPS.json is a list of JavaScript expressions. Once the page has loaded, each is
evaluated in it in turn (a promise is awaited) and its value, made JSON, is one element
of the output; a step that throws gives {"exception": "…"}. The steps start once the
page's `window.studio.ready` promise has settled. With SCREENSHOT.png, the
page is captured after the last step. Exits non-zero with a message when Chromium does
not start or a step takes more than 120 s. Only the standard library: the WebSocket
client is the few lines the protocol needs.
"""
import base64, json, os, shutil, socket, struct, subprocess, sys, tempfile, time, urllib.request


class DevTools:
    def __init__(self, ws_url):
        rest = ws_url.split("://", 1)[1]
        hostport, path = rest.split("/", 1)
        host, port = hostport.split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=120)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise RuntimeError("DevTools closed the connection during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError("DevTools refused the WebSocket: " + head.decode(errors="replace"))
        self.next_id = 0

    def _recv_exact(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise RuntimeError("DevTools closed the connection")
            data += chunk
        return data

    def _send(self, text):
        payload = text.encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def _recv_message(self):
        message = b""
        while True:
            b0, b1 = self._recv_exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._recv_exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._recv_exact(8))[0]
            payload = self._recv_exact(n)
            if b0 & 0x0F == 0x8:
                raise RuntimeError("DevTools closed the WebSocket")
            if b0 & 0x0F in (0x9, 0xA):
                continue
            message += payload
            if b0 & 0x80:
                return json.loads(message)

    def call(self, method, **params):
        self.next_id += 1
        self._send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            reply = self._recv_message()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            d = result["exceptionDetails"]
            return {"exception": (d.get("exception") or {}).get("description") or d.get("text")}
        return result["result"].get("value")


# How long Chromium may take to start, and the page to say it is ready, before it is a hang.
HANG_LIMIT = 180


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    url, steps = sys.argv[1], json.load(open(sys.argv[2]))
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or sys.exit("chromium is not installed")
    profile = tempfile.mkdtemp(prefix="vidfx-cdp-")
    chromium = subprocess.Popen([browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--mute-audio",
                                 "--remote-debugging-port=0", "--remote-allow-origins=*", f"--user-data-dir={profile}",
                                 "--window-size=1280,900", "about:blank"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = []
    try:
        # Hang limits, not speed limits: a cold Chromium beside a busy test run (an ASan
        # studio, encoders on every core) has been seen to need more than a minute.
        active = os.path.join(profile, "DevToolsActivePort")
        deadline = time.time() + HANG_LIMIT
        while not (os.path.exists(active) and open(active).read().count("\n") >= 1):
            if chromium.poll() is not None:
                sys.exit(f"chromium ended (status {chromium.returncode}) before opening its DevTools port")
            if time.time() > deadline:
                sys.exit(f"chromium did not open its DevTools port within {HANG_LIMIT} s")
            time.sleep(0.1)
        port = open(active).read().split("\n")[0].strip()
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30))
        page = next(t for t in targets if t.get("type") == "page")
        tools = DevTools(page["webSocketDebuggerUrl"])
        tools.call("Page.enable")
        tools.call("Page.navigate", url=url)
        # The page says it is ready: window.studio.ready, a promise, settles once its
        # effect table and info are loaded.
        deadline = time.time() + HANG_LIMIT
        while tools.evaluate("document.readyState === 'complete' && !!(window.studio && window.studio.ready)") is not True:
            if time.time() > deadline:
                seen = tools.evaluate("JSON.stringify({readyState: document.readyState, url: location.href, studio: !!window.studio, "
                                      "title: document.title, body: (document.body ? document.body.innerText : '').slice(0, 200)})")
                sys.exit(f"{url}: the page did not load within {HANG_LIMIT} s; it shows {seen}")
            time.sleep(0.1)
        ready = tools.evaluate("Promise.resolve(window.studio.ready).then(() => true)")
        if ready is not True:
            sys.exit(f"{url}: the page failed to start: {ready}")
        for step in steps:
            results.append(tools.evaluate(step))
        if len(sys.argv) == 4:
            shot = tools.call("Page.captureScreenshot", format="png")
            with open(sys.argv[3], "wb") as f:
                f.write(base64.b64decode(shot["data"]))
        print(json.dumps(results))
    except socket.timeout:
        sys.exit(f"step {len(results)} took more than 120 s: {steps[len(results)][:160]}")
    finally:
        chromium.kill()
        chromium.wait()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
