#!/usr/bin/env bash
# Session 34, probe a: (1) bench/lab/probe_s33g.sh's experiment, prepared in
# session 33 and not run then: k15's batched data movement in unit pairs, with
# and without B multicast in 2-CTA clusters (store_pattern.cu's move_pairs);
# predicted 2048^2 from ~116 to 108-112 us if L2 reads are what the loads
# cost, no change at 512^2.  (2) gemm_test's Batched/* suite with the new
# k15_pingpong_g1 step (raster group 1, rule 11b's raster), never run on a GPU.
# The binaries come built elsewhere (a clean-clone CI build of 62a1119 on the
# 2-core machine, carried as .carry/bins.txz) so that no device time goes to
# building them.
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/cb && tar xJf .carry/bins.txz -C /tmp/cb
timeout 200 /tmp/cb/tests/cuda/gemm_test --gtest_filter='Batched/*' > "$R/gpu_tests_batched.log" 2>&1
echo "gemm_test Batched/* rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' "$R/gpu_tests_batched.log" | tr '\n' ' ')"
grep -c "_g1" "$R/gpu_tests_batched.log"
elapsed "tests"; pack
bash bench/lab/probe_s33g.sh
elapsed "lab"; pack
