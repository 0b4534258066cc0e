#!/usr/bin/env bash
# Session-29 device run (e): the fixed costs of a small-grid tile, finer.
# s29d (H100, 1980 MHz, k13 64 x 128 at 1024^3, median CTA): 1942 cycles from
# entry to the first TMA load, 920 to the first full stage, 344 a k-tile,
# 486 to the last batch, 1772 in the epilogue: the fixed costs are a third of
# the CTA's 10.3 K cycles.  Here the prologue is cut at the barrier after the
# mbarriers' init (slot 8), the producer's tensor-map prefetch (9) and its
# first unit (10), the consumers' setup (11), and the epilogue before its
# final wait (12); each row with the bench's L2 flush and without it
# (TESSEL_LAB_NOFLUSH, lab patch): the flush evicts the kernel's code from L2,
# so a cost that vanishes without it is instruction fetch.
source bench/lab/probe_lib.sh
gpu_line
patch -p0 -s < bench/lab/timeline/k13_k14.patch || { echo "patch failed"; exit 1; }
build_cli tessel_cli
tl() { # name shape... spec...
  local name=$1 m=$2 n=$3 k=$4; shift 4
  timeout 60 /tmp/bn/tessel bench gemm --m $m --n $n --k $k "$@" --iterations 6 --warmup 2 --verify none 2>&1 | grep "^TL " > "$R/tl_$name.txt"
  python3 - "$R/tl_$name.txt" "$name" $k <<'PY'
import sys, statistics as st
rows = [list(map(int, l.split()[1:])) for l in open(sys.argv[1])]
name, k = sys.argv[2], int(sys.argv[3]); kt = (k + 63) // 64
if not rows: print(name, 'no rows'); sys.exit()
med = lambda i: st.median(r[i] for r in rows)
print('%-22s sync %5.0f prefetch %5.0f unit %5.0f load %5.0f | cons.setup %5.0f | full %5.0f last %6.0f mma %6.0f | issued %6.0f stored %6.0f | k-tile %4.0f' % (
  name, med(8), med(9), med(10), med(3), med(11), med(4), med(5), med(6), med(12), med(7), (med(5) - med(4)) / max(kt - 1, 1)))
PY
}
for fl in flush noflush; do
  if [ $fl = noflush ]; then export TESSEL_LAB_NOFLUSH=1; fi
  tl k13m64_1024_$fl 1024 1024 1024 --impl k13 --tile-m 64 --swap-ab off
  tl k14m64_1000_$fl 1000 1000 1000 --impl k14 --tile-m 64
  tl k13m64_512_$fl 512 512 512 --impl k13 --tile-m 64 --swap-ab off
  tl k13n64_1024_$fl 1024 1024 1024 --impl k13 --tile-n 64
done
elapsed "done"
pack
