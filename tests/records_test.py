#!/usr/bin/env python3
"""The product does not carry the measurement record.

Raw probe output is not committed: a finding goes into the docs as a
sentence and a number, and bench/results/ keeps only the CSVs that a
published figure rests on.  The old record stays in git's history
(docs/history.md names the commit).  This test fails, naming file:line or
the file, when

* code, tests, scripts or docs (outside docs/history/ and docs/history.md)
  point into bench/results/ or bench/lab/, or label something with a work
  round ("session 31", "round 4", the folder names s19..s49, "probe e");
* bench/results/ holds more than 40 files, or a file its README.md does not
  list in its table (a row whose first cell is the file's path in
  backquotes), or the table lists a file that is not there;
* bench/lab/ holds more than 20 files, or one of them unpacks build
  archives carried from elsewhere (.carry/), which nobody can rerun.

usage: records_test.py REPO_ROOT [--part code|docs|tree|all]
  code: include/ src/ tools/ python/ tests/ scripts/
  docs: docs/ outside docs/history/ and docs/history.md
  tree: the bench/results/ and bench/lab/ limits
Standard library only.  The last line is `N passed, M failed`.
"""
import os
import re
import subprocess
import sys

from text_scan import scan

CODE_ROOTS = ["include", "src", "tools", "python", "tests", "scripts"]
DOC_ROOTS = ["docs"]
HISTORY = ("docs/history/", "docs/history.md")
SELF = "tests/records_test.py"  # spells the patterns, so it is not scanned

MAX_RESULTS = 40
MAX_LAB = 20

# Each entry: a regular expression and the reason shown with a match.
PATTERNS = [
    (r"bench/results", "a path into bench/results/ (say the number, or list the CSV in bench/results/README.md)"),
    (r"bench/lab", "a path into bench/lab/ (name the tool in a sentence, or move it next to the code)"),
    (r"\b[Ss]essions? \d+", "a work session's number (say why, or give the measured number)"),
    (r"\b[Rr]ounds? \d+", "a work round's number"),
    # The old result folders s19..s49, with or without a probe letter; a
    # PTX type such as .s32 is preceded by a dot and not matched.
    (r"(?<![.\w/])s(19|[2-4]\d)[a-z]?\b", "a result folder's name used as a label"),
    (r"probe_s\d", "a probe script's name"),
    (r"\bprobes? [a-z](?=[,.;)]| and\b)", "a probe's letter"),
]
COMPILED = [(re.compile(p), why) for p, why in PATTERNS]

SKIP_DIRS = {".git", "build", "__pycache__", "node_modules", ".pytest_cache"}
BINARY_EXT = {".png", ".jpg", ".jpeg", ".gif", ".pdf", ".ico", ".o", ".a", ".so", ".bin", ".gz", ".xz", ".zip", ".svg"}


def walk(root, tops):
    for top in tops:
        path = os.path.join(root, top)
        if os.path.isfile(path):
            yield top
            continue
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.endswith(".egg-info"))
            for name in sorted(filenames):
                rel = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
                if rel == SELF or rel.startswith(HISTORY) or rel in HISTORY:
                    continue
                if os.path.splitext(name)[1].lower() in BINARY_EXT:
                    continue
                yield rel


def tracked(root, folder):
    """The files under folder (relative to it): git's list where there is a
    checkout, else what is on disk (a source archive)."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--", folder], capture_output=True, check=True)
        names = [n for n in out.stdout.decode().split("\0") if n]
        if names or os.path.isdir(os.path.join(root, ".git")):
            return sorted(os.path.relpath(n, folder).replace(os.sep, "/") for n in names)
    except (OSError, subprocess.CalledProcessError):
        pass
    base = os.path.join(root, folder)
    found = []
    for dirpath, _, filenames in os.walk(base):
        for name in filenames:
            found.append(os.path.relpath(os.path.join(dirpath, name), base).replace(os.sep, "/"))
    return sorted(found)


def readme_listing(path):
    """The paths in the first cell of the README's table rows."""
    listed = []
    row = re.compile(r"^\|\s*`([^`]+)`")
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = row.match(line)
            if m:
                listed.append(m.group(1).strip())
    return listed


def check_tree(root):
    """(passed, failed, messages) for the limits on bench/results and bench/lab."""
    passed = failed = 0
    msgs = []

    def result(ok, text):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            msgs.append(text)

    results = tracked(root, "bench/results")
    result(len(results) <= MAX_RESULTS,
           "bench/results: %d files, at most %d (keep the CSVs behind published figures)" % (len(results), MAX_RESULTS))
    readme = os.path.join(root, "bench/results/README.md")
    if os.path.isfile(readme):
        listed = set(readme_listing(readme))
        for name in results:
            if name == "README.md":
                continue
            result(name in listed, "bench/results/%s: not listed in bench/results/README.md's table" % name)
        present = set(results)
        for name in sorted(listed):
            result(name in present, "bench/results/README.md lists `%s`, which is not in bench/results/" % name)
    else:
        result(not results, "bench/results/README.md is missing")

    lab = tracked(root, "bench/lab")
    result(len(lab) <= MAX_LAB, "bench/lab: %d files, at most %d (reusable tools only)" % (len(lab), MAX_LAB))
    for name in lab:
        hits = []
        rel = "bench/lab/" + name
        if os.path.splitext(name)[1].lower() not in BINARY_EXT:
            try:
                with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                    hits = [n for n, line in enumerate(f, 1) if ".carry/" in line]
            except OSError:
                pass
        result(not hits, "%s:%s: unpacks a build archive that is not in the tree" % (rel, hits[0] if hits else 0))
    return passed, failed, msgs


def check_files(root, tops):
    passed = failed = 0
    msgs = []
    for rel in walk(root, tops):
        hits = scan(root, rel, COMPILED)
        if hits:
            failed += 1
            for n, why, text in hits:
                msgs.append("%s:%d: %s\n    %s" % (rel, n, why, text))
        else:
            passed += 1
    return passed, failed, msgs


def main():
    args = sys.argv[1:]
    part = "all"
    if "--part" in args:
        i = args.index("--part")
        if i + 1 >= len(args):
            sys.exit(__doc__)
        part = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1 or part not in ("code", "docs", "tree", "all"):
        sys.exit(__doc__)
    root = os.path.abspath(args[0])
    if not os.path.isdir(os.path.join(root, "include")):
        sys.exit("records_test: %s does not look like the repository root" % root)
    passed = failed = 0
    msgs = []
    if part in ("code", "all"):
        p, f, m = check_files(root, CODE_ROOTS)
        if p + f == 0:
            sys.exit("records_test: no code files scanned: is the root right?")
        passed, failed, msgs = passed + p, failed + f, msgs + m
    if part in ("docs", "all"):
        p, f, m = check_files(root, DOC_ROOTS)
        passed, failed, msgs = passed + p, failed + f, msgs + m
    if part in ("tree", "all"):
        p, f, m = check_tree(root)
        passed, failed, msgs = passed + p, failed + f, msgs + m
    for line in msgs:
        print(line)
    if failed:
        print("The record of past runs is in git's history (docs/history.md); a comment or doc says why, "
              "with the number, and bench/results/README.md lists each kept CSV.")
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
