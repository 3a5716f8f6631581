#!/bin/sh
# run.sh - the 8-bit float tests against OCP's formulas, with a python3
# that has numpy.
#
# Usage: TL=/path/to/tensorlayout sh tests/fp8/run.sh [FILTER]
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../tensorfiles/python.sh" fp8 numpy "$here/test_fp8.py" "$@"
