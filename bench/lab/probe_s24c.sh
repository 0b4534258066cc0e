#!/usr/bin/env bash
# Session-24 device run 3: k13's stage caps, second round.  Session 23 capped
# the swapped 16/32-wide tiles at 4 stages (+1.2-2.1 %, 12 -> 4).  Variant:
# 3 stages for 16/32 and 4 for the 64-wide tile too (swapped and unswapped;
# it fills shared memory with 9 stages of 24 KB today), against this tree,
# side by side, alternating, 3 rounds of 3 repeats.
# Predicted: 64 x 8192 x 8192 +1-2 % (the 16/32 gain carried over),
# 128 x 8192 x 8192 +0-1 %, 1024^3 (compute-bound, rule 1's 128 x 64) -1..0 %,
# 16/32 x 8192 x 8192 at 3 stages -1..+1 %; 512 x 4096 x 4096 (128 x 128) the
# control.  Then tier 1 on the variant at the capped tiles.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
R=$OUT/r
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
build() { # name patch
  local src=/tmp/src_$1 b=/tmp/b_$1
  rm -rf $src; mkdir -p $src; tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C $src
  [ "$2" = 1 ] && sed -i 's|static constexpr int kMaxStages = BN <= 32 ? 4 : 1 << 20;|static constexpr int kMaxStages = BN <= 32 ? 3 : BN == 64 ? 4 : 1 << 20;|' $src/include/tessel/kernels/gemm/k13_wgmma_in_flight.cuh
  grep -c "BN == 64 ? 4" $src/include/tessel/kernels/gemm/k13_wgmma_in_flight.cuh
  cmake -S $src -B $b -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake_$1.log" 2>&1 &&
    cmake --build $b -j8 --target tessel_cli > "$R/build_$1.log" 2>&1
  echo "$1 build rc=$?"
}
build base 0 & build var 1 & wait
echo "builds $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for shape in "64 8192 8192" "128 8192 8192" "1024 1024 1024" "16 8192 8192" "32 8192 8192" "64 14336 4096" "512 4096 4096"; do
  set -- $shape
  line="$1x$2x$3:"
  for round in 1 2 3; do
    for b in base var; do
      timeout 60 /tmp/b_$b/tessel bench gemm --m $1 --n $2 --k $3 --impl auto,cublas --repeat 3 --csv "$R/m$1_n$2_k$3_${b}_r$round.csv" > /dev/null 2>&1
      line="$line $b $(python3 - "$R/m$1_n$2_k$3_${b}_r$round.csv" <<'PY'
import csv,sys,statistics as st
a=[r for r in csv.DictReader(open(sys.argv[1])) if r['impl']=='auto']
print('%.3f' % st.median(float(r['ratio']) for r in a), end='')
PY
)"
    done
  done
  echo "$line  [$(head -2 "$R/m$1_n$2_k$3_base_r1.csv" | tail -1 | cut -d, -f17 | cut -c1-50)]"
done
echo "bench $(( $(date +%s) - t0 )) s"
pack
timeout 120 /tmp/b_var/tessel bench gemm --m 1,17,64,100 --n 1000,8192 --k 65,8192 --layout all --impl auto --verify tier1 --order none --csv "$R/verify_var_tier1.csv" > "$R/verify_var.txt" 2>&1; echo "verify auto rc=$?"
timeout 90 /tmp/b_var/tessel bench gemm --m 100,1000 --n 1000 --k 65,1000 --layout all --impl k13 --tile-n 64 --swap-ab off --verify tier1 --order none --csv "$R/verify_var_tier1.csv" >> "$R/verify_var.txt" 2>&1; echo "verify n64 rc=$?"
python3 - "$R/verify_var_tier1.csv" <<'PY'
import csv,sys,collections
c=collections.Counter((r['disposition']) for r in csv.DictReader(open(sys.argv[1])))
print('tier1 dispositions', dict(c))
PY
echo "elapsed $(( $(date +%s) - t0 )) s"
pack
