#!/usr/bin/env python3
"""tools/bench.py - `make bench`: boot the guest benchmarks (user/tests/bench.c)
and the host-side boot timings, and print one line per measurement.

Benchmarks are measurements, never pass/fail tests: compare the numbers
between two commits on the same machine (QEMU without KVM is slow and
noisy; run twice)."""
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemu  # noqa: E402
from test import mkfs  # noqa: E402


def boot_to_banner(args):
    start = time.monotonic()
    b = qemu.run(args, timeout=60, until=r"memory: \d+ MiB")
    return time.monotonic() - start if "memory:" in b.output else None


def main():
    rows = []
    t = boot_to_banner(qemu.kernel_args("test=none panic=exit"))
    rows.append(("boot_kernel_to_banner", "%.3f" % t if t else "failed", "s"))
    t = boot_to_banner(qemu.base_args() + ["-cdrom", qemu.ISO])
    rows.append(("boot_grub_iso_to_banner", "%.3f" % t if t else "failed", "s"))
    with tempfile.TemporaryDirectory() as tmp:
        image = os.path.join(tmp, "disk.img")
        mkfs(image, 64, 4096)
        b = qemu.run(qemu.kernel_args("panic=exit run=/bin/bench", [None, image]), timeout=300)
        for m in re.finditer(r"^BENCH (\S+) (\d+) (\S+)$", b.output, re.M):
            rows.append((m.group(1), m.group(2), m.group(3)))
        if "bench: done" not in b.output:
            rows.append(("guest_benchmarks", "did not finish", b.output[-300:]))
    for name, value, unit in rows:
        print("%-28s %12s %s" % (name, value, unit))


if __name__ == "__main__":
    main()
