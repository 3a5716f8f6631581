#!/bin/sh
# run.sh - the installed library's test, with numpy and Debian's
# python3-torch as the oracles (.ci/install-deps installs them).
#
# Usage: TL_STAGE=PREFIX TL_EXAMPLE=BIN TL_EXAMPLE_STATIC=BIN sh tests/install/run.sh
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../tensorfiles/python.sh" install "numpy torch" "$here/test_install.py" "$@"
