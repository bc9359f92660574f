#!/usr/bin/env python3
"""Which clips are interlaced: vidfx's field measure against libavfilter's idet, on clips whose answer is known, and what measuring costs.

    python3 bench/fields.py [--runs 7]

Makes 720x480 clips under bench/out/fields/, each 4 s of H.264 that says it is
progressive (so only the pictures can tell):
- interlaced: 59.94p footage woven into 29.97i fields (ffmpeg's `interlace`, top or
  bottom first) before encoding: a photograph panned at 1 and 3 px a picture, zoomed,
  tilted at 1.5 and 3 px a picture, under grain, after a vertical low-pass and at a low
  bit rate (crf 28), and ffmpeg's mandelbrot zoom and testsrc2;
- progressive: the same sources at 29.97p (every other picture), a slow pan under
  heavy grain, grain on a still photograph, and testmedia/h264-30fps.mp4.

For each it prints the truth, vidfx's verdict (`--deinterlace auto` says so on stderr
when it deinterlaces a stream flagged progressive, with the field order) and idet's
(its multi-frame counts over the first 8 pictures; interlaced when TFF + BFF are 2 or
more and outnumber progressive, the rule vidfx used before), and a score for each.

Then the cost: `vidfx dump CLIP --at 2 --format png` on a 1080p30 progressive clip,
with `--deinterlace auto` (measures up to 8 pictures, fewer when two pairs agree)
against `--deinterlace off` (measures nothing), alternated, medians and ranges.
"""
import argparse, os, re, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import OUT, ROOT, release_vidfx, wall  # noqa: E402

DIR = os.path.join(OUT, "fields")
PHOTO = os.path.join(ROOT, "testmedia", "crowd.jpg")
RATE = "60000/1001"

# name: (59.94p source filter chain after the photograph or lavfi source, or a lavfi source)
SOURCES = {
    "pan 3 px": ("photo", "scale=1280:902,format=rgb24,crop=720:480:x='3*n':y=200,noise=alls=6:allf=t"),
    "pan 1 px": ("photo", "scale=1280:902,format=rgb24,crop=720:480:x='n':y=200,noise=alls=6:allf=t"),
    "zoom": ("photo", f"scale=1600:1128,zoompan=z='1+0.004*on':x='iw/2-(iw/zoom/2)':y='ih/2-(ih/zoom/2)':d=1:s=720x480:fps={RATE}"),
    "tilt 1.5 px": ("photo", "scale=1280:902,format=rgb24,crop=720:480:x=200:y='n*1.5',noise=alls=4:allf=t"),
    "tilt 3 px": ("photo", "scale=1280:902,format=rgb24,crop=720:480:x=200:y='3*n',noise=alls=4:allf=t"),
    "mandelbrot": ("lavfi", f"mandelbrot=s=720x480:r={RATE}"),
    "testsrc2": ("lavfi", f"testsrc2=s=720x480:r={RATE}"),
}


def ff(args):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y"] + args, check=True)


def source(name):
    path = os.path.join(DIR, "src-" + re.sub(r"\W+", "-", name) + ".mp4")
    if not os.path.exists(path):
        kind, chain = SOURCES[name]
        inp = ["-loop", "1", "-framerate", RATE, "-i", PHOTO, "-vf", chain + ",format=yuv420p"] if kind == "photo" \
            else ["-f", "lavfi", "-i", chain, "-vf", "format=yuv420p"]
        ff(inp + ["-frames:v", "240", "-c:v", "libx264", "-crf", "10", "-preset", "veryfast", path])
    return path


def clips():
    """(label, path, truth) for every clip, made once."""
    os.makedirs(DIR, exist_ok=True)
    out = []

    def make(label, truth, args):
        path = os.path.join(DIR, re.sub(r"\W+", "-", label).strip("-") + ".mp4")
        if not os.path.exists(path):
            ff(args + ["-c:v", "libx264", "-crf", "16", "-preset", "veryfast", path])
        out.append((label, path, truth))

    for name in SOURCES:
        for order in ("tff", "bff"):
            if order == "bff" and name not in ("pan 3 px", "zoom"):
                continue
            make(f"{name}, woven {order}", order, ["-i", source(name), "-vf", f"interlace=scan={order}:lowpass=0"])
    make("pan 1 px, woven tff, low-passed, crf 28", "tff",
         ["-i", source("pan 1 px"), "-vf", "interlace=scan=tff:lowpass=complex", "-crf", "28"])
    make("pan 3 px, woven bff, heavy grain", "bff",
         ["-i", source("pan 3 px"), "-vf", "noise=alls=20:allf=t,interlace=scan=bff:lowpass=linear"])
    for name in SOURCES:
        make(f"{name}, progressive", "progressive", ["-i", source(name), "-vf", "fps=30000/1001"])
    make("slow pan, heavy grain, progressive", "progressive",
         ["-loop", "1", "-framerate", "30000/1001", "-i", PHOTO, "-vf",
          "scale=1280:902,format=rgb24,crop=720:480:x='n':y=200,noise=alls=20:allf=t,format=yuv420p", "-frames:v", "120"])
    make("still photograph, grain, progressive", "progressive",
         ["-loop", "1", "-framerate", "30000/1001", "-i", PHOTO, "-vf",
          "scale=1280:902,format=rgb24,crop=720:480:x=100:y=200,noise=alls=14:allf=t,format=yuv420p", "-frames:v", "120"])
    out.append(("testmedia/h264-30fps.mp4 (testsrc)", os.path.join(ROOT, "testmedia", "h264-30fps.mp4"), "progressive"))
    return out


def vidfx_verdict(vidfx, path, scratch):
    p = subprocess.run([vidfx, "dump", path, "--duration", "0.3", "--format", "bgra", "-o", os.path.join(scratch, "f.bgra"), "-y"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"vidfx failed on {path}: {p.stderr}")
    if "interlaced" not in p.stderr:
        return "progressive"
    return "tff" if "top field first" in p.stderr else "bff"


def idet_verdict(path):
    p = subprocess.run(["ffmpeg", "-nostdin", "-i", path, "-frames:v", "8", "-vf", "idet", "-f", "null", "-"],
                       capture_output=True, text=True)
    m = re.search(r"Multi frame detection: TFF:\s*(\d+) BFF:\s*(\d+) Progressive:\s*(\d+)", p.stderr)
    if not m:
        sys.exit(f"no idet counts for {path}")
    tff, bff, prog = map(int, m.groups())
    if tff + bff >= 2 and tff + bff > prog:
        return "tff" if tff >= bff else "bff"
    return "progressive"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    vidfx = release_vidfx()
    right = {"vidfx": 0, "idet": 0}
    damage = False
    rows = clips()
    with tempfile.TemporaryDirectory() as scratch:
        print(f"{'clip':44} {'truth':12} {'vidfx':12} {'idet':12}")
        for label, path, truth in rows:
            v, i = vidfx_verdict(vidfx, path, scratch), idet_verdict(path)
            right["vidfx"] += v == truth
            right["idet"] += i == truth
            damage |= truth == "progressive" and v != truth
            mark = lambda x: x + ("" if x == truth else " ✗")
            print(f"{label:44} {truth:12} {mark(v):12} {mark(i):12}")
        print(f"right: vidfx {right['vidfx']}/{len(rows)}, idet {right['idet']}/{len(rows)}")

        big = os.path.join(DIR, "testsrc2-1080p30-4s.mp4")
        if not os.path.exists(big):
            ff(["-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=30:d=4", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", big])
        times = {"auto": [], "off": []}
        for _ in range(args.runs):
            for mode in times:
                times[mode].append(wall([vidfx, "dump", big, "--at", "2", "--format", "png", "-o", os.path.join(scratch, mode),
                                         "-q", "-y", "--deinterlace", mode]))
        med = {k: statistics.median(v) for k, v in times.items()}
        for k, v in times.items():
            print(f"dump --at 2, 1080p, --deinterlace {k:4}: {med[k]:.3f} s ({min(v):.3f}-{max(v):.3f})")
        print(f"measuring costs {1000 * (med['auto'] - med['off']):+.0f} ms a command (auto/off {med['auto'] / med['off']:.2f})")
    # A progressive clip deinterlaced is damage (softened pictures); a miss leaves combing
    # that --deinterlace on removes.
    return 1 if damage else 0


if __name__ == "__main__":
    sys.exit(main())
