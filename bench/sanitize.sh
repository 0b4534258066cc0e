#!/usr/bin/env bash
# compute-sanitizer (memcheck, racecheck, synccheck) of every GEMM kernel through
# `tessel bench gemm --verify tier1 --order none` (verification launches only: the
# timed loop's thousands of launches make the tools run out of memory), in parts
# that each fit a device call of about ten minutes.  Needs a GPU.
#
#   bash bench/sanitize.sh PART... > sanitizer_<part>_<gpu>.log
#
# PART: ladder (k04-k12), k13, k14, k15, batched (k13's and k15's batched and
# grouped kernels), small_m, fp32 (f08-f12), clusters (k14 on 2 x 2 clusters,
# k15 on pairs: TESSEL_BUILD_LADDER builds only), or all.  Each run prints
# "== PART LABEL TOOL SHAPE", the tool's report and "exit RC"; the last line
# counts the runs and those that failed (RC != 0: an error found, a failed
# verification, or the time limit).  TESSEL_BIN: the CLI (default
# build/sm90a/tessel); TOOLS: the tools (default all three); DRY=1 prints the
# commands instead of running them.
#
# The table: part | label | kernels instrumented (--kernel-name kns=..., - for
# every tessel kernel: the verification runs cuBLASLt once, and racecheck reports
# hazards inside its nvjet kernels that are not tessel's to fix) | shapes |
# arguments.  A shape is M:N:K, or B:M:N:K for a strided batch; a trailing !
# runs it under memcheck only (racecheck takes minutes a launch there).  With
# --group-m the shape gives N and K, and {M} in the arguments is its M.  Why
# these shapes: partial tiles with D rows unaligned (257x129x192: row stores),
# A rows TMA cannot read (K = 65: the padded copy), whole tiles (TMA stores),
# and the kernel's own paths (split K's last unit, both pingpong warpgroups,
# stream-K's shared tiles, small M's row chunks).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
bin=${TESSEL_BIN:-build/sm90a/tessel}
[ $# -ge 1 ] || { sed -n '2,17p' "$0"; exit 2; }
table='
ladder |k04-k12 |- |257:129:192 128:256:64 1000:1000:65 |--impl k04,k05,k06,k07,k08,k09,k10,k11,k12
k13    |plan |- |257:129:192 1000:1000:65 128:256:1024 |--impl k13
k13    |128x192 split 3 |- |257:129:192 1000:1000:65 128:256:1024 |--impl k13 --tile-n 192 --splits 3
k13    |128x256 bias_relu |- |257:129:192 1000:1000:65 1024:1024:1024! |--impl k13 --tile-n 256 --epilogue bias_relu
k13    |128x128 split tail |- |2048:1152:1024! 1700:1300:320 1000:1000:65 |--impl k13 --tile-n 128 --splits 2 --split-tail
k13    |64x128 split 2 |- |257:129:192 1000:1000:65 1024:1024:1024! |--impl k13 --swap-ab off --tile-m 64 --splits 2
k13    |swapped 64x16 |- |7:896:1408 13:768:1968 3:400:9368 |--impl k13 --swap-ab on --tile-m 64 --tile-n 16 --splits 3 --alpha 3
k13    |swapped 128x32, split in clusters |- |30:2432:1624 17:300:192 16:8192:1024 |--impl k13 --swap-ab on --tile-n 32 --splits 3
k13    |swapped 64x16, split in clusters |- |13:777:1001 30:2432:1624 64:8192:1024 |--impl k13 --swap-ab on --tile-m 64 --tile-n 16 --splits 8 --alpha 2 --beta -1
k13    |swapped 64x32, split in memory |- |30:2432:1624 17:300:192 16:8192:1024 |--impl k13 --swap-ab on --tile-m 64 --tile-n 32 --splits 3 --cluster 1
k13    |swapped 64x64 fp32 D |- |17:300:192 64:1000:65 40:8192:256 |--impl k13 --swap-ab on --tile-m 64 --tile-n 64 --out-dtype fp32
k13    |swapped 64x96 |- |40:1000:192 64:777:1001 48:2048:640 |--impl k13 --swap-ab on --tile-m 64 --tile-n 96 --splits 2
k14    |pairs 64x128 |- |257:129:192 1000:1000:65 1024:1024:1024! |--impl k14 --tile-m 64
k14    |pairs plan |- |257:129:192 1000:1000:65 128:256:1024 |--impl k14
k14    |pairs 128x64 |- |257:129:192 1000:1000:65 128:256:1024 |--impl k14 --tile-n 64
k15    |pingpong |pingpong |257:129:192 1000:1000:65 2048:2048:128 |--impl k15
k15    |pingpong bias_relu |pingpong |257:129:192 1000:1000:65 2048:2048:128 |--impl k15 --epilogue bias_relu
batched|k15 batched |pingpong_grouped |3:257:129:192 4:1000:1000:65 32:512:512:128 |--impl k15
batched|k13 batched |- |3:257:129:192 4:1000:1000:65 8:512:512:128 |--impl k13
batched|grouped |- |257:129:192 1000:1000:65 1024:1024:1024! |--impl auto --group-m 100,{M}
small_m|M 13 split 3 |gemm_small_m |13:777:1001 1:1024:1000 7:129:650 |--impl small_m --splits 3
small_m|M 64 fp32 D, C |gemm_small_m |64:136:4096 24:2048:640 13:777:1001 |--impl small_m --splits 3 --out-dtype fp32 --alpha 2 --beta -1
fp32   |f08 |thread_tile |256:128:64 515:260:77 1024:1024:1024! |--dtype fp32 --impl f08
fp32   |f10 |tma_loads |256:128:64 515:260:77 1024:1024:1024! |--dtype fp32 --impl f10 --layout A:m,B:n
fp32   |f11 |stream_k |256:128:64 515:260:2100 256:512:4224 |--dtype fp32 --impl f11
fp32   |f12 |transpose |256:128:64 515:260:2100 256:512:4224 |--dtype fp32 --impl f12
clusters|k14 2x2 |- |300:520:1000 257:129:192 1000:1000:65 |--impl k14 --cluster 4 --tile-m 64
clusters|k15 pairs |pingpong |257:129:192 1000:1000:65 2048:2048:128 |--impl k15 --cluster 2
'
trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; echo "${s%"${s##*[![:space:]]}"}"; }
runs=0 failed=0
while IFS='|' read -r part label kernels shapes args; do
  part=$(trim "$part") label=$(trim "$label") kernels=$(trim "$kernels")
  [ -n "$part" ] || continue
  want=0
  for p in "$@"; do [ "$p" = all ] || [ "$p" = "$part" ] && want=1; done
  [ $want = 1 ] || continue
  for tool in ${TOOLS:-memcheck racecheck synccheck}; do
    for shape in $shapes; do
      heavy=0
      case $shape in *!) heavy=1 shape=${shape%!} ;; esac
      [ $heavy = 1 ] && [ "$tool" != memcheck ] && continue
      IFS=: read -r -a d <<< "$shape"
      if [ ${#d[@]} = 4 ]; then dims=(--batch "${d[0]}" --m "${d[1]}" --n "${d[2]}" --k "${d[3]}")
      elif [[ $args == *--group-m* ]]; then dims=(--n "${d[1]}" --k "${d[2]}")
      else dims=(--m "${d[0]}" --n "${d[1]}" --k "${d[2]}"); fi
      filter=(--kernel-name "kns=${kernels/#-/tessel}")
      echo "== $part $label $tool $shape"
      run=()
      [ -n "${DRY:-}" ] && run=(echo)
      # shellcheck disable=SC2086 # the table's arguments are words
      "${run[@]}" timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 "${filter[@]}" "$bin" bench gemm "${dims[@]}" \
        ${args//\{M\}/${d[0]}} --verify tier1 --order none 2>&1 | grep -v "^NVIDIA\|^gpu,"
      rc=${PIPESTATUS[0]}
      echo "exit $rc"
      runs=$((runs + 1))
      [ "$rc" = 0 ] || failed=$((failed + 1))
    done
  done
done <<< "$table"
echo "sanitize.sh $*: $runs runs, $failed failed"
