#!/usr/bin/env bash
# Session-26 device run: why k13 with stream-K ran 0.856 of cuBLAS at
# 4096^3 where k13 128 x 256 unshared ran 0.990 (s26f).  ncu of one launch
# of each at 4096^3 (bf16, A:k, B:n): DRAM bytes read, L2 hit rate,
# duration.  Predicted: the stream-K launch reads several times the DRAM
# bytes of the plain one (its shared slices, at unrelated k positions, find
# nothing in L2), as f11's did (s26a: 1.70 GB against 0.34).
source bench/lab/probe_lib.sh
gpu_line
build_cli tessel_cli
M=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum
for sk in off on; do
  timeout 150 ncu -k regex:gemm_wgmma_in_flight -c 1 --metrics $M /tmp/bn/tessel bench gemm --m 4096 --n 4096 --k 4096 \
    --impl k13 --tile-n 256 --splits 1 --stream-k $sk --order none --verify tier1 > "$R/ncu_k13_sk_$sk.txt" 2>&1
  echo "== stream-K $sk"; grep -E "dram__|lts__|gpu__time|==ERR" "$R/ncu_k13_sk_$sk.txt"
done
elapsed "done"
pack
