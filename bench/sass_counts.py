#!/usr/bin/env python3
"""Per-kernel SASS instruction counts of an object or binary (NOP padding not
counted), and how many of them touch local memory (LDL/STL).  Used to show
that a refactor adds nothing to a kernel's instructions.

usage: CUOBJDUMP=path/to/cuobjdump python3 bench/sass_counts.py OBJ... > counts.tsv
prints: count <TAB> local-memory instructions <TAB> mangled kernel name
"""
import os
import re
import subprocess
import sys
out = "".join(subprocess.run([os.environ.get("CUOBJDUMP", "cuobjdump"), "-sass", f], capture_output=True, text=True).stdout for f in sys.argv[1:])
counts = {}; cur = None
for line in out.splitlines():
    m = re.match(r"\s+Function : (\S+)", line)
    if m: cur = m.group(1); counts[cur] = [0, 0]; continue
    m = re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+([^;]*);", line)
    if m and cur:
        ins = m.group(1)
        if re.search(r"\bNOP\b", ins): continue
        counts[cur][0] += 1
        if re.search(r"\b(LDL|STL)\b", ins): counts[cur][1] += 1
for k, (n, l) in sorted(counts.items()):
    print(f"{n}\t{l}\t{k}")
