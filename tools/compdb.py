#!/usr/bin/env python3
"""tools/compdb.py BUILD "KERNEL-CC" "USER-CC" kernel FILE... user FILE...
- compile_commands.json on stdout, for clangd and other editors: each C file
with the very command and flags the Makefile compiles it with (kernel files
with the kernel's, libc, programs, tests and labs with the user side's).
`make compile_commands.json` runs it; the file is ignored by git."""
import json
import os
import sys


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    build, kcc, ucc = sys.argv[1:4]
    root = os.getcwd()
    side, entries = None, []
    for arg in sys.argv[4:]:
        if arg in ("kernel", "user"):
            side = arg
            continue
        cc = kcc if side == "kernel" else ucc
        obj = os.path.join(build, ("u/" if side == "user" else "") + arg[:-2] + ".o")
        entries.append({"directory": root, "file": arg,
                        "arguments": cc.split() + ["-c", arg, "-o", obj]})
    json.dump(entries, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
