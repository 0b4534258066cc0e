#!/usr/bin/env bash
# Session-32 device run (a): the tree after the CI-time changes (pair_value
# as a table: the same SASS in all 21 TMA-store units; TESSEL_LADDER_INSTANCES;
# gemm_check's instance rule) built as a GPU machine builds it
# (scripts/ladder.sh -> all): the host API test, the teaching steps in every
# layout and type (Fp16Inputs: fp16 in all four layouts), then the suite
# through the plan against cuBLASLt (unchanged kernels: a fresh data point).
source bench/lab/probe_lib.sh
gpu_line | tee "$R/gpu.txt"
echo "ladder.sh: $(bash scripts/ladder.sh)" | tee -a "$R/gpu.txt"
cmake -S . -B /tmp/bn -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc \
  -DTESSEL_LADDER_INSTANCES="$(bash scripts/ladder.sh)" > "$R/cmake.log" 2>&1
cmake --build /tmp/bn -j16 --target tessel_cli gemm_test gemm_api_test > "$R/build.log" 2>&1; echo "build rc=$?"
elapsed build; pack
/tmp/bn/tests/cuda/gemm_api_test --gtest_brief=1 > "$R/gemm_api_test.txt" 2>&1; tail -3 "$R/gemm_api_test.txt"
timeout 240 /tmp/bn/tests/cuda/gemm_test --gtest_brief=1 \
  --gtest_filter='AllSteps/Gemm.Fp16Inputs/k05*:AllSteps/Gemm.Fp16Inputs/k12*:AllSteps/Gemm.Fp32AndFp16Outputs/k11*:Fp32Steps/GemmF32.Fp32Sweep/f06*' \
  > "$R/gemm_test_teaching.txt" 2>&1; echo "gemm_test rc=$?"; tail -4 "$R/gemm_test_teaching.txt"
elapsed tests; pack
timeout 200 /tmp/bn/tessel bench gemm --suite tests/data/bench_suite.csv --impl auto,cublas --repeat 2 \
  --csv "$R/suite_auto_s32a.csv" > "$R/suite_auto_s32a.txt" 2>&1; echo "suite rc=$?"
medians "$R/suite_auto_s32a.csv" | grep -v cublas | tee "$R/suite_medians.txt"
elapsed done; pack
