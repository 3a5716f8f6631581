#!/bin/sh
# run.sh - the interoperability tests, with a python3 that has numpy
# (Debian's python3-numpy, which .ci/install-deps installs).  Without one
# they say skip, except under CI, where that is a failure.
#
# Usage: TL=/path/to/tensorlayout sh tests/interop/run.sh
here=$(cd "$(dirname "$0")" && pwd)
for py in /usr/bin/python3 python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import numpy' 2>/dev/null; then
        exec "$py" "$here/test_numpy.py"
    fi
done
if [ "${CI:-}" = true ]; then
    echo "numpy interop: no python3 with numpy (.ci/install-deps installs python3-numpy)"
    exit 1
fi
echo "skip: numpy interop (no python3 with numpy; .ci/install-deps installs python3-numpy)"
