#!/usr/bin/env bash
# Session 41, probe b: why probe a's L2 prefetch lost (ncu, 128 x 8192 x
# 8192, k13 64 x 128, TESSEL_LAB_L2_AHEAD = 0 / 8 / 32): DRAM bytes read,
# L2 sectors and requests, the kernel's duration.
source bench/lab/probe_lib.sh >/dev/null
carried new
for d in 0 8 32; do
  TESSEL_LAB_L2_AHEAD=$d timeout 60 ncu --launch-skip 2 --launch-count 1 -k regex:gemm_wgmma --metrics dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_requests_srcunit_tex.sum,lts__t_sectors.sum,gpu__time_duration.sum \
    /tmp/new/tessel bench gemm --m 128 --n 8192 --k 8192 --impl k13 --iterations 4 --warmup 2 --verify none > $R/ncu_d$d.txt 2>&1
  echo "D=$d $(grep -E '^\s+(dram|lts|gpu__)' $R/ncu_d$d.txt | awk '{print $1"="$(NF-1)$NF}' | paste -sd' ')"
done
pack
