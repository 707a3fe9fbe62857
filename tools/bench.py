#!/usr/bin/env python3
"""tools/bench.py - `make bench`: how fast Orthos is, and how close to what
the emulated machine allows. Numbers, never pass/fail tests.

Each run boots the guest benchmarks (user/tests/bench.c) once and times a
boot to the shell's prompt through QEMU's -kernel and through the GRUB
ISO (the fastest of BOOTS_PER_RUN boots: the host's other work only adds
to a boot's time; for the same reason the guest counts a repeated row's
fastest window and the pipe's fastest stream). Each tree boots on the
firmware its own tests boot it with (firmware_for: qboot, when QEMU has
it and the tree's kernel sets up what SeaBIOS used to, else SeaBIOS);
the -kernel boot is also timed on SeaBIOS for every tree, the
like-for-like row. Every row is printed as the median, minimum and
maximum over the runs and, where it has one, as a fraction of its limit
(with the range of the runs' own fractions): the guest's own fastest
copy (`limit_memcpy`, the best of several ways of copying in user mode)
for memory-bound rows, the raw disk read sequentially by the same guest
(`limit_disk_read`, /dev/hd2 with a cold cache) for disk-bound ones.

The guest counts TSC cycles; their rate is timed by the host (host_hz:
the guest's TSC in lines it writes at the start and at the end of its
run, against the host's monotonic clock when they arrive). The rate the
guest measures against its own timer, which falls behind when QEMU's
timer interrupts come late under load, is printed beside it as a
cross-check: row clock_guest_vs_host (1.000 when the two agree).

  make bench [RUNS=5] [BASE=commit] [ICOUNT=1] [PIN=cpu] [ROWS=row,row...]
  tools/bench.py [--runs N] [--build DIR] [--base COMMIT | --base-build DIR]
                 [--icount] [--pin CPU] [--rows ROW,ROW...]

--base COMMIT checks that commit out into a temporary git worktree, copies
this tree's guest benchmarks into it, builds it, and runs the two trees
turn about so that both see the same noise: run by run (base, this, then
this, base: who goes first alternates) and, within a run, boot by boot;
then it prints both, the speed-up of the medians and the range of the
runs' own speed-ups (run i of the base against run i of this tree). The
worktree is removed afterwards. --icount adds each tree's instructions
per operation (one guest run under -icount shift=0: a figure the host's
load does not move); --pin runs every QEMU on one host CPU. QEMU without
KVM is slow and noisy when the machine is shared: compare medians and
ranges, and say what the load average was (printed). --rows measures
only the rows named (guest rows and boot rows alike; a fraction needs its
limit row named too): the guest reads the list from /mnt/bench.rows on
the data disk, which an older tree's init attaches as well, since its
kernel command line cannot pass the program arguments. The guest's run
is then short, so the host's timing of its TSC (a span of well under a
second) is less exact than in a full run: compare the trees' figures with
each other, turn about, rather than with a full run's."""
import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemu  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GUEST_PROGRAMS = ["user/tests/bench.c", "user/tests/bench_exec.c"]
MIB = 1 << 20
PROMPT = r"/ \$ "


def mke2fs(image, size_mb, block, tree=None):
    open(image, "wb").close()
    args = ["mke2fs", "-q", "-F", "-t", "ext2", "-b", str(block)]
    if tree:
        args += ["-d", tree]
    subprocess.run(args + [image, "%dM" % size_mb], check=True, capture_output=True)


def make_disks(tmp, rows=None):
    """The data disk (ext2, 4 KiB blocks, with two files to read cold and,
    with rows, the list bench.rows the guest reads) and the raw disk for
    the limit row, as templates copied for every run."""
    rnd = random.Random(12)
    tree = os.path.join(tmp, "tree")
    os.makedirs(tree)
    if rows:
        with open(os.path.join(tree, "bench.rows"), "w") as f:
            f.write("\n".join(rows) + "\n")
    for name, size in (("cold1m", MIB), ("cold16m", 16 * MIB)):
        with open(os.path.join(tree, name), "wb") as f:
            f.write(rnd.randbytes(size))
    ext2 = os.path.join(tmp, "ext2.img")
    mke2fs(ext2, 96, 4096, tree)
    raw = os.path.join(tmp, "raw.img")
    with open(raw, "wb") as f:
        f.write(rnd.randbytes(32 * MIB))
    small = os.path.join(tmp, "small.img")
    mke2fs(small, 16, 1024)
    return ext2, raw, small


def firmware_for(build):
    """The firmware a build's own tests boot it with: an older tree (before
    kernel_firmware() in its tools/qemu.py) relied on SeaBIOS's setup (the
    APIC's virtual wire: on qboot its timer stops), so it gets SeaBIOS."""
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(build)), "tools", "qemu.py")) as f:
            own = "def kernel_firmware" in f.read()
    except OSError:
        own = False
    return qemu.kernel_firmware() if own else []


# --pin CPU: every QEMU runs on that one host CPU (taskset), or None.
PIN = None
# --rows: the only rows to measure, or None (all).
ROWS = None


def pinned(args):
    return ["taskset", "-c", PIN] + args if PIN is not None else args


def host_marks(chunks):
    """[(host time, guest TSC)] for each BENCHTSC line of the output, the
    time being when the piece of output that ended the line arrived."""
    marks, line = [], b""
    for t, chunk in chunks:
        line += chunk
        *done, line = line.split(b"\n")
        for d in done:
            m = re.match(rb"BENCHTSC (\w+) (\w+)\r?$", d)
            if m:
                marks.append((t, int(m.group(1), 16) << 32 | int(m.group(2), 16)))
    return marks


def host_hz(marks):
    """The guest TSC's rate as the host's clock times it (under TCG the
    guest's TSC follows the host's tick counter): from the start marks to
    the end marks (the first and last halves of `marks`). A line reaches
    the host late, never early; of each group the least late mark counts
    (the one whose host time is smallest against its TSC, at a first
    estimate of the rate), though over a run of tens of seconds even a
    50 ms delay is 0.1 %."""
    rough = (marks[-1][1] - marks[0][1]) / (marks[-1][0] - marks[0][0])
    half = len(marks) // 2
    s = min(marks[:half], key=lambda m: m[0] - m[1] / rough)
    e = min(marks[-half:], key=lambda m: m[0] - m[1] / rough)
    return (e[1] - s[1]) / (e[0] - s[0])


def guest_run(build, disks, tmp, icount=False):
    """One boot of /bin/bench: {row: (value, unit, limit)} where value is
    MiB/s for byte rows and microseconds per operation for the others.
    With icount, QEMU runs with -icount shift=0 (the TSC then counts one
    per instruction executed, whatever the host's load) and the value is
    instructions per operation, or per KiB for byte rows."""
    ext2 = os.path.join(tmp, "run-ext2.img")
    shutil.copyfile(disks[0], ext2)
    args = qemu.kernel_args("panic=exit run=/bin/bench", [None, ext2, disks[1]], build=build,
                            firmware=firmware_for(build))
    if icount:
        args[1:1] = ["-icount", "shift=0,sleep=off"]
    chunks = []
    b = qemu.run(pinned(args), timeout=900, chunks=chunks)
    clock = re.search(r"^BENCHCLOCK (\w+) (\w+) (\d+)$", b.output, re.M)
    marks = host_marks(chunks)
    if "bench: done" not in b.output or not clock or len(marks) < 2:
        sys.stderr.write("bench: the guest did not finish:\n%s\n" % b.output[-600:])
        return {}
    guest_hz = (int(clock.group(1), 16) << 32 | int(clock.group(2), 16)) / \
        (int(clock.group(3)) / 1000)
    hz = host_hz(marks) if not icount else guest_hz
    if not icount:
        sys.stderr.write("bench: %s: the TSC at %.1f MHz by the host's clock, %.1f by the "
                         "guest's timer (%+.2f %%)\n" % (os.path.basename(os.path.dirname(
                             os.path.abspath(build))), hz / 1e6, guest_hz / 1e6,
                             100 * (guest_hz / hz - 1)))
    rows = {"clock_guest_vs_host": (guest_hz / hz, "ratio", "-"),
            "clock_host_mhz": (hz / 1e6, "MHz", "-")} if not icount else {}
    for m in re.finditer(r"^BENCH (\S+) (\d+) (B|op) (\w+) (\w+) (\S+)$", b.output, re.M):
        cycles = int(m.group(4), 16) << 32 | int(m.group(5), 16)
        seconds = cycles / hz
        amount = int(m.group(2))
        if icount:
            rows[m.group(1)] = (cycles / (amount / 1024 if m.group(3) == "B" else amount),
                                "insn/KiB" if m.group(3) == "B" else "insn/op", m.group(6))
        elif m.group(3) == "B":
            rows[m.group(1)] = (amount / MIB / seconds, "MiB/s", m.group(6))
        else:
            rows[m.group(1)] = (seconds * 1e6 / amount, "us/op", m.group(6))
    return rows


# A boot is timed from the host, so whatever else the machine does only
# adds to it: each run's boot rows are the fastest of this many boots.
BOOTS_PER_RUN = 5


def boot_to_prompt(args):
    start = time.monotonic()
    b = qemu.run(pinned(args), timeout=120, until=PROMPT)
    return time.monotonic() - start if re.search(PROMPT, b.output) else None


def boots(build):
    """{row: QEMU's arguments} for the boots to the prompt a build can do."""
    kernel, iso = os.path.join(build, "orthos.elf"), os.path.join(build, "orthos.iso")
    out = {}
    for name, path, boot in (
            ("boot_kernel_to_prompt", kernel, firmware_for(build) + [
                "-kernel", kernel, "-initrd", os.path.join(build, "initrd.tar")]),
            ("boot_kernel_seabios_to_prompt", kernel, [
                "-kernel", kernel, "-initrd", os.path.join(build, "initrd.tar")]),
            ("boot_grub_iso_to_prompt", iso, ["-cdrom", iso])):
        if os.path.exists(path) and (ROWS is None or name in ROWS):
            out[name] = boot
    return out


def one_run(builds, disks, tmp, flip=False):
    """One run of each build (a list of one or two): the guest benchmarks,
    then the boots. With two builds the boots go turn about, boot by boot
    (base, this, base, this...), so that a moment of load falls on both
    alike; flip starts with the second build, so that neither always goes
    first. Returns one {row: (value, unit, limit)} per build."""
    order = list(range(len(builds)))
    if flip:
        order.reverse()
    rows = [None] * len(builds)
    for i in order:
        rows[i] = guest_run(builds[i], disks, tmp)
    small = os.path.join(tmp, "run-small.img")
    plans = [boots(b) for b in builds]
    for name in [k for k in plans[-1]] + [k for k in plans[0] if k not in plans[-1]]:
        times = [[] for _ in builds]
        for _ in range(BOOTS_PER_RUN):
            for i in order:
                if name in plans[i]:
                    shutil.copyfile(disks[2], small)
                    times[i].append(boot_to_prompt(qemu.base_args() + plans[i][name] +
                                                   qemu.disk_args([None, small])))
        for i in order:
            if times[i] and None not in times[i]:
                rows[i][name] = (min(times[i]), "s", "-")
    return rows


def summarise(runs):
    """{row: (median, min, max, unit, limit)} over a list of one_run results,
    plus limit_memcpy: the best copy of each run."""
    out = {}
    for r in runs:
        copies = [v[0] for k, v in r.items() if k.startswith("limit_memcpy_")]
        if copies:
            r["limit_memcpy"] = (max(copies), "MiB/s", "memcpy")
    names = []
    for r in runs:
        names += [k for k in r if k not in names]
    for k in names:
        vals = [r[k][0] for r in runs if k in r]
        unit, limit = next(r[k][1:] for r in runs if k in r)
        out[k] = (statistics.median(vals), min(vals), max(vals), unit, limit)
    return out


def fraction(summary, name):
    """The row's median as a fraction of its limit's median, or None."""
    med, _, _, unit, limit = summary[name]
    lim = {"memcpy": "limit_memcpy", "disk": "limit_disk_read"}.get(limit)
    if unit != "MiB/s" or lim not in summary or not summary[lim][0]:
        return None
    return med / summary[lim][0]


def cell(s, name):
    if name not in s:
        return "%-26s" % "-"
    med, lo, hi, unit, _ = s[name]
    fmt = "%.3f" if unit in ("s", "ratio") else "%.1f" if med < 1000 else "%.0f"
    return "%-26s" % (("%s (%s-%s) %s" % (fmt, fmt, fmt, unit)) % (med, lo, hi))


def run_fractions(runs, name):
    """The row as a fraction of its limit in each run (the two measured
    within seconds of each other), or []."""
    out = []
    for r in runs:
        if name in r and r[name][1] == "MiB/s":
            lim = {"memcpy": "limit_memcpy", "disk": "limit_disk_read"}.get(r[name][2])
            if lim in r and r[lim][0]:
                out.append(r[name][0] / r[lim][0])
    return out


def frac_cell(s, runs, name):
    """The median's fraction of the limit's median, and the range of the
    runs' own fractions."""
    f = fraction(s, name) if name in s else None
    if f is None:
        return "%-13s" % ""
    each = run_fractions(runs, name)
    return "%-13s" % ("%.0f%% (%.0f-%.0f)" % (100 * f, 100 * min(each), 100 * max(each))
                      if each else "%.0f%%" % (100 * f))


def speedup(base, new, name):
    """How many times faster `new` is than `base` on this row."""
    if name not in base or name not in new or not base[name][0] or not new[name][0] or \
            name.startswith("clock_"):
        return ""
    b, n, unit = base[name][0], new[name][0], new[name][3]
    return "%.2fx" % (n / b if unit == "MiB/s" else b / n)


def pair_speedups(base_runs, this_runs, name):
    """The speed-up run by run: the base's run i and this tree's run i
    went turn about, so they saw much the same load."""
    out = []
    for b, n in zip(base_runs, this_runs):
        if name in b and name in n and b[name][0] and n[name][0]:
            out.append(n[name][0] / b[name][0] if n[name][1] == "MiB/s" else b[name][0] / n[name][0])
    return out


def speedup_cell(base, new, base_runs, this_runs, name):
    med = speedup(base, new, name)
    each = pair_speedups(base_runs, this_runs, name) if med else []
    return "%s (%.2f-%.2f)" % (med, min(each), max(each)) if med and each else med


def icount_cell(rows, name):
    if not rows or name not in rows:
        return ""
    return "%.0f %s" % (rows[name][0], rows[name][1])


def print_table(this_runs, base_runs=None, icount=None):
    """The table: per row the median (min-max) over the runs, the fraction
    of its limit (and its range over the runs), the speed-up (and its range
    over the pairs of runs); with icount ({"this": rows, "base": rows} from
    guest_run(icount=True)), each tree's instructions per operation."""
    this = summarise(this_runs)
    base = summarise(base_runs) if base_runs else None
    order = [k for k in this if k.startswith("limit")] + \
        [k for k in this if not k.startswith("limit")]
    ic_b = icount.get("base") if icount else None
    ic_t = icount.get("this") if icount else None
    if base:
        order += [k for k in base if k not in order]
        print("%-26s %-26s %-13s  %-26s %-13s  %-20s %s" % (
            "row", "base: median (min-max)", "limit", "this: median (min-max)", "limit",
            "speed-up (pairs)", "instructions, base / this" if icount else ""))
        for k in order:
            ic = "%s / %s" % (icount_cell(ic_b, k), icount_cell(ic_t, k)) if icount else ""
            print("%-26s %s %s  %s %s  %-20s %s" % (
                k, cell(base, k), frac_cell(base, base_runs, k), cell(this, k),
                frac_cell(this, this_runs, k),
                speedup_cell(base, this, base_runs, this_runs, k), ic))
    else:
        print("%-26s %-26s %-13s %s" % ("row", "median (min-max)", "limit",
                                        "instructions" if icount else ""))
        for k in order:
            print("%-26s %s %s %s" % (k, cell(this, k), frac_cell(this, this_runs, k),
                                      icount_cell(ic_t, k)))


def build_base(commit, where):
    """A worktree of commit at where, with this tree's guest benchmarks, built."""
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", where, commit], check=True,
                   capture_output=True)
    for p in GUEST_PROGRAMS:
        shutil.copyfile(os.path.join(ROOT, p), os.path.join(where, p))
    subprocess.run(["make", "-C", where, "-j2", "all", "iso"], check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(where, "build")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=int(os.environ.get("RUNS") or 5))
    ap.add_argument("--build", default=qemu.BUILD, help="the build folder to measure")
    ap.add_argument("--base", help="a commit to compare with (built in a temporary worktree)")
    ap.add_argument("--base-build", help="an already built folder to compare with")
    ap.add_argument("--pin", metavar="CPU",
                    help="run every QEMU on this host CPU (taskset -c CPU): both trees then "
                    "share one core's load; off by default (QEMU's I/O thread and the guest's "
                    "then share that core too)")
    ap.add_argument("--rows", default=os.environ.get("ROWS") or None,
                    help="measure only these rows (comma-separated names, as printed), "
                    "e.g. context_switch; a fraction needs its limit row too")
    ap.add_argument("--icount", action="store_true",
                    help="also run the guest benchmarks once per tree under -icount shift=0 "
                    "and print instructions per operation (per KiB for byte rows): a count "
                    "that the host's load does not move")
    opts = ap.parse_args()
    global PIN, ROWS
    PIN = opts.pin
    ROWS = [r for r in re.split(r"[,\s]+", opts.rows) if r] if opts.rows else None
    if PIN is not None and not shutil.which("taskset"):
        sys.exit("bench: --pin needs taskset")
    print("load average at start: %.2f %.2f %.2f" % os.getloadavg(), flush=True)
    icount = {}
    with tempfile.TemporaryDirectory() as tmp:
        base_build, worktree = opts.base_build, None
        try:
            if opts.base:
                worktree = os.path.join(tmp, "base")
                print("building %s in %s..." % (opts.base, worktree))
                base_build = build_base(opts.base, worktree)
            disks = make_disks(tmp, ROWS)
            builds = ([base_build] if base_build else []) + [opts.build]
            this_runs, base_runs = [], []
            for i in range(opts.runs):
                rows = one_run(builds, disks, tmp, flip=i % 2 == 1)
                if base_build:
                    base_runs.append(rows[0])
                this_runs.append(rows[-1])
                print("run %d of %d done (load %.2f)" % (i + 1, opts.runs, os.getloadavg()[0]),
                      file=sys.stderr)
            if opts.icount:
                icount["this"] = guest_run(opts.build, disks, tmp, icount=True)
                if base_build:
                    icount["base"] = guest_run(base_build, disks, tmp, icount=True)
        finally:
            if worktree:
                subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", worktree],
                               capture_output=True)
    print_table(this_runs, base_runs if base_build else None, icount if opts.icount else None)
    print("load average at end: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
