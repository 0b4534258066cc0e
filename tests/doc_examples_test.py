#!/usr/bin/env python3
"""Every documented example runs as a test.

Sources:
  * header comments `/// Example: EXPR is RESULT; EXPR == RESULT` (continuation
    lines starting with `///` belong to the same example) under include/;
  * Markdown files (README.md, docs/*.md): a line `$ tessel layout 'EXPR'`
    followed by its output line(s) inside a fenced block.
Each EXPR is evaluated with `tessel layout --batch -` and must print RESULT.
(Examples marked `C++ example:` use C++-only helpers; they are covered by
the unit tests instead.)

usage: doc_examples_test.py TESSEL_BINARY REPO_ROOT
"""
import glob
import os
import re
import subprocess
import sys


def header_examples(root):
    cases = []
    for path in sorted(glob.glob(os.path.join(root, "include", "**", "*.hpp"), recursive=True)):
        lines = open(path, encoding="utf-8").read().split("\n")
        i = 0
        while i < len(lines):
            m = re.search(r"///\s*(?:.*?\s)?Example:\s*(.*)$", lines[i])
            if m and "C++ example:" not in lines[i]:
                text = m.group(1)
                j = i + 1
                # continuation lines: '///' followed by deeper indentation
                while j < len(lines) and re.match(r"\s*///\s{6,}\S", lines[j]):
                    text += " " + lines[j].strip()[3:].strip()
                    j += 1
                for clause in text.split(";"):
                    clause = clause.strip().rstrip(".")
                    mm = re.match(r"(.+?)\s+(?:is|==)\s+(\S+)", clause)
                    if not mm:
                        raise SystemExit("%s:%d: cannot read example clause %r" % (path, i + 1, clause))
                    expr = mm.group(1).replace(" ", "").strip("`")
                    want = mm.group(2).strip("`").rstrip(".")
                    cases.append(("%s:%d" % (os.path.relpath(path, root), i + 1), expr, want))
                i = j
            else:
                i += 1
    return cases


def markdown_examples(root):
    cases = []
    files = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    for path in files:
        if not os.path.exists(path):
            continue
        lines = open(path, encoding="utf-8").read().split("\n")
        for i, line in enumerate(lines):
            m = re.match(r"\s*\$ tessel layout '([^']*)'\s*$", line)
            if m and i + 1 < len(lines):
                cases.append(("%s:%d" % (os.path.relpath(path, root), i + 1), m.group(1), lines[i + 1].strip()))
    return cases


def main():
    tessel, root = sys.argv[1], sys.argv[2]
    cases = header_examples(root) + markdown_examples(root)
    exprs = "\n".join(c[1] for c in cases) + "\n"
    out = subprocess.run([tessel, "layout", "--batch", "-"], input=exprs, capture_output=True, text=True,
                         timeout=60, check=True).stdout.rstrip("\n").split("\n")
    if len(out) != len(cases):
        raise SystemExit("expected %d result lines, got %d" % (len(cases), len(out)))
    passed = failed = 0
    for (where, expr, want), line in zip(cases, out):
        got = line.split("\t", 1)[1]
        if got == want:
            passed += 1
        else:
            failed += 1
            print("FAIL %s: %s\n  documented %s\n  got        %s" % (where, expr, want, got))
    print("doc examples: %d passed, %d failed" % (passed, failed))
    if passed < 25:
        raise SystemExit("too few documented examples were found (%d): is the extraction broken?" % passed)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
