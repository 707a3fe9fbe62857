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
# The hidden tests move to a folder with a random name, readable by root
# alone: grade.py (root here) compiles a submission as nobody, whose
# `#if __has_include` of a file in it meets "Permission denied" whatever the
# folder holds (doc/instructors.md, section 7). The work tree's folders
# must be reachable by nobody: $AG and $SRC are opened to all (the course
# tree is what every student has).
if [ -d "$SRC/hidden" ]; then
    hidden="$SRC/hidden-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
    mv "$SRC/hidden" "$hidden"
    chmod -R go= "$hidden"
fi
chmod a+x "$SRC/.." "$SRC"
sh tools/deps                    # installs what is missing (we are root here)
python3 tools/grade.py "$(cat "$SRC/LAB")" --prepare
