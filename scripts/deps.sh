#!/usr/bin/env bash
# Installs what tessel needs to build and test, from Debian's packages, when it
# is missing: CMake, g++, GoogleTest, CLI11, Python 3, and clang with its
# libFuzzer runtime (scripts/fuzz.sh), clang-format (scripts/format.sh).  (The CUDA toolkit is
# optional: with nvcc on PATH the sm90a preset also builds the CUDA code.)
set -euo pipefail
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v g++ >/dev/null || need+=(g++)
command -v python3 >/dev/null || need+=(python3)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
[ -f /usr/include/CLI/CLI.hpp ] || need+=(libcli11-dev)
command -v clang++ >/dev/null || need+=(clang)
command -v clang-format >/dev/null || need+=(clang-format)
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-dev)
# With a CUDA toolkit, the SASS checks need cuobjdump and nvdisasm; the CUDA 13
# pip wheels provide them where the toolkit does not.
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  if ! command -v cuobjdump >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/cuobjdump ]; then
    python3 -c "import nvidia, os; assert os.path.exists(os.path.join(nvidia.__path__[0], 'cu13/bin/cuobjdump'))" \
      2>/dev/null || python3 -m pip install -q --disable-pip-version-check nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm \
      2>&1 | grep -v "as the 'root' user" || true
  fi
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "tessel: installing ${need[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need[@]}" >/dev/null
fi
