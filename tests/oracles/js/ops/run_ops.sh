#!/usr/bin/env bash
# Measures LiteRT.js (tests/oracles/js/run_tflite.cjs) on one-op models of QUANTIZE, DEQUANTIZE,
# requantizing QUANTIZE, RELU / RELU6, AVERAGE_POOL_2D, MAX_POOL_2D, MEAN and SOFTMAX, on both of
# its paths (XNNPACK delegate / TFLite's own kernels), against every variant of
# include/qparity/reference/{quantize,activation,pooling,mean,softmax}.h.
#
#   bash tests/oracles/js/ops/run_ops.sh [WORK_DIR]      (default: a temporary directory)
#
# Needs node >= 20 and tests/oracles/js/node_modules (npm ci --ignore-scripts), flatc
# (flatbuffers-compiler), /usr/bin/python3 with numpy, g++ (C++17). Prints the table of
# compare_ops.cc and ends with its "N passed, M failed" line (models whose expected variant is
# exact); exit status 1 if any expected variant misses an element.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
PY="${PYTHON:-/usr/bin/python3}"
W="${1:-$(mktemp -d)}"
mkdir -p "$W"
"$PY" "$HERE/make_models.py" gen "$W"
(cd "$W/models" && flatc --binary "$ROOT/tools/model/tflite/tflite_subset.fbs" ./*.json)
(cd "$W" && node "$HERE/../run_tflite.cjs" --batch jobs.txt > run.log 2>&1) || { tail -20 "$W/run.log"; exit 1; }
"$PY" "$HERE/make_models.py" collect "$W"
g++ -std=c++17 -O2 -ffp-contract=off -I "$ROOT/include" "$HERE/compare_ops.cc" -o "$W/compare_ops"
"$W/compare_ops" "$W/observed.txt"
