#!/usr/bin/env python3
"""tools/mutants.py - prove that every lab's tests catch wrong solutions.

    tools/mutants.py [NN ...] [--sample] [--full] [--jobs N] [--workdir DIR] [--list]

Each lab keeps a catalogue of plausible wrong solutions in
lab/NN-name/mutants/MISTAKE.mutant: a first line "# what the student got
wrong", then sections "@@ path/to/file.c" (the file's first LAB NN region)
or "@@ path/to/file.c #2" (its second), each followed by the text that
replaces that region's body. Regions not named keep the reference solution.
For every lab asked for (default: all that have mutants) this tool

  1. builds the lab's course tree: the regions of every later lab replaced
     by their stubs, as on the lab's branch of the course repository, and
     checks that every test of the lab passes there, all in one boot and
     each booted on its own (so no test leans on a later lab or on another
     test's files);
  2. for each mutant, puts it into that tree, builds, boots /bin/labNN with
     a fresh key and reads the results: the mutant must fail at least one
     test (a hang or a crash counts, once the test's time limit is up).

It prints a line per check (the test that caught each mutant and the points
lost, or SURVIVED / DOES NOT BUILD) and exits 1 if any mutant survives or
does not build, or a test fails on the course tree.

Speed: worker trees (--jobs, default 2: one per core) under build/mutants/
start from the main tree's objects, so a mutant recompiles only the files
it changes; a boot stops at the first FAIL (--full runs every test, to
count all the points lost). `make test` runs each lab as a suite of its own
(tools/test.py), one worker each, in build/mutants-NN/, and only --sample:
the course tree with all tests in one boot, and the few mutants listed in
lab/NN-name/mutants/SAMPLE (the mistakes issue 10 found scoring full marks);
`make mutants` runs everything."""
import argparse
import concurrent.futures
import os
import re
import secrets
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import handout  # noqa: E402  (REGION and stub_region: the course tree's stubs)
import qemu  # noqa: E402

ROOT = qemu.ROOT
WORK = os.path.join(qemu.BUILD, "mutants")
DEFAULT_LIMIT = 20                  # seconds a test may take (points' third field)
BOOT_SLACK = 15                     # seconds for the boot itself, before the first START
BUILD_OUTPUTS = ["boot", "kernel", "u", "user", "root", "libc.a", "initrd.tar", "orthos.elf",
                 "orthos.pass1.elf", "ksyms0.c", "ksyms0.o", "ksyms0.d", "ksyms1.c",
                 "ksyms1.o", "ksyms1.d"]


# ---------------------------------------------------------------- labs
class Lab:
    def __init__(self, folder):
        self.folder = folder                        # "lab/03-split-mount"
        self.num = os.path.basename(folder)[:2]
        self.prog = "lab" + self.num
        self.points, self.limits, self.order = {}, {}, []
        for line in open(os.path.join(ROOT, folder, "points")):
            parts = line.split()
            if len(parts) >= 2:
                self.order.append(parts[0])
                self.points[parts[0]] = int(parts[1])
                self.limits[parts[0]] = int(parts[2]) if len(parts) > 2 else DEFAULT_LIMIT
        mdir = os.path.join(ROOT, folder, "mutants")
        self.mutants = sorted(f[:-len(".mutant")] for f in os.listdir(mdir)
                              if f.endswith(".mutant")) if os.path.isdir(mdir) else []
        sample = os.path.join(mdir, "SAMPLE")  # the few `make test` runs: "# ..." lines, names
        self.sample = [w for w in open(sample).read().split("\n") if w and w[0] != "#"] \
            if os.path.exists(sample) else self.mutants


def all_labs():
    return [Lab("lab/" + d) for d in sorted(os.listdir(os.path.join(ROOT, "lab")))
            if re.fullmatch(r"\d\d-.*", d) and os.path.isdir(os.path.join(ROOT, "lab", d))]


def region_files():
    """Every tracked C file holding a LAB region, with its text."""
    files = {}
    for rel in handout.tracked_files():
        if rel.endswith((".c", ".h")) and not rel.startswith("lab/"):
            text = open(os.path.join(ROOT, rel)).read()
            if handout.REGION.search(text):
                files[rel] = text
    return files


def parse_mutant(path):
    """(description, [(file, index, body)]) from a .mutant file."""
    lines = open(path).read().split("\n")
    if not lines or not lines[0].startswith("# "):
        raise ValueError("%s: the first line must be '# what the student got wrong'" % path)
    desc, sections, cur = lines[0][2:].strip(), [], None
    for line in lines[1:]:
        m = re.match(r"^@@ (\S+)(?: #(\d+))?\s*$", line)
        if m:
            cur = [m.group(1), int(m.group(2) or 1), []]
            sections.append(cur)
        elif cur is not None:
            cur[2].append(line)
        elif line.strip() and not line.startswith("#"):
            raise ValueError("%s: text before the first @@ section" % path)
    if not sections:
        raise ValueError("%s: no @@ section" % path)
    return desc, [(f, i, "\n".join(body).rstrip("\n") + "\n") for f, i, body in sections]


def replace_body(text, lab, index, body, where):
    """text with the index-th region of lab (1-based) holding body."""
    found = [m for m in handout.REGION.finditer(text) if m.group(2) == lab]
    if index > len(found):
        raise ValueError("%s has no region #%d of LAB %s" % (where, index, lab))
    m = found[index - 1]
    return text[:m.start(4)] + body + text[m.end(4):]


def course_text(rel, text, lab, labs):
    """A file as on lab's course branch: every later lab's regions stubbed."""
    for later in labs:
        if later.num > lab.num:
            text, _ = handout.stub_region(text, later.num, rel, later.folder)
    return text


def tree_for(lab, labs, originals, mutant=None):
    """{file: text} for the region files of lab's course tree (+ mutant)."""
    texts = dict(originals)
    if mutant:
        for rel, index, body in mutant[1]:
            if rel not in texts:
                raise ValueError("%s holds no LAB region" % rel)
            texts[rel] = replace_body(texts[rel], lab.num, index, body, rel)
    return {rel: course_text(rel, t, lab, labs) for rel, t in texts.items()}


# ---------------------------------------------------------------- worker trees
class Worker:
    """A copy of the tree with its own build/, reused between runs."""

    def __init__(self, work, n):
        self.dir = os.path.join(work, "w%d" % n)
        self.current = {}                           # region file -> text now on disk

    def prepare(self):
        build = os.path.join(self.dir, "build")
        fresh = not os.path.isdir(build)
        tracked = set(handout.tracked_files())
        for rel in tracked:
            src, dst = os.path.join(ROOT, rel), os.path.join(self.dir, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if fresh:
                shutil.copy2(src, dst)              # same mtimes: the copied objects are fresh
            elif not os.path.exists(dst) or open(src, "rb").read() != open(dst, "rb").read():
                shutil.copyfile(src, dst)           # a new mtime: make rebuilds what uses it
        for dirpath, dirnames, filenames in os.walk(self.dir):
            dirnames[:] = [d for d in dirnames if d != "build"]
            for f in filenames:
                rel = os.path.relpath(os.path.join(dirpath, f), self.dir)
                if rel not in tracked:
                    os.unlink(os.path.join(dirpath, f))
        if fresh:
            os.makedirs(build)
            for name in BUILD_OUTPUTS:
                src = os.path.join(qemu.BUILD, name)
                if os.path.isdir(src):
                    shutil.copytree(src, os.path.join(build, name), symlinks=True)
                elif os.path.exists(src):
                    shutil.copy2(src, os.path.join(build, name))
        self.current = {}

    def write(self, texts):
        """Put these region files in place, touching only those that change."""
        for rel, text in texts.items():
            path = os.path.join(self.dir, rel)
            if self.current.get(rel) is None:
                self.current[rel] = open(path).read()
            if self.current[rel] != text:
                with open(path, "w") as f:
                    f.write(text)
                self.current[rel] = text

    def build(self):
        p = subprocess.run(["make", "-C", self.dir, "-s", "all"], capture_output=True, text=True)
        lines = [l for l in (p.stdout + p.stderr).splitlines() if not l.startswith("  ")]
        return p.returncode == 0, "\n".join(lines[-12:])


# ---------------------------------------------------------------- one boot
LINE = r"^%s (START|PASS|FAIL|DONE) (\S+?)(?::[ \t]*(.*))?\n"  # whole lines only


def boot_lab(build, lab, tests=(), stop_at_fail=True):
    """Boot lab's program (only `tests`, or all) and read its keyed result
    lines. Returns ({test: (ok, detail)}, note): a test that STARTed and
    then outlived its time limit, or whose boot ended (a crash, a panic)
    before it reported, counts as failed. Kept in one function so that it
    can be swapped for the grader's own boot-and-parse code."""
    key = secrets.token_hex(8)
    cmd = "panic=exit run=/bin/%s --key %s %s" % (lab.prog, key, " ".join(tests))
    line = re.compile(LINE % key, re.M)
    results, current, note = {}, None, ""
    with qemu.Session(qemu.kernel_args(cmd.strip(), build=build), timeout=600) as s:
        while True:
            limit = lab.limits.get(current, DEFAULT_LIMIT) if current else BOOT_SLACK
            m = s.expect(line.pattern, timeout=limit)
            if m is None:
                if current:
                    gone = s.proc.poll() is not None
                    results[current] = (False, "the boot ended before it reported" if gone
                                        else "no result within %d s" % limit)
                    if "panic:" in s.output:
                        note = "kernel panic"
                else:
                    note = "no test started"
                break
            what, name, detail = m.group(1), m.group(2), m.group(3) or ""
            if what == "START":
                current = name
            elif what in ("PASS", "FAIL"):
                results[name] = (what == "PASS", detail)
                current = None
                if what == "FAIL" and stop_at_fail:
                    break
            else:
                break
    return results, note


# ---------------------------------------------------------------- the runs
def lost_points(lab, results):
    """(points lost, the first failing test) from a run's results. With no
    FAIL at all, a test that never reported (the machine died before it)
    is lost too; after a FAIL the boot was stopped on purpose."""
    failed = [t for t in lab.order if t in results and not results[t][0]]
    if not failed:
        failed = [t for t in lab.order if t not in results]
    return sum(lab.points[t] for t in failed), (failed[0] if failed else None)


def run_reference(worker, lab, labs, originals, alone=True):
    """Every test of lab passes on its course tree, all together and (if
    alone) each booted on its own."""
    rows = []
    worker.write(tree_for(lab, labs, originals))
    ok, log = worker.build()
    if not ok:
        return [(lab, "(course tree)", False, "does not build:\n" + log)]
    build = os.path.join(worker.dir, "build")
    results, note = boot_lab(build, lab, stop_at_fail=False)
    bad = [t for t in lab.order if not results.get(t, (False,))[0]]
    rows.append((lab, "(course tree: all tests)", not bad,
                 "" if not bad else "failing: " + "; ".join(
                     "%s: %s" % (t, results.get(t, (False, "no result " + note))[1])
                     for t in bad)))
    for t in lab.order if alone else []:
        results, note = boot_lab(build, lab, [t], stop_at_fail=False)
        ok = results.get(t, (False,))[0]
        rows.append((lab, "(course tree: %s alone)" % t, ok,
                     "" if ok else results.get(t, (False, "no result " + note))[1]))
    return rows


def run_mutant(worker, lab, labs, originals, name, full):
    path = os.path.join(ROOT, lab.folder, "mutants", name + ".mutant")
    try:
        mutant = parse_mutant(path)
        worker.write(tree_for(lab, labs, originals, mutant))
    except (OSError, ValueError) as e:
        return (lab, name, False, "bad mutant: %s" % e)
    ok, log = worker.build()
    if not ok:
        return (lab, name, False, "DOES NOT BUILD\n" + log)
    results, note = boot_lab(os.path.join(worker.dir, "build"), lab, stop_at_fail=not full)
    lost, first = lost_points(lab, results)
    if not lost:
        return (lab, name, False, "SURVIVED (%s)" % (note or "every test passed"))
    why = results[first][1] if first in results else "no result (%s)" % (note or "boot ended")
    return (lab, name, True, "caught by %s, -%d%s: %s" % (
        first, lost, "" if full else "+", why[:110]))


def show(row):
    lab, name, ok, detail = row
    print("%-4s %s  %-48s %s" % ("ok" if ok else "BAD", lab.num, name,
                                 detail.replace("\n", "\n      ")))
    sys.stdout.flush()


def run(chosen, jobs=2, workdir=WORK, full=False, reference=True, alone=True, sample=False,
        report=show):
    """Check the labs in chosen; every row (lab, name, ok, detail), each
    passed to report as it comes. Rows named "(...)" are course-tree checks,
    the others mutants (ok: caught). sample: only each lab's mutants/SAMPLE;
    alone: boot each test on its own on the course tree too."""
    labs, originals = all_labs(), region_files()
    queue = []
    for lab in chosen:
        if reference:
            queue.append((lab, None))
        queue += [(lab, name) for name in (lab.sample if sample else lab.mutants)]
    workers = [Worker(workdir, i) for i in range(max(1, jobs))]
    os.makedirs(workdir, exist_ok=True)
    for w in workers:
        w.prepare()
    lock, rows = threading.Lock(), []

    def work(w):
        while True:
            with lock:
                if not queue:
                    return
                lab, name = queue.pop(0)
            got = (run_reference(w, lab, labs, originals, alone) if name is None else
                   [run_mutant(w, lab, labs, originals, name, full)])
            with lock:
                for row in got:
                    rows.append(row)
                    if report:
                        report(row)

    with concurrent.futures.ThreadPoolExecutor(len(workers)) as pool:
        for f in [pool.submit(work, w) for w in workers]:
            f.result()
    return rows


def main():
    ap = argparse.ArgumentParser(description="prove every lab's tests catch its mutants")
    ap.add_argument("labs", nargs="*", help="lab numbers (default: every lab with mutants)")
    ap.add_argument("--full", action="store_true", help="run every test, count all points lost")
    ap.add_argument("--sample", action="store_true", help="only the mutants in mutants/SAMPLE, "
                    "and no test booted alone (what make test runs)")
    ap.add_argument("--no-reference", action="store_true", help="skip the course-tree check")
    ap.add_argument("--jobs", type=int, default=2, help="worker trees (and QEMUs) at once")
    ap.add_argument("--workdir", default=WORK, help="where the worker trees live (default "
                    "build/mutants; two runs at once need two)")
    ap.add_argument("--list", action="store_true", help="list the mutants and stop")
    args = ap.parse_args()
    labs = all_labs()
    known = [lab.num for lab in labs]
    for n in args.labs:
        if n not in known:
            sys.exit("mutants: no lab %s (labs: %s)" % (n, " ".join(known)))
    chosen = [lab for lab in labs if (lab.num in args.labs if args.labs else lab.mutants)]
    if args.list:
        for lab in chosen:
            for name in lab.mutants:
                print("%s %-50s %s" % (lab.num, name, parse_mutant(os.path.join(
                    ROOT, lab.folder, "mutants", name + ".mutant"))[0]))
        return 0
    start = time.monotonic()
    rows = run(chosen, args.jobs, args.workdir, args.full, not args.no_reference,
               alone=not args.sample, sample=args.sample)
    bad = [r for r in rows if not r[2]]
    counts = {}
    for lab, name, ok, _ in rows:
        if not name.startswith("("):
            c = counts.setdefault(lab.num, [0, 0])
            c[0] += 1
            c[1] += ok
    print("mutants: %s; %d problem(s); %.0fs" % (
        ", ".join("lab %s %d/%d caught" % (n, c[1], c[0]) for n, c in sorted(counts.items())),
        len(bad), time.monotonic() - start))
    return 1 if bad or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
