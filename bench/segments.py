#!/usr/bin/env python3
"""One 2-minute 1080p render as 1, 2 and 4 segments through GNU parallel, against a single render.

    python3 bench/segments.py [--runs 3] [--seconds 120] [--chain sepia]

The clip: testsrc2 1080p30 H.264 + a 440 Hz AAC tone (bench/decode.py's, made once). Each run,
interleaved:

    single   vidfx apply CLIP -e CHAIN -o single.mp4
    N = 1, 2, 4   VIDFX_SEGMENTS=N scripts/render-parallel.sh CLIP segN.mp4 -e CHAIN
                  (plan → N segments, 2 jobs at a time on this machine's 2 cores → concat)

and, once, the concat's own cost: `vidfx concat` of 4 segments rendered beforehand.
Prints median wall times with ranges and the ratio to the single render, then checks that
each segmented output has the single render's frame count, frame times and audio samples
(ffprobe and ffmpeg's md5 muxer): the pixels differ only by the encoder's choices per
segment; SegmentTests proves them identical with a lossless setting.
"""
import argparse, hashlib, os, shutil, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decode import clip  # noqa: E402
from timing import ROOT, release_vidfx, wall  # noqa: E402


def frame_times(path):
    """The video's frame count and an MD5 of its presentation times."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time",
                          "-of", "csv=p=0", path], check=True, capture_output=True, text=True).stdout.split()
    # A frame with side data (x264's SEI at each segment's start) gets an empty extra column.
    out = [line.split(",")[0] for line in out]
    return len(out), hashlib.md5(" ".join(out).encode()).hexdigest()[:12]


def audio_md5(path):
    out = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:a", "-f", "md5", "-"],
                         check=True, capture_output=True, text=True).stdout.strip()
    return out.split("=")[-1][:12]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=120)
    ap.add_argument("--chain", default="sepia")
    args = ap.parse_args()
    vidfx = release_vidfx()
    if not shutil.which("parallel"):
        sys.exit("GNU parallel is not installed (make setup installs it)")
    src = clip(args.seconds)
    work = tempfile.mkdtemp(prefix="vidfx-segments-bench-")
    env = dict(os.environ, VIDFX=vidfx)
    script = os.path.join(ROOT, "scripts", "render-parallel.sh")
    outputs = {"single": os.path.join(work, "single.mp4")}
    jobs = {"single": ([vidfx, "apply", src, "-e", args.chain, "-o", outputs["single"], "-q", "-y"], None)}
    for n in (1, 2, 4):
        outputs[f"{n} seg"] = os.path.join(work, f"seg{n}.mp4")
        jobs[f"{n} seg"] = ([script, src, outputs[f"{n} seg"], "-e", args.chain, "-y"], dict(env, VIDFX_SEGMENTS=str(n)))

    print(f"{args.seconds} s 1080p30 H.264 + AAC, -e {args.chain}, {os.cpu_count()} cores, {args.runs} runs each, "
          "interleaved; median (range)")
    runs = {k: [] for k in jobs}
    for _ in range(args.runs):
        for k, (cmd, e) in jobs.items():
            runs[k].append(wall_env(cmd, e))
    base = statistics.median(runs["single"])
    for k, r in runs.items():
        m = statistics.median(r)
        print(f"{k:8s} {m:7.2f} s ({min(r):.2f}–{max(r):.2f})  {m / base:.2f}× the single render")

    # The concat alone: 4 segments rendered beforehand, joined 3 times.
    segs = []
    for i in range(1, 5):
        segs.append(os.path.join(work, f"part{i}.mkv"))
        subprocess.run([vidfx, "apply", src, "-e", args.chain, "--segment", f"{i}/4", "-o", segs[-1], "-q", "-y"], check=True)
    joined = os.path.join(work, "joined.mp4")
    c = [wall([vidfx, "concat", *segs, "--audio-from", src, "-o", joined, "-y"]) for _ in range(3)]
    print(f"concat of 4 segments alone: {statistics.median(c):.2f} s ({min(c):.2f}–{max(c):.2f}), stream copy")

    want = (frame_times(outputs["single"]), audio_md5(outputs["single"]))
    print(f"single: {want[0][0]} frames, times {want[0][1]}, audio {want[1]}")
    bad = 0
    for k, path in outputs.items():
        if k == "single":
            continue
        got = (frame_times(path), audio_md5(path))
        same = got == want
        bad += not same
        print(f"{k:8s} {got[0][0]} frames, times {got[0][1]}, audio {got[1]}: {'same' if same else 'DIFFERENT'}")
    shutil.rmtree(work)
    sys.exit(1 if bad else 0)


def wall_env(cmd, env):
    """Wall seconds of one run of `cmd` with `env` (None: this process's)."""
    if env is None:
        return wall(cmd)
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        return wall(cmd)
    finally:
        os.environ.clear()
        os.environ.update(saved)


if __name__ == "__main__":
    main()
