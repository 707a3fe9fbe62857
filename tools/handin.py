#!/usr/bin/env python3
"""tools/handin.py - pack a lab for hand-in: `make handin LAB=NN`.

    tools/handin.py NN [OUT]            (default: build/handin-NN.tar.gz)

Packs the lab's files (lab/NN-name/files) and answers.md, at their paths in
the tree, into one .tar.gz: what you upload (tools/grade.py --submission
grades it in a pristine tree). The grader takes from those files only the
code in the lab's regions (where the course's stubs were); this says which
lines of them lie outside every region and differ from the course's (they
are not graded), and which written questions answers.md does not answer
yet."""
import io
import os
import sys
import tarfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grade  # noqa: E402
import handout  # noqa: E402


def outside_the_regions(lab, rel, root=handout.ROOT):
    """What the grader will not take from the tree's copy of rel: a
    sentence, or "" (also when the course's copy is not at hand: a tree that
    is neither the full tree nor a clone of the course repository)."""
    with open(os.path.join(root, rel), "rb") as f:
        text = grade.plain_text(f.read())[0].decode("utf-8", "replace")   # as the grader reads it
    course = handout.course_copy(rel, root) or (text if handout.REGION.search(text) else None)
    if course is None:
        return ""
    found, changed, lacking = handout.student_regions(text, course, rel, root)
    said = []
    lost = [str(k) for (num, k), body in sorted(found.items()) if num == lab.num and body is None]
    if lost:
        said.append("lab %s's code (region %s) cannot be found, because the lines around it "
                    "are not the course's: it would be graded as the stub" % (lab.num,
                                                                                ", ".join(lost)))
    if changed or lacking:
        said.append("%s outside the labs' regions differ from the course's and are not graded "
                    "(only the code in lab %s's regions is)" % (grade.line_ranges(changed, lacking),
                                                                lab.num))
    return "; ".join(said)


def add_file(t, rel, root=handout.ROOT):
    """Put rel into the tar t as a regular file holding its bytes, whatever
    it is in the tree: tarfile's add() packed a symbolic link as a link
    (and a second name of one file as a hard link), which the grader never
    follows, so a student whose open.c was a link handed in the stub.
    Returns what the grader will not read of it (sentences), or []."""
    with open(os.path.join(root, rel), "rb") as f:
        data = f.read()
    info = tarfile.TarInfo(rel)
    info.size, info.mode, info.mtime = len(data), 0o644, int(time.time())
    t.addfile(info, io.BytesIO(data))
    if len(data) > grade.FILE_MAX:
        return ["%s has %d bytes, more than the grader reads (%d): %s" % (
            rel, len(data), grade.FILE_MAX, "it will not be read" if rel == "answers.md" else
            "it will be graded as the stub")]
    if rel != "answers.md" and data.count(b"\n") > grade.LINES_MAX:
        return ["%s has more than %d lines, more than the grader reads: it will be graded as "
                "the stub" % (rel, grade.LINES_MAX)]
    return []


def main():
    if len(sys.argv) < 2:
        raise SystemExit("usage: make handin LAB=NN")
    lab = grade.choose_labs([sys.argv[1]])[0]
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(handout.ROOT, "build",
                                                             "handin-%s.tar.gz" % lab.num)
    files = lab.files() + ["answers.md"]
    missing = [rel for rel in files if not os.path.isfile(os.path.join(handout.ROOT, rel))]
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    too_big = []
    with tarfile.open(out, "w:gz") as t:
        for rel in files:
            if rel not in missing:
                too_big += add_file(t, rel)
    print("handin: %s holds %s" % (out, ", ".join(r for r in files if r not in missing)))
    if missing:
        print("handin: missing (not packed): %s" % ", ".join(missing))
    for said in too_big:
        print("handin: %s" % said)
    for rel in lab.files():
        said = "" if rel in missing else outside_the_regions(lab, rel)
        if said:
            print("handin: %s: %s" % (rel, said))
    answers = os.path.join(handout.ROOT, "answers.md")
    states = grade.check_answers(lab, handout.read_text(answers)
                                 if os.path.exists(answers) else None)
    print(grade.answers_summary(lab, states))
    print("Upload %s." % out)
    return 1 if too_big or any(rel in missing for rel in lab.files()) else 0


if __name__ == "__main__":
    sys.exit(main())
