#!/usr/bin/env bash
# clang-format on the project's own C++/CUDA files (.clang-format).
#   bash scripts/format.sh           reformat in place
#   bash scripts/format.sh --check   list the files that need it and exit 1 (CI)
# Generated code (include/tessel/arch/sm90_wgmma.inc) is left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null 2>&1; then
  echo "tessel format: clang-format is missing (scripts/deps.sh installs it)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files 'include/*.hpp' 'include/*.cuh' 'src/*.cpp' 'src/*.cu' 'src/*.hpp' 'tools/*.cpp' \
  'tools/*.cu' 'tools/*.hpp' 'tests/*.cpp' 'tests/*.cu' 'tests/*.hpp' 'bench/*.cu' 'bench/*.cuh' 'python/*.cpp')
if [ "${1:-}" = "--check" ]; then
  bad=()
  for f in "${files[@]}"; do
    clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done
  if [ ${#bad[@]} -gt 0 ]; then
    printf 'tessel format: not clang-formatted: %s\n' "${bad[@]}"
    echo "tessel format: run bash scripts/format.sh"
    exit 1
  fi
  echo "tessel format: ${#files[@]} files clang-formatted"
  exit 0
fi
clang-format -i "${files[@]}"
