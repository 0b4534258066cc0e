#!/usr/bin/env bash
# bench/lab/probe_lib.sh — what every device probe repeats, sourced by
# bench/lab/probe_s25*.sh and later ones (the session-19..24 probes each carry
# their own copy of it).  On the device machine: results go under $OUT/r and
# are packed into $OUT/results.tgz after each step, so that a run cut short
# still brings back what it measured.
#   source bench/lab/probe_lib.sh
#   build_cli [targets...]        Release build under /tmp/bn (default tessel_cli gemm_test)
#   medians CSV                   median ratio / TFLOP/s / clock / power per (shape, layout, impl)
set -uo pipefail
OUT=${OUT:-/tmp/out}
R=$OUT/r
mkdir -p "$R"
t0=$(date +%s)
pack() { tar czf "$OUT/results.tgz" -C "$OUT" r; }
elapsed() { echo "$1 $(($(date +%s) - t0)) s"; }
gpu_line() { nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader; }
build_cli() {
  local targets=("$@")
  [ ${#targets[@]} -eq 0 ] && targets=(tessel_cli gemm_test)
  cmake -S . -B /tmp/bn -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER=nvcc > "$R/cmake.log" 2>&1
  local rc=0
  for t in "${targets[@]}"; do
    cmake --build /tmp/bn -j16 --target "$t" >> "$R/build.log" 2>&1 || rc=$?
  done
  elapsed "build rc=$rc"
  return $rc
}
medians() {
  python3 - "$1" <<'PY'
import collections, csv, statistics as st, sys
d = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    d[(int(r['m']), int(r['n']), int(r['k']), r.get('layout', ''), r['impl'])].append(r)
for key in sorted(d):
    rows = d[key]
    med = lambda c: st.median(float(x[c]) for x in rows if x.get(c) not in (None, ''))
    try:
        extra = ' %4.0f MHz %4.0f W' % (med('sm_clock_mhz'), med('power_w'))
    except (ValueError, st.StatisticsError):
        extra = ''
    print('%5dx%5dx%5d %-8s %-7s ratio %.3f  %7.1f TFLOP/s%s  %s' % (*key, med('ratio'), med('tflops'), extra,
          sorted(set(x['disposition'] for x in rows))))
PY
}
# ratio_line CSV: one line, each shape's median t_cublas / t over the rows
# of every implementation but cuBLASLt, " FAIL" after a shape with a row
# that did not pass (sessions 37-38's probes).
ratio_line() {
  python3 - "$1" <<'PY'
import collections, csv, statistics as st, sys
d = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r['impl'] != 'cublas': d[(int(r['m']), int(r['n']), int(r['k']))].append(r)
print(' | '.join('%dx%dx%d %.3f' % (*k, st.median(float(x['ratio']) for x in v)) +
      ('' if all(x['disposition'] == 'passed' for x in v) else ' FAIL') for k, v in sorted(d.items())))
PY
}
# carried_bins: binaries built on the 2-core machine instead of here
# (bench/lab/pack_bins.sh BUILD_DIR writes .carry/bins.txz, ~3 MB for the CLI
# and gemm_test; the run call names .carry in carry).  They land in /tmp/cb
# with the build tree's relative paths: /tmp/cb/tessel,
# /tmp/cb/tests/cuda/gemm_test.  Saves the ~210 s CLI build on a fresh machine.
carried_bins() {
  export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
  mkdir -p /tmp/cb && tar xJf .carry/bins.txz -C /tmp/cb
}
# ab_sweep ROUNDS "BIN..." "BATCH M N K"...: strided batches timed against
# cuBLASLt for CLIs carried as .carry/BIN.txz (untarred to /tmp/BIN), the
# binaries alternating within each round; one CSV per (shape, bin, round),
# auto's median line printed.  Session 34's probes g-o repeat this loop.
ab_sweep() {
  local rounds=$1 bins=$2; shift 2
  export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
  for b in $bins; do [ -x /tmp/$b/tessel ] || { mkdir -p /tmp/$b && tar xJf .carry/$b.txz -C /tmp/$b; }; done
  local shp round b f
  for shp in "$@"; do
    set -- $shp
    for round in $(seq 1 "$rounds"); do
      for b in $bins; do
        f="$R/b${1}_${2}x${3}x${4}_${b}_r${round}.csv"
        timeout 100 /tmp/$b/tessel bench gemm --batch $1 --m $2 --n $3 --k $4 --impl auto,cublas --repeat 3 --csv "$f" > /dev/null 2>&1
        echo "$shp $b r$round: $(medians "$f" | grep auto)"
      done
    done
    pack
  done
}
# carried BIN...: untar each .carry/BIN.txz (bench/lab/pack_bins.sh's
# bins.txz renamed) into /tmp/BIN, for binaries compared in one probe
# (session 39's old and new).
carried() {
  export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
  local b
  for b in "$@"; do mkdir -p /tmp/$b && tar xJf .carry/$b.txz -C /tmp/$b; done
}
# alone_line CSV: one line for a problem timed alone (--order blocks):
# the median t_cublas / t over the rows of every implementation but
# cuBLASLt, each repeat's ratio, the median SM clock and board power of
# ours and cuBLASLt's clock, the kernel (note) and the dispositions
# (session 39's probes).
alone_line() {
  python3 - "$1" <<'PY'
import csv, statistics as st, sys
v = [r for r in csv.DictReader(open(sys.argv[1])) if r['impl'] != 'cublas']
rs = sorted(float(x['ratio']) for x in v)
print('%sx%sx%s ratio %.3f (%s) ours %.0f MHz %.0f W cublas %.0f MHz %s %s' % (v[0]['m'], v[0]['n'], v[0]['k'],
      st.median(rs), ' '.join('%.3f' % x for x in rs), st.median(float(x['sm_clock_mhz']) for x in v),
      st.median(float(x['power_w']) for x in v), st.median(float(x['cublas_sm_clock_mhz']) for x in v),
      v[0]['note'], sorted(set(x['disposition'] for x in v))))
PY
}
# sanitize LOG BIN "ARGS" "M N K"...: compute-sanitizer memcheck, synccheck
# and racecheck on `BIN bench gemm` with ARGS (the implementation) at each
# shape, verified tier 1, an "== tool shape" line and an "exit N" line per
# run in LOG (the loop of sessions 37-39's probes), then a summary.
sanitize() {
  local log=$1 bin=$2 args=$3 tool shp; shift 3
  local shapes=("$@")
  for tool in memcheck synccheck racecheck; do
    for shp in "${shapes[@]}"; do
      set -- $shp
      echo "== $tool M=$1 N=$2 K=$3" >> "$log"
      # shellcheck disable=SC2086
      timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 "$bin" bench gemm --m $1 --n $2 --k $3 $args \
        --verify tier1 --order none >> "$log" 2>&1
      echo "exit $?" >> "$log"
    done
    pack
  done
  grep -c "^exit 0" "$log"; grep "^exit [^0]" "$log" | sort | uniq -c
  grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$log" | sort | uniq -c
}
