#!/bin/sh
# run.sh - the PyTorch checkpoint tests, with Debian's python3-torch as the
# oracle (.ci/install-deps installs it).
#
# Usage: TL=/path/to/tensorlayout sh tests/pytorch/run.sh [FILTER]
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../tensorfiles/python.sh" pytorch "numpy torch" "$here/test_pytorch.py" "$@"
