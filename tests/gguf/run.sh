#!/bin/sh
# run.sh - the GGUF tests, with ggml's own library as the oracle: a python3
# with numpy, and libggml-base.so from the npm package
# @node-llama-cpp/linux-x64, which .ci/install-deps unpacks into
# build/ggml/lib (GGML_LIB names another).  Without them they say skip, except
# under CI, where that is a failure.
#
# Usage: TL=/path/to/tensorlayout sh tests/gguf/run.sh [FILTER]
here=$(cd "$(dirname "$0")" && pwd)
lib=${GGML_LIB:-$here/../../build/ggml/lib/libggml-base.so}
why=
[ -f "$lib" ] || why="no $lib (.ci/install-deps fetches @node-llama-cpp/linux-x64 with npm)"
py=
for p in /usr/bin/python3 python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy' 2>/dev/null; then
        py=$p
        break
    fi
done
[ -n "$py" ] || why="no python3 with numpy"
if [ -n "$why" ]; then
    if [ "${CI:-}" = true ]; then
        echo "gguf: $why"
        exit 1
    fi
    echo "skip: gguf ($why)"
    exit 0
fi
GGML_LIB=$lib exec "$py" "$here/test_gguf.py" "$@"
