"""tools/buildtests.py - make test's checks on the build and its tools.

tools/test.py runs these suites beside the others (same result format:
(name, ok, detail) triples; ok None is a SKIP, with the reason):

  toolchain/clang     a copy of the tree as a clean clone has it, under a
                      PATH like a macOS student's: no gcc cross compiler
                      (clang is found), no GRUB, no GNU tar (bsdtar as tar).
                      A bare `make` builds warning-free; a second `make`
                      does nothing, and after touching a kernel (a libc)
                      header only that side rebuilds; the README's
                      `python3 tools/test.py NAME` works after it; `make
                      qemu` boots with -kernel to the prompt and `poweroff`
                      ends make with status 0
  toolchain/names     Homebrew's names: i686-elf-gcc/-ld/-ar, the keg-only
                      e2fsprogs, i686-elf-grub-mkrescue are found; the libc
                      builds with them; tools/deps checks per goal
  build/headers       a host header is "not found", kernel and user side
  panic/file_line     a panic frame names file:line, the right line; no
                      function moved between the kernel's two links
  gdb                 make qemu-gdb + make gdb stop in kmain and, with
                      PROG=ls, in ls's main; two sessions at once
  readme/tour         the README's shell tour, typed into the guest
  format              make check-format lists no file
  build/switch_pages  a context switch's code, constants and variables
                      stay in one page each, proc_table starts a page
                      (SWITCH_PATH, SWITCH_RODATA, SWITCH_DATA in x86.h)

Each one runs make as a student would, in this tree or a copy of it, and
kills every QEMU it starts by its own process group."""
import fnmatch
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemu  # noqa: E402

ROOT = qemu.ROOT
WARNING = re.compile(r"\b(warning|error)\b", re.I)
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\r")


def tail(text, n=15):
    return "\n".join("      | " + line for line in text.strip().splitlines()[-n:])


def clean_env():
    """Our environment without what an enclosing `make test` passes down
    (its jobserver and flags are not for the makes we start)."""
    return {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}


def run(args, cwd=ROOT, env=None, timeout=600, stdin=None):
    """Run a command to the end: (status, stdout+stderr); status None if it
    outlived timeout (then its whole process group is killed)."""
    p = subprocess.Popen(args, cwd=cwd, env=env or clean_env(), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, stdin=subprocess.PIPE if stdin else
                         subprocess.DEVNULL, start_new_session=True)
    try:
        out, _ = p.communicate(stdin, timeout=timeout)
        return p.returncode, out.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return None, out.decode("utf-8", "replace")


def make_var(name, env=None, cwd=ROOT, *args):
    """What the Makefile chose for a variable (make print-NAME)."""
    status, out = run(["make", "-s", "print-" + name] + list(args), cwd=cwd, env=env, timeout=60)
    return out.strip() if status == 0 else None


def shadow_env(tmp, drop=(), add=None, keep_display=False):
    """An environment whose PATH is one directory of links to every program
    on ours (the first of each name) except the names matching `drop`, plus
    `add` {name: program}: a machine without some tools, or with others."""
    bindir = os.path.join(tmp, "bin")
    os.makedirs(bindir)
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            path = os.path.join(d, name)
            link = os.path.join(bindir, name)
            if any(fnmatch.fnmatch(name, pat) for pat in drop) or os.path.lexists(link):
                continue
            if os.access(path, os.X_OK) and not os.path.isdir(path):
                os.symlink(path, link)
    for name, target in (add or {}).items():
        os.symlink(target, os.path.join(bindir, name))
    env = {k: v for k, v in clean_env().items() if k not in ("HOMEBREW_PREFIX", "CC")}
    if not keep_display:
        env.pop("DISPLAY", None)
        env.pop("WAYLAND_DISPLAY", None)
    env["PATH"] = bindir
    env["DEPS_INSTALL"] = "0"           # report, never apt-get, in a test
    return env


def copy_tree(dest):
    """The files a clean clone has: tracked ones (as they are now) and new
    ones not ignored; no build/."""
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "-co", "--exclude-standard"],
                         capture_output=True, check=True).stdout.decode()
    for rel in filter(None, out.split("\0")):
        src = os.path.join(ROOT, rel)
        if os.path.isfile(src) and not os.path.islink(src):
            os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
            shutil.copy2(src, os.path.join(dest, rel))


def boot_make_qemu(args, cwd, env, until, then, timeout=90):
    """Start `make qemu...`, wait for `until` (a regex) in its output, type
    `then`; (status of make or None, output)."""
    p = subprocess.Popen(args, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    os.set_blocking(p.stdout.fileno(), False)
    out, typed, end = "", False, time.monotonic() + timeout
    try:
        while time.monotonic() < end:
            try:
                chunk = os.read(p.stdout.fileno(), 65536)
            except BlockingIOError:
                chunk = None
            if chunk:
                out += chunk.decode("utf-8", "replace")
            elif chunk == b"" or p.poll() is not None:
                if p.poll() is not None:
                    break
            if not typed and re.search(until, out):
                p.stdin.write(then.encode())
                p.stdin.flush()
                typed = True
            time.sleep(0.05)
        status = p.poll()
        return status, ANSI.sub("", out)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


# ---------------------------------------------------------------- headers
def header_check(prefix, env=None, cwd=ROOT, extra=()):
    """Compile, with the Makefile's kernel and user flags, a file that
    includes <time.h> (which Orthos lacks): the compiler must say so, and
    never reach the host's /usr/include."""
    res = []
    cc = make_var("CC", env, cwd, *extra)
    target = make_var("TARGET_FLAGS", env, cwd, *extra) or ""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "wants_time_h.c")
        with open(src, "w") as f:
            f.write("#include <time.h>\nint main(void) { return 0; }\n")
        for side in ("UCFLAGS", "KCFLAGS"):
            flags = make_var(side, env, cwd, *extra)
            if not cc or flags is None:
                res.append((prefix + side.lower() + "_known", False, "make print-%s failed" % side))
                continue
            flags = [f for f in flags.split() if not f.startswith("-M")]
            status, out = run(cc.split() + target.split() + flags + ["-fsyntax-only", src],
                              cwd=cwd, env=env, timeout=60)
            ok = (status not in (0, None) and re.search(
                r"time\.h.*(No such file|file not found)", out) is not None
                and "/usr/include" not in out)
            res.append((prefix + "host_header_is_not_found_%s" % side[0].lower(), ok,
                        "" if ok else "status %s:\n%s" % (status, tail(out))))
    return res


def headers_suite():
    return "build/headers", lambda: header_check("build/")


# ---------------------------------------------------------------- clang
def clang_suite():
    def run_suite():
        if not (shutil.which("clang") and shutil.which("ld.lld")):
            return [("toolchain/clang", None, "no clang and ld.lld here (CI installs them)")]
        res = []
        tmp = tempfile.mkdtemp(prefix="orthos-clang-")
        try:
            tree = os.path.join(tmp, "orthos")
            copy_tree(tree)
            add = {"tar": shutil.which("bsdtar")} if shutil.which("bsdtar") else {}
            env = shadow_env(tmp, drop=("i686-elf-*", "i686-linux-gnu-*", "*grub-mkrescue*",
                                        "grub-*", "xorriso", "tar", "gtar"), add=add)
            cc = make_var("CC", env, tree)
            res.append(("toolchain/clang_is_found_without_a_gcc_cross", cc == "clang",
                        "CC is %r" % cc))
            res.append(("toolchain/no_grub_means_boot_kernel", make_var("BOOT", env, tree) ==
                        "kernel", "BOOT is %r" % make_var("BOOT", env, tree)))
            start = time.monotonic()
            status, out = run(["make"], cwd=tree, env=env, timeout=900)
            took = time.monotonic() - start
            built = all(os.path.exists(os.path.join(tree, "build", f))
                        for f in ("orthos.elf", "initrd.tar"))
            res.append(("toolchain/bare_make_builds_kernel_and_archive", status == 0 and built,
                        "status %s in %.0fs\n%s" % (status, took, tail(out))))
            if status != 0:
                return res
            noisy = [line for line in out.splitlines() if WARNING.search(line)]
            res.append(("toolchain/clang_build_is_warning_free", not noisy, "\n".join(noisy[:10])))
            res += incremental_checks(tree, env)
            res += header_check("toolchain/clang_", env, tree)
            status, out = run([sys.executable, "tools/test.py", "t_proc"], cwd=tree, env=env,
                              timeout=300)
            ok = status == 0 and re.search(r"^[1-9]\d* passed, 0 failed$", out, re.M)
            res.append(("toolchain/test_py_name_works_after_a_bare_make", bool(ok), tail(out)))
            status, out = boot_make_qemu(["make", "qemu"], tree, env, r"\$ $", "poweroff\n")
            ok = "no GRUB found" in out and re.search(r"^\S* ?\$ poweroff$", out, re.M)
            res.append(("toolchain/make_qemu_without_grub_reaches_the_prompt", bool(ok), tail(out)))
            ok = status == 0 and "Error" not in out
            res.append(("toolchain/poweroff_ends_make_qemu_with_status_0", ok,
                        "make status %s\n%s" % (status, tail(out, 5))))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return res
    return "toolchain/clang", run_suite


def incremental_checks(tree, env):
    """In a built tree: a second make does nothing; touching a kernel
    header rebuilds kernel files and the kernel only, a libc header user
    files, programs and the archive only (then nothing again)."""
    def steps(out):
        return [line.split(None, 1) for line in out.splitlines() if line.startswith("  ")]

    def compiled(out):
        return [s[1] for s in steps(out) if s[0] == "CC"]

    res = []
    status, out = run(["make"], cwd=tree, env=env, timeout=300)
    res.append(("build/second_make_rebuilds_nothing", status == 0 and not steps(out), tail(out)))
    cases = (("kernel/dev/rtc.h", "kernel", "build/orthos.elf", "build/initrd.tar"),
             ("user/include/pwd.h", "user", "build/initrd.tar", "build/orthos.elf"))
    for header, side, relinked, untouched in cases:
        os.utime(os.path.join(tree, header))
        status, out = run(["make"], cwd=tree, env=env, timeout=300)
        cc = compiled(out)
        targets = [s[1] for s in steps(out)]
        ours = [f for f in cc if f.startswith(side + "/") or f == "build/ksyms1.c"]
        ok = status == 0 and cc and ours == cc and relinked in targets and untouched not in targets
        res.append(("build/touching_%s_rebuilds_the_%s_side_only" % (os.path.basename(header),
                                                                      side), bool(ok), tail(out)))
        status, out = run(["make"], cwd=tree, env=env, timeout=300)
        res.append(("build/then_nothing_after_%s" % os.path.basename(header),
                    status == 0 and not steps(out), tail(out)))
    return res


# ---------------------------------------------------------------- names
def names_suite():
    """The tools under Homebrew's names, on a PATH without Debian's."""
    def run_suite():
        gcc = shutil.which("i686-linux-gnu-gcc")
        if not gcc:
            return [("toolchain/names", None, "no i686-linux-gnu-gcc to stand in for i686-elf-gcc")]
        res = []
        with tempfile.TemporaryDirectory() as tmp:
            keg = os.path.join(tmp, "brew", "opt", "e2fsprogs", "sbin")
            os.makedirs(keg)
            mke2fs = shutil.which("mke2fs", path="/sbin:/usr/sbin:" + os.environ["PATH"])
            os.symlink(mke2fs, os.path.join(keg, "mke2fs"))
            add = {"i686-elf-" + t: shutil.which("i686-linux-gnu-" + t)
                   for t in ("gcc", "ld", "ar")}
            if shutil.which("grub-mkrescue"):
                add["i686-elf-grub-mkrescue"] = shutil.which("grub-mkrescue")
            env = shadow_env(tmp, drop=("i686-*", "clang*", "ld.lld*", "*grub-mkrescue*",
                                        "mke2fs", "mkfs.ext*"), add=add)
            env["HOMEBREW_PREFIX"] = os.path.join(tmp, "brew")
            bindir = os.path.join(tmp, "bin")
            want = {"CC": "i686-elf-gcc", "LD": "i686-elf-ld -m elf_i386", "AR": "i686-elf-ar",
                    "MKE2FS": os.path.join(keg, "mke2fs")}
            if "i686-elf-grub-mkrescue" in add:
                want["GRUB_MKRESCUE"] = os.path.join(bindir, "i686-elf-grub-mkrescue")
            for var, value in want.items():
                got = make_var(var, env)
                res.append(("toolchain/finds_%s_as_homebrew_names_it" % var.lower(), got == value,
                            "want %r, got %r" % (value, got)))
            b = os.path.join(tmp, "b")
            status, out = run(["make", "B=" + b, b + "/libc.a"], env=env, timeout=300)
            res.append(("toolchain/libc_builds_with_i686_elf_gcc_and_ar", status == 0,
                        tail(out)))
            # tools/deps: each goal asks only for what it needs.
            nogrub = shadow_env(os.path.join(tmp, "nogrub"), drop=("*grub-mkrescue*", "xorriso"))
            status, out = run(["sh", "tools/deps", "test"], env=nogrub, timeout=60)
            res.append(("toolchain/deps_for_test_needs_no_grub", status == 0, tail(out)))
            status, out = run(["sh", "tools/deps", "iso"], env=nogrub, timeout=60)
            ok = status == 1 and re.search(r"apt-get install -y .*grub-common", out)
            res.append(("toolchain/deps_for_iso_names_the_grub_package", bool(ok), tail(out)))
            os.makedirs(os.path.join(tmp, "empty"))
            status, out = run([shutil.which("make"), "-n", "clean"],
                              env=dict(env, PATH=os.path.join(tmp, "empty")), timeout=60)
            res.append(("toolchain/make_clean_needs_no_tools", status == 0, tail(out)))
            nonasm = shadow_env(os.path.join(tmp, "nonasm"), drop=("nasm",))
            status, out = run(["make", "-n", "B=" + b, "all"], env=nonasm, timeout=60)
            ok = status != 0 and "apt-get install -y nasm" in out
            res.append(("toolchain/deps_names_a_missing_package", ok, tail(out)))
            status, out = run(["make", "-n", "DEPS=0", "B=" + b, "all"], env=nonasm, timeout=60)
            res.append(("toolchain/deps_0_skips_the_check", status == 0 and "deps" not in out,
                        tail(out)))
        return res
    return "toolchain/names", run_suite


# ---------------------------------------------------------------- panic
def panic_suite():
    """The faulting frame's file:line is the line that faults."""
    def run_suite():
        src = os.path.join(ROOT, "kernel", "test", "ktest.c")
        text = open(src).read().splitlines()
        fn = next(i for i, l in enumerate(text) if "ktest_fault_deliberately(void)" in l)
        line = next(i for i in range(fn, len(text)) if text[i].strip().startswith("*bad = ")) + 1
        b = qemu.run(qemu.kernel_args("test=fault panic=exit"), timeout=60)
        m = re.search(r"backtrace:\n\s+0x[0-9a-f]+ ktest_fault_deliberately\+0x[0-9a-f]+ "
                      r"\((\S+):(\d+)\)", b.output)
        ok = bool(m) and m.group(1) == "kernel/test/ktest.c" and int(m.group(2)) == line
        res = [("panic/frame_shows_the_faulting_file_and_line", ok,
                "want kernel/test/ktest.c:%d\n%s" % (line, tail(b.output)))]
        frames = re.findall(r"^  0x[0-9a-f]+ (\w+)\+0x[0-9a-f]+ \((\S+):(\d+)\)$", b.output, re.M)
        ok = any(f == "kmain" and path == "kernel/main.c" for f, path, _ in frames)
        res.append(("panic/every_c_frame_has_a_line", ok, tail(b.output)))
        # The tables come from the first link: no function may have moved
        # in the second (the Makefile leaves this check to make test).
        status, out = run([sys.executable, "tools/ksyms.py", "--check",
                           os.path.join(qemu.BUILD, "ksyms1.c"), qemu.KERNEL], timeout=60)
        res.append(("panic/no_function_moves_between_the_two_links", status == 0, tail(out)))
        return res
    return "panic/file_line", run_suite


# ---------------------------------------------------------------- gdb
def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def gdb_session(port, prog=None, console=None, timeout=90):
    """make qemu-gdb (BOOT=kernel, -snapshot) and make gdb [PROG=] -batch
    printing where it stopped; once the guest shows its prompt, type
    `console`. (gdb's status, gdb's output, QEMU's output)."""
    qargs = ["make", "-s", "qemu-gdb", "BOOT=kernel", "GDBPORT=%d" % port,
             "QEMUEXTRA=-snapshot"]
    gargs = ["make", "-s", "gdb", "GDBPORT=%d" % port, "GDBFLAGS=-batch -ex bt"]
    if prog:                    # and which process is running (the kernel's `current`)
        gargs = gargs[:-1] + ["PROG=" + prog, "GDBFLAGS=-batch -ex bt -ex 'print current->name'"]
    q = subprocess.Popen(qargs, cwd=ROOT, env=clean_env(), stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    g = None
    out = b""
    try:
        os.set_blocking(q.stdout.fileno(), False)
        end = time.monotonic() + timeout
        while b"waits for gdb" not in out and time.monotonic() < end and q.poll() is None:
            try:
                out += os.read(q.stdout.fileno(), 65536)
            except BlockingIOError:
                time.sleep(0.05)
        g = subprocess.Popen(gargs, cwd=ROOT, env=clean_env(), stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True)
        typed = console is None
        while time.monotonic() < end and g.poll() is None:
            try:
                out += os.read(q.stdout.fileno(), 65536)
            except BlockingIOError:
                time.sleep(0.05)
            if not typed and re.search(rb"\$ $", out):
                q.stdin.write(console.encode())
                q.stdin.flush()
                typed = True
        status = g.poll()
        gout = g.stdout.read().decode("utf-8", "replace") if status is not None else ""
        return status, gout, out.decode("utf-8", "replace")
    finally:
        for p in (q, g):
            if p and p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def gdb_suite():
    def run_suite():
        if not (shutil.which("gdb") or shutil.which("i386-elf-gdb")):
            return [("gdb", None, "no gdb here")]
        res = []
        uid = os.getuid()
        port = make_var("GDBPORT")
        res.append(("gdb/port_is_25000_plus_uid_mod_5000", port == str(25000 + uid % 5000),
                    "port %r for uid %d" % (port, uid)))
        if uid == 0 and shutil.which("setpriv"):
            # The Makefile alone, where user 65534 may read it, whatever
            # this tree's permissions.
            with tempfile.TemporaryDirectory() as tmp:
                os.chmod(tmp, 0o755)
                shutil.copy(os.path.join(ROOT, "Makefile"), tmp)
                os.chmod(os.path.join(tmp, "Makefile"), 0o644)
                status, other = run(["setpriv", "--reuid=65534", "--regid=65534",
                                     "--clear-groups", "make", "-s", "print-GDBPORT"],
                                    cwd=tmp, timeout=60)
            res.append(("gdb/another_user_gets_another_port", status == 0 and
                        other.split()[-1:] == [str(25000 + 65534 % 5000)], "got %r" % other))
        # Two sessions at once, as two users would have them.
        run(["make", "-s", "build/disk.img"], timeout=120)
        import concurrent.futures
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            kern = pool.submit(gdb_session, free_port())
            user = pool.submit(gdb_session, free_port(), "ls", "ls /\n")
            (ks, kout, kq), (us, uout, uq) = kern.result(), user.result()
        ok = ks == 0 and re.search(r"^#0\s+kmain \(.*\) at kernel/main\.c:\d+", kout, re.M)
        res.append(("gdb/make_gdb_stops_in_kmain", bool(ok), tail(kout + kq)))
        res.append(("gdb/make_gdb_has_no_auto_load_warning", ks == 0 and "auto-load" not in kout,
                    tail(kout)))
        ok = us == 0 and re.search(r"^#0\s+main \(argc=2, .*\) at user/bin/ls\.c:\d+", uout, re.M) \
            and re.search(r'^\$1 = "ls"', uout, re.M)
        res.append(("gdb/make_gdb_prog_ls_stops_in_main_of_ls", bool(ok), tail(uout + uq)))
        return res
    return "gdb", run_suite


# ---------------------------------------------------------------- README
def readme_tour():
    """The README's shell tour: [(command line as typed, [output lines])]."""
    text = open(os.path.join(ROOT, "README.md")).read()
    sec = text[text.index("## A tour of the primitives"):]
    block = sec[sec.index("```\n") + 4:]
    block = block[:block.index("```")]
    steps = []
    for line in block.splitlines():
        m = re.match(r"^\S* ?\$ (.*)$", line)
        if m:
            steps.append((m.group(1), []))
        elif steps:
            steps[-1][1].append(line)
    return steps


def tour_suite():
    def run_suite():
        steps = readme_tour()
        if not steps:
            return [("readme/tour_found", False, "no '/ $ ' lines in the tour block")]
        prompt = r"^[^\n$#>]*[$#>] $"     # a line that is only a prompt: "/tmp $ "
        res = []
        with qemu.Session(qemu.kernel_args("panic=exit"), timeout=120) as s:
            if not s.expect(prompt, timeout=60):
                return [("readme/tour_prompt_appears", False, tail(s.output))]
            bad = []
            for line, want in steps:
                out = s.run(line, prompt=prompt, timeout=20)
                if out is None:
                    bad.append("no prompt after %r" % line)
                    break
                got = ANSI.sub("", out).split("\n")[1:-1]   # not the echo, not the prompt
                if got != want:
                    bad.append("%r printed %r, the README shows %r" % (line, got, want))
            res.append(("readme/tour_prints_what_the_readme_shows", not bad,
                        "\n".join(bad) + "\n" + tail(s.output, 30)))
        return res
    return "readme/tour", run_suite


# ---------------------------------------------------------------- format
def format_suite():
    def run_suite():
        status, out = run(["make", "-s", "check-format"], timeout=300)
        if status == 2 and "needs clang-format 19" in out:
            return [("format/check", None, out.strip().splitlines()[0] + " (CI installs it)")]
        return [("format/every_c_file_matches_clang_format", status == 0 and not out.strip(),
                 "run `make format`; these differ:\n" + tail(out, 30))]
    return "format", run_suite


def kernel_symbols(elf):
    """{name: address} of the kernel's symbols (a name defined twice: None)."""
    nm = shutil.which("i686-linux-gnu-nm") or shutil.which("i686-elf-nm") or "nm"
    out = subprocess.run([nm, elf], capture_output=True, text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3:
            syms[f[2]] = None if f[2] in syms else int(f[0], 16)
    return syms


# What every context switch touches after its CR3 write, by page: under
# QEMU each page is one more walk of the page tables (doc/decisions.md,
# "Context switch, thirteenth round").
SWITCH_PAGES = {
    "code and constants": ["sysenter_entry", "sysenter_trap", "trap", "sys_yield", "yield",
                           "sched", "scheduler", "swtch", "vm_switch", "fpu_switch_to",
                           "tss_set_kstack", "proc_return_slow", "syscalls"],
    "variables": ["current", "need_resched", "nslots", "scheduler_ctx", "active", "ts_set",
                  "tss", "gdt"],
}


def switch_pages_suite():
    def run_suite():
        elf = os.path.join(qemu.BUILD, "orthos.elf")
        try:
            syms = kernel_symbols(elf)
        except (OSError, subprocess.CalledProcessError) as e:
            return [("build/switch_pages/kernel_symbols", False, str(e))]
        res = []
        for what, names in SWITCH_PAGES.items():
            where = {n: syms.get(n) for n in names}
            pages = {a >> 12 for a in where.values() if a is not None}
            res.append(("build/switch_pages/%s_in_one_page" % what.replace(" ", "_"),
                        None not in where.values() and len(pages) == 1,
                        " ".join("%s=%s" % (n, "?" if a is None else "%x" % a)
                                 for n, a in where.items())))
        table = syms.get("proc_table")
        res.append(("build/switch_pages/proc_table_starts_a_page",
                    table is not None and table % 4096 == 0, "proc_table at %s" % table))
        return res
    return "build/switch_pages", run_suite


def suites():
    """(name, run) pairs for tools/test.py; the long one first."""
    return [clang_suite(), names_suite(), headers_suite(), panic_suite(), gdb_suite(),
            tour_suite(), format_suite(), switch_pages_suite()]
