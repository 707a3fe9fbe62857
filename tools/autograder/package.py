#!/usr/bin/env python3
"""tools/autograder/package.py - the Gradescope package: `make autograder`.

    tools/autograder/package.py NN [--extra DIR] [--budget SECONDS] [--out FILE]
                                (default FILE: build/autograder-NN.zip)

Writes a zip laid out as Gradescope's autograder specification asks:
setup.sh and run_autograder at its root (both from this folder), LAB (the
lab's number), course/ (the pristine course tree for lab NN: lab NN and
every later lab stubbed, earlier labs' solutions in, lab folders up to NN,
nothing instructor-only) and, with --extra (or GRADE_EXTRA), hidden/ (the
hidden tests: *.c and points) and, with --budget (or GRADE_BUDGET), BUDGET
(the seconds one submission's grading may take; without it run_autograder
gives 60 s less than its own limit). Gradescope unpacks it in /autograder/source,
runs setup.sh once, then run_autograder for every submission."""
import argparse
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import grade  # noqa: E402
import handout  # noqa: E402


def add(z, name, data, mode):
    info = zipfile.ZipInfo(name, date_time=(2000, 1, 1, 0, 0, 0))
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


def package(lab, out, extra=None, budget=None):
    """Write the zip; returns the number of files in it."""
    files = handout.course_tree(lab.num, lab.num)
    handout.refuse_solutions(files, lab.num, "autograder")
    count = 0
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with zipfile.ZipFile(out, "w") as z:
        for name in ("setup.sh", "run_autograder"):
            with open(os.path.join(HERE, name), "rb") as f:
                add(z, name, f.read(), 0o755)
        add(z, "LAB", lab.num + "\n", 0o644)
        if budget is not None:
            add(z, "BUDGET", "%d\n" % budget, 0o644)
        for rel in sorted(files):
            data, mode = files[rel]
            add(z, "course/" + rel, data, mode)
        count = len(files) + 3 + (budget is not None)
        if extra:
            for name in sorted(os.listdir(extra)):
                if name.endswith(".c") or name == "points":
                    with open(os.path.join(extra, name), "rb") as f:
                        add(z, "hidden/" + name, f.read(), 0o644)
                    count += 1
    return count


def unpack(zip_path, dest):
    """Unpack as Gradescope does (unzip keeps the executable bits)."""
    with zipfile.ZipFile(zip_path) as z:
        for info in z.infolist():
            path = z.extract(info, dest)
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                os.chmod(path, mode)


def main():
    ap = argparse.ArgumentParser(description="make the Gradescope autograder zip for a lab")
    ap.add_argument("lab")
    ap.add_argument("--extra", default=os.environ.get("GRADE_EXTRA") or None,
                    help="hidden tests folder (default: $GRADE_EXTRA)")
    ap.add_argument("--budget", type=grade.budget_arg, default=os.environ.get("GRADE_BUDGET") or None,
                    help="seconds one submission's grading may take (default $GRADE_BUDGET, "
                    "else 60 s under run_autograder's limit)")
    ap.add_argument("--out")
    args = ap.parse_args()
    lab = grade.choose_labs([args.lab])[0]
    if args.extra and not os.path.isdir(args.extra):
        raise SystemExit("autograder: no hidden-tests folder %s" % args.extra)
    lab.points()                        # a bad line of a points file stops here, saying which
    if args.extra:
        handout.read_points(os.path.join(args.extra, "points"))
    out = args.out or os.path.join(handout.ROOT, "build", "autograder-%s.zip" % lab.num)
    n = package(lab, out, args.extra, args.budget)
    print("autograder: %s (%d files%s). Upload it on Gradescope: the assignment's "
          "Configure Autograder page, Zip file upload." % (
              out, n, ", hidden tests from " + args.extra if args.extra else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
