#!/usr/bin/env python3
"""The include graph runs one way: core -> tensor -> arch -> atom -> algorithm
-> kernels -> host -> tools (docs/design.md, "Where things are").

A file may include tessel headers of its own layer or of an earlier one,
never of a later one. Also, generic headers never include architecture-specific
ones: tensor/, algorithm/ and the generic atom headers (every atom header whose
name does not name an architecture) include nothing from arch/ and no per-
architecture atom file.

Files outside include/ belong to the layer they implement: src/calc and
src/kernels to host (they are the host library behind host/*.hpp), tools/ and
python/ (the Python bindings) to tools. Tests are not checked: a test may include anything.

usage: layering_test.py REPO_ROOT
Prints each violation as FILE:LINE: LAYER includes LATER-LAYER HEADER, and a
closing line "N passed, M failed" (N files checked).
"""
import os
import re
import sys

ORDER = ["core", "tensor", "arch", "atom", "algorithm", "kernels", "host", "tools"]
RANK = {name: i for i, name in enumerate(ORDER)}
# Top-level headers of include/tessel/ and the layer they belong to.
TOP_LEVEL = {"tessel.hpp": "core", "gemm_types.hpp": "core"}
ARCH_NAME = re.compile(r"sm\d+|ldsm")  # atom files named after an architecture or one of its instructions
INCLUDE = re.compile(r'^\s*#\s*include\s+"(tessel/[^"]+)"')


def layer_of_header(rel):
    """Layer of a header given as 'tessel/...'; None when it is not a tessel header."""
    parts = rel.split("/")
    if len(parts) == 2:
        return TOP_LEVEL.get(parts[1], "core")
    return parts[1] if parts[1] in RANK else None


def layer_of_file(root, path):
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    if rel.startswith("include/"):
        return layer_of_header(rel[len("include/"):])
    if rel.startswith("src/"):
        return "host"
    if rel.startswith(("tools/", "python/")):
        return "tools"
    return None


def is_generic(rel_header):
    """tensor/, algorithm/ and atom headers that name no architecture."""
    parts = rel_header.split("/")
    if len(parts) < 3:
        return False
    if parts[1] in ("tensor", "algorithm"):
        return True
    return parts[1] == "atom" and not ARCH_NAME.search(parts[2])


def is_arch_specific(rel_header):
    parts = rel_header.split("/")
    if len(parts) < 3:
        return False
    return parts[1] == "arch" or (parts[1] == "atom" and bool(ARCH_NAME.search(parts[2])))


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    files = []
    for top in ("include", "src", "tools", "python"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if n.endswith((".hpp", ".cuh", ".h", ".cpp", ".cu", ".inc")):
                    files.append(os.path.join(dirpath, n))
    failed_files, problems = set(), []
    for path in sorted(files):
        layer = layer_of_file(root, path)
        if layer is None:
            continue
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        own = rel[len("include/"):] if rel.startswith("include/") else None
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(1)
                tl = layer_of_header(target)
                if tl is None:
                    continue
                if RANK[tl] > RANK[layer]:
                    problems.append("%s:%d: %s includes %s header %s" % (rel, lineno, layer, tl, target))
                    failed_files.add(rel)
                elif own and is_generic(own) and is_arch_specific(target):
                    problems.append("%s:%d: generic header includes architecture-specific %s" % (rel, lineno, target))
                    failed_files.add(rel)
    for p in problems:
        print(p)
    print("%d passed, %d failed" % (len(files) - len(failed_files), len(failed_files)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
