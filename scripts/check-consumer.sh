#!/usr/bin/env bash
# Builds Examples/Thumbnails as a package that depends on vidfx by URL and version would:
# this working tree committed into a scratch repository, tagged with vidfx's version, and
# named by a file:// URL. SwiftPM refuses unsafe flags in packages it resolves by version,
# so this fails if any target a product reaches gains one. Then runs the tool
# (scripts/check-examples.sh). Leaves nothing behind.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/vidfx/VidFX.swift)
[ -n "$version" ] || { echo "check-consumer: no version in Sources/vidfx/VidFX.swift" >&2; exit 1; }

# The files git would commit from here (tracked and new, not ignored), committed and tagged.
mkdir "$work/vidfx"
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"; done \
  | tar --null -T - -cf - | tar -xf - -C "$work/vidfx"
git -C "$work/vidfx" init --quiet
git -C "$work/vidfx" add --all
git -C "$work/vidfx" -c user.name=check -c user.email=check@localhost commit --quiet -m "vidfx $version"
git -C "$work/vidfx" tag "$version"

# A user's machine: none of this repository's own build settings.
cp -R Examples/Thumbnails "$work/consumer"
# Thumbnails uses four products; SwiftPM checks only the products a package uses, so a
# second target uses every library product (VidfxFaceNet, the face network, included).
products=$(swift package dump-package | python3 -c 'import json,sys; print(" ".join(p["name"] for p in json.load(sys.stdin)["products"] if "library" in p["type"]))')
mkdir -p "$work/consumer/Sources/every-product"
{ for p in $products; do [ "$p" = VidfxFaceNet ] || echo "import $p"; done; echo 'print("every product of vidfx imports")'; } \
  > "$work/consumer/Sources/every-product/main.swift"
deps=$(for p in $products; do printf '.product(name: "%s", package: "vidfx"), ' "$p"; done)
python3 - "$work/consumer/Package.swift" "$deps" <<'PY'
import sys
path, deps = sys.argv[1], sys.argv[2]
text = open(path).read()
anchor = "    targets: [\n"
assert anchor in text, "Examples/Thumbnails/Package.swift has no targets list"
open(path, "w").write(text.replace(anchor, anchor + f'        .executableTarget(name: "every-product", dependencies: [{deps}]),\n', 1))
PY
if ! env -u VIDFX_DEVELOP -u VIDFX_TARGET_CPU VIDFX_PACKAGE_URL="file://$work/vidfx" \
     swift build --package-path "$work/consumer" --scratch-path "$work/build" > "$work/build.log" 2>&1; then
  cat "$work/build.log" >&2
  echo "check-consumer: a package depending on vidfx $version by URL did not build" >&2
  exit 1
fi
python3 - "$work/consumer/Package.resolved" "$version" <<'PY'
import json, sys
pins = json.load(open(sys.argv[1]))["pins"]
state = [p["state"] for p in pins if p["identity"] == "vidfx"]
assert state and state[0].get("version") == sys.argv[2], f"check-consumer: vidfx not resolved by version {sys.argv[2]}: {state}"
PY
"$work/build/debug/every-product" > /dev/null
scripts/check-examples.sh "$work/build/debug/thumbnails"
echo "check-consumer: Examples/Thumbnails and a target using every library product ($products) build against vidfx $version by URL and version, and run" >&2
