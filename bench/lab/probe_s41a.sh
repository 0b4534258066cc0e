#!/usr/bin/env bash
# Session 41, probe a: k13's producer asks L2 for k-tile kt + D as it loads
# kt (cp.async.bulk.prefetch.tensor, TESSEL_LAB_L2_AHEAD=D, a lab switch of
# this build), on the memory-bound small-M rows.  Why: at 128 x 8192 x 8192
# (k13 64 x 128, 2.82 TB/s, a tie with cuBLASLt) session 37's stage sweep
# was still rising from 6 to 8 stages (0.99 -> 0.995), and shared memory
# holds no more; a prefetch adds requests in flight without shared memory.
# Predicted: +0.5-1.5 % at 128 x 8192 x 8192 if the DRAM queue is short of
# requests, nothing if 2.8 TB/s is this access pattern's ceiling.  Each
# problem alone (2 s blocks, the heat), D = 0 / 8 / 16 / 32, two rounds in
# opposite orders; then gemm_test's k13 suites with D = 8 (exactness with
# the prefetch on every k13 launch, split K's ranges included).
source bench/lab/probe_lib.sh
gpu_line
carried new
one() {  # one ROUND D M N K
  local f="$R/d${2}_r${1}_${3}x${4}x${5}.csv"
  TESSEL_LAB_L2_AHEAD=$2 timeout 100 /tmp/new/tessel bench gemm --m $3 --n $4 --k $5 --impl auto,cublas --order blocks \
    --min-ms 1000 --repeat 2 --csv "$f" > "${f%.csv}.log" 2>&1
  echo "D=$2 r$1 rc=$? $(alone_line "$f") ours_ms $(python3 -c "import csv,statistics as s,sys;print('%.4f'%s.median(float(r['median_ms']) for r in csv.DictReader(open(sys.argv[1])) if r['impl']!='cublas'))" "$f")"
}
for shp in "128 8192 8192" "64 8192 8192" "256 4096 4096" "128 4096 8192"; do
  for d in 0 8 16 32; do one 1 $d $shp; done
  for d in 32 16 8 0; do one 2 $d $shp; done
  pack
done
elapsed alone
[ -x /tmp/new/tests/cuda/gemm_test ] && TESSEL_LAB_L2_AHEAD=8 timeout 200 /tmp/new/tests/cuda/gemm_test --gtest_brief=1 \
  --gtest_filter='K13Tuning/*:K13Swap/*:Plan/*:GemmWarpgroupEpilogue.*:GemmPingpong.*:GemmSplitK.*:GemmSwapRows64.*:Grouped/*' > "$R/gemm_test_d8.log" 2>&1
echo "gemm_test D=8 rc=$? $(tail -3 "$R/gemm_test_d8.log" | tr '\n' ' ')"
elapsed done; pack
