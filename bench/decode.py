#!/usr/bin/env python3
"""Decode-to-BGRA cadence throughput: vidfx against ffmpeg on the same 1080p clip, same run.

    python3 bench/decode.py [--runs 7] [--seconds 10]

Builds vidfx in release, makes a 1080p30 H.264 + AAC clip (testsrc2, 10 s) under bench/out/,
then alternates the two commands and prints medians of wall time and peak memory:

    vidfx dump CLIP --format bgra -o /dev/null -q
    ffmpeg -i CLIP -vf fps=30:round=up,format=bgra -f null -
"""
import argparse, os, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out")


def clip(seconds, rate=30):
    path = os.path.join(OUT, f"testsrc2-1080p{rate}-{seconds}s.mp4")
    if not os.path.exists(path):
        os.makedirs(OUT, exist_ok=True)
        subprocess.run(["ffmpeg", "-v", "error", "-y",
                        "-f", "lavfi", "-i", f"testsrc2=size=1920x1080:rate={rate}:duration={seconds}",
                        "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:duration={seconds}",
                        "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p",
                        "-c:a", "aac", "-shortest", path], check=True)
    return path


def measure(cmd):
    """Wall seconds and peak RSS (MiB) of one run."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if status != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{err}")
    return wall, usage.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--seconds", type=int, default=10)
    args = ap.parse_args()

    subprocess.run(["swift", "build", "-c", "release", "--product", "vidfx"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    vidfx = os.path.join(ROOT, ".build", "release", "vidfx")
    src = clip(args.seconds)
    frames = args.seconds * 30
    jobs = {
        "vidfx dump --format bgra": [vidfx, "dump", src, "--format", "bgra", "-o", "/dev/null", "-q"],
        "ffmpeg fps=30:round=up,format=bgra -f null": ["ffmpeg", "-nostdin", "-v", "error", "-i", src,
                                                       "-vf", "fps=30:round=up,format=bgra", "-f", "null", "-"],
        "ffmpeg (same, -an)": ["ffmpeg", "-nostdin", "-v", "error", "-i", src, "-an",
                               "-vf", "fps=30:round=up,format=bgra", "-f", "null", "-"],
    }
    results = {name: [] for name in jobs}
    for _ in range(args.runs):           # interleaved, so machine noise hits all alike
        for name, cmd in jobs.items():
            results[name].append(measure(cmd))

    print(f"clip: {os.path.relpath(src, ROOT)} (1920x1080, {args.seconds} s, {frames} output frames), "
          f"{args.runs} runs each, medians")
    base = statistics.median(w for w, _ in results["ffmpeg fps=30:round=up,format=bgra -f null"])
    print(f"{'command':45s} {'wall s':>8s} {'fps':>7s} {'peak MiB':>9s} {'vs ffmpeg':>10s}")
    for name, runs in results.items():
        wall = statistics.median(w for w, _ in runs)
        rss = statistics.median(m for _, m in runs)
        print(f"{name:45s} {wall:8.3f} {frames / wall:7.1f} {rss:9.1f} {wall / base:9.2f}x")


if __name__ == "__main__":
    main()
