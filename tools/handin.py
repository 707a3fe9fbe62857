#!/usr/bin/env python3
"""tools/handin.py - pack a lab for hand-in: `make handin LAB=NN`.

    tools/handin.py NN [OUT]            (default: build/handin-NN.tar.gz)

Packs the lab's files (lab/NN-name/files) and answers.md, at their paths in
the tree, into one .tar.gz: what you upload, and all the grader takes from
you (tools/grade.py --submission grades it in a pristine tree). Says which
written questions answers.md does not answer yet."""
import os
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grade  # noqa: E402
import handout  # noqa: E402


def main():
    if len(sys.argv) < 2:
        raise SystemExit("usage: make handin LAB=NN")
    lab = grade.choose_labs([sys.argv[1]])[0]
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(handout.ROOT, "build",
                                                             "handin-%s.tar.gz" % lab.num)
    files = lab.files() + ["answers.md"]
    missing = [rel for rel in files if not os.path.isfile(os.path.join(handout.ROOT, rel))]
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with tarfile.open(out, "w:gz") as t:
        for rel in files:
            if rel not in missing:
                t.add(os.path.join(handout.ROOT, rel), arcname=rel, recursive=False)
    print("handin: %s holds %s" % (out, ", ".join(r for r in files if r not in missing)))
    if missing:
        print("handin: missing (not packed): %s" % ", ".join(missing))
    answers = os.path.join(handout.ROOT, "answers.md")
    states = grade.check_answers(lab, handout.read_text(answers)
                                 if os.path.exists(answers) else None)
    print(grade.answers_summary(lab, states))
    print("Upload %s." % out)
    return 1 if any(rel in missing for rel in lab.files()) else 0


if __name__ == "__main__":
    sys.exit(main())
