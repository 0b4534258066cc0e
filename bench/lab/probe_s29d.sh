#!/usr/bin/env bash
# Session-29 device run (d): where the time of one small-grid tile goes.
# bench/lab/timeline/k13_k14.patch (applied here only, never committed to the
# kernels) stamps each CTA's phases with clock64: entry -> first TMA load
# issued -> first k-tile's full barrier passed -> last k-tile's -> every batch
# done -> epilogue stored; printed for the 4th launch.  Rows: k14 64 x 128 and
# k13 64 x 128 at 1000^3 (rows straddle 128-byte lines), k13 64 x 128,
# 128 x 64 and k14 64 x 128 at 1024^3, k13 64 x 128 at 512^3 and at
# 1024 x 1024 x 4096 (the steady state of a long K).
# Expected: tells which phase holds the gap to cuBLASLt (s29b: 10.1 K active
# cycles at 1000^3 against k14's 13.5 K, the same L2 requests and sectors):
# the prologue before the first load, the first load's latency, the per
# k-tile rate, or the epilogue.
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
g0 = min(r[2] for r in rows)
med = lambda i: st.median(r[i] for r in rows)
mx = lambda i: max(r[i] for r in rows)
print('%-14s ctas %3d  entry skew %5.0f ns  first load %5.0f  first full %5.0f  last full %6.0f  mma done %6.0f  stored %6.0f (max %6.0f)  per k-tile %4.0f cycles' % (
  name, len(rows), max(r[2] for r in rows) - g0, med(3), med(4), med(5), med(6), med(7), mx(7), (med(5) - med(4)) / max(kt - 1, 1)))
PY
}
tl k14m64_1000 1000 1000 1000 --impl k14 --tile-m 64
tl k13m64_1000 1000 1000 1000 --impl k13 --tile-m 64 --swap-ab off
tl k13m64_1024 1024 1024 1024 --impl k13 --tile-m 64 --swap-ab off
tl k14m64_1024 1024 1024 1024 --impl k14 --tile-m 64
tl k13n64_1024 1024 1024 1024 --impl k13 --tile-n 64
tl k13m64_512 512 512 512 --impl k13 --tile-m 64 --swap-ab off
tl k13m64_1024x4096 1024 1024 4096 --impl k13 --tile-m 64 --swap-ab off
tl k13n64_1024x4096 1024 1024 4096 --impl k13 --tile-n 64
elapsed "done"
pack
