#!/usr/bin/env python3
"""tools/mutants.py - prove that every lab's tests catch wrong solutions.

    tools/mutants.py [NN ...] [--sample] [--full] [--jobs N] [--workdir DIR] [--only PAT] [--list]

Each lab keeps a catalogue of plausible wrong solutions in
lab/NN-name/mutants/MISTAKE.mutant: a first line "# what the student got
wrong", then sections "@@ path/to/file.c" (the file's first LAB NN region)
or "@@ path/to/file.c #2" (its second), each followed by the text that
replaces that region's body. Regions not named keep the reference solution.
For every lab asked for (default: all that have mutants) this tool

  1. writes the lab's course tree (handout.pristine_tree: the regions of
     every later lab stubbed and the lab folders up to its own, as on the
     lab's branch of the course repository) and checks that every test of
     the lab passes there, all in one boot and each booted on its own (so
     no test leans on a later lab or on another test's files);
  2. for each mutant, puts it into that tree, builds, and runs the lab's
     program as the grader does (grade.run_program: signed results,
     each test's time limit, a hang or a panic fails the test): the mutant
     must fail at least one test.

  3. for each correct solution that is not the reference
     (lab/NN-name/mutants/NAME.solution, in the same format: another
     structure, another order of independent checks, another errno the man
     page allows), puts it in the same way and runs every test: it must
     score full marks, or the tests ask for more than the handout and the
     man pages say (a test over-specified).

It prints a line per check (the test that caught each mutant and the points
lost, or SURVIVED / DOES NOT BUILD; "full marks" or the tests a correct
solution failed) and exits 1 if any mutant survives or does not build, a
correct solution loses a point, or a test fails on the course tree.

Speed: worker trees (--jobs, default 2: one per core) under build/mutants/
start from the main tree's objects (grade.seed_build), so a mutant
recompiles only the files it changes; a run stops at the first failing
test (--full runs every test, to count all the points lost). `make test`
runs each lab as a suite of its own (tools/test.py), one worker each, in
build/mutants-NN/, and only --sample --no-reference: the few mutants
listed in lab/NN-name/mutants/SAMPLE (a lab without a SAMPLE runs them
all) and every correct solution, the course tree's full marks being the
course suite's check there;
`make mutants` runs everything."""
import argparse
import concurrent.futures
import fnmatch
import os
import re
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grade  # noqa: E402
import handout  # noqa: E402

ROOT = handout.ROOT
WORK = os.path.join(ROOT, "build", "mutants")


# ---------------------------------------------------------------- catalogues
def mutant_names(lab):
    """Every mutant of lab (a handout.Lab), by name."""
    folder = os.path.join(lab.path, "mutants")
    return sorted(f[:-len(".mutant")] for f in os.listdir(folder)
                  if f.endswith(".mutant")) if os.path.isdir(folder) else []


def solution_names(lab):
    """Every correct solution of lab other than the reference, by name (they
    live beside the mutants, so they are instructor-only like them)."""
    folder = os.path.join(lab.path, "mutants")
    return sorted(f[:-len(".solution")] for f in os.listdir(folder)
                  if f.endswith(".solution")) if os.path.isdir(folder) else []


def sample_names(lab):
    """The mutants `make test` runs: the names in mutants/SAMPLE ("#"
    lines are comments), or every mutant if the lab has no SAMPLE."""
    path = os.path.join(lab.path, "mutants", "SAMPLE")
    if not os.path.exists(path):
        return mutant_names(lab)
    return [w.strip() for w in handout.read_text(path).split("\n")
            if w.strip() and not w.startswith("#")]


def parse_mutant(path):
    """(description, [(file, index, body)]) from a .mutant file."""
    lines = handout.read_text(path).split("\n")
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


def with_mutant(files, lab, mutant):
    """files ({path: (bytes, mode)}, a course tree) with the mutant's
    bodies in lab's regions."""
    files = dict(files)
    for rel, index, body in mutant[1]:
        if rel not in files:
            raise ValueError("no file %s in the course tree" % rel)
        data, mode = files[rel]
        text, count = handout.edit_regions(data.decode(), lab.num, lambda m: body, index)
        if index > count:
            raise ValueError("%s has no region #%d of LAB %s" % (rel, index, lab.num))
        files[rel] = (text.encode(), mode)
    return files


# ---------------------------------------------------------------- one tree
def build(tree, files):
    """Make tree hold files (only those that changed are written, so its
    build/ stays valid; a new tree starts from this tree's objects) and
    build it: None, or the end of make's output if it does not build."""
    os.makedirs(tree, exist_ok=True)
    handout.write_tree(files, tree)
    grade.seed_build(ROOT, tree)            # does nothing once tree has a build/
    ok, out = grade.make(tree, jobs=1)
    return None if ok else grade.tail(out, 12)


def run_tests(tree, lab, names=None, stop_at_failure=False):
    """Run lab's tests `names` (default: all) in tree as the grader does:
    {test: grade.Outcome}, a failed Outcome for every test without a result
    (unless stop_at_failure ended the run at the first failure)."""
    tests = lab.points()
    names = names or [t[0] for t in tests]
    results, _ = grade.run_program(os.path.join(tree, "build"), lab.prog, names,
                                   {t[0]: t[2] for t in tests},
                                   grade.test_table(os.path.join(tree, lab.folder, "test.c")),
                                   stop_at_failure=stop_at_failure)
    if not stop_at_failure:
        for n in names:
            results.setdefault(n, grade.Outcome(False, "no result"))
    return results


def check_reference(tree, lab, base, alone=True):
    """Every test of lab passes on its course tree, all in one boot and
    (if alone) each booted on its own: rows (lab, name, ok, detail)."""
    log = build(tree, base)
    if log is not None:
        return [(lab, "(course tree)", False, "does not build:\n" + log)]
    results = run_tests(tree, lab)
    bad = [t for t in results if not results[t].ok]
    rows = [(lab, "(course tree: all tests)", not bad,
             "; ".join("%s: %s" % (t, results[t].reason) for t in bad))]
    for t in list(results) if alone else []:
        o = run_tests(tree, lab, [t])[t]
        rows.append((lab, "(course tree: %s alone)" % t, o.ok, o.reason))
    return rows


def put_in(tree, lab, base, name, ext):
    """Build the course tree with mutants/name.ext in lab's regions: None,
    or the reason it could not be built."""
    try:
        files = with_mutant(base, lab, parse_mutant(
            os.path.join(lab.path, "mutants", name + ext)))
    except (OSError, ValueError) as e:
        return "bad %s: %s" % (ext[1:], e)
    log = build(tree, files)
    return None if log is None else "DOES NOT BUILD\n" + log


CORRECT = "correct: "                   # how a correct solution's row is named


def check_solution(tree, lab, base, name):
    """One correct solution must pass every test of lab: a row (lab,
    CORRECT + name, full marks, detail)."""
    row = CORRECT + name
    bad = put_in(tree, lab, base, name, ".solution")
    if bad:
        return (lab, row, False, bad)
    results = run_tests(tree, lab)
    points = {t[0]: t[1] for t in lab.points()}
    failed = [t for t in points if not results[t].ok]
    if failed:
        return (lab, row, False, "LOST %d POINTS (the tests ask for more than the handout): %s"
                % (sum(points[t] for t in failed),
                   "; ".join("%s: %s" % (t, results[t].reason.replace("\n", " ")[:110])
                             for t in failed)))
    return (lab, row, True, "full marks")


def check_mutant(tree, lab, base, name, full):
    """One mutant must fail a test of lab: a row (lab, name, caught, detail)."""
    bad = put_in(tree, lab, base, name, ".mutant")
    if bad:
        return (lab, name, False, bad)
    results = run_tests(tree, lab, stop_at_failure=not full)
    points = {t[0]: t[1] for t in lab.points()}
    failed = [t for t in points if t in results and not results[t].ok]
    if not failed:
        return (lab, name, False, "SURVIVED (every test passed)")
    return (lab, name, True, "caught by %s, -%d%s: %s" % (
        failed[0], sum(points[t] for t in failed), "" if full else "+",
        results[failed[0]].reason.replace("\n", " ")[:110]))


# ---------------------------------------------------------------- the runs
def show(row):
    lab, name, ok, detail = row
    print("%-4s %s  %-48s %s" % ("ok" if ok else "BAD", lab.num, name,
                                 detail.replace("\n", "\n      ")))
    sys.stdout.flush()


def run(chosen, jobs=2, workdir=WORK, full=False, reference=True, alone=True, sample=False,
        report=show, only=None):
    """Check the labs in chosen (handout.Lab); every row (lab, name, ok,
    detail), each passed to report as it comes. Rows named "(...)" are
    course-tree checks, CORRECT + name correct solutions (ok: full
    marks), the others mutants (ok: caught). sample: only each lab's
    mutants/SAMPLE (and every correct solution); alone: boot each test on
    its own on the course tree too; reference False: no course-tree check;
    only: the mutants and correct solutions whose names match one of these
    fnmatch patterns."""
    queue, bases = [], {}
    for lab in chosen:
        bases[lab.num] = handout.pristine_tree(lab)
        if reference:
            queue.append((lab, None, None))
        wanted = (lambda name: not only or any(fnmatch.fnmatch(name, p) for p in only))
        queue += [(lab, ".mutant", name) for name in
                  (sample_names(lab) if sample else mutant_names(lab)) if wanted(name)]
        queue += [(lab, ".solution", name) for name in solution_names(lab) if wanted(name)]
    lock, rows = threading.Lock(), []

    def work(tree):
        while True:
            with lock:
                if not queue:
                    return
                lab, kind, name = queue.pop(0)
            got = (check_reference(tree, lab, bases[lab.num], alone) if kind is None else
                   [check_mutant(tree, lab, bases[lab.num], name, full)] if kind == ".mutant"
                   else [check_solution(tree, lab, bases[lab.num], name)])
            with lock:
                for row in got:
                    rows.append(row)
                    if report:
                        report(row)

    trees = [os.path.join(workdir, "w%d" % i) for i in range(max(1, jobs))]
    with concurrent.futures.ThreadPoolExecutor(len(trees)) as pool:
        for f in [pool.submit(work, t) for t in trees]:
            f.result()
    return rows


def main():
    ap = argparse.ArgumentParser(description="prove every lab's tests catch its mutants")
    ap.add_argument("labs", nargs="*", help="lab numbers (default: every lab with mutants)")
    ap.add_argument("--full", action="store_true", help="run every test, count all points lost")
    ap.add_argument("--sample", action="store_true", help="only the mutants in mutants/SAMPLE, "
                    "and no test booted alone")
    ap.add_argument("--no-reference", action="store_true", help="skip the course-tree check")
    ap.add_argument("--jobs", type=int, default=2, help="worker trees (and QEMUs) at once")
    ap.add_argument("--workdir", default=WORK, help="where the worker trees live (default "
                    "build/mutants; two runs at once need two)")
    ap.add_argument("--only", action="append", metavar="PATTERN", help="only the mutants whose "
                    "names match PATTERN (fnmatch; may be repeated), e.g. while writing one")
    ap.add_argument("--list", action="store_true", help="list the mutants and stop")
    args = ap.parse_args()
    labs = handout.labs()
    chosen = []
    for n in args.labs:
        lab = handout.find_lab(n)
        if not lab:
            sys.exit("mutants: no lab %s (labs: %s)" % (n, " ".join(x.num for x in labs)))
        chosen.append(lab)
    chosen = chosen or [lab for lab in labs if mutant_names(lab) or solution_names(lab)]
    if args.list:
        for lab in chosen:
            for name in mutant_names(lab):
                print("%s %-50s %s" % (lab.num, name, parse_mutant(os.path.join(
                    lab.path, "mutants", name + ".mutant"))[0]))
            for name in solution_names(lab):
                print("%s %-50s %s" % (lab.num, CORRECT + name, parse_mutant(os.path.join(
                    lab.path, "mutants", name + ".solution"))[0]))
        return 0
    start = time.monotonic()
    rows = run(chosen, args.jobs, args.workdir, args.full, not args.no_reference,
               alone=not args.sample, sample=args.sample, only=args.only)
    bad = [r for r in rows if not r[2]]
    counts = {}                         # lab: [mutants, caught, correct ones, full marks]
    for lab, name, ok, _ in rows:
        if not name.startswith("("):
            c = counts.setdefault(lab.num, [0, 0, 0, 0])
            at = 2 if name.startswith(CORRECT) else 0
            c[at] += 1
            c[at + 1] += ok
    print("mutants: %s; %d problem(s); %.0fs" % (
        ", ".join("lab %s %d/%d caught" % (n, c[1], c[0]) +
                  (", %d/%d correct full" % (c[3], c[2]) if c[2] else "")
                  for n, c in sorted(counts.items())),
        len(bad), time.monotonic() - start))
    return 1 if bad or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
