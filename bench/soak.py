#!/usr/bin/env python3
"""Long runs: nothing may grow.

    python3 bench/soak.py [--minutes 30] [--render-seconds 3600] [--binary PATH]

Two runs side by side, each sampled every 10 s (resident memory, open descriptors,
threads, from /proc):
  preview  `preview --sink y4m --loop` of a 3 s clip through sepia and pixelate, played in
           real time for --minutes (30 by default), its y4m read and thrown away;
  render   `apply --loop` of a 10 s 640x360 clip with audio to an hour of video (sepia),
           as fast as it goes.
After the first minute (start-up: pools filling, the encoder's look-ahead) the rest
must be flat: the last fifth's median RSS within 4 MiB (or 3 %) of the second fifth's,
and no more descriptors or threads at the end than at one minute. Prints a table and
writes bench/out/soak.json; exits 1 when something grew.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench/out")


def sample(pid):
    """(rss MiB, descriptors, threads) of a live process, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            status = dict(line.split(":", 1) for line in f if ":" in line)
        rss = int(status["VmRSS"].split()[0]) / 1024
        threads = int(status["Threads"])
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        return rss, fds, threads
    except (FileNotFoundError, ProcessLookupError, KeyError):
        return None


def drain(stream):
    while stream.read(1 << 20):
        pass


def watch(name, command, interval, stdout=subprocess.DEVNULL):
    """Runs command, sampling it every `interval` s; returns its samples and exit status."""
    p = subprocess.Popen(command, stdout=subprocess.PIPE if stdout is None else stdout, stderr=subprocess.PIPE)
    if stdout is None:
        threading.Thread(target=drain, args=(p.stdout,), daemon=True).start()
    err = []
    threading.Thread(target=lambda: err.append(p.stderr.read()), daemon=True).start()
    samples, started = [], time.monotonic()
    while p.poll() is None:
        s = sample(p.pid)
        if s:
            samples.append((round(time.monotonic() - started, 1),) + s)
        time.sleep(interval)
    p.wait()
    time.sleep(0.2)
    return {"name": name, "command": command, "status": p.returncode, "samples": samples,
            "stderr": (err[0] if err else b"").decode(errors="replace")[-400:]}


def verdict(run, warmup):
    rest = [s for s in run["samples"] if s[0] >= warmup]
    if len(rest) < 10:
        return False, "too few samples after the warm-up"
    fifth = max(2, len(rest) // 5)
    early = statistics.median(s[1] for s in rest[fifth:2 * fifth])
    late = statistics.median(s[1] for s in rest[-fifth:])
    growth = late - early
    first, last = rest[0], rest[-1]
    run.update({"rss_early_mib": round(early, 1), "rss_late_mib": round(late, 1), "rss_peak_mib": round(max(s[1] for s in run["samples"]), 1),
                "fds_at_warmup": first[2], "fds_at_end": last[2], "threads_at_warmup": first[3], "threads_at_end": last[3]})
    ok = growth <= max(4.0, 0.03 * early) and last[2] <= first[2] and last[3] <= first[3] and run["status"] == 0
    return ok, f"RSS {early:.1f} -> {late:.1f} MiB ({growth:+.1f}), fds {first[2]} -> {last[2]}, threads {first[3]} -> {last[3]}, exit {run['status']}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--render-seconds", type=int, default=3600)
    ap.add_argument("--interval", type=float, default=10)
    release = os.path.join(ROOT, ".build-release/release/vidfx")
    ap.add_argument("--binary", default=release if os.path.exists(release) else os.path.join(ROOT, ".build/debug/vidfx"))
    a = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    warmup = 60
    with tempfile.TemporaryDirectory(prefix="vidfx-soak-") as work:
        clip = os.path.join(work, "clip.mp4")
        subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=30:d=10",
                        "-f", "lavfi", "-i", "sine=f=440:d=10", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", "-shortest", clip], check=True)
        loops = max(1, a.render_seconds // 10)
        preview = ["--loop", "--duration", str(int(a.minutes * 60))]
        runs = {}
        threads = [
            threading.Thread(target=lambda: runs.__setitem__("preview", watch(
                "preview", [a.binary, "preview", os.path.join(ROOT, "testmedia/h264-30fps.mp4"), "-e", "sepia,pixelate=6", "--sink", "y4m"] + preview,
                a.interval, stdout=None))),
            threading.Thread(target=lambda: runs.__setitem__("render", watch(
                "render", [a.binary, "apply", clip, "-e", "sepia", "--loop", str(loops), "-o", os.path.join(work, "hour.mp4"), "-q"],
                a.interval))),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    failed = False
    print(f"soak with {os.path.relpath(a.binary, ROOT)}: samples every {a.interval:g} s, warm-up {warmup} s")
    for name in ["preview", "render"]:
        run = runs[name]
        ok, text = verdict(run, warmup)
        failed |= not ok
        length = run["samples"][-1][0] if run["samples"] else 0
        print(f"  {name:8s} {length / 60:5.1f} min  {text}  {'flat' if ok else 'GREW'}")
        if run["status"] != 0:
            print(f"    stderr: {run['stderr']}")
    with open(os.path.join(OUT, "soak.json"), "w") as f:
        json.dump(runs, f, indent=1)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
