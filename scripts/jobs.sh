#!/usr/bin/env bash
# Prints how many compile jobs scripts/test.sh and scripts/setup.sh run:
# TESSEL_BUILD_JOBS where set, else one per core, at most one per 3 GiB of
# available memory (a kernel translation unit's nvcc takes up to ~3 GB), and
# never fewer than 2 (the build presets' own count, what CI's 2-core
# machine runs).  A 16-core GPU machine builds in about a quarter of the time
# the presets' 2 jobs take there.
set -euo pipefail
if [ -n "${TESSEL_BUILD_JOBS:-}" ]; then
  echo "$TESSEL_BUILD_JOBS"
  exit 0
fi
cores=$(nproc 2>/dev/null || echo 2)
mem_kib=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo 2>/dev/null || echo 0)
by_mem=$((mem_kib / (3 * 1024 * 1024)))
jobs=$cores
[ "$by_mem" -gt 0 ] && [ "$by_mem" -lt "$jobs" ] && jobs=$by_mem
[ "$jobs" -lt 2 ] && jobs=2
echo "$jobs"
