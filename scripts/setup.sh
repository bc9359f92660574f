#!/usr/bin/env bash
# Installs what vidfx needs on Debian/Ubuntu (FFmpeg's development files and CLI),
# only when something is missing. Quiet when there is nothing to do.
set -euo pipefail

# zlib: PNG frames; SDL2: the preview window; tmux: the terminal preview tests;
# python3: the loopback HTTP server of the remote-input tests.
# zbar: QR and barcode detection (libzbar-dev), and zbarimg, the tests' oracle (zbar-tools).
packages=(pkg-config libavformat-dev libavcodec-dev libswscale-dev libavutil-dev libswresample-dev ffmpeg zlib1g-dev libsdl2-dev tmux python3
          libzbar-dev zbar-tools)

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
