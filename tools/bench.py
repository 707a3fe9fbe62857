#!/usr/bin/env python3
"""tools/bench.py - `make bench`: how fast Orthos is, and how close to what
the emulated machine allows. Numbers, never pass/fail tests.

Each run boots the guest benchmarks (user/tests/bench.c) once and times a
boot to the shell's prompt through QEMU's -kernel and through the GRUB
ISO (the fastest of BOOTS_PER_RUN boots: the host's other work only adds
to a boot's time). Each tree boots on the firmware its own tests boot it with
(firmware_for: qboot, when QEMU has it and the tree's kernel sets up what
SeaBIOS used to, else SeaBIOS); the -kernel boot is also timed on SeaBIOS
for every tree, the like-for-like row. Every row is printed as the median, minimum and maximum over the runs
and, where it has one, as a fraction of its limit: the guest's own fastest
copy (`limit_memcpy`, the best of several ways of copying in user mode)
for memory-bound rows, the raw disk read sequentially by the same guest
(`limit_disk_read`, /dev/hd2 with a cold cache) for disk-bound ones.

  make bench [RUNS=5] [BASE=commit]
  tools/bench.py [--runs N] [--build DIR] [--base COMMIT | --base-build DIR]

--base COMMIT checks that commit out into a temporary git worktree, copies
this tree's guest benchmark programs into it, builds it, and runs the two
trees turn about (base, this, base, this...) so that both see the same
noise; then it prints both and the speed-up. The worktree is removed
afterwards. QEMU without KVM is slow and noisy when the machine is shared:
compare medians, and say what the load average was (printed)."""
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


def make_disks(tmp):
    """The data disk (ext2, 4 KiB blocks, with two files to read cold) and
    the raw disk for the limit row, as templates copied for every run."""
    rnd = random.Random(12)
    tree = os.path.join(tmp, "tree")
    os.makedirs(tree)
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


def guest_run(build, disks, tmp):
    """One boot of /bin/bench: {row: (value, unit, limit)} where value is
    MiB/s for byte rows and microseconds per operation for the others."""
    ext2 = os.path.join(tmp, "run-ext2.img")
    shutil.copyfile(disks[0], ext2)
    args = qemu.kernel_args("panic=exit run=/bin/bench", [None, ext2, disks[1]], build=build,
                            firmware=firmware_for(build))
    b = qemu.run(args, timeout=900)
    clock = re.search(r"^BENCHCLOCK (\w+) (\w+) (\d+)$", b.output, re.M)
    if "bench: done" not in b.output or not clock:
        sys.stderr.write("bench: the guest did not finish:\n%s\n" % b.output[-600:])
        return {}
    hz = (int(clock.group(1), 16) << 32 | int(clock.group(2), 16)) / (int(clock.group(3)) / 1000)
    rows = {}
    for m in re.finditer(r"^BENCH (\S+) (\d+) (B|op) (\w+) (\w+) (\S+)$", b.output, re.M):
        seconds = (int(m.group(4), 16) << 32 | int(m.group(5), 16)) / hz
        amount = int(m.group(2))
        if m.group(3) == "B":
            rows[m.group(1)] = (amount / MIB / seconds, "MiB/s", m.group(6))
        else:
            rows[m.group(1)] = (seconds * 1e6 / amount, "us/op", m.group(6))
    return rows


# A boot is timed from the host, so whatever else the machine does only
# adds to it: each run's boot rows are the fastest of this many boots.
BOOTS_PER_RUN = 3


def boot_to_prompt(args):
    start = time.monotonic()
    b = qemu.run(args, timeout=120, until=PROMPT)
    return time.monotonic() - start if re.search(PROMPT, b.output) else None


def one_run(build, disks, tmp):
    rows = guest_run(build, disks, tmp)
    small = os.path.join(tmp, "run-small.img")
    kernel, iso = os.path.join(build, "orthos.elf"), os.path.join(build, "orthos.iso")
    for name, path, boot in (
            ("boot_kernel_to_prompt", kernel, firmware_for(build) + [
                "-kernel", kernel, "-initrd", os.path.join(build, "initrd.tar")]),
            ("boot_kernel_seabios_to_prompt", kernel, [
                "-kernel", kernel, "-initrd", os.path.join(build, "initrd.tar")]),
            ("boot_grub_iso_to_prompt", iso, ["-cdrom", iso])):
        if not os.path.exists(path):
            continue
        times = []
        for _ in range(BOOTS_PER_RUN):
            shutil.copyfile(disks[2], small)
            times.append(boot_to_prompt(qemu.base_args() + boot + qemu.disk_args([None, small])))
        if None not in times:
            rows[name] = (min(times), "s", "-")
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
    fmt = "%.3f" if unit == "s" else "%.1f" if med < 1000 else "%.0f"
    return "%-26s" % (("%s (%s-%s) %s" % (fmt, fmt, fmt, unit)) % (med, lo, hi))


def frac_cell(s, name):
    f = fraction(s, name) if name in s else None
    return "%6s" % ("%.0f%%" % (100 * f) if f is not None else "")


def speedup(base, new, name):
    """How many times faster `new` is than `base` on this row."""
    if name not in base or name not in new or not base[name][0] or not new[name][0]:
        return ""
    b, n, unit = base[name][0], new[name][0], new[name][3]
    return "%.2fx" % (n / b if unit == "MiB/s" else b / n)


def print_table(this, base=None):
    order = [k for k in this if k.startswith("limit")] + \
        [k for k in this if not k.startswith("limit")]
    if base:
        order += [k for k in base if k not in order]
        print("%-26s %-26s %6s  %-26s %6s  %s" % ("row", "base: median (min-max)", "limit",
                                                  "this: median (min-max)", "limit", "speed-up"))
        for k in order:
            print("%-26s %s %s  %s %s  %s" % (k, cell(base, k), frac_cell(base, k), cell(this, k),
                                              frac_cell(this, k), speedup(base, this, k)))
    else:
        print("%-26s %-26s %6s" % ("row", "median (min-max)", "limit"))
        for k in order:
            print("%-26s %s %s" % (k, cell(this, k), frac_cell(this, k)))


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
    opts = ap.parse_args()
    print("load average at start: %.2f %.2f %.2f" % os.getloadavg(), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        base_build, worktree = opts.base_build, None
        try:
            if opts.base:
                worktree = os.path.join(tmp, "base")
                print("building %s in %s..." % (opts.base, worktree))
                base_build = build_base(opts.base, worktree)
            disks = make_disks(tmp)
            this_runs, base_runs = [], []
            for i in range(opts.runs):
                if base_build:
                    base_runs.append(one_run(base_build, disks, tmp))
                this_runs.append(one_run(opts.build, disks, tmp))
                print("run %d of %d done (load %.2f)" % (i + 1, opts.runs, os.getloadavg()[0]),
                      file=sys.stderr)
        finally:
            if worktree:
                subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", worktree],
                               capture_output=True)
    print_table(summarise(this_runs), summarise(base_runs) if base_build else None)
    print("load average at end: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
