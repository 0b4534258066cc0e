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
# SUITE: a suite file or random:SEED:COUNT; the problems are B_BIN's
# `--list` of it with the bench arguments (--dtype fp32, --layout all, ...):
# B is the newer build, and A may predate `--list`.
# OUT: a folder, gets a.csv and b.csv (the two builds' rows) and summary.txt:
# per problem t_a / t_b (> 1: B faster) from tessel's own medians and through
# each build's ratio to cuBLASLt, their geometric means and the problems more
# than 2 % worse, over all problems and over those where both builds chose the
# same configuration (the `note` column); the worst ten by time.  Below ~50 us
# cuBLASLt's own median moves 2-10 % between the two runs of a problem, so
# the ratio carries its noise too: read both.
set -euo pipefail
a_bin=${1:?A_BIN}
b_bin=${2:?B_BIN}
suite=${3:?SUITE}
out=${4:?OUT}
shift 4
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$b_bin" bench gemm --suite "$suite" "$@" --list > "$work/all.csv"
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
import csv, math, re, sys
out, impl = sys.argv[1], sys.argv[2]
def rows(path):
    got = {}
    for r in csv.DictReader(open(path)):
        if r["impl"] == impl and r["disposition"] == "passed" and r["median_ms"]:
            got[(r["m"], r["n"], r["k"], r["layout"], r["dtype"], r["out_dtype"])] = r
    return got
def config(note):
    """(kernel, tile, splits, swapped) from either form of the note: the rules' or the model's."""
    m = re.search(r"model (k1\d):(\d+x\d+)(?::s(\d+))?(:swap)?", note)
    if m:
        return m[1], m[2], m[3] or "1", bool(m[4])
    m = re.search(r"(k1\d) (?:tile |pingpong 2x)(\d+x\d+)(?: splits (\d+))?( swapped)?", note)
    return (m[1], m[2], m[3] or "1", bool(m[4])) if m else note
a, b = rows(out + "/a.csv"), rows(out + "/b.csv")
x = []
for p in sorted(set(a) & set(b)):
    t = float(a[p]["median_ms"]) / float(b[p]["median_ms"])
    r = float(b[p]["ratio"]) / float(a[p]["ratio"]) if a[p]["ratio"] and b[p]["ratio"] else None
    x.append((t, r, config(a[p]["note"]) == config(b[p]["note"]), p, a[p]["note"], b[p]["note"]))
if not x:
    sys.exit("no problem passed in both builds")
def gm(z):
    return math.exp(sum(map(math.log, z)) / len(z)) if z else float("nan")
def line(name, sel):
    t = [v[0] for v in sel]
    r = [v[1] for v in sel if v[1] is not None]
    if t:
        print("%s: %d problems; by time geomean t_a / t_b %.4f, more than 2 %% worse %d, better %d; "
              "through cuBLASLt %.4f (%d), more than 2 %% worse %d"
              % (name, len(t), gm(t), sum(v < 0.98 for v in t), sum(v > 1.02 for v in t), gm(r), len(r),
                 sum(v < 0.98 for v in r)))
line("all", x)
line("same configuration (as the note names it)", [v for v in x if v[2]])
for t, r, same, p, na, nb in sorted(x, key=lambda v: v[0])[:10]:
    print("%.3f (ratio %s) %sx%sx%s %s %s/%s | A: %s | B: %s"
          % (t, "%.3f" % r if r else "-", p[0], p[1], p[2], p[3], p[4], p[5], na[:50], nb[:50]))
EOF
cat "$out/summary.txt"
