#!/usr/bin/env python3
"""Plays a video in headless Chromium, as a web page's <video> does, and reports what it saw.

    python3 browser_seams.py VIDEO T1,T2,…   prints one JSON object on stdout

The page plays VIDEO (muted) from start to end, then seeks to each time Ti and draws the
picture Chromium presents there into a canvas. The JSON says:
  ended, error                     whether playback reached the end, and any media error
  duration, currentTime            at the end
  totalFrames, droppedFrames       getVideoPlaybackQuality() at the end
  seeks: [{time, currentTime, hash, mean}]  per Ti, once seeked: where the element is, an
                                   FNV-1a hash of the picture's pixels (same picture → same
                                   hash) and their mean
Serves VIDEO's folder on 127.0.0.1 (a free port) with the page; the page posts the result
back. Exits non-zero with a message when Chromium gives no result within 120 s.
"""
import http.server, json, os, shutil, socketserver, subprocess, sys, tempfile, threading, time

PAGE = b"""<!doctype html><meta charset=utf-8>
<video id=v muted playsinline preload=auto></video><canvas id=c></canvas>
<script>
const v = document.getElementById('v'), c = document.getElementById('c');
const q = new URLSearchParams(location.search);
const times = (q.get('times') || '').split(',').filter(s => s).map(Number);
const result = {ended: false, error: null, seeks: []};
const send = () => fetch('/result', {method: 'POST', body: JSON.stringify(result)});
const seeked = () => new Promise(r => v.addEventListener('seeked', r, {once: true}));
function hash() {
  c.width = v.videoWidth; c.height = v.videoHeight;
  const g = c.getContext('2d', {willReadFrequently: true});
  g.drawImage(v, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  let h = 0x811c9dc5, sum = 0;
  for (let i = 0; i < d.length; i++) { h ^= d[i]; h = Math.imul(h, 0x01000193) >>> 0; sum += d[i]; }
  return {hash: h.toString(16), mean: sum / d.length};
}
v.onerror = () => { result.error = v.error ? v.error.code + ': ' + v.error.message : 'unknown'; send(); };
v.onended = async () => {
  const p = v.getVideoPlaybackQuality();
  Object.assign(result, {ended: true, duration: v.duration, currentTime: v.currentTime,
                         totalFrames: p.totalVideoFrames, droppedFrames: p.droppedVideoFrames});
  for (const t of times) {
    const done = seeked();
    v.currentTime = t;
    await done;
    result.seeks.push(Object.assign({time: t, currentTime: v.currentTime}, hash()));
  }
  send();
};
v.src = q.get('src');
v.play().catch(e => { result.error = 'play: ' + e; send(); });
</script>
"""


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    video = os.path.abspath(sys.argv[1])
    root = os.path.dirname(video)
    got = {}
    done = threading.Event()

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **k):
            super().__init__(*a, directory=root, **k)

        def log_message(self, *a):
            pass

        def do_GET(self):
            if self.path.startswith("/page.html"):
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(PAGE)))
                self.end_headers()
                self.wfile.write(PAGE)
                return
            # The video, with Range support: without it Chromium cannot seek (currentTime stays 0).
            path = os.path.join(root, os.path.basename(self.path.split("?")[0]))
            if not os.path.isfile(path):
                self.send_error(404)
                return
            size = os.path.getsize(path)
            first, last = 0, size - 1
            wanted = self.headers.get("Range", "")
            if wanted.startswith("bytes="):
                a, _, b = wanted[6:].split(",")[0].partition("-")
                first = int(a) if a else max(0, size - int(b))
                last = min(int(b), size - 1) if a and b else size - 1
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {first}-{last}/{size}")
            else:
                self.send_response(200)
            self.send_header("Content-Type", "video/mp4" if path.endswith(".mp4") else "application/octet-stream")
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("Content-Length", str(last - first + 1))
            self.end_headers()
            with open(path, "rb") as f:
                f.seek(first)
                self.wfile.write(f.read(last - first + 1))

        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            got["result"] = json.loads(body)
            self.send_response(204)
            self.end_headers()
            done.set()

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True

    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    profile = tempfile.mkdtemp(prefix="vidfx-chromium-")
    url = f"http://127.0.0.1:{port}/page.html?src={os.path.basename(video)}&times={sys.argv[2]}"
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or sys.exit("chromium is not installed")
    chromium = subprocess.Popen([browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--mute-audio",
                                 "--autoplay-policy=no-user-gesture-required", f"--user-data-dir={profile}", url],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # A hang limit: in the parallel phase a cold Chromium shares two cores with the run.
        if not done.wait(300):
            sys.exit(f"chromium gave no result for {video} in 300 s")
    finally:
        chromium.kill()
        chromium.wait()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
    print(json.dumps(got["result"]))


if __name__ == "__main__":
    main()
