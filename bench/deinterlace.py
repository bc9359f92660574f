#!/usr/bin/env python3
"""Deinterlacing cost per 1080i picture: vidfx (bwdif through libavfilter) against ffmpeg's bwdif, same clip, same run.

    python3 bench/deinterlace.py [--runs 5] [--seconds 6]

Makes a 1080i29.97 MPEG-2 TS (top field first, pictures flagged interlaced) from a
moving 1080p59.94 test pattern under bench/out/, then alternates:

    vidfx dump CLIP --format bgra -o /dev/null -q                 (auto: deinterlaced)
    vidfx dump CLIP --format bgra -o /dev/null -q --deinterlace off
    ffmpeg -i CLIP -vf bwdif=mode=send_frame:deint=interlaced,format=bgra -f null -
    ffmpeg -i CLIP -vf format=bgra -f null -

and prints median wall times (with ranges) and each tool's cost of deinterlacing per
picture: (with - without) / pictures.
"""
import argparse, os, statistics, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import OUT, ROOT, release_vidfx, wall  # noqa: E402


def clip(seconds):
    path = os.path.join(OUT, f"testsrc2-1080i2997-{seconds}s.ts")
    if not os.path.exists(path):
        os.makedirs(OUT, exist_ok=True)
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=s=1920x1080:r=60000/1001:d={seconds}",
                        "-vf", "interlace=scan=tff:lowpass=0,setfield=tff", "-c:v", "mpeg2video", "-b:v", "20M",
                        "-flags", "+ilme+ildct", "-top", "1", path], check=True)
    return path




def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=6)
    args = ap.parse_args()
    vidfx = release_vidfx()
    src = clip(args.seconds)
    pictures = int(args.seconds * 30000 / 1001)
    ff = ["ffmpeg", "-nostdin", "-v", "error", "-i", src, "-vf"]
    jobs = {
        "vidfx (deinterlaced)": [vidfx, "dump", src, "--format", "bgra", "-o", "/dev/null", "-q", "--fps", "30000/1001"],
        "vidfx --deinterlace off": [vidfx, "dump", src, "--format", "bgra", "-o", "/dev/null", "-q", "--fps", "30000/1001", "--deinterlace", "off"],
        "ffmpeg bwdif": ff + ["bwdif=mode=send_frame:deint=interlaced,format=bgra", "-f", "null", "-"],
        "ffmpeg (no bwdif)": ff + ["format=bgra", "-f", "null", "-"],
    }
    runs = {name: [] for name in jobs}
    for _ in range(args.runs):
        for name, cmd in jobs.items():
            runs[name].append(wall(cmd))
    med = {name: statistics.median(w) for name, w in runs.items()}
    print(f"clip: {os.path.relpath(src, ROOT)} (1920x1080i, {pictures} pictures), {args.runs} runs each, interleaved")
    for name, walls in runs.items():
        print(f"{name:28s} {med[name]:7.3f} s ({min(walls):.3f}–{max(walls):.3f})")
    mine = (med["vidfx (deinterlaced)"] - med["vidfx --deinterlace off"]) / pictures * 1000
    theirs = (med["ffmpeg bwdif"] - med["ffmpeg (no bwdif)"]) / pictures * 1000
    print(f"cost per picture: vidfx {mine:.2f} ms, ffmpeg {theirs:.2f} ms")


if __name__ == "__main__":
    main()
