#!/usr/bin/env bash
# Where the power goes in k09 at 4096^3: each part of the kernel alone, and
# the whole, each run long enough to reach the GPU's steady state (2 x 3000
# launches, about 2 s, L2 flushed before each), with the SM clock and the
# board power sampled (bench/lab/sampled.sh).  Needs a GPU, the lab built
# with the variants named (bench/lab/build.sh "VARIANTS"), build/lab/mma_stream
# and the tessel CLI (build/sm90a/tessel).
#   bash bench/lab/energy.sh "VARIANTS" > bench/results/k09_energy_<gpu>.log
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
lab=${TESSEL_LAB:-$root/build/lab/lab}
stream=$root/build/lab/mma_stream
cli=${TESSEL_CLI:-$root/build/sm90a/tessel}
s="bash $root/bench/lab/sampled.sh"
nvidia-smi --query-gpu=name,power.limit,enforced.power.limit,clocks.max.sm,temperature.gpu --format=csv
echo "== idle"
$s idle sleep 3
echo "== mma.sync alone (registers only), 3000 launches each"
$s stream-random "$stream" random 3000
$s stream-zero "$stream" zero 3000
echo "== k09 lab variants, burst (50 launches) then 3000 launches each"
"$lab" 4096 4096 4096 50 2>&1 | grep -v '^map'
$s lib "$lab" 4096 4096 4096 3000 lib 2>&1 | grep -E '^rep|^sampled'
for v in $1; do
  $s "v$v" "$lab" 4096 4096 4096 3000 "v$v" 2>&1 | grep -E '^rep|^sampled'
done
echo "== tessel bench gemm 4096^3 (protocol), cuBLASLt alone, then k09 (which times cuBLASLt first)"
$s bench-cublas "$cli" bench gemm --m 4096 --n 4096 --k 4096 --impl cublas --verify none 2>&1 | grep -E 'TFLOP|sampled'
$s bench-k09 "$cli" bench gemm --m 4096 --n 4096 --k 4096 --impl k09 --verify tier2 2>&1 | grep -E 'verify|TFLOP|ratio|sampled'
if [ -n "${TESSEL_NCU:-}" ] && command -v ncu >/dev/null; then
  echo "== ncu (one launch each, clocks left alone)"
  for v in $TESSEL_NCU; do
    echo "-- v$v"
    ncu --clock-control none -k regex:lab_kernel -c 1 --section SpeedOfLight --section ComputeWorkloadAnalysis \
      --section MemoryWorkloadAnalysis "$lab" 4096 4096 4096 1 "v$v" 2>&1 |
      grep -E 'Throughput|Busy|Pipe|Duration|Frequency|Hit Rate|Bandwidth|Issue Slots|Executed Ipc' | grep -v '^==' | head -40
  done
fi
