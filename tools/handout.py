#!/usr/bin/env python3
"""tools/handout.py - write the student tree for one lab.

    tools/handout.py NN [OUTDIR]        (default OUTDIR: build/handout-NN)

Copies every file git tracks (or, outside git, every file but build/) and
replaces each region

    /* LAB NN: BEGIN */ ... /* LAB NN: END */

with a comment pointing at the handout and a stub that compiles and fails:
`return -ENOSYS;` in the kernel, `errno = ENOSYS; return -1;` in user/,
or the text given in the marker itself: /* LAB NN: BEGIN (stub: ...) */.
Other labs' regions stay as they are (their solutions are given)."""
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REGION = re.compile(r"^([ \t]*)/\* LAB (\d\d): BEGIN(?: \(stub:(.*?)\))? \*/[ \t]*\n(.*?)"
                    r"^[ \t]*/\* LAB \2: END \*/[ \t]*\n", re.S | re.M)


def tracked_files():
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "-co", "--exclude-standard"],
                             capture_output=True, check=True).stdout.decode()
        files = [f for f in out.split("\0") if f]
        if files:
            return [f for f in files if os.path.exists(os.path.join(ROOT, f))]
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in ("build", ".git")]
        files += [os.path.relpath(os.path.join(dirpath, f), ROOT) for f in filenames]
    return files


def lab_folder(lab):
    for name in sorted(os.listdir(os.path.join(ROOT, "lab"))):
        if name.startswith(lab + "-"):
            return "lab/" + name
    return None


def stub_region(text, lab, path, folder):
    """Replace lab's regions in one file's text; returns (text, count)."""
    count = 0

    def repl(m):
        nonlocal count
        if m.group(2) != lab:
            return m.group(0)
        count += 1
        indent, stub = m.group(1), m.group(3)
        if stub is None:
            stub = "errno = ENOSYS;\nreturn -1;" if path.startswith("user/") else "return -ENOSYS;"
        stub = stub.strip("\n")
        lines = ["%s/* LAB %s: your code here (see %s/README.md) */" % (indent, lab, folder)]
        body = stub.strip().startswith("int ")     # a whole function: keep it as written
        lines += [line if body else indent + line.strip()
                  for line in stub.strip("\n").splitlines() if line.strip() or body]
        return "\n".join(lines) + "\n"

    return REGION.sub(repl, text), count


def make_handout(lab, out):
    folder = lab_folder(lab)
    if not folder:
        sys.exit("handout: no lab %s under lab/" % lab)
    if os.path.exists(out):
        shutil.rmtree(out)
    regions = 0
    for rel in tracked_files():
        src, dst = os.path.join(ROOT, rel), os.path.join(out, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if rel.endswith((".c", ".h")):
            with open(src) as f:
                text, n = stub_region(f.read(), lab, rel, folder)
            regions += n
            with open(dst, "w") as f:
                f.write(text)
        else:
            shutil.copy2(src, dst)
    if regions == 0:
        sys.exit("handout: no /* LAB %s: BEGIN */ regions found" % lab)
    return regions


def main():
    if len(sys.argv) < 2 or not re.fullmatch(r"\d\d", sys.argv[1]):
        sys.exit("usage: tools/handout.py NN [OUTDIR]")
    lab = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "build", "handout-" + lab)
    n = make_handout(lab, out)
    print("handout: lab %s, %d region(s) stubbed, written to %s" % (lab, n, out))


if __name__ == "__main__":
    main()
