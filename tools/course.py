#!/usr/bin/env python3
"""tools/course.py - the course repository: `make course`.

    tools/course.py [OUT]               (default: build/course)

Writes OUT as a git repository with one branch per lab, in course order
(the lab folders' numbers): lab01, lab02, ... Every branch has every lab's
regions stubbed (students fill them in as the course goes) and the lab
folders of its own and earlier labs only; branch labNN is branch
lab(NN-1) plus one commit adding lab/NN-name/. So a student who finished
lab01 on a branch of their own runs `git merge lab02` with no conflict:
the new commit touches no file they edited.

answers.md, in the first commit, holds a section per written question of
every lab ("## Lab NN, question K" with a placeholder); tools/grade.py
reports which of them have an answer. A branch holds only the files
handout.PUBLISHED names (nothing instructor-only, nothing under build/).
Commits have a fixed author and date, so the same tree gives the same
commits."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import handout  # noqa: E402

ROOT = handout.ROOT
GIT_ENV = {"GIT_AUTHOR_NAME": "Orthos course", "GIT_AUTHOR_EMAIL": "course@orthos.invalid",
           "GIT_COMMITTER_NAME": "Orthos course", "GIT_COMMITTER_EMAIL": "course@orthos.invalid",
           "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def git(repo, *args, check=True):
    env = dict(os.environ, **GIT_ENV)
    p = subprocess.run(["git", "-C", repo, "-c", "commit.gpgsign=false"] + list(args),
                       capture_output=True, text=True, env=env)
    if check and p.returncode != 0:
        raise RuntimeError("git %s: %s" % (" ".join(args), p.stderr.strip()))
    return p.stdout


def title(lab):
    """The first heading of the lab's README, without "Lab NN: "."""
    readme = os.path.join(lab.path, "README.md")
    first = handout.read_text(readme).splitlines()[0] if os.path.exists(readme) else ""
    return re.sub(r"^#\s*(Lab\s*\d+\s*[:.-]\s*)?", "", first).strip() or lab.name


def answers_template(labs):
    """answers.md: a section per written question of every lab."""
    out = ["# Written answers", "",
           "One section per written question (the questions end each lab's",
           "lab/NN-name/README.md). Replace each \"%s\" with your answer," % handout.PLACEHOLDER,
           "in your own words; `make grade LAB=NN` reports the questions still",
           "unanswered, and `make handin LAB=NN` packs this file with your code.", ""]
    for lab in labs:
        for q in lab.questions():
            out += ["## Lab %s, question %d" % (lab.num, q), "", handout.PLACEHOLDER, ""]
    return "\n".join(out)


def branch_tree(lab, labs, root=ROOT):
    """{path: (bytes, mode)} of branch lab (None: the first commit)."""
    files = handout.course_tree(lab.num if lab else None, "00", root)
    files["answers.md"] = (answers_template(labs).encode(), 0o644)
    handout.refuse_solutions(files, "00", "course", root)
    return files


def make_course(out, root=ROOT):
    """Write the course repository to out; returns the branch names."""
    labs = handout.labs(root)
    if not labs:
        raise SystemExit("course: no lab folders under %s/lab" % root)
    handout.remove(out)
    os.makedirs(out)
    git(out, "init", "-q")
    handout.write_tree(branch_tree(None, labs, root), out)
    git(out, "add", "-A")
    git(out, "commit", "-q", "-m", "Orthos: the course tree, every lab's code a stub\n\n"
        "Each lab adds its folder (handout, tests, points) in a commit of its own.")
    branches = []
    for lab in labs:
        handout.write_tree(branch_tree(lab, labs, root), out)
        git(out, "add", "-A")
        changed = git(out, "diff", "--cached", "--name-only").split()
        stray = [p for p in changed if not p.startswith(lab.folder + "/")]
        if stray:
            raise SystemExit("course: lab %s's commit would change %s" % (lab.num, stray))
        git(out, "commit", "-q", "-m", "Lab %s: %s" % (lab.num, title(lab)))
        git(out, "branch", "-f", "lab" + lab.num)
        branches.append("lab" + lab.num)
    default = git(out, "symbolic-ref", "--short", "HEAD").strip()
    git(out, "checkout", "-q", branches[0])
    if default not in branches:
        git(out, "branch", "-D", default)
    return branches


def main():
    if len(sys.argv) > 2 or (len(sys.argv) > 1 and sys.argv[1].startswith("-")):
        print(__doc__.split("\n\n")[1])   # `course.py --help` wrote a course repository to ./--help
        sys.exit(0 if sys.argv[1:] in (["-h"], ["--help"]) else 2)
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "course")
    branches = make_course(out)
    print("course: %s with branches %s (checked out: %s)" % (out, " ".join(branches),
                                                              branches[0]))
    print("publish: git -C %s push --force URL %s" % (out, " ".join(branches)))


if __name__ == "__main__":
    main()
