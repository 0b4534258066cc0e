#!/usr/bin/env bash
# Session-23 device run 8: small M (16 and 32 x 8192 x 8192) is at 0.92 of
# cuBLASLt with DRAM at 80 % of its peak against cuBLASLt's 83 % (ncu, s23d).
# k13's swapped 128 x 16 tile keeps 12 stages of 18 KB in flight per SM
# (all of shared memory: 128 CTAs x 216 KB = 27 MB requested at once).
# Hypothesis: so many requests in flight cost the DRAM its page locality.
# Test: the same kernel with its stages capped at 4 and at 6 (k13 Tiles,
# BN <= 32 only; patched copies of the tree, built side by side), timed
# against cuBLASLt.  Prediction if the hypothesis holds: a cap of 6 gains
# 2-4 %; 4 loses (too little in flight: 128 x 72 KB = 9 MB).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
build() { # cap
  local src=/tmp/src$1 b=/tmp/bs$1
  rm -rf $src; mkdir -p $src; tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C $src
  sed -i "s|static constexpr int kStages = (kSmemLimit - kStagingBytes - kBiasBytes - 1024) / kStageBytes;|static constexpr int kStages = BN <= 32 \&\& $1 < (kSmemLimit - kStagingBytes - kBiasBytes - 1024) / kStageBytes ? $1 : (kSmemLimit - kStagingBytes - kBiasBytes - 1024) / kStageBytes;|" $src/include/tessel/kernels/gemm/k13_wgmma_in_flight.cuh
  grep -c "BN <= 32 && $1" $src/include/tessel/kernels/gemm/k13_wgmma_in_flight.cuh
  cmake -S $src -B $b -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake$1.log" 2>&1 &&
    cmake --build $b -j8 --target tessel_cli > "$R/build$1.log" 2>&1
  echo "cap $1 build rc=$?"
}
build 6 & build 4 & wait
echo "builds $(( $(date +%s) - t0 )) s"
for shape in "16 8192 8192" "32 8192 8192" "16 14336 8192"; do
  set -- $shape
  for cap in 6 4; do
    timeout 60 /tmp/bs$cap/tessel bench gemm --m $1 --n $2 --k $3 --impl auto,cublas --repeat 3 --csv "$R/m$1_n$2_cap$cap.csv" > /dev/null 2>&1
    python3 - "$R/m$1_n$2_cap$cap.csv" "$1x$2x$3 cap $cap" <<'PY'
import csv,sys,statistics as st
rs=[r for r in csv.DictReader(open(sys.argv[1])) if r['impl']=='auto']
rt=[float(r['ratio']) for r in rs if r['ratio']]
print('%-24s %.3f  %s GB/s  %s' % (sys.argv[2], st.median(rt) if rt else -1, rs[0]['gbytes_per_s'][:6] if rs else '', rs[0]['note'] if rs else ''))
PY
  done
done
(head -1 $(ls $R/m*.csv | head -1); for f in $R/m*.csv; do tail -n +2 $f; done) > $R/small_m_stage_caps.csv
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
