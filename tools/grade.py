#!/usr/bin/env python3
"""tools/grade.py - grade a lab.

    tools/grade.py NN --submission PATH [--json FILE] [--test NAME]...
    tools/grade.py [NN ...] [--json FILE] [--test NAME]...   (this tree as it is)
    tools/grade.py NN --prepare [--workers N]                (prebuild, then stop)

Official grading (--submission: a folder, a .zip or a .tar.gz, e.g. what
`make handin` packs) takes from the submission only the code of the lab's
own regions in the lab's files (lab/NN-name/files) and answers.md, and puts
it into a pristine work tree (the course tree with lab NN and every later
lab stubbed, the earlier labs' reference solutions in, built once, so a
submission recompiles only its own files), builds it and boots /bin/labNN.
Nothing else of the submission is used: text outside the regions, its
test.c, points, t.h, lab.h, Makefile or tools/ never reach the grader.
The work trees live where no relative path reaches an instructor-only
file (grade_home). Compiler warnings do not stop an official build.

Without --submission the tree itself is graded (a student's convenience).

Results are signed (user/tests/lab.h): the guest runs `/bin/labNN
--graded TAG [TEST...]`, TAG a fresh public tag; the program prints "TAG
READY" and the grader types a fresh 16-byte key on the console, which
appears in no argv, command line or output. Only lines "TAG MAC START|PASS|
FAIL|DONE name" whose MAC (SipHash-2-4 under the key) holds count,
wherever they appear in a line; a line whose MAC does not hold fails its
test. Each test has its own time limit (points' third field, default 20 s)
counted from its START line; a hang or a kernel panic fails that test only
(with the panic text, or where the CPU was spinning, in its output): QEMU
is killed and booted again with the tests that had not run, as often as
it takes (each boot settles at least one test). The whole grading of a
submission has a time budget (--budget, GRADE_BUDGET, default BUDGET s,
from when its work tree is taken): a test the budget cuts short, and every
test it leaves no time for, is "not run: the time budget ran out", never
a failure of the code. A process killed by a fault has its eip named in
the program's own symbols.

Hidden tests: GRADE_EXTRA=dir (or --extra dir) holding *.c test programs
on lab.h, built as /bin/extra_NAME into a boot archive of their own, after
the lab's tests have run (the visible boot never holds them); dir/points
gives their points and limits (1 point, 20 s for a test not listed).
--json writes Gradescope's results.json; hidden tests are `after_published`
there and their names and output appear in no visible field.

Written questions: the grader reports whether answers.md has a section with
real text for each of the lab's written questions (not scored)."""
import argparse
import bisect
import fcntl
import gzip
import hashlib
import hmac
import json
import os
import pwd
import re
import secrets
import select
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ccguard  # noqa: E402
import handout  # noqa: E402
import qemu  # noqa: E402

ROOT = qemu.ROOT
BOOT_LIMIT = 30         # seconds from boot to the first START, and between tests
BUILD_LIMIT = 600       # seconds make may take (a full build takes about 20)
SUBMISSION_BUILD_LIMIT = 300    # once the work tree is built: a submission's files, relinked
# Every grading boot runs the kernel's heap checker (red zones, poisoned
# frees): a kernel lab's use after free or overflow then panics at once,
# naming the block, instead of passing while nobody reuses the memory.
BOOT_ARGS = "heapcheck panic=exit"
# Seconds a submission's whole grading may take, from when it has its work
# tree (the build, every boot, the hidden tests): a test the budget cuts
# short, and every test it leaves no time for, is reported "not run"
# (OUT_OF_TIME), not failed. 480 s lets every test of the longest lab (lab
# 04: 18 tests, 360 s of limits) hang and reboot, under run_autograder's
# 540 s; it replaced a cap of 6 boots, after which the tests not yet run
# scored 0 untried (a pipe lab whose reads block hung 7 of 14).
BUDGET = 480
# How a test the budget left unrun (or cut short) reads, first words.
OUT_OF_TIME = "not run: the time budget ran out"
CMDLINE_MAX = 1000      # the kernel keeps 1023 bytes of its command line
ARGS_MAX = 60           # and init passes at most 63 argv entries
OUTPUT_MAX = 4000       # characters of a test's console output kept in its result
SHOW_LINES = 25         # lines of a failed test's console output printed in the terminal
FILE_MAX = 1 << 20      # bytes: a bigger file in a submission is refused
# Lines of one lab file, at most (the course's longest has about 1000): its
# regions are found with difflib, whose time grows with the lines squared
# where lines the course's file has often ("{") are repeated, and two
# namespace.c-like files of 400000 such lines held a grading 4.5 minutes.
LINES_MAX = 20000
ARCHIVE_MAX = 64 << 20  # bytes unpacked from one archive, at most
UNPACK_MAX = 2 * ARCHIVE_MAX    # bytes decompressed while reading one archive, at most
ARCHIVE_FILES = 20000   # members of one archive looked at, at most
TAG_DIGITS = 12         # hex digits of a boot's public tag
VOIDED = ("not counted: the key was asked for twice in this boot (the test program's harness "
          "asks once, so code that ran before it or beside it asked first): no result of this "
          "boot counts")
KEY_BYTES = 16          # a boot's secret SipHash key, typed on the console as hex
# How a hung test's reason starts (batch.py's CSV says "hangs in" for it: it
# looked for "no result within", and said nothing once "timed out: " came first).
HUNG = "timed out: no result within its time limit"
# "TAG READY", or "TAG MAC VERB name[: reason]", anywhere in a line (bytes).
LINE = rb"%s (?:(READY)|([0-9a-f]{16}) ((START|PASS|FAIL|DONE) ([\w.-]+)(?:: (.*))?))$"


def say(*args):
    print(*args)
    sys.stdout.flush()


def siphash24(key, data):
    """SipHash-2-4 of data (bytes) under the 16-byte key: the same function
    as user/tests/siphash.h (make test checks both on the paper's vectors)."""
    mask = (1 << 64) - 1

    def rotl(x, b):
        return ((x << b) | (x >> (64 - b))) & mask

    def rounds(v, n):
        for _ in range(n):
            v[0] = (v[0] + v[1]) & mask
            v[1] = rotl(v[1], 13) ^ v[0]
            v[0] = rotl(v[0], 32)
            v[2] = (v[2] + v[3]) & mask
            v[3] = rotl(v[3], 16) ^ v[2]
            v[0] = (v[0] + v[3]) & mask
            v[3] = rotl(v[3], 21) ^ v[0]
            v[2] = (v[2] + v[1]) & mask
            v[1] = rotl(v[1], 17) ^ v[2]
            v[2] = rotl(v[2], 32)

    k0, k1 = struct.unpack("<QQ", key)
    v = [0x736f6d6570736575 ^ k0, 0x646f72616e646f6d ^ k1, 0x6c7967656e657261 ^ k0,
         0x7465646279746573 ^ k1]
    whole = len(data) - len(data) % 8
    for (m,) in struct.iter_unpack("<Q", data[:whole]):
        v[3] ^= m
        rounds(v, 2)
        v[0] ^= m
    last = (len(data) & 0xFF) << 56 | int.from_bytes(data[whole:], "little")
    v[3] ^= last
    rounds(v, 2)
    v[0] ^= last
    v[2] ^= 0xFF
    rounds(v, 4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def line_mac(key, tag, body):
    """The MAC lab.h puts on a line: 16 hex digits (bytes) over "TAG body"."""
    return b"%016x" % siphash24(key, tag.encode() + b" " + body)


# ---------------------------------------------------------------- where the guest was
class Symbols:
    """Function and source line of addresses in one ELF file (the kernel,
    or a program of build/root/bin), read with tools/ksyms.py's reader."""

    _cache = {}

    @classmethod
    def of(cls, path):
        try:
            key = (path, os.stat(path).st_mtime_ns)
        except OSError:
            return cls(None)
        if key not in cls._cache:
            cls._cache[key] = cls(path)
        return cls._cache[key]

    def __init__(self, path):
        self.funcs, self.lines, self.func_addrs, self.line_addrs = [], [], [], []
        if path is None:
            return
        import ksyms
        try:
            elf = ksyms.Elf(path)
            self.funcs = elf.functions()
            self.lines = ksyms.line_table(ksyms.line_rows(elf))
        except Exception:   # (a lab's asm can write any .debug_line: a line_range of 0
            self.funcs, self.lines = [], []     # divided by zero): only names are lost
        self.func_addrs = [f[0] for f in self.funcs]
        self.line_addrs = [r[0] for r in self.lines]

    def where(self, addr):
        """"openat+0x1c (user/lib/open.c:57)", or None if addr is in no function."""
        i = bisect.bisect_right(self.func_addrs, addr) - 1
        if i < 0 or addr - self.funcs[i][0] > 0x10000:
            return None
        base, name = self.funcs[i]
        out = "%s+0x%x" % (name, addr - base)
        j = bisect.bisect_right(self.line_addrs, addr) - 1
        if j >= 0 and self.lines[j][1]:
            out += " (%s:%d)" % (self.lines[j][1], self.lines[j][2])
        return out


def program_path(build, name):
    return os.path.join(build, "root", "bin", os.path.basename(name))


# "pid 7 (lab01): page fault at 0x00000000 (write not present, eip 0x00401234): killed"
FAULT = re.compile(r"^.*?pid (\d+) \(([\w.-]+)\): .*?\beip (0x[0-9a-f]+)\b.*$", re.M)


def annotate(text, build):
    """text with each user fault the kernel reported followed by where its
    eip is, in that program's own symbols (build/root/bin/NAME)."""
    def add(m):
        where = Symbols.of(program_path(build, m.group(2))).where(int(m.group(3), 16)) \
            if build else None
        return m.group(0) + ("\n    (eip %s: %s in /bin/%s)" % (m.group(3), where, m.group(2))
                             if where else "")
    return FAULT.sub(add, text)


def panic_text(console, build=None):
    """The kernel's last words: the user faults reported just before (a
    killed init is what `panic: init exited` is about), the panic line, to
    the end of the backtrace."""
    at = console.rfind("panic:")
    if at < 0:
        return ""
    start = console.rfind("\n", 0, at) + 1
    faults = [line for line in console[:start].splitlines()[-30:] if FAULT.match(line)]
    out = faults[-5:]
    for line in console[start:].splitlines()[:40]:
        out.append(line)
        if line.startswith("kernel halted"):
            break
    return annotate("\n".join(out), build)


def cpu_samples(sock, build, prog, samples=4):
    """Where the guest's CPU was, from a few looks at its registers through
    QEMU's monitor (a unix socket), each place named in the kernel's or the
    test program's symbols: a text, or "" if the monitor did not answer."""
    seen = []
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(2)
            s.connect(sock)
            buf = b""
            while b"(qemu) " not in buf:
                buf += s.recv(65536) or b"(qemu) "
            for _ in range(samples):
                s.sendall(b"info registers\n")
                buf = b""
                while b"(qemu) " not in buf:
                    chunk = s.recv(65536)
                    if not chunk:
                        raise OSError("monitor closed")
                    buf += chunk
                eip = re.search(rb"EIP=([0-9a-f]{8})", buf)
                cpl = re.search(rb"CPL=(\d)", buf)
                halted = re.search(rb"HLT=1", buf)
                if eip:
                    seen.append(describe_eip(int(eip.group(1), 16), cpl and cpl.group(1) == b"3",
                                             halted, build, prog))
                time.sleep(0.05)
    except OSError:
        pass
    places = list(dict.fromkeys(seen))
    return "; ".join(places)


def describe_eip(eip, user, halted, build, prog):
    if halted:
        return "idle: every process was waiting (blocked for ever, or sleeping)"
    if user:
        where = Symbols.of(program_path(build, prog)).where(eip)
        return "in user code at 0x%08x%s" % (eip, " (%s, if it is /bin/%s)" % (where, prog)
                                               if where else "")
    where = Symbols.of(os.path.join(build, "orthos.elf")).where(eip)
    return "in the kernel at 0x%08x%s" % (eip, " (%s)" % where if where else "")


# Control characters other than tab and newline (C0, DEL, C1): a student's
# code prints them on the console, and a compiler quotes a source line that
# holds them; raw, they would reach the instructor's terminal, where "ESC[1A
# ESC[2K" rewrites the FAIL line above into a PASS and an OSC 52 sequence
# sets the clipboard. Everything the guest or the compiler says is shown
# with them written out ("\x1b").
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text):
    return CONTROL.sub(lambda m: "\\x%02x" % ord(m.group()), text)


def indent(text, pad="    "):
    """text with every line behind pad: what the compiler or the guest said,
    in the grader's log and output, where no line of it may read as one of
    the grader's own (`#pragma message ("x\\nScore: 100/100")` prints its
    newline raw, and an instructor's `grep ^Score: */log.txt` took it)."""
    return "\n".join(pad + line for line in text.split("\n"))


def tail(text, n=20):
    return "\n".join(text.rstrip().splitlines()[-n:])


# Characters of one line of the compiler's output kept: an identifier of
# a megabyte, quoted in each error about it, made a results.json of
# megabytes (BUILD_OUTPUT_MAX bounds the whole, not a line).
MESSAGE_LINE_MAX = 500


def messages_tail(text, n=60):
    """The last n lines of the compiler's output, each cut to
    MESSAGE_LINE_MAX characters."""
    return "\n".join(line if len(line) <= MESSAGE_LINE_MAX else
                     line[:MESSAGE_LINE_MAX] + " ... (%d characters more)" % (
                         len(line) - MESSAGE_LINE_MAX) for line in tail(text, n).splitlines())


def keep_output(text):
    text = text.strip("\n")
    return text if len(text) <= OUTPUT_MAX else "...\n" + text[-OUTPUT_MAX:]


# ---------------------------------------------------------------- one test program
class Outcome:
    """One test's result. again: a failure worth running again (a FAIL
    line, a panic: not a hang, whose rerun costs its whole limit). flaky:
    it failed, then passed when run again. not_run: the time budget cut it
    short or left it no time (a flag, not the reason's words: a test's
    reason can quote what the code under test wrote)."""

    def __init__(self, ok, reason="", output="", seconds=0.0, again=False, not_run=False):
        self.ok, self.reason, self.output, self.seconds = ok, reason, output, seconds
        self.again, self.flaky, self.not_run = again, False, not_run


def unescape(reason):
    """t.h sends a reason as one line: "\\n" is a newline, "\\\\" a backslash."""
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), reason)


class Console:
    """The console text of one boot since the last result line, kept
    bounded (a program printing in a loop must not exhaust the grader)."""

    KEEP = 4 * OUTPUT_MAX

    def __init__(self):
        self.text = ""

    def add(self, text):
        self.text = (self.text + printable(text))[-self.KEEP:]

    def take(self):
        text, self.text = self.text, ""
        return text


def stopped(proc):
    """How QEMU ended, in words: its output closes a moment before its
    status is there (poweroff(0) is status 1: isa-debug-exit)."""
    try:
        status = proc.wait(timeout=2)
    except subprocess.TimeoutExpired:
        status = None
    return "the guest powered off, or QEMU quit: status %s" % status


def with_monitor(args, sock):
    """QEMU's arguments with its monitor on a unix socket (for cpu_samples)."""
    args = list(args)
    at = args.index("-monitor")
    args[at + 1] = "unix:%s,server=on,wait=off" % sock
    return args


def orphan_guard():
    """What QEMU is started through, so that it dies with the grader: a
    grader stopped by a signal (kill, a batch stopped by hand) left QEMU
    spinning on in a student's endless loop. setpriv (util-linux) sets
    PR_SET_PDEATHSIG and execs; without it QEMU is started as it is."""
    return ["setpriv", "--pdeathsig", "KILL", "--"] if shutil.which("setpriv") else []


def boot_once(build, prog, names, limits, on_result=None, boot_limit=BOOT_LIMIT,
              stop_at_failure=False, until=None):
    """Boot build/ running prog with a fresh tag and key, naming `names`
    (None: the program's whole table), reading the console line by line as
    it comes. Returns (results {test: Outcome}, done, note, warnings): done
    when the program said DONE; note says why a boot ended with no test
    running (OUT_OF_TIME: the budget ran out); warnings are things an
    instructor should look at (lines whose MAC does not hold, the key asked
    for twice). stop_at_failure: end the boot at the first failed test (a
    FAIL line, a hang or a panic), for a check that needs only one. until:
    the grading's budget ends then (time.monotonic()): the boot ends there,
    and a test it cuts short before its own limit is not run, not hung."""
    tag, key = secrets.token_hex(TAG_DIGITS // 2), secrets.token_bytes(KEY_BYTES)
    cmd = "%s run=/bin/%s --graded %s%s" % (BOOT_ARGS, prog, tag,
                                                  "".join(" " + n for n in names or []))
    line_re = re.compile(LINE % tag.encode())
    results, current, done, note, warnings, voided = {}, None, False, "", [], False
    console, partial, keyed = Console(), b"", False
    start = time.monotonic()
    deadline = start + boot_limit
    mon = tempfile.mkdtemp(prefix="orthos-grade-")
    sock = os.path.join(mon, "monitor")
    proc = subprocess.Popen(orphan_guard() + with_monitor(qemu.kernel_args(cmd, build=build),
                                                          sock),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)

    def finish(name, outcome):
        if not outcome.ok:
            outcome.output = annotate(outcome.output, build)
        results[name] = outcome
        if on_result:
            on_result(name, outcome)

    def void(now):
        """The key was asked for a second time: only the harness asks, once,
        so something else (code that ran before it, or beside it) asked
        first and may hold the key. Nothing this boot said counts."""
        nonlocal current, note, voided
        warnings.append("the key was asked for twice in one boot (only the test program's "
                        "harness asks, once): look at this submission")
        note = VOIDED
        for name in list(results) + ([current] if current else []):
            finish(name, Outcome(False, VOIDED, keep_output(console.take()), now - start))
        current, voided = None, True

    def event(m, now):
        """One tagged line; True when the boot may end here."""
        nonlocal current, start, deadline, done, keyed
        if m.group(1):                          # READY: the program asks for the key
            if keyed:
                void(now)
                return True
            else:
                keyed = True
                try:
                    proc.stdin.write(key.hex().encode())
                    proc.stdin.flush()
                except OSError:
                    pass
            return False
        what, name = m.group(4).decode(), m.group(5).decode()
        if not hmac.compare_digest(m.group(2), line_mac(key, tag, m.group(3))):
            warnings.append("a result line's signature did not hold (the line was altered on "
                            "its way to the console, or forged): look at this submission")
            if what in ("PASS", "FAIL") and name == current:
                finish(name, Outcome(False, "this test's result line was altered on its way to "
                                     "the console (its signature does not hold), so it cannot "
                                     "count: %s" % printable(m.group(3).decode("utf-8", "replace")),
                                     keep_output(console.take()), now - start))
                current, deadline = None, now + boot_limit
                return stop_at_failure
            return False
        if what == "START":
            if current:
                finish(current, Outcome(False, "no result before the next test started",
                                        keep_output(console.take()), now - start))
                if stop_at_failure:
                    current = None
                    return True
            console.take()
            current, start = name, now
            deadline = now + limits.get(name, handout.DEFAULT_LIMIT)
        elif what in ("PASS", "FAIL") and name == current:
            reason = (m.group(6) or b"").decode("utf-8", "replace")
            finish(name, Outcome(what == "PASS", printable(unescape(reason)),
                                 keep_output(console.take()), now - start, what == "FAIL"))
            current, deadline = None, now + boot_limit
            return what == "FAIL" and stop_at_failure
        elif what == "DONE":
            if current:                         # its process ended with no result line
                finish(current, Outcome(False, "the test started but its process reported no "
                                        "result (did it close its output, or exit?)",
                                        keep_output(console.take()), now - start))
                current = None
            done = True
        return done

    try:
        stop = False
        while not stop:
            now = time.monotonic()
            end = deadline if until is None else min(deadline, until)
            ready, _, _ = select.select([fd], [], [], max(0, min(end - now, 0.2)))
            chunk = os.read(fd, 65536) if ready else b""
            now = time.monotonic()
            if ready and chunk:
                lines = (partial + chunk.replace(b"\r", b"")).split(b"\n")
                partial = lines.pop()[-OUTPUT_MAX:]     # a result line is far shorter
                for line in lines:
                    m = line_re.search(line)
                    console.add((line[:m.start()] if m else line + b"\n").decode("utf-8",
                                                                                 "replace"))
                    if m and event(m, now):
                        stop = True
                        break
                now = time.monotonic()
                end = deadline if until is None else min(deadline, until)
                if stop or now < end:           # a flood never pauses: look at the clock
                    continue
            gone = (ready and not chunk) or proc.poll() is not None
            if not gone and now < end:
                continue
            if voided:
                break
            console.add(partial.decode("utf-8", "replace"))
            said = console.take()
            if not gone and now < deadline:     # the budget's end, before the test's own
                note = OUT_OF_TIME
                if current:
                    finish(current, Outcome(False, budget_cut(now - start, limits.get(
                        current, handout.DEFAULT_LIMIT)), keep_output(said), now - start,
                        not_run=True))
                    current = None
                break
            where = "" if gone else cpu_samples(sock, build, prog)
            where = "\nWhen the grader stopped the machine its CPU was " + where if where else ""
            if current:
                if gone and "panic:" in said:
                    why = "the kernel panicked during the test:\n" + panic_text(said, build)
                elif gone:
                    why = "the machine stopped (%s) before the test reported" % stopped(proc)
                else:
                    why = HUNG + " of %g s (a hang)%s" % (
                        limits.get(current, handout.DEFAULT_LIMIT), where)
                finish(current, Outcome(False, why, keep_output(said), now - start,
                                        gone and "panic:" in said))
            elif "panic:" in said:
                note = "the kernel panicked before a test started:\n" + indent(
                    panic_text(said, build))
            elif gone:
                note = "the machine stopped (%s) before a test started:\n%s" % (
                    stopped(proc), indent(annotate(tail(said), build)))
            else:
                note = "no test started within %d s%s:\n%s" % (
                    boot_limit, where, indent(annotate(tail(said), build)))
            break
    finally:
        if proc.poll() is None:
            proc.kill()                         # this boot's QEMU, by its own PID
        proc.wait()
        proc.stdout.close()
        try:
            proc.stdin.close()
        except OSError:
            pass
        shutil.rmtree(mon, ignore_errors=True)
    return results, done and not voided, note, list(dict.fromkeys(warnings))


def budget_cut(ran, limit):
    """The reason of a test the grading's time budget stopped before its
    own limit: it was not given its time, so it did not fail."""
    return ("%s: this test had run %.1f s of its %g s limit when the grading's time for this "
            "submission ended; it scores 0, but it did not fail (tests that hung before it "
            "took the time)" % (OUT_OF_TIME, ran, limit))


def budget_left(seconds):
    """The reason of a test the grading's time budget left no time for."""
    return ("%s before this test could start: it scores 0, but it did not fail (the grading "
            "of a submission may take %s; tests that hung took the time)" % (
                OUT_OF_TIME, "%g s" % seconds if seconds else "only so long"))


def name_batches(names, prog, table):
    """Split names into boots whose command lines fit; [None] when names
    are the program's whole table (it then runs them all by itself)."""
    if table and list(names) == list(table):
        return [None]
    head = len("%s run=/bin/%s --graded %s" % (BOOT_ARGS, prog, "t" * TAG_DIGITS))
    batches, cur, size = [], [], head
    for n in names:
        if cur and (size + 1 + len(n) > CMDLINE_MAX or len(cur) >= ARGS_MAX - 3):
            batches.append(cur)
            cur, size = [], head
        cur.append(n)
        size += 1 + len(n)
    return batches + [cur] if cur else batches


def run_program(build, prog, names, limits, table=None, on_result=None, boot_limit=BOOT_LIMIT,
                stop_at_failure=False, until=None, budget=None, rerun=True):
    """Run the tests `names` of guest program prog, booting as often as
    needed: again after a hang or a panic, with the tests not yet run (each
    boot settles at least one test, so there are at most as many boots as
    tests), and in batches when the names do not fit one command line.
    names None: whatever the program runs (no reboots). stop_at_failure:
    stop at the first test that fails, leaving the rest out of the results
    (tools/mutants.py: one failure catches a mutant). until: when the
    grading's time budget (of `budget` seconds) ends (time.monotonic()); a
    test it cuts short or leaves no time for is OUT_OF_TIME. rerun: run the
    failed tests once more (run_again) here; run_tests says False and runs
    them itself after every program's first run. Returns ({test: Outcome},
    notes)."""
    results, notes = {}, []
    if names is None:
        got, done, note, warnings = boot_once(build, prog, None, limits, on_result, boot_limit,
                                              stop_at_failure, until)
        return got, ([note] if note else []) + warnings
    remaining = list(names)

    def fail_rest(why, each=False):
        first = None
        for n in remaining:
            if n not in results:
                results[n] = Outcome(False, why if first is None or each else
                                     "%s (see %s)" % (why.split(":\n")[0], first),
                                     not_run=why.startswith(OUT_OF_TIME))
                first = first or n
                if on_result:
                    on_result(n, results[n])

    while remaining:
        if until is not None and time.monotonic() >= until:
            fail_rest(budget_left(budget), each=True)
            break
        batch = name_batches(remaining, prog, table)[0]
        got, done, note, warnings = boot_once(build, prog, batch, limits, on_result, boot_limit,
                                              stop_at_failure, until)
        notes += [w for w in warnings if w not in notes]
        settled = [n for n in got if n in remaining]
        results.update((n, got[n]) for n in settled)
        if stop_at_failure and not all(o.ok for o in got.values()):
            break
        if note == VOIDED:                      # booting again would only repeat it
            notes.append(note)
            fail_rest(VOIDED)
            break
        if note == OUT_OF_TIME:
            fail_rest(budget_left(budget), each=True)
            break
        asked = remaining if batch is None else batch
        remaining = [n for n in remaining if n not in results]
        if not remaining:
            break
        if not settled:                         # (booting again would only repeat it)
            notes.append(note or "the test program ran no test")
            fail_rest("not run: " + (note or "the test program ran none of these tests"))
            break
        if done:
            missing = [n for n in asked if n not in results]
            if missing:
                remaining = missing
                fail_rest("not run: the test program has no such test, or skipped it")
                break
    if rerun and not stop_at_failure:
        notes += run_again(build, prog, names, results, limits, boot_limit, until)
    return results, notes


# Said of a test that failed, then passed when run again (Outcome.flaky).
FLAKY = "Run again in a new boot, this test passed"
RERUN_MAX = 20          # failed tests run again, at most (one boot, one command line)


def run_again(build, prog, names, results, limits, boot_limit, until):
    """Run the tests that failed with a FAIL line or a panic once more,
    together, in a new boot, when some test of the program passed (a stub
    fails everything, every time: no boot for it); those that pass are
    marked flaky. The first result stands: a failure a test saw is a bug
    it saw (a race), and a pass that comes on the second try does not
    undo it; what the rerun gives is the word "flaky" in the output, the
    notes and the batch's CSV, so that a grade that flips between two
    gradings of one submission is explained, not a mystery. Returns notes."""
    again = rerun_wanted(names, results)
    if not again or (until is not None and time.monotonic() >= until):
        return []
    got, _, _, warnings = boot_once(build, prog, name_batches(again, prog, None)[0], limits,
                                    None, boot_limit, False, until)
    flaky = [n for n in again if n in got and got[n].ok]
    for n in flaky:
        o = results[n]
        o.flaky = True
        o.reason += ("\n\n" if o.reason else "") + FLAKY + (
            " (%.1f s): its result depends on timing, a race? The failure above stands: a test "
            "that saw a wrong result once has found a bug." % got[n].seconds)
    return warnings + (["flaky: %s failed, then passed when run again in a new boot (the "
                        "failure stands)" % ", ".join(flaky)] if flaky else [])


def rerun_wanted(names, results):
    """The tests of a program's first run that run_again would run once
    more: those that failed with a FAIL line or a panic, when some test of
    the program passed (at most RERUN_MAX)."""
    if names is None or not any(o.ok for o in results.values()):
        return []
    return [n for n in names if n in results and results[n].again][:RERUN_MAX]


def test_table(source):
    """The test names a lab.h program lists (LAB_TEST(name)), in order, each
    once (a hidden test listed twice ran twice and counted twice)."""
    try:
        return list(dict.fromkeys(re.findall(r"\bLAB_TEST\(\s*(\w+)\s*\)",
                                             handout.read_text(source))))
    except OSError:
        return []


# ---------------------------------------------------------------- building
def make_env():
    return {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}


SETTINGS = {}


def tree_settings(tree):
    """{"CC", "KCFLAGS", "UCFLAGS"}: what tree's Makefile chooses ({} if it
    cannot say); asked once a process for each tree and Makefile (0.3 s of
    make, twice a grading, in a batch of hundreds)."""
    names = ("CC", "KCFLAGS", "UCFLAGS")
    try:
        key = (os.path.realpath(tree), os.stat(os.path.join(tree, "Makefile")).st_mtime_ns)
    except OSError:
        key = None
    if key in SETTINGS:
        return SETTINGS[key]
    p = subprocess.run(["make", "-s", "-C", tree, "DEPS=0"] + ["print-" + n for n in names],
                       capture_output=True, text=True, env=make_env())
    values = p.stdout.splitlines()
    if p.returncode != 0 or len(values) != len(names) or not all(v.strip() for v in values):
        return {}
    SETTINGS[key] = dict(zip(names, values))
    return SETTINGS[key]


def relaxed_flags(settings):
    """["KCFLAGS=...", "UCFLAGS=..."]: the tree's own compiler flags
    (tree_settings) without -Werror (official grading: a warning that the
    student's compiler did not give, or gave and they missed, is shown, not
    fatal). [] if the Makefile cannot say."""
    return ["%s=%s" % (name, " ".join(w for w in settings[name].split() if w != "-Werror"))
            for name in ("KCFLAGS", "UCFLAGS") if name in settings]


# A submission's code compiled under tools/ccguard.py (official grading):
# a folder first on make's PATH holds a script with the compiler's own name
# (build/flags, naming the compiler, stays as it is: nothing is rebuilt),
# which runs the real one through the guard. GUARD_MODE: how the guard can
# compile in a tree on this machine (asked once for each compiler and tree).
GUARD_MODE = {}


def build_user():
    """(uid, gid) a grader running as root compiles a submission as:
    nobody's (65534 where there is no such user), never root's. Gradescope
    runs the autograder as root, in a container that allows no sandbox; as
    root the compiler could test whether any file of the machine is there
    (`#if __has_include`), as nobody it meets the hidden tests' root-only
    folder's "Permission denied" whatever the folder holds."""
    try:
        pw = pwd.getpwnam("nobody")
        return pw.pw_uid, pw.pw_gid
    except KeyError:
        return 65534, 65534


def guard_mode(guard, real, tree, log=say):
    """(sandbox, user) for the guard's compiles in tree: in the sandbox
    where the machine allows one, and, when the grader is root, as
    build_user(); failing the sandbox, as build_user() alone; failing that
    too (a root grader whose work tree that user cannot reach), as we are,
    with a warning."""
    user = build_user() if os.geteuid() == 0 else None
    key = (real, os.path.realpath(tree))
    if key in GUARD_MODE:
        return GUARD_MODE[key]

    def works(sandbox, u):             # (in a process of its own: batch.py has threads)
        return subprocess.run([sys.executable, "-S", guard, "--real", real, "--tree", tree] +
                              (["--sandbox"] if sandbox else []) +
                              (["--user", "%d:%d" % u] if u else []) + ["--probe"],
                              stdin=subprocess.DEVNULL, capture_output=True).returncode == 0

    if works(True, user):
        mode = (True, user)
    elif user and works(False, user):
        mode = (False, user)
        log("note: no mount namespace here (a container without CAP_SYS_ADMIN?): the "
            "submission is compiled without the sandbox, as uid %d, which cannot read "
            "root-only folders (the hidden tests'); its checks still apply" % user[0])
    else:
        mode = (False, None)
        log("note: no mount namespace here (a container without CAP_SYS_ADMIN?): the "
            "submission is compiled without the sandbox, its checks still apply" if not user
            else "warning: no mount namespace here, and uid %d cannot reach the work tree %s: "
            "the submission is compiled as root, so its code can test whether any file of "
            "this machine is there (#if __has_include): make the tree's folders readable by "
            "all (doc/instructors.md, section 7)" % (user[0], tree))
    GUARD_MODE[key] = mode
    return mode


def guard_folder(tree, settings, log=say):
    """A folder holding the guard's script for tree's compiler, or None
    when the compiler is not a plain name on PATH (the build then runs
    unguarded, and the log says so)."""
    cc = settings.get("CC", "")
    real = shutil.which(cc) if cc and os.sep not in cc else None
    if not real:
        log("warning: the compiler %r is not a name on PATH: the submission is compiled "
            "without tools/ccguard.py" % cc)
        return None
    guard = os.path.join(ROOT, "tools", "ccguard.py")
    sandbox, user = guard_mode(guard, real, tree, log)
    folder = tempfile.mkdtemp(prefix="orthos-cc-")
    script = os.path.join(folder, cc)
    words = [sys.executable, "-S", guard, "--real", real, "--tree", os.path.realpath(tree)] + \
        (["--sandbox"] if sandbox else []) + (["--user", "%d:%d" % user] if user else [])
    with open(script, "w") as f:
        f.write("#!/bin/sh\nexec %s -- \"$@\"\n" % " ".join(shlex.quote(w) for w in words))
    os.chmod(script, 0o755)
    return folder


# What one process of a build may use (each compiler, assembler, linker, script):
# a submission's code is compiled on the grading machine, and `#include
# "/dev/zero"` makes cc1 read zeros into memory until the machine has none
# left (4 GiB, then 8, ...), a 1 GiB array initialised in a .data section
# writes a 1 GiB object, a macro bomb computes for ever. A clean build's
# biggest process is far below each limit (a 65 MiB sparse file in
# e2craft's image tree is the biggest file written).
BUILD_RLIMITS = (("RLIMIT_AS", 2 << 30), ("RLIMIT_FSIZE", 256 << 20), ("RLIMIT_CPU", 120))
BUILD_OUTPUT_MAX = 1 << 20  # bytes of make's output kept (its end): a flood of warnings is cut
LIMITED = ("import os, resource, sys\n"
           "for name, n in %r:\n"
           "    resource.setrlimit(getattr(resource, name), (n, n))\n"
           "os.execvp(sys.argv[1], sys.argv[1:])" % (BUILD_RLIMITS,))


# The process groups of the builds running now: each is a session of its
# own (so a late one is killed whole), out of reach of a signal to ours.
BUILDS = set()

# What a SIGTERM must not lose: where main() writes results.json (--json),
# the reports of the labs graded so far, and the grading in progress
# (report, tests, extra, its start), if any.
GRADING = {"json": None, "done": [], "now": None}


def on_sigterm(signum, frame):
    """SIGTERM (run_autograder's timeout, a batch stopping a grading): kill
    the builds, whose sessions the signal did not reach (one left running
    wrote on into a tree being removed); write results.json with what has
    finished (Gradescope, past its own limit, would record nothing); then
    die of the signal as before. QEMU dies with us (orphan_guard)."""
    for pgid in list(BUILDS):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
    if GRADING["json"] and (GRADING["done"] or GRADING["now"]):
        reports = GRADING["done"] + ([stopped_report(*GRADING["now"])] if GRADING["now"] else [])
        write_json(GRADING["json"], reports)
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


STOPPED = "not run: the grading was stopped (its time ran out) before this test finished"


def stopped_report(report, tests, extra, start):
    """The Report of a grading stopped part way: every test that finished,
    as it finished (a result counts once its signed line is in), and 0 for
    each other test, saying why."""
    done = {r["name"]: r for r in report.rows}
    done.update(report.partial)
    out = Report(report.lab, report.official)
    not_built(out, tests, extra, STOPPED)
    out.rows = [done.get(r["name"], r) for r in out.rows]
    out.build_ok, out.build_output, out.warnings = (report.build_ok, report.build_output,
                                                    report.warnings)
    lost = sum(r["output"] == STOPPED for r in out.rows)
    out.notes = report.notes + ["the grading was stopped before it finished: the %d tests it "
                                "had not finished score 0; tell the course staff" % lost]
    out.seconds = time.monotonic() - start
    return out


def make(tree, jobs=None, relaxed=False, limit=BUILD_LIMIT, guard=False, log=say):
    """make all in tree, each of its processes under BUILD_RLIMITS, with no
    input (`#include "/dev/stdin"` would wait for the grader's terminal),
    stopped after `limit` seconds: (ok, the last BUILD_OUTPUT_MAX bytes of
    its output). relaxed: without -Werror. guard: every C file compiled
    through tools/ccguard.py (a submission: no file of the machine outside
    the work tree is read)."""
    settings = tree_settings(tree) if relaxed or guard else {}
    folder = guard_folder(tree, settings, log) if guard else None
    env = make_env()
    if folder:
        env["PATH"] = folder + os.pathsep + env.get("PATH", "")
    try:
        return run_make(tree, jobs, relaxed_flags(settings) if relaxed else [], limit, env)
    finally:
        if folder:
            shutil.rmtree(folder, ignore_errors=True)


def run_make(tree, jobs, flags, limit, env):
    """make's run for make(): flags on its command line, env its environment."""
    p = subprocess.Popen([sys.executable, "-c", LIMITED, "make", "-C", tree, "-s",
                          "-j%d" % (jobs or os.cpu_count() or 1), "all"] + flags,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, env=env, start_new_session=True)
    BUILDS.add(p.pid)
    out, deadline, late = b"", time.monotonic() + limit, False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                late = True
                break
            ready, _, _ = select.select([p.stdout], [], [], left)
            chunk = os.read(p.stdout.fileno(), 65536) if ready else b""
            if ready and not chunk:
                break
            out = (out + chunk)[-BUILD_OUTPUT_MAX:]
    finally:
        BUILDS.discard(p.pid)
        if late:
            os.killpg(p.pid, signal.SIGKILL)    # make and the compilers it started
        p.stdout.close()
        p.wait()
    text = printable(out.decode("utf-8", "replace"))
    if late:
        text += "\nthe build took more than %d s: stopped" % limit
    return p.returncode == 0 and not late, text


def compiler_messages(out):
    """What the compiler said in make's output (the Makefile's own "  CC
    file" lines left out): "" when it said nothing."""
    said = [line for line in out.splitlines() if not re.match(r"^  [A-Z][A-Z0-9]* +\S", line)]
    return messages_tail("\n".join(said)) if any("warning:" in line for line in said) else ""


def clear_extra(tree):
    """Take every trace of hidden tests out of a tree's build: sources,
    objects, programs, and the boot archive that held them (the next
    submission's code must not reach them, not even at compile time)."""
    build = os.path.join(tree, "build")
    gone = False
    for path in (os.path.join(build, "extra"), os.path.join(build, "u", "build", "extra")):
        if os.path.lexists(path):
            handout.remove(path)
            gone = True
    bins = os.path.join(build, "root", "bin")
    for p in os.listdir(bins) if os.path.isdir(bins) else []:
        if p.startswith("extra_"):
            os.unlink(os.path.join(bins, p))
            gone = True
    if gone:
        handout.remove(os.path.join(build, "initrd.tar"))


def add_extra(tree, extra):
    """Copy the hidden tests into the tree's build/extra (Makefile: /bin/extra_NAME)."""
    dest = os.path.join(tree, "build", "extra")
    os.makedirs(dest, exist_ok=True)
    for p in extra_programs(extra):
        shutil.copyfile(os.path.join(extra, p + ".c"), os.path.join(dest, p + ".c"))


def extra_programs(extra):
    return sorted(f[:-2] for f in os.listdir(extra) if f.endswith(".c")) if extra else []


# ---------------------------------------------------------------- work trees
def full_tree(root=ROOT):
    """Does root hold anything students may not see (instructor-only files,
    or any file not PUBLISHED)?"""
    return any(not handout.published(rel) for rel in handout.tracked_files(root))


def grade_home(root=ROOT):
    """Where root's grading work trees live. A submission's C code is
    compiled in one and could name any file by a relative path, so a tree
    holding what students may not see (the full tree: key.md, mutants, this
    guide) never holds them: they go to ORTHOS_GRADE_DIR (default
    ~/.cache/orthos-grade), in a folder named after root. A course tree
    (a student's, or the Gradescope package's) keeps them in build/grade."""
    if not full_tree(root):
        return os.path.join(root, "build", "grade")
    cache = os.environ.get("ORTHOS_GRADE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "orthos-grade")
    real = os.path.realpath(root)
    return os.path.join(cache, "%s-%s" % (os.path.basename(real),
                                          hashlib.sha1(real.encode()).hexdigest()[:10]))


def worker_dir(lab, worker=0, root=ROOT):
    """Work tree number `worker` for lab: GRADE_HOME/NN-RANDOM/wK, RANDOM
    made once and kept in root's build/grade/NN.where, so that a submission
    for one lab cannot name another lab's work tree (in which this lab is
    solved)."""
    where = os.path.join(root, "build", "grade", lab.num + ".where")
    try:
        folder = handout.read_text(where).strip()
    except OSError:
        folder = ""
    if not folder:
        folder = os.path.join(grade_home(root), "%s-%s" % (lab.num, secrets.token_hex(6)))
        os.makedirs(os.path.dirname(where), exist_ok=True)
        with open(where, "w") as f:
            f.write(folder + "\n")
    return os.path.join(folder, "w%d" % worker)


# build/flags too: it names the compiler and flags the objects were made
# with, and every object depends on it (a tree without it rebuilt all).
BUILD_OUTPUTS = ("flags", "boot", "kernel", "u", "user", "root", "libc.a", "initrd.tar",
                 "orthos.elf", "orthos.pass1.elf", "ksyms1.c", "ksyms1.o", "ksyms1.d")


def seed_build(src, tree):
    """Start tree's build/ from src's: every file of tree that is the same
    as src's takes src's mtime, then src's build outputs are copied (mtimes
    kept), so make rebuilds only what differs. Does nothing if tree already
    has a build/ or src has none."""
    built = os.path.join(src, "build")
    if os.path.isdir(os.path.join(tree, "build")) or \
            not os.path.exists(os.path.join(built, "orthos.elf")):
        return
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = [d for d in dirnames if not (dirpath == tree and d in ("build", ".git"))]
        for f in filenames:
            mine = os.path.join(dirpath, f)
            theirs = os.path.join(src, os.path.relpath(mine, tree))
            try:
                with open(mine, "rb") as a, open(theirs, "rb") as b:
                    if a.read() != b.read():
                        continue
            except OSError:
                continue
            st = os.stat(theirs)
            os.utime(mine, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.makedirs(os.path.join(tree, "build"))
    for name in BUILD_OUTPUTS:
        s, d = os.path.join(built, name), os.path.join(tree, "build", name)
        if os.path.isdir(s):
            shutil.copytree(s, d, symlinks=True)
        elif os.path.exists(s):
            shutil.copy2(s, d)
    present = {lab.prog for lab in handout.labs(tree)}
    bins = os.path.join(tree, "build", "root", "bin")
    for f in os.listdir(bins) if os.path.isdir(bins) else []:
        if re.fullmatch(r"lab\d\d", f) and f not in present or f.startswith("extra_"):
            os.unlink(os.path.join(bins, f))


def pristine_files(lab, root=ROOT):
    """{path: (bytes, mode)}: root's course tree for lab (handout.course_tree:
    lab and every later lab stubbed). In a student's own tree lab's files
    hold their work, not its stubs: those are put back from the course
    repository's first commit (handout.course_copy), the student's earlier
    labs staying in. Exits if lab's stubs cannot be found."""
    files = handout.course_tree(lab.num, lab.num, root)
    for rel in lab.files():
        data, mode = files.get(rel, (b"", 0o644))
        text = data.decode("utf-8", "replace")
        if any(m.group(1) == lab.num for m in handout.STUB.finditer(text)):
            continue
        course = handout.course_copy(rel, root)
        text = handout.restub(text, lab.num, course, rel, root) if course else None
        if text is None:
            raise SystemExit("grade: %s has no stub of lab %s, and its stub cannot be found in "
                             "the git history of %s: grade hand-ins in the course's tree (or "
                             "in a clone of the course repository)" % (rel, lab.num, root))
        files[rel] = (text.encode(), mode)
    return files


class TreeLock:
    """Sole use of one work tree (an flock on TREE.lock), for as long as a
    grading writes, builds and boots it: two gradings at once (make grade
    SUBMISSION= while a batch runs, two of make test's suites) in one tree
    built each other's code and scored each other's boots. A second one
    waits, saying so."""

    def __init__(self, tree, log=say):
        self.path, self.log, self.fd = tree.rstrip(os.sep) + ".lock", log, None

    def __enter__(self):
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.log("waiting for the work tree %s: another grading is using it" %
                     os.path.dirname(self.path))
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        os.close(self.fd)                   # and with it the lock


def base_tree(lab, worker=0, root=ROOT):
    """The worker's work tree for lab, in place: pristine_files (so a file
    missing from a submission is a stub, never the solution). Files
    already right are not touched, so its build/ stays valid; a new worker
    starts as a copy of worker 0, built objects included, and worker 0 from
    this tree's own build/. Returns its path. The caller holds its
    TreeLock."""
    tree = worker_dir(lab, worker, root)
    first = worker_dir(lab, 0, root)
    fresh = not os.path.isdir(tree)
    if worker and fresh and os.path.isdir(os.path.join(first, "build")):
        with TreeLock(first, log=lambda _: None):      # not while worker 0 is building
            shutil.copytree(first, tree, symlinks=True)
        fresh = False
    os.makedirs(tree, exist_ok=True)
    handout.write_tree(pristine_files(lab, root), tree)
    if fresh and not (worker == 0 and seed_from_prepared(lab, tree, root)):
        seed_build(root, tree)              # the tree's own objects, where files agree
    return tree


def seed_from_prepared(lab, tree, root=ROOT):
    """Seed a new worker-0 tree of lab from another lab's worker-0 tree of
    root that is PREPARED (built with the grading's flags, as this one will
    be), if one is free now: make then recompiles only the files that
    differ between the two (the labs' stubs and solutions, a submission
    left in it), where root's objects (made with -Werror: other flags)
    recompiled every file. True if it did."""
    for other in handout.labs(root):
        if other.num == lab.num or not os.path.exists(
                os.path.join(root, "build", "grade", other.num + ".where")):
            continue
        src = worker_dir(other, 0, root)
        if not os.path.exists(os.path.join(src, "build", PREPARED)):
            continue
        fd = os.open(src + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)     # not while it grades
        except BlockingIOError:
            os.close(fd)
            continue
        try:
            if os.path.exists(os.path.join(src, "build", PREPARED)):
                seed_build(src, tree)
                return True
        finally:
            os.close(fd)
    return False


# In a work tree's build/ once its pristine files have been built with the
# grading's flags (make relaxed). A new tree starts from the full tree's
# objects, made with -Werror: build/flags differs, so its first build
# recompiles everything, and inside a submission's build limit (300 s) that
# took more than 300 s at load 17 on two cores: a correct hand-in scored 0,
# "does not build", for the grader's own build. It is done first now, under
# BUILD_LIMIT, as --prepare does.
PREPARED = "grade-prepared"


def build_pristine(tree, jobs=None, log=say):
    """make the tree's pristine files (no submission in it yet) with the
    grading's flags: (ok, output); marks the tree PREPARED when it builds."""
    clear_extra(tree)
    ok, out = make(tree, jobs, relaxed=True, log=log)
    if ok:
        with open(os.path.join(tree, "build", PREPARED), "w") as f:
            f.write("built with the grading's flags\n")
    return ok, out


def prepare(lab, worker=0, jobs=None, root=ROOT):
    """Build the worker's work tree: (tree, ok, make output)."""
    with TreeLock(worker_dir(lab, worker, root)):
        tree = base_tree(lab, worker, root)
        ok, out = build_pristine(tree, jobs)
    return tree, ok, out


# ---------------------------------------------------------------- submissions
class Capped:
    """A file to read that fails after `limit` bytes: reading an archive
    stops there however well its contents compress."""

    def __init__(self, f, limit):
        self.f, self.left = f, limit

    def read(self, n=-1):
        data = self.f.read(self.left + 1 if n is None or n < 0 else n)
        self.left -= len(data)
        if self.left < 0:
            raise OSError("it unpacks to more than %d MiB" % (UNPACK_MAX >> 20))
        return data


# A tar's own headers (pax records, GNU long names): Python's tarfile (before
# 3.11.10 and 3.12.6, CVE-2024-6232; 3.11.7 here) reads a pax header with
# regular expressions that take time quadratic in its size, and a .tar.gz
# holding one pax header of a megabyte of digits held the grader for hours
# (a batch has no time limit). A header may have HEADER_MAX bytes,
# HEADERS_MAX in all (worst about 1 s; a hand-in's are far smaller).
HEADER_MAX = 4096
HEADERS_MAX = 64 << 10
HEADER_TYPES = (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE,
                tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK)


def bounded_headers():
    """A TarInfo class for one archive's reading that refuses a header of
    HEADER_TYPES over HEADER_MAX bytes, or past HEADERS_MAX in all, and a
    member of negative size (a pax header of -2**40 bytes gave the budget
    back, for 20000 more headers of 4 KiB: 25 minutes)."""
    left = [HEADERS_MAX]

    class Bounded(tarfile.TarInfo):
        @classmethod
        def frombuf(cls, buf, encoding, errors):
            info = super().frombuf(buf, encoding, errors)
            if info.size < 0:           # (base-256: 3.11.7 takes it, and it refunded left)
                raise tarfile.ReadError("it has a member of negative size (%d)" % info.size)
            if info.type in HEADER_TYPES:
                left[0] -= info.size
                if info.size > HEADER_MAX or left[0] < 0:
                    raise tarfile.ReadError("it has a tar header (pax records or a long name) "
                                            "of %d bytes: the grader reads at most %d each, %d "
                                            "in all" % (info.size, HEADER_MAX, HEADERS_MAX))
            return info
    return Bounded


# Bytes of a zip's central directory, at most: zipfile reads it whole and
# makes an object of every entry before the ARCHIVE_FILES cap can apply, and
# a 63 MiB zip listing 1.3 million empty members took 32 s and 600 MB to
# open. 16 MiB lists 20000 members of 800-byte names and fields.
DIRECTORY_MAX = 16 << 20


def zip_directory_size(path):
    """The size of a zip's central directory as its end record (or its
    zip64 end record, just before, where zipfile looks) gives it: what
    zipfile will read. 0 if there is no end record."""
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        start = max(0, size - (22 + 65535))     # the end record, then a comment
        f.seek(start)
        tail = f.read()
        at = len(tail) - 22                     # as zipfile looks: at the end, then back
        if at < 0 or tail[at:at + 4] != b"PK\x05\x06" or tail[-2:] != b"\0\0":
            at = tail.rfind(b"PK\x05\x06")
        if at < 0 or at + 22 > len(tail):
            return 0
        directory = struct.unpack_from("<I", tail, at + 12)[0]
        if start + at >= 20 + 56:
            f.seek(start + at - 20 - 56)
            record = f.read(56)
            if record[:4] == b"PK\x06\x06":
                directory = max(directory, struct.unpack_from("<Q", record, 40)[0])
    return directory


def safe_extract(archive, dest, wanted=None):
    """Unpack a .zip or a tar (plain or gzipped) into dest: regular files
    only (wanted(name) says which, default all), nothing outside dest,
    files of at most FILE_MAX bytes, ARCHIVE_MAX in all, at most
    ARCHIVE_FILES members looked at and UNPACK_MAX bytes decompressed.
    Returns notes on what was left out."""
    room, notes = [ARCHIVE_MAX], []

    def put(name, size, read):
        path = os.path.normpath(os.path.join(dest, name))
        if not path.startswith(os.path.abspath(dest) + os.sep) or size > FILE_MAX or \
                size > room[0] or (wanted and not wanted(os.path.relpath(path, dest))):
            return
        room[0] -= size
        data = read()[:FILE_MAX]                # before the file is made: reading may fail
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as out:
            out.write(data)

    if os.path.getsize(archive) > ARCHIVE_MAX:
        raise OSError("it is larger than %d MiB" % (ARCHIVE_MAX >> 20))
    if zipfile.is_zipfile(archive):
        if zip_directory_size(archive) > DIRECTORY_MAX:
            raise OSError("its list of members takes more than %d MiB" % (DIRECTORY_MAX >> 20))
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist()[:ARCHIVE_FILES]:
                kind = (info.external_attr >> 16) & 0o170000
                if not info.is_dir() and kind in (0, 0o100000):
                    # Windows PowerShell 5.1's Compress-Archive (and .NET before
                    # 4.6.1) writes names like user\lib\open.c, against the zip format:
                    # taken as one name at the top, every lab file went missing
                    # and a correct hand-in was graded as the stub. No file of a
                    # lab has a backslash in its name.
                    put(info.filename.replace("\\", "/"), info.file_size,
                        lambda: z.open(info).read(FILE_MAX + 1))
        return notes
    with open(archive, "rb") as raw:
        packed = raw.read(2) == b"\x1f\x8b"
        raw.seek(0)
        stream = Capped(gzip.GzipFile(fileobj=raw) if packed else raw, UNPACK_MAX)
        with tarfile.open(fileobj=stream, mode="r|", tarinfo=bounded_headers()) as t:
            for count, m in enumerate(t):       # one member at a time: no index read first
                if count >= ARCHIVE_FILES:
                    notes.append("%s has more than %d members: the rest were not looked at" %
                                 (os.path.basename(archive), ARCHIVE_FILES))
                    break
                if m.isfile():
                    put(m.name, m.size, lambda: t.extractfile(m).read(FILE_MAX + 1))
    return notes


# What unpacking a broken or unusual archive raises: zipfile says
# RuntimeError for a password-protected member and NotImplementedError for
# a compression it lacks (Deflate64, which Windows writes), and either once
# stopped the grader with no result at all.
UNPACK_ERRORS = (OSError, EOFError, zipfile.BadZipFile, tarfile.TarError, RuntimeError,
                 NotImplementedError, ValueError, zlib.error, LookupError)


def unpack_error(e):
    """What went wrong, as the student should read it."""
    if isinstance(e, RuntimeError) and "encrypted" in str(e):
        return "it is password-protected (encrypted): hand in an archive without a password"
    if isinstance(e, NotImplementedError):
        return "it uses a compression method the grader cannot read (%s): make it with " \
            "`make handin`, or zip/tar" % e
    return str(e)


def is_archive_name(name):
    return name.endswith((".zip", ".tar.gz", ".tgz", ".tar"))


def is_archive(path):
    return os.path.isfile(path) and is_archive_name(path)


HANDIN = "build/handin/"   # in a work tree: the submission's own copies, for the compiler's messages


class Submission:
    """The lab's files and answers.md from a submission, and notes on it."""

    def __init__(self, lab, path):
        self.lab, self.files, self.answers, self.notes = lab, {}, None, []
        self.elsewhere = {}         # {path: digest} of the course's other files it holds
        self.want = set(lab.files() + ["answers.md"])
        # A lab file by its name alone, where no other lab file has that name:
        # Gradescope lets a student drop open.c itself on the upload page, and
        # it arrives at the top of the submission, not at user/lib/open.c
        names = [os.path.basename(rel) for rel in lab.files()]
        self.by_name = {n: rel for n, rel in zip(names, lab.files()) if names.count(n) == 1}
        with tempfile.TemporaryDirectory() as tmp:
            if is_archive(path):
                top = os.path.join(tmp, "submission")
                os.makedirs(top)
                try:
                    self.notes += safe_extract(path, top, self.wanted)
                except UNPACK_ERRORS as e:
                    self.notes.append("cannot unpack %s: %s" % (os.path.basename(path),
                                                                 unpack_error(e)))
                    return
                path = top
            elif os.path.lexists(path) and not os.path.isdir(path):
                self.notes.append("%s is neither a folder nor an archive the grader reads "
                                  "(.zip, .tar.gz, .tgz, .tar)" % os.path.basename(path))
                return
            elif not os.path.isdir(path):
                self.notes.append("no such submission: %s" % path)
                return
            base = self.find_root(path, tmp, nested=path.startswith(tmp))
            self.elsewhere = self.other_files(base)
            for rel in lab.files() + ["answers.md"]:
                data = self.read(base, rel)
                if data is None and rel != "answers.md":
                    data = self.read_loose(base, rel)
                if data is not None:
                    data, was = plain_text(data)
                    if was:
                        self.notes.append("%s was %s: read as UTF-8 with LF line endings" %
                                          (rel, was))
                    if rel != "answers.md" and data.count(b"\n") > LINES_MAX:
                        self.notes.append("%s has more than %d lines: ignored" % (rel, LINES_MAX))
                        data = None
                if rel == "answers.md":
                    self.answers = None if data is None else data.decode("utf-8", "replace")
                elif data is not None:
                    self.files[rel] = data
        missing = [rel for rel in lab.files() if rel not in self.files]
        if missing:
            self.notes.append("missing from the submission (graded as the stub): " +
                              ", ".join(missing))

    def wanted(self, name):
        """Is an archive's member (a normalised path) one the grader reads: a
        lab file or answers.md, at the top or one folder down, a lab file's
        name alone at the top (read_loose), or an archive at the top?"""
        parts = name.split(os.sep)
        return any("/".join(parts[i:]) in self.want or handout.published("/".join(parts[i:]))
                   for i in (0, 1)) or \
            (len(parts) == 1 and (is_archive_name(name) or name in self.by_name))

    def read_loose(self, base, rel):
        """rel's bytes from a file of its name alone beside the submission's
        folders (open.c for user/lib/open.c), when nothing is at rel's own
        path: a student who uploads the file itself, not the tree around
        it. None if there is none, or the name is not rel's alone."""
        name = os.path.basename(rel)
        if self.by_name.get(name) != rel or os.path.lexists(os.path.join(base, rel)) or \
                not os.path.lexists(os.path.join(base, name)):
            return None
        data = self.read(base, name)
        if data is not None:
            self.notes.append("%s was not at its path, %s: the %s at the submission's top was "
                              "taken for it" % (name, rel, name))
        return data

    def find_root(self, path, tmp, nested=False):
        """The folder holding the lab's files: the top, or a folder one below
        it (an archive of a folder; never through a symbolic link); or,
        failing that, an archive inside (Gradescope keeps an uploaded
        .tar.gz as it is)."""
        wanted = self.lab.files() + ["answers.md"]

        def score(d):
            return sum(os.path.isfile(os.path.join(d, rel)) for rel in wanted)

        candidates = [path] + [os.path.join(path, d) for d in sorted(os.listdir(path))
                               if os.path.isdir(os.path.join(path, d)) and d != "__MACOSX"
                               and not os.path.islink(os.path.join(path, d))]
        best = max(candidates, key=score)
        also = [d for d in candidates if d != best and score(d) == score(best) > 0]
        if also:            # (a folder zipped with an older copy of itself beside it)
            self.notes.append("the lab's files are in more than one folder of the "
                              "submission: graded %s; not used: %s" % (
                                  os.path.relpath(best, path) if best != path else "its top",
                                  ", ".join(os.path.relpath(d, path) for d in also[:5])))
        if score(best) == 0:
            archives = [os.path.join(path, f) for f in sorted(os.listdir(path))
                        if is_archive(os.path.join(path, f))
                        and not os.path.islink(os.path.join(path, f))]
            if len(archives) == 1 and not nested:
                inner = os.path.join(tmp, "unpacked")
                os.makedirs(inner)
                try:
                    self.notes += safe_extract(archives[0], inner, self.wanted)
                except UNPACK_ERRORS as e:
                    self.notes.append("cannot unpack %s: %s" % (os.path.basename(archives[0]),
                                                                 unpack_error(e)))
                return self.find_root(inner, tmp, nested=True)
        return best

    def other_files(self, base):
        """{path: sha1} of the files under base that the course has but the
        grader does not take (a Makefile, tools/, a test.c, other labs'
        files): compared with the work tree's, the changed ones are named
        in a note, so that a student who edited them knows it went unused.
        No symbolic link is followed; at most ARCHIVE_FILES files are
        looked at, none over FILE_MAX bytes."""
        found, seen = {}, 0
        for dirpath, dirnames, filenames in os.walk(base):
            if dirpath == base:
                dirnames[:] = [d for d in dirnames if d not in (".git", "build", "__MACOSX")]
            for f in filenames:
                seen += 1
                if seen > ARCHIVE_FILES:
                    return found
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, base)
                if rel in self.want or not handout.published(rel) or os.path.islink(path) or \
                        not os.path.isfile(path) or os.path.getsize(path) > FILE_MAX:
                    continue
                with open(path, "rb") as fh:
                    found[rel] = hashlib.sha1(fh.read()).hexdigest()
        return found

    def unused(self, tree):
        """A note naming the files of the submission outside the lab's own
        that differ from the work tree's (so were not used), or []."""
        changed = []
        for rel, digest in sorted(self.elsewhere.items()):
            try:
                with open(os.path.join(tree, rel), "rb") as f:
                    if hashlib.sha1(f.read()).hexdigest() != digest:
                        changed.append(rel)
            except OSError:
                continue                        # a file of a later lab: not in this tree
        if not changed:
            return []
        return ["%d file%s outside lab %s's own differ from the grading tree's and were not used "
                "(the grader builds its own Makefile, tools, tests and earlier labs' reference "
                "code; only the lab's regions in %s are taken): %s%s" % (
                    len(changed), "s" if len(changed) > 1 else "", self.lab.num,
                    ", ".join(self.lab.files()), ", ".join(changed[:12]),
                    " and %d more" % (len(changed) - 12) if len(changed) > 12 else "")]

    def read(self, base, rel):
        """rel's bytes, if it is a regular file inside base (no symbolic
        link on the way leads out of the submission); else None."""
        path = os.path.join(base, rel)
        if os.path.islink(path):
            self.notes.append("%s is a symbolic link: ignored" % rel)
            return None
        if not os.path.isfile(path):
            return None
        if not os.path.realpath(path).startswith(os.path.realpath(base) + os.sep):
            self.notes.append("%s leads out of the submission (a symbolic link on its way): "
                              "ignored" % rel)
            return None
        if os.path.getsize(path) > FILE_MAX:
            self.notes.append("%s is larger than %d bytes: ignored" % (rel, FILE_MAX))
            return None
        with open(path, "rb") as f:
            return f.read()

    def graded(self, tree):
        """{path: bytes} to write into the work tree: each of the lab's files
        as the tree has it, with the code of the lab's regions taken from
        the submission's copy and nothing else; notes on what was left out,
        and on what an instructor should look at in the code taken. The
        submission's copy goes to HANDIN too: #line directives around the
        code taken make compiler messages and backtraces name its lines."""
        num, out, taken = self.lab.num, {}, {}
        for rel, data in sorted(self.files.items()):
            reference = handout.read_text(os.path.join(tree, rel))
            lines, number, found, changed, lacking = handout.locate_regions(
                data.decode("utf-8", "replace"), reference, rel)
            mine = sorted(who for who in found if who[0] == num)
            bodies = [("".join(lines[found[who][0]:found[who][1]]),
                       (number + [len(number) + 1])[found[who][0]]) if found[who] else None
                      for who in mine]
            lost = [str(who[1]) for who in mine if found[who] is None]
            if lost:
                self.notes.append("%s: lab %s's code (region %s) cannot be found: the lines "
                                  "around it are not the course's; it is graded as the stub"
                                  % (rel, num, ", ".join(lost)))
            if changed or lacking:
                self.notes.append("%s: text outside the labs' regions is not the course's (%s): "
                                  "it is not graded, only the code in lab %s's regions is" % (
                                      rel, line_ranges(changed, lacking), num))
            out[rel] = handout.fill_stubs(reference, num, bodies, HANDIN + rel).encode()
            out[HANDIN + rel] = data
            taken[rel] = "".join(b[0] for b in bodies if b)
        self.notes += suspicious(taken)
        return out


def plain_text(data):
    """(data as UTF-8 with LF line endings, what it was or ""): a file saved
    on Windows has CRLF line endings (git's autocrlf, an editor), and
    PowerShell's `>` writes UTF-16; either way no line around a region was
    the course's, and a correct solution was graded as the stub."""
    was = []
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            data = data.decode("utf-16").encode("utf-8")
            was.append("UTF-16")
        except UnicodeDecodeError:
            pass
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
        was.append("UTF-8 with a byte-order mark")
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        was.append("written with CR line endings (Windows')")
    return data, " and ".join(was)


def line_ranges(lines, lacking=0):
    """"lines 3-5, 9; 2 of its lines missing" (at most 6 ranges)."""
    ranges = []
    for n in lines:
        if ranges and ranges[-1][1] == n - 1:
            ranges[-1][1] = n
        else:
            ranges.append([n, n])
    said = ", ".join("%d-%d" % (a, b) if a != b else "%d" % a for a, b in ranges[:6])
    said = ("line%s %s%s" % ("s" if len(lines) > 1 else "", said,
                             ", ..." if len(ranges) > 6 else "")) if ranges else ""
    more = "%d of its lines missing" % lacking if lacking else ""
    return "; ".join(p for p in (said, more) if p)


def suspicious(taken):
    """Things in the graded code ({path: the lab's regions' text}) that an
    instructor should look at: result-like strings, the grader's key, tag
    or console input, and every preprocessor line and asm statement (the
    only ways C code can read a file of the grading machine when it is
    compiled: #include, #embed, .incbin)."""
    notes = []
    for rel, text in sorted(taken.items()):
        if re.search(r'"[^"\n]*\b(PASS|FAIL|START|DONE|READY) ', text):
            notes.append("%s prints text like a test result (it cannot count)" % rel)
        if re.search(r"--graded|\blab_(key|tag|graded|print_signed)\b|\bt_print_line\b|"
                     r"\bboot_arg\b|\bsiphash|F_SETTTY|TTY_RAW|/dev/console|\bdevsw\b|"
                     r"DEV_CONSOLE|\b(console|tty)_\w+\s*\(|(?i:736f6d6570736575|"
                     r"646f72616e646f6d|6c7967656e657261|7465646279746573)", text):
            notes.append("%s refers to the grader's key, tag or console input (or to the "
                         "console's driver, or SipHash): look at it" % rel)
        if re.search(r"^[ \t]*#", text, re.M):
            notes.append("%s has a preprocessor line (#include, #define...) in the lab's code: "
                         "look at it (an #include of a file outside the work tree is refused, "
                         "but #if __has_include can test whether one is there)" % rel)
        if re.search(r"\b(asm|__asm__|__asm)\b", text):
            notes.append("%s has assembly in the lab's code: look at it (.incbin, .include "
                         "and gas macros are refused)" % rel)
    return notes


# ---------------------------------------------------------------- written answers
def answer_sections(text):
    """{(lab or None, question): text} from answers.md: a heading names the
    lab ("Lab 04") and/or the question ("question 2", "Q2", or "2." first);
    the text under it, to the next heading, is the answer."""
    sections, cur_lab, cur = {}, None, None
    for line in text.splitlines():
        h = re.match(r"^\s{0,3}#{1,6}\s+(.*)", line)
        if h:
            title = h.group(1)
            ml = re.search(r"\blab\s*0*(\d+)", title, re.I)
            mq = re.search(r"\b(?:question|q)\s*0*(\d+)", title, re.I) or \
                re.match(r"0*(\d+)\b", title)
            if ml:
                cur_lab = int(ml.group(1))
            cur = (cur_lab, int(mq.group(1))) if mq else None
            if cur:
                sections.setdefault(cur, [])
            continue
        if cur:
            sections[cur].append(line + "\n")     # (a string grown line by line: quadratic)
    return {k: "".join(v) for k, v in sections.items()}


def without_comments(text):
    """text without its HTML comments (<!-- ... -->; one never closed is
    left as it is), in one pass: re.sub(r"<!--.*?-->") searched to the end
    from every "<!--" with no "-->" after it, and an answers.md of 250000
    of them held the grader for an hour."""
    out, at = [], 0
    while True:
        start = text.find("<!--", at)
        end = text.find("-->", start + 4) if start >= 0 else -1
        if end < 0:
            return "".join(out) + text[at:]
        out.append(text[at:start])
        at = end + 3


def check_answers(lab, text):
    """[(question, state)] for the lab's written questions: state is
    "answered", "missing", "empty", "placeholder" or "too short"."""
    questions = lab.questions()
    if text is None:
        return [(q, "missing") for q in questions]
    sections = answer_sections(text)
    any_lab = not any(k[0] is not None for k in sections)
    out = []
    for q in questions:
        body = sections.get((int(lab.num), q), sections.get((None, q)) if any_lab else None)
        if body is None:
            out.append((q, "missing"))
            continue
        body = without_comments(body)
        words = re.findall(r"\w+", body.replace(handout.PLACEHOLDER, ""))
        state = ("answered" if len(words) >= 3 else "too short" if words else
                 "placeholder" if handout.PLACEHOLDER in body else "empty")
        out.append((q, state))
    return out


def answers_summary(lab, states):
    if not states:
        return "Written questions: lab %s's README lists none." % lab.num
    done = sum(s == "answered" for _, s in states)
    return ("Written questions (answers.md, graded by hand): %d of %d answered%s" % (
        done, len(states), "" if done == len(states) else " (" + ", ".join(
            "question %d %s" % (q, s) for q, s in states if s != "answered") + ")"))


# ---------------------------------------------------------------- grading
class Report:
    """Everything one grading run found."""

    def __init__(self, lab, official):
        self.lab, self.official = lab, official
        self.rows = []              # dicts: name, score, max_score, output, hidden
        self.partial = {}           # name: row, of the program running now, as they come
        self.build_ok, self.build_output = True, ""
        self.warnings = ""          # what the compiler said, when the build went through
        self.answers = []           # [(question, state)]
        self.notes = []
        self.seconds = 0.0

    @property
    def score(self):
        return sum(r["score"] for r in self.rows)

    @property
    def max_score(self):
        return sum(r["max_score"] for r in self.rows)

    @property
    def out_of_time(self):
        """The rows the time budget left unrun or cut short."""
        return [r for r in self.rows if r.get("not_run")]

    def budget_line(self, visible_only=False):
        """What the budget cost, in one sentence, or "" (hidden tests are
        counted, never named, where visible_only)."""
        rows = self.out_of_time
        if not rows:
            return ""
        named = [r["name"] for r in rows if not (visible_only and r["hidden"])]
        hidden = len(rows) - len(named)
        return ("%d test%s not run: the time budget for grading this submission ran out (tests "
                "that hung took it); they score 0 but did not fail: %s%s" % (
                    len(rows), "s were" if len(rows) > 1 else " was", ", ".join(named),
                    "%s%d hidden" % (", " if named else "", hidden) if hidden else ""))

    def gradescope(self):
        """Gradescope's results.json (its autograder specification): hidden
        tests after_published, and no visible field naming them."""
        visible = [r for r in self.rows if not r["hidden"]]
        hidden = [r for r in self.rows if r["hidden"]]
        out = [mode_line(self.official)]
        if not self.build_ok:
            out.append("The submission does not build:\n" + indent(self.build_output))
        if self.warnings:
            out.append(WARNINGS + "\n" + indent(self.warnings))
        out.append("Visible tests: %d/%d." % (sum(r["score"] for r in visible),
                                              sum(r["max_score"] for r in visible)))
        if hidden:
            out.append("%d more tests are hidden until grades are published." % len(hidden))
        out.append(answers_summary(self.lab, self.answers))
        notes = [n for n in self.notes if not n.startswith("hidden:")]
        out += ["Note: " + n for n in notes]
        if self.out_of_time:
            out.append("Not run: " + self.budget_line(visible_only=True))
        return {
            "score": self.score,
            "execution_time": int(round(self.seconds)),
            "output": "\n".join(out),
            "stdout_visibility": "hidden",
            "tests": [{
                "name": r["name"], "score": r["score"], "max_score": r["max_score"],
                "status": "passed" if r["ok"] else "failed",     # (a 0-point test too)
                "output": r["output"],
                "visibility": "after_published" if r["hidden"] else "visible",
            } for r in self.rows],
            "extra_data": {"lab": self.lab.num, "answers": {str(q): s for q, s in self.answers},
                           "notes": notes, "build_ok": self.build_ok,
                           "warnings": bool(self.warnings),
                           # (Gradescope knows only "passed" and "failed")
                           "not_run": [r["name"] for r in self.out_of_time if not r["hidden"]],
                           "hidden_not_run": sum(r["hidden"] for r in self.out_of_time)},
        }


WARNINGS = ("Compiler warnings (official grading goes on despite them; your own build stops "
            "at them, as -Werror asks):")


def mode_line(official):
    return ("Graded in a pristine tree: only the code in the lab's regions of its files, and "
            "answers.md, were taken from the submission." if official else
            "Graded this tree as it is (your test.c, points and tools included). Official "
            "grading takes only the code in the lab's regions and answers.md into a pristine "
            "tree: make handin LAB=NN, then make grade LAB=NN SUBMISSION=build/handin-NN.tar.gz.")


def lab_tests(lab, only=None):
    """[(name, points, limit)] of the lab, or only those named."""
    tests = lab.points()
    if only:
        known = {t[0] for t in tests}
        unknown = [n for n in only if n not in known]
        if unknown:
            raise SystemExit("grade: lab %s has no test %s (its tests: %s)" % (
                lab.num, ", ".join(unknown), " ".join(t[0] for t in tests)))
        tests = [t for t in tests if t[0] in only]
    return tests


def lab_program(lab, tree, tests):
    """The lab's test program as run_tests takes it."""
    return [(lab.prog, "%s/" % lab.prog, tests, False,
             test_table(os.path.join(tree, lab.folder, "test.c")), [t[0] for t in tests])]


def hidden_programs(extra):
    """The hidden test programs in extra, as run_tests takes them."""
    hp = {t[0]: t for t in handout.read_points(os.path.join(extra, "points"))}
    out = []
    for p in extra_programs(extra):
        table = test_table(os.path.join(extra, p + ".c"))
        out.append(("extra_" + p, "hidden/%s/" % p,
                    [hp.get(n, (n, 1, handout.DEFAULT_LIMIT)) for n in table], True, table,
                    table or None))
    return out


def run_tests(report, tree, programs, log, until=None, budget=None, pending=None):
    """Boot each program in tree; fill report.rows. Printed as they come:
    each test, and under a failure its reason and the end of the console
    output during it. A passed test's console output is kept nowhere (what
    the code under test prints never reaches a visible field unless a
    test failed). pending: a list; each program's failed tests are not run
    again here but noted in it, for run_reruns once every test has had
    its first run (a rerun must never take the budget of a first run).
    None: each program's reruns follow its first run."""
    build = os.path.join(tree, "build")
    for prog, prefix, ptests, hidden, table, names in programs:
        points = {t[0]: t[1] for t in ptests}
        limits = {t[0]: t[2] for t in ptests}

        def show(name, o, prefix=prefix, points=points, hidden=hidden):
            maxp = points.get(name, 1 if hidden else 0)
            report.partial[prefix + name] = result_row(prefix + name, o, maxp, hidden)
            log("%s %-64s %3d/%-3d %5.1fs" % ("PASS" if o.ok else "SKIP" if o.not_run else "FAIL",
                                              prefix + name,
                                              maxp if o.ok else 0, maxp, o.seconds))
            if not o.ok and o.reason:
                log("      " + o.reason.replace("\n", "\n      "))
            if not o.ok and o.output:
                log("      console output during the test (its end):\n        " +
                    tail(o.output, SHOW_LINES).replace("\n", "\n        "))

        results, notes = run_program(build, prog, names, limits, table, show, until=until,
                                     budget=budget, rerun=pending is None)
        report.notes += [("hidden: " if hidden else "") + n for n in notes]
        report.rows += [result_row(prefix + name, results.get(name, Outcome(False, "no result")),
                                   points.get(name, 1 if hidden else 0), hidden)
                        for name in (names if names is not None else sorted(results))]
        report.partial = {}
        if pending is not None and rerun_wanted(names, results):
            pending.append((build, prog, prefix, names, results, points, limits, hidden))


def run_reruns(report, pending, log, until=None):
    """The reruns run_tests left in pending, program by program, while the
    budget lasts (run_again stops at until): a test that passes is marked
    flaky in its row and the notes. Its first result stands."""
    for build, prog, prefix, names, results, points, limits, hidden in pending:
        notes = run_again(build, prog, names, results, limits, BOOT_LIMIT, until)
        report.notes += [("hidden: " if hidden else "") + n for n in notes]
        for n in names:
            if results[n].flaky:
                row = result_row(prefix + n, results[n], points.get(n, 1 if hidden else 0), hidden)
                report.rows = [row if r["name"] == row["name"] else r for r in report.rows]
                log("FLAKY %s: %s" % (prefix + n, FLAKY.lower()))


def result_row(name, o, maxp, hidden):
    """A report's row for test name's Outcome o, worth maxp points."""
    out = o.reason if not o.ok else ""
    if o.output and not o.ok:
        out += ("\n\n" if out else "") + "Console output during the test:\n" + o.output
    return {"name": name, "score": maxp if o.ok else 0, "max_score": maxp, "output": out,
            "hidden": hidden, "ok": o.ok, "flaky": o.flaky, "not_run": o.not_run}


def not_built(report, tests, extra, why):
    """A row for each test, none of which ran, saying why (the grader's
    words: a reason starting OUT_OF_TIME is the time budget's)."""
    left = why.startswith(OUT_OF_TIME)
    report.rows += [{"name": "%s/%s" % (report.lab.prog, t[0]), "score": 0, "max_score": t[1],
                     "output": why, "hidden": False, "ok": False, "not_run": left}
                    for t in tests]
    for prog, prefix, ptests, _, _, _ in hidden_programs(extra) if extra else []:
        report.rows += [{"name": prefix + t[0], "score": 0, "max_score": t[1], "output": why,
                         "hidden": True, "ok": False, "not_run": left} for t in ptests]


def build_and_run(report, tree, tests, extra, jobs, log, relaxed=False, until=None, budget=None):
    """Build tree and run the lab's tests; then, if there are hidden tests,
    build them into a boot archive of their own and run them, and take
    every trace of them out of the tree again. The lab's boot never holds
    them, and a compiler message about them never shows in a visible
    field. relaxed: compiler warnings do not stop the build (official
    grading)."""
    clear_extra(tree)
    ok, out = make(tree, jobs, relaxed, SUBMISSION_BUILD_LIMIT, guard=relaxed, log=log)
    if not ok:
        report.build_ok, report.build_output = False, messages_tail(out)
        log("The tree does not build:\n" + indent(report.build_output))
        if ccguard.REFUSAL in out:
            report.notes.append("a file of the lab was not compiled: its code reads a file "
                                "outside the work tree, or its assembly has a directive that "
                                "can, or its object is too big, or its compile ran out of time "
                                "or memory (see the build's output): look at this submission")
        not_built(report, tests, extra, "not run: the submission does not build "
                                        "(the compiler's messages are in the output above)")
        return
    report.warnings = compiler_messages(out) if relaxed else ""
    if report.warnings:
        log(WARNINGS + "\n" + indent(report.warnings))
    visible = []                            # reruns come after every first run
    run_tests(report, tree, lab_program(report.lab, tree, tests), log, until, budget, visible)
    if not extra:
        run_reruns(report, visible, log, until)
        return
    add_extra(tree, extra)
    try:
        run_hidden(report, tree, extra, jobs, log, relaxed, until, budget)
    finally:
        clear_extra(tree)
    # the lab's own reruns boot without the hidden tests, as its first run did: the
    # boot archive clear_extra took is made again (nothing to compile: only the archive)
    if visible and (until is None or time.monotonic() < until) and \
            make(tree, jobs, relaxed, SUBMISSION_BUILD_LIMIT, guard=relaxed, log=log)[0]:
        run_reruns(report, visible, log, until)


def run_hidden(report, tree, extra, jobs, log, relaxed, until, budget):
    """build_and_run's hidden tests, in a tree that has them (add_extra):
    build, run, then their reruns."""
    if until is not None and time.monotonic() >= until:
        not_built(report, [], extra, budget_left(budget))
        return
    ok, out = make(tree, jobs, relaxed, SUBMISSION_BUILD_LIMIT, guard=relaxed, log=log)
    if not ok:
        log("The hidden tests do not build:\n" + indent(messages_tail(out)))
        report.notes.append("hidden: the hidden tests do not build with this submission")
        not_built(report, [], extra, "the hidden tests do not build with this "
                                     "submission:\n" + messages_tail(out))
        return
    hidden = []
    run_tests(report, tree, hidden_programs(extra), log, until, budget, hidden)
    run_reruns(report, hidden, log, until)


def grade_submission(lab, path, extra=None, only=None, worker=0, jobs=None, root=ROOT,
                     log=say, budget=BUDGET):
    """Grade the submission at path in the worker's work tree: a Report.
    budget: seconds its grading may take from when it has the work tree
    (0: no limit)."""
    start = time.monotonic()
    report = Report(lab, True)
    tests = lab_tests(lab, only)
    GRADING["now"] = (report, tests, extra, start)
    sub = Submission(lab, path)
    with TreeLock(worker_dir(lab, worker, root), log):
        tree = base_tree(lab, worker, root)
        if not os.path.exists(os.path.join(tree, "build", PREPARED)):
            log("building the work tree %s first (its first use)" % tree)
            ok, out = build_pristine(tree, jobs, log)
            if not ok:
                raise RuntimeError("the pristine work tree %s does not build:\n%s" % (
                    tree, tail(out)))
        files = sub.graded(tree)
        report.notes += sub.notes + sub.unused(tree)
        handout.remove(os.path.join(tree, HANDIN))             # the last submission's
        for rel, data in files.items():
            os.makedirs(os.path.dirname(os.path.join(tree, rel)), exist_ok=True)
            with open(os.path.join(tree, rel), "wb") as f:     # always a new mtime
                f.write(data)
        log(mode_line(True))
        build_and_run(report, tree, tests, extra, jobs, log, relaxed=True,
                      until=budget_end(budget), budget=budget)
    report.answers = check_answers(lab, sub.answers)
    report.seconds = time.monotonic() - start
    GRADING["now"] = None
    return report


def failed_report(lab, only, error):
    """The Report of a grading that stopped on an error of the grader's
    (an exception): every test 0, with what went wrong, so that Gradescope
    and the batch's CSV still get a result for the submission."""
    report = Report(lab, True)
    why = ("not graded: the grader failed on this submission (%s: %s); this is not a "
           "judgement of your code: tell the course staff" % (type(error).__name__, error))
    not_built(report, lab_tests(lab, only), None, why)
    report.notes.append(why)
    return report


def budget_end(budget):
    """When a grading given `budget` seconds from now must end (for
    time.monotonic()), or None for no limit (0)."""
    return time.monotonic() + budget if budget else None


def grade_tree(lab, tree, extra=None, only=None, jobs=None, log=say, budget=BUDGET):
    """Grade tree as it is (a student's own tree): a Report."""
    start = time.monotonic()
    report = Report(lab, False)
    tests = lab_tests(lab, only)
    GRADING["now"] = (report, tests, extra, start)
    build_and_run(report, tree, tests, extra, jobs, log, until=budget_end(budget), budget=budget)
    path = os.path.join(tree, "answers.md")
    report.answers = check_answers(lab, handout.read_text(path) if os.path.exists(path) else None)
    report.seconds = time.monotonic() - start
    GRADING["now"] = None
    GRADING["done"].append(report)
    return report


def print_summary(reports, log=say):
    for r in reports:
        if r.notes:
            log("Notes on lab %s: %s" % (r.lab.num, "; ".join(r.notes)))
        log(answers_summary(r.lab, r.answers))
        if r.out_of_time:
            log("Not run on lab %s: %s" % (r.lab.num, r.budget_line()))
    log("Score: %d/%d" % (sum(r.score for r in reports), sum(r.max_score for r in reports)))


def choose_labs(nums, root=ROOT):
    """The Lab objects asked for; exits with a message for an unknown lab."""
    all_labs = handout.labs(root)
    names = " ".join(lab.num for lab in all_labs) or "none"
    if not nums:
        chosen = [lab for lab in all_labs if lab.has_program()]
    else:
        chosen = []
        for n in nums:
            lab = handout.find_lab(n, root)
            if not lab:
                raise SystemExit("grade: no lab %s (labs here: %s)" % (n, names))
            if not lab.has_program():
                raise SystemExit("grade: lab %s has no test program (%s/test.c)" %
                                 (lab.num, lab.folder))
            if not lab.points():
                raise SystemExit("grade: lab %s has no graded tests (%s/points)" %
                                 (lab.num, lab.folder))
            chosen.append(lab)
    if not chosen:
        raise SystemExit("grade: no lab with a test program here (labs: %s)" % names)
    return chosen


def budget_arg(text):
    """--budget's value: whole seconds >= 0 (0: no limit); argparse's error
    otherwise (an instructor's typo: "inf", "-5", "8m")."""
    try:
        value = int(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError("a time budget is whole seconds (0: none), not %r" %
                                         (text,))
    if value < 0:
        raise argparse.ArgumentTypeError("a time budget is whole seconds >= 0, not %d" % value)
    return value


def main():
    ap = argparse.ArgumentParser(description="grade an Orthos lab")
    ap.add_argument("labs", nargs="*", help="lab numbers (default: every lab, this tree only)")
    ap.add_argument("--submission", help="grade this folder/.zip/.tar.gz in a pristine tree")
    ap.add_argument("--json", help="write Gradescope's results.json here")
    ap.add_argument("--test", action="append", default=[], help="run only this test (repeatable)")
    ap.add_argument("--extra", default=os.environ.get("GRADE_EXTRA") or None,
                    help="hidden tests folder (default: $GRADE_EXTRA)")
    ap.add_argument("--worker", type=int, default=0, help="which prebuilt pristine tree")
    ap.add_argument("--jobs", type=int, help="make -j (default: every core)")
    ap.add_argument("--prepare", action="store_true", help="build the pristine tree and stop")
    ap.add_argument("--budget", type=budget_arg, default=os.environ.get("GRADE_BUDGET") or BUDGET,
                    help="seconds a submission's grading may take, build and boots (default "
                    "$GRADE_BUDGET or %d; 0: no limit)" % BUDGET)
    args = ap.parse_args()
    GRADING["json"] = args.json
    signal.signal(signal.SIGTERM, on_sigterm)
    if args.submission and not os.path.exists(args.submission):
        raise SystemExit("grade: no submission %s" % args.submission)
    if args.extra and not os.path.isdir(args.extra):
        raise SystemExit("grade: no hidden-tests folder %s" % args.extra)
    if args.extra:                      # a bad line stops here, not midway through a grading
        handout.read_points(os.path.join(args.extra, "points"))
    if (args.submission or args.prepare) and len(args.labs) != 1:
        raise SystemExit("grade: --submission and --prepare take exactly one lab number")
    labs = choose_labs(args.labs)
    if (args.test or args.extra) and len(labs) != 1:
        raise SystemExit("grade: --test and hidden tests (GRADE_EXTRA) need one lab number")
    for lab in labs:
        lab_tests(lab, args.test)           # an unknown test name stops here
    if args.prepare:
        tree, ok, out = prepare(labs[0], args.worker, args.jobs)
        say(("prepared %s" % tree) if ok else "the pristine tree does not build:\n" + out)
        return 0 if ok else 1
    if args.submission:
        try:
            reports = [grade_submission(labs[0], args.submission, args.extra, args.test,
                                        args.worker, args.jobs, budget=args.budget)]
        except Exception as e:          # still a results.json, saying so; then the traceback
            if args.json:
                write_json(args.json, [failed_report(labs[0], args.test, e)])
            raise
    else:
        say(mode_line(False))
        reports = [grade_tree(lab, ROOT, args.extra, args.test, args.jobs, budget=args.budget)
                   for lab in labs]
    print_summary(reports)
    if args.json:
        write_json(args.json, reports)
    return 0


def write_json(path, reports):
    """Gradescope's results.json of reports, written whole or not at all (a
    half-written file would be neither a result nor missing)."""
    results = reports[0].gradescope()
    for r in reports[1:]:
        more = r.gradescope()
        results["score"] += more["score"]
        results["execution_time"] += more["execution_time"]
        results["output"] += "\n" + more["output"]
        results["tests"] += more["tests"]
    text = json.dumps(results, indent=2)
    with open(path + ".new", "w") as f:
        f.write(text)
    os.replace(path + ".new", path)


if __name__ == "__main__":
    sys.exit(main())
