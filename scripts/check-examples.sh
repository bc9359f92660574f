#!/usr/bin/env bash
# Runs Examples/Thumbnails (built by make test-examples) as a user would and checks what
# it wrote: one sepia PNG thumbnail per second of a 3 s clip, 160 px wide, a manifest,
# and one line and exit 1 for a file that is not a video.
set -euo pipefail
cd "$(dirname "$0")/.."
tool=${1:-.build-examples/debug/thumbnails}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tool" testmedia/h264-30fps.mp4 "$work/thumbs" 1 160
python3 - "$work/thumbs" <<'PY'
import json, os, struct, sys, zlib
folder = sys.argv[1]
names = sorted(n for n in os.listdir(folder) if n.endswith(".png"))
assert names == ["frame_000000.png", "frame_000001.png", "frame_000002.png"], names
for n in names:
    data = open(os.path.join(folder, n), "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", n
    w, h = struct.unpack(">II", data[16:24])
    assert (w, h) == (160, 120), (n, w, h)
manifest = json.load(open(os.path.join(folder, "manifest.json")))
print(f"check-examples: {len(names)} thumbnails, 160x120, manifest with {len(json.dumps(manifest))} bytes")
PY
if "$tool" testmedia/garbage.mp4 "$work/none" 2> "$work/err"; then
  echo "check-examples: a file that is not a video was accepted" >&2; exit 1
fi
[ "$(wc -l < "$work/err")" -eq 1 ] || { echo "check-examples: expected one line for a bad input, got:" >&2; cat "$work/err" >&2; exit 1; }
[ ! -e "$work/none" ] || { echo "check-examples: a failed run left its folder" >&2; exit 1; }
echo "check-examples: thumbnails builds against vidfx's libraries and runs" >&2
