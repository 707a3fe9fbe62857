#!/usr/bin/env python3
"""tools/errnoreach.py - the other half of the manual's ERRORS sections:
every errno a system call's own code can return is on its page.

user/tests/t_errno.c makes every error a page lists happen (a page that
lists an error the kernel does not return fails there). This asks the
other question, from the source alone: starting at sys_CALL, follow the
calls to every function that returns a value (not `void`, whose errors
go nowhere) and collect the E-constants each one's body names. An errno
so reached that the page's ERRORS does not list must be in REASONS
below, saying why no caller ever sees it; an entry of REASONS that is no
longer reached, or that the page lists after all, is an error too, so
the list cannot go stale.

What it does not follow: calls through a function pointer (a
filesystem's or a device's operations, ramfs, ext2, a served
filesystem's server): those errors are the filesystem's and are stated
on the pages, and by intro(2) for a served filesystem. What it cannot
tell: an errno named in a comparison (`err == -ENAMETOOLONG ? -E2BIG`)
counts as returned; REASONS says so where that happens.

  tools/errnoreach.py            the table: call, listed, reached, gaps
  tools/errnoreach.py --check    only the problems; exit status 1 if any

numbers_check: every number uapi/syscall.h gives is a call of the
kernel's table and has a page giving it, and every page a real call.
make test runs both (docs/every_errno_a_call_returns_is_on_its_page,
docs/every_call_number_has_a_page_and_every_page_a_call).
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The page a call is described on, where it is not NAME.2.md.
PAGE_OF = {"getppid": "getpid", "getgid": "getuid", "setgid": "setuid", "tcgetpgrp": "tcsetpgrp"}

INTRO_EINTR = "a killed sleeper's error: it exits before user code runs (intro(2))"
BENEATH = "only a walk with WALK_BENEATH refuses with it; this call walks with no flags"
DISPLAY = "vfs_path_name's, for a display name (vfs_display_name, /proc ns): a failure there names it '?' or leaves it out"
UNION_NEW = "ns_union_dir gives it only for UNION_NEW (create, link); this call asks UNION_OLD"
RDONLY = "ns_attr_check gives EACCES only for BIND_NOEXEC and BIND_NODEV; this call asks BIND_RDONLY (EROFS)"

# (call, errno): why no caller sees it although the code names it.
REASONS = {
    ("wait", "EINTR"): INTRO_EINTR,
    ("sleep", "EINTR"): INTRO_EINTR,
    ("read", "EINTR"): INTRO_EINTR,
    ("getdents", "EINTR"): INTRO_EINTR,
    ("walk", "EINTR"): INTRO_EINTR,
    ("readlink", "EINTR"): INTRO_EINTR,
    ("getcwd", "EINTR"): INTRO_EINTR,
    ("bind", "EINTR"): INTRO_EINTR,
    ("unbind", "EINTR"): INTRO_EINTR,
    ("setattach", "EINTR"): INTRO_EINTR,
    ("exec", "ENAMETOOLONG"): "copy_strings turns copyinstr's ENAMETOOLONG into E2BIG",
    ("exec", "EROFS"): "exec asks ns_attr_check for BIND_NOEXEC, which is EACCES",
    ("fsopen", "ENAMETOOLONG"): "sys_fsopen turns it into ENODEV (type) or EINVAL (opts)",
    ("read", "EFBIG"): "file.c's transfer serves write too: a read never grows a file",
    ("read", "EPIPE"): "a pipe's or channel's writer's error (pipe_write, chan_write, shared code)",
    ("read", "EROFS"): "fs_may_change, on the write side of the shared transfer code",
    ("read", "ENXIO"): "a device without a read routine or driver: ready refuses such a node first "
                       "(ready(2) ENXIO), and every driver reads",
    ("write", "ENXIO"): "a device without a write routine or driver: ready refuses it first "
                        "(the ramdisk's open says EROFS to R_WRITE)",
    ("write", "EISDIR"): "write(2) says it: no ready fd allows it (ready refuses write to a directory)",
    ("write", "EROFS"): "write(2) says it: no ready fd allows it",
    ("ftruncate", "EISDIR"): "ftruncate(2) says it: no ready fd allows it",
    ("ftruncate", "EACCES"): RDONLY,
    ("fchmod", "EACCES"): RDONLY,
    ("fchown", "EACCES"): RDONLY,
    ("getdents", "EACCES"): "a union member the caller may not read is passed over (readdir_here), not an error",
    ("walk", "ERANGE"): DISPLAY,
    ("create", "ERANGE"): DISPLAY,
    ("bind", "ERANGE"): DISPLAY,
    ("create", "EXDEV"): BENEATH,
    ("unlink", "EXDEV"): BENEATH,
    ("readlink", "EXDEV"): BENEATH,
    ("bind", "EXDEV"): BENEATH,
    ("unbind", "EXDEV"): BENEATH,
    ("setattach", "EXDEV"): BENEATH,
    ("unlink", "EEXIST"): UNION_NEW,
    ("fchdir", "ENOMEM"): "ns_attach_root's, which set_dir calls for fchroot only",
    ("fchdir", "ENOSPC"): "ns_attach_root's, which set_dir calls for fchroot only",
    ("pipe", "EBADF"): "fd_close of the call's own new fds, undoing a failed copyout: its result is dropped",
    ("chan", "EBADF"): "fd_close of the call's own new fds, undoing a failed copyout: its result is dropped",
}


def _strip(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def functions(root):
    """name -> [body] of every kernel function (kernel/test aside) that
    returns a value: definitions start in column 0, `{` alone on the next
    line and `}` in column 0 (STYLE.md's layout)."""
    found = {}
    for path in sorted(glob.glob(os.path.join(root, "kernel", "**", "*.[ch]"), recursive=True)):
        if os.sep + "test" + os.sep in path:
            continue
        with open(path) as f:
            text = _strip(f.read())
        for m in re.finditer(r"^([A-Za-z_][\w \t\*]*?)\b(\w+)\(([^;{]*?)\)\s*\n\{\n(.*?)^\}", text, re.S | re.M):
            kind, name = m.group(1), m.group(2)
            if re.search(r"\bvoid\s*$", kind) or name in ("if", "while", "for", "switch"):
                continue
            found.setdefault(name, []).append(m.group(4))
    return found


def errnos(root):
    with open(os.path.join(root, "kernel", "include", "uapi", "errno.h")) as f:
        return set(re.findall(r"^#define (E[A-Z0-9]+)\s+\d+", f.read(), re.M)) - {"EMAXERRNO"}


def syscalls(root):
    with open(os.path.join(root, "kernel", "proc", "syscall.h")) as f:
        table = re.search(r"#define SYSCALLS\(X\)(.*?)\n\n", f.read(), re.S).group(1)
    return re.findall(r"X\((\w+)\)", table)


def reach(funcs, known, start):
    """errno -> the functions reached from start that name it."""
    seen, got, todo = set(), {}, [start]
    while todo:
        name = todo.pop()
        if name in seen or name not in funcs:
            continue
        seen.add(name)
        for body in funcs[name]:
            for err in set(re.findall(r"\b(E[A-Z0-9]+)\b", body)) & known:
                got.setdefault(err, set()).add(name)
            # direct calls only: `x->op(` and `s.op(` go through a pointer
            todo += [c for c in re.findall(r"(?<![\w.>])(\w+)\s*\(", body) if c not in seen]
    return got


def listed(root, call):
    page = os.path.join(root, "doc", "man", PAGE_OF.get(call, call) + ".2.md")
    if not os.path.exists(page):
        return None
    with open(page) as f:
        m = re.search(r"^## ERRORS\n(.*?)(?=^## |\Z)", f.read(), re.S | re.M)
    return set(re.findall(r"\*\*\[(E[A-Z0-9]+)\]\*\*", m.group(1))) if m else set()


def rows(root=ROOT):
    funcs, known = functions(root), errnos(root)
    out = []
    for call in syscalls(root):
        got = reach(funcs, known, "sys_" + call)
        out.append((call, listed(root, call), got))
    return out


def check(root=ROOT):
    bad = []
    funcs = functions(root)
    for call in syscalls(root):
        if "sys_" + call not in funcs:
            bad.append("%s: no function sys_%s found in kernel/" % (call, call))
    for call, docs, got in rows(root):
        if docs is None:
            bad.append("%s: no page doc/man/%s.2.md" % (call, PAGE_OF.get(call, call)))
            continue
        for err in sorted(set(got) - docs):
            if (call, err) not in REASONS:
                bad.append("%s: the kernel can return %s (named in %s), its page's ERRORS does not "
                           "list it, and REASONS does not say why no caller sees it"
                           % (call, err, ", ".join(sorted(got[err]))))
        for (c, err), why in sorted(REASONS.items()):
            if c != call:
                continue
            if err in docs:
                bad.append("%s: %s is on its page, and REASONS says no caller sees it (%s)" % (call, err, why))
            elif err not in got:
                bad.append("%s: REASONS explains %s, which sys_%s no longer reaches: drop the entry"
                           % (call, err, call))
    for c, err in REASONS:
        if c not in syscalls(root):
            bad.append("REASONS names %s, which is not a system call" % c)
    return bad


def numbers_check(root=ROOT):
    """Every number uapi/syscall.h gives is a call of the kernel's table
    (SYSCALLS in kernel/proc/syscall.h) and the other way round, below
    NSYSCALLS, no two calls on one number; every call has a section 2 page
    whose SYNOPSIS gives that number ("System call 23 (`SYS_dup`)"); and
    every section 2 page names calls of the table only."""
    bad = []
    with open(os.path.join(root, "kernel", "include", "uapi", "syscall.h")) as f:
        uapi = f.read()
    numbers = dict((n, int(v)) for n, v in re.findall(r"^#define SYS_(\w+)\s+(\d+)", uapi, re.M))
    limit = int(re.search(r"^#define NSYSCALLS\s+(\d+)", uapi, re.M).group(1))
    table = syscalls(root)
    for name in sorted(set(numbers) - set(table)):
        bad.append("SYS_%s (%d) is in uapi/syscall.h but not in the kernel's SYSCALLS table" % (name, numbers[name]))
    for name in sorted(set(table) - set(numbers)):
        bad.append("%s is in the SYSCALLS table but uapi/syscall.h gives it no number" % name)
    for name, num in sorted(numbers.items()):
        if num >= limit:
            bad.append("SYS_%s is %d, not below NSYSCALLS (%d)" % (name, num, limit))
        twins = sorted(n for n, v in numbers.items() if v == num)
        if twins[0] == name and len(twins) > 1:
            bad.append("calls %s share number %d" % (", ".join(twins), num))
    given = {}
    for path in sorted(glob.glob(os.path.join(root, "doc", "man", "*.2.md"))):
        page = os.path.basename(path)
        with open(path) as f:
            text = re.sub(r"\s+", " ", f.read())
        m = re.search(r"## SYNOPSIS(.*?)(?:## |$)", text)
        for num, name in re.findall(r"(\d+) \(`SYS_(\w+)`\)", m.group(1) if m else ""):
            given.setdefault(name, []).append((page, int(num)))
            if name not in table:
                bad.append("%s gives SYS_%s, which is not a call of the kernel's table" % (page, name))
            elif numbers.get(name) != int(num):
                bad.append("%s gives SYS_%s as %s; uapi/syscall.h says %s" % (page, name, num, numbers.get(name)))
        if page != "intro.2.md" and page[:-5] not in table:
            bad.append("%s is named after no call of the kernel's table" % page)
    for name in table:
        if name not in given:
            bad.append("system call %s (SYS_%s = %s) has no section 2 page giving its number"
                       % (name, name, numbers.get(name)))
    return bad


def main():
    if "--check" in sys.argv[1:]:
        bad = numbers_check() + check()
        print("\n".join(bad) if bad else "every errno a call's own code returns is on its page, or explained")
        return 1 if bad else 0
    print("| call | page lists | kernel code reaches | reached, not listed | listed, not reached |")
    print("|---|---|---|---|---|")
    for call, docs, got in rows():
        docs = docs or set()
        gap = ["%s%s" % (e, "*" if (call, e) in REASONS else "") for e in sorted(set(got) - docs)]
        print("| %s | %s | %s | %s | %s |" % (call, " ".join(sorted(docs)) or "-", " ".join(sorted(got)) or "-",
                                              " ".join(gap) or "-", " ".join(sorted(docs - set(got))) or "-"))
    print("\n(* in REASONS: named in the code, seen by no caller.) 'Listed, not reached' is an error a\n"
          "filesystem, device or server returns through a pointer, or one the reach cannot see.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
