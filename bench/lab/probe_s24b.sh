#!/usr/bin/env bash
# Session-24 device run 2: split K without a memset per call (the stream's
# counters kept zero by the kernel, split_counters in workspace.hpp) against
# the build before it (381b5d3's two launcher files over this tree), same session, alternating, 3 rounds of 3 repeats; then
# gemm_test's split-K cases on the new build.
# Predicted: -1.5..2.5 us a split call (the memset and its launch gap):
# 16 x 8192 x 8192 (2 splits) 0.93 -> 0.96-0.97; 32 x 4096 x 4096 (4 splits)
# +5-10 %; 64 x 8192 x 8192 (1 split, the control) unchanged.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
old=/tmp/src0; rm -rf $old; mkdir -p $old; tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C $old
cp bench/lab/s24b_old/k13_tiles.hpp bench/lab/s24b_old/workspace.hpp $old/src/kernels/gemm/  # 381b5d3's (uncommitted copies)
grep -c split_counters $old/src/kernels/gemm/workspace.hpp
( cmake -S $old -B /tmp/bo -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake_old.log" 2>&1 &&
  cmake --build /tmp/bo -j6 --target tessel_cli > "$R/build_old.log" 2>&1; echo "old build rc=$?" ) &
( cmake -S . -B /tmp/bn -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake_new.log" 2>&1 &&
  cmake --build /tmp/bn -j10 --target tessel_cli > "$R/build_new.log" 2>&1; echo "new build rc=$?" ) &
wait
echo "builds $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for shape in "16 8192 8192" "32 8192 8192" "32 4096 4096" "256 4096 4096" "64 8192 8192"; do
  set -- $shape
  line="$1x$2x$3:"
  for round in 1 2 3; do
    for b in bo bn; do
      timeout 60 /tmp/$b/tessel bench gemm --m $1 --n $2 --k $3 --impl auto,cublas --repeat 3 --csv "$R/m$1_n$2_k$3_${b}_r$round.csv" > /dev/null 2>&1
      line="$line $b $(python3 - "$R/m$1_n$2_k$3_${b}_r$round.csv" <<'PY'
import csv,sys,statistics as st
rows=[r for r in csv.DictReader(open(sys.argv[1]))]
a=[r for r in rows if r['impl']=='auto']
print('%.3f/%.1fus' % (st.median(float(r['ratio']) for r in a), 1000*st.median(float(r['median_ms']) for r in a)), end='')
PY
)"
    done
  done
  echo "$line  [$(head -2 "$R/m$1_n$2_k$3_bn_r1.csv" | tail -1 | cut -d, -f17 | cut -c1-60)]"
done
echo "bench $(( $(date +%s) - t0 )) s"
pack
cmake --build /tmp/bn -j16 --target gemm_test >> "$R/build_new.log" 2>&1; echo "gemm_test build rc=$? $(( $(date +%s) - t0 )) s"
timeout 150 /tmp/bn/tests/cuda/gemm_test --gtest_filter='GemmSplitK.*:K13Swap/*Bf16FullSweep*:K13Tuning/*Bf16FullSweep*:Plan/*' > "$R/gpu_tests_splitk.log" 2>&1; echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED" "$R/gpu_tests_splitk.log" | head; tail -3 "$R/gpu_tests_splitk.log"
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
