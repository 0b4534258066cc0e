#!/usr/bin/env bash
# Session 34, probe j: why 3 stages beat 4 at 32 x 2048^2 x 128 and
# 8 x 4096^2 x 128 (+3 %) and lost at 4 x 4096 x 8192 x 128 (-3 %) (probes
# g-i).  ncu of one verification launch each (--order none), stages 3 and 4:
# time, DRAM bytes read and written, L2 hit rate, L2 sectors, cycles the SMs
# were active.  Hypothesis: the operands' DRAM re-reads (A and B evicted from
# L2 by the stream of D) differ with the depth the loads run ahead.
source bench/lab/probe_lib.sh
gpu_line
for n in v3 s3; do mkdir -p /tmp/$n && tar xJf .carry/$n.txz -C /tmp/$n; done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,sm__cycles_active.avg,dram__throughput.avg.pct_of_peak_sustained_elapsed
for shp in "32 2048 2048 128" "8 4096 4096 128" "4 4096 8192 128"; do
  set -- $shp
  for b in v3 s3; do
    echo "== $shp $b"
    timeout 120 ncu -k regex:'gemm_pingpong' --metrics $M /tmp/$b/tessel bench gemm --batch $1 --m $2 --n $3 --k $4 \
      --impl auto --order none > "$R/ncu_${1}_${2}x${3}_${b}.txt" 2>&1
    grep -E "duration|dram__|lts__|cycles_active" "$R/ncu_${1}_${2}x${3}_${b}.txt" | sed 's/  */ /g'
  done
done
elapsed ncu; pack
