#!/usr/bin/env bash
# Builds the k09 lab (bench/lab/lab_kernel.cuh) for the variants given, into
# build/lab/lab.  Needs the sm90a build's libtessel_kernels.a (cmake --preset
# sm90a && cmake --build build/sm90a --target tessel_kernels).
#   bash bench/lab/build.sh "0 16 48"      then   build/lab/lab M N K [iterations] [variant]
# The lab verifies every variant bit for bit against the library's k09 on
# small-integer inputs (variants that skip work report mismatches), then times
# each on uniform [-1,1] inputs: CUDA events, L2 flushed before every launch,
# median of `iterations` (50) after 10 warm-up launches.  Short runs like this
# measure the GPU before it reaches its power limit ("burst"); tessel bench
# gemm's 200 ms per point measures it at the limit (docs/ladder.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
src=$root/bench/lab
out=$root/build/lab
mkdir -p "$out"
nv="${CUDA_HOME:-/usr/local/cuda}/bin/nvcc -O3 -DNDEBUG -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr -std=c++20 -I$root -I$root/include -I$out -Xptxas -v"
decls="" vars="" objs=""
for v in $1; do
  $nv -DLABV="$v" -c "$src/lab_v.cu" -o "$out/v$v.o" > "$out/v$v.log" 2>&1 &
  decls="$decls DECL($v)" vars="$vars {\"v$v\", run_v$v}," objs="$objs $out/v$v.o"
done
printf '#define LAB_DECLS %s\n#define LAB_VARS %s\n' "$decls" "$vars" > "$out/lab_vars.h"
$nv -include "$out/lab_vars.h" -c "$src/lab_main.cu" -o "$out/main.o" > "$out/main.log" 2>&1 &
fail=0
for job in $(jobs -p); do wait "$job" || fail=1; done
if [ "$fail" != 0 ]; then cat "$out"/*.log | grep -B2 -A6 error; exit 1; fi
$nv -o "$out/lab" "$out/main.o" $objs "$root/build/sm90a/libtessel_kernels.a" -lcuda
for v in $1; do echo "v$v: $(grep -A1 'lab_kernel' "$out/v$v.log" | grep -o '[0-9]* bytes spill stores' | head -1)"; done
