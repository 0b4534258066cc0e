#!/usr/bin/env bash
# Session 34, probe o: the code to commit (v5): BatchRaster (divisions by
# host-made multipliers) and rule 11c (3 stages where a unit is <= 2 k-tiles,
# a batch has a tile per SM and a wave spans >= 4 tile rows; else 4), both
# depths instantiated.  Checks: gemm_test Batched/* (tier 1, 4 stages: the
# test world's batches have < 132 tiles); cli_test's new
# test_gpu_batched_stages_exact (tier 1 at both depths, through auto and k15
# forced, every layout); compute-sanitizer on the batched kernel (4-stage
# shapes) and memcheck/synccheck at a 3-stage shape.  Then the two strided
# batches of issue 13 and K = 256, against cuBLASLt, v3 (d60a24c) alongside.
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for n in v3 v5; do mkdir -p /tmp/$n && tar xJf .carry/$n.txz -C /tmp/$n; done
timeout 200 /tmp/v5/tests/cuda/gemm_test --gtest_filter='Batched/*' > "$R/gpu_tests_batched.log" 2>&1
echo "gemm_test Batched/* rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' "$R/gpu_tests_batched.log" | tr '\n' ' ')"
timeout 300 python3 tests/cli_test.py /tmp/v5/tessel BenchGemm > "$R/cli_test_benchgemm.log" 2>&1
echo "cli_test BenchGemm rc=$?: $(tail -3 "$R/cli_test_benchgemm.log" | tr '\n' ' ')"
elapsed tests; pack
for shp in "2 1536 1536 128" "2 1500 1400 100"; do
  set -- $shp
  for tool in memcheck synccheck; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 --kernel-name kns=pingpong_grouped /tmp/v5/tessel bench gemm \
      --batch $1 --m $2 --n $3 --k $4 --impl k15 --verify tier1 --order none > "$R/sanitizer_${tool}_$2.log" 2>&1
    echo "$tool $shp exit $? $(grep -E 'ERROR SUMMARY' "$R/sanitizer_${tool}_$2.log")"
  done
done
elapsed sanitizer; pack
for shp in "32 512 512 128" "32 2048 2048 128" "8 4096 4096 256" "4 4096 8192 128"; do
  set -- $shp
  for round in 1 2; do
    for b in v3 v5; do
      f="$R/b${1}_${2}x${3}x${4}_${b}_r${round}.csv"
      timeout 100 /tmp/$b/tessel bench gemm --batch $1 --m $2 --n $3 --k $4 --impl auto,cublas --repeat 3 --csv "$f" > /dev/null 2>&1
      echo "$shp $b r$round: $(medians "$f" | grep auto)"
    done
  done
  pack
done
elapsed bench
