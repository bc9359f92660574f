#!/usr/bin/env python3
"""The studio's live preview, measured in the page.

    python3 bench/studio.py [--seconds 30] [--chain CHAIN] [--binary PATH]

Makes a 720p30 clip (bench/out/studio-720p.mp4: testsrc2 with noise, 20 s), starts
`vidfx studio` on it and opens the page in headless Chromium (Tests/Support/cdp.py's
client). While the page plays for --seconds through a typical chain
(sepia, colorcontrols, vignette-like oldtimes), it counts in the page:
  dropped   ticks that never reached the page (gaps in the frame numbers it received),
            as a share of the ticks that passed;
  latency   every 0.5 s the sepia slider moves; the time from that change to the first
            frame drawn that the change rendered (the page's own performance clock);
and from /proc, the studio process's CPU time per frame shown (decode, effects and the
JPEG path together). For scale, the same chain played by `vidfx preview --sink y4m`
into /dev/null for as long gives the CPU per frame without the JPEG and WebSocket.
Prints medians and ranges, writes bench/out/studio.json; exits 1 when more than 1 %
of ticks dropped or the median latency is over 100 ms.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench/out")
sys.path.insert(0, os.path.join(ROOT, "Tests/Support"))
import cdp  # noqa: E402

PAGE_PROBE = """
(() => {
  const s = window.studio.state;
  window.benchStats = {received: 0, dropped: 0, last: null, ticks: s.ticks};
  s.ws.addEventListener('message', (e) => {
    if (typeof e.data === 'string') return;
    const view = new DataView(e.data), n = view.getUint32(0);
    const h = JSON.parse(new TextDecoder().decode(new Uint8Array(e.data, 4, n)));
    const b = window.benchStats;
    if (b.last !== null) {
      const gap = h.tick > b.last ? h.tick - b.last - 1 : (b.ticks - 1 - b.last) + h.tick;
      b.dropped += gap;
    }
    b.last = h.tick; b.received += 1;
  });
  return true;
})()
"""


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--chain", default="sepia:amount=0.6,colorcontrols:saturation=1.2:contrast=1.1,oldtimes")
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build-release/release/vidfx"))
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    clip = os.path.join(OUT, "studio-720p.mp4")
    if not os.path.exists(clip):
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=20",
                        "-vf", "noise=alls=12:allf=t", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", clip], check=True)

    outputs = tempfile.mkdtemp(prefix="vidfx-bench-studio-")
    studio = subprocess.Popen([args.binary, "studio", clip, "--outputs", outputs, "--no-browser", "-e", args.chain],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = studio.stdout.readline().strip().removeprefix("vidfx studio: ")
    if not url.startswith("http://"):
        sys.exit(f"vidfx studio printed no address: {url!r}")
    profile = tempfile.mkdtemp(prefix="vidfx-bench-cdp-")
    browser = subprocess.Popen(["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
                                "--remote-allow-origins=*", f"--user-data-dir={profile}", "--window-size=1600,1000", "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        active = os.path.join(profile, "DevToolsActivePort")
        while not (os.path.exists(active) and "\n" in open(active).read()):
            time.sleep(0.1)
        port = open(active).read().split("\n")[0]
        import urllib.request
        page = next(t for t in json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list")) if t["type"] == "page")
        tools = cdp.DevTools(page["webSocketDebuggerUrl"])
        tools.call("Page.navigate", url=url)
        deadline = time.monotonic() + 60
        while tools.evaluate("!!(window.studio && window.studio.state.ws && window.studio.state.tick > 0)") is not True:
            if time.monotonic() > deadline:
                sys.exit("the page showed no live frame within 60 s")
            time.sleep(0.1)
        tools.evaluate(PAGE_PROBE)
        tools.evaluate("window.studio.state.latencies.length = 0")
        cpu0, t0 = cpu_seconds(studio.pid), time.monotonic()
        received0 = tools.evaluate("window.benchStats.received")
        amount = 0.3
        while time.monotonic() - t0 < args.seconds:
            amount = 0.9 if amount < 0.6 else 0.3
            tools.evaluate("(() => { const r = document.querySelector(\"input[type=range][data-effect='0'][data-param='amount']\"); "
                           f"r.value = {amount}; r.dispatchEvent(new Event('input')); return true; }})()")
            time.sleep(0.5)
        elapsed = time.monotonic() - t0
        cpu = cpu_seconds(studio.pid) - cpu0
        stats = tools.evaluate("window.benchStats")
        latencies = tools.evaluate("window.studio.state.latencies")
    finally:
        browser.kill()
        studio.terminate()
        studio.wait()
    frames = stats["received"] - received0
    passed = stats["received"] + stats["dropped"]
    dropped = 100 * stats["dropped"] / max(1, passed)

    # The same chain without the page: preview to a y4m pipe thrown away.
    preview = subprocess.Popen([args.binary, "preview", clip, "-e", args.chain, "--sink", "y4m", "--loop", "--duration", str(int(args.seconds)), "-q"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    p0 = time.monotonic()
    last = 0.0
    while preview.poll() is None:
        try:
            last = cpu_seconds(preview.pid)
        except FileNotFoundError:
            break
        time.sleep(0.2)
    preview_frames = (time.monotonic() - p0) * 30
    result = {
        "clip": "1280x720 30 fps", "chain": args.chain, "seconds": round(elapsed, 1),
        "framesShown": frames, "ticksDroppedPercent": round(dropped, 2),
        "latencyMs": {"median": round(statistics.median(latencies), 1), "min": round(min(latencies), 1),
                      "max": round(max(latencies), 1), "count": len(latencies)},
        "cpuMsPerFrame": round(1000 * cpu / max(1, frames), 2),
        "previewY4mCpuMsPerFrame": round(1000 * last / max(1, preview_frames), 2),
    }
    json.dump(result, open(os.path.join(OUT, "studio.json"), "w"), indent=2)
    print(f"studio, 720p30, {args.chain}, {elapsed:.0f} s:")
    print(f"  ticks dropped     {dropped:.2f} % ({stats['dropped']} of {passed})")
    print(f"  edit → frame      median {result['latencyMs']['median']} ms, range {result['latencyMs']['min']}–{result['latencyMs']['max']} ms "
          f"over {len(latencies)} slider moves")
    print(f"  CPU per frame     {result['cpuMsPerFrame']} ms (decode + effects + JPEG + WebSocket)")
    print(f"  preview --sink y4m, same chain: {result['previewY4mCpuMsPerFrame']} ms per frame")
    ok = dropped <= 1 and result["latencyMs"]["median"] <= 100
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
