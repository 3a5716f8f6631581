#!/bin/sh
# run.sh - the command-line tests.
#
# Each tests/cli/GROUP/NAME.sh runs in a scratch directory of its own, where
# examples/ and bad/ are linked, with $TL naming the binary (wrapped by
# $TL_EXEC_PREFIX, e.g. "valgrind -q --error-exitcode=99").  Its standard
# output, standard error and exit status must equal NAME.sh.stdout,
# NAME.sh.stderr and NAME.sh.exit exactly.  UPDATE=1 rewrites those files
# (review the diff before committing).  Arguments restrict the run to
# test names containing them.
#
# A test that cannot run here (it needs root, or a namespace the kernel
# refuses) prints one line "skip: REASON" and exits 77; it is counted as
# skipped, never as passed.  Tests that must run the binary from a folder of
# their own (as user nobody, say) use $TL_BIN, the binary itself, and
# $TL_EXEC_PREFIX, the wrapper, rather than $TL.  $TL_BATCH (wrapped too)
# runs many command lines in one process (tests/cli/batch.c).
#
# TL_LIST=FILE runs only the tests it names (GROUP/NAME.sh, a line each:
# the lists of tests/cli/trace.py).  TL_TIMES=FILE appends "START END LABEL
# NAME" for each test run (make test's table of the slowest).  TL_TRACE_DIR
# (the trace build) records the functions each test's processes reach.
#
# TL_SHARD=K/N runs only every Nth test from the Kth (0 <= K < N; K may be
# a list, 0,1,2/4), so that runs side by side share the suite (make test's
# valgrind runs).
#
# Usage: TL=/path/to/tensorlayout sh tests/cli/run.sh [FILTER...]
set -u
# pictures fit COLUMNS when it is set: the expected outputs are for 80
unset COLUMNS
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
: "${TL:?set TL to the tensorlayout binary}"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/tl-cli.XXXXXX") || exit 3
trap 'rm -rf "$scratch"' EXIT INT TERM
# copies choose by the built-in rules, not by a calibration of the
# developer's: no TENSORLAYOUT_CALIBRATION, and an empty cache a test
unset TENSORLAYOUT_CALIBRATION

label=${TL_LABEL:-cli}
passed=0
failed=0
skipped=0
shard_k=${TL_SHARD:-0/1}; shard_k=${shard_k%/*}
shard_n=${TL_SHARD:-0/1}; shard_n=${shard_n#*/}
index=-1
for t in "$here"/*/*.sh; do
    name=${t#"$here"/}
    if [ -n "${TL_LIST:-}" ] && ! grep -qxF "$name" "$TL_LIST"; then
        continue
    fi
    index=$((index + 1))
    case ",$shard_k," in *",$((index % shard_n)),"*) ;; *) continue ;; esac
    if [ $# -gt 0 ]; then
        match=no
        for f in "$@"; do
            case $name in *"$f"*) match=yes ;; esac
        done
        [ $match = yes ] || continue
    fi
    dir="$scratch/run"
    rm -rf "$dir" && mkdir -p "$dir" || exit 3
    start=$(date +%s.%N)
    ln -s "$root/examples" "$dir/examples"
    ln -s "$here/bad" "$dir/bad"
    trace=
    [ -n "${TL_TRACE_DIR:-}" ] && trace="$TL_TRACE_DIR/$(echo "$name" | tr / %)"
    (cd "$dir" && TL_TRACE_FILE=$trace XDG_CACHE_HOME="$dir/.cache" TL_BIN="$TL" TL_EXEC_PREFIX="${TL_EXEC_PREFIX:-}" \
        TL="${TL_EXEC_PREFIX:+$TL_EXEC_PREFIX }$TL" \
        TL_BATCH="${TL_EXEC_PREFIX:+$TL_EXEC_PREFIX }${TL_BATCH:-}" sh "$t" \
        >"$scratch/stdout" 2>"$scratch/stderr" </dev/null)
    echo $? >"$scratch/exit"
    [ -n "${TL_TIMES:-}" ] && echo "$start $(date +%s.%N) $label $name" >>"$TL_TIMES"
    if [ "$(cat "$scratch/exit")" = 77 ] && head -n 1 "$scratch/stdout" | grep -q '^skip: '; then
        echo "$(head -n 1 "$scratch/stdout") ($name)"
        skipped=$((skipped + 1))
        continue
    fi
    if [ "${UPDATE:-0}" = 1 ]; then
        cp "$scratch/stdout" "$t.stdout"
        cp "$scratch/stderr" "$t.stderr"
        cp "$scratch/exit" "$t.exit"
    fi
    ok=yes
    for part in exit stdout stderr; do
        if ! cmp -s "$scratch/$part" "$t.$part"; then
            if [ $ok = yes ]; then
                echo "FAIL $name"
            fi
            ok=no
            echo "--- $part differs:"
            diff "$t.$part" "$scratch/$part" | head -n 20
        fi
    done
    if [ $ok = yes ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
done
echo "$label: $passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
