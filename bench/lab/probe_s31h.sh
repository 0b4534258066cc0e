#!/usr/bin/env bash
# Session-31 device run (h): A/B in one run of the TMA-store epilogue's C
# gather: 846613a's unrolled search (pair_value folded by nvcc; the code
# s31c/s31d measured) against 7351f85's static_for (the same loads, nvcc
# compiles k13_n256.cu in 94 s of CPU instead of 160, but other machine code
# in every TMA-store kernel).  s31g/s31h-prelim had 64 and 128 x 8192 x 8192
# at 0.999 / 0.990 on 7351f85 against 1.004 / 0.997 on 846613a (different
# runs).  The old header is shipped as bench/lab/tma_store_epilogue_846613a.cuh.txt.
# Builds: /tmp/bn (this tree, s31f's warm build) and /tmp/bo (old header).
source bench/lab/probe_lib.sh
rm -rf /tmp/src_old && mkdir /tmp/src_old && cp -r CMakeLists.txt CMakePresets.json cmake include src tools python tests scripts /tmp/src_old/ 2>/dev/null
cp bench/lab/tma_store_epilogue_846613a.cuh.txt /tmp/src_old/include/tessel/kernels/gemm/tma_store_epilogue.cuh
(cd /tmp/src_old && cmake -S . -B /tmp/bo -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake_old.log" 2>&1 && cmake --build /tmp/bo -j16 --target tessel_cli > "$R/build_old.log" 2>&1); echo "old build rc=$?"
elapsed build_old; pack
for round in 1 2; do
  for b in bn bo; do
    timeout 100 /tmp/$b/tessel bench gemm --m 64,128 --n 8192 --k 8192 --impl auto,cublas --repeat 3 --csv "$R/ab_${b}_$round.csv" > "$R/ab_${b}_$round.txt" 2>&1
  done
done
for b in bn bo; do cat "$R/ab_${b}_1.csv" > "$R/ab_$b.csv"; tail -n +2 "$R/ab_${b}_2.csv" >> "$R/ab_$b.csv"; echo "== $b"; medians "$R/ab_$b.csv" | grep -v cublas; done
elapsed done
pack
