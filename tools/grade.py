#!/usr/bin/env python3
"""tools/grade.py - grade a lab.

    tools/grade.py NN --submission PATH [--json FILE] [--test NAME]...
    tools/grade.py [NN ...] [--json FILE] [--test NAME]...   (this tree as it is)
    tools/grade.py NN --prepare [--workers N]                (prebuild, then stop)

Official grading (--submission: a folder, a .zip or a .tar.gz, e.g. what
`make handin` packs) copies only the lab's own files (lab/NN-name/files) and
answers.md from the submission into a pristine tree kept under
build/grade/NN/wK/ (the course tree with lab NN and every later lab stubbed,
built once, so a submission recompiles only its own files), builds it and
boots /bin/labNN. Nothing else of the submission is used: its test.c,
points, t.h, lab.h, Makefile or tools/ never reach the grader.

Without --submission the tree itself is graded (a student's convenience).

Results travel with a fresh random key per boot: the guest runs
`/bin/labNN --key KEY [TEST...]` (user/tests/lab.h) and only lines holding
"KEY START|PASS|FAIL|DONE name" count, wherever they appear in a line. Each
test has its own time limit (points' third field, default 20 s) counted
from its START line; a hang or a kernel panic fails that test only (with
the panic text and backtrace in its output): QEMU is killed and booted
again with the tests that had not run, at most MAX_REBOOTS times.

Hidden tests: GRADE_EXTRA=dir (or --extra dir) holding *.c test programs
on lab.h, built into the guest as /bin/extra_NAME; dir/points gives their
points and limits (1 point, 20 s for a test not listed). --json writes
Gradescope's results.json; hidden tests are `after_published` there and
their names and output appear in no visible field.

Written questions: the grader reports whether answers.md has a section with
real text for each of the lab's written questions (not scored)."""
import argparse
import codecs
import json
import os
import re
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import handout  # noqa: E402
import qemu  # noqa: E402

ROOT = qemu.ROOT
BOOT_LIMIT = 30         # seconds from boot to the first START, and between tests
BUILD_LIMIT = 600       # seconds make may take (a full build takes about 20)
MAX_REBOOTS = 5         # after a hang or panic; then the remaining tests fail unrun
CMDLINE_MAX = 1000      # the kernel keeps 1023 bytes of its command line
ARGS_MAX = 60           # and init passes at most 63 argv entries
OUTPUT_MAX = 4000       # characters of a test's console output kept in its result
FILE_MAX = 1 << 20      # bytes: a bigger file in a submission is refused
ARCHIVE_MAX = 64 << 20  # bytes unpacked from one archive, at most
ARCHIVE_FILES = 20000   # members of one archive looked at, at most
LINE = r"%s (START|PASS|FAIL|DONE) ([\w.-]+)(?:: ([^\n]*))?\n"  # anywhere in a line


def say(*args):
    print(*args)
    sys.stdout.flush()


# ---------------------------------------------------------------- one test program
class Outcome:
    """One test's result."""

    def __init__(self, ok, reason="", output="", seconds=0.0):
        self.ok, self.reason, self.output, self.seconds = ok, reason, output, seconds


def unescape(reason):
    """t.h sends a reason as one line: "\\n" is a newline, "\\\\" a backslash."""
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), reason)


def panic_text(console):
    """The kernel's last words (panic line to the end of the backtrace)."""
    at = console.rfind("panic:")
    if at < 0:
        return ""
    lines = console[console.rfind("\n", 0, at) + 1:].splitlines()
    out = []
    for line in lines[:40]:
        out.append(line)
        if line.startswith("kernel halted"):
            break
    return "\n".join(out)


def tail(text, n=20):
    return "\n".join(text.rstrip().splitlines()[-n:])


def keep_output(text):
    text = text.strip("\n")
    return text if len(text) <= OUTPUT_MAX else "...\n" + text[-OUTPUT_MAX:]


class Console:
    """The console text of one boot since the last keyed line, kept
    bounded (a program printing in a loop must not exhaust the grader)."""

    KEEP = 4 * OUTPUT_MAX

    def __init__(self):
        self.text = ""

    def add(self, text):
        self.text = (self.text + text)[-self.KEEP:]

    def take(self):
        text, self.text = self.text, ""
        return text


def boot_once(build, prog, names, limits, on_result=None, boot_limit=BOOT_LIMIT,
              stop_at_failure=False):
    """Boot build/ running prog with a fresh key, naming `names` (None:
    the program's whole table), reading the console line by line as it
    comes. Returns (results {test: Outcome}, done, note): done when the
    program said DONE; note says why a boot ended with no test running.
    stop_at_failure: end the boot at the first failed test (a FAIL line, a
    hang or a panic), for a check that needs only one."""
    key = secrets.token_hex(12)
    cmd = "panic=exit run=/bin/%s --key %s%s" % (prog, key, "".join(" " + n for n in names or []))
    line_re = re.compile(LINE % key)
    results, current, done, note = {}, None, False, ""
    console, partial = Console(), ""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    start = time.monotonic()
    deadline = start + boot_limit
    proc = subprocess.Popen(qemu.kernel_args(cmd, build=build), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)

    def finish(name, outcome):
        results[name] = outcome
        if on_result:
            on_result(name, outcome)

    def event(m, now):
        """One keyed line; True when the boot may end here."""
        nonlocal current, start, deadline, done
        what, name = m.group(1), m.group(2)
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
            finish(name, Outcome(what == "PASS", unescape(m.group(3) or ""),
                                 keep_output(console.take()), now - start))
            current, deadline = None, now + boot_limit
            return what == "FAIL" and stop_at_failure
        elif what == "DONE":
            done = True
        return done

    try:
        stop = False
        while not stop:
            now = time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(0, min(deadline - now, 0.2)))
            chunk = os.read(fd, 65536) if ready else b""
            now = time.monotonic()
            if ready and chunk:
                lines = (partial + decoder.decode(chunk).replace("\r", "")).split("\n")
                partial = lines.pop()[-OUTPUT_MAX:]     # a result line is far shorter
                for line in lines:
                    m = line_re.search(line + "\n")
                    console.add(line[:m.start()] if m else line + "\n")
                    if m and event(m, now):
                        stop = True
                        break
                continue
            gone = (ready and not chunk) or proc.poll() is not None
            if not gone and now < deadline:
                continue
            console.add(partial)
            said = console.take()
            if current:
                if gone and "panic:" in said:
                    why = "the kernel panicked during the test:\n" + panic_text(said)
                elif gone:
                    why = "the machine stopped (QEMU status %s) before the test reported" \
                        % proc.poll()
                else:
                    why = "no result within its time limit of %g s (a hang)" % (
                        limits.get(current, handout.DEFAULT_LIMIT))
                finish(current, Outcome(False, why, keep_output(said), now - start))
            elif "panic:" in said:
                note = "the kernel panicked before a test started:\n" + panic_text(said)
            elif gone:
                note = "the machine stopped (QEMU status %s) before a test started:\n%s" % (
                    proc.poll(), tail(said))
            else:
                note = "no test started within %d s:\n%s" % (boot_limit, tail(said))
            break
    finally:
        if proc.poll() is None:
            proc.kill()                         # this boot's QEMU, by its own PID
        proc.wait()
        proc.stdout.close()
    return results, done, note


def name_batches(names, prog, table):
    """Split names into boots whose command lines fit; [None] when names
    are the program's whole table (it then runs them all by itself)."""
    if table and list(names) == list(table):
        return [None]
    batches, cur, size = [], [], len("panic=exit run=/bin/%s --key %s" % (prog, "k" * 24))
    for n in names:
        if cur and (size + 1 + len(n) > CMDLINE_MAX or len(cur) >= ARGS_MAX - 3):
            batches.append(cur)
            cur, size = [], len("panic=exit run=/bin/%s --key %s" % (prog, "k" * 24))
        cur.append(n)
        size += 1 + len(n)
    return batches + [cur] if cur else batches


def run_program(build, prog, names, limits, table=None, on_result=None, boot_limit=BOOT_LIMIT,
                stop_at_failure=False):
    """Run the tests `names` of guest program prog, booting as often as
    needed: again after a hang or a panic (with the tests not yet run, at
    most MAX_REBOOTS times), and in batches when the names do not fit one
    command line. names None: whatever the program runs (no reboots).
    stop_at_failure: stop at the first test that fails, leaving the rest
    out of the results (tools/mutants.py: one failure catches a mutant).
    Returns ({test: Outcome}, notes)."""
    results, notes, reboots = {}, [], 0
    if names is None:
        got, done, note = boot_once(build, prog, None, limits, on_result, boot_limit,
                                    stop_at_failure)
        return got, ([note] if note else [])
    remaining = list(names)

    def fail_rest(why):
        first = None
        for n in remaining:
            if n not in results:
                results[n] = Outcome(False, why if first is None else
                                     "%s (see %s)" % (why.split(":\n")[0], first))
                first = first or n
                if on_result:
                    on_result(n, results[n])

    while remaining:
        batch = name_batches(remaining, prog, table)[0]
        got, done, note = boot_once(build, prog, batch, limits, on_result, boot_limit,
                                    stop_at_failure)
        results.update((n, o) for n, o in got.items() if n in remaining)
        if stop_at_failure and not all(o.ok for o in got.values()):
            break
        asked = remaining if batch is None else batch
        remaining = [n for n in remaining if n not in results]
        if not remaining:
            break
        if not got:
            notes.append(note or "the test program ran no test")
            fail_rest("not run: " + (note or "the test program ran no test"))
            break
        if done:
            missing = [n for n in asked if n not in results]
            if missing:
                remaining = missing
                fail_rest("not run: the test program has no such test, or skipped it")
                break
            continue
        reboots += 1
        if reboots > MAX_REBOOTS:
            notes.append("gave up after %d reboots" % MAX_REBOOTS)
            fail_rest("not run: the machine hung or panicked %d times; the grader stops "
                      "rebooting then" % (MAX_REBOOTS + 1))
            break
    return results, notes


def test_table(source):
    """The test names a lab.h program lists (LAB_TEST(name)), in order."""
    try:
        return re.findall(r"\bLAB_TEST\(\s*(\w+)\s*\)", handout.read_text(source))
    except OSError:
        return []


# ---------------------------------------------------------------- building
def make(tree, jobs=None):
    """make all in tree: (ok, output)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    p = subprocess.Popen(["make", "-C", tree, "-s", "-j%d" % (jobs or os.cpu_count() or 1),
                          "all"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         env=env, start_new_session=True)
    try:
        out = p.communicate(timeout=BUILD_LIMIT)[0]
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)        # make and the compilers it started
        out = p.communicate()[0] + "\nthe build took more than %d s: stopped" % BUILD_LIMIT
    return p.returncode == 0, out


def clear_extra(tree):
    """Take earlier hidden tests out of a tree's build."""
    build = os.path.join(tree, "build")
    handout.remove(os.path.join(build, "extra"))
    stale = [p for p in os.listdir(os.path.join(build, "root", "bin"))
             if p.startswith("extra_")] if os.path.isdir(os.path.join(build, "root", "bin")) else []
    for p in stale:
        os.unlink(os.path.join(build, "root", "bin", p))
    if stale:
        handout.remove(os.path.join(build, "initrd.tar"))


def add_extra(tree, extra):
    """Copy the hidden tests into the tree's build/extra (Makefile: /bin/extra_NAME)."""
    dest = os.path.join(tree, "build", "extra")
    os.makedirs(dest, exist_ok=True)
    for p in extra_programs(extra):
        shutil.copyfile(os.path.join(extra, p + ".c"), os.path.join(dest, p + ".c"))


def extra_programs(extra):
    return sorted(f[:-2] for f in os.listdir(extra) if f.endswith(".c")) if extra else []


def worker_dir(lab, worker=0, root=ROOT):
    return os.path.join(root, "build", "grade", lab.num, "w%d" % worker)


BUILD_OUTPUTS = ("boot", "kernel", "u", "user", "root", "libc.a", "initrd.tar", "orthos.elf",
                 "orthos.pass1.elf", "ksyms0.c", "ksyms0.o", "ksyms0.d", "ksyms1.c", "ksyms1.o",
                 "ksyms1.d")


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


def base_tree(lab, worker=0, root=ROOT):
    """The worker's base tree for lab, in place: the course tree with lab
    and every later lab stubbed (so a file missing from a submission is a
    stub, never the solution). Files already right are not touched, so its
    build/ stays valid; a new worker starts as a copy of worker 0, built
    objects included, and worker 0 from this tree's own build/. Returns its
    path."""
    tree = worker_dir(lab, worker, root)
    first = worker_dir(lab, 0, root)
    fresh = not os.path.isdir(tree)
    if worker and fresh and os.path.isdir(os.path.join(first, "build")):
        shutil.copytree(first, tree, symlinks=True)
        fresh = False
    os.makedirs(tree, exist_ok=True)
    handout.write_tree(handout.course_tree(lab.num, lab.num, root), tree)
    if fresh:
        seed_build(root, tree)              # the tree's own objects, where files agree
    return tree


def prepare(lab, worker=0, jobs=None, root=ROOT):
    """Build the worker's base tree: (tree, ok, make output)."""
    tree = base_tree(lab, worker, root)
    clear_extra(tree)
    ok, out = make(tree, jobs)
    return tree, ok, out


def reference_files(lab, root=ROOT):
    """{path: bytes}: lab's files as a correct submission has them (lab's
    regions hold the solution, later labs' regions are stubs)."""
    tree = handout.pristine_tree(lab, root)
    return {rel: tree[rel][0] for rel in lab.files() if rel in tree}


# ---------------------------------------------------------------- submissions
def safe_extract(archive, dest):
    """Unpack a .zip or a tar into dest: regular files and folders only,
    nothing outside dest, files of at most FILE_MAX bytes, ARCHIVE_MAX in all."""
    room = [ARCHIVE_MAX]

    def put(name, size, read):
        path = os.path.normpath(os.path.join(dest, name))
        if not path.startswith(os.path.abspath(dest) + os.sep) or size > FILE_MAX or \
                size > room[0]:
            return
        room[0] -= size
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as out:
            out.write(read()[:FILE_MAX])

    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist()[:ARCHIVE_FILES]:
                kind = (info.external_attr >> 16) & 0o170000
                if not info.is_dir() and kind in (0, 0o100000):
                    put(info.filename, info.file_size,
                        lambda: z.open(info).read(FILE_MAX + 1))
        return
    with tarfile.open(archive) as t:
        for m in t.getmembers()[:ARCHIVE_FILES]:
            if m.isfile():
                put(m.name, m.size, lambda: t.extractfile(m).read(FILE_MAX + 1))


def is_archive(path):
    return os.path.isfile(path) and (path.endswith((".zip", ".tar.gz", ".tgz", ".tar")))


class Submission:
    """The lab's files and answers.md from a submission, and notes on it."""

    def __init__(self, lab, path):
        self.files, self.answers, self.notes = {}, None, []
        with tempfile.TemporaryDirectory() as tmp:
            if is_archive(path):
                try:
                    safe_extract(path, tmp)
                except (OSError, zipfile.BadZipFile, tarfile.TarError) as e:
                    self.notes.append("cannot unpack %s: %s" % (os.path.basename(path), e))
                    return
                path = tmp
            elif not os.path.isdir(path):
                self.notes.append("no such submission: %s" % path)
                return
            base = self.find_root(lab, path, tmp, nested=path == tmp)
            for rel in lab.files() + ["answers.md"]:
                data = self.read(base, rel)
                if rel == "answers.md":
                    self.answers = None if data is None else data.decode("utf-8", "replace")
                elif data is not None:
                    self.files[rel] = data
        missing = [rel for rel in lab.files() if rel not in self.files]
        if missing:
            self.notes.append("missing from the submission (graded as the stub): " +
                              ", ".join(missing))
        self.notes += suspicious(self.files)

    def find_root(self, lab, path, tmp, nested=False):
        """The folder holding the lab's files: the top, or one below it
        (an archive of a folder); or, failing that, an archive inside
        (Gradescope keeps an uploaded .tar.gz as it is)."""
        wanted = lab.files() + ["answers.md"]

        def score(d):
            return sum(os.path.isfile(os.path.join(d, rel)) for rel in wanted)

        candidates = [path] + [os.path.join(path, d) for d in sorted(os.listdir(path))
                               if os.path.isdir(os.path.join(path, d)) and d != "__MACOSX"]
        best = max(candidates, key=score)
        if score(best) == 0:
            archives = [os.path.join(path, f) for f in sorted(os.listdir(path))
                        if is_archive(os.path.join(path, f))]
            if len(archives) == 1 and not nested:
                inner = os.path.join(tmp, "unpacked")
                os.makedirs(inner)
                safe_extract(archives[0], inner)
                return self.find_root(lab, inner, tmp, nested=True)
        return best

    def read(self, base, rel):
        path = os.path.join(base, rel)
        if os.path.islink(path):
            self.notes.append("%s is a symbolic link: ignored" % rel)
            return None
        if not os.path.isfile(path):
            return None
        if os.path.getsize(path) > FILE_MAX:
            self.notes.append("%s is larger than %d bytes: ignored" % (rel, FILE_MAX))
            return None
        with open(path, "rb") as f:
            return f.read()


def suspicious(files):
    """Things in a submission's files an instructor may want to look at:
    result-like strings, the grader's key, includes from outside the tree."""
    notes = []
    for rel, data in sorted(files.items()):
        text = data.decode("utf-8", "replace")
        if re.search(r'"[^"\n]*\b(PASS|FAIL|START|DONE) ', text):
            notes.append("%s prints text like a test result (it cannot count)" % rel)
        if re.search(r"\bt_key\b|--key|boot_arg\s*\(\s*\"run\"", text):
            notes.append("%s refers to the grader's key or command line: look at it" % rel)
        if re.search(r'^\s*#\s*include\s*["<](/|[^">]*\.\./)', text, re.M):
            notes.append("%s includes a file from outside the tree: look at it" % rel)
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
                sections.setdefault(cur, "")
            continue
        if cur:
            sections[cur] += line + "\n"
    return sections


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
        body = re.sub(r"<!--.*?-->", "", body, flags=re.S)
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
        self.build_ok, self.build_output = True, ""
        self.answers = []           # [(question, state)]
        self.notes = []
        self.seconds = 0.0

    @property
    def score(self):
        return sum(r["score"] for r in self.rows)

    @property
    def max_score(self):
        return sum(r["max_score"] for r in self.rows)

    def gradescope(self):
        """Gradescope's results.json (its autograder specification): hidden
        tests after_published, and no visible field naming them."""
        visible = [r for r in self.rows if not r["hidden"]]
        hidden = [r for r in self.rows if r["hidden"]]
        out = [mode_line(self.official)]
        if not self.build_ok:
            out.append("The submission does not build:\n" + self.build_output)
        out.append("Visible tests: %d/%d." % (sum(r["score"] for r in visible),
                                              sum(r["max_score"] for r in visible)))
        if hidden:
            out.append("%d more tests are hidden until grades are published." % len(hidden))
        out.append(answers_summary(self.lab, self.answers))
        notes = [n for n in self.notes if not n.startswith("hidden:")]
        out += ["Note: " + n for n in notes]
        return {
            "score": self.score,
            "execution_time": int(round(self.seconds)),
            "output": "\n".join(out),
            "stdout_visibility": "hidden",
            "tests": [{
                "name": r["name"], "score": r["score"], "max_score": r["max_score"],
                "status": "passed" if r["score"] == r["max_score"] else "failed",
                "output": r["output"],
                "visibility": "after_published" if r["hidden"] else "visible",
            } for r in self.rows],
            "extra_data": {"lab": self.lab.num, "answers": {str(q): s for q, s in self.answers},
                           "notes": notes, "build_ok": self.build_ok},
        }


def mode_line(official):
    return ("Graded in a pristine tree: only the lab's files and answers.md were taken from "
            "the submission." if official else
            "Graded this tree as it is (your test.c, points and tools included). Official "
            "grading copies only the lab's files and answers.md into a pristine tree: "
            "tools/grade.py NN --submission PATH.")


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


def run_tests(report, tree, tests, extra, log):
    """Boot the lab's program and the hidden ones in tree; fill report.rows."""
    build = os.path.join(tree, "build")
    lab = report.lab
    programs = [(lab.prog, "%s/" % lab.prog, tests, False,
                 test_table(os.path.join(tree, lab.folder, "test.c")), [t[0] for t in tests])]
    if extra:
        hp = {t[0]: t for t in handout.read_points(os.path.join(extra, "points"))}
        for p in extra_programs(extra):
            table = test_table(os.path.join(extra, p + ".c"))
            programs.append(("extra_" + p, "hidden/%s/" % p,
                             [hp.get(n, (n, 1, handout.DEFAULT_LIMIT)) for n in table], True,
                             table, table or None))
    for prog, prefix, ptests, hidden, table, names in programs:
        points = {t[0]: t[1] for t in ptests}
        limits = {t[0]: t[2] for t in ptests}

        def show(name, o, prefix=prefix, points=points, hidden=hidden):
            maxp = points.get(name, 1 if hidden else 0)
            log("%s %-64s %3d/%-3d %5.1fs" % ("PASS" if o.ok else "FAIL", prefix + name,
                                              maxp if o.ok else 0, maxp, o.seconds))
            if not o.ok and o.reason:
                log("      " + o.reason.replace("\n", "\n      "))

        results, notes = run_program(build, prog, names, limits, table, show)
        report.notes += [("hidden: " if hidden else "") + n for n in notes]
        for name in (names if names is not None else sorted(results)):
            o = results.get(name, Outcome(False, "no result"))
            maxp = points.get(name, 1 if hidden else 0)
            out = o.reason if not o.ok else ""
            if o.output:
                out += ("\n\n" if out else "") + "Console output during the test:\n" + o.output
            report.rows.append({"name": prefix + name, "score": maxp if o.ok else 0,
                                "max_score": maxp, "output": out, "hidden": hidden})


def not_built(report, tests, extra, why):
    report.rows += [{"name": "%s/%s" % (report.lab.prog, t[0]), "score": 0, "max_score": t[1],
                     "output": why, "hidden": False} for t in tests]
    if extra:
        hp = {t[0]: t for t in handout.read_points(os.path.join(extra, "points"))}
        for p in extra_programs(extra):
            for n in test_table(os.path.join(extra, p + ".c")):
                report.rows.append({"name": "hidden/%s/%s" % (p, n), "score": 0,
                                    "max_score": hp.get(n, (n, 1))[1], "output": why,
                                    "hidden": True})


def build_and_run(report, tree, tests, extra, jobs, log):
    """Build tree (the lab's code first, then the hidden tests, so that a
    compiler message about them never shows in a visible field), boot."""
    clear_extra(tree)
    ok, out = make(tree, jobs)
    if not ok:
        report.build_ok, report.build_output = False, tail(out, 60)
        log("The tree does not build:\n" + report.build_output)
        not_built(report, tests, extra, "not run: the submission does not build "
                                        "(the compiler's messages are in the output above)")
        return
    if extra:
        add_extra(tree, extra)
        ok, out = make(tree, jobs)
        if not ok:
            log("The hidden tests do not build:\n" + tail(out, 60))
            report.notes.append("hidden: the hidden tests do not build with this submission")
            run_tests(report, tree, tests, None, log)
            not_built(report, [], extra, "the hidden tests do not build with this "
                                         "submission:\n" + tail(out, 60))
            return
    run_tests(report, tree, tests, extra, log)


def grade_submission(lab, path, extra=None, only=None, worker=0, jobs=None, root=ROOT,
                     log=say):
    """Grade the submission at path in the worker's pristine tree: a Report."""
    start = time.monotonic()
    report = Report(lab, True)
    tests = lab_tests(lab, only)
    sub = Submission(lab, path)
    report.notes += sub.notes
    tree = base_tree(lab, worker, root)
    for rel, data in sub.files.items():
        with open(os.path.join(tree, rel), "wb") as f:     # always a new mtime
            f.write(data)
    log(mode_line(True))
    build_and_run(report, tree, tests, extra, jobs, log)
    report.answers = check_answers(lab, sub.answers)
    report.seconds = time.monotonic() - start
    return report


def grade_tree(lab, tree, extra=None, only=None, jobs=None, log=say):
    """Grade tree as it is (a student's own tree): a Report."""
    start = time.monotonic()
    report = Report(lab, False)
    tests = lab_tests(lab, only)
    build_and_run(report, tree, tests, extra, jobs, log)
    path = os.path.join(tree, "answers.md")
    report.answers = check_answers(lab, handout.read_text(path) if os.path.exists(path) else None)
    report.seconds = time.monotonic() - start
    return report


def print_summary(reports, log=say):
    for r in reports:
        if r.notes:
            log("Notes on lab %s: %s" % (r.lab.num, "; ".join(r.notes)))
        log(answers_summary(r.lab, r.answers))
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
    args = ap.parse_args()
    if args.submission and not os.path.exists(args.submission):
        raise SystemExit("grade: no submission %s" % args.submission)
    if args.extra and not os.path.isdir(args.extra):
        raise SystemExit("grade: no hidden-tests folder %s" % args.extra)
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
        reports = [grade_submission(labs[0], args.submission, args.extra, args.test,
                                    args.worker, args.jobs)]
    else:
        say(mode_line(False))
        reports = [grade_tree(lab, ROOT, args.extra, args.test, args.jobs) for lab in labs]
    print_summary(reports)
    if args.json:
        results = reports[0].gradescope()
        for r in reports[1:]:
            more = r.gradescope()
            results["score"] += more["score"]
            results["execution_time"] += more["execution_time"]
            results["output"] += "\n" + more["output"]
            results["tests"] += more["tests"]
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
