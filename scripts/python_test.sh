#!/usr/bin/env bash
# The Python package (docs/python.md): build the wheel (host only; scikit-build-core
# and nanobind as installed, no build isolation, so no download), install it into
# build/python/site (not into the Python environment), run its `tessel` command
# and pytest python/tests.
#   bash scripts/python_test.sh [TESSEL_CLI]   (the command line, for the parity tests)
# Skips with a SKIPPED line (exit 0) where nanobind, scikit-build-core or pytest
# cannot be imported; scripts/deps.sh installs them (pip, or the virtual
# environment build/python/venv where the system Python refuses pip installs).
set -euo pipefail
cd "$(dirname "$0")/.."
py=python3
[ -x build/python/venv/bin/python ] && py=build/python/venv/bin/python
if ! "$py" -c "import nanobind, scikit_build_core, pytest" >/dev/null 2>&1; then
  echo "tessel python: SKIPPED: nanobind, scikit-build-core or pytest cannot be imported by $py" \
    "(pip install nanobind scikit-build-core pytest); the Python package is neither built nor tested"
  exit 0
fi
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}"
rm -rf build/python/dist build/python/site
# Its build folder is kept (build/python/wheel-OFF, -ON, -AUTO): a second run recompiles only what changed.
# The wheel built here is the algebra alone (TESSEL_ENABLE_CUDA=OFF; a CUDA
# wheel compiles the whole kernel library a second time).  The extension with
# the GEMMs is built by the CUDA build itself (CMakeLists.txt, where nanobind
# is installed) and tested below.  TESSEL_PYTHON_CUDA=AUTO|ON builds the wheel
# with the GEMMs instead (what `pip install .` does where it finds nvcc).
cuda="${TESSEL_PYTHON_CUDA:-OFF}"
"$py" -m pip wheel -q --no-build-isolation --no-deps -C cmake.define.TESSEL_ENABLE_CUDA="$cuda" \
  -C build-dir="build/python/wheel-$cuda" -w build/python/dist .
"$py" -m pip install -q --no-deps --target build/python/site build/python/dist/tessel-*.whl
# The wheel's command line (its scripts folder, bin/ under --target), where
# CLI11 was found: the version it prints is the package's.
if [ -x build/python/site/bin/tessel ]; then
  cli_version=$(build/python/site/bin/tessel --version)
  py_version=$(PYTHONPATH="$PWD/build/python/site" "$py" -c "import tessel; print(getattr(tessel, '__version__', ''))")
  if [ -n "$py_version" ] && [ "$cli_version" != "tessel $py_version" ]; then
    echo "tessel python: the wheel's \`tessel --version\` says '$cli_version', tessel.__version__ '$py_version'" >&2
    exit 1
  fi
  echo "tessel python: the wheel's command: $cli_version"
else
  echo "tessel python: the wheel has no \`tessel\` command (CLI11 not found when it was built)"
fi
if [ $# -ge 1 ]; then export TESSEL_CLI="$1"; fi
echo "tessel python: $(ls build/python/dist) built; pytest python/tests"
PYTHONPATH="$PWD/build/python/site" "$py" -m pytest -q -p no:cacheprovider python/tests
# tessel.gemm: the CUDA build's extension (build/<preset>/python) beside the
# package's Python files; its GPU tests skip with a message without a GPU.
if [ $# -ge 1 ]; then
  module=$(ls "$(dirname "$1")"/python/_tessel*.so 2>/dev/null | head -n 1 || true)
  if [ -n "$module" ]; then
    rm -rf build/python/gemm_site && mkdir -p build/python/gemm_site/tessel
    cp python/tessel/*.py build/python/gemm_site/tessel/ && cp "$module" build/python/gemm_site/tessel/
    echo "tessel python: tessel.gemm through $module; pytest python/tests/test_gemm.py test_attention.py"
    # pytest's status 5 is "nothing collected": the module skipped as a whole
    # (no PyTorch), with its reason printed by -rs.
    rc=0
    PYTHONPATH="$PWD/build/python/gemm_site" "$py" -m pytest -q -rs -p no:cacheprovider python/tests/test_gemm.py \
      python/tests/test_attention.py || rc=$?
    if [ "$rc" -eq 5 ]; then
      echo "tessel python: test_gemm.py and test_attention.py skipped as a whole (the reason above)"
    elif [ "$rc" -ne 0 ]; then
      exit "$rc"
    fi
  else
    echo "tessel python: no CUDA build of the extension (build/*/python/_tessel*.so): tessel.gemm's tests not run"
  fi
fi
