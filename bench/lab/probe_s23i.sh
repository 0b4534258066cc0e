#!/usr/bin/env bash
# Session-23 device run 9: the suite with auto after rules 11 and 12 (1000^3
# now runs k15), 3 repeats, interleaved, and the GPU tests of the plan's
# paths (auto sweeps, the batched suite).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli gemm_test > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; pack; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 150 $B/tests/cuda/gemm_test --gtest_filter='*auto*:Batched/*:GemmPingpong.*' > "$R/gpu_tests_auto_h100.log" 2>&1
echo "gemm_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/gpu_tests_auto_h100.log" | tr '\n' ' ') $(( $(date +%s) - t0 )) s"
grep -E "^\[  FAILED" "$R/gpu_tests_auto_h100.log" | head
timeout 330 $B/tessel bench gemm --suite tests/data/bench_suite.csv --impl auto,cublas --repeat 3 \
  --csv "$R/suite_auto_s23_h100.csv" --json "$R/suite_auto_s23_h100.json" > "$R/suite_auto_s23_h100.log" 2>&1
echo "suite rc=$? $(( $(date +%s) - t0 )) s"
python3 - "$R/suite_auto_s23_h100.csv" <<'PY'
import csv,sys,statistics as st,collections,math
g=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r['impl']=='auto': g[(r['group'],r['m'],r['n'],r['k'])].append(r)
rs=[]
for key,v in g.items():
    x=st.median(float(r['ratio']) for r in v if r['ratio']); rs.append(x)
    print('%-8s %6s %6s %6s %.3f %s' % (*key, x, v[0]['note']))
print('geomean %.3f min %.3f' % (math.exp(sum(math.log(x) for x in rs)/len(rs)), min(rs)))
PY
pack
