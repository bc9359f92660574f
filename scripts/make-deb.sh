#!/usr/bin/env bash
# Builds dist/vidfx_VERSION_amd64.deb: the portable release binary with the Swift
# runtime and Foundation linked in (--static-swift-stdlib), the face network library and
# model, the man page and completions. Depends: names the Debian packages of the shared
# libraries the binary and the face network link (found as dpkg-shlibdeps would) or load
# on demand, which are FFmpeg's, zbar's, SDL2's and OpenCV's runtime packages, never a
# -dev one.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=.build-deb
bin=$scratch/release
version=$(sed -n 's/^ *static let version = "\(.*\)"$/\1/p' Sources/vidfx/VidFX.swift)
[ -n "$version" ] || { echo "make-deb: no version in Sources/vidfx/VidFX.swift" >&2; exit 1; }

# Portable: no VIDFX_TARGET_CPU, so it runs on any x86-64.
swift build -c release --product vidfx --static-swift-stdlib --scratch-path "$scratch"
# The face network is C++ only, but a SwiftPM library product always links the shared
# Swift runtime: compiled here by g++ from the same source, it links OpenCV alone.
g++ -shared -fPIC -O2 -std=c++17 -I/usr/include/opencv4 -ISources/CFaceNet/include Sources/CFaceNet/facenet.cpp \
  -Wl,--as-needed -lopencv_dnn -lopencv_core -o "$bin/libVidfxFaceNet.so"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
make --no-print-directory install-files DESTDIR="$stage" PREFIX=/usr BIN_DIR="$bin" >/dev/null
strip --strip-unneeded "$stage/usr/bin/vidfx" "$stage/usr/lib/vidfx/libVidfxFaceNet.so"
mkdir -p "$stage/usr/share/man/man1" "$stage/usr/share/bash-completion/completions" \
         "$stage/usr/share/zsh/vendor-completions" "$stage/usr/share/fish/vendor_completions.d" "$stage/usr/share/doc/vidfx"
python3 scripts/man-page.py "$bin/vidfx" | gzip -9n > "$stage/usr/share/man/man1/vidfx.1.gz"
"$bin/vidfx" --generate-completion-script bash > "$stage/usr/share/bash-completion/completions/vidfx"
"$bin/vidfx" --generate-completion-script zsh > "$stage/usr/share/zsh/vendor-completions/_vidfx"
"$bin/vidfx" --generate-completion-script fish > "$stage/usr/share/fish/vendor_completions.d/vidfx.fish"
cp README.md "$stage/usr/share/doc/vidfx/README.md"

# The packages of the shared libraries linked directly (their NEEDED entries, as
# dpkg-shlibdeps reads them: what those need in turn, their packages depend on); the
# toolchain must not be among them.
# The libraries vidfx loads on demand (COnDemand: libavfilter, libavdevice, zimg, SDL2, zbar,
# the text stack: FreeType, HarfBuzz, fontconfig, FriBidi, and the Vulkan loader for users'
# shaders) are not NEEDED, so their names come
# from the binary itself, as dlopen is given them.
on_demand=$(strings -a "$bin/vidfx" | grep -E '^lib(avfilter|avdevice|zimg)\.so\.[0-9]+$|^libSDL2-2\.0\.so\.0$|^libzbar\.so\.0$|^lib(freetype\.so\.6|harfbuzz\.so\.0|fontconfig\.so\.1|fribidi\.so\.0)$|^libvulkan\.so\.1$' | sort -u)
[ "$(wc -l <<<"$on_demand")" -eq 10 ] || { echo "make-deb: expected 10 libraries loaded on demand, found: $on_demand" >&2; exit 1; }
libraries=$( (for f in "$bin/vidfx" "$bin/libVidfxFaceNet.so"; do
  resolved=$(ldd "$f")
  for soname in $(objdump -p "$f" | awk '$1 == "NEEDED" {print $2}'); do
    awk -v n="$soname" '$1 == n && $2 == "=>" {print $3}' <<<"$resolved"
  done
done
# awk reads ldconfig's whole list: leaving at the first match would end ldconfig with
# SIGPIPE now and then, which pipefail turns into a failed build (exit 141).
for soname in $on_demand; do
  ldconfig -p | awk -v n="$soname" '$1 == n && !found {print $NF; found = 1}'
done) | sort -u)
if grep -E "/opt/swift|libswift|libFoundation|libdispatch|libBlocksRuntime" <<<"$libraries"; then
  echo "make-deb: the binary still links the Swift toolchain's libraries (above)" >&2
  exit 1
fi
packages=()
for library in $libraries; do
  owner=""
  for path in "$library" "$(readlink -f "$library")" "/usr$library" "${library#/usr}"; do
    owner=$(dpkg -S "$path" 2>/dev/null | sed -n '1s/:.*//p') && [ -n "$owner" ] && break
  done
  [ -n "$owner" ] || { echo "make-deb: no Debian package owns $library" >&2; exit 1; }
  packages+=("$owner")
done
# The text effect's default font, which no library names; shaders' CPU device (lavapipe)
# and their compiler (glslangValidator), which are no libraries of the binary's.
packages+=(fonts-dejavu-core mesa-vulkan-drivers glslang-tools)
depends=$(printf '%s\n' "${packages[@]}" | sort -u | paste -sd, | sed 's/,/, /g')

mkdir -p "$stage/DEBIAN"
cat > "$stage/DEBIAN/control" <<CONTROL
Package: vidfx
Version: $version
Architecture: amd64
Maintainer: vidfx developers <vidfx@localhost>
Section: video
Priority: optional
Installed-Size: $(du -sk "$stage/usr" | cut -f1)
Depends: $depends
Description: frames out of video on a timed cadence, through effect shaders
 vidfx pulls frames out of video files, URLs, standard input and capture
 devices on a timed cadence, runs effect shaders over them in software, and
 re-encodes the result (audio kept), dumps the frames, plays them in real
 time, or serves a studio page to steer them in a browser. Faces and codes
 are detected for redaction and boxes.
CONTROL
mkdir -p dist
dpkg-deb --build --root-owner-group "$stage" "dist/vidfx_${version}_amd64.deb" >/dev/null
echo "wrote dist/vidfx_${version}_amd64.deb ($(du -h "dist/vidfx_${version}_amd64.deb" | cut -f1)); Depends: $depends"
