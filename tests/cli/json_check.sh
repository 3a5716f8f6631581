#!/bin/sh
# json_check.sh - runs the tool on its arguments, passing its input, output
# and exit status through, and when they hold --json and it exits 0 or 1,
# checks that what it printed is strict JSON (no NaN, Infinity or empty
# value; one document, or one a line): a failure is appended, with the
# command, to $TL_JSON_BAD.  The trace pass runs the whole suite through it
# (TL_EXEC_PREFIX), so every --json output of every test is checked.
#
# Usage: TL_JSON_BAD=FILE sh json_check.sh TOOL ARGS...
json=no prev=
for a in "$@"; do
    case $a in --json) json=yes ;; -) [ "$prev" = -o ] && json=no ;; esac
    prev=$a
done
# anything else runs as it is, with its terminal, signals and write errors
[ $json = yes ] && [ -n "${TL_JSON_BAD:-}" ] || exec "$@"
out=$(mktemp "${TMPDIR:-/tmp}/tl-json.XXXXXX") || exit 3
"$@" >"$out"
rc=$?
cat "$out"
if [ $rc -le 1 ] && ! python3 - "$out" <<'PY'
import json, sys
def strict(c):
    raise ValueError("not JSON: " + c)
text = open(sys.argv[1], encoding="utf-8").read()
try:
    json.loads(text, parse_constant=strict)
except ValueError:
    lines = [l for l in text.split("\n") if l.strip()]
    try:
        for l in lines:
            json.loads(l, parse_constant=strict)
    except ValueError as e:
        print(e, file=sys.stderr)
        sys.exit(1)
PY
then
    echo "$*" >>"$TL_JSON_BAD"
fi
rm -f "$out"
exit $rc
