#!/usr/bin/env python3
"""tools/kmutants.py - prove that make test's guest suites catch wrong kernels.

    tools/kmutants.py [--sample] [--only PAT] [--list] [--suites "S ..."]

tools/kmutants.txt is a catalogue of plausible mistakes in the kernel's
checks: who may do what (kernel/fs/perm.c, the credentials, the call sites
that ask them), what a system call takes from user memory, its arguments'
validation (sysfile.c, namei.c, file.c), the namespace, exec, pipes and
ext2's checks of what it reads from disk. Each entry replaces a piece of
text that occurs once in one file. For every entry this tool puts the
mistake into a copy of the tree (build/kmutants/tree, started from this
tree's objects, so a mutant recompiles one file and relinks the kernel),
boots the guest suites (SUITES below: the ones about authority, memory and
files; about 7 s; an entry may name its own with a "suites: S ..." line
after its description, as ext2's do) and wants at least one test to fail. A test
that ends its process before it reports counts as failed: tools/test.py
knows every test a guest program declares (declared_tests).

It prints a line per mutant (CAUGHT by which test, SURVIVED, BAD PATTERN,
DOES NOT BUILD) and exits 1 unless every mutant was caught. `make
kmutants` runs them all (a few minutes); `make test` runs the entries
named in SAMPLE, below, as one suite (tools/test.py kmutants_suite), with
only the suites that catch them and without the run on the kernel as it
is (make test runs those suites itself). The
labs' own catalogues are tools/mutants.py's."""
import argparse
import collections
import fnmatch
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grade  # noqa: E402
import handout  # noqa: E402

ROOT = handout.ROOT
CATALOGUE = os.path.join(ROOT, "tools", "kmutants.txt")
TREE = os.path.join(ROOT, "build", "kmutants", "tree")
CATCHERS = os.path.join(ROOT, "build", "kmutants", "catchers")
SUITES = ["t_auth", "t_attack", "t_attach", "t_fs", "t_union", "t_srv", "t_proc", "t_robust",
          "t_bounds", "usertests", "t_errno", "shell/authority", "shell/login"]
# make test's few: from five of the files the catalogue touches (perm.c,
# namei.c, sysproc.c, vm.c, sysfile.c), each caught by t_auth or t_fs.
SAMPLE = ["group_by_uid", "walk_search_is_read", "setpgid_any_proc", "user_range_no_write_bit",
          "path_max_off_by_one"]


# One entry of the catalogue; suites is None unless it has a "suites:"
# line (right after its description).
Mutant = collections.namedtuple("Mutant", "name file desc old new suites")


def parse(path=CATALOGUE):
    """[Mutant] from the catalogue."""
    entries, cur = [], None
    with open(path) as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        if line.startswith("== "):
            words = line[3:].split()
            if len(words) != 2:
                raise ValueError("%s:%d: want '== NAME FILE'" % (path, n))
            cur = {"name": words[0], "file": words[1], "desc": None, "-": [], "+": [],
                   "suites": None}
            entries.append(cur)
        elif cur is None or line.startswith("#"):
            continue
        elif cur["desc"] is None:
            cur["desc"] = line
        elif line.startswith("suites:") and not cur["-"] and cur["suites"] is None:
            cur["suites"] = line[len("suites:"):].split()
        elif line[:1] in ("-", "+") and line[1:2] in ("", " "):
            cur[line[0]].append(line[2:])
        elif line.strip():
            raise ValueError("%s:%d: want a '- ' or '+ ' line" % (path, n))
    return [Mutant(e["name"], e["file"], e["desc"] or "", "\n".join(e["-"]), "\n".join(e["+"]),
                   e["suites"]) for e in entries]


def prepare(tree=TREE):
    """Make tree this tree's files (only the changed ones written, so its
    build/ stays valid; a new tree starts from this tree's objects) and
    build it: None, or the end of make's output."""
    files = {}
    for rel in handout.tracked_files():
        path = os.path.join(ROOT, rel)
        with open(path, "rb") as f:
            files[rel] = (f.read(), os.stat(path).st_mode & 0o777)
    os.makedirs(tree, exist_ok=True)
    handout.write_tree(files, tree)
    grade.seed_build(ROOT, tree)
    ok, out = grade.make(tree, jobs=2)
    return None if ok else grade.tail(out, 12)


def failures(tree, suites):
    """Run suites in tree: (the FAIL lines' test names, the last line)."""
    p = subprocess.run([sys.executable, os.path.join(tree, "tools", "test.py")] + suites,
                       capture_output=True, text=True, timeout=900)
    lines = p.stdout.strip().split("\n")
    return [x.split()[1] for x in lines if x.startswith("FAIL ")], lines[-1]


def load_catchers():
    """{mutant: the suite that caught it last time}."""
    try:
        with open(CATCHERS) as f:
            return dict(line.split() for line in f if len(line.split()) == 2)
    except OSError:
        return {}


def save_catchers(catchers):
    os.makedirs(os.path.dirname(CATCHERS), exist_ok=True)
    with open(CATCHERS, "w") as f:
        f.writelines("%s %s\n" % kv for kv in sorted(catchers.items()))


def suite_of(test, suites):
    """The suite of suites that test (a "suite/name" of tools/test.py) is in."""
    return max((s for s in suites if test.startswith(s + "/")), key=len, default=None)


def unmatched(tree=ROOT):
    """The entries whose text is not in their file exactly once (their
    file changed under them): [(name, matches)]. No build, no boot."""
    bad = []
    for m in parse():
        try:
            with open(os.path.join(tree, m.file)) as f:
                n = f.read().count(m.old) if m.old else 0
        except OSError:
            n = 0
        if n != 1:
            bad.append((m.name, n))
    return bad


def check(tree, m, suites, catchers):
    """One mutant: (ok, what happened). The suite in catchers[m.name], if
    it is one of suites, runs first, alone; the others only if it passes.
    catchers[m.name] becomes the suite that caught it."""
    rel, old, new = m.file, m.old, m.new
    path = os.path.join(tree, rel)
    with open(path) as f:
        src = f.read()
    if src.count(old) != 1 or not old:
        return False, "BAD PATTERN (%d matches in %s)" % (src.count(old), rel)
    try:
        with open(path, "w") as f:
            f.write(src.replace(old, new))
        ok, out = grade.make(tree, jobs=2)
        if not ok:
            return False, "DOES NOT BUILD\n" + grade.tail(out, 6)
        first = catchers.get(m.name)
        failed = []
        if first in suites:
            failed, last = failures(tree, [first])
            suites = [s for s in suites if s != first]
        if not failed:
            failed, last = failures(tree, suites)
        if not failed:
            catchers.pop(m.name, None)
            return False, "SURVIVED (%s)" % last
        catchers[m.name] = suite_of(failed[0], [first] + suites if first else suites) or first
        return True, "caught by %s%s" % (failed[0], " +%d" % (len(failed) - 1)
                                         if len(failed) > 1 else "")
    finally:
        with open(path, "w") as f:
            f.write(src)


def main():
    ap = argparse.ArgumentParser(description="prove make test catches wrong kernels")
    ap.add_argument("--sample", action="store_true", help="only make test's few (SAMPLE)")
    ap.add_argument("--only", action="append", metavar="PATTERN",
                    help="only the mutants whose names match PATTERN (fnmatch)")
    ap.add_argument("--list", action="store_true", help="list the mutants and stop")
    ap.add_argument("--suites", help="the guest suites to run, for every mutant (default: the "
                    "entry's suites: line, else %s)" % " ".join(SUITES))
    ap.add_argument("--tree", default=TREE, help="the copy of the tree to work in")
    ap.add_argument("--no-reference", action="store_true",
                    help="skip the run of the suites on the kernel as it is")
    ap.add_argument("--fresh", action="store_true",
                    help="forget which suite caught each mutant last time: run them all")
    args = ap.parse_args()
    entries = parse()
    if args.sample:
        entries = [e for e in entries if e.name in SAMPLE]
    if args.only:
        entries = [e for e in entries if any(fnmatch.fnmatch(e.name, p) for p in args.only)]
    if args.list:
        for e in entries:
            print("%-28s %-22s %s" % (e.name, e.file, e.desc))
        return 0
    start = time.monotonic()
    log = prepare(args.tree)
    if log is not None:
        print("BAD  (tree)  does not build:\n" + log)
        return 1
    given = args.suites.split() if args.suites else None

    def suites_of(e):
        return given or e.suites or SUITES
    failed = []
    if not args.no_reference:
        # the kernel as it is, on each suite a mutant will run
        every = list(dict.fromkeys(s for e in entries for s in suites_of(e))) or given or SUITES
        failed, last = failures(args.tree, every)
        print("%-4s %-28s %s" % ("BAD" if failed else "ok", "(the kernel as it is)",
                                 "fails " + " ".join(failed[:3]) if failed else last))
    caught = 0
    catchers = {} if args.fresh else load_catchers()
    for e in entries:
        ok, what = check(args.tree, e, suites_of(e), catchers)
        save_catchers({k: v for k, v in catchers.items() if v})
        caught += ok
        print("%-4s %-28s %s" % ("ok" if ok else "BAD", e.name, what.replace("\n", "\n      ")))
        sys.stdout.flush()
    grade.make(args.tree, jobs=2)
    print("kmutants: %d/%d caught; %.0fs" % (caught, len(entries), time.monotonic() - start))
    return 0 if caught == len(entries) and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
