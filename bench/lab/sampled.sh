#!/usr/bin/env bash
# Runs a command while nvidia-smi samples the SM clock, board power and GPU
# temperature every 50 ms; prints the command's output, then one line with
# the means over the samples in which the GPU was busy (utilization >= 50 %,
# so a program's host-side set-up is left out; for `sleep`, all samples) and
# the throttle reasons seen.
#   bash bench/lab/sampled.sh LABEL CMD [ARGS...]
set -uo pipefail
label=$1
shift
tmp=$(mktemp)
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active,utilization.gpu \
  --format=csv,noheader,nounits -lms 50 > "$tmp" &
smi=$!
"$@"
rc=$?
kill "$smi"
wait "$smi" 2>/dev/null
busy=50
[ "$1" = sleep ] && busy=0
awk -F', *' -v l="$label" -v busy=$busy '$5 >= busy {c += $1; p += $2; t += $3; n++; r[$4] = 1}
  END {if (n) {s = ""; for (k in r) s = s " " k; printf "sampled %-14s mean SM clock %.0f MHz, power %.0f W, %.0f C (%d samples; throttle reasons%s)\n", l, c/n, p/n, t/n, n, s}}' "$tmp"
rm -f "$tmp"
exit $rc
