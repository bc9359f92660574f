#!/usr/bin/env python3
"""GIF size and quality: vidfx's `apply -o x.gif` against ffmpeg's two-pass palette GIF.

For each clip, both GIFs are made from the same cadence (and --size, fitted with Lanczos),
then decoded and compared with the frames each was made from: vidfx's own frames (`dump`,
HDR tone-mapped as vidfx shows it) and ffmpeg's (its decode), each scaled the same way. So
the PSNR measures what the palette and the dithering lost, and the bytes what they cost. Run from the repository's root after
`make build` (or give --vidfx).
"""
import argparse
import math
import os
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLIPS = [
    ("h264-30fps.mp4", None, 30),
    ("crowd.mp4", (480, 480), 15),
    ("pitch.mp4", (480, 480), 15),
    ("hlg-10bit.mkv", (360, 360), 15),
]


def rgb(path, vf=None):
    cmd = ["ffmpeg", "-nostdin", "-v", "error", "-i", path] + (["-vf", vf] if vf else []) + ["-pix_fmt", "rgb24", "-f", "rawvideo", "-"]
    return subprocess.run(cmd, check=True, capture_output=True).stdout


def psnr(a, b):
    n = min(len(a), len(b))
    if n == 0:
        return float("nan")
    total = 0
    step = 1 << 20
    for i in range(0, n, step):
        x = a[i:i + step]
        y = b[i:i + step]
        total += sum((p - q) * (p - q) for p, q in zip(x, y))
    mse = total / n
    return float("inf") if mse == 0 else 10 * math.log10(255 * 255 / mse)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vidfx", default=os.path.join(ROOT, ".build-release/release/vidfx"))
    args = ap.parse_args()
    print(f"{'clip':18s} {'size':>9s} {'fps':>4s} {'vidfx bytes':>12s} {'ffmpeg bytes':>13s} {'ratio':>6s} "
          f"{'vidfx dB':>9s} {'ffmpeg dB':>10s} {'vidfx s':>8s} {'ffmpeg s':>9s}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, size, fps in CLIPS:
            clip = os.path.join(ROOT, "testmedia", name)
            ours, theirs = os.path.join(tmp, "ours.gif"), os.path.join(tmp, "theirs.gif")
            scale = f",scale={size[0]}:{size[1]}:force_original_aspect_ratio=decrease:flags=lanczos" if size else ""
            start = time.monotonic()
            subprocess.run([args.vidfx, "apply", clip, "--fps", str(fps), "-o", ours, "-y", "-q"]
                           + (["--size", f"{size[0]}x{size[1]}"] if size else []), check=True)
            ours_s = time.monotonic() - start
            start = time.monotonic()
            subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", clip, "-vf",
                            f"fps={fps}:round=up{scale},split[a][b];[a]palettegen[p];[b][p]paletteuse", theirs], check=True)
            theirs_s = time.monotonic() - start
            reference = rgb(clip, f"fps={fps}:round=up{scale}")  # ffmpeg's own frames
            frames = os.path.join(tmp, "frames.bgra")
            done = subprocess.run([args.vidfx, "dump", clip, "--fps", str(fps), "--format", "bgra", "-o", frames, "-y"],
                                  check=True, capture_output=True, text=True)
            width, height = [int(v) for v in done.stderr.split("frames, ")[1].split(" ")[0].split("x")]
            own = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "rawvideo", "-pix_fmt", "bgra", "-s", f"{width}x{height}",
                                  "-i", frames] + (["-vf", scale.lstrip(",")] if scale else []) + ["-pix_fmt", "rgb24", "-f", "rawvideo", "-"],
                                 check=True, capture_output=True).stdout
            a, b = rgb(ours), rgb(theirs)
            sa, sb = os.path.getsize(ours), os.path.getsize(theirs)
            label = f"{size[0]}x{size[1]}" if size else "as is"
            print(f"{name:18s} {label:>9s} {fps:4d} {sa:12d} {sb:13d} {sa / sb:6.3f} {psnr(a, own):9.2f} "
                  f"{psnr(b, reference):10.2f} {ours_s:8.2f} {theirs_s:9.2f}")


if __name__ == "__main__":
    main()
