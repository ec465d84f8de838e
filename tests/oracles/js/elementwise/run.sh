#!/usr/bin/env bash
# Measures LiteRT.js's ADD / SUB / MUL against include/qparity/reference/elementwise.h.
#
#   bash tests/oracles/js/elementwise/run.sh [WORK_DIR]
#
# Writes the inputs (make_models.py inputs), compiles the committed model JSON files with flatc,
# runs every model through run_tflite.cjs --batch (XNNPACK path and TFLite-kernel path), builds
# compare_elementwise.cc (header-only, g++) and prints its per-model lines and summary table.
# WORK_DIR defaults to a fresh temporary directory (kept, its path printed). Needs node, npm
# packages installed (cd tests/oracles/js && npm ci --ignore-scripts), flatc, python3 + numpy, g++.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
JS="$(dirname "$HERE")"
ROOT="$(cd "$JS/../../.." && pwd)"
SCHEMA="$ROOT/tools/model/tflite/tflite_subset.fbs"
PY="${PYTHON:-/usr/bin/python3}"
W="${1:-$(mktemp -d)}"
mkdir -p "$W/in" "$W/models" "$W/run"
echo "elementwise oracle: work dir $W" >&2

"$PY" "$HERE/make_models.py" inputs "$W/in"
flatc --binary -o "$W/models" "$SCHEMA" "$HERE"/models/*.json
: >"$W/jobs.txt"
grep -v '^#' "$W/in/manifest.txt" | while read -r name path _; do
  echo "$W/models/${name}__${path}.tflite $W/run/${name}__${path} $W/in/${name}_a.npy $W/in/${name}_b.npy" >>"$W/jobs.txt"
done
node "$JS/run_tflite.cjs" --batch "$W/jobs.txt" >"$W/run.log" 2>&1 || { cat "$W/run.log" >&2; exit 1; }
nice -n 10 g++ -std=c++17 -O2 -Wall -Wextra -I "$ROOT/include" "$HERE/compare_elementwise.cc" -o "$W/compare"
"$W/compare" "$W/in" "$W/run" --csv "$W/results.csv"
