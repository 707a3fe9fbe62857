#!/usr/bin/env bash
# setup.sh - Gradescope runs this once, as root, when it builds the
# autograder's image (Ubuntu): install what the build and QEMU need
# (tools/deps installs whatever is missing, with apt-get), then build the
# pristine course tree, so that grading a submission recompiles only its
# own files. AUTOGRADER_ROOT (default /autograder) lets `make test` run
# this in a simulated root.
set -euo pipefail
SRC="${AUTOGRADER_ROOT:-/autograder}/source"
cd "$SRC/course"
if ! command -v python3 >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq python3 make
fi
chmod +x tools/deps "$SRC/run_autograder"
# The hidden tests move to a folder with a random name: a submission's C
# file cannot #include them by a path it can guess (see doc/instructors.md).
if [ -d "$SRC/hidden" ]; then
    mv "$SRC/hidden" "$SRC/hidden-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
fi
sh tools/deps                    # installs what is missing (we are root here)
python3 tools/grade.py "$(cat "$SRC/LAB")" --prepare
