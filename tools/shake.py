#!/usr/bin/env python3
"""tools/shake.py - make test's booting suites at shifted memory layouts,
heap layouts and timing (`make shake`).

  make shake [SHAKE_N=n] [SHAKE_SEED=s] [SHAKE_S=seconds] [SHIFT="mem-520K,pad44K heap7 ..."]
             [SUITES="usertests t_dos ..."|all]
  tools/shake.py [-n N] [--seed S] [--budget S] [--shift SHIFT]... [--no-baseline] [NAME...]

Every test boots with -m 128M (or its own size: t_dos_16M) and the same
boot archive, so every test sees one memory layout: the same free-page
count, the same physical address for each page table and heap page. A test
that depends on that layout by accident (it drains memory and counts on
what is left, e.g. usertests' copy-on-write test when sbrk stopped one page
short at a 4 MiB boundary) passes until an unrelated change moves memory.
This boots the suites again with the layout moved, two ways:

  mem+NK, mem-NK  QEMU's -m N KiB more or less (QEMU takes -m in KiB
                  steps; the guest sees 8 KiB steps, two pages): the free
                  pages, root's reserve and each user's share move, and so
                  do the 4 MiB boundaries where a new page table is needed.
                  A suite booted at another size (t_dos_16M) gets the same
                  fraction of its own memory, in 8 KiB steps.
  padNK           the boot archive N KiB bigger: an entry of a kind the
                  kernel skips (typeflag 'V', kernel/fs/initrd.c: "other
                  kinds: skipped") in front of build/initrd.tar. The
                  archive sits after the kernel, so the page allocator's
                  tables, the kernel heap, ramfs and every page after them
                  land N/4 pages higher and N/4 fewer pages are free, as
                  when the archive grows, with no file the tests can see.

Three more move what the kernel does rather than where memory lies:

  heapN           the boot argument shake=heapN (kernel/lib/shake.c), on
                  every boot with `heapcheck` but the in-kernel tests'
                  (test=...: they check the checker at its defaults): the
                  poison byte of freed and fresh blocks (and, with it,
                  page runs: not zeros), pads per kmalloc site, which free
                  block of a page is taken, the quarantine's length, which
                  sites the guarded pool takes; all from seed N, the same
                  on every boot. A test that reads memory it never wrote,
                  or leans on one heap layout, sees another.
  tickN           shake=tickN: 1 to 10 timer interrupts a tick (the clock
                  still counts HZ), a slice of 1 to 20 ms, the scheduler's
                  scan from a random slot (after a fork either side may
                  run first). Races with the timer get other interleavings.
  icountN         QEMU's -icount shift=N,sleep=off (N <= ICOUNT_MAX): the
                  guest's clock counts 2^N ns per instruction and skips
                  idle time, so the timer interrupts land at other
                  instructions, the same ones on every run (disk and
                  console input aside).

A shift is written `mem-520K,pad44K,heap7,tick3,icount4` (any part may be
missing). The
shifts are the baseline (none, to tell a layout flake from a plain failure;
--no-baseline skips it), then SHAKE_N shifts: a few small fixed ones, then
random ones (pad 4 KiB..1 MiB, mem -2..+2 MiB: together more than the 1024
pages between two page tables' boundaries; heap and tick seeds 1..9999,
icount 0..8) from SHAKE_SEED, so the same
seed gives the same shifts (with heap, tick and icount among the kinds).
SHIFT=... runs exactly those instead.

The suites are tools/test.py's own (its all_suites(): same checks, same
timeouts, same PASS/FAIL names), run through this module's wrapper of
qemu.kernel_args, which rewrites -m and -initrd for the shift of the thread
running the suite: one guest per core at a time, each killed by its PID at
its suite's timeout, as in make test. The default suites are the memory-
sensitive ones (MEMORY_SUITES); SUITES=all is every suite of make test that
boots with -kernel (not the ones that build trees, grade, or boot GRUB);
NAME selects suites as tools/test.py NAME does. A suite none of whose
guests the shift changed is reported (its shift did not apply: a heap
seed on the in-kernel tests). SHAKE_S stops
starting new shifts after that many seconds.

Each (shift, suite) prints PASS or FAIL; a FAIL names the failing tests,
the -m and archive its guests had, the command that runs it again (`make
shake SHIFT=... SUITES=...`), and whether a second run failed the same way
(not: timing, not layout). The last lines say which tests failed at which
shifts and the totals; the exit status is 1 if anything failed.
The padded archives are kept in build/shake/ for reproducing by hand."""
import argparse
import concurrent.futures
import os
import random
import re
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemu  # noqa: E402

# make test's suites that depend most on how much memory there is and
# where it lies: the guest programs (usertests and t_*: they drain memory,
# fork until refused, grow heaps), t_dos at 16 MiB, the in-kernel tests,
# the heap checker's and fuzz_oom's smoke (failnth, every error path).
MEMORY_SUITES = ["usertests", "t_", "kernel", "heapcheck", "fuzz/oom"]
# Suites of tools/test.py that never boot a -kernel guest of this tree:
# they build other trees, grade, check documents, or boot the GRUB ISO.
NOT_BOOTING = ("mutants/", "kmutants", "toolchain/", "build/", "panic/file_line", "gdb",
               "readme/", "format", "boot/iso", "docs", "coverage/", "grading/", "course/",
               "labs/", "shake/")
PAD_TYPE = b"V"                 # a ustar entry the kernel's unpacker skips
MEM_STEP_K = 8                  # the guest sees -m in 8 KiB steps
FIXED = ["pad4K", "mem-8K", "pad20K", "mem+8K", "mem-1M", "pad8K,mem+1M", "heap1", "tick1,icount4"]
ICOUNT_MAX = 10                 # -icount shift=N: 2^N ns of guest time per instruction
SHAKE_DIR = os.path.join(qemu.BUILD, "shake")


class Shift:
    """How far one run moves memory: mem_k KiB of -m, pad_k KiB of archive;
    and the kernel's heap and timing: the seeds heap and tick of the boot
    argument shake= (None: not given), QEMU's -icount shift (None: none)."""

    def __init__(self, mem_k=0, pad_k=0, heap=None, tick=None, icount=None):
        self.mem_k, self.pad_k = mem_k, pad_k
        self.heap, self.tick, self.icount = heap, tick, icount

    def __str__(self):
        parts = []
        if self.mem_k:
            parts.append("mem%+d%s" % ((self.mem_k // 1024, "M") if self.mem_k % 1024 == 0
                                       else (self.mem_k, "K")))
        if self.pad_k:
            parts.append("pad%d%s" % ((self.pad_k // 1024, "M") if self.pad_k % 1024 == 0
                                      else (self.pad_k, "K")))
        for name in ("heap", "tick", "icount"):
            if getattr(self, name) is not None:
                parts.append("%s%d" % (name, getattr(self, name)))
        return ",".join(parts) or "none"

    @staticmethod
    def parse(text):
        """`mem-520K,pad44K`, `pad1M`, `heap7,tick3`, `icount4`, `none`: a
        Shift, or ValueError."""
        shift = Shift()
        if text == "none":
            return shift
        for part in text.split(","):
            m = re.fullmatch(r"(mem)([+-]\d+)([KM])|(pad)(\d+)([KM])", part)
            k = re.fullmatch(r"(heap|tick|icount)(\d+)", part)
            if k:
                if int(k.group(2)) > (ICOUNT_MAX if k.group(1) == "icount" else 99999999):
                    raise ValueError("%r: icount's shift is at most %d" % (text, ICOUNT_MAX))
                setattr(shift, k.group(1), int(k.group(2)))
                continue
            if not m:
                raise ValueError("%r: want mem+NK, mem-NM, padNK, heapN, tickN, icountN, "
                                 "joined by ','" % text)
            if m.group(1):
                shift.mem_k = int(m.group(2)) * (1024 if m.group(3) == "M" else 1)
            else:
                shift.pad_k = int(m.group(5)) * (1024 if m.group(6) == "M" else 1)
        if shift.pad_k < 0 or shift.mem_k % MEM_STEP_K or (shift.pad_k and shift.pad_k % 4):
            raise ValueError("%r: mem in %d KiB steps, pad in 4 KiB steps" % (text, MEM_STEP_K))
        return shift

    def memory(self, asked):
        """QEMU's -m for a suite that asked for `asked` ("128M"): the same
        fraction of its memory as mem_k is of 128 MiB, in 8 KiB steps."""
        m = re.fullmatch(r"(\d+)([KMG])", asked)
        base = int(m.group(1)) * {"K": 1, "M": 1024, "G": 1 << 20}[m.group(2)]
        delta = self.mem_k * base // (128 * 1024) // MEM_STEP_K * MEM_STEP_K
        return "%dK" % (base + delta) if delta else asked

    def initrd(self, original):
        """The boot archive for this shift: `original`, or a padded copy of it
        in build/shake/ (made once; remade when the original is newer)."""
        if not self.pad_k:
            return original
        path = os.path.join(SHAKE_DIR, "initrd-pad%dK.tar" % self.pad_k)
        with _pad_lock:
            if not os.path.exists(path) or os.path.getmtime(path) < os.path.getmtime(original):
                os.makedirs(SHAKE_DIR, exist_ok=True)
                with open(original, "rb") as f:
                    data = f.read()
                with open(path + ".tmp", "wb") as f:
                    f.write(pad_entry(self.pad_k * 1024) + data)
                os.replace(path + ".tmp", path)
        return path


_pad_lock = threading.Lock()


def pad_entry(size):
    """A ustar entry of `size` bytes in all (header and data; a multiple of
    512), of a kind the kernel's unpacker skips: the archive grows by
    exactly `size` and the guest's files stay as they are."""
    h = bytearray(512)
    h[0:9] = b"shake.pad"
    h[100:108] = b"0000644\0"
    h[108:116] = h[116:124] = b"0000000\0"
    h[124:136] = b"%011o\0" % (size - 512)
    h[136:148] = b"00000000000\0"
    h[156:157] = PAD_TYPE
    h[257:265] = b"ustar\x0000"
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h) + bytes(size - 512)


def make_shifts(n, seed):
    """SHAKE_N shifts: the fixed small ones first, then random ones."""
    shifts = [Shift.parse(s) for s in FIXED[:n]]
    rng = random.Random(seed)
    seen = {str(s) for s in shifts}
    while len(shifts) < n:
        kind = rng.choice(("pad", "mem", "both", "heap", "heap", "tick", "icount",
                           "heap,tick", "heap,icount", "tick,icount"))
        s = Shift(mem_k=0 if kind not in ("mem", "both") else rng.choice([-1, 1]) * MEM_STEP_K *
                  rng.randint(1, 2048 // MEM_STEP_K),
                  pad_k=0 if kind not in ("pad", "both") else 4 * rng.randint(1, 256))
        if "heap" in kind:
            s.heap = rng.randint(1, 9999)
        if "tick" in kind:
            s.tick = rng.randint(1, 9999)
        if "icount" in kind:
            s.icount = rng.randint(0, 8)
        if str(s) not in seen:
            seen.add(str(s))
            shifts.append(s)
    return shifts


# ---------------------------------------------------------------- the wrapper
# Every suite boots through qemu.kernel_args (tools/fuzz.py's guests too).
# main() puts a wrapper in its place which rewrites -m and -initrd for the
# shift of the thread that runs the suite, and notes each guest's -m and
# archive for the report.
_local = threading.local()
_kernel_args = qemu.kernel_args


def shifted(argv, shift):
    """QEMU's arguments argv (qemu.kernel_args') moved by shift. The heap
    seed goes to every boot with the heap checker (it moves the checker's
    heap) but the in-kernel tests' (test=...: they check the checker
    itself, at its defaults: exact page counts, the guarded pool taking
    every block, 0x6B in a message)."""
    argv = list(argv)
    i = argv.index("-m")
    argv[i + 1] = shift.memory(argv[i + 1])
    i = argv.index("-initrd")
    argv[i + 1] = shift.initrd(argv[i + 1])
    i = argv.index("-append")
    words = argv[i + 1].split()
    seeds = []
    if (shift.heap is not None and "heapcheck" in words
            and not any(w.startswith("test=") for w in words)):
        seeds.append("heap%d" % shift.heap)
    if shift.tick is not None:
        seeds.append("tick%d" % shift.tick)
    if seeds:                           # before run=, which takes the rest of the line
        argv[i + 1] = "shake=%s %s" % (",".join(seeds), argv[i + 1])
    if shift.icount is not None:
        argv[i:i] = ["-icount", "shift=%d,sleep=off" % shift.icount]
    return argv


def _shifted_kernel_args(*args, **kw):
    argv = _kernel_args(*args, **kw)
    shift = getattr(_local, "shift", None)
    if shift is None:
        return argv
    moved = shifted(argv, shift)
    if moved != argv:                   # else the shift did not apply to this boot
        _local.boots.append((moved[moved.index("-m") + 1], moved[moved.index("-initrd") + 1]))
    return moved


def run_shifted(shift, fn):
    """Run a suite's function with every boot it makes shifted: its results
    and the (-m, archive) pairs its guests had."""
    _local.shift, _local.boots = shift, []
    try:
        try:
            res = fn()
        except Exception as e:      # a runner bug is a failure, as in tools/test.py
            res = [("runner", False, "runner error: %r" % e)]
        return res, _local.boots
    finally:
        _local.shift = None


def select_suites(names):
    """tools/test.py's suites to shake: MEMORY_SUITES, or `all` that boot, or
    those whose name contains one of names."""
    import test
    suites = [s for s in test.all_suites() if not s[0].startswith(NOT_BOOTING)]
    if names == ["all"]:
        return suites
    want = names or MEMORY_SUITES
    return [s for s in suites if any(w in s[0] for w in want)]


def selfcheck_suite():
    """make test's check of the shifts themselves (a few seconds): a boot
    archive padded by 40 KiB leaves exactly 10 pages fewer free and the
    kernel unpacks one entry more (and skips it: /bin/true still runs), and
    -m 8 KiB smaller leaves 2 fewer (or 1, if the page allocator's table
    then needs a page less); without the shift, the counts are make test's."""
    def boot(text):
        b = qemu.run(shifted(qemu.kernel_args("panic=exit run=/bin/true"), Shift.parse(text)),
                     timeout=60)
        free = re.search(r"memory: \d+ MiB, (\d+) pages free", b.output)
        entries = re.search(r"initrd: (\d+) entries unpacked", b.output)
        if not free or not entries or b.guest_code != 0:
            return None, b.output
        return (int(free.group(1)), int(entries.group(1))), b.output

    def run():
        base, out0 = boot("none")
        if base is None:
            return [("shake/unshifted_boot_runs", False, out0[-2000:])]
        res = []
        pad, out = boot("pad40K")
        ok = pad == (base[0] - 10, base[1] + 1)
        res.append(("shake/padded_archive_takes_its_pages_and_is_skipped", ok, "" if ok else
                    "(free, entries): %s unshifted, %s padded by 40 KiB\n%s"
                    % (base, pad, out[-2000:])))
        mem, out = boot("mem-8K")
        ok = mem is not None and base[0] - 2 <= mem[0] <= base[0] - 1 and mem[1] == base[1]
        res.append(("shake/smaller_memory_takes_its_pages", ok, "" if ok else
                    "(free, entries): %s at 128 MiB, %s at 8 KiB less\n%s"
                    % (base, mem, out[-2000:])))
        res.append(seeds_reach_the_kernel())
        res.append(heap_seed_poisons_fresh_blocks())
        return res
    return "shake/self", run


def seeds_reach_the_kernel():
    """heapN,tickN,icountN: the kernel says it took both seeds (a boot of
    /bin/true under them ends well), QEMU gets -icount; a test= boot gets
    the tick seed but not the heap seed."""
    shift = Shift.parse("heap5,tick2,icount3")
    argv = shifted(qemu.kernel_args("heapcheck panic=exit run=/bin/true"), shift)
    b = qemu.run(argv, timeout=60)
    ktest = shifted(qemu.kernel_args("test=all heapcheck"), shift)
    ok = (b.guest_code == 0 and re.search(r"shake: heap5: poison [0-9a-f]{2}, ", b.output)
          and re.search(r"shake: tick2: \d+ timer interrupts a tick", b.output)
          and argv[argv.index("-icount") + 1] == "shift=3,sleep=off"
          and ktest[ktest.index("-append") + 1] == "shake=tick2 test=all heapcheck")
    return ("shake/heap_tick_and_icount_seeds_reach_the_kernel_and_qemu", bool(ok), "" if ok else
            "%s\n%s\nguest code %s\n%s" % (" ".join(argv[-6:]), ktest[-1], b.guest_code,
                                            b.output[-2000:]))


def heap_seed_poisons_fresh_blocks():
    """The kernel test `poison` (a fresh block's bytes are the poison; the
    same seed gives the same block twice) at the checker's default 0x6B,
    then under a seed whose poison is another byte."""
    outs, ok = [], True
    for extra, want in (("", "6b"), ("shake=heap1 ", "80")):
        b = qemu.run(qemu.kernel_args("%stest=poison heapcheck panic=exit" % extra), timeout=60)
        outs.append(b.output[-1500:])
        ok = ok and b.guest_code == 0 and ("ktest: fresh blocks hold %s" % want) in b.output
    return ("shake/heap_seed_fills_fresh_blocks_with_its_own_poison", ok, "" if ok else
            "\n".join(outs))


def repro(shift, suite):
    return "make shake SHIFT=%s SUITES=%s" % (shift, suite)


def first_lines(text, n=12):
    lines = text.splitlines()
    return "\n".join(lines[:n] + (["(%d more lines)" % (len(lines) - n)] if len(lines) > n else []))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=int(os.environ.get("SHAKE_N") or 8),
                    help="shifts to run besides the baseline (SHAKE_N)")
    ap.add_argument("--seed", type=int, default=int(os.environ.get("SHAKE_SEED") or 1))
    ap.add_argument("--budget", type=float, default=float(os.environ.get("SHAKE_S") or 0),
                    help="start no shift after this many seconds (0: no limit)")
    ap.add_argument("--shift", action="append", default=[],
                    help="run this shift (mem-520K,pad44K) instead of SHAKE_N")
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--no-recheck", action="store_true", help="do not run a failure again")
    ap.add_argument("names", nargs="*", help="suites whose name contains NAME; 'all'")
    opt = ap.parse_args()
    qemu.kernel_args = _shifted_kernel_args
    try:
        shifts = [Shift.parse(s) for t in opt.shift for s in t.split()]
    except ValueError as e:
        sys.exit("shake.py: %s" % e)
    if not opt.shift:
        shifts = ([] if opt.no_baseline else [Shift()]) + make_shifts(opt.n, opt.seed)
    suites = select_suites(opt.names)
    if not suites:
        sys.exit("shake.py: no booting suite matches %s" % " ".join(opt.names))
    print("shake: %d shift(s) x %d suite(s): %s" % (len(shifts), len(suites),
                                                   " ".join(str(s) for s in shifts)))
    print("shake: suites: %s" % " ".join(name for name, _ in suites))
    sys.stdout.flush()

    start = time.monotonic()
    failed = {}                         # test name -> [shift, ...]
    counts = {"pass": 0, "fail": 0, "noboot": 0, "skipped": 0}
    done_shifts = set()

    def job(shift, name, fn):
        if opt.budget and time.monotonic() - start > opt.budget:
            return None
        t0 = time.monotonic()
        res, boots = run_shifted(shift, fn)
        again = None
        bad = [r for r in res if r[1] is False]
        if bad and not opt.no_recheck:
            res2, _ = run_shifted(shift, fn)
            again = {r[0] for r in res2 if r[1] is False}
        return res, boots, again, time.monotonic() - t0

    workers = max(2, os.cpu_count() or 2)
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {}
        for shift in shifts:
            for name, fn in suites:
                futures[pool.submit(job, shift, name, fn)] = (shift, name)
        for fut in futures:             # in order: shift by shift
            shift, name = futures[fut]
            out = fut.result()
            if out is None:
                counts["skipped"] += 1
                continue
            done_shifts.add(str(shift))
            res, boots, again, secs = out
            bad = [r for r in res if r[1] is False]
            if not boots:
                counts["noboot"] += 1
                print("NOBOOT %-22s %-24s (no guest the shift changed: it did not apply)"
                      % (shift, name))
            elif not bad:
                counts["pass"] += 1
                print("PASS %-24s %-24s %3d tests %6.1fs" % (shift, name, len(res), secs))
            else:
                counts["fail"] += 1
                mems = sorted({m for m, _ in boots})
                pads = sorted({os.path.relpath(p, qemu.ROOT) for _, p in boots})
                print("FAIL %-24s %-24s %3d of %d tests failed %6.1fs" %
                      (shift, name, len(bad), len(res), secs))
                print("      guests had -m %s, -initrd %s" % (" ".join(mems), " ".join(pads)))
                for tname, _, detail in bad:
                    seen = "" if again is None else (
                        "  (again: failed)" if tname in again else "  (again: passed: timing?)")
                    print("      FAIL %s%s" % (tname, seen))
                    if detail:
                        print("        " + first_lines(detail).replace("\n", "\n        "))
                    failed.setdefault(tname, []).append(str(shift))
                print("      reproduce: %s" % repro(shift, name))
            sys.stdout.flush()
    took = time.monotonic() - start
    print()
    if failed:
        print("shake: tests that failed, and at which shifts:")
        for tname in sorted(failed):
            print("  %-60s %s" % (tname, " ".join(failed[tname])))
    print("shake: %d shift(s) of %d run, %d suite runs in %.0fs: %d passed, %d failed%s%s" %
          (len(done_shifts), len(shifts), counts["pass"] + counts["fail"] + counts["noboot"],
           took, counts["pass"], counts["fail"],
           ", %d booted nothing" % counts["noboot"] if counts["noboot"] else "",
           ", %d not started (SHAKE_S)" % counts["skipped"] if counts["skipped"] else ""))
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
