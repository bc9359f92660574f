#!/usr/bin/env bash
# The suite's own rules, checked before it runs (issue 25):
# - no test blocks one of Swift's cooperative threads: child processes are awaited
#   through TestSupport's Subprocess, pauses are Task.sleep;
# - time limits only on the real-clock suites (named *RealClockTests), which run one
#   test at a time: in the parallel phase a limit measures the queue, not the test.
set -uo pipefail
cd "$(dirname "$0")/.."
bad=0
# Subprocess.swift is where the blocking calls live, each on a thread of its own.
blocking=$(grep -rnE 'waitUntilExit\(|Thread\.sleep|usleep\(|[^.]sleep\(|DispatchSemaphore|readDataToEndOfFile\(|\.availableData|DispatchGroup' \
             Tests --include='*.swift' | grep -v '^Tests/Support/Subprocess.swift:' | grep -vE '^\S+:\s*//' || true)
if [ -n "$blocking" ]; then
  echo "check-tests: a test blocks a cooperative thread (use Subprocess / Task.sleep):" >&2
  echo "$blocking" >&2
  bad=1
fi
# A .timeLimit on a line that declares a suite or test outside a *RealClockTests suite.
limits=$(awk '
  FNR == 1 { suite = "" }
  /struct [A-Za-z0-9_]+|class [A-Za-z0-9_]+/ {
    if (match($0, /(struct|class) [A-Za-z0-9_]+/)) { name = substr($0, RSTART, RLENGTH); sub(/^(struct|class) /, "", name) }
  }
  /@Suite\(.*\.timeLimit/ { if (match($0, /(struct|class) [A-Za-z0-9_]+/)) { n = substr($0, RSTART, RLENGTH); sub(/^(struct|class) /, "", n); if (n !~ /RealClockTests$/) print FILENAME ":" FNR ": " n } else { pending = FILENAME ":" FNR } next }
  pending != "" && /(struct|class) / { if (name !~ /RealClockTests$/) print pending ": " name; pending = "" }
  /@Suite/ && !/timeLimit/ { if (match($0, /(struct|class) [A-Za-z0-9_]+/)) { suite = substr($0, RSTART, RLENGTH); sub(/^(struct|class) /, "", suite) } }
  /@Test\(.*\.timeLimit/ { if (suite !~ /RealClockTests$/) print FILENAME ":" FNR ": a test in " suite }
' $(find Tests -name '*.swift'))
if [ -n "$limits" ]; then
  echo "check-tests: a time limit outside the real-clock suites (*RealClockTests):" >&2
  echo "$limits" >&2
  bad=1
fi
[ $bad -eq 0 ] && echo "check-tests: no blocking calls, time limits only on real-clock suites" >&2
exit $bad
