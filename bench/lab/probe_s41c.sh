#!/usr/bin/env bash
# Session 41, probe c: probe a's L2 prefetch cut to what the hypothesis
# needs.  Probe b (ncu) found that prefetching A and B from every CTA tripled
# L2's sectors (11.0 M -> 37.6 M at 128 x 8192 x 8192, the DRAM bytes
# unchanged) and nearly doubled the time.  Here TESSEL_LAB_L2_AHEAD=-D asks
# L2 only for B, and only from the even tile row of each pair of CTAs that
# share a B tile: 4.2 M more sectors, not 26.  If more DRAM requests in
# flight help, 128 x 8192 x 8192 should gain; if L2's sector traffic is what
# the prefetch costs, it should lose about 4.2 / 26.5 of probe a's loss.
source bench/lab/probe_lib.sh
gpu_line
carried new
one() {  # one ROUND D M N K
  local f="$R/d${2}_r${1}_${3}x${4}x${5}.csv"
  TESSEL_LAB_L2_AHEAD=$2 timeout 100 /tmp/new/tessel bench gemm --m $3 --n $4 --k $5 --impl auto,cublas --order blocks \
    --min-ms 1000 --repeat 2 --csv "$f" > "${f%.csv}.log" 2>&1
  echo "D=$2 r$1 rc=$? $(alone_line "$f") ours_ms $(python3 -c "import csv,statistics as s,sys;print('%.4f'%s.median(float(r['median_ms']) for r in csv.DictReader(open(sys.argv[1])) if r['impl']!='cublas'))" "$f")"
}
for shp in "128 8192 8192" "128 4096 8192"; do
  for d in 0 -4 -8 -16; do one 1 $d $shp; done
  for d in -16 -8 -4 0; do one 2 $d $shp; done
  pack
done
for d in 0 -8; do
  TESSEL_LAB_L2_AHEAD=$d timeout 60 ncu --launch-skip 2 --launch-count 1 -k regex:gemm_wgmma --metrics dram__bytes_read.sum,lts__t_sectors.sum,lts__t_requests_srcunit_tex.sum,gpu__time_duration.sum \
    /tmp/new/tessel bench gemm --m 128 --n 8192 --k 8192 --impl k13 --iterations 4 --warmup 2 --verify none > "$R/ncu_d$d.txt" 2>&1
  echo "ncu D=$d $(grep -E '^\s+(dram|lts|gpu__)' "$R/ncu_d$d.txt" | awk '{print $1"="$(NF-1)$NF}' | paste -sd' ')"
done
elapsed done; pack
