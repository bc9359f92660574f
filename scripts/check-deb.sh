#!/usr/bin/env bash
# Checks dist/vidfx_*_amd64.deb as someone without Swift gets it: unpacked, with only
# /usr/bin:/bin on the PATH and no toolchain library linked (when root, with /opt/swift
# hidden too), the binary applies an effect, tone-maps HDR, reads barcodes and finds the
# faces in testmedia/crowd.jpg.
# Its version is the one --version prints. As root it is also installed with apt-get,
# run by name, and removed.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
deb=$(ls dist/vidfx_*_amd64.deb | head -1)
fail() { echo "check-deb: $*" >&2; exit 1; }

root=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$root" "$work"' EXIT
dpkg-deb -x "$deb" "$root"
bin=$root/usr/bin/vidfx
for f in "$bin" "$root/usr/lib/vidfx/libVidfxFaceNet.so"; do
  linked=$(ldd "$f")
  if grep -E "swift|libFoundation|libdispatch|not found" <<<"$linked"; then fail "$f links the above"; fi
done
grep -q "^Depends:.*libavcodec" <(dpkg-deb -f "$deb") || fail "Depends names no FFmpeg package"
depends=$(dpkg-deb -f "$deb" Depends)
if grep -q -- "-dev" <<<"$depends"; then fail "Depends names a -dev package"; fi
# The libraries loaded on demand are not NEEDED by the binary, but it needs their packages.
for package in libavfilter libavdevice libzimg libsdl2 libzbar; do
  grep -q "$package" <<<"$depends" || fail "Depends names no $package package (loaded on demand)"
done

version=$(dpkg-deb -f "$deb" Version)
# Runs a command as a user without the toolchain would: an empty environment, the system PATH,
# and (as root, where a mount namespace is allowed) /opt/swift hidden under an empty folder.
bare() {
  if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null && [ -d /opt/swift ]; then
    unshare -m bash -c 'mount -t tmpfs none /opt/swift && cd "$0" && exec env -i PATH=/usr/bin:/bin HOME="$0" "$@"' "$work" "$@"
  else
    (cd "$work" && env -i PATH=/usr/bin:/bin HOME="$work" "$@")
  fi
}
[ "$(bare "$bin" --version)" = "$version" ] || fail "--version is not the package's $version"
# Read whole first: under pipefail, grep -q leaving at the first line would fail zcat with SIGPIPE.
manual=$(zcat "$root/usr/share/man/man1/vidfx.1.gz")
grep -qF "vidfx $version" <<<"$manual" || fail "the man page does not carry $version"
bare "$bin" apply "$repo/testmedia/h264-30fps.mp4" -e sepia -o "$work/out.mp4" -q
frames=$(ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames -of csv=p=0 "$work/out.mp4")
[ "$frames" = 90 ] || fail "apply wrote $frames frames, not 90"
# HDR goes through libavfilter and codes through zbar, both loaded on demand.
bare "$bin" dump "$repo/testmedia/hlg-10bit.mkv" --format bgra -o /dev/null --frames 2 -q || fail "an HDR dump failed (zimg on demand)"
codes=$(bare "$bin" detect "$repo/testmedia/ean13-moving.mp4" --what codes --duration 0.5 --json 2>/dev/null | grep -c ean13 || true)
[ "$codes" -ge 10 ] || fail "detect read $codes barcodes in ean13-moving.mp4 (zbar on demand)"
faces=$(bare "$bin" detect "$repo/testmedia/crowd.jpg" --what faces --json 2>/dev/null | grep -o '"kind" *: *"face"' | wc -l)
[ "$faces" -ge 10 ] || fail "detect found $faces faces in crowd.jpg (expected at least 10)"
echo "check-deb: $deb unpacked: no toolchain linked; apply wrote 90 frames; HDR dumped; $codes barcodes and $faces faces found; version $version"

if [ "$(id -u)" -eq 0 ] && ! dpkg -s vidfx >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$repo/$deb" >/dev/null
  installed=$(cd "$work" && env -i PATH=/usr/bin:/bin vidfx --version)
  found=$(cd "$work" && env -i PATH=/usr/bin:/bin vidfx detect "$repo/testmedia/crowd.jpg" --what faces --json 2>/dev/null | grep -o '"kind" *: *"face"' | wc -l)
  DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq vidfx >/dev/null
  [ "$installed" = "$version" ] || fail "the installed vidfx says $installed"
  [ "$found" -ge 10 ] || fail "the installed vidfx found $found faces"
  ! command -v vidfx >/dev/null 2>&1 || [ "$(command -v vidfx)" != /usr/bin/vidfx ] || fail "apt-get remove left /usr/bin/vidfx"
  echo "check-deb: installed with apt-get, ran by name ($found faces), removed"
fi
