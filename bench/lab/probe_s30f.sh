#!/usr/bin/env bash
# Session-30 device run (f): C's tile asked into L2 before each unit's main
# loop (TileEpilogue::prepare -> TmaStoreEpilogue::prefetch_c: prefetch.global.L2
# per line; k13 and k14).  s30e, with a chunk's C loads gathered: beta = 1
# 1000^3 0.773 (k13 128 x 128) / 0.796 (k14), 1024^3 0.759, 4096^3 0.896,
# 8192 x 28672 x 8192 0.943; the loads still wait for DRAM after the last batch.
# Predicted: small grids (one tile per CTA, nothing overlaps the epilogue)
# +5-10 % (1000^3 ~0.85), 4096^3 +2-4 % (~0.92); beta = 0 unchanged.
# Then k14 at 1000^3 with C beside auto, for rule 13's beta.
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli gemm_test
timeout 170 /tmp/bn/tests/cuda/gemm_test --gtest_filter='K13Tuning/*:K14Tuning/*:Plan/*:K13Rows64/*:Paths/*:GemmClusterMulticast*:AllSteps/*k13*:AllSteps/*k14*' \
  > "$R/gpu_tests.log" 2>&1; echo "tests rc=$?"; grep -E "^\[  PASSED|^\[  FAILED|tests ran" "$R/gpu_tests.log" | head -20
elapsed tests; pack
b() { local name=$1; shift; timeout 60 /tmp/bn/tessel bench gemm "$@" --repeat 3 --csv "$R/$name.csv" > "$R/$name.txt" 2>&1; echo "== $name"; medians "$R/$name.csv" | grep -v cublas; }
b beta1_1000_auto --m 1000 --n 1000 --k 1000 --beta 1 --impl auto,cublas
b beta1_1000_k14 --m 1000 --n 1000 --k 1000 --beta 1 --impl k14,cublas --tile-m 64
b beta1_1024_auto --m 1024 --n 1024 --k 1024 --beta 1 --impl auto,cublas
b beta1_4096_auto --m 4096 --n 4096 --k 4096 --beta 1 --impl auto,cublas
b beta1_4096_f16f32 --m 4096 --n 4096 --k 4096 --beta 1 --dtype fp16 --out-dtype fp32 --layout A:m,B:n --impl auto,cublas
b beta1_8192_28672 --m 8192 --n 28672 --k 8192 --beta 1 --impl auto,cublas
b beta0_4096_auto --m 4096 --n 4096 --k 4096 --impl auto,cublas
elapsed done
pack
