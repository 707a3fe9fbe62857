#!/usr/bin/env python3
"""tools/ccguard.py - the compiler of an official grading's build.

A submission's C code is compiled on the grading machine, and a compiler
reads whatever file the code names: `#include "/home/me/orthos/lab/02-pipes/
key.md"`, `asm(".incbin \\"/etc/passwd\\"")` (or .include, whose errors quote
the file), a `#line 1 "/etc/passwd"` whose error quotes that file's line.
tools/grade.py builds a submission with this script first on PATH under the
compiler's own name (so build/flags, and with it every object, stays as it
is); each `CC ... -c FILE.c -o FILE.o` of that build becomes:

 1. FILE.c compiled to assembly (-S), in a sandbox when the machine allows
    one (a mount namespace whose root holds only /usr, /lib... and the
    work tree: no /home, /root, /etc or /work), with source lines left out
    of its messages (-fno-diagnostics-show-caret: #line can name any file);
 2. its dependency list (-MD) checked: every file the preprocessor read is
    in the work tree (not its build/, where hidden tests are built) or in
    the compiler's own headers (-isystem);
 3. its assembly checked: no directive that reads a file (.incbin,
    .include) or makes directives out of text (.macro, .irp, .rept,
    .altmacro, .mri ...: each could spell .incbin where no search sees it);
 4. only then that same assembly assembled into FILE.o, which may have at
    most OBJECT_MAX bytes (an initialised array is copied into every
    program that links the file).

A check that fails ends the compile with a message saying which file or
directive, and nothing the compiler said (it may quote the file). Any other
command (linking, -print-file-name, nasm's) runs the real compiler as is.

Where there is no sandbox (Gradescope's container: root, and no mount
namespace without CAP_SYS_ADMIN), a grader running as root has the compile
run as an unprivileged user (--user UID:GID, no supplementary groups): then
`#if __has_include("/autograder/source/hidden-.../x.c")` or `#pragma GCC
dependency`, which read no byte and are in no dependency list, meet a
root-only folder's "Permission denied" whatever it holds, instead of
learning whether a file is there (or, with the pragma, newer).

    ccguard.py --real PATH --tree DIR [--sandbox] [--user UID:GID] -- ARGS...
    ccguard.py --real PATH --tree DIR [--sandbox] [--user UID:GID] --probe
        (status 0: a compile in the tree works that way here)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Directives of GNU as (its manual, "Assembler Directives") that read a
# file, or that make statements out of text: with a macro, .irp or .rept
# the directive name is built (".inc\\()bin") where a search of the text
# cannot see it; .mri turns on MRI mode, whose directives need no dot.
# Matched with any case (gas takes ".INCBIN" too), anywhere in the text.
FORBIDDEN = ("incbin", "include", "macro", "endm", "exitm", "purgem", "altmacro",
             "noaltmacro", "irp", "irpc", "rept", "endr", "mri")
DIRECTIVE = re.compile(r"\.(%s)\b" % "|".join(FORBIDDEN), re.I)
# The dependency-file options of the build's own command (make's .d file);
# the guard writes that file itself, from its own -MD.
DEP_FLAGS = ("-MD", "-MMD", "-MP", "-MG", "-M", "-MM")
DEP_ARGS = ("-MF", "-MT", "-MQ")
REFUSED = 90        # the exit status of a refused compile (grade.py says why)
REFUSAL = ": not compiled: "    # in its message, after the file's name (grade.py looks for it)
# Bytes of one object file, at most: the course's biggest (build/ksyms1.o) has
# 140 kB. `char big[200 << 20] = {1};` in lab 01's region assembles from a
# short `.zero` into a 200 MiB object (under the build's 256 MiB a file),
# which ld copied into the 54 programs that link open.o: 11 GB written on the
# grading machine for one submission, again for each in a batch.
OBJECT_MAX = 4 << 20


def split_args(args):
    """(source, object) of `-c SRC.c -o OBJ`, or None for anything else."""
    if "-c" not in args or "-o" not in args:
        return None
    sources = [a for a in args if a.endswith(".c") and not a.startswith("-")]
    at = args.index("-o")
    if len(sources) != 1 or at + 1 >= len(args):
        return None
    return sources[0], args[at + 1]


def without(args, drop, drop_with_value):
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in drop_with_value:
            skip = True
        elif a not in drop:
            out.append(a)
    return out


def dependencies(path):
    """The files a make dependency file names (targets left out)."""
    with open(path, errors="replace") as f:
        text = f.read().replace("\\\n", " ")
    files = []
    for line in text.splitlines():
        target, sep, deps = line.partition(": ")
        if not sep:
            continue
        # a space inside a name is written "\ "
        files += [d.replace("\\ ", " ") for d in re.findall(r"(?:\\ |\S)+", deps)]
    return files


def inside(path, folder):
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def outside_files(deps, source, tree, system, missing_ok=False):
    """The files of deps neither in tree (but not its build/, where hidden
    tests are put) nor in the compiler's own headers (system): the real
    paths, symbolic links followed. A file that is not there counts as
    outside (/proc/self/fd/3 is another file in the compiler), but for a
    relative name when missing_ok (-MG lists a header it did not find)."""
    tree = os.path.realpath(tree)
    build = os.path.join(tree, "build")
    source = os.path.realpath(source)
    bad = []
    for d in deps:
        real = os.path.realpath(d)
        if real == source:
            continue
        if not os.path.isfile(real) or inside(real, "/proc") or inside(real, "/dev"):
            if not (missing_ok and not os.path.isabs(d) and not os.path.lexists(real)):
                bad.append(d)
            continue
        if inside(real, tree) and not inside(real, build):
            continue
        if any(inside(real, s) for s in system):
            continue
        bad.append(real)
    return list(dict.fromkeys(bad))


def forbidden_directive(asm):
    """(line number, directive) of the first FORBIDDEN directive in asm's
    text, or None (one search of the whole text: ksyms1.c's assembly has
    tens of thousands of lines)."""
    m = DIRECTIVE.search(asm)
    return (asm.count("\n", 0, m.start()) + 1, m.group(0)) if m else None


# ---------------------------------------------------------------- the sandbox
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_BIND, MS_REMOUNT, MS_REC, MS_PRIVATE = (
    1, 2, 4, 4096, 32, 16384, 1 << 18)
# What the compiler needs of the machine: its programs and libraries.
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


def _libc():
    import ctypes
    return ctypes.CDLL(None, use_errno=True)


def _mount(libc, src, dst, fstype, flags):
    import ctypes
    if libc.mount(src and src.encode(), dst.encode(), fstype and fstype.encode(), flags,
                  None) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "mount %s: %s" % (dst, os.strerror(e)))


def enter_sandbox(tree, scratch):
    """In a child process about to exec the compiler: a mount namespace
    whose root (a tmpfs in scratch) holds only SYSTEM_DIRS (read-only), an
    empty /tmp, /dev/null and the work tree (read-write, at its own path),
    so that no other file of the machine can be named. A user namespace
    too where a plain mount namespace is not allowed. Raises OSError when
    neither is (a container without CAP_SYS_ADMIN)."""
    import ctypes
    libc = _libc()
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(CLONE_NEWNS) != 0:
        if libc.unshare(CLONE_NEWNS | CLONE_NEWUSER) != 0:
            e = ctypes.get_errno()
            raise OSError(e, "unshare: %s" % os.strerror(e))
        for name, text in (("setgroups", "deny"), ("uid_map", "0 %d 1" % uid),
                           ("gid_map", "0 %d 1" % gid)):
            with open("/proc/self/" + name, "w") as f:
                f.write(text)
    _mount(libc, None, "/", None, MS_REC | MS_PRIVATE)
    root = os.path.join(scratch, "root")
    os.makedirs(root, exist_ok=True)
    _mount(libc, "ccguard", root, "tmpfs", MS_NOSUID | MS_NODEV)
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            os.symlink(os.readlink(d), root + d)
        elif os.path.isdir(d):
            os.makedirs(root + d)
            _mount(libc, d, root + d, None, MS_BIND | MS_REC)
            _mount(libc, None, root + d, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_REC)
    os.makedirs(root + "/tmp")
    os.chmod(root + "/tmp", 0o1777)     # (the compiler may run as another user)
    os.makedirs(root + "/dev")
    open(root + "/dev/null", "w").close()
    _mount(libc, "/dev/null", root + "/dev/null", None, MS_BIND)
    real = os.path.realpath(tree)
    os.makedirs(root + real, exist_ok=True)
    _mount(libc, real, root + real, None, MS_BIND | MS_REC)
    os.chroot(root)


def drop_to(user):
    """In a child process about to exec the compiler: become user (uid,
    gid), with no supplementary groups (root's would open root's group's
    files)."""
    uid, gid = user
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)


def run(argv, tree, sandbox, cwd=None, user=None):
    """Run argv in cwd (default: this process's, inside tree), in the
    sandbox if asked, as user (uid, gid) if given (after the sandbox is
    made, which needs root): (status, stderr). The cwd is entered again
    as that user: a work tree that user cannot reach fails here."""
    scratch = tempfile.mkdtemp(prefix="ccguard-") if sandbox else None
    cwd = cwd or os.getcwd()

    def child():
        if sandbox:
            enter_sandbox(tree, scratch)
        if user:
            drop_to(user)
        os.chdir(cwd)
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, cwd=cwd,
                           preexec_fn=child if sandbox or user else None)
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    return p.returncode, p.stderr


def scratch_dir(where, user):
    """A new folder in where for the compiler's output, its own if it runs
    as user (the work tree is the grader's)."""
    scratch = tempfile.mkdtemp(prefix="ccguard-", dir=where)
    if user:
        os.chown(scratch, *user)
    return scratch


def works(real, tree, sandbox, user):
    """Does a compile in tree work here in the sandbox (if asked) and as
    user (if given): the tree reached, a file read, the output written?
    (Asked once a grading.)"""
    tree = os.path.realpath(tree)
    build = os.path.join(tree, "build")
    scratch = None
    try:
        scratch = scratch_dir(build if os.path.isdir(build) else tree, user)
        src = os.path.join(scratch, "probe.c")
        with open(src, "w") as f:
            f.write("int ccguard_probe;\n")
        os.chmod(src, 0o644)
        out = os.path.join(scratch, "probe.s")
        return run([real, "-S", src, "-o", out], tree, sandbox, tree, user)[0] == 0 and \
            os.path.exists(out)
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)


# ---------------------------------------------------------------- one compile
def refuse(source, why):
    sys.stderr.write(source + REFUSAL + why + ". The official grading compiles only the "
                     "course's files and your code, and reads no other file of the grading "
                     "machine; the compiler's messages are not shown.\n")
    return REFUSED


def guarded_compile(real, tree, sandbox, user, args):
    source, obj = split_args(args)
    system = [os.path.realpath(args[i + 1]) for i, a in enumerate(args[:-1]) if a == "-isystem"]
    base = without(args, ("-c",) + DEP_FLAGS, DEP_ARGS + ("-o",))
    base.remove(source)
    scratch = scratch_dir(os.path.dirname(obj) or ".", user)
    try:
        asm = os.path.join(scratch, "out.s")
        dep = obj[:-2] + ".d" if obj.endswith(".o") else obj + ".d"
        for stale in (obj, dep):
            if os.path.exists(stale):
                os.unlink(stale)
        made = os.path.join(scratch, "out.d")   # (moved to dep once checked)
        status, said = run([real] + base + ["-fno-diagnostics-show-caret", "-S", source,
                                            "-o", asm, "-MD", "-MP", "-MF", made, "-MT", obj],
                           tree, sandbox, user=user)
        listed = made
        if not os.path.exists(made) and b"signal terminated program" in said:
            # the compiler was killed (the build's rlimits: a macro that
            # expands for ever): asking again with -M expanded it again, to
            # the same limit, and a file cost twice the build's 120 s of CPU
            return refuse(source, "the compiler was stopped before it finished (a compile may "
                          "use 120 s of CPU and 2 GiB of memory)")
        if not os.path.exists(made):
            # a fatal error stopped the preprocessor before it wrote the list:
            # list what it reads, a missing header being no error (-MG)
            listed = os.path.join(scratch, "all.d")
            run([real] + base + ["-M", "-MG", "-MF", listed, source], tree, sandbox, user=user)
            if not os.path.exists(listed):
                return refuse(source, "the preprocessor stopped before the grader could see "
                              "which files it reads")
        bad = outside_files(dependencies(listed), source, tree, system, listed != made)
        if os.path.exists(made):
            os.replace(made, dep)
        if bad:
            if os.path.exists(dep):
                os.unlink(dep)
            return refuse(source, "it reads %s, outside the work tree (an #include, #embed or "
                          "#pragma naming a file of the grading machine)" %
                          ", ".join(repr(b) for b in bad[:3]))
        if status != 0:
            sys.stderr.write(said.decode("utf-8", "replace"))
            return status
        with open(asm, errors="replace") as f:
            found = forbidden_directive(f.read())
        if found:
            return refuse(source, "its assembly has the directive %s (line %d of the "
                          "assembly the compiler made of it), which reads a file or makes "
                          "directives out of text: .incbin, .include, .macro, .irp, .irpc, "
                          ".rept, .altmacro, .purgem and .mri are not allowed in lab code"
                          % (found[1], found[0]))
        sys.stderr.write(said.decode("utf-8", "replace"))
        sys.stderr.flush()
        p = subprocess.run([real] + base + ["-c", asm, "-o", obj], stdin=subprocess.DEVNULL)
        if p.returncode == 0 and os.path.getsize(obj) > OBJECT_MAX:
            size = os.path.getsize(obj)
            os.unlink(obj)
            return refuse(source, "its object file has %d MiB, more than the %d MiB the grader "
                          "takes (an initialised array that big is copied into every program "
                          "that links the file: some fifty, each up to 256 MiB)" % (
                              size >> 20, OBJECT_MAX >> 20))
        return p.returncode
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv):
    real, tree, sandbox, user, probe = None, None, False, None, False
    i = 0
    while i < len(argv) and argv[i] != "--":
        if argv[i] == "--real":
            real, i = argv[i + 1], i + 1
        elif argv[i] == "--tree":
            tree, i = argv[i + 1], i + 1
        elif argv[i] == "--user":
            user, i = tuple(int(n) for n in argv[i + 1].split(":")), i + 1
        elif argv[i] == "--sandbox":
            sandbox = True
        elif argv[i] == "--probe":
            probe = True
        i += 1
    if probe:
        return 0 if works(real, tree, sandbox, user) else 1
    args = argv[i + 1:]
    if not split_args(args):
        os.execv(real, [real] + args)
    try:
        return guarded_compile(real, tree, sandbox, user, args)
    except (OSError, ValueError, subprocess.SubprocessError) as e:
        # the guard's own failure: the file is not compiled, and the message
        # says whose fault it is (a traceback would read like the student's)
        return refuse(split_args(args)[0], "the grader's compiler guard failed (%s: %s); this "
                      "is not a judgement of your code: tell the course staff" % (
                          type(e).__name__, e))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
