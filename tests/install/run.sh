#!/bin/sh
# run.sh - the installed library's test, with numpy and Debian's
# python3-torch as the oracles (.ci/install-deps installs them).  Without
# them it says skip, except under CI, where that is a failure.
#
# Usage: TL_STAGE=PREFIX TL_EXAMPLE=BIN TL_EXAMPLE_STATIC=BIN sh tests/install/run.sh
here=$(cd "$(dirname "$0")" && pwd)
for py in /usr/bin/python3 python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import numpy, torch' 2>/dev/null; then
        exec "$py" "$here/test_install.py" "$@"
    fi
done
if [ "${CI:-}" = true ]; then
    echo "install: no python3 with numpy and torch (.ci/install-deps installs python3-torch)"
    exit 1
fi
echo "skip: install (no python3 with numpy and torch; .ci/install-deps installs them)"
