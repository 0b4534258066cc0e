#!/usr/bin/env bash
# Session-20 device run 3: issue 13 (fused epilogues; batched and grouped where
# merged) and issue 14 (tessel.gemm from Python): GPU tests, then the
# acceptance benchmarks.  Predictions (docs/epilogues.md): fused bias + GELU
# within 3 % of the plain GEMM at 4096^3 and 8192 x 28672 x 8192 (the
# epilogue is O(MN) against O(MNK)), ahead of the unfused pair (a second pass
# over D: +2-4 %) and of cuBLASLt's GELU_BIAS.  Results are packed into one
# archive (only 8 files come back from the device).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
B=/tmp/bn
t0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc -DTESSEL_BUILD_PYTHON=ON > "$R/cmake.log" 2>&1 || { tail -30 "$R/cmake.log"; exit 1; }
cmake --build $B -j16 --target tessel_cli gemm_test gemm_api_test _tessel > "$R/build.log" 2>&1 || { grep -m20 -B2 -A12 "error" "$R/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 60 $B/tests/cuda/gemm_api_test > "$R/gemm_api_test.log" 2>&1; echo "gemm_api_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/gemm_api_test.log" | tr '\n' ' ')"
timeout 240 $B/tests/cuda/gemm_test --gtest_filter="${GEMM_FILTER:-*GemmEpi*:*Batched*:*Grouped*:Plan/*}" > "$R/gemm_test.log" 2>&1
echo "gemm_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$R/gemm_test.log" | tr '\n' ' ')"; grep -E "^\[  FAILED" "$R/gemm_test.log" | head -20
echo "elapsed $(( $(date +%s) - t0 )) s"
mkdir -p /tmp/pkg/tessel && cp python/tessel/*.py /tmp/pkg/tessel/ && cp $B/python/_tessel*.so /tmp/pkg/tessel/
PYTHONPATH=/tmp/pkg timeout 200 python3 -m pytest -q -p no:cacheprovider python/tests/test_gemm.py > "$R/pytest_gemm.log" 2>&1
echo "pytest test_gemm rc=$? $(tail -1 "$R/pytest_gemm.log")"; grep -E "^FAILED|Error" "$R/pytest_gemm.log" | head -10
PYTHONPATH=/tmp/pkg timeout 60 python3 -m tessel.bench --overhead --calls 1000 2>&1 | tee "$R/py_overhead.log"
echo "elapsed $(( $(date +%s) - t0 )) s"
for shape in "4096 4096 4096" "8192 28672 8192"; do
  set -- $shape
  timeout 150 $B/tessel bench gemm --m $1 --n $2 --k $3 --epilogue bias_gelu --impl auto,cublas --repeat 3 --csv "$R/epi_${1}_${2}_${3}.csv" > "$R/epi_${1}_${2}_${3}.log" 2>&1
  python3 - "$R/epi_${1}_${2}_${3}.csv" <<'PY'
import csv,sys,statistics as st,collections
g=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])): g[r['impl']].append(r)
for k,v in g.items():
    ms=[float(r['median_ms']) for r in v if r['median_ms']]
    rt=[float(r['ratio']) for r in v if r['ratio']]
    print(v[0]['m'],v[0]['n'],v[0]['k'],'%-14s'%k,v[0]['disposition'],'ms %.4f'%st.median(ms) if ms else '-', 'ratio %.3f'%st.median(rt) if rt else '-', v[0]['note'][:70])
PY
done
echo "elapsed $(( $(date +%s) - t0 )) s"
if [ -n "${GROUPED:-}" ]; then eval "$GROUPED"; fi
echo "elapsed $(( $(date +%s) - t0 )) s"
tar czf "$OUT/results.tgz" -C "$OUT" r
