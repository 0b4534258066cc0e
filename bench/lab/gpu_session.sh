#!/usr/bin/env bash
# One device call's worth of GPU work, in parts that each fit a call of about
# ten minutes on a fresh machine (build included), writing few files straight
# into OUT (no archive: a call cut off at its limit still returns what is
# there) and one summary line per step to OUT/summary.txt.
#
#   bash bench/lab/gpu_session.sh OUT verify     # build + tests + sanitizers
#   bash bench/lab/gpu_session.sh OUT seed:S     # build + random:S:200, auto against cuBLASLt
#   bash bench/lab/gpu_session.sh OUT cluster:FILE  # k14's 2 x 2 clusters: tier 1, sanitizers, FILE's problems
#   bash bench/lab/gpu_session.sh OUT sanitize:k13,k14  # bench/sanitize.sh's parts, the log in OUT
#   bash bench/lab/gpu_session.sh OUT fp8        # build + FP8 tier 1, the suite against cuBLASLt's FP8, memcheck
#   bash bench/lab/gpu_session.sh OUT attention  # build + attention tests, memcheck, the steps at 8k, torch's SDPA
#   bash bench/lab/gpu_session.sh OUT attention_more  # racecheck, synccheck, 1k, GQA, packed lengths against SDPA
#   bash bench/lab/gpu_session.sh OUT split_sum:S,S  # split K summed by a second kernel: tests, tier 1, sanitizers,
#                                                    # the seeds' split problems with each sum against cuBLASLt
#   bash bench/lab/gpu_session.sh OUT small:S,S  # the seeds' problems of M, N, K <= 1024: auto and tuned against
#                                                # cuBLASLt, the tuning log
#   bash bench/lab/gpu_session.sh OUT copied:OLD  # calls on padded copies: the workspace tests, memcheck of
#                                                 # k13/k14 on copies, OLD's tessel against this build on them
#   bash bench/lab/gpu_session.sh OUT plan_ab:OLD  # a plan change: the problems of PLAN_SEEDS (7201-7208) whose
#                                                  # `--plan` differs between OLD's tessel and this build's, A/B on them;
#                                                  # OLD a tessel binary, or a source tree (an untracked
#                                                  # `git worktree add old <commit>`) built here beside this one
#   bash bench/lab/gpu_session.sh OUT revert_ab:DIFF  # plan_ab against this tree with DIFF reverted (patch -R):
#                                                     # a change to the model or the rules (`git diff OLD -- include
#                                                     # src`), rebuilt incrementally (seconds where only
#                                                     # gemm_model.hpp or gemm.cu moved; gemm_plan.hpp: all)
#   bash bench/lab/gpu_session.sh OUT kernels:FILE  # ncu's launch record (kernel name: tile, stages, cluster;
#                                                   # grid, threads, registers, shared memory, duration) of `auto`
#                                                   # and of cuBLASLt on FILE's problems: what each library runs
#
# verify: ctest over the kernels `auto` picks (k13, k14, k15, the small-M
# kernel, the plan's paths, the caller-owned workspace); compute-sanitizer
# racecheck and synccheck of the small-M kernel at its split shapes; tier 1
# of bench/tier1_small_m.csv with fp16 output.  seed:S: the distribution of
# the issue on any shape (docs/bench-protocol.md), 200 problems, its CSV in
# OUT/seedS.csv.  Extra CMake arguments (GTest_DIR, CLI11_INCLUDE_DIR on a
# machine without them installed) go in TESSEL_CMAKE_ARGS; TESSEL_PREBUILT=DIR runs a build made elsewhere.
set -uo pipefail
out=${1:?OUT}
part=${2:?verify or seed:S}
mkdir -p "$out"
build=${TESSEL_BUILD:-/tmp/tessel_gpu_build}
sum="$out/summary.txt"
step() {  # step NAME LIMIT_S COMMAND...: runs it, logs rc and seconds
  local name=$1 lim=$2
  shift 2
  local t0=$SECONDS
  timeout "$lim" "$@" > "/tmp/gpu_session_$name.log" 2>&1
  echo "$name rc=$? $((SECONDS - t0))s" >> "$sum"
  tail -3 "/tmp/gpu_session_$name.log" >> "$sum"
}
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader >> "$sum"
tests=OFF python=OFF
[[ "$part" = attention* ]] && python=ON  # the extension, for torch's SDPA in the same run
[ "$part" = verify ] || [ "$part" = fp8 ] || [ "$part" = attention ] || [[ "$part" = split_sum:* ]] ||
  [[ "$part" = copied:* ]] && tests=ON
if [ -n "${TESSEL_PREBUILT:-}" ]; then
  # A build made elsewhere for sm_90a (its tessel and tests/cuda/ in TESSEL_PREBUILT): no device time on compiling.
  build=$TESSEL_PREBUILT
  echo "prebuilt $build" >> "$sum"
else
  # shellcheck disable=SC2086 # TESSEL_CMAKE_ARGS is a list of arguments
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DTESSEL_BUILD_TESTS=$tests \
    -DTESSEL_BUILD_LADDER=ON -DTESSEL_LADDER_INSTANCES=one -DTESSEL_BUILD_PYTHON=$python ${TESSEL_CMAKE_ARGS:-} \
    > /tmp/gpu_session_cmake.log 2>&1
  targets=(tessel)
  [ "$part" = verify ] && targets+=(gemm_test gemm_workspace_test)
  [ "$part" = fp8 ] && targets+=(gemm_fp8_test)
  [ "$part" = attention ] && targets+=(attention_test tma_tile_test _tessel)
  [ "$part" = attention_more ] && targets+=(_tessel)
  [[ "$part" = split_sum:* ]] && targets+=(gemm_test)
  [[ "$part" = copied:* ]] && targets+=(gemm_workspace_test)
  step build 240 ninja -C "$build" -j16 "${targets[@]}"
fi
t="$build/tessel"
case "$part" in
  verify)
    step ctest 150 bash -c "cd '$build' && ctest -j14 --timeout 90 -R 'SmallM|WorkspaceCase|K13|K14|k13|k14|k15|Plan|Paths'"
    grep -E "\*\*\*Failed|tests passed" /tmp/gpu_session_ctest.log >> "$sum"
    for tool in racecheck synccheck; do
      for shape in "13 777 1001" "64 136 4096" "24 2048 640"; do
        # shellcheck disable=SC2086 # the shape is three words
        set -- $shape
        step "${tool}_$1x$2x$3" 40 compute-sanitizer --tool "$tool" --error-exitcode 9 --kernel-name kns=gemm_small_m \
          "$t" bench gemm --m "$1" --n "$2" --k "$3" --impl small_m --splits 3 --out-dtype fp32 --alpha 2 --beta -1 \
          --verify tier1 --order none
      done
    done
    step tier1_fp16 60 "$t" bench gemm --suite bench/tier1_small_m.csv --layout all --impl auto --verify tier1 \
      --order none --out-dtype fp16 --csv "$out/tier1_fp16.csv"
    ;;
  seed:*)
    s=${part#seed:}
    step "seed$s" 420 "$t" bench gemm --suite "random:$s:200" --impl auto,cublas --csv "$out/seed$s.csv"
    ;;
  cluster:*)
    f=${part#cluster:}
    for tm in 64 128; do
      step "t1_2x2_$tm" 60 "$t" bench gemm --suite bench/tier1_residues.csv --layout all --impl k14 --cluster 4 \
        --tile-m "$tm" --verify tier1 --order none --csv "/tmp/t1_2x2_$tm.csv"
      echo "t1_2x2_$tm: $(grep -c ',passed,' "/tmp/t1_2x2_$tm.csv") rows passed of $(($(wc -l < "/tmp/t1_2x2_$tm.csv") - 1))" >> "$sum"
    done
    for tool in racecheck synccheck; do
      step "${tool}_2x2" 60 compute-sanitizer --tool "$tool" --error-exitcode 9 "$t" bench gemm --m 300 --n 520 \
        --k 1000 --impl k14 --cluster 4 --tile-m 64 --verify tier1 --order none
    done
    step pairs 150 "$t" bench gemm --suite "$f" --impl k14,cublas --tile-m 64 --csv "$out/pairs.csv"
    step c2x2 150 "$t" bench gemm --suite "$f" --impl k14,cublas --cluster 4 --tile-m 64 --csv "$out/c2x2.csv"
    step auto 150 "$t" bench gemm --suite "$f" --impl auto,cublas --csv "$out/auto.csv"
    # k15's pingpong CTAs in pairs sharing B, against k15 (one run each, cuBLASLt in both): tier 1, then times.
    step t1_k15c 60 "$t" bench gemm --suite bench/tier1_residues.csv --layout all --impl k15 --cluster 2 \
      --verify tier1 --order none --csv /tmp/t1_k15c.csv
    echo "t1_k15c: $(grep -c ',passed,' /tmp/t1_k15c.csv) rows passed of $(($(wc -l < /tmp/t1_k15c.csv) - 1))" >> "$sum"
    step k15c 120 "$t" bench gemm --m 2048,4096 --n 2048,4096 --k 1024,4096 --impl k15,cublas --cluster 2 \
      --csv "$out/k15c.csv"
    step k15 120 "$t" bench gemm --m 2048,4096 --n 2048,4096 --k 1024,4096 --impl k15,cublas --csv "$out/k15.csv"
    ;;
  fp8)
    # FP8 (docs/fp8.md): the FP8 unit tests (every tile, scales, groups, batches, mixed formats); tier 1
    # over bench/tier1_residues.csv with K rounded up to a multiple of 16, promoted, fast, e5m2 with fp16
    # output and both mixed formats; the suite's shapes with K % 16 = 0 against cuBLASLt's FP8, promoted
    # and fast; memcheck at three shapes (swapped, 64-row, 128-row tiles).
    step gemm_fp8_test 120 "$build/tests/cuda/gemm_fp8_test"
    grep -E "^\[  (PASSED|FAILED) " /tmp/gpu_session_gemm_fp8_test.log >> "$sum"
    awk -F, '/^#/ || /^group/ {print; next} {print $1","$2","$3","int(($4 + 15) / 16) * 16}' \
      bench/tier1_residues.csv > /tmp/t1_fp8.csv
    for mode in promoted fast; do
      flag=""
      [ "$mode" = fast ] && flag=--fp8-fast-accum
      # shellcheck disable=SC2086 # the flag is one word or none
      step "t1_$mode" 90 "$t" bench gemm --suite /tmp/t1_fp8.csv --dtype e4m3 $flag --impl auto --verify tier1 \
        --order none --csv "$out/t1_fp8_$mode.csv"
      echo "t1_$mode: $(grep -c ',passed,' "$out/t1_fp8_$mode.csv") rows passed of 64" >> "$sum"
    done
    step t1_e5m2 90 "$t" bench gemm --suite /tmp/t1_fp8.csv --dtype e5m2 --out-dtype fp16 --alpha 2 --beta -1 \
      --impl auto --verify tier1 --order none --csv "$out/t1_fp8_e5m2.csv"
    for pair in e4m3xe5m2 e5m2xe4m3; do
      step "t1_$pair" 90 "$t" bench gemm --suite /tmp/t1_fp8.csv --dtype "$pair" --impl auto --verify tier1 \
        --order none --csv "$out/t1_fp8_$pair.csv"
      echo "t1_$pair: $(grep -c ',passed,' "$out/t1_fp8_$pair.csv") rows passed of 64" >> "$sum"
    done
    grep -v '^#' tests/data/bench_suite.csv | awk -F, 'NR == 1 || $4 % 16 == 0' > /tmp/suite_fp8.csv
    step suite_promoted 150 "$t" bench gemm --suite /tmp/suite_fp8.csv --dtype e4m3 --impl auto,cublas \
      --csv "$out/suite_fp8_promoted.csv"
    step suite_fast 150 "$t" bench gemm --suite /tmp/suite_fp8.csv --dtype e4m3 --fp8-fast-accum \
      --impl auto,cublas --csv "$out/suite_fp8_fast.csv"
    # The mixture-of-experts group against a loop of cuBLASLt calls: per-tensor (alpha) and block scales.
    for scale in none block; do
      step "moe_$scale" 120 "$t" bench gemm --grouped moe --dtype e4m3 --scale "$scale" --impl auto,cublas \
        --verify tier2 --csv "$out/moe_fp8_$scale.csv"
    done
    for shape in "5 4096 16384" "100 136 256" "1000 520 4096"; do
      # shellcheck disable=SC2086 # the shape is three words
      set -- $shape
      step "memcheck_fp8_$1x$2x$3" 40 compute-sanitizer --tool memcheck --error-exitcode 9 "$t" bench gemm --m "$1" \
        --n "$2" --k "$3" --dtype e4m3 --impl auto --verify tier1 --order none
    done
    ;;
  attention | attention_more)
    # Attention (docs/attention.md), in two calls' worth.  attention: the TmaTile round trips, the
    # unit tests (every step against fp64, the mask's edges exactly, packed sequences with NaN past
    # them, GQA), memcheck of a02-a08 at three shapes (a07 and a08 over several rounds a CTA), the steps against each other at 8k (d 128, both
    # masks) and tessel.attention against SDPA's cuDNN and FlashAttention backends there.
    # attention_more: racecheck and synccheck, 1k (batch 16, d 64-256), GQA 32/8 and a packed batch of
    # lengths 128-8192 against SDPA (nested jagged tensors), the Python tests.
    site=/tmp/gpu_session_site  # the package's Python files beside the build's extension
    rm -rf "$site" && mkdir -p "$site/tessel" && cp python/tessel/*.py "$site/tessel/"
    cp "$build"/python/_tessel*.so "$site/tessel/" 2>/dev/null
    tools=memcheck
    [ "$part" = attention_more ] && tools="racecheck synccheck"
    if [ "$part" = attention ]; then
      step tma_tile_test 60 "$build/tests/cuda/tma_tile_test"
      step attention_test 180 "$build/tests/cuda/attention_test"
      grep -E "^\[  (PASSED|FAILED) " /tmp/gpu_session_attention_test.log >> "$sum"
    fi
    for tool in $tools; do
      for shape in "130 64 0" "1000 128 1" "333 256 1"; do
        # shellcheck disable=SC2086 # the shape is three words
        set -- $shape
        mask=none
        [ "$3" = 1 ] && mask=causal
        step "${tool}_$1_d$2" 90 compute-sanitizer --tool "$tool" --error-exitcode 9 --kernel-name \
          kns=flash_forward "$t" bench attention --seq "$1" --dim "$2" --mask "$mask" --heads 2 \
          --impl a02,a03,a04,a05,a06 --verify-only
        # The persistent steps over more tiles than SMs (several rounds a CTA).
        step "${tool}_$1_d$2_persistent" 120 compute-sanitizer --tool "$tool" --error-exitcode 9 --kernel-name \
          kns=flash_forward "$t" bench attention --seq "$1" --dim "$2" --mask "$mask" --heads 14 --batch 10 \
          --impl a07,a08 --verify-only
      done
    done
    py=(env PYTHONPATH="$site" python)  # `step` runs a command, not a function
    if [ "$part" = attention ]; then
      step attn_8k 240 "$t" bench attention --seq 8192 --dim 128 --mask none,causal --impl a01,a02,a03,a04,a05,a06,a07,a08 \
        --csv "$out/attention_8k.csv"
      step sdpa_8k 180 "${py[@]}" -m tessel.bench attention --seq 8192 --dim 128 --mask none,causal \
        --csv "$out/attention_sdpa_8k.csv"
    else
      step attn_1k 120 "$t" bench attention --seq 1024 --batch 16 --dim 64,128,256 --mask none,causal \
        --impl a02,a03,a05,a06,a07,a08 --csv "$out/attention_1k.csv"
      step pytest_attention 120 "${py[@]}" -m pytest -q -rs -p no:cacheprovider python/tests/test_attention.py
      step sdpa_more 240 "${py[@]}" -m tessel.bench attention --seq 1024 --batch 16 --dim 64,128,256 \
        --mask none,causal \
        --csv "$out/attention_sdpa_1k.csv"
      step sdpa_gqa 120 "${py[@]}" -m tessel.bench attention --seq 8192 --heads 32 --kv-heads 8 --mask none,causal \
        --csv "$out/attention_sdpa_gqa.csv"
      step sdpa_varlen 120 "${py[@]}" -m tessel.bench attention --varlen --seq 8192 --batch 4 --mask none,causal \
        --csv "$out/attention_sdpa_varlen.csv"
    fi
    ;;
  split_sum:*)
    # Split K summed by a second kernel (GemmTuning::split_sum, docs/heuristics.md): its unit tests
    # (tier 1 sweeps of six split tiles, the last unit's bits on random inputs, streams, graphs); tier 1
    # over the residue sweep with every tile split 4 ways; the sanitizers on an unswapped and a swapped
    # split; then the problems of the seeds that the plan splits, `auto` against cuBLASLt once with each
    # sum (those split inside clusters are unchanged: the runs' noise).
    step ctest 240 bash -c "cd '$build' && ctest -j8 --timeout 200 -R 'SplitApart'"
    grep -E "\*\*\*Failed|tests passed" /tmp/gpu_session_ctest.log >> "$sum"
    # k13 named (auto could take k14, whose split takes no --cluster 1); K under 4 k-tiles: not_supported rows.
    step t1_apart 120 "$t" bench gemm --suite bench/tier1_residues.csv --layout all --impl k13 --splits 4 --cluster 1 \
      --split-sum kernel --out-dtype fp32 --alpha 2 --beta -1 --verify tier1 --order none --csv "$out/t1_apart.csv"
    echo "t1_apart: $(grep -c ',passed,' "$out/t1_apart.csv") rows passed, $(grep -c ',not_supported,' \
      "$out/t1_apart.csv") not supported, of $(($(wc -l < "$out/t1_apart.csv") - 1))" >> "$sum"
    for tool in memcheck racecheck synccheck; do
      for shape in "300 700 64 off" "40 3000 64 on"; do
        # shellcheck disable=SC2086 # the shape is four words
        set -- $shape
        step "${tool}_apart_$1x$2" 60 compute-sanitizer --tool "$tool" --error-exitcode 9 "$t" bench gemm --m "$1" \
          --n "$2" --k 2432 --impl k13 --tile-n "$3" --swap-ab "$4" --splits 6 --split-sum kernel --verify tier1 \
          --order none
      done
    done
    rm -f /tmp/split_plans.csv
    seeds=${part#split_sum:}
    for s in ${seeds//,/ }; do
      "$t" bench gemm --suite "random:$s:200" --plan >> /tmp/split_plans.csv
    done
    # The suite's columns of the k13 rows split without a split tail.  The layout ("A:k,B:n") holds a comma,
    # so awk's fields are the suite's 1-10, then batch, impl, tile_m, tile_n, splits, swap_ab, split_tail 11-17.
    { echo "group,m,n,k,dtype,out_dtype,layout,alpha,beta"
      awk -F, '$12 == "k13" && $15 > 1 && $17 == 0 {
        print $1","$2","$3","$4","$5","$6","$7","$8","$9","$10}' /tmp/split_plans.csv; } > "$out/split_suite.csv"
    echo "split problems: $(($(wc -l < "$out/split_suite.csv") - 1))" >> "$sum"
    for who in last kernel; do
      step "split_$who" 200 "$t" bench gemm --suite "$out/split_suite.csv" --impl auto,cublas --split-sum "$who" \
        --csv "$out/split_$who.csv"
    done
    ;;
  small:*)
    # The fixed cost's problems (M, N, K <= 1024) of the seeds: `auto`, then measured tuning, each against
    # cuBLASLt; the tuning log holds every configuration's time (the model's next fit).
    seeds=${part#small:}
    rm -f /tmp/small_plans.csv
    for s in ${seeds//,/ }; do
      "$t" bench gemm --suite "random:$s:200" --plan >> /tmp/small_plans.csv
    done
    # The suite's columns (awk's 1-10: the layout holds a comma) of the rows within 1024 (headers skipped).
    { echo "group,m,n,k,dtype,out_dtype,layout,alpha,beta"
      awk -F, '$2 ~ /^[0-9]+$/ && $2 <= 1024 && $3 <= 1024 && $4 <= 1024 {
        print $1","$2","$3","$4","$5","$6","$7","$8","$9","$10}' /tmp/small_plans.csv; } > "$out/small_suite.csv"
    echo "small problems: $(($(wc -l < "$out/small_suite.csv") - 1))" >> "$sum"
    step small_auto 150 "$t" bench gemm --suite "$out/small_suite.csv" --impl auto,cublas --csv "$out/small_auto.csv"
    export TESSEL_TUNE_CACHE=/tmp/small_tune_cache TESSEL_TUNE_LOG="$out/small_tune_log.tsv"
    rm -rf "$TESSEL_TUNE_CACHE"
    step small_tuned 300 "$t" bench gemm --suite "$out/small_suite.csv" --impl tuned,cublas --csv "$out/small_tuned.csv"
    ;;
  copied:*)
    # Calls whose operand is copied into padded rows first (N or K off a multiple of 8): the kept copies and the
    # GEMM launched as the copy's programmatic dependent.  The workspace tests; memcheck of k13 and k14 with A
    # copied and of swapped k13 with B copied; then the problems of six seeds with M, N, K <= 2048 and N or K off
    # a multiple of 8 (about 46, of which the small-M kernel's read rows as they are: a control), OLD's tessel
    # against this build's in alternating blocks (ab_builds.sh).
    old=${part#copied:}
    [ -x "$build/tests/cuda/gemm_workspace_test" ] && step ws 60 "$build/tests/cuda/gemm_workspace_test" --gtest_brief=1
    for shape in "300 520 333 k13 --swap-ab off" "256 1000 1001 k14" "40 777 2048 k13 --swap-ab on"; do
      # shellcheck disable=SC2086 # the shape is four words and the step's arguments
      set -- $shape
      step "memcheck_$4_$1x$2x$3" 60 compute-sanitizer --tool memcheck --error-exitcode 9 --kernel-name-exclude kns=nvjet \
        "$t" bench gemm --m "$1" --n "$2" --k "$3" --impl "$4" "${@:5}" --verify tier1 --order none
    done
    for s in 2027 8086 31415 27182 4321 5150; do "$t" bench gemm --suite "random:$s:200" --list; done > /tmp/copied_all.csv
    { head -1 /tmp/copied_all.csv
      awk -F, '$2 ~ /^[0-9]+$/ && $2 <= 2048 && $3 <= 2048 && $4 <= 2048 && ($3 % 8 || $4 % 8)' /tmp/copied_all.csv; } \
      > "$out/copied_suite.csv"
    echo "copied problems: $(($(wc -l < "$out/copied_suite.csv") - 1))" >> "$sum"
    step copied_ab 300 env BLOCK=8 bash bench/lab/ab_builds.sh "$old" "$t" "$out/copied_suite.csv" "$out/copied_ab"
    head -3 "$out/copied_ab/summary.txt" >> "$sum" 2>/dev/null
    ;;
  plan_ab:* | revert_ab:*)
    # The problems whose plan OLD's tessel and this build's differ on (the kernel columns of `--plan`: awk's 12-18, the
    # layout holding a comma), then the two builds on them in alternating blocks: what a change of the plan moves.
    old=${part#plan_ab:}
    if [[ "$part" = revert_ab:* ]]; then
      # The tree before DIFF: this build kept aside, DIFF reverted, rebuilt and copied, the tree restored.
      cp "$t" /tmp/tessel_new
      diff=${part#revert_ab:}
      if ! patch -p1 -R < "$diff" > /tmp/gpu_session_patch.log 2>&1; then
        # Nothing to compare against: say so rather than time this build against itself.
        { echo "revert_ab: $diff does not revert on this tree"; tail -3 /tmp/gpu_session_patch.log; } >> "$sum"
        exit 1
      fi
      step build_old 240 ninja -C "$build" -j16 tessel
      cp "$t" /tmp/tessel_old
      patch -p1 < "$diff" >> /tmp/gpu_session_patch.log 2>&1
      tail -2 /tmp/gpu_session_patch.log >> "$sum"
      old=/tmp/tessel_old t=/tmp/tessel_new
    fi
    if [ -d "$old" ]; then
      # A source tree: built like this one (tessel only), so that a plan change is timed against its parent.
      # shellcheck disable=SC2086 # TESSEL_CMAKE_ARGS is a list of arguments
      cmake -S "$old" -B /tmp/tessel_old_build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON \
        -DTESSEL_BUILD_TESTS=OFF -DTESSEL_BUILD_LADDER=ON -DTESSEL_LADDER_INSTANCES=one ${TESSEL_CMAKE_ARGS:-} \
        > /tmp/gpu_session_cmake_old.log 2>&1
      step build_old 240 ninja -C /tmp/tessel_old_build -j16 tessel
      old=/tmp/tessel_old_build/tessel
    fi
    echo "group,m,n,k,dtype,out_dtype,layout,alpha,beta" > "$out/plan_changed.csv"
    for s in ${PLAN_SEEDS:-7201 7202 7203 7204 7205 7206 7207 7208}; do
      "$old" bench gemm --suite "random:$s:200" --plan > /tmp/plan_old.csv
      "$t" bench gemm --suite "random:$s:200" --plan > /tmp/plan_new.csv
      paste -d'|' /tmp/plan_old.csv /tmp/plan_new.csv | awk -F'|' 'NR > 1 {
        split($1, a, ","); split($2, b, ","); moved = 0
        for (i = 12; i <= 18; ++i) if (a[i] != b[i]) moved = 1
        if (moved) print a[1]","a[2]","a[3]","a[4]","a[5]","a[6]","a[7]","a[8]","a[9]","a[10] }'
    done | awk '!seen[$0]++' >> "$out/plan_changed.csv"
    echo "plan changed: $(($(wc -l < "$out/plan_changed.csv") - 1)) problems" >> "$sum"
    step plan_ab 400 env BLOCK=8 bash bench/lab/ab_builds.sh "$old" "$t" "$out/plan_changed.csv" "$out/plan_ab"
    head -3 "$out/plan_ab/summary.txt" >> "$sum" 2>/dev/null
    ;;
  kernels:*)
    # One verified call of each library a problem (no timing), each kernel it launches profiled for its launch
    # record; durations at ncu's own clock with its caches flushed, so they compare only within the file.
    f=${part#kernels:}
    step kernels 420 ncu --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__cluster_dim_x,\
launch__cluster_dim_y,launch__registers_per_thread,launch__shared_mem_per_block_dynamic --csv \
      -k regex:'nvjet|splitK|Kernel|gemm|sm90' "$t" bench gemm --suite "$f" --impl auto,cublas --verify tier2 \
      --order none --csv "$out/kernels_rows.csv"
    cp /tmp/gpu_session_kernels.log "$out/kernels.csv"  # ncu's rows (quoted) and the bench's summary
    ;;
  sanitize:*)
    # bench/sanitize.sh's parts, comma-separated; one log in OUT, its last line in the summary.
    parts=${part#sanitize:}
    # shellcheck disable=SC2086 # the parts are words
    step sanitize 420 env TESSEL_BIN="$t" bash bench/sanitize.sh ${parts//,/ }
    cp /tmp/gpu_session_sanitize.log "$out/sanitizer_${parts//,/_}.log"
    ;;
  *)
    echo "gpu_session.sh: unknown part '$part' (verify, seed:S, cluster:FILE, fp8, attention, attention_more, split_sum:S,S, small:S,S, copied:OLD, plan_ab:OLD, revert_ab:DIFF, kernels:FILE or sanitize:PARTS)" >&2
    exit 2
    ;;
esac
