#!/usr/bin/env python3
"""tools/coverage.py - which kernel code the tests and the fuzzers reach
(`make coverage`; doc/coverage.md).

  tools/coverage.py [--build build-cov] [--mode tests|fuzz|all|report]
                    [--fuzz-seconds S] [--out FILE] [--keep] [SUITE...]

The kernel in --build was made with gcc's -fsanitize-coverage=trace-pc
(make coverage's sub-make, KCOV=1): each basic block calls the recorder,
kernel/lib/kcov.c, which writes the block's offset from the kernel's load
address, in hex, on COM2 the first time the block runs, and "end CODE
OUTSIDE" when the machine powers off. This script boots that kernel through
the test runner's own machinery: tools/qemu.py's kernel_args() is wrapped so
that every boot of this tree's kernel boots the coverage build instead, with
COM2 going to a file of its own (build-cov/kcov/MODE/SUITE-N.kcov). Then

  tests   the suites of tools/test.py that boot this tree's kernel (or the
          ones whose name contains a SUITE given), run as make test runs them
  fuzz    every fuzzer of tools/fuzz.py for --fuzz-seconds, a guest per core
  all     both, into one report
  report  no boots: one report of every mode's .kcov files already there

and the report (--out, build-cov/coverage-MODE.txt): per kernel file the blocks
and source lines reached, the functions never entered, and the lines never
reached. The blocks are the calls to __sanitizer_cov_trace_pc in the ELF,
their source lines those of the instructions from one call to the next,
both read with `objdump -d -l` (the ELF's DWARF line table)."""
import argparse
import collections
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemu  # noqa: E402

ROOT = qemu.ROOT
KCOV_BASE = 0xC0100000          # kernel/lib/kcov.c: offsets count from here
TRACE_FN = "__sanitizer_cov_trace_pc"
CALL_LEN = 5                    # call rel32: the return address is the call's + 5
# The suites of make test that boot something else than this tree's kernel
# (another tree's, a GRUB ISO, none at all): left out of the coverage runs.
NOT_OURS = ("mutants/", "kmutants", "toolchain/", "build/", "gdb", "format", "boot/iso",
            "labs/", "docs", "grading/", "course/", "host/", "coverage/")
# The coverage kernel is slower (-O0, and a call in every block): each
# boot of the suites gets this many times its timeout, so that a suite
# killed at its time limit under load does not lose what it would reach.
SLOW = 3
# The files whose gaps matter most: their lines never reached are listed.
IMPORTANT = ("kernel/fs/", "kernel/proc/", "kernel/mm/")


# ---------------------------------------------------------------- the ELF
def tool(name):
    """binutils' NAME for i386: the cross one if there is one, else the host's."""
    for cand in ("i686-linux-gnu-" + name, "i686-elf-" + name, name):
        if shutil.which(cand):
            return cand
    raise SystemExit("coverage: no %s (binutils) on PATH" % name)


CALL_RE = re.compile(r"^\s*([0-9a-f]+):\s.*\bcall\s+[0-9a-f]+ <%s>" % TRACE_FN)
INSN_RE = re.compile(r"^\s*[0-9a-f]+:\s")
FUNC_RE = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
LINE_RE = re.compile(r"^(/.*|\S+\.[chS]):(\d+)(?: \(discriminator \d+\))?$")


class Block:
    """One instrumented block: its function, the source line of its call to
    the recorder, and every source line of the instructions from that call
    to the next block's (the code before a function's first call goes with
    its first block): a line is reached when any block holding it is."""

    def __init__(self, func, where):
        self.func, self.where, self.lines = func, where, {where}


def relpath(path):
    path = os.path.normpath(path)
    return os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path


def parse_objdump(text):
    """The instrumented blocks in the text of `objdump -d -l` (the DWARF line
    table beside each instruction): {return address of the call: Block}."""
    blocks, func, where, cur, before = {}, None, ("?", 0), None, set()
    for line in text.splitlines():
        m = FUNC_RE.match(line)
        if m:
            func, cur, before = m.group(1), None, set()
            continue
        m = LINE_RE.match(line)
        if m:
            where = (relpath(m.group(1)), int(m.group(2)))
            continue
        m = CALL_RE.match(line)
        if m and func:
            cur = blocks[int(m.group(1), 16) + CALL_LEN] = Block(func, where)
            cur.lines |= before
            before = set()
        elif INSN_RE.match(line) and func:
            (cur.lines if cur else before).add(where)
    return blocks


# ---------------------------------------------------------------- the logs
def parse_log(text):
    """One boot's COM2: (set of offsets reached, ended) - ended is "end CODE
    OUTSIDE"'s (code, outside) if the boot powered off, else None. A last
    line cut off by a kill is dropped."""
    hits, ended = set(), None
    lines = text.split("\n")
    for line in lines[:-1]:                 # the part after the last \n is unfinished
        if line.startswith("end "):
            f = line.split()
            if len(f) == 3:
                ended = (int(f[1], 16), int(f[2], 16))
        elif re.fullmatch(r"[0-9a-f]{1,8}", line):
            hits.add(int(line, 16))
    return hits, ended


# ---------------------------------------------------------------- the report
def ranges(nums):
    """[3, 4, 5, 9] -> "3-5 9"."""
    out, nums = [], sorted(nums)
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append("%d" % nums[i] if i == j else "%d-%d" % (nums[i], nums[j]))
        i = j + 1
    return " ".join(out)


def analyse(blocks, hit_addrs):
    """Per file: its blocks as [all, reached], its lines as {line: reached},
    its functions as {name: [blocks, reached]}. A block's file is the line
    of its call's (an inline function's blocks count for its header); a
    function's file is where most of its blocks are, headers last."""
    files = collections.defaultdict(lambda: {"blocks": [0, 0], "lines": {}, "funcs": {}})
    funcs = collections.defaultdict(lambda: [0, 0, collections.Counter()])
    for addr, blk in blocks.items():
        reached = addr in hit_addrs
        f = files[blk.where[0]]
        f["blocks"][0] += 1
        f["blocks"][1] += reached
        for path, line in blk.lines:
            lines = files[path]["lines"]
            lines[line] = lines.get(line, False) or reached
        fn = funcs[blk.func]
        fn[0] += 1
        fn[1] += reached
        fn[2][blk.where[0]] += 1
    for func, (n, hit, paths) in funcs.items():
        home = max(paths, key=lambda p: (not p.endswith(".h"), paths[p]))
        files[home]["funcs"][func] = [n, hit]
    return files


def pct(a, b):
    return 100.0 * b / a if a else 0.0


def report(blocks, hit_addrs, boots, title):
    """The report's text."""
    files = analyse(blocks, hit_addrs)
    ours = sorted(p for p in files if p.startswith("kernel/"))
    out = [title, "",
           "%d boots (%d ran to power-off), %d of %d instrumented blocks reached (%.1f %%)" % (
               boots[0], boots[1], len(hit_addrs & set(blocks)), len(blocks),
               pct(len(blocks), len(hit_addrs & set(blocks)))), "",
           "%-28s %15s %15s %10s" % ("file", "blocks", "lines", "functions"),
           "%-28s %15s %15s %10s" % ("", "reached", "reached", "never in")]
    tot = [0, 0, 0, 0]
    for p in ours:
        f = files[p]
        b, lines = f["blocks"], f["lines"]
        nl, hl = len(lines), sum(lines.values())
        never = sum(1 for n, h in f["funcs"].values() if not h)
        out.append("%-28s %6d/%-5d%3.0f%% %6d/%-5d%3.0f%% %10d" % (
            p, b[1], b[0], pct(b[0], b[1]), hl, nl, pct(nl, hl), never))
        tot = [tot[0] + b[0], tot[1] + b[1], tot[2] + nl, tot[3] + hl]
    out.append("%-28s %6d/%-5d%3.0f%% %6d/%-5d%3.0f%%" % (
        "total", tot[1], tot[0], pct(tot[0], tot[1]), tot[3], tot[2], pct(tot[2], tot[3])))
    out += ["", "Functions never entered (their blocks in the file):"]
    for p in ours:
        never = sorted(n for n, (a, h) in files[p]["funcs"].items() if not h)
        if never:
            out.append("  %s: %s" % (p, ", ".join(never)))
    out += ["", "Lines never reached, in %s:" % ", ".join(IMPORTANT)]
    for p in ours:
        if p.startswith(IMPORTANT):
            missed = [n for n, h in files[p]["lines"].items() if not h]
            if missed:
                out.append("  %s: %s" % (p, ranges(missed)))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- self-check
SAMPLE_OBJDUMP = """
c0101000 <f>:
f():
/r/kernel/a.c:10
c0101000:\tpush   %ebp
c0101001:\tcall   c0102000 <__sanitizer_cov_trace_pc>
/r/kernel/a.c:11
c0101006:\tje     c010100d <f+0xd>
c0101008:\tcall   c0102000 <__sanitizer_cov_trace_pc>
g():
/r/kernel/a.h:3 (discriminator 1)
c010100d:\tmov    $0xffffffea,%eax
c0101012:\tret

c0101020 <h>:
h():
/r/kernel/b.c:5
c0101020:\tcall   c0102000 <__sanitizer_cov_trace_pc>
c0101025:\tret
"""


def self_check():
    """The parsers and the report on a made-up ELF and boot (make test runs
    this: tools/test.py's coverage/parser): a list of what is wrong."""
    bad = []
    blocks = parse_objdump(SAMPLE_OBJDUMP)
    if sorted(blocks) != [0xC0101006, 0xC010100D, 0xC0101025]:
        bad.append("blocks at %s" % [hex(a) for a in sorted(blocks)])
        return bad
    b = blocks[0xC010100D]
    if (b.func, b.where, sorted(b.lines)) != ("f", ("/r/kernel/a.c", 11),
                                              [("/r/kernel/a.c", 11), ("/r/kernel/a.h", 3)]):
        bad.append("second block: %s %s %s" % (b.func, b.where, sorted(b.lines)))
    if blocks[0xC0101006].lines != {("/r/kernel/a.c", 10), ("/r/kernel/a.c", 11)}:
        bad.append("first block's lines: %s" % sorted(blocks[0xC0101006].lines))
    hits, ended = parse_log("1006\nzz\nend 0 0\n2025")    # garbage and a cut line: dropped
    if (hits, ended) != ({0x1006}, (0, 0)):
        bad.append("parse_log: %s %s" % (hits, ended))
    files = analyse(blocks, {KCOV_BASE + h for h in hits})
    a = files["/r/kernel/a.c"]
    if a["blocks"] != [2, 1] or a["lines"] != {10: True, 11: True} or a["funcs"] != {"f": [2, 1]}:
        bad.append("a.c: %s" % dict(a))
    if files["/r/kernel/a.h"]["lines"] != {3: False} or \
            files["/r/kernel/b.c"]["funcs"] != {"h": [1, 0]}:
        bad.append("a.h or b.c: %s %s" % (dict(files["/r/kernel/a.h"]),
                                          dict(files["/r/kernel/b.c"])))
    if ranges([3, 4, 5, 9, 11, 12]) != "3-5 9 11-12":
        bad.append("ranges: %s" % ranges([3, 4, 5, 9, 11, 12]))
    return bad


# ---------------------------------------------------------------- the boots
class Recorder:
    """Makes every boot of this tree's kernel a boot of the coverage build,
    with COM2 in a file of its own named for the suite that booted it."""

    def __init__(self, build, logdir):
        self.build, self.logdir = build, logdir
        self.local = threading.local()
        self.count = collections.Counter()
        self.lock = threading.Lock()
        self.plain = qemu.kernel_args
        self.plain_run = qemu.run

    def kernel_args(self, cmdline, disks=None, memory="128M", build=None, firmware=None):
        if build not in (None, qemu.BUILD, self.build):     # another tree's: leave it
            return self.plain(cmdline, disks, memory, build, firmware)
        name = re.sub(r"[^\w.-]", "_", getattr(self.local, "suite", "boot"))
        with self.lock:                 # a name no earlier boot (--keep) has
            while True:
                self.count[name] += 1
                log = os.path.join(self.logdir, "%s-%d.kcov" % (name, self.count[name]))
                if not os.path.exists(log):
                    break
        return self.plain(cmdline, disks, memory, self.build, firmware) + [
            "-serial", "file:" + log]

    def run(self, args, timeout=60, **kw):
        return self.plain_run(args, timeout * SLOW, **kw)

    def install(self):
        qemu.kernel_args = self.kernel_args
        qemu.run = self.run

    def in_suite(self, name, fn):
        self.local.suite = name
        return fn()


def run_tests(rec, wanted):
    """The suites of make test that boot this tree's kernel; their results."""
    import test                                             # tools/test.py
    suites = [(n, f) for n, f in test.all_suites() if not n.startswith(NOT_OURS) and
              (not wanted or any(w in n for w in wanted))]
    print("coverage: %d suites" % len(suites))
    sys.stdout.flush()
    failed, passed = [], 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        futures = {pool.submit(rec.in_suite, n, f): n for n, f in suites}
        for fut in concurrent.futures.as_completed(futures):
            try:
                results = fut.result()
            except Exception as e:  # a runner bug: say so, keep the coverage
                results = [(futures[fut], False, "runner error: %r" % e)]
            for name, ok, _ in results:
                passed += ok is True
                if ok is False:
                    failed.append(name)
    # A test may fail here and pass in make test: the instrumented kernel
    # is slower (timing bounds) and boots this build's programs.
    print("coverage: tests %d passed, %d failed on the coverage kernel%s" % (
        passed, len(failed), "".join("\n  failed: " + n for n in failed)))


def run_fuzz(rec, seconds):
    import fuzz                                             # tools/fuzz.py
    names = fuzz.available(rec.build)
    jobs = fuzz.plan(names, seconds, None, max(1, os.cpu_count() or 1))
    print("coverage: fuzzers %s, %d s each" % (" ".join(names), seconds))
    sys.stdout.flush()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        futures = [pool.submit(rec.in_suite, "fuzz_" + n,
                               lambda n=n, s=s, t=t: fuzz.run_guest(n, s, t)) for n, s, t in jobs]
        for fut in concurrent.futures.as_completed(futures):
            print(fuzz.report(fut.result()).splitlines()[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build-cov")
    ap.add_argument("--mode", choices=["tests", "fuzz", "all", "report"], default="tests")
    ap.add_argument("--fuzz-seconds", type=int, default=30)
    ap.add_argument("--out", help="the report (default: BUILD/coverage-MODE.txt)")
    ap.add_argument("--keep", action="store_true",
                    help="add these boots to the last run's logs instead of starting anew")
    ap.add_argument("suites", nargs="*", help="only the test suites whose name contains one")
    a = ap.parse_args()
    build = os.path.join(ROOT, a.build)
    elf = os.path.join(build, "orthos.elf")
    logdir = os.path.join(build, "kcov", a.mode)
    if not os.path.exists(elf):
        raise SystemExit("coverage: no %s (make coverage builds it)" % elf)
    start = time.monotonic()
    if a.mode != "report":
        if not a.keep:
            shutil.rmtree(logdir, ignore_errors=True)
        os.makedirs(logdir, exist_ok=True)
        rec = Recorder(build, logdir)
        rec.install()
        if a.mode in ("tests", "all"):
            run_tests(rec, a.suites)
        if a.mode in ("fuzz", "all"):
            run_fuzz(rec, a.fuzz_seconds)
    hits, boots = set(), [0, 0]
    logs = os.path.join(build, "kcov", "*") if a.mode == "report" else logdir
    for path in sorted(glob.glob(os.path.join(logs, "*.kcov"))):
        with open(path, errors="replace") as f:
            h, ended = parse_log(f.read())
        hits |= h
        boots[0] += 1
        boots[1] += ended is not None
        if ended and ended[1]:
            print("coverage: %s: %d block calls outside kcov.c's map (KCOV_SPAN)" % (
                os.path.basename(path), ended[1]))
    dump = subprocess.run([tool("objdump"), "-d", "-l", "--no-show-raw-insn", elf],
                          capture_output=True, text=True, check=True).stdout
    blocks = parse_objdump(dump)
    title = "Kernel coverage (%s%s), %s" % (
        a.mode, " %d s" % a.fuzz_seconds if a.mode in ("fuzz", "all") else "",
        time.strftime("%Y-%m-%d %H:%M"))
    text = report(blocks, {KCOV_BASE + h for h in hits}, boots, title)
    out = a.out or os.path.join(build, "coverage-%s.txt" % a.mode)
    with open(out, "w") as f:
        f.write(text)
    # the table on the terminal; the lists in the file
    print(text.split("\nFunctions never entered")[0])
    print("coverage: %.0f s; the full report (functions never entered, lines never "
          "reached): %s" % (time.monotonic() - start, os.path.relpath(out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
