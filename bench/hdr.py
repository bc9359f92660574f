#!/usr/bin/env python3
"""HDR → SDR BGRA throughput: vidfx's tone map against ffmpeg's zscale + tonemap chain, same clips, same run.

    python3 bench/hdr.py [--runs 5] [--seconds 8]

Builds vidfx in release and makes 1080p30 10-bit HEVC clips under bench/out/ from the
street-crossing footage in testmedia (HLG, and PQ with MaxCLL 1000), placed as BT.2408
says (reference white 203 nits). Then alternates, per clip:

    vidfx dump CLIP --format bgra -o /dev/null -q                      (the table engine)
    vidfx dump CLIP --format bgra -o /dev/null -q --tonemap-engine libavfilter
    ffmpeg -i CLIP -vf fps=30:round=up,zscale=t=linear:npl=203,format=gbrpf32le,zscale=p=bt709,
           tonemap=tonemap=mobius:desat=0:peak=4.93,zscale=t=bt709:m=bt709:r=pc,format=bgra -f null -

and prints the median wall time, its range, and the speed-up over ffmpeg (ffmpeg's
time / vidfx's). The issue's floor for the shipped engine is 3x.
"""
import argparse, os, statistics, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import OUT, ROOT, release_vidfx, wall  # noqa: E402
CHAIN = ("zscale=t=linear:npl=203,format=gbrpf32le,zscale=p=bt709,"
         "tonemap=tonemap=mobius:desat=0:peak={peak},zscale=t=bt709:m=bt709:r=pc,format=bgra")


def clip(transfer, seconds):
    name = {"arib-std-b67": "hlg", "smpte2084": "pq"}[transfer]
    path = os.path.join(OUT, f"crowd-{name}-1080p30-{seconds}s.mkv")
    if not os.path.exists(path):
        os.makedirs(OUT, exist_ok=True)
        extra = ":max-cll=1000,400" if name == "pq" else ""
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-stream_loop", "-1", "-i", os.path.join(ROOT, "testmedia", "crowd.mp4"),
                        "-t", str(seconds), "-vf",
                        "scale=1920:1080,setsar=1,format=yuv444p16le,"
                        f"zscale=tin=bt709:min=bt709:pin=bt709:rin=tv:t={transfer}:m=bt2020nc:p=bt2020:r=tv:npl=203,format=yuv420p10le",
                        "-c:v", "libx265", "-preset", "fast", "-crf", "20",
                        "-x265-params", f"log-level=error:colorprim=bt2020:transfer={transfer}:colormatrix=bt2020nc{extra}",
                        "-color_primaries", "bt2020", "-color_trc", transfer, "-colorspace", "bt2020nc", path], check=True)
    return path




def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=8)
    args = ap.parse_args()
    vidfx = release_vidfx()
    print(f"{args.seconds} s of 1080p30 per clip, {args.runs} runs each, interleaved; median (range) wall seconds")
    print(f"{'clip':5s} {'command':38s} {'wall s':>22s} {'vs ffmpeg':>10s}")
    for transfer in ["arib-std-b67", "smpte2084"]:
        src = clip(transfer, args.seconds)
        jobs = {
            "vidfx (table engine)": [vidfx, "dump", src, "--format", "bgra", "-o", "/dev/null", "-q"],
            "vidfx --tonemap-engine libavfilter": [vidfx, "dump", src, "--format", "bgra", "-o", "/dev/null", "-q",
                                                   "--tonemap-engine", "libavfilter"],
            "ffmpeg zscale,tonemap": ["ffmpeg", "-nostdin", "-v", "error", "-i", src, "-vf",
                                      "fps=30:round=up," + CHAIN.format(peak=1000 / 203), "-f", "null", "-"],
        }
        runs = {name: [] for name in jobs}
        for _ in range(args.runs):
            for name, cmd in jobs.items():
                runs[name].append(wall(cmd))
        base = statistics.median(runs["ffmpeg zscale,tonemap"])
        for name, walls in runs.items():
            m = statistics.median(walls)
            label = "HLG" if transfer == "arib-std-b67" else "PQ"
            print(f"{label:5s} {name:38s} {m:8.3f} ({min(walls):.3f}–{max(walls):.3f}) {base / m:9.2f}x")


if __name__ == "__main__":
    main()
