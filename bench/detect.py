#!/usr/bin/env python3
"""Face redaction and detection: vidfx against deface (PyPI), same clips, same run.

    python3 bench/detect.py [--runs 3] [--seconds 10] [--deface PATH-TO-deface] [--sizes 720p,1080p]
                            [--chain faceblur --chain faceblur:mode=blur ...]

deface is not installed by `make setup` (it pulls opencv-python); give its executable,
e.g. after `python3 -m venv /tmp/d && /tmp/d/bin/pip install deface==1.5.0`.

Clips: testmedia/crowd.jpg (20 faces checked by hand) panned at 720p and 1080p.
Redaction (wall time, medians of interleaved runs):
    vidfx apply CLIP -e CHAIN -o vN.mp4        (for each --chain, default `faceblur` (erase, no second
                                                 look) and `faceblur:mode=blur` (one second look);
                                                 --detect-every 4; extra options after the chain,
                                                 e.g. --chain "faceblur:mode=blur --face-recheck 0")
    deface CLIP -o d.mp4                       (its defaults: threshold 0.2, every frame)
Detection (one pass each): recall of the 20 hand-checked faces on every 10th tick,
faces per tick, and agreement of boxes (IoU >= 0.3) between vidfx detect --json (at the
score faceblur uses, 0.2, deface's too) and deface's CenterFace run on the same frames.
Faces left (issue 27): on every 10th frame of each tool's redacted output, the faces that
CenterFace at 0.5, OpenCV's Haar cascade and vidfx's detector (at 0.5, 0.3 and 0.2) still find
where the plain frame had one (Tests/Support/face_oracle.py, with .oracle-venv's python).
"""
import argparse, json, os, statistics, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from decode import measure  # noqa: E402

# The hand-checked faces of testmedia/crowd.jpg (800x564): x, y, width, height.
FACES = [(56.7, 130.2, 33, 42), (221.1, 107.6, 33.2, 39.8), (762.4, 114.2, 32.1, 42.3), (605.1, 157.3, 33.1, 41.4),
         (478.1, 159, 23.6, 31.2), (182.1, 115.6, 29.3, 38.1), (99.9, 132.5, 18.9, 27.8), (427.9, 140.5, 14.4, 19.2),
         (325.4, 129.4, 23.6, 33.2), (653.3, 135.2, 17.9, 21.8), (634.1, 158.9, 22.8, 31.1), (534, 133.1, 21.6, 27),
         (369, 134.3, 19.9, 23.9), (586.7, 110.3, 21, 25.1), (674.8, 146.6, 12.8, 16.8), (569.6, 171.6, 24, 29.2),
         (600.4, 131, 19.6, 24), (311, 142, 15, 21), (715, 140, 9.5, 12), (745.3, 144.4, 10.4, 12.3)]
SIZES = {"720p": (1280, 720), "1080p": (1920, 1080)}


def clip(name, seconds, out):
    """crowd.jpg scaled to the width, panned 10 px/s across a 16:9 window starting 8% down."""
    w, h = SIZES[name]
    path = os.path.join(out, f"crowd-{name}-{seconds}s.mp4")
    if not os.path.exists(path):
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-loop", "1", "-framerate", "30",
                        "-i", os.path.join(ROOT, "testmedia", "crowd.jpg"), "-f", "lavfi", "-i", f"sine=440:d={seconds}",
                        "-vf", f"scale={w + 40}:-2,crop={w}:{h}:x='4*t':y=ih*0.08,format=yuv420p", "-t", str(seconds),
                        "-c:v", "libx264", "-crf", "18", "-c:a", "aac", "-shortest", path], check=True)
    return path


def truth(name, t):
    """The hand-checked boxes in the clip's frame at time t."""
    w, _ = SIZES[name]
    s = (w + 40) / 800
    h = round(564 * s / 2) * 2
    return [(x * s - 4 * t, y * s - h * 0.08, bw * s, bh * s) for x, y, bw, bh in FACES]


def iou(a, b):
    ix = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    i = ix * iy
    u = a[2] * a[3] + b[2] * b[3] - i
    return i / u if u > 0 else 0


DEFACE_BOXES = r"""
import json, sys, imageio.v2 as imageio
from deface.centerface import CenterFace
net = CenterFace()
for k, frame in enumerate(imageio.get_reader(sys.argv[1])):
    if k % 10 == 0:
        dets, _ = net(frame, threshold=0.2)
        print(json.dumps([[float(d[0]), float(d[1]), float(d[2] - d[0]), float(d[3] - d[1])] for d in dets]))
    else:
        print("null")
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--deface", default="deface")
    ap.add_argument("--sizes", default=",".join(SIZES), help="comma-separated: 720p,1080p")
    ap.add_argument("--chain", action="append", help="a redacting chain (and options) to time and check for faces left; repeatable")
    args = ap.parse_args()
    cpu = "haswell" if " avx2" in open("/proc/cpuinfo").read() else ""
    subprocess.run(["make", "-s", "build", f"TARGET_CPU={cpu}"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    vidfx = os.path.join(ROOT, ".build-release", "release", "vidfx")
    deface_python = os.path.join(os.path.dirname(os.path.realpath(args.deface)), "python3")
    out = os.path.join(ROOT, "bench", "out")
    os.makedirs(out, exist_ok=True)

    for name in args.sizes.split(","):
        src = clip(name, args.seconds, out)
        ticks = args.seconds * 30
        chains = args.chain or ["faceblur", "faceblur:mode=blur"]
        jobs = {f"vidfx -e {c}": [vidfx, "apply", src, "-e", *c.split(), "-o", f"{out}/v{n}.mp4", "-y", "-q"]
                for n, c in enumerate(chains)}
        jobs["deface (defaults)"] = [args.deface, src, "-o", f"{out}/d.mp4"]
        times = {k: [] for k in jobs}
        for _ in range(args.runs):
            for k, cmd in jobs.items():
                times[k].append(measure(cmd)[0])
        print(f"\n{name}, {args.seconds} s ({ticks} ticks), {args.runs} runs interleaved")
        for k, v in times.items():
            print(f"  {k:40s} median {statistics.median(v):6.2f} s  range {min(v):.2f}–{max(v):.2f}  ({ticks / statistics.median(v):.1f} ticks/s)")
        for k in (k for k in jobs if k.startswith("vidfx")):
            ratio = statistics.median(times["deface (defaults)"]) / statistics.median(times[k])
            print(f"  {k}: {ratio:.2f}x deface's speed")

        ours = [json.loads(line)["detections"] for line in subprocess.run(
            [vidfx, "detect", src, "--what", "faces", "--face-threshold", "0.2", "--json", "-q"], capture_output=True, text=True, check=True).stdout.splitlines()]
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
            f.write(DEFACE_BOXES)
        theirs = [json.loads(line) for line in subprocess.run([deface_python, f.name, src], capture_output=True, text=True,
                                                               check=True).stdout.splitlines()]
        os.unlink(f.name)
        found = {"vidfx": [], "deface": []}
        agree, per_tick = [], {"vidfx": [], "deface": []}
        for k in range(0, min(len(ours), len(theirs)), 10):
            t = k / 30
            v = [(o["bounds"]["x"], o["bounds"]["y"], o["bounds"]["width"], o["bounds"]["height"]) for o in ours[k]]
            d = theirs[k] or []
            gt = truth(name, t)
            found["vidfx"].append(sum(any(iou(g, b) >= 0.3 for b in v) for g in gt))
            found["deface"].append(sum(any(iou(g, b) >= 0.3 for b in d) for g in gt))
            per_tick["vidfx"].append(len(v))
            per_tick["deface"].append(len(d))
            if d:
                agree.append(sum(any(iou(a, b) >= 0.3 for b in v) for a in d) / len(d))
        for who in ("vidfx", "deface"):
            print(f"  {who:7s} recall {statistics.mean(found[who]):.1f}/20 faces (min {min(found[who])}), "
                  f"{statistics.mean(per_tick[who]):.1f} faces per tick")
        print(f"  deface's boxes matched by vidfx's (IoU >= 0.3): {100 * statistics.mean(agree):.0f}%")
        faces_left(vidfx, src, {**{f"vidfx -e {c}": f"{out}/v{n}.mp4" for n, c in enumerate(chains)}, "deface": f"{out}/d.mp4"}, out)


def faces_left(vidfx, src, outputs, out):
    """What other detectors still find in each tool's redacted frames (every 10th)."""
    python = os.path.join(ROOT, ".oracle-venv", "bin", "python")
    oracle = os.path.join(ROOT, "Tests", "Support", "face_oracle.py")
    plain = os.path.join(out, "left-plain")
    subprocess.run([vidfx, "dump", src, "-o", plain, "-y", "-q"], check=True)
    for who, video in outputs.items():
        frames = os.path.join(out, f"left-{who}")
        subprocess.run([vidfx, "dump", video, "-o", frames, "-y", "-q"], check=True)
        # One look at vidfx's lowest redaction score; its higher scores are counted from it.
        r = json.loads(subprocess.run([python, oracle, plain, frames, "--every", "10", "--haar", "--vidfx", vidfx,
                                       "--vidfx-threshold", "0.2"], capture_output=True, text=True, check=True).stdout)
        vidfx_at = {t: sum(1 for f in r["found"] if f["detector"] == "vidfx" and f["box"][4] >= t) for t in (0.5, 0.3, 0.2)}
        print(f"  faces left by {who:32s}: CenterFace@0.5 {r['left']['centerface']} of {r['faces']}, Haar {r['left']['haar']}, "
              f"vidfx@0.5 {vidfx_at[0.5]}, vidfx@0.3 {vidfx_at[0.3]}, vidfx@0.2 {vidfx_at[0.2]}")

if __name__ == "__main__":
    main()
