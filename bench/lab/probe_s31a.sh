#!/usr/bin/env bash
# Session-31 device run (a): where the small-M time goes.  Session 27 put
# the small-M gap in the fixed cost per call (64 x 8192 x 8192: 6.2 µs
# against cuBLASLt's 3.8; 128 x 8192 x 8192: 5.7 against 4.5), growing with
# the columns of D the swapped tile writes (M = 33: 4.6 µs, 64: 6.8), and
# left two suspects: the transposed register epilogue (a thread's 32 scattered
# 2-byte stores at M = 64) and the bytes of A each stage reads (all 128 CTAs
# read the same lines of A).  The timeline patch (bench/lab/timeline/, applied
# here only) stamps each CTA's phases for one launch.
# Expected: if the epilogue (mma done -> stores issued -> stores complete)
# grows from M = 16 to M = 64 by 1-2 µs (2-4 K cycles), a staged TMA-stored
# D^T is the lever; if the first stage full or the per-k-tile rate moves
# instead, A's shared lines are (a cluster multicast of A).
source bench/lab/probe_lib.sh
gpu_line
patch -p0 -s < bench/lab/timeline/k13_k14.patch || { echo "patch failed"; exit 1; }
build_cli tessel_cli || { tail -30 "$R/build.log"; exit 1; }
tl() { # name m n k spec...
  local name=$1 m=$2 n=$3 k=$4; shift 4
  timeout 60 /tmp/bn/tessel bench gemm --m $m --n $n --k $k "$@" --iterations 6 --warmup 2 --verify none 2>&1 | grep "^TL " > "$R/tl_$name.txt"
  python3 - "$R/tl_$name.txt" "$name" $k <<'PY'
import sys, statistics as st
rows = [list(map(int, l.split()[1:])) for l in open(sys.argv[1])]
name, k = sys.argv[2], int(sys.argv[3]); kt = (k + 63) // 64
if not rows: print(name, 'no rows'); sys.exit()
g0 = min(r[2] for r in rows)
med = lambda i: st.median(r[i] for r in rows)
mx = lambda i: max(r[i] for r in rows)
# r: cta sm gt d1 d2 d3 d4 d5 d8 d9 d10 d11 d12
print('%-18s ctas %3d skew %5.0f ns | sync %5.0f maps %5.0f unit %5.0f load %5.0f | full1 %5.0f | lastfull %6.0f mma %6.0f issued %6.0f stored %6.0f (max %6.0f) | k-tile %4.0f | epi %5.0f drain %5.0f' % (
  name, len(rows), max(r[2] for r in rows) - g0, med(8), med(9), med(10), med(3), med(4), med(5), med(6), med(12), med(7), mx(7),
  (med(5) - med(4)) / max(kt - 1, 1), med(12) - med(6), med(7) - med(12)))
PY
}
for k in 64 512 8192; do
  tl m16_k$k 16 8192 $k --impl auto
  tl m33_k$k 33 8192 $k --impl auto
  tl m64_k$k 64 8192 $k --impl auto
  tl m128_k$k 128 8192 $k --impl auto
done
elapsed "timelines"; pack
# The same build's ratios (the marks cost a global load per phase: a lab build's numbers, not the library's).
timeout 120 /tmp/bn/tessel bench gemm --m 16,33,64,128 --n 8192 --k 64,512,8192 --impl auto,cublas --repeat 3 --csv "$R/ratios.csv" > "$R/ratios.txt" 2>&1
medians "$R/ratios.csv"
elapsed done
pack
