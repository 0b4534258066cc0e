#!/usr/bin/env python3
"""The repository stands on its own: no file points at documents outside it.

tessel was started from background documents kept next to the repository
(a layout-algebra specification, a hardware reference, a benchmark protocol,
golden files).  A clone does not have them, so a comment that says
"spec §6.2" or "../shared/bench/PROTOCOL.md" points nowhere.  Their content
now lives in docs/algebra.md, docs/hardware.md, docs/bench-protocol.md and
tests/data/; this test fails, naming file:line, when a reference to the
outside documents comes back.

Scanned: include/ src/ tools/ tests/ bench/ scripts/ docs/ README.md
CMakeLists.txt (text files only).  Skipped: this file, which has to spell
the patterns, and the CSVs of bench's results folder, which are verbatim
records of runs (its README.md is documentation and is scanned).

usage: repo_refs_test.py REPO_ROOT
Standard library only.  The last line is `N passed, M failed` (one check
per scanned file).
"""
import os
import re
import sys

from text_scan import scan

ROOTS = ["include", "src", "tools", "tests", "bench", "scripts", "docs", "README.md", "CMakeLists.txt"]

# What a reference to the outside documents looks like.  Each entry: a
# regular expression and the reason shown with a match.
PATTERNS = [
    (r"\.\./shared", "a path outside the repository"),
    (r"shared/spec", "the old specification directory"),
    (r"shared/bench", "the old benchmark directory (see docs/bench-protocol.md, tests/data/bench_suite.csv)"),
    (r"shared/golden", "the old golden directory (see tests/data/)"),
    (r"shared/seeds", "the seed articles (named in docs/ladder.md and docs/copy.md)"),
    (r"spec/layout-algebra", "the old algebra specification (see docs/algebra.md)"),
    (r"spec/hardware-atoms", "the old hardware reference (see docs/hardware.md)"),
    (r"hardware-atoms(\.md)?\s*§", "a section of the old hardware reference (see docs/hardware.md)"),
    (r"hardware-atoms\.md", "the old hardware reference (see docs/hardware.md)"),
    (r"layout-algebra\.md", "the old algebra specification (see docs/algebra.md)"),
    (r"PROTOCOL\.md", "the old benchmark protocol (see docs/bench-protocol.md)"),
    (r"\b[Ss]pec\s*§", "a section of the old specification (see docs/algebra.md or docs/hardware.md)"),
]
COMPILED = [(re.compile(p), why) for p, why in PATTERNS]

SELF = "tests/repo_refs_test.py"  # spells the patterns, so it is not scanned
SKIP_DIRS = {".git", "build", "__pycache__", "node_modules"}
BINARY_EXT = {".png", ".jpg", ".jpeg", ".gif", ".pdf", ".ico", ".o", ".a", ".so", ".bin", ".gz", ".zip"}


def historical(rel):
    """The data files of bench's results folder record runs verbatim."""
    parts = rel.split("/")
    return len(parts) >= 3 and parts[0] == "bench" and parts[1] == "results" and not rel.endswith(".md")


def files(root):
    me = os.path.abspath(__file__)
    for top in ROOTS:
        path = os.path.join(root, top)
        if os.path.isfile(path):
            yield top
            continue
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for name in sorted(filenames):
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, root).replace(os.sep, "/")
                if rel == SELF or os.path.abspath(full) == me or historical(rel):
                    continue
                if os.path.splitext(name)[1].lower() in BINARY_EXT:
                    continue
                yield rel


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = os.path.abspath(sys.argv[1])
    if not os.path.isdir(os.path.join(root, "include")):
        sys.exit("repo_refs_test: %s does not look like the repository root" % root)
    passed = failed = 0
    for rel in files(root):
        hits = scan(root, rel, COMPILED)
        if hits:
            failed += 1
            for n, why, text in hits:
                print("%s:%d: %s\n    %s" % (rel, n, why, text))
        else:
            passed += 1
    if passed == 0:
        sys.exit("repo_refs_test: no files scanned: is the root right?")
    if failed:
        print("Point at the repository's own documents instead: docs/algebra.md, docs/hardware.md,")
        print("docs/bench-protocol.md, tests/data/ (see tests/data/README.md).")
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
