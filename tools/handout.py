#!/usr/bin/env python3
"""tools/handout.py - the labs, and the trees made from the full tree.

    tools/handout.py NN [OUTDIR]        (default OUTDIR: build/handout-NN)

The full tree holds every lab's solution between markers

    /* LAB NN: BEGIN */ ... /* LAB NN: END */

and this module makes the other trees from it, as file maps that
course.py, grade.py and the autograder share:

    course branch labNN   every lab's regions stubbed; lab folders <= NN
    handout NN            labs >= NN stubbed, earlier labs' solutions in;
                          lab folders <= NN (for a student without the
                          earlier work: what this command writes)
    pristine tree NN      labs > NN stubbed (what a submission is graded in:
                          a lab's tests can rely only on earlier labs)

They hold only the files PUBLISHED names (an allow-list: what a student's
tree consists of), so a file nobody classified is never given away; the
instructor-only ones (INSTRUCTOR_ONLY: model answers, mutants, the guide)
are outside it, and make test requires every file of the tree to be one
or the other. A stub is a comment pointing at the handout and code that
compiles and fails: `return -ENOSYS;` in the kernel, `errno = ENOSYS;
return -1;` in user/, or the text given in the marker:
/* LAB NN: BEGIN (stub: ...) */. student_regions() finds a lab's regions
in a student's copy of a file, which has no markers. The Lab class reads a
lab folder: its points, its files, its questions."""
import difflib
import os
import re
import shutil
import stat
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REGION = re.compile(r"^([ \t]*)/\* LAB (\d\d): BEGIN(?: \(stub:(.*?)\))? \*/[ \t]*\n(.*?)"
                    r"^[ \t]*/\* LAB \2: END \*/[ \t]*\n", re.S | re.M)
STUBBED = re.compile(r"/\* LAB (\d\d): your code here")
# A stub as the course branches hold it, from its first comment to its last.
STUB = re.compile(r"^[ \t]*/\* LAB (\d\d): your code here[^\n]*\n(?:.*?\n)??"
                  r"[ \t]*/\* LAB \1: end of your code \*/[ \t]*\n", re.S | re.M)
# What a student's tree consists of: the only files course branches,
# handouts, grading trees and the Gradescope package ever hold.
PUBLISHED = re.compile(r"^(Makefile|README\.md|linker\.ld|\.clang-format|\.editorconfig|\.gdbinit"
                       r"|\.gitignore|\.ci/[^/]+|boot/.+|kernel/.+|user/.+|tools/[^/]+"
                       r"|tools/(hosttest|autograder)/[^/]+|doc/man/[^/]+\.md"
                       r"|doc/(decisions|fuzzing|srv|coverage)\.md|lab/README\.md"
                       r"|lab/\d\d-[\w.-]+/(README\.md|test\.c|points|files))$")
# Never given to students (COMMON.md): model answers, mutants, this guide.
INSTRUCTOR_ONLY = re.compile(r"^(lab/[^/]+/mutants/|lab/[^/]+/key\.md$|doc/instructors\.md$)")


def published(rel):
    """Is rel part of what students get?"""
    return bool(PUBLISHED.match(rel)) and not INSTRUCTOR_ONLY.match(rel)
DEFAULT_LIMIT = 20                  # seconds a test may run (points' third field)
PLACEHOLDER = "(your answer here)"


def tracked_files(root=ROOT):
    """The tree's files: what git tracks (and new files it does not ignore),
    or outside git every file but build/."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "-co", "--exclude-standard"],
                             capture_output=True, check=True).stdout.decode()
        files = [f for f in out.split("\0") if f]
        if files:
            return sorted(f for f in files if os.path.isfile(os.path.join(root, f)))
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in ("build", ".git", "__pycache__")]
        files += [os.path.relpath(os.path.join(dirpath, f), root) for f in filenames]
    return sorted(files)


# ---------------------------------------------------------------- labs
class Lab:
    """One lab folder, lab/NN-name: README.md, test.c, points, files."""

    def __init__(self, root, name):
        self.root = root
        self.num = name[:2]                         # "04"
        self.name = name                            # "04-open"
        self.folder = "lab/" + name                 # relative to the tree
        self.path = os.path.join(root, self.folder)
        self.prog = "lab" + self.num

    def __repr__(self):
        return "Lab(%s)" % self.name

    def has_program(self):
        return os.path.isfile(os.path.join(self.path, "test.c"))

    def uses_harness(self):
        """Is its test program on user/tests/lab.h (signed results)?"""
        return self.has_program() and '"lab.h"' in read_text(os.path.join(self.path, "test.c"))

    def points(self):
        """[(test, points, seconds)] in file order."""
        return read_points(os.path.join(self.path, "points"))

    def files(self):
        """The files a student hands in: lab/NN-name/files, or else every
        file holding one of this lab's regions (or their stubs)."""
        listed = os.path.join(self.path, "files")
        if os.path.exists(listed):
            return [w for w in open(listed).read().split() if not w.startswith("#")]
        mine = []
        for rel in tracked_files(self.root):
            if rel.endswith((".c", ".h")) and not rel.startswith("lab/"):
                text = read_text(os.path.join(self.root, rel))
                if any(m.group(2) == self.num for m in REGION.finditer(text)) or \
                        any(m.group(1) == self.num for m in STUBBED.finditer(text)):
                    mine.append(rel)
        return mine

    def questions(self):
        """The numbers of the README's written questions: the numbered
        items of its "Written questions" section."""
        readme = os.path.join(self.path, "README.md")
        return questions_in(read_text(readme)) if os.path.exists(readme) else []


def labs(root=ROOT):
    """Every lab folder lab/NN-name, in number (= course) order."""
    top = os.path.join(root, "lab")
    if not os.path.isdir(top):
        return []
    return [Lab(root, d) for d in sorted(os.listdir(top))
            if re.fullmatch(r"\d\d-[\w.-]+", d) and os.path.isdir(os.path.join(top, d))]


def find_lab(num, root=ROOT):
    """The lab numbered num ("4" or "04"), or None."""
    if not re.fullmatch(r"\d{1,2}", str(num)):
        return None
    num = "%02d" % int(num)
    return next((lab for lab in labs(root) if lab.num == num), None)


def lab_folder(lab, root=ROOT):
    """"lab/NN-name" for lab number NN, or None."""
    found = find_lab(lab, root)
    return found.folder if found else None


LIMIT_MAX = 600                     # seconds: a longer time limit is a typo


def read_points(path):
    """Lines `test points [seconds]`: [(test, points, seconds)]. Exits
    naming the line if one is not that: points a whole number >= 0, seconds
    a number in (0, LIMIT_MAX], each test once. float() took "inf" (a hang
    never timed out, the grading waited for ever) and "nan" (every test
    "timed out" at once), int() took "-5" (a negative score), and a test
    listed twice ran twice and counted twice."""
    rows, seen = [], set()
    if os.path.exists(path):
        for number, line in enumerate(open(path), 1):
            parts = line.split("#")[0].split()
            if not parts:
                continue
            try:
                if not 2 <= len(parts) <= 3 or not re.fullmatch(r"\w+", parts[0]) or \
                        parts[0] in seen or not re.fullmatch(r"\d+", parts[1]):
                    raise ValueError
                limit = float(parts[2]) if len(parts) > 2 else DEFAULT_LIMIT
                if not 0 < limit <= LIMIT_MAX:      # (False for nan)
                    raise ValueError
            except ValueError:
                raise SystemExit("%s, line %d: %r is not `test points [seconds]` (a test named "
                                 "once, whole points >= 0, 0 < seconds <= %d)" % (
                                     path, number, line.strip(), LIMIT_MAX)) from None
            seen.add(parts[0])
            rows.append((parts[0], int(parts[1]), limit))
    return rows


def read_text(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def questions_in(readme):
    """Numbers of the items in a README's "## Written questions" section."""
    m = re.search(r"^##+ [^\n]*questions[^\n]*\n(.*?)(?=^## |\Z)", readme, re.S | re.M | re.I)
    return [int(n) for n in re.findall(r"^(\d+)\.\s", m.group(1), re.M)] if m else []


# ---------------------------------------------------------------- stubs
def map_regions(text, lab, fn, index=None):
    """text with each of lab's regions (index, 1-based: only that one of
    the file) replaced, markers and all, by fn(m), m being its REGION match:
    m.group(1) the indent, m.group(3) the stub given in the marker (or
    None), m.group(4) the body. Returns (text, how many regions of lab the
    text holds)."""
    count = 0

    def repl(m):
        nonlocal count
        if m.group(2) != lab:
            return m.group(0)
        count += 1
        return fn(m) if index is None or count == index else m.group(0)

    return REGION.sub(repl, text), count


def stub_region(text, lab, path, folder):
    """Replace lab's regions in one file's text by their stubs; returns
    (text, count)."""
    def stub_of(m):
        indent, stub = m.group(1), m.group(3)
        if stub is None:
            stub = "errno = ENOSYS;\nreturn -1;" if path.startswith("user/") else "return -ENOSYS;"
        stub = stub.strip("\n")
        lines = ["%s/* LAB %s: your code here (see %s/README.md) */" % (indent, lab, folder)]
        body = stub.strip().startswith("int ")     # a whole function: keep it as written
        lines += [line if body else indent + line.strip()
                  for line in stub.strip("\n").splitlines() if line.strip() or body]
        lines.append("%s/* LAB %s: end of your code */" % (indent, lab))
        return "\n".join(lines) + "\n"

    return map_regions(text, lab, stub_of)


def edit_regions(text, lab, edit, index=None):
    """text with the bodies of lab's regions replaced by edit(m) (m as for
    map_regions), the markers kept; returns (text, count) as map_regions."""
    def body(m):
        at = m.start(0)
        return m.group(0)[:m.start(4) - at] + edit(m) + m.group(0)[m.end(4) - at:]

    return map_regions(text, lab, body, index)


def stub_labs(text, path, stubbed):
    """text with the regions of every lab in `stubbed` (Lab objects) stubbed."""
    for lab in stubbed:
        text, _ = stub_region(text, lab.num, path, lab.folder)
    return text


def unmark(text, lab=None):
    """text with the BEGIN/END markers of lab's regions (None: every lab's)
    gone and their bodies kept, as in a student's file."""
    return REGION.sub(lambda m: m.group(4) if lab in (None, m.group(2)) else m.group(0), text)


def unmarked_lines(text):
    """unmark(text) as lines, and the number each of them has in text."""
    def blank(m):
        at = m.start(0)
        begin, end = m.group(0)[:m.start(4) - at], m.group(0)[m.end(4) - at:]
        return "\0\n" * begin.count("\n") + m.group(4) + "\0\n" * end.count("\n")

    kept = [(n + 1, line) for n, line in enumerate(REGION.sub(blank, text).splitlines(True))
            if line != "\0\n"]
    return [line for _, line in kept], [n for n, _ in kept]


def course_base(text, path, root=ROOT):
    """text (a file of the full tree or of a course tree) as every course
    branch has it, every lab's region a stub, as lines; and for each line
    the stub it is part of: (lab, k) for the k-th region of lab in the
    file, None outside every region."""
    folders = {lab.num: lab.folder for lab in labs(root)}
    for num in sorted(set(m.group(2) for m in REGION.finditer(text))):
        text, _ = stub_region(text, num, path, folders.get(num, "lab/" + num))
    lines, owner, count, pos = [], [], {}, 0
    for m in STUB.finditer(text):
        for chunk, who in ((text[pos:m.start()], None), (m.group(0), m.group(1))):
            if who:
                count[who] = count.get(who, 0) + 1
                who = (who, count[who])
            chunk = chunk.splitlines(keepends=True)
            lines += chunk
            owner += [who] * len(chunk)
        pos = m.end()
    rest = text[pos:].splitlines(keepends=True)
    return lines + rest, owner + [None] * len(rest)


def locate_regions(text, reference, path, root=ROOT):
    """Find the labs' regions in a student's copy (text) of the file whose
    text in a full or course tree is reference. A student's file has no
    markers (if it has, they go): each region is what lies between the
    lines that surround its stub on the course branches (blank lines
    aside), which must be there unchanged. Returns (text's lines, {(lab,
    k): (first, end) line span in them, or None if the region's
    surroundings were changed}, [numbers of the lines outside every region
    found that are not the course's], how many of the course's lines
    outside the regions text lacks). Line numbers are text's own; the
    spans index its lines without markers, whose numbers the second list
    gives."""
    base, owner = course_base(reference, path, root)
    theirs, number = unmarked_lines(text)
    match = {}
    for a, b, size in difflib.SequenceMatcher(None, base, theirs,
                                              autojunk=False).get_matching_blocks():
        for d in range(size):
            match[a + d] = b + d
    spans = {}
    for i, who in enumerate(owner):
        if who:
            spans.setdefault(who, [i, i])[1] = i + 1
    found, inside = {}, set()
    for who, (start, end) in spans.items():
        while start > 0 and start - 1 not in match and not base[start - 1].strip():
            start -= 1
        while end < len(base) and end not in match and not base[end].strip():
            end += 1
        first = 0 if start == 0 else match[start - 1] + 1 if start - 1 in match else None
        last = len(theirs) if end == len(base) else match.get(end)
        found[who] = None if first is None or last is None or first > last else (first, last)
        inside.update(range(first, last) if found[who] else ())
    kept = {match[i] for i, who in enumerate(owner) if who is None and i in match}
    changed = [number[j] for j in range(len(theirs)) if j not in inside and j not in kept]
    lacking = sum(1 for i, who in enumerate(owner) if who is None and i not in match)
    return theirs, number, found, changed, lacking


def student_regions(text, reference, path, root=ROOT):
    """locate_regions, with each region's text (or None) instead of its span."""
    lines, _, spans, changed, lacking = locate_regions(text, reference, path, root)
    return ({who: "".join(lines[s[0]:s[1]]) if s else None for who, s in spans.items()},
            changed, lacking)


def restub(text, lab, course, path, root=ROOT):
    """text (a student's file, lab's regions filled in) with those regions
    put back to the stubs that course (the course branches' copy) holds;
    None if one of them cannot be found."""
    lines, _, spans, _, _ = locate_regions(text, course, path, root)
    base, owner = course_base(course, path, root)
    mine = sorted((s, who) for who, s in spans.items() if who[0] == lab and s)
    if not mine or len(mine) != sum(1 for who in spans if who[0] == lab):
        return None
    out, pos = [], 0
    for (first, end), who in mine:
        out += lines[pos:first] + [line for line, o in zip(base, owner) if o == who]
        pos = end
    return "".join(out + lines[pos:])


def course_copy(path, root=ROOT):
    """path as the course branches hold it (every lab's region a stub),
    from the first commit of root's git history, when root is a clone of
    the course repository; else None."""
    try:
        firsts = subprocess.run(["git", "-C", root, "rev-list", "--max-parents=0", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.split()
        for commit in firsts:
            p = subprocess.run(["git", "-C", root, "show", "%s:%s" % (commit, path)],
                               capture_output=True)
            text = p.stdout.decode("utf-8", "replace")
            if p.returncode == 0 and STUB.search(text):
                return text
    except (OSError, subprocess.CalledProcessError):
        pass
    return None


def fill_stubs(text, lab, bodies, path=None):
    """text (a course tree's file: lab's regions are stubs) with the k-th
    stub of lab replaced by bodies[k - 1], where that is not None. With
    path, a body is (its text, the number of its first line in the
    student's file), and #line directives around it make the compiler and
    the kernel's line tables speak of that file, path, and its lines."""
    out, pos, count = [], 0, 0
    for m in STUB.finditer(text):
        if m.group(1) != lab:
            continue
        count += 1
        body = bodies[count - 1] if count <= len(bodies) else None
        if body is None:
            continue
        out.append(text[pos:m.start()])
        if path:
            body, first = body
            after = "".join(out).count("\n") + body.count("\n") + 3
            body = '#line %d "%s"\n%s#line %d "%s"\n' % (first, path, body, after, path)
        out.append(body)
        pos = m.end()
    return "".join(out) + text[pos:]


def course_tree(upto, stub_from, root=ROOT):
    """{path: (bytes, mode)} of a tree made from root: only PUBLISHED
    files, lab folders only for labs <= upto, the regions of labs >=
    stub_from stubbed. upto=None keeps no lab folder."""
    all_labs = labs(root)
    stubbed = [lab for lab in all_labs if lab.num >= stub_from]
    dropped = [lab.folder + "/" for lab in all_labs if upto is None or lab.num > upto]
    files = {}
    for rel in tracked_files(root):
        if not published(rel) or any(rel.startswith(d) for d in dropped):
            continue
        src = os.path.join(root, rel)
        with open(src, "rb") as f:
            data = f.read()
        if rel.endswith((".c", ".h")) and b"LAB " in data:
            data = stub_labs(data.decode(), rel, stubbed).encode()
        files[rel] = (data, 0o755 if os.stat(src).st_mode & stat.S_IXUSR else 0o644)
    return files


def solution_bodies(stub_from, root=ROOT):
    """[(lab, file, body)] of root's regions of labs >= stub_from, white
    space squashed, long enough (20 characters) to be recognised elsewhere."""
    bodies = []
    for rel in tracked_files(root):
        if rel.endswith((".c", ".h")) and not rel.startswith("lab/"):
            for m in REGION.finditer(read_text(os.path.join(root, rel))):
                body = re.sub(r"\s+", " ", m.group(4)).strip()
                if m.group(2) >= stub_from and len(body) >= 20:
                    bodies.append((m.group(2), rel, body))
    return bodies


def refuse_solutions(files, stub_from, what, root=ROOT):
    """Exit if a file of a tree to give out ({path: (bytes, mode)}) holds
    the code of a region of a lab >= stub_from. Only the lab files are
    stubbed, so a stray copy of one (an editor's `pipe.c~`, a merge's
    `open.c.orig`: untracked files git does not ignore are published, so
    that a new file counts before it is committed) went out whole, the
    solution in it, on every course branch."""
    bodies = solution_bodies(stub_from, root)
    for rel, (data, _) in sorted(files.items()):
        flat = re.sub(r"\s+", " ", data.decode("utf-8", "replace"))
        for num, src, body in bodies:
            if body in flat:
                sys.exit("%s: %s holds lab %s's solution (the code of its region in %s): a "
                         "backup or a stray copy? Remove it (or make git ignore it), then run "
                         "this again" % (what, rel, num, src))


def pristine_tree(lab, root=ROOT):
    """The tree a submission for lab is graded in: later labs stubbed."""
    return course_tree(lab.num, "%02d" % (int(lab.num) + 1), root)


def write_tree(files, dest, keep=("build", ".git")):
    """Make dest hold exactly files ({path: (bytes, mode)}), apart from the
    top-level names in keep. A file whose content is unchanged is left
    alone, so make rebuilds only what changed; a changed one gets a new
    mtime. Returns the paths written."""
    written = []
    for rel, (data, mode) in files.items():
        path = os.path.join(dest, rel)
        try:
            with open(path, "rb") as f:
                same = f.read() == data
        except OSError:
            same = False
        if not same:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if os.path.islink(path) or os.path.isdir(path):
                remove(path)
            with open(path, "wb") as f:
                f.write(data)
            written.append(rel)
        if stat.S_IMODE(os.stat(path).st_mode) != mode:
            os.chmod(path, mode)
    for dirpath, dirnames, filenames in os.walk(dest, topdown=True):
        if dirpath == dest:
            dirnames[:] = [d for d in dirnames if d not in keep]
            filenames = [f for f in filenames if f not in keep]
        for f in filenames:
            rel = os.path.relpath(os.path.join(dirpath, f), dest)
            if rel not in files:
                os.unlink(os.path.join(dirpath, f))
    for dirpath, dirnames, filenames in os.walk(dest, topdown=False):
        rel = os.path.relpath(dirpath, dest)
        if rel != "." and rel.split(os.sep)[0] not in keep and not os.listdir(dirpath):
            os.rmdir(dirpath)
    return written


def remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)


def make_handout(lab, out, root=ROOT):
    """Write the handout for lab number `lab` to out; the regions stubbed."""
    found = find_lab(lab, root)
    if not found:
        sys.exit("handout: no lab %s under lab/ (labs: %s)" %
                 (lab, " ".join(x.num for x in labs(root)) or "none"))
    files = course_tree(found.num, found.num, root)
    refuse_solutions(files, found.num, "handout", root)
    regions = sum(len(STUBBED.findall(d.decode(errors="replace")))
                  for rel, (d, _) in files.items() if rel.endswith((".c", ".h")))
    mine = sum(1 for rel, (d, _) in files.items() if rel.endswith((".c", ".h"))
               for m in STUBBED.finditer(d.decode(errors="replace")) if m.group(1) == found.num)
    if mine == 0:
        sys.exit("handout: no /* LAB %s: BEGIN */ regions found" % found.num)
    remove(out)
    os.makedirs(out)
    write_tree(files, out)
    return mine, regions


def main():
    if len(sys.argv) < 2 or not re.fullmatch(r"\d\d?", sys.argv[1]):
        sys.exit("usage: tools/handout.py NN [OUTDIR]")
    lab = "%02d" % int(sys.argv[1])
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "build", "handout-" + lab)
    mine, regions = make_handout(lab, out)
    print("handout: lab %s, %d of its region(s) and %d of later labs stubbed, written to %s"
          % (lab, mine, regions - mine, out))


if __name__ == "__main__":
    main()
