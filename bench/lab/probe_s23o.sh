#!/usr/bin/env bash
# Session-23 device run 15: does capping k13's swapped 16/32-wide tiles at 4
# stages (run 8: +1.5 % at 16 x 8192 x 8192, +0.5 % at 32) reproduce against
# the unpatched build in the same session?  Both builds side by side, then
# each shape timed by both in turn, 5 repeats; 64 x 8192 x 8192 (the 64-wide
# tile, not capped) is the control.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
build() { # cap (0: unpatched)
  local src=/tmp/src$1 b=/tmp/bs$1
  rm -rf $src; mkdir -p $src; tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C $src
  [ "$1" != 0 ] && sed -i "s|static constexpr int kStages = (kSmemLimit - kStagingBytes - kBiasBytes - 1024) / kStageBytes;|static constexpr int kStages = BN <= 32 \&\& $1 < (kSmemLimit - kStagingBytes - kBiasBytes - 1024) / kStageBytes ? $1 : (kSmemLimit - kStagingBytes - kBiasBytes - 1024) / kStageBytes;|" $src/include/tessel/kernels/gemm/k13_wgmma_in_flight.cuh
  cmake -S $src -B $b -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake$1.log" 2>&1 &&
    cmake --build $b -j8 --target tessel_cli > "$R/build$1.log" 2>&1
  echo "cap $1 build rc=$?"
}
build 0 & build 4 & wait
echo "builds $(( $(date +%s) - t0 )) s"
for shape in "16 8192 8192" "32 8192 8192" "16 14336 8192" "64 8192 8192"; do
  set -- $shape
  line="$1x$2x$3:"
  for round in 1 2; do
    for cap in 0 4; do
      timeout 60 /tmp/bs$cap/tessel bench gemm --m $1 --n $2 --k $3 --impl auto,cublas --repeat 5 --csv "$R/m$1_n$2_cap${cap}_r$round.csv" > /dev/null 2>&1
      line="$line  cap$cap $(python3 - "$R/m$1_n$2_cap${cap}_r$round.csv" <<'PY'
import csv,sys,statistics as st
print('%.3f' % st.median(float(r['ratio']) for r in csv.DictReader(open(sys.argv[1])) if r['impl']=='auto'), end='')
PY
)"
    done
  done
  echo "$line"
done
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
