#!/usr/bin/env bash
# Session-21 device run 7: f10 measured 0.86 (dispatch stalls 0.43: register
# bank conflicts at 255 registers; static count in its SASS 37 % of FFMAs
# with two fresh operands in one bank against f08's 26 %).  Screen 2
# (bench/lab/fp32_configs.cu): the serpentine FFMA order, 6 stages, f10.
# Then the CUDA wheel: `pip install .` with nvcc present (issue 14), and
# tessel.gemm's tests against the installed wheel.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
t0=$(date +%s)
nvcc -O3 -std=c++20 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -I. -Iinclude bench/lab/fp32_configs.cu -lcublas -o /tmp/fp32_configs > "$R/lab_build.log" 2>&1 || { tail "$R/lab_build.log"; exit 1; }
echo "lab build $(( $(date +%s) - t0 )) s"
timeout 200 /tmp/fp32_configs 4096 8192 2>&1 | tee "$R/fp32_configs2_h100.txt"
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader
echo "elapsed $(( $(date +%s) - t0 )) s"
export CMAKE_BUILD_PARALLEL_LEVEL=16
timeout 400 python3 -m pip install --no-build-isolation --no-deps --target /tmp/whl . > "$R/pip_install.log" 2>&1
echo "pip install rc=$? $(( $(date +%s) - t0 )) s"; tail -3 "$R/pip_install.log"
cd /tmp && PYTHONPATH=/tmp/whl python3 -c 'import tessel; print("import tessel ok; has_gemm =", tessel.has_gemm)' 2>&1 | tee "$R/import.log"
cd - >/dev/null
PYTHONPATH=/tmp/whl timeout 120 python3 -m pytest -q -p no:cacheprovider python/tests/test_gemm.py > "$R/pytest_wheel.log" 2>&1
echo "pytest (installed wheel) rc=$? $(tail -1 "$R/pytest_wheel.log")"
echo "elapsed $(( $(date +%s) - t0 )) s"
tar czf "$OUT/results.tgz" -C "$OUT" r
