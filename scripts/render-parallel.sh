#!/usr/bin/env bash
# Renders IN to OUT in segments through GNU parallel, then joins them: the same file as
# `vidfx apply IN [options] -o OUT` (frame for frame with a lossless setting).
#
#   scripts/render-parallel.sh IN OUT [apply options…]
#
# VIDFX_HOSTS  parallel's --sshlogin list (e.g. "4/render1,4/render2,:"; an entry may carry
#              its ssh command: "ssh -p 2222 render3"); unset: local jobs only. Remote hosts
#              need vidfx on their PATH (or VIDFX set to a path valid there) and rsync. The
#              input is copied once to each host, into ~/vidfx-render-ID/, each segment is
#              copied back, and both are deleted there afterwards.
# VIDFX_SHARED set to 1 when every host sees the input and the current directory at the
#              same paths (NFS): nothing is copied, and the work goes in ./.vidfx-render.*.
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

# Transferred files live under one name per render, relative to the remote login directory
# (and to $work here), never at the input's own path: parallel's --cleanup deletes what it
# sent, and on a host that shares this file system that would be the user's input.
if [ -n "${VIDFX_HOSTS:-}" ] && [ "${VIDFX_SHARED:-0}" = 1 ]; then
  work=$(mktemp -d "$PWD/.vidfx-render.XXXXXX")
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/vidfx-render.XXXXXX")
fi
trap 'rm -rf "$work"' EXIT

id=vidfx-render-${work##*.}
if [ -n "${VIDFX_HOSTS:-}" ] && [ "${VIDFX_SHARED:-0}" != 1 ]; then
  mkdir "$work/$id"
  ext=${in##*/}; ext=${ext##*.}
  case "$in" in
    *://*) job_in=$in; hosts=() ;;  # a URL: every host reads it itself
    *) job_in=$id/input.$ext
       ln "$source_path" "$work/$job_in" 2>/dev/null || ln -s "$source_path" "$work/$job_in"
       hosts=(--basefile "$work/./$job_in") ;;
  esac
  # rsync copies a link as a link: --copy-links makes a symbolic one send its file.
  hosts+=(--sshlogin "$VIDFX_HOSTS" --return "$id/seg{}.mkv" --cleanup --rsync-opts "-rlDzR --copy-links")
  seg="$id/seg{}.mkv" segdir="$work/$id"  # jobs run in ~ there, in $work here
  n=${VIDFX_SEGMENTS:-$((4 * $(tr ',' '\n' <<<"$VIDFX_HOSTS" | wc -l)))}
else
  [ -n "${VIDFX_HOSTS:-}" ] && hosts=(--sshlogin "$VIDFX_HOSTS") || hosts=()
  job_in=$source_path
  seg="$work/seg{}.mkv" segdir=$work
  n=${VIDFX_SEGMENTS:-$(nproc)}
fi

"$vidfx" plan "$in" --segments "$n" "${timeline[@]}" > "$work/plan.json"
count=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["segments"]))' "$work/plan.json")

# One job per segment; a failed segment fails the render (parallel's exit status).
# --quote: the options reach vidfx as given, spaces and all, here or over ssh; the job
# makes the segment's folder, which a host that was sent nothing does not have.
( cd "$work" && seq 1 "$count" | parallel --will-cite --quote --halt now,fail=1 "${hosts[@]}" \
    sh -c 'mkdir -p "${1%/*}" && shift && exec "$@"' sh "$seg" \
    "$vidfx" apply "$job_in" --segment "{}/$count" -o "$seg" -q "$@" )
segments=()
for i in $(seq 1 "$count"); do segments+=("$segdir/seg$i.mkv"); done
"$vidfx" concat "${segments[@]}" --audio-from "$in" "${timeline[@]}" "${overwrite[@]}" -o "$out"
