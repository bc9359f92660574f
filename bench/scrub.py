#!/usr/bin/env python3
"""Scrubbing in the studio: how long an exact still takes, against the peers.

    python3 bench/scrub.py [--binary PATH] [--stills 10] [--chain CHAIN]

Makes two 1080p30 H.264 clips in bench/out (testsrc2 with noise: 3 s, and 60 s with
x264's default key frame interval, so a seek decodes up to a GOP), starts `vidfx studio`
on each and asks `GET /api/frame?t=…&chain=…&format=bmp` (as the page does) for --stills
scattered times, one at a time (a hand scrubbing), timing each answer. For the same times, in the same run:
  dump     `vidfx dump IN --at T -e CHAIN` as a process (what the studio ran per still
           before its stills were rendered in-process);
  ffmpeg   `ffmpeg -ss T -i IN -frames:v 1 -f null -` (its exact seek and decode; no
           effects, no encoding).
and 12 neighbouring ticks after one still (a hand stepping through frames).
Prints the median and range of each and the ratios of the medians; writes
bench/out/scrub.json. Also reads the studio's CPU while no page is open (10 s idle).
"""
import argparse, json, os, random, statistics, subprocess, tempfile, time, urllib.parse, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench/out")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def clip(name, seconds):
    path = os.path.join(OUT, name)
    if not os.path.exists(path):
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size=1920x1080:rate=30:duration={seconds}",
                        "-vf", "noise=alls=12:allf=t", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", path], check=True)
    return path


def timed(run):
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def measure(binary, path, seconds, stills, chain):
    random.seed(7)
    times = [round(random.uniform(0, seconds - 0.1), 3) for _ in range(stills)]
    outputs = tempfile.mkdtemp(prefix="vidfx-scrub-")
    studio = subprocess.Popen([binary, "studio", path, "--outputs", outputs, "--no-browser"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = studio.stdout.readline().split(": ", 1)[1].strip()
        base, token = url.split("/?token=")
        # Idle: no page open.
        time.sleep(1)
        before = cpu_seconds(studio.pid)
        time.sleep(10)
        idle = (cpu_seconds(studio.pid) - before) / 10
        quoted = urllib.parse.quote(chain, safe="")

        def still(t):
            # As the page asks: BMP, dump's pixels uncompressed.
            request = urllib.request.Request(f"{base}/api/frame?t={t}&chain={quoted}&format=bmp", headers={"Authorization": f"Bearer {token}"})
            with urllib.request.urlopen(request, timeout=120) as answer:
                body = answer.read()
                assert answer.status == 200 and body[:2] == b"BM"

        studio_times = [timed(lambda t=t: still(t)) for t in times]
        # A hand stepping tick by tick (→ held): 12 neighbouring ticks after one still.
        still(1.0)
        neighbour_times = [timed(lambda k=k: still(round(1.0 + k / 30, 6))) for k in range(1, 13)]
    finally:
        studio.terminate()
        studio.wait()
    dump_times, ffmpeg_times = [], []
    for t in times:
        folder = tempfile.mkdtemp(prefix="vidfx-scrub-dump-")
        dump_times.append(timed(lambda: subprocess.run([binary, "dump", path, "--at", str(t), "-e", chain, "-o", folder + "/f", "-q"], check=True)))
        # ffmpeg's own exact seek and decode, no encoding (the yardstick).
        ffmpeg_times.append(timed(lambda: subprocess.run(["ffmpeg", "-v", "error", "-ss", str(t), "-i", path, "-frames:v", "1",
                                                          "-f", "null", "-"], check=True)))
    return {"clip": os.path.basename(path), "times": times, "idle_cpu_share": idle,
            "studio": summary(studio_times), "neighbours": summary(neighbour_times),
            "dump": summary(dump_times), "ffmpeg": summary(ffmpeg_times)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build-release/release/vidfx"))
    ap.add_argument("--stills", type=int, default=10)
    ap.add_argument("--chain", default="sepia")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    results = []
    for name, seconds in [("scrub-1080p-3s.mp4", 3), ("scrub-1080p-60s.mp4", 60)]:
        r = measure(args.binary, clip(name, seconds), seconds, args.stills, args.chain)
        results.append(r)
        s, d, f, n = r["studio"], r["dump"], r["ffmpeg"], r["neighbours"]
        print(f"{r['clip']}: studio still {s['median']:.3f} s ({s['min']:.3f}–{s['max']:.3f}), "
              f"neighbouring tick {1000 * n['median']:.0f} ms ({1000 * n['min']:.0f}–{1000 * n['max']:.0f}), "
              f"dump process {d['median']:.3f} s ({d['min']:.3f}–{d['max']:.3f}), ffmpeg {f['median']:.3f} s ({f['min']:.3f}–{f['max']:.3f}); "
              f"studio/dump {s['median'] / d['median']:.2f}x, studio/ffmpeg {s['median'] / f['median']:.2f}x; "
              f"idle CPU {100 * r['idle_cpu_share']:.1f}% of a core")
    with open(os.path.join(OUT, "scrub.json"), "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
