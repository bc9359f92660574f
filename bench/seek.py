#!/usr/bin/env python3
"""Cost of a seek: `vidfx dump --at T` against `ffmpeg -ss T -i CLIP -frames:v 1`, same clip, same run.

    python3 bench/seek.py [--runs 7] [--at 7.5]

Makes a 1080p30 H.264 clip (testsrc2, 10 s, a keyframe every 2 s) and a 1080p MPEG-TS
copy of it under bench/out/, then alternates, for each:

    vidfx dump CLIP --at T --format png -o DIR -q -y
    ffmpeg -ss T -i CLIP -frames:v 1 -y OUT.png

and prints median wall times with ranges and the ratio (vidfx / ffmpeg: below 1 is
faster), and whether each still is the picture on screen at T: its PSNR against that
picture decoded from the top (inf: the same picture; a wrong one scores ~13 dB here).
On the TS, ffmpeg -ss starts at the first key frame after where its search lands and
returns the picture at 8.0 s for 7.5 s, and none at all (exit 0) for 9.9 s; vidfx goes
back to the key frame before T.
"""
import argparse, os, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import OUT, ROOT, release_vidfx, wall  # noqa: E402


def clips():
    mp4 = os.path.join(OUT, "seek-1080p30-10s.mp4")
    ts = os.path.join(OUT, "seek-1080p30-10s.ts")
    os.makedirs(OUT, exist_ok=True)
    if not os.path.exists(mp4):
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=10",
                        "-c:v", "libx264", "-preset", "veryfast", "-g", "60", "-pix_fmt", "yuv420p", mp4], check=True)
    if not os.path.exists(ts):
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", mp4, "-c", "copy", "-f", "mpegts", ts], check=True)
    return {"mp4": mp4, "ts": ts}




def psnr(a, b):
    """PSNR of picture a against b, as ffmpeg's psnr filter prints it; "no picture" when a is missing."""
    if not os.path.exists(a):
        return "no picture"
    p = subprocess.run(["ffmpeg", "-nostdin", "-i", a, "-i", b, "-lavfi", "psnr", "-f", "null", "-"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return p.stderr.rsplit("average:", 1)[1].split()[0] + " dB" if "average:" in p.stderr else "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--at", default="7.5")
    args = ap.parse_args()
    vidfx = release_vidfx()
    work = tempfile.mkdtemp()
    print(f"one still at {args.at} s from a 10 s 1080p30 clip, {args.runs} runs each, interleaved; median (range)")
    all_clips = clips()
    reference = os.path.join(work, "reference.png")
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", all_clips["mp4"], "-vf", f"select=gte(t\\,{args.at})",
                    "-frames:v", "1", "-y", reference], check=True)
    for kind, src in all_clips.items():
        # The same still at 0 s (no seek) too: the difference is what the seek costs, apart
        # from starting the process and writing the PNG.
        jobs = {}
        for at in (args.at, "0"):
            jobs[("vidfx", at)] = [vidfx, "dump", src, "--at", at, "--format", "png", "-o", os.path.join(work, "v"), "-q", "-y"]
            jobs[("ffmpeg", at)] = ["ffmpeg", "-nostdin", "-v", "error", "-ss", at, "-i", src, "-frames:v", "1", "-y", os.path.join(work, "f.png")]
        runs = {k: [] for k in jobs}
        for _ in range(args.runs):
            for k, cmd in jobs.items():
                # A stale still must not pass for this run's (ffmpeg exits 0 having written none).
                subprocess.run(["rm", "-rf", os.path.join(work, "v" if k[0] == "vidfx" else "f.png")], check=True)
                runs[k].append(wall(cmd))
                if k[1] == args.at:
                    check = psnr(os.path.join(work, "v", "frame_000000.png") if k[0] == "vidfx" else os.path.join(work, "f.png"), reference)
                    runs.setdefault((k[0], "psnr"), []).append(check)
        med = {k: statistics.median(r) for k, r in runs.items() if k[1] != "psnr"}
        v, f = med[("vidfx", args.at)], med[("ffmpeg", args.at)]
        r = lambda k: f"({min(runs[k]):.3f}–{max(runs[k]):.3f})"
        print(f"{kind:4s} vidfx {v:.3f} s {r(('vidfx', args.at))}  ffmpeg {f:.3f} s {r(('ffmpeg', args.at))}  vidfx/ffmpeg {v / f:.2f}  "
              f"PSNR vs the right picture: vidfx {runs[('vidfx', 'psnr')][-1]}, ffmpeg {runs[('ffmpeg', 'psnr')][-1]}")
        print(f"     at 0 s: vidfx {med[('vidfx', '0')]:.3f} s, ffmpeg {med[('ffmpeg', '0')]:.3f} s; the seek itself: "
              f"vidfx {v - med[('vidfx', '0')]:+.3f} s, ffmpeg {f - med[('ffmpeg', '0')]:+.3f} s")

if __name__ == "__main__":
    main()
