#!/usr/bin/env bash
# Renders IN to OUT in segments through GNU parallel, then joins them: the same file as
# `vidfx apply IN [options] -o OUT` (frame for frame with a lossless setting).
#
#   scripts/render-parallel.sh IN OUT [apply options…]
#
# VIDFX_HOSTS  ssh logins for parallel's --sshlogin (e.g. "4/render1,4/render2,:");
#              unset: local jobs. Remote hosts need vidfx on their PATH and rsync; the
#              input is sent with --basefile and each segment comes back with --return.
# VIDFX_SEGMENTS  how many segments (default: the cores here, or 4 per host).
# VIDFX        the vidfx to run (default: vidfx on the PATH).
set -euo pipefail
if [ $# -lt 2 ]; then echo "usage: $0 IN OUT [apply options…]" >&2; exit 2; fi
in=$1 out=$2
shift 2
case "$in" in *://*) source_path=$in ;; *) source_path=$(realpath "$in") ;; esac
vidfx=${VIDFX:-vidfx}

# The options that shape the timeline go to plan and concat too (the audio follows them),
# and -y to concat, which writes OUT.
timeline=() overwrite=()
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --start|--duration|--loop|--fps) timeline+=("${args[i]}" "${args[i+1]:-}"); i=$((i + 1)) ;;
    --start=*|--duration=*|--loop=*|--fps=*) timeline+=("${args[i]}") ;;
    -y|--yes) overwrite=(-y) ;;
  esac
done

if [ -n "${VIDFX_HOSTS:-}" ]; then
  hosts=(--sshlogin "$VIDFX_HOSTS" --basefile "$in" --return "{= \$_ = 'seg' . \$_ . '.mkv' =}" --cleanup)
  n=${VIDFX_SEGMENTS:-$((4 * $(tr ',' '\n' <<<"$VIDFX_HOSTS" | wc -l)))}
else
  hosts=()
  n=${VIDFX_SEGMENTS:-$(nproc)}
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/vidfx-render.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$vidfx" plan "$in" --segments "$n" "${timeline[@]}" > "$work/plan.json"
count=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["segments"]))' "$work/plan.json")

# One job per segment; a failed segment fails the render (parallel's exit status).
( cd "$work" && seq 1 "$count" | parallel --will-cite --halt now,fail=1 "${hosts[@]}" \
    "$vidfx" apply "$source_path" --segment "{}/$count" -o "seg{}.mkv" -q "$@" )
segments=()
for i in $(seq 1 "$count"); do segments+=("$work/seg$i.mkv"); done
"$vidfx" concat "${segments[@]}" --audio-from "$in" "${timeline[@]}" "${overwrite[@]}" -o "$out"
