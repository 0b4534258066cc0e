#!/usr/bin/env bash
# Session 35, probe a: the fused epilogue's first pass as one FMA a value
# (the bias kind switched outside the loop) and the GELUs written on h = x/2
# (alpha and the bias slice prescaled by 1/2): 2 of the ~7 extra
# instructions a value of bias + tanh-GELU gone.  Carried CLIs: old = the
# clean-clone CI build of b63e20f (/tmp/ci37), new = the same build with
# k15_epi.cu.o and k13_epi_n{64,128,256}.cu.o recompiled from the new
# headers (same flags) and relinked.  First the epilogue tests of the new
# gemm_test, then issue 13's two fused rows, old and new alternating.
source bench/lab/probe_lib.sh
gpu_line
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for b in old new; do mkdir -p /tmp/$b && tar xJf .carry/$b.txz -C /tmp/$b; done
timeout 240 /tmp/new/tests/cuda/gemm_test --gtest_filter='Paths/GemmEpi.*:Jit/GemmEpiJit.*:GemmJitCache.*' > "$R/gemm_test_epi.log" 2>&1
echo "gemm_test rc=$?"; tail -3 "$R/gemm_test_epi.log"; elapsed tests; pack
for round in 1 2; do
  for shp in "4096 4096 4096" "8192 28672 8192"; do
    set -- $shp
    for b in old new; do
      f="$R/epi_${1}_${2}_${3}_${b}_r${round}.csv"
      timeout 200 /tmp/$b/tessel bench gemm --m $1 --n $2 --k $3 --epilogue bias_gelu --impl auto,cublas --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
      echo "== $shp $b r$round"; medians "$f"
    done
    elapsed "round $round $1"; pack
  done
done
