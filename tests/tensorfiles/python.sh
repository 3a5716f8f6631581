#!/bin/sh
# python.sh - runs a Python test file with the first python3 that imports
# the modules it needs (Debian's /usr/bin/python3 first: pyenv's may lack
# them).  Without one the test says skip, except under CI, where that is a
# failure.
#
# Usage: sh tests/tensorfiles/python.sh LABEL "MODULE ..." TEST.py [ARGS]
label=$1 modules=$2 script=$3
shift 3
imports=$(for m in $modules; do printf 'import %s; ' "$m"; done)
for py in /usr/bin/python3 python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c "$imports" 2>/dev/null; then
        exec "$py" "$script" "$@"
    fi
done
if [ "${CI:-}" = true ]; then
    echo "$label: no python3 with $modules (.ci/install-deps installs them)"
    exit 1
fi
echo "skip: $label (no python3 with $modules; .ci/install-deps installs them)"
