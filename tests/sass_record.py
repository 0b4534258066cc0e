#!/usr/bin/env python3
"""The SASS record of the GEMM kernels (no GPU needed).

usage: sass_record.py BUILD_DIR [--objects FILE[;FILE...]] [--cuobjdump PATH] [--nvcc PATH]
                      [--record TSV] [--write]

For every kernel of the GEMM objects of the library (tessel_kernels' objects
of src/kernels/gemm/; the teaching steps are in src/kernels/ladder/),
measures its registers, stack and local bytes, static shared memory, local
memory instructions (LDL, STL), non-NOP instructions and instructions by class
(HGMMA, UTMALDG, LDS, BAR, ...), and compares them with the committed record
(tests/data/sass_record.tsv by default).  A kernel fails when its registers,
stack, local bytes, static shared memory or local-memory instructions change,
when its instruction count moves by more than 1 %, or when it appears or
disappears; the classes are reported, not compared.  The last line is
`N passed, M failed`.

The objects are --objects (a ';'-separated list, as $<TARGET_OBJECTS:...>
gives) or, without it, those of tessel_kernels that BUILD_DIR's build.ninja
names (another generator: those whose source is still there).  nvcc, the instance sets, the -gencode flags and the build type are read
from BUILD_DIR's CMake cache: SASS depends on all of them, so where one differs
from the record's the test exits 77 (CTest: Skipped) with a message.  --write
rewrites the record from the build instead (printing what changed); a commit
that changes the kernels' code generation carries the new record and says why.
"""
import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sass_check import disassemble_cached, run_cuobjdump  # noqa: E402  (the opcodes the fixture cached)

DEFAULT_RECORD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "sass_record.tsv")
SKIP = 77  # CTest's SKIP_RETURN_CODE for this test


EXACT = ["reg", "stack", "local", "shared", "ldl_stl"]
TOLERANCE = 0.01  # of the recorded instruction count
CLASSES = ["HGMMA", "HMMA", "UTMALDG", "UTMASTG", "LDS", "STS", "LDSM", "STSM", "LDG", "STG", "BAR", "SYNCS"]
COLUMNS = EXACT + ["total"] + CLASSES + ["kernel"]


def stable_name(name):
    """The mangled name without the hash that nvcc gives an anonymous
    namespace: it depends on the source file's absolute path, so a clone
    elsewhere (CI's) would see other names for the same kernels."""
    out, i = [], 0
    # <length>_GLOBAL__N__<hash>_<n>_<file, n characters>_<hash>: the length
    # prefix says where the second hash ends (digits may follow it).
    for m in re.finditer(r"(\d+)(_GLOBAL__N__[0-9a-f]+_(\d+)_)", name):
        if m.start() < i:
            continue
        stable = "_GLOBAL__N__" + name[m.end():m.end() + int(m.group(3))]
        out.append(name[i:m.start()] + str(len(stable)) + stable)
        i = m.start(2) + int(m.group(1))
    return "".join(out) + name[i:]


def parse_resource_usage(text):
    """`cuobjdump -res-usage` per kernel: REG, STACK, SHARED (static), LOCAL."""
    usage, name = {}, None
    for line in text.splitlines():
        m = re.match(r"\s*Function (\S+):\s*$", line)
        if m:
            name = m.group(1)
            continue
        if name and "REG:" in line:
            fields = dict(re.findall(r"(\w+):(\d+)", line))
            usage[name] = {"reg": int(fields["REG"]), "stack": int(fields["STACK"]),
                           "shared": int(fields["SHARED"]), "local": int(fields["LOCAL"])}
            name = None
    return usage


def resource_usage(cuobjdump, path):
    text = run_cuobjdump(cuobjdump, "-res-usage", path)
    return {} if text is None else parse_resource_usage(text)


def count_opcodes(opcodes):
    """The record's instruction columns from a kernel's opcodes (HGMMA.64x128x16.F32
    counts as HGMMA; LDSM is its own class, not LDS)."""
    row = {"ldl_stl": 0, "total": 0}
    row.update(dict.fromkeys(CLASSES, 0))
    for op in opcodes:
        base = op.split(".")[0]
        if base == "NOP":
            continue
        row["total"] += 1
        if base in ("LDL", "STL"):
            row["ldl_stl"] += 1
        if base in CLASSES:
            row[base] += 1
    return row


def gemm_objects(paths):
    # The kernels `auto` picks and those it falls back to (k08); the teaching
    # steps (src/kernels/ladder/) are not guarded.
    return sorted(p for p in paths if "/src/kernels/gemm/" in p.replace(os.sep, "/"))


def measure(cuobjdump, objects):
    """One row per kernel (stable name).  A kernel built in two objects is the
    same instantiation compiled twice: the first object's row is kept."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(len(objects), os.cpu_count() or 1))) as pool:
        results = list(pool.map(lambda p: (disassemble_cached(cuobjdump, p), resource_usage(cuobjdump, p)), objects))
    rows = {}
    for path, (sass, usage) in zip(objects, results):
        for name, opcodes in sass.items():
            key = stable_name(name)
            if key in rows:
                continue
            if name not in usage:
                raise SystemExit("cuobjdump -res-usage of %s does not list %s" % (path, name))
            row = dict(usage[name])
            row.update(count_opcodes(opcodes))
            rows[key] = row
    return rows


def format_record(nvcc, build, rows):
    lines = ["# The GEMM kernels' SASS: written by tests/sass_record.py --write, compared by the test sass.record",
             "nvcc\t" + nvcc, "build\t" + build, "\t".join(COLUMNS)]
    for name in sorted(rows):
        lines.append("\t".join([str(rows[name][c]) for c in COLUMNS[:-1]] + [name]))
    return "\n".join(lines) + "\n"


def parse_record(text):
    meta, rows, header = {}, {}, None
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t")
        if header is None and fields[0] in ("nvcc", "build"):
            meta[fields[0]] = fields[1]
        elif header is None:
            header = fields
        else:
            row = dict(zip(header, fields))
            name = row.pop("kernel")
            rows[name] = {k: int(v) for k, v in row.items()}
    return meta, rows


def compare(recorded, measured):
    """Lines, one per kernel, and the number that failed."""
    lines, failed = [], 0
    for name in sorted(set(recorded) | set(measured)):
        old, new = recorded.get(name), measured.get(name)
        if old is None:
            lines.append("FAIL %s: not in the record (a new kernel: %d registers, %d instructions)"
                         % (name, new["reg"], new["total"]))
            failed += 1
            continue
        if new is None:
            lines.append("FAIL %s: in the record, not built" % name)
            failed += 1
            continue
        bad = ["%s %d -> %d" % (c, old[c], new[c]) for c in EXACT if old.get(c) != new[c]]
        moved = new["total"] - old["total"]
        change = "total %d -> %d (%+.2f %%)" % (old["total"], new["total"], 100.0 * moved / max(1, old["total"]))
        if abs(moved) > TOLERANCE * old["total"]:
            bad.append(change)
        notes = [change] if moved and not bad else []
        notes += ["%s %d -> %d" % (c, old[c], new[c]) for c in CLASSES if old.get(c) != new[c]]
        lines.append("%s %s%s%s" % ("FAIL" if bad else "ok  ", name, ": " + "; ".join(bad) if bad else "",
                                    " (" + "; ".join(notes) + ")" if notes else ""))
        failed += bool(bad)
    return lines, failed


def check(record_text, measured, nvcc, build):
    """The test's verdict: (exit code, lines to print)."""
    meta, recorded = parse_record(record_text)
    if meta.get("nvcc") != nvcc or meta.get("build") != build:
        return SKIP, ["SKIP: the record was taken with nvcc '%s', build '%s';" % (meta.get("nvcc"), meta.get("build")),
                      "this build has nvcc '%s', build '%s': SASS differs between them, nothing compared" % (nvcc, build)]
    lines, failed = compare(recorded, measured)
    lines.append("%d passed, %d failed" % (len(lines) - failed, failed))
    return (1 if failed else 0), lines


def read_cmake_cache(build_dir):
    cache = {}
    with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
        for line in f:
            m = re.match(r"([A-Za-z_0-9]+):[A-Z]+=(.*)$", line.rstrip("\n"))
            if m:
                cache[m.group(1)] = m.group(2)
    return cache


def build_config(cache):
    """What besides nvcc sets the kernels' SASS and which kernels are built."""
    ladder = cache.get("TESSEL_LADDER_INSTANCES", "all") if cache.get("TESSEL_BUILD_LADDER") == "ON" else "off"
    return "gemm=%s ladder=%s gencode=%s type=%s" % (cache.get("TESSEL_GEMM_INSTANCES", "all"), ladder,
                                                    cache.get("TESSEL_CUDA_GENCODE", ""),
                                                    cache.get("CMAKE_BUILD_TYPE", ""))


def find_nvcc(build_dir, cache):
    # CMake keeps the compiler's full path here (the cache may hold just "nvcc").
    for path in glob.glob(os.path.join(build_dir, "CMakeFiles", "*", "CMakeCUDACompiler.cmake")):
        with open(path) as f:
            m = re.search(r'set\(CMAKE_CUDA_COMPILER "([^"]+)"\)', f.read())
        if m:
            return m.group(1)
    return shutil.which(cache.get("CMAKE_CUDA_COMPILER", "nvcc"))


def nvcc_release(nvcc):
    try:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return next((line.strip() for line in out.splitlines() if "release" in line), None)


def build_objects(build_dir, cache):
    """tessel_kernels' objects as build.ninja names them, or (another
    generator) those whose source is still there: an object whose source was
    removed stays on disk."""
    ninja = os.path.join(build_dir, "build.ninja")
    if os.path.exists(ninja):
        with open(ninja) as f:
            found = re.findall(r"^build (CMakeFiles/tessel_kernels\.dir/\S+\.o):", f.read(), re.M)
        return [os.path.join(build_dir, p) for p in found]
    top = os.path.join(build_dir, "CMakeFiles", "tessel_kernels.dir")
    source = cache.get("CMAKE_HOME_DIRECTORY", "")
    return [p for p in glob.glob(os.path.join(top, "**", "*.o"), recursive=True)
            if os.path.exists(os.path.join(source, os.path.relpath(p, top)[:-2]))]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build_dir")
    ap.add_argument("--objects", help="';'-separated object files (default: tessel_kernels' in build.ninja)")
    ap.add_argument("--cuobjdump")
    ap.add_argument("--nvcc")
    ap.add_argument("--record", default=DEFAULT_RECORD)
    ap.add_argument("--write", action="store_true", help="rewrite the record from this build")
    args = ap.parse_args(argv[1:])
    build_dir = os.path.abspath(args.build_dir)
    cache = read_cmake_cache(build_dir)
    cuobjdump = (args.cuobjdump or cache.get("TESSEL_CUOBJDUMP") or shutil.which("cuobjdump"))
    if not cuobjdump or cuobjdump.endswith("-NOTFOUND"):
        raise SystemExit("cuobjdump not found: give --cuobjdump (scripts/deps.sh installs it)")
    nvcc_path = args.nvcc or find_nvcc(build_dir, cache)
    nvcc = nvcc_release(nvcc_path) if nvcc_path else None
    if not nvcc:
        print("SKIP: no nvcc version from '%s': the record cannot be compared" % nvcc_path)
        return SKIP
    build = build_config(cache)
    objects = gemm_objects(args.objects.split(";") if args.objects else build_objects(build_dir, cache))
    if not objects:
        raise SystemExit("no GEMM objects of tessel_kernels in " + (args.objects or build_dir))
    measured = measure(cuobjdump, objects)
    rewrite = "python3 %s %s --write" % (os.path.abspath(__file__), build_dir)
    if args.record != DEFAULT_RECORD:
        rewrite += " --record " + args.record
    if args.write:
        if os.path.exists(args.record):
            with open(args.record) as f:
                meta, recorded = parse_record(f.read())
            print("\n".join(compare(recorded, measured)[0]))
            if meta.get("nvcc") != nvcc or meta.get("build") != build:
                print("(the old record: nvcc '%s', build '%s')" % (meta.get("nvcc"), meta.get("build")))
        with open(args.record, "w") as f:
            f.write(format_record(nvcc, build, measured))
        print("wrote %s: %d kernels from %d objects (%s; %s)" % (args.record, len(measured), len(objects), nvcc, build))
        return 0
    if not os.path.exists(args.record):
        print("FAIL: no record at %s; write it with\n  %s" % (args.record, rewrite))
        return 1
    with open(args.record) as f:
        code, lines = check(f.read(), measured, nvcc, build)
    print("\n".join(lines))
    if code == 1:
        print("The kernels' SASS differs from the record. If the change is intended, rebuild tessel_kernels,"
              " rewrite the record with\n  %s\nand commit it with the change, saying in the message why the"
              " code generation changed." % rewrite)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
