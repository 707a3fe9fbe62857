#!/usr/bin/env python3
"""tools/batch.py - grade a folder of submissions: `make grade-batch`.

    tools/batch.py NN SUBMISSIONS [--out DIR] [--jobs N] [--extra DIR] [--budget S]
    tools/batch.py NN --fixtures DIR [--count 20]

Each subfolder, .zip, .tar.gz, .tgz or .tar of SUBMISSIONS is one student's
submission (named after it). They are graded as tools/grade.py
--submission grades one (only the code in the lab's regions and answers.md
are taken, into a pristine tree), in parallel: one worker per core, each
with its own prebuilt work tree (grade.worker_dir: outside the full tree)
and one QEMU at a time. No time budget per submission unless --budget or
GRADE_BUDGET gives one (LOCAL_BUDGET; Gradescope's package has its own).
Writes, under DIR (default build/grade-batch-NN/):

    grades.csv                  student, score, max, one column per test,
                                answers (written questions answered / asked),
                                notes (does not build, hangs, panics, ...)
    STUDENT/results.json        Gradescope's format, as grade.py --json
    STUDENT/log.txt             what grade.py would have printed

--fixtures writes a mix of made-up submissions for lab NN to DIR (correct,
stub, does not build, hangs, traps: a kernel panic in kernel code, a killed
process in user code), from the lab's own regions: a dry run of the
grading setup, and what `make test` and the timing measurements use."""
import argparse
import concurrent.futures
import csv
import json
import os
import queue
import re
import shutil
import sys
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grade  # noqa: E402
import handout  # noqa: E402

ROOT = grade.ROOT


def submissions(folder):
    """[(student, path)] for every entry of folder, by name: a subfolder or
    an archive is a submission named after it (without .zip, .tar.gz, ...);
    anything else (a .rar, a stray file) is listed too, and grades 0 with a
    note, so that no student silently lacks a row. Names are made text (a
    byte that is not UTF-8 written \\xNN: a name from a Windows zip stopped
    the CSV) and unique: when alice/ and alice.zip are both there, each
    keeps its whole name."""
    entries = []
    for name in sorted(os.listdir(folder)):
        if name.startswith("."):
            continue
        path = os.path.join(folder, name)
        text = os.fsencode(name).decode("utf-8", "backslashreplace")
        short = re.sub(r"\.(zip|tar\.gz|tgz|tar)$", "", text) if grade.is_archive(path) else text
        entries.append((short, text, path))
    shorts = [e[0] for e in entries]
    found, taken = [], {"grades.csv"}             # (a student's folder goes beside it)
    for short, text, path in entries:
        student = short if shorts.count(short) == 1 else text
        while student in taken:
            student += "~"
        taken.add(student)
        found.append((student, path))
    return found


def problems(report):
    """Short notes on what went wrong, for the CSV: one line each."""
    notes = [] if report.build_ok else ["does not build"]
    for r in report.rows:
        if r["output"].startswith(grade.HUNG):
            notes.append("hangs in %s" % r["name"])
        elif r["output"].startswith("the kernel panicked during"):
            notes.append("panics in %s" % r["name"])
        if r.get("flaky"):
            notes.append("flaky in %s" % r["name"])
    if report.out_of_time:
        notes.append("time budget ran out: %d tests not run (their cells say so)" %
                     len(report.out_of_time))
    return notes + [n.split("\n")[0].rstrip(":") for n in report.notes]


# A local batch's time budget per submission, unless --budget or GRADE_BUDGET
# says one: none. grade.BUDGET (480 s) exists for Gradescope, whose container
# is killed at its limit (run_autograder gives grade.py its own); a local
# batch is killed by nothing, each test still has its limit and each boot
# BOOT_LIMIT, and on a loaded machine (--jobs 2 on two busy cores) 480 s left
# a slow but correct submission's last tests "not run".
LOCAL_BUDGET = 0


def grade_all(lab, entries, out, jobs, extra, log=grade.say, budget=LOCAL_BUDGET):
    """Grade every (student, path) with jobs workers; returns the reports."""
    tree, ok, msg = grade.prepare(lab, 0)
    if not ok:
        raise SystemExit("batch: the pristine tree for lab %s does not build:\n%s" % (lab.num, msg))
    for w in range(1, jobs):
        with grade.TreeLock(grade.worker_dir(lab, w), log):
            grade.base_tree(lab, w)
    workers = queue.Queue()
    for w in range(jobs):
        workers.put(w)
    lock, reports, done = threading.Lock(), {}, [0]

    def one(student, path):
        w = workers.get()
        lines = []
        try:
            report = grade.grade_submission(lab, path, extra, worker=w, jobs=1,
                                            log=lines.append, budget=budget)
        except Exception as e:      # the grader's own failure costs this submission only
            report = grade.failed_report(lab, None, e)
            lines.append(traceback.format_exc())
        finally:
            workers.put(w)
        folder = os.path.join(out, student)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "results.json"), "w") as f:
            json.dump(report.gradescope(), f, indent=2)
        with open(os.path.join(folder, "log.txt"), "w") as f:
            f.write("\n".join(lines + [grade.answers_summary(lab, report.answers),
                                       "Score: %d/%d" % (report.score, report.max_score)]) + "\n")
        with lock:
            done[0] += 1
            reports[student] = report
            shown = grade.printable(student).replace("\n", "\\n")
            log("[%d/%d] %-24s %3d/%-3d %5.1fs %s" % (done[0], len(entries), shown,
                                                      report.score, report.max_score,
                                                      report.seconds,
                                                      "; ".join(problems(report))[:120]))
        return report

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for f in [pool.submit(one, s, p) for s, p in entries]:
            f.result()
    return reports


def csv_cell(text):
    """text safe in a CSV an instructor opens: control characters written
    out ("\\x1b": `cat grades.csv` must not run a terminal's escapes), and
    a leading =, +, - or @ behind a quote ("'=..."): a spreadsheet takes
    such a cell for a formula, and a student who names themselves
    =HYPERLINK("http://...") gets a link in the gradebook, or worse."""
    text = grade.printable(text).replace("\n", "\\n")
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


# A test's cell when the time budget left it unrun: not a 0 the code earned
# (the row's score counts it as 0; a spreadsheet's SUM skips the text).
NOT_RUN = "not run"


def write_csv(path, lab, reports):
    names = []
    for r in (reports[s] for s in sorted(reports)):     # not in the order they finished
        names += [row["name"] for row in r.rows if row["name"] not in names]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student", "score", "max"] + names + ["answers", "notes"])
        for student in sorted(reports):
            r = reports[student]
            got = {row["name"]: NOT_RUN if row.get("not_run") else row["score"]
                   for row in r.rows}
            asked = len(r.answers)
            w.writerow([csv_cell(student), r.score, r.max_score] +
                       [got.get(n, "") for n in names] +
                       ["%d/%d" % (sum(s == "answered" for _, s in r.answers), asked),
                        csv_cell("; ".join(problems(r)))])


# ---------------------------------------------------------------- fixtures
def region_edit(text, lab, line):
    """text with `line` put at the start of each of lab's regions: first
    thing in the body of a statement region, or first thing inside the
    first function of a region that holds whole functions."""
    def edit(m):
        body = m.group(4)
        if m.group(1):                          # indented: statements
            return m.group(1) + line + "\n" + body
        at = re.search(r"^\{\n", body, re.M)
        return body[:at.end()] + "    " + line + "\n" + body[at.end():] if at else body
    return handout.edit_regions(text, lab.num, edit)[0]


def fixture_files(lab, kind, root=ROOT):
    """{path: bytes}: the lab's files for one kind of made-up submission:
    correct, stub, broken (does not compile), hangs, traps, debug-print
    (correct, plus a print with no newline), prints-pass (the stub, plus
    forged "PASS name" lines for every test)."""
    pristine = handout.pristine_tree(lab, root)
    names = [t[0] for t in lab.points()]
    fake = "".join("PASS %s\\n" % n for n in names) + "%s: done\\n" % lab.prog
    out = {}
    for rel in lab.files():
        text = pristine[rel][0].decode()
        kernel = not rel.startswith("user/")
        if kind == "stub":
            text = stub_keep_markers(text, lab, rel)
        elif kind == "broken":
            text = region_edit(text, lab, "this does not compile;")
        elif kind == "hangs":                   # (in user code, not in init: in the tests)
            text = region_edit(text, lab, "for (;;) ;" if kernel else
                               "{ extern int getpid(void); while (getpid() > 1) ; }")
        elif kind == "traps":
            text = region_edit(text, lab, "__builtin_trap();" if kernel else
                               "{ extern int getpid(void); if (getpid() > 1) __builtin_trap(); }")
        elif kind == "debug-print":
            text = region_edit(text, lab, 'kprintf("dbg ");' if kernel else 'write(2, "dbg ", 4);')
        elif kind == "prints-pass":
            text = region_edit(stub_keep_markers(text, lab, rel), lab,
                               'kprintf("%s");' % fake if kernel else
                               'write(1, "%s", %d);' % (fake, len(fake.replace("\\n", "\n"))))
        elif kind != "correct":
            raise ValueError("no fixture kind %s" % kind)
        out[rel] = handout.unmark(text, lab.num).encode()
    return out


def stub_keep_markers(text, lab, rel):
    """text with lab's regions holding their stubs, markers kept (so that a
    fixture can add to the stub)."""
    return handout.edit_regions(text, lab.num, lambda m: handout.stub_region(
        m.group(0), lab.num, rel, lab.folder)[0])[0]


MIX = ["correct", "stub", "correct", "broken", "correct", "hangs", "stub", "correct", "traps",
       "correct", "stub", "broken", "correct", "correct", "stub", "hangs", "correct", "traps",
       "correct", "broken"]


def write_fixture(dest, files, answers=True):
    os.makedirs(dest, exist_ok=True)
    for rel, data in files.items():
        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
        with open(os.path.join(dest, rel), "wb") as f:
            f.write(data)
    if answers:
        with open(os.path.join(dest, "answers.md"), "w") as f:
            f.write("# Answers\n\n## Question 1\n\nBecause the call does three things at once.\n")


def make_fixtures(lab, dest, count):
    handout.remove(dest)
    os.makedirs(dest)
    made = []
    for i in range(count):
        kind = MIX[i % len(MIX)]
        name = "s%02d-%s" % (i + 1, kind)
        write_fixture(os.path.join(dest, name), fixture_files(lab, kind), answers=i % 2 == 0)
        made.append(name)
    return made


def parser():
    ap = argparse.ArgumentParser(description="grade a folder of submissions")
    ap.add_argument("lab")
    ap.add_argument("submissions", nargs="?", help="folder of submissions")
    ap.add_argument("--out", help="where to write (default build/grade-batch-NN)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="workers (one per core)")
    ap.add_argument("--extra", default=os.environ.get("GRADE_EXTRA") or None,
                    help="hidden tests folder (default: $GRADE_EXTRA)")
    ap.add_argument("--budget", type=grade.budget_arg,
                    default=os.environ.get("GRADE_BUDGET") or LOCAL_BUDGET,
                    help="seconds one submission's grading may take (default $GRADE_BUDGET, "
                    "else no limit: 0; Gradescope's package has %d)" % grade.BUDGET)
    ap.add_argument("--fixtures", help="write made-up submissions to this folder, and stop")
    ap.add_argument("--count", type=int, default=20, help="how many fixtures")
    return ap


def main():
    args = parser().parse_args()
    lab = grade.choose_labs([args.lab])[0]
    if args.fixtures:
        made = make_fixtures(lab, args.fixtures, args.count)
        print("batch: %d fixture submissions for lab %s in %s" % (len(made), lab.num,
                                                                   args.fixtures))
        return 0
    if not args.submissions or not os.path.isdir(args.submissions):
        raise SystemExit("usage: tools/batch.py NN SUBMISSIONS (a folder of submissions)")
    if args.extra and not os.path.isdir(args.extra):
        raise SystemExit("batch: no hidden-tests folder %s" % args.extra)
    lab.points()                        # a bad line of a points file stops here, saying which
    if args.extra:
        handout.read_points(os.path.join(args.extra, "points"))
    entries = submissions(args.submissions)
    if not entries:
        raise SystemExit("batch: no submissions in %s" % args.submissions)
    out = args.out or os.path.join(ROOT, "build", "grade-batch-" + lab.num)
    handout.remove(out)
    os.makedirs(out)
    start = time.monotonic()
    reports = grade_all(lab, entries, out, max(1, args.jobs), args.extra, budget=args.budget)
    write_csv(os.path.join(out, "grades.csv"), lab, reports)
    print("batch: %d submissions of lab %s graded in %.0f s with %d workers; %s" % (
        len(reports), lab.num, time.monotonic() - start, args.jobs,
        os.path.join(out, "grades.csv")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
