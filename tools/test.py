#!/usr/bin/env python3
"""tools/test.py - everything `make test` runs, in parallel on every core.

  host unit tests   build/hosttest/*: pure kernel code compiled for the host
  kernel tests      boots with test=all: the in-kernel suite (kernel/test/)
  boot checks       the GRUB ISO reaches the banner; a kernel fault panics
                    with a backtrace naming the faulting function
  guest suites      boots running a user test program (user/tests/t_*) as
                    the child of init: each prints PASS/FAIL lines
  ext2 suites       images made by mke2fs -d are read by the guest (e2read);
                    what the guest writes (e2write, e2full) is checked with
                    e2fsck -fn and debugfs on the host
  shell             types command lines into the shell over the serial
                    console and checks what comes back
  lab suites        each lab's graded tests pass on this tree, and every one
                    of them fails on the handout made from it

Each result is printed as it arrives: PASS/FAIL, its name, its time. The
last line is `N passed, M failed`; the exit status is 1 if anything failed.
`tools/test.py NAME...` runs only the suites whose name contains NAME."""
import concurrent.futures
import glob
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

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
        b = qemu.run(qemu.kernel_args("test=all heapcheck panic=exit"), timeout=60)
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
        b = qemu.run(qemu.kernel_args("test=fault heapcheck panic=exit"), timeout=60)
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
        b = qemu.run(qemu.kernel_args("heapcheck panic=exit %s run=/bin/%s" % (extra, prog), disks),
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


# ---------------------------------------------------------------- ext2
SBIN_PATH = os.environ.get("PATH", "") + ":/sbin:/usr/sbin"


def e2tool(*args):
    """Run an e2fsprogs tool (they live in /sbin on Debian)."""
    return subprocess.run(list(args), capture_output=True, env=dict(os.environ, PATH=SBIN_PATH),
                          timeout=120)


def make_sample_tree(root):
    """A tree that exercises the reader: small, large, sparse and empty
    files, a file past the triple-indirect boundary (1 KiB blocks), a
    directory with hundreds of entries, a deep chain, fast and slow
    symlinks. Returns the MANIFEST text (also written into the tree)."""
    rnd = random.Random(1970)
    lines = []

    def put(rel, data):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        lines.append("f %s %d %08x" % (rel, len(data), zlib.crc32(data)))

    for i in range(30):
        put("small/s%02d" % i, bytes(rnd.getrandbits(8) for _ in range(rnd.randrange(0, 3000))))
    put("empty", b"")
    put("twelve_blocks", bytes(rnd.getrandbits(8) for _ in range(12 * 1024)))
    put("large", rnd.randbytes(3 * 1024 * 1024 + 17))
    for name, size, pieces in (("sparse", 10 << 20, [(100 << 10, b"middle"), ((10 << 20) - 3, b"end")]),
                               ("beyond_triple", 70 << 20, [(69 << 20, b"far away")])):
        path = os.path.join(root, name)
        data = bytearray()
        with open(path, "wb") as f:
            f.truncate(size)
            for off, chunk in pieces:
                f.seek(off)
                f.write(chunk)
        crc, pos = 0, 0
        for off, chunk in pieces:   # CRC of the whole file, holes as zeros
            crc = zlib.crc32(bytes(off - pos), crc)
            crc = zlib.crc32(chunk, crc)
            pos = off + len(chunk)
        crc = zlib.crc32(bytes(size - pos), crc)
        del data
        lines.append("f %s %d %08x" % (name, size, crc))
    for i in range(300):
        put("crowd/entry_%03d" % i, b"%d\n" % i)
    lines.append("d crowd 300")
    deep = "/".join("level%02d" % i for i in range(25))
    put(deep + "/bottom", b"at the bottom\n")
    lines.append("d %s 1" % deep)
    os.symlink("large", os.path.join(root, "fastlink"))
    lines.append("l fastlink large")
    long_target = deep + "/bottom"
    os.symlink(long_target, os.path.join(root, "slowlink"))
    lines.append("l slowlink " + long_target)
    lines.append("d small 30")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(root, "MANIFEST"), "w") as f:
        f.write(text)
    return text


def mkfs(image, size_mb, block, tree=None):
    open(image, "wb").close()
    args = ["mke2fs", "-q", "-F", "-t", "ext2", "-b", str(block)]
    if tree:
        args += ["-d", tree]
    r = e2tool(*(args + [image, "%dM" % size_mb]))
    if r.returncode != 0:
        raise RuntimeError("mke2fs: " + r.stderr.decode())


def fsck_result(name, image):
    r = e2tool("e2fsck", "-fn", image)
    ok = r.returncode == 0
    return (name, ok, "" if ok else tail((r.stdout + r.stderr).decode(), 20))


def debugfs_matches_manifest(name, image, manifest):
    """Every 'f' line of manifest, read back from image by the host's debugfs."""
    with tempfile.TemporaryDirectory() as tmp:
        for line in manifest.splitlines():
            parts = line.split()
            if len(parts) != 4 or parts[0] != "f":
                continue
            out = os.path.join(tmp, "out")
            e2tool("debugfs", "-R", "dump /%s %s" % (parts[1], out), image)
            try:
                data = open(out, "rb").read()
            except OSError:
                return (name, False, "debugfs could not read /%s" % parts[1])
            if len(data) != int(parts[2]) or "%08x" % zlib.crc32(data) != parts[3]:
                return (name, False, "/%s: host reads %d bytes crc %08x, guest wrote %s %s"
                        % (parts[1], len(data), zlib.crc32(data), parts[2], parts[3]))
            os.unlink(out)
    return (name, True, "")


def boot_with_disk(prog, image, timeout=240):
    b = qemu.run(qemu.kernel_args("heapcheck panic=exit run=/bin/%s" % prog, [None, image]),
                 timeout=timeout)
    res = parse_results("%s/" % prog, b.output)
    if b.guest_code is None or not re.search(r"^%s: done" % prog, b.output, re.M):
        res.append(("%s/suite_completes" % prog, False,
                    "status %s, timed out %s\n%s" % (b.status, b.timed_out, tail(b.output))))
    return b, res


def ext2_read_suite(block):
    name = "ext2_read_%dk" % (block // 1024)

    def run():
        with tempfile.TemporaryDirectory() as tmp:
            tree, image = os.path.join(tmp, "tree"), os.path.join(tmp, "disk.img")
            make_sample_tree(tree)
            mkfs(image, 96, block, tree)
            _, res = boot_with_disk("e2read", image)
            res = [(n.replace("e2read/", name + "/"), ok, d) for n, ok, d in res]
            res.append(fsck_result(name + "/e2fsck_clean_after_guest", image))
            return res
    return name, run


def ext2_write_suite():
    name = "ext2_write"

    def run():
        with tempfile.TemporaryDirectory() as tmp:
            image = os.path.join(tmp, "disk.img")
            mkfs(image, 100, 1024)
            b, res = boot_with_disk("e2write", image)
            res = [(n.replace("e2write/", name + "/"), ok, d) for n, ok, d in res]
            res.append(fsck_result(name + "/e2fsck_clean_after_guest_writes", image))
            r = e2tool("debugfs", "-R", "cat /MANIFEST", image)
            manifest = r.stdout.decode()
            if "f big " not in manifest:
                res.append((name + "/guest_left_a_manifest", False, tail(manifest)))
                return res
            res.append(debugfs_matches_manifest(name + "/debugfs_reads_back_guest_data", image,
                                                manifest))
            # The next boot must find everything the first one wrote.
            _, again = boot_with_disk("e2read", image)
            res += [(n.replace("e2read/", name + "/next_boot/"), ok, d) for n, ok, d in again]
            return res
    return name, run


def ext2_full_suite():
    name = "ext2_full"

    def run():
        with tempfile.TemporaryDirectory() as tmp:
            image = os.path.join(tmp, "disk.img")
            mkfs(image, 2, 1024)
            _, res = boot_with_disk("e2full", image)
            res = [(n.replace("e2full/", name + "/"), ok, d) for n, ok, d in res]
            res.append(fsck_result(name + "/e2fsck_clean_after_enospc", image))
            return res
    return name, run


# ---------------------------------------------------------------- the shell
def shell_suite():
    """Type into the shell over the serial console, as a student would, and
    check what comes back: each check is one named test."""
    def run():
        res = []
        with qemu.Session(qemu.kernel_args("heapcheck panic=exit"), timeout=90) as s:
            if not s.expect(r"\$ $", timeout=30):
                return [("shell/prompt_appears", False, tail(s.output))]

            def check(name, lines, regex, timeout=15):
                out = ""
                for line in lines:
                    got = s.run(line, timeout=timeout)
                    if got is None:
                        res.append(("shell/" + name, False, "no prompt after %r\n%s" %
                                    (line, tail(s.output))))
                        return None
                    out += got
                ok = re.search(regex, out, re.M) is not None
                res.append(("shell/" + name, ok, "" if ok else "want /%s/ in:\n%s" %
                            (regex, tail(out, 40))))
                return out

            if s.run("cd /tmp") is not None:
                res.append(("shell/prompt_shows_the_cwd_after_cd", s.output.endswith("/tmp $ "),
                            tail(s.output, 2)))
            check("pipeline_of_three_stages", ["echo one two three | cat | wc -w"], r"^\s*3\s*$")
            check("redirects_create_append_and_read", ["echo first > /tmp/r",
                                                       "echo second >> /tmp/r", "wc -l < /tmp/r"],
                  r"^\s*2\s*$")
            check("stderr_redirect_2_to_1", ["cat /nonexistent > /tmp/e 2>&1", "cat /tmp/e"],
                  r"nonexistent.*No such file")
            check("exit_status_and_missing_command", ["false", "echo status=$?", "nosuchcmd",
                                                      "echo status=$?"],
                  r"status=1[\s\S]*nosuchcmd: command not found[\s\S]*status=127")
            check("and_or_and_quotes", ["true && echo 'a  b' || echo no",
                                        'false || echo "q $?"'], r"^a  b$[\s\S]*^q 1$")
            out = check("background_job_runs_while_the_shell_goes_on",
                        ["sleep 1 &", "echo right away"], r"^\[\d+\][\s\S]*^right away$")
            if out is not None:
                s.run("sleep 2")
                s.run("echo")
                ok = re.search(r"^\[\d+\] done", s.output[-600:], re.M) is not None
                res.append(("shell/background_job_is_reaped_and_reported", ok, tail(s.output)))
            # ^C kills the foreground job, not the shell.
            s.send("sleep 30\n")
            time.sleep(1.0)
            s.send("\x03")
            ok = s.expect(r"\$ $", timeout=10) is not None
            out = s.run("echo still here") if ok else None
            res.append(("shell/ctrl_c_kills_the_job_not_the_shell",
                        bool(out and "still here" in out), tail(s.output)))
            # ^C at an idle prompt clears the line; the shell lives on.
            s.run("export KEEPME=yes")
            s.send("half a line\x03")
            s.expect(r"\^C\n", timeout=5)      # the tty echoes it; no new prompt comes
            out = s.run("echo keep=$KEEPME") or ""
            ok = "keep=yes" in out and "shell exited" not in s.output
            res.append(("shell/ctrl_c_at_the_prompt_only_clears_the_line", ok, tail(s.output)))
            # The fd builtins: a filesystem used by hand, then detached.
            out = check("fd_builtins_fsopen_bind_unbind_walk",
                        ["fsopen ramfs", "mkdir /tmp/m", "bind 3 /tmp/m",
                         "echo kept > /tmp/m/file", "unbind /tmp/m", "cat /tmp/m/file",
                         "walkat 4 file", "ready 5 r", "readfd 6", "fds"],
                        r"^fd 3$[\s\S]*^fd 4$[\s\S]*No such file[\s\S]*^fd 5$[\s\S]*"
                        r"^fd 6$[\s\S]*^kept$[\s\S]*^4 dir path$")
            out = s.run("cat /proc/self/fd") or ""
            fds = re.findall(r"^(\d+) (\w+) (\w+)", out, re.M)
            ok = ("0", "chr", "rw") in fds and all(int(n) < 3 or n == "3" and kind == "reg"
                                                   for n, kind, _ in fds)
            res.append(("shell/children_get_only_stdio_not_the_shells_fds", ok, tail(out)))
        return res
    return "shell", run


# ---------------------------------------------------------------- labs
def lab_suite(lab_dir):
    """On the full tree every graded test of the lab passes."""
    num = os.path.basename(lab_dir)[:2]

    def run():
        b = qemu.run(qemu.kernel_args("heapcheck panic=exit run=/bin/lab%s" % num), timeout=120)
        got = dict((n.split("/", 1)[1], (ok, d)) for n, ok, d in parse_results("x/", b.output))
        res = []
        for line in open(os.path.join(lab_dir, "points")):
            name = line.split()[0]
            ok, detail = got.get(name, (False, "no result\n" + tail(b.output)))
            res.append(("lab%s/%s" % (num, name), ok, detail))
        return res
    return "lab" + num, run


def handout_suite(lab_dir):
    """The project proves each lab's tests can fail: on the generated
    student tree (solution replaced by stubs) every graded test must fail."""
    num = os.path.basename(lab_dir)[:2]
    name = "labs/%s/every_graded_test_fails_on_the_handout" % num

    def run():
        with tempfile.TemporaryDirectory() as tmp:
            tree = os.path.join(tmp, "handout")
            steps = [[sys.executable, os.path.join(qemu.ROOT, "tools", "handout.py"), num, tree],
                     ["make", "-C", tree, "-s", "all"],
                     [sys.executable, os.path.join(tree, "tools", "grade.py"), num, "--json",
                      os.path.join(tmp, "r.json")]]
            for cmd in steps:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
                if p.returncode != 0:
                    return [(name, False, "%s failed:\n%s" % (" ".join(cmd[:2]),
                                                             tail(p.stdout + p.stderr)))]
            import json
            tests = json.load(open(os.path.join(tmp, "r.json")))["tests"]
            passing = [t["name"] for t in tests if t["score"] > 0]
            ok = bool(tests) and not passing
            return [(name, ok, "" if ok else "pass on the stub: %s" % ", ".join(passing) if tests
                     else "no graded tests ran")]
    return "labs/" + num, run


# ---------------------------------------------------------------- heap checker and fuzzers
# (the fuzz engineer's block: doc/fuzzing.md)
HEAP_PANICS = [
    ("heap_overflow", "overflow_by_one_byte_panics_naming_the_block",
     r"panic: heapcheck: heap overflow: 100-byte block at 0x[0-9a-f]+ "
     r"\(kmalloc from ktest_heap_overflow\+0x[0-9a-f]+\) written 1 byte"),
    ("heap_use_after_free", "write_after_free_panics_naming_the_block",
     r"panic: heapcheck: write after free: 40-byte block at 0x[0-9a-f]+ "
     r"\(kmalloc from ktest_heap_use_after_free\+0x[0-9a-f]+, "
     r"kfree from ktest_heap_use_after_free\+0x[0-9a-f]+\): byte 8 is 78"),
    ("heap_double_free", "double_free_panics_naming_the_caller",
     r"panic: kfree\(0x[0-9a-f]+\) from ktest_heap_double_free\+0x[0-9a-f]+: double free"),
]


def heapcheck_suite():
    """The heap checker catches what it is for: each kernel test breaks the
    heap on purpose, and the panic must name the block and its callers."""
    def run():
        res = []
        for mode, name, regex in HEAP_PANICS:
            b = qemu.run(qemu.kernel_args("test=%s heapcheck panic=exit" % mode), timeout=60)
            ok = re.search(regex, b.output) is not None and b.status == qemu.PANIC_STATUS
            res.append(("heapcheck/" + name, ok, "" if ok else "status %s, want /%s/\n%s"
                        % (b.status, regex, tail(b.output))))
        return res
    return "heapcheck", run


# The fuzz smoke: each fuzzer in the build, a fixed seed, about a minute of
# guest time in all (make fuzz runs them for longer, with fresh seeds).
FUZZ_SMOKE = {"sys": 25, "elf": 20, "ext2": 15}


def fuzz_smoke_suite(name, seconds, seed=1):
    import fuzz

    def run():
        o = fuzz.run_guest(name, seed, seconds)
        return [("fuzz/%s_seed_%d_no_panic_hang_reset_or_leak" % (name, seed), o.ok,
                 "" if o.ok else fuzz.report(o))]
    return "fuzz/" + name, run


def fuzz_engineer_suites():
    import fuzz
    return [heapcheck_suite()] + [fuzz_smoke_suite(n, FUZZ_SMOKE[n]) for n in fuzz.available()]


def all_suites():
    suites = [host_suite(b) for b in sorted(glob.glob(os.path.join(qemu.BUILD, "hosttest", "*")))
              if os.access(b, os.X_OK)]
    suites += [kernel_suite(), fault_suite(), iso_suite()]
    suites += fuzz_engineer_suites()            # early: the long ones start first
    for src in sorted(glob.glob(os.path.join(qemu.ROOT, "user", "tests", "t_*.c")) +
                      glob.glob(os.path.join(qemu.ROOT, "user", "tests", "usertests.c"))):
        suites.append(guest_suite(os.path.splitext(os.path.basename(src))[0]))
    suites += [ext2_write_suite(), ext2_read_suite(1024), ext2_read_suite(4096), ext2_full_suite()]
    suites.append(shell_suite())
    labs = sorted(glob.glob(os.path.join(qemu.ROOT, "lab", "[0-9][0-9]-*")))
    suites += [lab_suite(d) for d in labs] + [handout_suite(d) for d in labs]
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
