#!/usr/bin/env python3
"""SASS checks of compiled kernels (no GPU needed).

usage: sass_check.py CUOBJDUMP FILE[;FILE...] [--kernel REGEX --expect OP[,OP...] [--forbid OP[,OP...]]]...

Disassembles FILE (an object file or executable; a ';'-separated list, as
$<TARGET_OBJECTS:...> gives for a library of several objects, is read whole) with `cuobjdump -sass` and,
for every kernel whose mangled name matches REGEX, checks that each expected
opcode prefix occurs and no forbidden one does.  Every check must match at
least one kernel.  `--forbid LDL,STL` is the "no local memory" check.
Prints one line per check and `N passed, M failed` at the end.  Without
any --kernel it only disassembles (filling the caches described below) and
fails where no file held a kernel.
"""
import concurrent.futures
import json
import os
import re
import subprocess
import sys


# The opcode parser's version, part of the cache's stamp: a cache written by
# an older parser is read again.  2: opcodes keep their lowercase parts
# (HGMMA.64x128x16.F32, not HGMMA.64), so a check can name a wgmma's shape.
PARSER_VERSION = 2


def disassemble_cached(cuobjdump, path):
    """disassemble(), kept beside the file as FILE.sass.json while the file's
    size and mtime (and the parser) are unchanged: several checks read the same library
    objects, and cuobjdump of them all takes minutes on a 2-core machine."""
    st = os.stat(path)
    stamp = [st.st_size, st.st_mtime_ns, PARSER_VERSION]
    cache = path + ".sass.json"
    try:
        with open(cache) as f:
            data = json.load(f)
        if data.get("stamp") == stamp:
            return data["kernels"]
    except (OSError, ValueError, KeyError):
        pass
    kernels = disassemble(cuobjdump, path)
    try:
        tmp = "%s.%d.tmp" % (cache, os.getpid())
        with open(tmp, "w") as f:
            json.dump({"stamp": stamp, "kernels": kernels}, f)
        os.replace(tmp, cache)  # atomic: checks running in parallel see all or nothing
    except OSError:
        pass  # a read-only tree: no cache, same result
    return kernels


def run_cuobjdump(cuobjdump, option, path):
    """cuobjdump OPTION PATH's output; None for an object without device code."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(cuobjdump) + os.pathsep + env.get("PATH", "")
    out = subprocess.run([cuobjdump, option, path], capture_output=True, text=True, env=env, timeout=300)
    if out.returncode != 0:
        # A host-only object of a library (ladder_absent.cpp in a build without
        # the teaching steps) holds no kernel to check: not an error.
        if "does not contain device code" in out.stderr:
            return None
        raise SystemExit("cuobjdump " + option + " failed: " + out.stderr.strip())
    return out.stdout


def disassemble(cuobjdump, path):
    text = run_cuobjdump(cuobjdump, "-sass", path)
    if text is None:
        return {}
    kernels, name = {}, None
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            name = m.group(1)
            kernels[name] = []
            continue
        m = re.match(r"\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Za-z0-9_.]*)", line)
        if m and name:
            kernels[name].append(m.group(1))
    return kernels


def main(argv):
    cuobjdump, path = argv[1], argv[2]
    checks, i = [], 3
    while i < len(argv):
        if argv[i] != "--kernel":
            raise SystemExit("expected --kernel at " + argv[i])
        check = {"kernel": argv[i + 1], "expect": [], "forbid": []}
        i += 2
        while i < len(argv) and argv[i] in ("--expect", "--forbid"):
            check[argv[i][2:]] = [x for x in argv[i + 1].split(",") if x]
            i += 2
        checks.append(check)
    kernels = {}
    files = [p for p in path.split(";") if p]
    # cuobjdump runs as separate processes: disassemble the files side by side.
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(len(files), os.cpu_count() or 1))) as pool:
        for result in pool.map(lambda one: disassemble_cached(cuobjdump, one), files):
            kernels.update(result)
    if not checks:
        # Disassembly only (the fixture that fills the caches of checks to come):
        # it holds when every file disassembled and held at least one kernel.
        print("disassembled %d kernels from %d files" % (len(kernels), len(files)))
        return 0 if kernels else 1
    passed = failed = 0
    for c in checks:
        matched = [k for k in kernels if re.search(c["kernel"], k)]
        if not matched:
            print("FAIL %s: no kernel matches (kernels: %s)" % (c["kernel"], ", ".join(sorted(kernels))))
            failed += 1
            continue
        for k in matched:
            ops = kernels[k]
            missing = [e for e in c["expect"] if not any(o.startswith(e) for o in ops)]
            present = sorted({o for o in ops for f in c["forbid"] if o.startswith(f)})
            ok = not missing and not present
            print("%s %s: %d instructions%s%s" % ("ok  " if ok else "FAIL", k, len(ops),
                                                  "; missing " + ",".join(missing) if missing else "",
                                                  "; forbidden " + ",".join(present) if present else ""))
            passed += ok
            failed += not ok
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
