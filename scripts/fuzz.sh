#!/usr/bin/env bash
# Runs the two libFuzzer targets (tests/fuzz/README.md) under AddressSanitizer
# and UBSan, side by side, for SECONDS each (default: $TESSEL_FUZZ_SECONDS, else
# 60, inside issue 10's 60-120 s, to keep the CI within its 25 minutes;
# 0 skips).  Seeds: the golden expressions, the regression inputs and the
# corpus of earlier runs in build/fuzz/corpus.  Exits non-zero on a finding,
# with the input saved under build/fuzz/findings/ and the report printed;
# turn such an input into a file of tests/fuzz/regressions/ with the fix.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-${TESSEL_FUZZ_SECONDS:-60}}
if [ "$secs" = 0 ]; then
  echo "tessel fuzz: skipped (TESSEL_FUZZ_SECONDS=0)"
  exit 0
fi
if ! command -v clang++ >/dev/null 2>&1; then
  echo "tessel fuzz: clang++ is missing (scripts/deps.sh installs it)" >&2
  exit 1
fi
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
out=build/fuzz
bin=$out/tests/fuzz
mkdir -p "$out/corpus/calc" "$out/corpus/algebra" "$out/findings" "$out/seeds"
# One seed file per golden expression (the text before the TAB).
cut -f1 tests/data/layout_algebra.tsv tests/data/layout_algebra_errors.tsv |
  awk -v d="$out/seeds" '{ f = sprintf("%s/golden%05d", d, NR); printf "%s", $0 > f; close(f) }'
common=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/findings/")
"$bin/fuzz_calc" "${common[@]}" -max_len=4096 -dict=tests/fuzz/calc.dict \
  "$out/corpus/calc" "$out/seeds" tests/fuzz/regressions/calc >"$out/fuzz_calc.log" 2>&1 &
calc_pid=$!
"$bin/fuzz_algebra" "${common[@]}" -max_len=512 "$out/corpus/algebra" >"$out/fuzz_algebra.log" 2>&1 &
algebra_pid=$!
status=0
wait $calc_pid || status=1
wait $algebra_pid || status=1
for t in fuzz_calc fuzz_algebra; do
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log")
  if grep -q -E 'ERROR: |tessel fuzz oracle|runtime error' "$out/$t.log"; then
    status=1
    echo "tessel fuzz: $t found a problem; the input is in $out/findings/:"
    grep -E -A 25 'ERROR: |tessel fuzz oracle|runtime error' "$out/$t.log" | head -n 60
  else
    echo "tessel fuzz: $t ran ${runs:-?} inputs in ${secs} s under ASan+UBSan: no crash, no sanitizer report, every check held"
  fi
done
exit $status
