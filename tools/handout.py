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

None of them holds an instructor-only file (INSTRUCTOR_ONLY). A stub is a
comment pointing at the handout and code that compiles and fails:
`return -ENOSYS;` in the kernel, `errno = ENOSYS; return -1;` in user/,
or the text given in the marker: /* LAB NN: BEGIN (stub: ...) */.
The Lab class reads a lab folder: its points, its files, its questions."""
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
# Never given to students (COMMON.md): model answers, mutants, this guide.
INSTRUCTOR_ONLY = re.compile(r"^(lab/[^/]+/mutants/|lab/[^/]+/key\.md$|doc/instructors\.md$)")
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
        """Is its test program on user/tests/lab.h (keyed results)?"""
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


def read_points(path):
    """Lines `test points [seconds]`: [(test, points, seconds)]."""
    rows = []
    if os.path.exists(path):
        for line in open(path):
            parts = line.split("#")[0].split()
            if len(parts) >= 2:
                rows.append((parts[0], int(parts[1]),
                             float(parts[2]) if len(parts) > 2 else DEFAULT_LIMIT))
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


def course_tree(upto, stub_from, root=ROOT):
    """{path: (bytes, mode)} of a tree made from root: lab folders only for
    labs <= upto, the regions of labs >= stub_from stubbed, nothing
    instructor-only. upto=None keeps no lab folder."""
    all_labs = labs(root)
    stubbed = [lab for lab in all_labs if lab.num >= stub_from]
    dropped = [lab.folder + "/" for lab in all_labs if upto is None or lab.num > upto]
    files = {}
    for rel in tracked_files(root):
        if INSTRUCTOR_ONLY.match(rel) or rel.startswith(("build/", ".git/")) or \
                any(rel.startswith(d) for d in dropped):
            continue
        src = os.path.join(root, rel)
        with open(src, "rb") as f:
            data = f.read()
        if rel.endswith((".c", ".h")) and b"LAB " in data:
            data = stub_labs(data.decode(), rel, stubbed).encode()
        files[rel] = (data, 0o755 if os.stat(src).st_mode & stat.S_IXUSR else 0o644)
    return files


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
