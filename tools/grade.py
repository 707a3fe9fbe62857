#!/usr/bin/env python3
"""tools/grade.py - grade the labs: `make grade [LAB=NN]`.

    tools/grade.py [NN ...] [--json results.json]

For each lab, boots QEMU running /bin/labNN (lab/NN-*/test.c), prints each
test with PASS/FAIL, points and time as it finishes, then `Score: X/Y`.
Points come from lab/NN-*/points: a test listed there that never printed a
result (a crash, a hang) scores 0. --json writes Gradescope's results.json.
Hidden tests: GRADE_EXTRA=dir (environment) holding *.c files; each is
built into the guest as /bin/extra_NAME and its PASS lines are worth the
points in dir/points (1 each if not listed)."""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemu  # noqa: E402

RESULT = re.compile(r"^(PASS|FAIL) (\S+)(?::\s*(.*))?$", re.M)


def lab_dirs(root):
    return sorted(d for d in glob.glob(os.path.join(root, "lab", "[0-9][0-9]-*")) if os.path.isdir(d))


def read_points(path):
    points = {}
    if os.path.exists(path):
        for line in open(path):
            parts = line.split()
            if len(parts) == 2:
                points[parts[0]] = int(parts[1])
    return points


def run_program(prog, build, timeout=180):
    """Boot once with /bin/prog; {test: (ok, detail)}, the boot, seconds."""
    b = qemu.run(qemu.kernel_args("panic=exit run=/bin/%s" % prog, build=build), timeout=timeout)
    results = {}
    for m in RESULT.finditer(b.output):
        results[m.group(2)] = (m.group(1) == "PASS", m.group(3) or "")
    return results, b


def grade_program(label, prog, points, build, default_points=None, show=True):
    """Grade one guest program; list of (name, score, max, output)."""
    start = time.monotonic()
    results, boot = run_program(prog, build)
    secs = time.monotonic() - start
    names = list(points) + [n for n in results if n not in points and default_points]
    rows = []
    for name in names:
        maxp = points.get(name, default_points or 0)
        ok, detail = results.get(name, (False, "no result: the test program %s" %
                                        ("timed out" if boot.timed_out else "stopped early")))
        rows.append(("%s/%s" % (label, name), maxp if ok else 0, maxp, detail))
        if show:
            print("%s %-62s %3d/%-3d %5.1fs" % ("PASS" if ok else "FAIL", "%s/%s" % (label, name),
                                                maxp if ok else 0, maxp, secs))
            if not ok and detail:
                print("      " + detail)
    if show and "panic:" in boot.output:
        print("      the kernel panicked:\n" + "\n".join("      | " + l for l in
                                                         boot.output.splitlines()[-12:]))
    sys.stdout.flush()
    return rows


def build_extra(root, build, extra):
    """Copy GRADE_EXTRA's *.c into build/extra and rebuild the boot archive."""
    dest = os.path.join(build, "extra")
    shutil.rmtree(dest, ignore_errors=True)
    for stale in glob.glob(os.path.join(build, "root", "bin", "extra_*")):
        os.unlink(stale)
    os.makedirs(dest)
    for src in glob.glob(os.path.join(extra, "*.c")):
        shutil.copy(src, dest)
    subprocess.run(["make", "-C", root, "-s", "all"], check=True)
    return sorted(os.path.splitext(os.path.basename(p))[0] for p in glob.glob(dest + "/*.c"))


def main():
    ap = argparse.ArgumentParser(description="grade the Orthos labs")
    ap.add_argument("labs", nargs="*", help="lab numbers (default: all)")
    ap.add_argument("--json", help="write a Gradescope results.json here")
    args = ap.parse_args()
    root, build = qemu.ROOT, qemu.BUILD
    rows = []
    for d in lab_dirs(root):
        num = os.path.basename(d)[:2]
        if args.labs and num not in args.labs:
            continue
        rows += grade_program("lab" + num, "lab" + num, read_points(os.path.join(d, "points")),
                              build)
    extra = os.environ.get("GRADE_EXTRA")
    if extra:
        for prog in build_extra(root, build, extra):
            rows += grade_program("hidden/" + prog, "extra_" + prog,
                                  read_points(os.path.join(extra, "points")), build,
                                  default_points=1)
    score, total = sum(r[1] for r in rows), sum(r[2] for r in rows)
    print("Score: %d/%d" % (score, total))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"score": score, "tests": [
                {"name": n, "score": s, "max_score": m, "output": o} for n, s, m, o in rows]},
                f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
