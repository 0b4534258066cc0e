#!/usr/bin/env bash
# The test command (README, .ci/run): install missing dependencies, build,
# run every test.  GPU tests skip with a message where no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
export PATH="$PATH:/usr/local/cuda/bin"
# ccache, where installed (TESSEL_CCACHE=0: not): an object whose source,
# headers and flags a previous run compiled is taken from the cache, also
# from another clone (paths relative to the tree), so a run after an earlier
# one on the machine recompiles only what changed.  CMake takes the launcher
# from these variables when it first configures a build folder.
if [ "${TESSEL_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null 2>&1; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_CUDA_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR="$PWD"
  echo "tessel: compiling through ccache ($(ccache --version | head -n 1); TESSEL_CCACHE=0 turns it off)"
fi
preset=$(bash scripts/preset.sh)
echo "tessel: preset $preset"
# The ladder's teaching steps (never picked by `auto`, left out of a plain
# build and of `pip install .`) are built here, so that every step is tested.
# Where no GPU is present the kernels are compile checks and SASS checks only:
# every step, those `auto` picks too, is then built for one input type and
# layout (scripts/ladder.sh, docs/design.md), a fifth of the compile time.  On
# a GPU all are built and tested.
ladder=$(bash scripts/ladder.sh)
cmake --preset "$preset" -DTESSEL_BUILD_LADDER=ON -DTESSEL_LADDER_INSTANCES="$ladder" \
  -DTESSEL_GEMM_INSTANCES="$ladder" >/dev/null
cmake --build --preset "$preset" --parallel "$(bash scripts/jobs.sh)"  # scripts/jobs.sh: cores, memory
if [ "$ladder" = one ]; then
  echo "tessel: no GPU on this machine: the GPU tests (LayoutGpu.*) report Skipped; run them on a GPU machine"
  if [ "$preset" = sm90a ]; then
    echo "tessel: every GEMM step was built for one input type and layout (bf16 A:k,B:n; fp32 A:m,B:n)"
  fi
fi
# The golden summaries ("N passed, M failed") for the log; CTest runs them too.
"build/$preset/tests/golden_check" valid tests/data/layout_algebra.tsv | tail -n 1
"build/$preset/tests/golden_check" errors tests/data/layout_algebra_errors.tsv | tail -n 1
# The project's own C++/CUDA files are clang-formatted (.clang-format).
bash scripts/format.sh --check
# The examples, built against the installed package (find_package(tessel)).
bash scripts/examples_test.sh "build/$preset"
# The Python package: wheel build and pytest (skips with a message without nanobind/scikit-build-core/pytest).
bash scripts/python_test.sh "build/$preset/tessel"
# The fuzzers under ASan+UBSan for a bounded time (TESSEL_FUZZ_SECONDS, default 60; 0 skips).
bash scripts/fuzz.sh
# Two tests at a time (TESSEL_TEST_JOBS): the SASS checks' disassembly, the
# CLI's, the draw and the JIT tests each keep one core busy at most,
# and CI's 2-core machine ran them one after the other in about 220 s.
ctest --preset "$preset" --output-on-failure --parallel "${TESSEL_TEST_JOBS:-2}"
