#!/usr/bin/env python3
"""tools/test.py - everything `make test` runs, in parallel on every core.

  host unit tests   build/hosttest/*: pure kernel code compiled for the host
  kernel tests      boots with test=all: the in-kernel suite (kernel/test/)
  boot checks       the GRUB ISO reaches the banner; a kernel fault panics
                    with a backtrace naming the faulting function
  guest suites      boots running a user test program (user/tests/) as the
                    child of init: each prints PASS/FAIL lines

Each result is printed as it arrives: PASS/FAIL, its name, its time. The
last line is `N passed, M failed`; the exit status is 1 if anything failed.
`tools/test.py NAME...` runs only the suites whose name contains NAME."""
import concurrent.futures
import glob
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemu  # noqa: E402

RESULT = re.compile(r"^(PASS|FAIL) (\S+)(?::\s*(.*))?$", re.M)


def parse_results(prefix, text):
    """PASS/FAIL lines a program printed, as (name, ok, detail) triples."""
    return [(prefix + m.group(2), m.group(1) == "PASS", m.group(3) or "")
            for m in RESULT.finditer(text)]


def tail(text, n=15):
    return "\n".join("      | " + line for line in text.strip().splitlines()[-n:])


# ---------------------------------------------------------------- suites
def host_suite(binary):
    def run():
        name = os.path.basename(binary)
        try:
            p = subprocess.run([binary], capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            return [("host/%s" % name, False, "timed out")]
        res = parse_results("host/%s/" % name, p.stdout)
        if not res or (p.returncode != 0 and all(ok for _, ok, _ in res)):
            res.append(("host/%s" % name, False, "exit %d\n%s" % (p.returncode, tail(p.stdout + p.stderr))))
        return res
    return "host/" + os.path.basename(binary), run


def kernel_suite():
    def run():
        b = qemu.run(qemu.kernel_args("test=all panic=exit"), timeout=60)
        res = parse_results("kernel/", b.output)
        done = re.search(r"ktest: (\d+) passed, (\d+) failed", b.output)
        if not done:
            res.append(("kernel/suite_completes", False,
                        "no summary line (timed out: %s)\n%s" % (b.timed_out, tail(b.output))))
        elif b.guest_code != (1 if int(done.group(2)) else 0):
            res.append(("kernel/exit_status_reports_failures", False, "status %s" % b.status))
        return res
    return "kernel", run


def iso_suite():
    def run():
        b = qemu.run(qemu.base_args() + ["-cdrom", qemu.ISO], timeout=60,
                     until=r"memory: \d+ MiB")
        ok = re.search(r"Orthos \d+\.\d+", b.output) and "memory:" in b.output
        return [("boot/grub_iso_shows_banner", bool(ok),
                 "" if ok else "no banner in %.0fs\n%s" % (b.seconds, tail(b.output)))]
    return "boot/iso", run


def fault_suite():
    def run():
        b = qemu.run(qemu.kernel_args("test=fault panic=exit"), timeout=60)
        res = []
        ok = "panic: kernel page fault at 0xdead0000" in b.output
        res.append(("boot/kernel_fault_panics_with_address", ok, "" if ok else tail(b.output)))
        m = re.search(r"backtrace:\n\s+0x[0-9a-f]+ (\w+)\+", b.output)
        ok = bool(m) and m.group(1) == "ktest_fault_deliberately"
        res.append(("boot/panic_backtrace_names_function", ok, "" if ok else tail(b.output)))
        ok = b.status == qemu.PANIC_STATUS
        res.append(("boot/panic_exits_qemu_with_status", ok, "status %s" % b.status))
        return res
    return "boot/fault", run


# What the kernel itself must print during a guest suite: (test, regex).
CONSOLE_EXPECT = {
    "t_proc": [
        ("user_fault_message_names_process_address_and_eip",
         r"pid \d+ \(t_proc\): page fault at 0x00000000 \(write not present, eip 0x[0-9a-f]{8}\)"
         r": killed"),
        ("illegal_instruction_message", r"pid \d+ \(t_proc\): invalid opcode \(eip 0x[0-9a-f]{8}\)"),
    ],
}


def guest_suite(prog, timeout=120, disks=None, extra=""):
    """Boot with init running /bin/<prog> and powering off with its status."""
    def run():
        b = qemu.run(qemu.kernel_args("run=/bin/%s panic=exit %s" % (prog, extra), disks),
                     timeout=timeout)
        res = parse_results("%s/" % prog, b.output)
        for name, regex in CONSOLE_EXPECT.get(prog, []):
            ok = re.search(regex, b.output) is not None
            res.append(("%s/%s" % (prog, name), ok, "" if ok else "console lacks /%s/" % regex))
        if "panic:" in b.output:
            res.append(("%s/kernel_did_not_panic" % prog, False, tail(b.output, 25)))
        if b.guest_code is None or not re.search(r"^%s: done" % prog, b.output, re.M):
            res.append(("%s/suite_completes" % prog, False,
                        "status %s, timed out %s\n%s" % (b.status, b.timed_out, tail(b.output))))
        return res
    return prog, run


def all_suites():
    suites = [host_suite(b) for b in sorted(glob.glob(os.path.join(qemu.BUILD, "hosttest", "*")))
              if os.access(b, os.X_OK)]
    suites += [kernel_suite(), fault_suite(), iso_suite()]
    for src in sorted(glob.glob(os.path.join(qemu.ROOT, "user", "tests", "*.c"))):
        suites.append(guest_suite(os.path.splitext(os.path.basename(src))[0]))
    return suites


def main():
    wanted = sys.argv[1:]
    suites = [s for s in all_suites() if not wanted or any(w in s[0] for w in wanted)]
    passed = failed = 0
    start = time.monotonic()
    workers = max(2, os.cpu_count() or 2)
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {}
        for name, fn in suites:
            futures[pool.submit(lambda fn=fn: (time.monotonic(), fn(), time.monotonic()))] = name
        for fut in concurrent.futures.as_completed(futures):
            try:
                t0, results, t1 = fut.result()
            except Exception as e:  # a runner bug is a failure, not a crash
                t0 = t1 = 0
                results = [(futures[fut], False, "runner error: %r" % e)]
            for name, ok, detail in results:
                print("%s %-60s %6.1fs" % ("PASS" if ok else "FAIL", name, t1 - t0))
                if not ok and detail:
                    print("      " + detail.replace("\n", "\n      "))
                passed += ok
                failed += not ok
            sys.stdout.flush()
    print("(%d suites in %.1fs)" % (len(suites), time.monotonic() - start))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
