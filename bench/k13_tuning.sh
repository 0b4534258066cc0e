#!/usr/bin/env bash
# k13's tile width and split count, forced, on the shapes the plan decides
# (docs/heuristics.md): every width without a split on the square and llm
# shapes; widths x splits on the shapes whose tiles fill at most half the SMs.
# Each invocation also times cuBLASLt in the same run (ratio column).
#   bash bench/k13_tuning.sh OUTDIR [big|small|both]   (needs a GPU; TESSEL_BIN defaults to build/sm90a/tessel)
# WIDTHS (default "256 192 128 64") and SPLITS (default "1 2 3 4 6 8 12 16")
# narrow the sweep.  SWAP=on|off passes --swap-ab (widths 16, 32, 64 with
# SWAP=on: the swapped tile's width along M; WIDTHS="16 32 64" SWAP=on
# SPLITS="1 2 4" bash bench/k13_tuning.sh OUT small).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?output directory}
groups=${2:-both}
bin=${TESSEL_BIN:-build/sm90a/tessel}
swap=()
[ -n "${SWAP:-}" ] && swap=(--swap-ab "$SWAP")
mkdir -p "$out"
big=$(mktemp)
small=$(mktemp)
cat > "$big" <<'CSV'
group,m,n,k
square,2048,2048,2048
square,2560,2560,2560
square,3072,3072,3072
square,4096,4096,4096
square,5120,5120,5120
square,6144,6144,6144
llm,4096,6144,4096
llm,8192,8192,1024
skinny_k,8192,8192,256
CSV
cat > "$small" <<'CSV'
group,m,n,k
square,512,512,512
square,1024,1024,1024
square,1536,1536,1536
small_m,16,8192,8192
small_m,64,8192,8192
small_m,128,8192,8192
small_m,256,4096,4096
small_m,32,4096,4096
small_m,200,14336,4096
small_m,512,4096,4096
CSV
for bn in ${WIDTHS:-256 192 128 64}; do
  if [ "$groups" != small ]; then
    "$bin" bench gemm --suite "$big" --impl k13 --tile-n "$bn" --splits 1 "${swap[@]}" --csv "$out/big_n$bn.csv" 2>/dev/null
  fi
  [ "$groups" = big ] && continue
  for s in ${SPLITS:-1 2 3 4 6 8 12 16}; do
    "$bin" bench gemm --suite "$small" --impl k13 --tile-n "$bn" --splits "$s" "${swap[@]}" --csv "$out/small_n${bn}_s$s.csv" \
      2>/dev/null
  done
done
rm -f "$big" "$small"
# One file per group (the note column says the tile and the splits).
for g in big small; do
  ls "$out"/${g}_n*.csv > /dev/null 2>&1 || continue
  head -1 "$(ls "$out"/${g}_n*.csv | head -1)" > "$out/$g.csv"
  for f in "$out"/${g}_n*.csv; do tail -n +2 "$f" >> "$out/$g.csv"; done
  rm -f "$out"/${g}_n*.csv
done
