#!/usr/bin/env python3
"""Frames by content against their peers, same clip, same run, interleaved:

- scenes: `vidfx scenes CLIP --detector D --csv` (the content detector reads the clip in
  pieces, a decoder per core), the same with `--decoders 1` and with `--fast`, against the
  `scenedetect` CLI (PySceneDetect 0.7.2, OpenCV backend, from .oracle-venv: `-i CLIP
  detect-D list-scenes`); also how many cuts each found and whether they are the same;
- key frames: `vidfx dump CLIP --keyframes --format bgra -o /dev/null` against a full
  decode of the clip (`ffmpeg -i CLIP -f null -`, decoding only);
- storyboard: `vidfx storyboard CLIP --interval 10` (nearest key frames) against ffmpeg's
  `fps=1/10,scale=160:-2,tile=5x5` chain writing the same sprites, and `--exact` (the
  picture on screen at each time, as the fps filter picks it: one seek a tile) against the same;
- sheet: `vidfx sheet CLIP --grid 4x4 --width 1500` against vcsi (PyPI; its defaults are a
  4x4 grid 1500 px wide, each frame the best of several samples) and `vcsi --fast` (one
  seek per tile, no choosing). vcsi is not installed by `make setup`: give its executable
  with --vcsi, e.g. after `python3 -m venv /tmp/vcsi && /tmp/vcsi/bin/pip install vcsi`.

    python3 bench/content.py [--minutes 5] [--runs 3] [--detector content] [--vidfx PATH]
                             [--only scenes|keyframes|storyboard|sheet] [--vcsi PATH]

The clip is 1080p30 H.264 under bench/out/: testmedia/cuts.mp4 scaled to 1920x1080 and
looped to the length (hard cuts, a flash and a fade every 9.6 s; x264 puts a key frame at
most cuts, so a key frame every 1.3 s on average: a long film's GOPs are longer, and its
key-frame speed-up larger). Key frames are measured on that clip and on a second encode of
it with a key frame every 2 s exactly (`-sc_threshold 0`, as streaming ladders are cut). Prints median wall times with ranges and the ratio peer / vidfx (above 1: vidfx is
faster).
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


def streaming_clip(minutes):
    """The same pictures as a streaming ladder encodes them: a key frame every 2 s exactly
    (`-sc_threshold 0`: no extra key frames at cuts, as HLS and DASH segmenters want)."""
    path = os.path.join(OUT, f"scenes-1080p30-{minutes:g}min-gop2s.mp4")
    if not os.path.exists(path):
        os.makedirs(OUT, exist_ok=True)
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-stream_loop", "-1", "-i", os.path.join(ROOT, "testmedia", "cuts.mp4"),
                        "-t", str(minutes * 60), "-vf", "scale=1920:1080", "-c:v", "libx264", "-preset", "veryfast",
                        "-g", "60", "-sc_threshold", "0", "-pix_fmt", "yuv420p", path], check=True)
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
    ap.add_argument("--only", choices=["scenes", "keyframes", "storyboard", "sheet"])
    ap.add_argument("--vcsi", default="vcsi", help="the vcsi executable, for the sheet row")
    args = ap.parse_args()
    vidfx = args.vidfx or release_vidfx()
    scenedetect = os.path.join(ROOT, ".oracle-venv", "bin", "scenedetect")
    path = clip(args.minutes)
    def report(title, times, peer):
        print(title)
        for name, ts in times.items():
            print(f"  {name:12s} {statistics.median(ts):7.2f} s  ({min(ts):.2f}-{max(ts):.2f})")
        print(f"  {peer} / vidfx: {statistics.median(times[peer]) / statistics.median(times['vidfx']):.2f}x")

    print(f"{os.path.basename(path)}, {args.runs} runs each, alternating, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as scratch:
        if args.only in (None, "scenes"):
            times = {"vidfx": [], "one decoder": [], "--fast": [], "scenedetect": []}
            mine_out, one_out = os.path.join(scratch, "mine.csv"), os.path.join(scratch, "one.csv")
            fast_out = os.path.join(scratch, "fast.csv")
            for _ in range(args.runs):
                times["vidfx"].append(wall([vidfx, "scenes", path, "--detector", args.detector, "--csv", "-q", "-o", mine_out, "-y"]))
                times["one decoder"].append(wall([vidfx, "scenes", path, "--detector", args.detector, "--csv", "-q", "-o", one_out, "-y",
                                                  "--decoders", "1"]))
                times["--fast"].append(wall([vidfx, "scenes", path, "--detector", args.detector, "--csv", "-q", "-o", fast_out, "-y", "--fast"]))
                times["scenedetect"].append(wall([scenedetect, "-i", path, "-q", ORACLE[args.detector], "list-scenes", "-o", scratch]))
            if open(mine_out).read() != open(one_out).read():
                print("  the lists of the default scan and of one decoder differ")
            mine = starts(open(mine_out).read())
            theirs = starts(open(os.path.join(scratch, os.path.splitext(os.path.basename(path))[0] + "-Scenes.csv")).read())
            agree = sum(1 for c in mine if any(abs(c - t) <= 1 for t in theirs))
            fast = starts(open(fast_out).read())
            report(f"scenes, detector {args.detector}", times, "scenedetect")
            print(f"  scenedetect / vidfx --fast: {statistics.median(times['scenedetect']) / statistics.median(times['--fast']):.2f}x")
            print(f"  cuts: vidfx {len(mine)} ({'the same' if mine == theirs else 'not the same'} as scenedetect's), "
                  f"scenedetect {len(theirs)}, vidfx --fast {len(fast)} ({sum(1 for c in fast if any(abs(c - t) <= 1 for t in theirs))} within one frame)")
        if args.only in (None, "keyframes"):
            for name, keyed in [("x264's own key frames: every 2 s and at cuts", path),
                                ("a key frame every 2 s exactly, as streaming encodes", streaming_clip(args.minutes))]:
                times = {"vidfx": [], "full decode": []}
                for _ in range(args.runs):
                    times["vidfx"].append(wall([vidfx, "dump", keyed, "--keyframes", "--format", "bgra", "-o", "/dev/null", "-q"]))
                    times["full decode"].append(wall(["ffmpeg", "-v", "error", "-i", keyed, "-f", "null", "-"]))
                report(f"dump --keyframes (decoded and converted to BGRA, written to /dev/null) against decoding every picture; "
                       f"{name}", times, "full decode")
        if args.only in (None, "storyboard"):
            times = {"vidfx": [], "ffmpeg": []}
            for _ in range(args.runs):
                out = os.path.join(scratch, "board")
                times["vidfx"].append(wall([vidfx, "storyboard", path, "-o", out, "--interval", "10", "--fast", "-y", "-q"]))
                times["ffmpeg"].append(wall(["ffmpeg", "-v", "error", "-y", "-i", path, "-vf", "fps=1/10,scale=160:-2,tile=5x5",
                                             os.path.join(scratch, "ff_%03d.jpg")]))
            report("storyboard --fast (nearest key frames) every 10 s, 160 px, 5x5 sprites", times, "ffmpeg")
            # The default: the picture on screen at each time, as ffmpeg's fps filter picks it.
            times = {"vidfx": [], "ffmpeg": []}
            for _ in range(args.runs):
                out = os.path.join(scratch, "board-exact")
                times["vidfx"].append(wall([vidfx, "storyboard", path, "-o", out, "--interval", "10", "-y", "-q"]))
                times["ffmpeg"].append(wall(["ffmpeg", "-v", "error", "-y", "-i", path, "-vf", "fps=1/10,scale=160:-2,tile=5x5",
                                             os.path.join(scratch, "ff_%03d.jpg")]))
            report("storyboard (exact, the default) every 10 s, 160 px, 5x5 sprites", times, "ffmpeg")
        if args.only in (None, "sheet"):
            if subprocess.run(["sh", "-c", f"command -v {args.vcsi}"], capture_output=True).returncode != 0:
                print(f"sheet: skipped, no vcsi at {args.vcsi} (--vcsi PATH)")
            else:
                times = {"vidfx": [], "vcsi": [], "vcsi --fast": []}
                sheet = os.path.join(scratch, "sheet")
                for _ in range(args.runs):
                    times["vidfx"].append(wall([vidfx, "sheet", path, "-o", sheet + "-vidfx.png", "--grid", "4x4", "--width", "1500",
                                                "-y", "-q"]))
                    times["vcsi"].append(wall([args.vcsi, path, "-g", "4x4", "-w", "1500", "-o", sheet + "-vcsi.png"]))
                    times["vcsi --fast"].append(wall([args.vcsi, path, "-g", "4x4", "-w", "1500", "--fast",
                                                      "-o", sheet + "-vcsi-fast.png"]))
                report("contact sheet, 4x4 tiles, 1500 px wide", times, "vcsi")
                print(f"  vcsi --fast / vidfx: {statistics.median(times['vcsi --fast']) / statistics.median(times['vidfx']):.2f}x")

if __name__ == "__main__":
    main()
