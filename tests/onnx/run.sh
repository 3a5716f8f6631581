#!/bin/sh
# run.sh - the ONNX tests, with Debian's python3-onnx as the oracle and
# libonnx-testdata as real-world input (.ci/install-deps installs both).
#
# Usage: TL=/path/to/tensorlayout sh tests/onnx/run.sh [FILTER]
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../tensorfiles/python.sh" onnx "numpy onnx" "$here/test_onnx.py" "$@"
