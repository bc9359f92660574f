#!/usr/bin/env python3
"""Scene cuts: `vidfx scenes` against the `scenedetect` CLI (PySceneDetect 0.6.7, OpenCV
backend, from .oracle-venv), same clip, same run, interleaved.

    python3 bench/content.py [--minutes 5] [--runs 3] [--detector content] [--vidfx PATH]

Makes a 1080p30 H.264 clip under bench/out/ (testmedia/cuts.mp4 scaled to 1920x1080 and
looped to the length: hard cuts, a flash and a fade every 9.6 s), then alternates

    vidfx scenes CLIP --detector D --csv -q
    scenedetect -i CLIP -q detect-D list-scenes -n

and prints median wall times with ranges, the speed ratio (scenedetect / vidfx: above 1,
vidfx is faster), and how many cuts each found and how many agree within one frame.
"""
import argparse, csv, io, os, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import OUT, ROOT, release_vidfx, wall  # noqa: E402

ORACLE = {"content": "detect-content", "adaptive": "detect-adaptive", "threshold": "detect-threshold",
          "hash": "detect-hash", "histogram": "detect-hist"}


def clip(minutes):
    path = os.path.join(OUT, f"scenes-1080p30-{minutes:g}min.mp4")
    if not os.path.exists(path):
        os.makedirs(OUT, exist_ok=True)
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-stream_loop", "-1", "-i", os.path.join(ROOT, "testmedia", "cuts.mp4"),
                        "-t", str(minutes * 60), "-vf", "scale=1920:1080", "-c:v", "libx264", "-preset", "veryfast",
                        "-g", "60", "-pix_fmt", "yuv420p", path], check=True)
    return path


def starts(text):
    """Cut frames (from 0) out of a list-scenes CSV."""
    rows = list(csv.reader(io.StringIO(text)))[2:]
    return [int(r[1]) - 1 for r in rows[1:]]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=5)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--detector", default="content", choices=sorted(ORACLE))
    ap.add_argument("--vidfx", help="a vidfx binary (default: a release build of this tree)")
    args = ap.parse_args()
    vidfx = args.vidfx or release_vidfx()
    scenedetect = os.path.join(ROOT, ".oracle-venv", "bin", "scenedetect")
    path = clip(args.minutes)
    times = {"vidfx": [], "scenedetect": []}
    with tempfile.TemporaryDirectory() as scratch:
        mine_out = os.path.join(scratch, "mine.csv")
        for _ in range(args.runs):
            times["vidfx"].append(wall([vidfx, "scenes", path, "--detector", args.detector, "--csv", "-q", "-o", mine_out, "-y"]))
            times["scenedetect"].append(wall([scenedetect, "-i", path, "-q", ORACLE[args.detector], "list-scenes", "-o", scratch]))
        mine = starts(open(mine_out).read())
        theirs = starts(open(os.path.join(scratch, os.path.splitext(os.path.basename(path))[0] + "-Scenes.csv")).read())
    agree = sum(1 for c in mine if any(abs(c - t) <= 1 for t in theirs))
    print(f"{os.path.basename(path)}, detector {args.detector}, {args.runs} runs each, alternating, {os.cpu_count()} cores")
    for name, ts in times.items():
        print(f"  {name:12s} {statistics.median(ts):7.2f} s  ({min(ts):.2f}-{max(ts):.2f})")
    print(f"  scenedetect / vidfx: {statistics.median(times['scenedetect']) / statistics.median(times['vidfx']):.2f}x")
    print(f"  cuts: vidfx {len(mine)}, scenedetect {len(theirs)}, vidfx's within one frame of scenedetect's: {agree}")


if __name__ == "__main__":
    main()
