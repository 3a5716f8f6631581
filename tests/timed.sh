#!/bin/sh
# timed.sh - runs a command and appends its wall time to DIR/jobs, as
# "START END STATUS NAME", for the table tests/times.sh prints.
#
# Usage: sh tests/timed.sh DIR NAME COMMAND...
dir=$1 name=$2
shift 2
start=$(date +%s.%N)
"$@"
rc=$?
mkdir -p "$dir" && echo "$start $(date +%s.%N) $rc $name" >>"$dir/jobs"
exit $rc
