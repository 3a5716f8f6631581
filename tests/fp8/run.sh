#!/bin/sh
# run.sh - the 8-bit float tests against OCP's formulas, with a python3
# that has numpy.  Without one they say skip, except under CI, where that is
# a failure.
#
# Usage: TL=/path/to/tensorlayout sh tests/fp8/run.sh
here=$(cd "$(dirname "$0")" && pwd)
for py in /usr/bin/python3 python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import numpy' 2>/dev/null; then
        exec "$py" "$here/test_fp8.py"
    fi
done
if [ "${CI:-}" = true ]; then
    echo "fp8: no python3 with numpy (.ci/install-deps installs python3-numpy)"
    exit 1
fi
echo "skip: fp8 (no python3 with numpy)"
