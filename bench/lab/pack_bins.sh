#!/usr/bin/env bash
# bench/lab/pack_bins.sh BUILD_DIR — pack a local sm90a build's CLI and
# gemm_test into .carry/bins.txz (ignored by git through .git/info/exclude's
# /.carry/; gemm_api_test too where built), for a device probe that calls carried_bins (probe_lib.sh) and is
# run with carry [".carry"].  xz brings the two ~31 MB binaries to ~3 MB.
set -euo pipefail
b=${1:?usage: pack_bins.sh BUILD_DIR}
root=$(git rev-parse --show-toplevel)
grep -qx '/.carry/' "$root/.git/info/exclude" 2>/dev/null || echo '/.carry/' >> "$root/.git/info/exclude"
mkdir -p "$root/.carry"
extra=()
[ -x "$b/tests/cuda/gemm_api_test" ] && extra+=(tests/cuda/gemm_api_test)
tar cJf "$root/.carry/bins.txz" -C "$b" tessel tests/cuda/gemm_test "${extra[@]}"
ls -la "$root/.carry/bins.txz"
