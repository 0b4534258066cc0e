#!/usr/bin/env bash
# Session 37, probe e: where v37b's loss at 512^3 and 1024^3 (+0.5-1 us on
# k13's 64 x 128 tile, probe d) comes from.  p0 and p1 = v37b with
# k13_n128.cu recompiled to issue 0 or 1 k-tile's loads before the CTA's
# barrier instead of kStages (p0 still initializes the barriers and works
# out the first unit in the producer's warp before the barrier).  cb, v37b,
# p1, p0 in turn, three rounds.
source bench/lab/probe_lib.sh
gpu_line
carried_bins
for b in v37b p0 p1; do mkdir -p /tmp/$b && tar xJf .carry/$b.txz -C /tmp/$b; done
summ() {
  python3 - "$1" <<'PY'
import collections, csv, statistics as st, sys
d = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r['impl'] != 'cublas': d[(int(r['m']), int(r['n']), int(r['k']))].append(r)
print(' | '.join('%dx%dx%d %.3f %.2f/%.2f us' % (*k, st.median(float(x['ratio']) for x in v),
      st.median(float(x['median_ms']) for x in v) * 1e3, st.median(float(x['cublas_median_ms']) for x in v) * 1e3)
      for k, v in sorted(d.items())))
PY
}
for round in 1 2 3; do
  for b in cb v37b p1 p0; do
    f="$R/small_${b}_r$round.csv"
    timeout 100 /tmp/$b/tessel bench gemm --suite bench/lab/s37_small_suite.csv --impl auto,cublas --repeat 3 \
      --csv "$f" > "${f%.csv}.log" 2>&1
    echo "$b r$round rc=$? $(summ "$f")"
  done
  elapsed round$round; pack
done
