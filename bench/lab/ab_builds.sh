#!/usr/bin/env bash
# Two builds of tessel on the same problems, on one GPU in one sitting: the
# problems in blocks of BLOCK (default 10), each block run by one build and
# then the other, the order alternating (A B, B A, A B, ...), each run
# `tessel bench gemm --impl IMPL,cublas` (IMPL default auto).  Each build's
# ratio to cuBLASLt comes from the same minutes of the card as the other's,
# so drift cancels twice: in the ratio and in the alternation.  What a "no
# speed lost" check between a change and its parent needs.
#
#   bench/lab/ab_builds.sh A_BIN B_BIN SUITE OUT [bench arguments...]
#
# SUITE: a suite file or random:SEED:COUNT; the problems are A_BIN's
# `--list` of it with the bench arguments (--dtype fp32, --layout all, ...).
# OUT: a folder, gets a.csv and b.csv (the two builds' rows) and summary.txt:
# per problem t_a / t_b (each through its ratio to cuBLASLt; > 1: B faster),
# their geometric mean, the problems more than 2 % worse, the worst ten.
set -euo pipefail
a_bin=${1:?A_BIN}
b_bin=${2:?B_BIN}
suite=${3:?SUITE}
out=${4:?OUT}
shift 4
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$a_bin" bench gemm --suite "$suite" "$@" --list > "$work/all.csv"
header=$(head -1 "$work/all.csv")
tail -n +2 "$work/all.csv" | split -l "${BLOCK:-10}" - "$work/block_"
rm -f "$out/a.csv" "$out/b.csv"
i=0
for block in "$work"/block_*; do
  { echo "$header"; cat "$block"; } > "$block.csv"
  order=(a b)
  [ $((i % 2)) = 1 ] && order=(b a)
  for who in "${order[@]}"; do
    bin=$a_bin
    [ "$who" = b ] && bin=$b_bin
    "$bin" bench gemm --suite "$block.csv" "$@" --impl "${IMPL:-auto},cublas" --csv "$work/$who.csv" > /dev/null
    if [ -s "$out/$who.csv" ]; then tail -n +2 "$work/$who.csv" >> "$out/$who.csv"; else cp "$work/$who.csv" "$out/$who.csv"; fi
  done
  i=$((i + 1))
done
python3 - "$out" "${IMPL:-auto}" > "$out/summary.txt" <<'EOF'
import csv, math, sys
out, impl = sys.argv[1], sys.argv[2]
def rows(path):
    got = {}
    for r in csv.DictReader(open(path)):
        if r["impl"] == impl and r["disposition"] == "passed" and r["ratio"]:
            got[(r["m"], r["n"], r["k"], r["layout"], r["dtype"], r["out_dtype"])] = r
    return got
a, b = rows(out + "/a.csv"), rows(out + "/b.csv")
both = sorted(set(a) & set(b))
x = [(float(b[p]["ratio"]) / float(a[p]["ratio"]), p, a[p]["note"], b[p]["note"]) for p in both]
if not x:
    sys.exit("no problem passed in both builds")
g = math.exp(sum(math.log(v) for v, *_ in x) / len(x))
print("%d problems in both; geomean t_a / t_b %.4f; more than 2 %% worse: %d; more than 2 %% better: %d"
      % (len(x), g, sum(v < 0.98 for v, *_ in x), sum(v > 1.02 for v, *_ in x)))
for v, p, na, nb in sorted(x)[:10]:
    print("%.3f %sx%sx%s %s %s/%s | A: %s | B: %s" % (v, p[0], p[1], p[2], p[3], p[4], p[5], na[:50], nb[:50]))
EOF
cat "$out/summary.txt"
