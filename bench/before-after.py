#!/usr/bin/env python3
"""Two vidfx binaries on the same renders with audio, alternating, same run: time and peak memory.

    python3 bench/before-after.py --before OLD/vidfx --after NEW/vidfx [--runs 5]

For a change to how an input is read (one demuxer for video and audio, issue 45): the
rows are `apply` with its audio copied (the whole clip), transcoded (a trimmed clip, a
loop), and a segment of a render. Each row runs before, after, before, after…; medians
and ranges, and after / before. The clips are bench/out's 1080p testsrc2 with a 48 kHz AAC
sine (bench/performance.py makes the same).
"""
import argparse, os, statistics, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decode import measure  # noqa: E402  (wall seconds and peak RSS of one run)
from performance import testsrc  # noqa: E402


def rows(clip, out):
    yield "apply, audio copied", ["apply", clip, "-e", "sepia", "-o", out, "-y", "-q"]
    yield "apply --start 2 --duration 6", ["apply", clip, "-e", "sepia", "--start", "2", "--duration", "6", "-o", out, "-y", "-q"]
    yield "apply --loop 2", ["apply", clip, "-e", "sepia", "--loop", "2", "-o", out, "-y", "-q"]
    yield "apply --segment 2/3", ["apply", clip, "-e", "sepia", "--segment", "2/3", "-o", out.replace(".mp4", ".mkv"), "-y", "-q"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    clip = testsrc("testsrc2-1080p30-10s.mp4", "1920x1080", 10)
    out = os.path.join(tempfile.mkdtemp(prefix="vidfx-before-after-"), "out.mp4")
    print(f"{os.cpu_count()} cores, {args.runs} runs each (before and after alternating); medians (ranges)")
    print(f"{'row':30s} {'before s':>20s} {'after s':>20s} {'a/b':>6s} {'before MiB':>11s} {'after MiB':>10s} {'a/b':>6s}")
    for name, arguments in rows(clip, out):
        before, after = [], []
        for _ in range(args.runs):
            before.append(measure([args.before] + arguments))
            after.append(measure([args.after] + arguments))

        def cell(runs, i):
            xs = [r[i] for r in runs]
            return statistics.median(xs), f"{statistics.median(xs):.2f} ({min(xs):.2f}–{max(xs):.2f})"
        bt, bts = cell(before, 0)
        at, ats = cell(after, 0)
        bm, am = statistics.median(r[1] for r in before), statistics.median(r[1] for r in after)
        print(f"{name:30s} {bts:>20s} {ats:>20s} {at / bt:5.2f}× {bm:11.0f} {am:10.0f} {am / bm:5.2f}×", flush=True)


if __name__ == "__main__":
    main()
