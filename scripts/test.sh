#!/usr/bin/env bash
# The test command (README, .ci/run): install missing dependencies, build,
# run every test.  GPU tests skip with a message where no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
export PATH="$PATH:/usr/local/cuda/bin"
preset=$(bash scripts/preset.sh)
echo "tessel: preset $preset"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
ctest --preset "$preset" --output-on-failure
