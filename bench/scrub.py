#!/usr/bin/env python3
"""Scrubbing in the studio: how long an exact still takes, against the peers.

    python3 bench/scrub.py [--binary PATH] [--stills 10] [--chain CHAIN]

Makes two 1080p30 H.264 clips in bench/out (testsrc2 with noise: 3 s, and 60 s with
x264's default key frame interval, so a seek decodes up to a GOP) and a phone's HDR clip
(the street crossing as 10-bit HLG HEVC, 1920x1080 stored with a 90° rotation, shown
1080x1920, a key frame a second as phones write them), starts `vidfx studio`
on each and asks `GET /api/frame?t=…&chain=…&format=bmp` (as the page does) for --stills
scattered times, one at a time (a hand scrubbing), timing each answer. For the same times, in the same run:
  dump     `vidfx dump IN --at T -e CHAIN` as a process (what the studio ran per still
           before its stills were rendered in-process);
  ffmpeg   `ffmpeg -ss T -i IN -frames:v 1 -f null -` (its exact seek and decode; no
           effects, no encoding); on the HDR clip through its tone-map chain to BGRA
           (zscale + tonemap, as bench/hdr.py), since vidfx's still is tone-mapped too.
and 12 neighbouring ticks after one still (a hand stepping through frames), both right after
the studio starts, while it makes its timeline in the background, and once it is made.
Prints the median and range of each and the ratios of the medians; writes
bench/out/scrub.json. Also reads the studio's CPU while no page is open (10 s idle), once
the timeline it makes in the background at start is ready.
"""
import argparse, json, os, random, statistics, subprocess, tempfile, time, urllib.parse, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench/out")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# ffmpeg's HDR → SDR chain (bench/hdr.py's), for the HDR clip's peer.
TONEMAP = ("zscale=t=linear:npl=203,format=gbrpf32le,zscale=p=bt709,"
           "tonemap=tonemap=mobius:desat=0:peak=4.93,zscale=t=bt709:m=bt709:r=pc,format=bgra")


def phone_clip(seconds):
    """The street crossing as a phone writes HDR: HLG 10-bit HEVC, rotated, 1 s GOPs."""
    path = os.path.join(OUT, f"scrub-hlg-phone-{seconds}s.mov")
    if not os.path.exists(path):
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-stream_loop", "-1", "-i", os.path.join(ROOT, "testmedia", "crowd.mp4"),
                        "-t", str(seconds), "-vf",
                        "scale=1920:1080,setsar=1,fps=30,format=yuv444p16le,"
                        "zscale=tin=bt709:min=bt709:pin=bt709:rin=tv:t=arib-std-b67:m=bt2020nc:p=bt2020:r=tv:npl=203,format=yuv420p10le",
                        "-c:v", "libx265", "-preset", "fast", "-crf", "22", "-tag:v", "hvc1",
                        "-x265-params", "log-level=error:keyint=30:min-keyint=30:colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc",
                        "-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc",
                        "-metadata:s:v", "rotate=90", path], check=True)
    return path


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


def measure(binary, path, seconds, stills, chain, peer_filter=None):
    random.seed(7)
    times = [round(random.uniform(0, seconds - 0.1), 3) for _ in range(stills)]
    outputs = tempfile.mkdtemp(prefix="vidfx-scrub-")
    studio = subprocess.Popen([binary, "studio", path, "--outputs", outputs, "--no-browser"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = studio.stdout.readline().split(": ", 1)[1].strip()
        # The token is in the address's fragment (never sent to a server, nor logged).
        base, token = url.replace("/?token=", "/#token=").split("/#token=")
        quoted = urllib.parse.quote(chain, safe="")

        def still(t):
            # As the page asks: BMP, dump's pixels uncompressed.
            request = urllib.request.Request(f"{base}/api/frame?t={t}&chain={quoted}&format=bmp", headers={"Authorization": f"Bearer {token}"})
            with urllib.request.urlopen(request, timeout=120) as answer:
                body = answer.read()
                assert answer.status == 200 and body[:2] == b"BM"

        def timeline_state():
            request = urllib.request.Request(f"{base}/api/timeline", headers={"Authorization": f"Bearer {token}"})
            with urllib.request.urlopen(request, timeout=120) as answer:
                return json.loads(answer.read())["state"]

        # The first minutes (issue 67, 11): a hand stepping through ticks at once, while the
        # studio still makes its timeline in the background.
        made = time.perf_counter()
        still(2.0)
        early_state = timeline_state()
        early_times = [timed(lambda k=k: still(round(2.0 + k / 30, 6))) for k in range(1, 13)]
        still_working = timeline_state() == "working"
        # The studio makes its timeline (thumbnails and cuts) in the background once, when
        # it starts: wait for it, so that neither the idle figure nor the stills count it.
        while True:
            request = urllib.request.Request(f"{base}/api/timeline", headers={"Authorization": f"Bearer {token}"})
            with urllib.request.urlopen(request, timeout=120) as answer:
                state = json.loads(answer.read())["state"]
            if state != "working":
                break
            time.sleep(0.5)
        timeline_seconds = time.perf_counter() - made
        # Idle: no page open.
        time.sleep(1)
        before = cpu_seconds(studio.pid)
        time.sleep(10)
        idle = (cpu_seconds(studio.pid) - before) / 10
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
        peer = ["-vf", peer_filter] if peer_filter else []
        ffmpeg_times.append(timed(lambda: subprocess.run(["ffmpeg", "-v", "error", "-ss", str(t), "-i", path, "-frames:v", "1",
                                                          *peer, "-f", "null", "-"], check=True)))
    return {"clip": os.path.basename(path), "times": times, "idle_cpu_share": idle, "timeline_seconds": timeline_seconds,
            "studio": summary(studio_times), "neighbours": summary(neighbour_times),
            "neighbours_while_timeline": summary(early_times), "timeline_working_then": early_state == "working" and still_working,
            "dump": summary(dump_times), "ffmpeg": summary(ffmpeg_times)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build-release/release/vidfx"))
    ap.add_argument("--stills", type=int, default=10)
    ap.add_argument("--chain", default="sepia")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    results = []
    for path, seconds, peer in [(clip("scrub-1080p-3s.mp4", 3), 3, None), (clip("scrub-1080p-60s.mp4", 60), 60, None),
                                (phone_clip(20), 20, TONEMAP)]:
        r = measure(args.binary, path, seconds, args.stills, args.chain, peer)
        results.append(r)
        s, d, f, n = r["studio"], r["dump"], r["ffmpeg"], r["neighbours"]
        print(f"{r['clip']}: studio still {s['median']:.3f} s ({s['min']:.3f}–{s['max']:.3f}), "
              f"neighbouring tick {1000 * n['median']:.0f} ms ({1000 * n['min']:.0f}–{1000 * n['max']:.0f}), "
              f"dump process {d['median']:.3f} s ({d['min']:.3f}–{d['max']:.3f}), ffmpeg {f['median']:.3f} s ({f['min']:.3f}–{f['max']:.3f}); "
              f"studio/dump {s['median'] / d['median']:.2f}x, studio/ffmpeg {s['median'] / f['median']:.2f}x; "
              f"idle CPU {100 * r['idle_cpu_share']:.1f}% of a core (after the timeline, made in {r['timeline_seconds']:.1f} s)")
        e = r["neighbours_while_timeline"]
        print(f"  just opened, while the timeline is made{'' if r['timeline_working_then'] else ' (it was done before the last tick)'}: "
              f"neighbouring tick {1000 * e['median']:.0f} ms ({1000 * e['min']:.0f}–{1000 * e['max']:.0f})")
    with open(os.path.join(OUT, "scrub.json"), "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
