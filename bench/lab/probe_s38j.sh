#!/usr/bin/env bash
# Session 38, probe j: k13 at 8192 x 28672 x 8192 alone against cuBLASLt,
# eight repeats (--order blocks), with nvidia-smi logging every 50 ms the SM
# clock, power, GPU and memory temperature and the active clock-event
# (throttle) reasons.  Probe i's blocks were bimodal: k13 at 5.2-5.3 ms in
# repeats 1 and 4, 5.9-6.1 ms in 2 and 3, cuBLASLt 5.2-5.3 in all four.
# Which limit acts in the slow blocks?  plan = probe h's build.
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/plan && tar xJf .carry/plan.txz -C /tmp/plan
B=/tmp/plan/tessel
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,temperature.memory,clocks_event_reasons.active,clocks_event_reasons.sw_power_cap,clocks_event_reasons.hw_slowdown,clocks_event_reasons.sw_thermal_slowdown,clocks_event_reasons.hw_thermal_slowdown,clocks_event_reasons.hw_power_brake_slowdown \
  --format=csv -lms 50 > "$R/smi.csv" 2>&1 &
smi=$!
sleep 1
date +%H:%M:%S.%N > "$R/start.txt"
timeout 200 $B bench gemm --m 8192 --n 28672 --k 8192 --impl k13 --order blocks --repeat 8 --verify none \
  --csv "$R/blocks8.csv" > "$R/blocks8.log" 2>&1
echo "rc=$?"
kill $smi
python3 - "$R/blocks8.csv" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r['impl'] == 'cublas': continue
    print('rep', r['repeat'], 'ratio', r['ratio'][:5], 'ours', r['median_ms'][:6], 'ms', r['sm_clock_mhz'][:6], 'MHz',
          r['power_w'][:5], 'W | cublas', r['cublas_median_ms'][:6], 'ms', r['cublas_sm_clock_mhz'][:6], 'MHz')
PY
wc -l "$R/smi.csv"; pack
