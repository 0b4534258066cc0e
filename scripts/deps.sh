#!/usr/bin/env bash
# Installs what tessel needs to build and test, from Debian's packages, when it
# is missing: CMake, g++, GoogleTest, CLI11, Python 3 (with pip, venv and its
# headers), and clang with its libFuzzer runtime (scripts/fuzz.sh), clang-format
# (scripts/format.sh).  (The CUDA toolkit is optional: with nvcc on PATH the
# sm90a preset also builds the CUDA code.)  Then, from PyPI, what the Python
# package needs (scripts/python_test.sh): nanobind, scikit-build-core, pytest.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v g++ >/dev/null || need+=(g++)
command -v python3 >/dev/null || need+=(python3 python3-pip python3-venv python3-dev)
if command -v python3 >/dev/null; then
  python3 -m pip --version >/dev/null 2>&1 || need+=(python3-pip)
  python3 -c "import ensurepip" >/dev/null 2>&1 || need+=(python3-venv)
  python3 -c "import os, sysconfig; assert os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h'))" \
    >/dev/null 2>&1 || need+=(python3-dev)
fi
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
# The Python package's build and test tools.  Where the system Python refuses
# pip installs (Debian's externally managed Python), they go into the virtual
# environment build/python/venv, which scripts/python_test.sh then uses.
py_tools="import nanobind, scikit_build_core, pytest"
venv="$root/build/python/venv"
if ! python3 -c "$py_tools" >/dev/null 2>&1 && ! { [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$py_tools"; } \
  >/dev/null 2>&1; then
  echo "tessel: installing nanobind scikit-build-core pytest (pip)"
  export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
  if ! python3 -m pip install -q nanobind scikit-build-core pytest >/dev/null 2>&1; then
    { python3 -m venv --system-site-packages "$venv" && "$venv/bin/python" -m pip install -q nanobind scikit-build-core \
      pytest; } >/dev/null 2>&1 ||
      echo "tessel: could not install nanobind, scikit-build-core and pytest: the Python package will not be tested"
  fi
fi
