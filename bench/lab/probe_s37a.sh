#!/usr/bin/env bash
# Session 37, probe a: is the small-M GEMM bound per SM or by DRAM?
# At 128 x 8192 x 8192 k13's 64 x 128 tiles make 128 CTAs on 132 SMs and
# stream operands at ~2.82 TB/s (cuBLASLt ~2.84, also 128 CTAs); a
# device-to-device copy over all SMs reaches ~3.0.  If the rate is per SM,
# the time stays flat from 120 to 132 tiles (N = 7680 .. 8448) and GB/s
# rises with the tile count; if DRAM bounds it, the time grows with N.
# Two tiles: 64 x 128 (rule 1b's) and 128 x 64; cuBLASLt beside each.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
for round in 1 2; do
  for cfg in "m64:--tile-m 64 --tile-n 128" "n64:--tile-m 128 --tile-n 64"; do
    name=${cfg%%:*}; flags=${cfg#*:}
    f="$R/small_m_${name}_r$round.csv"
    timeout 200 /tmp/cb/tessel bench gemm --m 128 --n 7680,7936,8192,8448 --k 8192 --impl k13,cublas $flags \
      --splits 1 --repeat 3 --csv "$f" > "${f%.csv}.log" 2>&1
    echo "$name r$round rc=$?"
    python3 - "$f" <<'PY'
import collections, csv, statistics as st, sys
d = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    d[(int(r['n']), r['impl'])].append(r)
for (n, impl), rows in sorted(d.items()):
    med = lambda c: st.median(float(x[c]) for x in rows if x.get(c))
    print('N %5d %-7s %7.2f us %6.0f GB/s ratio %.3f %4.0f MHz %s' % (n, impl, med('median_ms') * 1e3,
          med('gbytes_per_s'), med('ratio'), med('sm_clock_mhz'), sorted(set(x['disposition'] for x in rows))))
PY
  done
  elapsed round$round; pack
done
