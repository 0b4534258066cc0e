#!/usr/bin/env bash
# Golden file through `tessel layout --batch` and the reference checker.
# usage: TESSEL=... PYTHON=... golden_cli.sh CASES.tsv ACTUAL.tsv
set -euo pipefail
cases=$1 actual=$2
here=$(cd "$(dirname "$0")" && pwd)
"$TESSEL" layout --batch "$cases" > "$actual"
"$PYTHON" "$here/data/layout_check.py" "$cases" "$actual"
