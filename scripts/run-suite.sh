#!/usr/bin/env bash
# Runs one phase of the suite, `swift test …`, under a hang limit:
#
#     scripts/run-suite.sh SECONDS swift test --skip-build …
#
# A phase that is still running after SECONDS is stopped (the runner and every program it
# started), and the tests that had started and not ended are named: a hang fails the run
# with its culprit instead of running into CI's limit with a log that stops mid-line. The
# limit is a hang limit, several times what the phase takes on a loaded machine, never a
# measure of speed. Output goes through line by line (a block-buffered filter would hold
# back the last lines of a run that is killed), less ASan's noise about symbols it cannot
# export from the test runner.
set -uo pipefail
limit=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT

timeout --kill-after=30 "$limit" "$@" 2>&1 \
  | grep --line-buffered -v "Cannot export local symbol '__asan" \
  | tee "$log"
status=${PIPESTATUS[0]}

if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
  echo "run-suite: '$*' did not end within ${limit} s: stopped. Started and not ended:" >&2
  # Swift Testing prints "◇ Test NAME started." and "✔/✘ Test NAME passed/failed …";
  # parameterised tests end with "✔ Test NAME with N test cases passed …".
  python3 - "$log" >&2 <<'PY'
import re, sys
started, ended = {}, {}
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    m = re.search(r"◇ Test (\S+\(.*?\)) started\.", line)
    if m:
        started[m.group(1)] = started.get(m.group(1), 0) + 1
        continue
    m = re.search(r"[✔✘] Test (\S+\(.*?\)) (?:with \d+ test cases? )?(?:passed|failed)", line)
    if m:
        ended[m.group(1)] = ended.get(m.group(1), 0) + 1
open_tests = [name for name, n in started.items() if n > ended.get(name, 0)]
for name in open_tests:
    print(f"  {name}")
if not open_tests:
    print("  (none: the runner itself hung, before or after the tests)")
PY
fi
exit "$status"
