#!/usr/bin/env bash
# The examples (examples/) built as a separate project against the installed
# package, the way a user's project would use tessel:
#   bash scripts/examples_test.sh BUILD_DIR
# installs BUILD_DIR into BUILD_DIR/install, configures and builds
# examples/ with find_package(tessel), runs layout_print, builds it again with
# tessel as a subproject (add_subdirectory), and runs the GEMM examples where they were
# built (it reports "skipped" itself without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/examples_test.sh BUILD_DIR}
prefix="$build/install"
rm -rf "$prefix" "$build/examples"
cmake --install "$build" --prefix "$prefix" >/dev/null
cmake -S examples -B "$build/examples" -DCMAKE_PREFIX_PATH="$PWD/$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build/examples" -j 2 >/dev/null
out=$("$build/examples/layout_print")
echo "$out" | grep -q "zipped_divide(A, <2,4>) = ((2,4),(3,5)):((20,1),(40,4))" || {
  echo "examples: layout_print printed something else:"
  echo "$out"
  exit 1
}
echo "examples: layout_print ok (built against the installed package in $prefix)"
# The same project with tessel as a subproject (add_subdirectory), host only.
rm -rf "$build/examples_subdir"
cmake -S examples -B "$build/examples_subdir" -DTESSEL_SOURCE_DIR="$PWD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build/examples_subdir" -j 2 --target layout_print >/dev/null
"$build/examples_subdir/layout_print" | grep -q "((2,4),(3,5)):((20,1),(40,4))"
echo "examples: layout_print ok (tessel as a subproject)"
for example in gemm_bf16 gemm_bias_gelu gemm_grouped gemm_fp8; do
  if [ -x "$build/examples/$example" ]; then
    "$build/examples/$example"
  else
    echo "examples: $example not built (a host-only tessel has no tessel::gemm)"
  fi
done
