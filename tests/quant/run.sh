#!/bin/sh
# run.sh - the group-quantized weights' tests (SPEC 21), with torch as the
# oracle (the schemes' reference packing and dequantization, quantref.py)
# and ggml's to_float for the GGUF blocks written.
#
# Usage: TL=/path/to/tensorlayout sh tests/quant/run.sh [FILTER]
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../tensorfiles/python.sh" quant "numpy torch" "$here/test_quant.py" "$@"
