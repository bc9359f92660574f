#!/usr/bin/env python3
"""vidfx apply and dump against ffmpeg on a 1080p 10 s H.264 + AAC clip, same run.

    python3 bench/apply.py [--runs 5]

apply:  vidfx apply X -e sepia -o out.mp4 (x264 veryfast, crf 23, audio copied)
        ffmpeg -i X -vf fps=30:round=up,format=bgra,colorchannelmixer=<sepia>,format=yuv420p
               -c:v libx264 -preset veryfast -crf 23 -c:a copy out.mp4
dump:   vidfx dump X -o DIR (PNG)   vs   ffmpeg -i X -vf fps=30:round=up DIR/%06d.png
Medians of wall time and peak RSS, interleaved runs.

    python3 bench/apply.py --everyday   blur, sharpen and a timecode against gblur,
                                        unsharp and drawtext, the same way (issue 48)
"""
import argparse, os, shutil, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from decode import clip, measure  # noqa: E402

SEPIA = "colorchannelmixer=rr=.393:rg=.769:rb=.189:gr=.349:gg=.686:gb=.168:br=.272:bg=.534:bb=.131"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--everyday", action="store_true", help="blur, sharpen and text against ffmpeg's filters instead")
    args = ap.parse_args()
    cpu = "haswell" if " avx2" in open("/proc/cpuinfo").read() else ""
    subprocess.run(["make", "-s", "build", f"TARGET_CPU={cpu}"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    vidfx = os.path.join(ROOT, ".build-release", "release", "vidfx")
    src = clip(10)
    out = os.path.join(ROOT, "bench", "out")
    jobs = {
        "vidfx apply -e sepia": [vidfx, "apply", src, "-e", "sepia", "-o", f"{out}/v.mp4", "-y", "-q"],
        "ffmpeg sepia + x264": ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", src, "-vf",
                                f"fps=30:round=up,format=bgra,{SEPIA},format=yuv420p", "-c:v", "libx264",
                                "-preset", "veryfast", "-crf", "23", "-c:a", "copy", f"{out}/f.mp4"],
        "vidfx dump --format png": [vidfx, "dump", src, "-o", f"{out}/vpng", "-q"],
        "ffmpeg fps=30:round=up %06d.png": ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", src, "-vf", "fps=30:round=up",
                                            f"{out}/fpng/%06d.png"],
    }
    pairs = {"vidfx apply -e sepia": "ffmpeg sepia + x264", "vidfx dump --format png": "ffmpeg fps=30:round=up %06d.png"}
    if args.everyday:
        font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
        rows = [("blur:sigma=16", "gblur=sigma=16"),
                ("sharpen:amount=1:radius=2:channels=rgb", "unsharp=5:5:1:5:5:1"),
                ("text:text={timecode}:size=54", f"drawtext=fontfile={font}:timecode='00\\:00\\:00\\:00':rate=30:fontsize=54")]
        jobs, pairs = {}, {}
        for ours, theirs in rows:
            jobs[f"vidfx -e {ours}"] = [vidfx, "apply", src, "-e", ours, "-o", f"{out}/v.mp4", "-y", "-q"]
            jobs[f"ffmpeg {theirs.split('=')[0]}"] = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", src, "-vf",
                                                      f"fps=30:round=up,format=bgra,{theirs},format=yuv420p", "-c:v", "libx264",
                                                      "-preset", "veryfast", "-crf", "23", "-c:a", "copy", f"{out}/f.mp4"]
            pairs[f"vidfx -e {ours}"] = f"ffmpeg {theirs.split('=')[0]}"
    results = {k: [] for k in jobs}
    for _ in range(args.runs):
        for name, cmd in jobs.items():
            for d in ("vpng", "fpng"):
                shutil.rmtree(f"{out}/{d}", ignore_errors=True)
            os.makedirs(f"{out}/fpng", exist_ok=True)
            results[name].append(measure(cmd))
    print(f"clip: {os.path.relpath(src, ROOT)} (1920x1080 H.264 + AAC, 10 s, 300 output frames), {args.runs} runs, medians")
    print(f"{'command':44s} {'wall s':>8s} {'fps':>7s} {'peak MiB':>9s} {'wall vs ffmpeg':>15s} {'memory vs ffmpeg':>17s}")
    for name, runs in results.items():
        wall = statistics.median(w for w, _ in runs)
        rss = statistics.median(m for _, m in runs)
        line = f"{name:44s} {wall:8.2f} {300 / wall:7.1f} {rss:9.1f}"
        if name in pairs:
            other = results[pairs[name]]
            line += f" {wall / statistics.median(w for w, _ in other):14.2f}x {rss / statistics.median(m for _, m in other):16.2f}x"
        print(line)


if __name__ == "__main__":
    main()
