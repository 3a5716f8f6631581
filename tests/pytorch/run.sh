#!/bin/sh
# run.sh - the PyTorch checkpoint tests, with Debian's python3-torch as the
# oracle (.ci/install-deps installs it).  Without it they say skip, except
# under CI, where that is a failure.
#
# Usage: TL=/path/to/tensorlayout sh tests/pytorch/run.sh [FILTER]
here=$(cd "$(dirname "$0")" && pwd)
for py in /usr/bin/python3 python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import numpy, torch' 2>/dev/null; then
        exec "$py" "$here/test_pytorch.py" "$@"
    fi
done
if [ "${CI:-}" = true ]; then
    echo "pytorch: no python3 with numpy and torch (.ci/install-deps installs python3-torch)"
    exit 1
fi
echo "skip: pytorch (no python3 with torch; .ci/install-deps installs python3-torch)"
