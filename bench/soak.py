#!/usr/bin/env python3
"""Long runs: nothing may grow.

    python3 bench/soak.py [--minutes 30] [--render-seconds 3600] [--binary PATH]

Three runs side by side, each sampled every 10 s (resident memory, open descriptors,
threads, from /proc):
  preview  `preview --sink y4m --loop` of a 3 s clip through sepia and pixelate, played in
           real time for --minutes (30 by default), its y4m read and thrown away;
  render   `apply --loop` of a 10 s 640x360 clip with audio to an hour of MP4 (sepia), as
           fast as it goes;
  ffmpeg   the same render by ffmpeg (-stream_loop, colorchannelmixer, libx264, audio
           copied), for what the job itself must hold: an MP4's index (every sample's
           size, time and offset, written at the end) grows with the output in both.
After the first minute (start-up: pools filling, the encoder's look-ahead) the rest
must be flat: the last fifth's median RSS within 4 MiB (or 3 %) of the second fifth's
(for the render, beyond what ffmpeg's own grew), and no more descriptors or threads in
the last fifth than in the second. Prints a table and writes bench/out/soak.json; exits 1
when something grew.
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


def verdict(run, warmup, allowed=0.0):
    """Flat after the warm-up: RSS (beyond `allowed` MiB of growth the job itself needs),
    descriptors and threads, the second fifth of the samples against the last."""
    rest = [s for s in run["samples"] if s[0] >= warmup]
    if len(rest) < 10:
        return False, "too few samples after the warm-up"
    fifth = max(2, len(rest) // 5)
    early, late = rest[fifth:2 * fifth], rest[-fifth:]
    rss_early, rss_late = statistics.median(s[1] for s in early), statistics.median(s[1] for s in late)
    growth = rss_late - rss_early
    fds = (max(s[2] for s in early), max(s[2] for s in late))
    threads = (max(s[3] for s in early), max(s[3] for s in late))
    run.update({"rss_early_mib": round(rss_early, 1), "rss_late_mib": round(rss_late, 1), "rss_growth_mib": round(growth, 1),
                "rss_peak_mib": round(max(s[1] for s in run["samples"]), 1), "fds": fds, "threads": threads,
                "fds_at_end": rest[-1][2], "threads_at_end": rest[-1][3]})
    ok = (growth - allowed <= max(4.0, 0.03 * rss_early) and fds[1] <= fds[0] and threads[1] <= threads[0]
          and run["status"] == 0)
    return ok, (f"RSS {rss_early:.1f} -> {rss_late:.1f} MiB ({growth:+.1f}), fds {fds[0]} -> {fds[1]}, "
                f"threads {threads[0]} -> {threads[1]}, exit {run['status']}")


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
            threading.Thread(target=lambda: runs.__setitem__("ffmpeg", watch(
                "ffmpeg", ["ffmpeg", "-v", "error", "-nostdin", "-y", "-stream_loop", str(loops - 1), "-i", clip, "-vf",
                           "colorchannelmixer=.393:.769:.189:0:.349:.686:.168:0:.272:.534:.131", "-c:v", "libx264", "-c:a", "copy",
                           os.path.join(work, "hour-ffmpeg.mp4")],
                a.interval))),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    failed = False
    print(f"soak with {os.path.relpath(a.binary, ROOT)}: samples every {a.interval:g} s, warm-up {warmup} s")
    _, _ = verdict(runs["ffmpeg"], warmup)
    for name in ["preview", "render", "ffmpeg"]:
        run = runs[name]
        # The render may grow by what ffmpeg's same job grew (the MP4 index), no more.
        allowed = max(0.0, runs["ffmpeg"].get("rss_growth_mib", 0.0)) if name == "render" else 0.0
        ok, text = verdict(run, warmup, allowed)
        if name == "ffmpeg":
            ok = True  # the reference: reported, not judged
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
