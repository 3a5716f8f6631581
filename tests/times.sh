#!/bin/sh
# times.sh - where make test's time went: its jobs and its slowest
# command-line tests, longest first, in wall seconds, from the records of
# tests/timed.sh (DIR/jobs) and tests/cli/run.sh (DIR/tests, TL_TIMES).
#
# Usage: sh tests/times.sh DIR [N]    (N slowest tests, 15 by default)
dir=$1 n=${2:-15}
[ -f "$dir/jobs" ] || exit 0
awk 'NR == 1 || $1 < first { first = $1 } $2 > last { last = $2 } END {
         printf "make test: %.0f s of wall time\n", last - first }' "$dir/jobs"
echo "jobs, longest first (seconds, status):"
awk '{ printf "  %8.1f  %3d  %s\n", $2 - $1, $3, $4 }' "$dir/jobs" | sort -rn -k1,1
if [ -f "$dir/tests" ]; then
    echo "the $n slowest command-line tests (seconds, pass):"
    awk '{ printf "  %8.2f  %s  %s\n", $2 - $1, $3, $4 }' "$dir/tests" | sort -rn -k1,1 | head -n "$n"
fi
