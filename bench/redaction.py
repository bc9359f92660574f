#!/usr/bin/env python3
"""How much of the picture a redaction changes, and what it leaves: vidfx against deface.

    .oracle-venv/bin/python bench/redaction.py [--vidfx .build-release/release/vidfx] [--chain faceblur ...]
                               [--inputs testmedia/crowd.jpg,testmedia/pitch.mp4]

For each input (photos and clips) and each redaction (every --chain, with apply's options
after it if any, by default vidfx's
`faceblur` and `faceblur:mode=erase`, and deface 1.5 with its defaults, from the oracle venv):
- changed: the share of pixels whose largest channel difference from the plain picture is
  above 24 levels (issue 50's measure), over every frame;
- left: faces CenterFace at 0.5, OpenCV's Haar cascade and vidfx's detector at 0.5 and at
  its redaction threshold, 0.2, still find where the plain picture had one (Tests/Support/face_oracle.py).
Videos are compared frame by frame as decoded by ffmpeg (both tools re-encode them).
Prints a Markdown table (docs/detection.md has it).
"""
import argparse, glob, json, os, subprocess, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = os.path.join(ROOT, ".oracle-venv", "bin", "python")
DEFACE = os.path.join(ROOT, ".oracle-venv", "bin", "deface")
PHOTO = (".jpg", ".jpeg", ".png", ".webp")


def frames(path, folder, size=None):
    """Every frame of `path` as PNGs frame_000000.png… in `folder`, scaled to `size` (w, h) if
    given (deface writes video at sizes rounded up to 16 pixels)."""
    os.makedirs(folder, exist_ok=True)
    scale = ["-vf", f"scale={size[0]}:{size[1]}:flags=area"] if size else []
    subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-start_number", "0", *scale, "-pix_fmt", "rgb24",
                    os.path.join(folder, "frame_%06d.png")], check=True)
    return sorted(glob.glob(os.path.join(folder, "*.png")))


def changed(plain, redacted):
    import cv2
    total = moved = 0
    for p, r in zip(plain, redacted):
        a, b = cv2.imread(p).astype(np.int16), cv2.imread(r).astype(np.int16)
        d = np.abs(a - b).max(axis=2)
        total += d.size
        moved += int((d > 24).sum())
    return moved / total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vidfx", default=os.path.join(ROOT, ".build", "debug", "vidfx"))
    ap.add_argument("--chain", action="append")
    ap.add_argument("--inputs", default="testmedia/crowd.jpg,testmedia/pitch.jpg,testmedia/crowd.mp4,testmedia/pitch.mp4")
    ap.add_argument("--deface", default=DEFACE, help="deface's executable (the oracle venv has only its detector: "
                    "python3 -m venv /tmp/d && /tmp/d/bin/pip install deface==1.5.0)")
    ap.add_argument("--no-deface", action="store_true")
    args = ap.parse_args()
    chains = args.chain or ["faceblur", "faceblur:mode=erase"]
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name in args.inputs.split(","):
            path = os.path.join(ROOT, name)
            # A folder per input by its whole name: crowd.jpg and crowd.mp4 are two inputs.
            stem, ext = os.path.basename(path), os.path.splitext(path)[1]
            photo = ext.lower() in PHOTO
            plain = frames(path, os.path.join(work, stem, "plain"))
            tools = [(c, None) for c in chains] + ([] if args.no_deface else [("deface", None)])
            for k, (tool, _) in enumerate(tools):
                out = os.path.join(work, stem, f"out{k}{'.png' if photo else '.mp4'}")
                if tool == "deface":
                    subprocess.run([args.deface, path, "-o", out], check=True, capture_output=True)
                else:
                    # Options after the chain: --chain "faceblur:padding=0.3 --face-recheck 1".
                    chain, *options = tool.split()
                    subprocess.run([args.vidfx, "apply", path, "-e", chain, *options, "-o", out, "-q", "-y"], check=True)
                import cv2
                h, w = cv2.imread(plain[0]).shape[:2]
                red = frames(out, os.path.join(work, stem, f"r{k}"), (w, h))
                share = changed(plain, red)
                left = json.loads(subprocess.run([PY, os.path.join(ROOT, "Tests/Support/face_oracle.py"), os.path.dirname(plain[0]),
                                                  os.path.dirname(red[0]), "--haar", "--vidfx", args.vidfx, "--vidfx-threshold", "0.2"],
                                                 check=True, capture_output=True, text=True).stdout)
                rows.append((name, tool, share, left["left"]["centerface"], left["left"]["haar"], left["left"]["vidfx_0.5"],
                             left["left"]["vidfx"], left["frames"]))
                print(f"{name} {tool}: {share:.1%} changed, left {left['left']}", file=sys.stderr, flush=True)
    print("| input | redaction | pixels changed | CenterFace 0.5 | Haar | vidfx 0.5 | vidfx 0.2 | frames |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| `{os.path.basename(r[0])}` | `{r[1]}` | {r[2]:.1%} | {r[3]} | {r[4]} | {r[5]} | {r[6]} | {r[7]} |")


if __name__ == "__main__":
    main()
