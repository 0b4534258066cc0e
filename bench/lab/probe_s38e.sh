#!/usr/bin/env bash
# Session 38, probe e: each kernel alone at the power cap.  --order blocks
# times ours and cuBLASLt in blocks of their own (alternating which goes
# first per repeat), so each block's NVML means (SM clock sampled every 5
# ms) are that kernel's: at the 700 W cap a kernel that draws more power per
# cycle runs at a lower clock.  time x clock = cycles, to set beside ncu's
# cycles at its locked clock (probes a, b, d).  new = the build of probe d.
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/new && tar xJf .carry/new.txz -C /tmp/new
B=/tmp/new/tessel
run() {
  local name=$1; shift
  timeout 150 $B bench gemm "$@" --order blocks --verify none --csv "$R/blocks_$name.csv" > "$R/blocks_$name.log" 2>&1
  echo "$name rc=$?"
  python3 - "$R/blocks_$name.csv" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r['impl'] == 'cublas': continue
    t, tc = float(r['median_ms']), float(r['cublas_median_ms'])
    f, fc = float(r['sm_clock_mhz']), float(r['cublas_sm_clock_mhz'])
    print('%s r%s ratio %.3f  ours %.4f ms %4.0f MHz %3.0f W %6.0f kcycles | cublas %.4f ms %4.0f MHz %3.0f W %6.0f kcycles' % (
        r['impl'], r['repeat'], float(r['ratio']), t, f, float(r['power_w']), t * f, tc, fc, float(r['cublas_power_w']), tc * fc))
PY
  pack
}
run k15_4096 --m 4096 --n 4096 --k 4096 --impl k15 --repeat 4 --iterations 3000
run k13_4096 --m 4096 --n 4096 --k 4096 --impl k13 --tile-n 256 --repeat 4 --iterations 3000
run k13_28672 --m 8192 --n 28672 --k 8192 --impl k13 --tile-n 256 --repeat 2 --iterations 150
elapsed done
