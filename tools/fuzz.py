#!/usr/bin/env python3
"""tools/fuzz.py - run the in-guest fuzzers (`make fuzz`).

  make fuzz [FUZZ_S=seconds] [FUZZ=name] [SEED=n]
  tools/fuzz.py [--seconds S] [--fuzz NAME] [--seed N] [--guests G]

Each fuzzer is a guest program /bin/fuzz_NAME SEED SECONDS [MAXCOUNT]
(user/tests/fuzz_NAME.c): sys (system calls), elf (mutated executables),
ext2 (mutated disk images, when the build has it), srv (a file server's
malformed replies, doc/srv.md), race (processes racing on shared files,
on an ext2 disk this script formats and checks with e2fsck afterwards),
perm (the authority rules against an oracle, on ramfs and such a disk) and
oom (each operation with its Nth kernel allocation failing, failnth(2), on
ramfs and such a disk).
Every guest boots with the heap checker on (`heapcheck`), up to one per
core at a time, each with a fresh seed (printed) unless SEED is given. A
guest fails when the kernel panics, when its heartbeat line stops for
HANG_S seconds (a hang: the guest is killed by its PID), when QEMU exits
without the fuzzer's last line (a reset), when it outlives a hard timeout
(3 host seconds per guest second: guest time lags on a busy host), when the
fuzzer reports a leak or any other failure (a line "FAIL fuzz_NAME_..."),
or when e2fsck finds fuzz_race's, fuzz_perm's or fuzz_oom's disk damaged. Each failure
is printed with the command that reproduces it and the last console lines;
the totals come last, and the exit status is 1 if anything failed.

tools/test.py reuses run_guest() and report() for the short fuzz smoke in
`make test`. doc/fuzzing.md says how to reproduce and debug a failure."""
import argparse
import collections
import concurrent.futures
import os
import random
import re
import select
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemu  # noqa: E402

FUZZERS = ["sys", "elf", "ext2", "srv", "race", "perm", "oom"]
UNITS = {"sys": "calls", "elf": "execs", "ext2": "images", "srv": "replies", "race": "ops", "perm": "ops",
         "oom": "(op, N) pairs"}
HANG_S = 30             # no heartbeat for this long (host seconds): a hang
SETTLE_S = 60           # the guest's leak check and teardown, beyond its run time
SLOWDOWN = 3            # the hard timeout: this many host seconds per guest second
KEEP_LINES = 60         # console lines kept for a failure report
SCRATCH_DISK = 2 << 20  # bytes of zeros behind fuzz_sys's /dev/hd0
RACE_DISK_MB = 8        # fuzz_race's ext2 /dev/hd0 (1 KiB blocks: long directory walks)
E2FSPROGS_PATH = os.environ.get("PATH", "") + ":/sbin:/usr/sbin"


class Outcome:
    """One guest's run of one fuzzer."""

    def __init__(self, name, seed, seconds):
        self.name, self.seed, self.seconds = name, seed, seconds
        self.count = 0                  # iterations, from the last heartbeat or final line
        self.problem = None             # None, or what went wrong
        self.tail = []                  # the last console lines
        self.wall = 0.0

    @property
    def ok(self):
        return self.problem is None

    def repro(self):
        return "make fuzz FUZZ=%s SEED=%d FUZZ_S=%d" % (self.name, self.seed, self.seconds)


def available(build=qemu.BUILD):
    """The fuzzers this build has (fuzz_ext2 comes from another branch)."""
    return [n for n in FUZZERS if os.path.exists(os.path.join(build, "root", "bin", "fuzz_" + n))]


def run_guest(name, seed, seconds, hang_s=HANG_S, maxcount=None):
    """Boot one guest running /bin/fuzz_<name> and watch it; an Outcome.
    fuzz_sys gets a scratch disk as hd0, so /dev/hd0 is a live block device
    (init attaches only hd1); fuzz_race, fuzz_perm and fuzz_oom a freshly made ext2
    filesystem there, which e2fsck must find clean when the guest is done."""
    with tempfile.TemporaryDirectory() as tmp:
        disks = None
        if name == "sys":
            disks = [os.path.join(tmp, "scratch.img")]
            with open(disks[0], "wb") as f:
                f.truncate(SCRATCH_DISK)
        if name in ("race", "perm", "oom"):
            disks = [os.path.join(tmp, name + ".img")]
            e2fsprogs("mke2fs", "-q", "-F", "-t", "ext2", "-b", "1024", disks[0],
                      "%dM" % RACE_DISK_MB)
        out = watch_guest(Outcome(name, seed, seconds), disks, hang_s, maxcount)
        if name in ("race", "perm", "oom") and out.ok:
            r = e2fsprogs("e2fsck", "-fn", disks[0], check=False)
            if r.returncode != 0:
                out.problem = "e2fsck -fn: the disk is damaged (status %d)" % r.returncode
                out.tail += ["e2fsck: " + line for line in r.stdout.splitlines()[-20:]]
        return out


def e2fsprogs(*args, check=True):
    """Run mke2fs or e2fsck (they live in /sbin on Debian)."""
    r = subprocess.run(list(args), capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PATH=E2FSPROGS_PATH))
    if check and r.returncode != 0:
        raise RuntimeError("%s: %s" % (args[0], r.stdout + r.stderr))
    return r


def watch_guest(out, disks, hang_s, maxcount):
    """Run QEMU for `out` and fill it in: heartbeats, the last line, trouble."""
    name, seed, seconds = out.name, out.seed, out.seconds
    args = "fuzz_%s %d %d%s" % (name, seed, seconds, " %d" % maxcount if maxcount else "")
    proc = subprocess.Popen(qemu.kernel_args("heapcheck panic=exit run=/bin/" + args, disks),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    beat = re.compile(r"^fuzz_%s: seed %d count (\d+)$" % (name, seed))
    done = re.compile(r"^fuzz_%s: done seed %d count (\d+)$" % (name, seed))
    lines = collections.deque(maxlen=KEEP_LINES)
    partial, finished, failed, panicked = b"", False, None, False
    start = last_beat = time.monotonic()
    deadline = start + SLOWDOWN * seconds + SETTLE_S    # guest time lags on a busy host
    try:
        fd = proc.stdout.fileno()
        os.set_blocking(fd, False)
        while True:
            now = time.monotonic()
            if now - last_beat > hang_s:
                out.problem = "hang: no heartbeat for %d s" % hang_s
                break
            if now > deadline:
                out.problem = "timeout: still running after %d s (for %d s of guest time)" % (
                    now - start, seconds)
                break
            ready, _, _ = select.select([fd], [], [], 0.5)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            partial += chunk
            *whole, partial = partial.split(b"\n")
            for raw in whole:
                line = raw.decode("utf-8", "replace").rstrip("\r")
                lines.append(line)
                m = beat.match(line) or done.match(line)
                if m:
                    out.count = int(m.group(1))
                    last_beat = time.monotonic()
                    finished = finished or bool(done.match(line))
                elif line.startswith("panic:"):
                    panicked = True
                elif line.startswith("FAIL fuzz_%s_" % name) and not failed:
                    failed = line
    finally:
        if proc.poll() is None:
            proc.kill()                 # by its own PID, never by name
        proc.wait()
        rest = partial + (proc.stdout.read() or b"")
        lines.extend(rest.decode("utf-8", "replace").replace("\r", "").splitlines())
    out.wall = time.monotonic() - start
    out.tail = list(lines)
    if panicked or proc.returncode == qemu.PANIC_STATUS:
        out.problem = "kernel panic"
    elif out.problem:
        pass
    elif not finished:
        out.problem = "reset: QEMU exited (status %s) without the final line" % proc.returncode
    elif failed and "_leaves_no_leak:" in failed:
        out.problem = "leak: " + failed.split(":", 1)[1].strip()
    elif failed:
        out.problem = failed
    elif proc.returncode != 1:          # poweroff(0) from init: (0 << 1) | 1
        out.problem = "guest exit status %s" % proc.returncode
    return out


def report(o):
    """The text for one outcome: a PASS line, or FAIL with how to reproduce."""
    head = "%s fuzz/%s seed %d: %d %s in %.0f s" % ("PASS" if o.ok else "FAIL", o.name, o.seed,
                                                   o.count, UNITS.get(o.name, "iterations"),
                                                   o.wall)
    if o.ok:                            # and the fuzzer's own summary, if it gave one
        said = [line for line in o.tail if line.startswith("fuzz_%s: " % o.name) and
                not re.match(r"fuzz_\w+: (done )?seed ", line)]
        return "\n".join([head] + ["      | " + line for line in said[-1:]])
    return "\n".join([head + " - " + o.problem, "      reproduce: " + o.repro(),
                      "      last console lines:"] +
                     ["      | " + line for line in o.tail[-25:]])


def plan(names, seconds, seed, guests):
    """(name, seed, seconds) for each guest: every fuzzer at least once, more
    seeds while there are free cores; one guest per fuzzer with a given SEED."""
    if seed is not None:
        return [(n, seed, seconds) for n in names]
    pick = random.SystemRandom()
    jobs = [names[i % len(names)] for i in range(max(guests, len(names)))]
    return [(n, pick.randrange(1, 1 << 31), seconds) for n in jobs]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=int, default=int(os.environ.get("FUZZ_S") or 60))
    ap.add_argument("--fuzz", default=os.environ.get("FUZZ") or "",
                    help="one fuzzer (sys, elf, ext2, srv, race, perm, oom); default: all in the build")
    ap.add_argument("--seed", type=int, default=int(os.environ["SEED"])
                    if os.environ.get("SEED") else None)
    ap.add_argument("--guests", type=int, default=max(1, os.cpu_count() or 1),
                    help="guests at a time (default: one per core)")
    a = ap.parse_args()
    have = available()
    names = [a.fuzz] if a.fuzz else have
    missing = [n for n in names if n not in have]
    if missing or not names:
        print("fuzz: no /bin/fuzz_%s in this build (have: %s)" % (
            (missing or ["*"])[0], ", ".join(have) or "none"))
        return 2
    jobs = plan(names, a.seconds, a.seed, a.guests)
    for n, s, secs in jobs:
        print("fuzz: %s seed %d for %d s" % (n, s, secs))
    sys.stdout.flush()
    start = time.monotonic()
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.guests) as pool:
        futures = [pool.submit(run_guest, n, s, secs) for n, s, secs in jobs]
        for fut in concurrent.futures.as_completed(futures):
            o = fut.result()
            results.append(o)
            print(report(o))
            sys.stdout.flush()
    wall = time.monotonic() - start
    totals = collections.OrderedDict()
    for o in sorted(results, key=lambda o: o.name):
        t = totals.setdefault(o.name, [0, []])
        t[0] += o.count
        t[1].append(o.seed)
    failed = [o for o in results if not o.ok]
    print("fuzz: %s" % "; ".join("%s %d %s (seeds %s)" % (n, c, UNITS.get(n, "iterations"),
                                                          " ".join(map(str, seeds)))
                                 for n, (c, seeds) in totals.items()))
    print("fuzz: %d guests in %.0f s wall, %d failed%s" % (
        len(results), wall, len(failed),
        "".join("\n  %s: %s" % (o.repro(), o.problem) for o in failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
