#!/usr/bin/env bash
# End-to-end smoke test of the two oracle runners (run_tflite.cjs, run_onnx.cjs).
#
#   bash tests/oracles/js/smoke/run_smoke.sh
#
# Needs: node >= 20, npm, flatc (Debian flatbuffers-compiler), python3 with numpy and onnx
# (Debian python3-numpy, python3-onnx; PYTHON overrides the interpreter, default
# /usr/bin/python3). Installs the npm packages (npm ci --ignore-scripts) if node_modules is
# missing. Prints one line per check and "N passed, M failed"; exits 1 on any failure.
set -u -o pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
JS="$(dirname "$HERE")"
ROOT="$(cd "$JS/../../.." && pwd)"
SCHEMA="$ROOT/tools/model/tflite/tflite_subset.fbs"
PY="${PYTHON:-/usr/bin/python3}"
NODE="${NODE:-node}"

missing=()
command -v "$NODE" >/dev/null || missing+=("node (nodejs)")
command -v flatc >/dev/null || missing+=("flatc (apt-get install flatbuffers-compiler)")
"$PY" -c 'import numpy' 2>/dev/null || missing+=("numpy for $PY (apt-get install python3-numpy)")
"$PY" -c 'import onnx' 2>/dev/null || missing+=("onnx for $PY (apt-get install python3-onnx)")
if ((${#missing[@]})); then
  printf 'run_smoke: missing: %s\n' "${missing[@]}" >&2
  exit 2
fi
if [ ! -d "$JS/node_modules/@litertjs/core" ] || [ ! -d "$JS/node_modules/onnxruntime-node" ]; then
  echo "run_smoke: installing the npm packages (npm ci --ignore-scripts in $JS)" >&2
  (cd "$JS" && npm ci --ignore-scripts --no-audit --no-fund) >&2 || exit 2
fi

T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
# check NAME CMD...: runs CMD with its output in $T/NAME.log, shown on failure.
check() {
  local name="$1"
  shift
  if "$@" >"$T/$name.log" 2>&1; then ok "$name"; else ko "$name"; sed 's/^/    /' "$T/$name.log"; fi
}
# expect_fail NAME PATTERN CMD...: CMD must exit non-zero and print PATTERN.
expect_fail() {
  local name="$1" pattern="$2"
  shift 2
  if "$@" >"$T/$name.log" 2>&1; then
    ko "$name (succeeded, should have failed)"; sed 's/^/    /' "$T/$name.log"
  elif grep -q "$pattern" "$T/$name.log"; then ok "$name"
  else ko "$name (no '$pattern' in its output)"; sed 's/^/    /' "$T/$name.log"; fi
}

# ---------------------------------------------------------------- TFLite / LiteRT.js
TF="$T/tflite"
mkdir -p "$TF"
check tflite-flatc flatc --binary -o "$TF" "$SCHEMA" "$HERE/conv_int8.json" "$HERE/conv_int8_dynfilter.json"
check tflite-inputs "$PY" "$HERE/check_conv_int8.py" inputs "$HERE/conv_int8.json" "$TF"

# Constant filter: XNNPACK runs the convolution (float32 requantization, ties to even).
check tflite-const-filter-run "$NODE" "$JS/run_tflite.cjs" "$TF/conv_int8.tflite" "$TF/const" "$TF/input.npy"
check tflite-const-filter-xnnpack-fp32 "$PY" "$HERE/check_conv_int8.py" check "$HERE/conv_int8.json" \
  "$TF/input.npy" "$TF/const/output_0.npy" --expect xnnpack-fp32
# Filter as a graph input: XNNPACK declines it, TFLite's own kernel runs (integer
# requantization, one rounding: this build defines TFLITE_SINGLE_ROUNDING).
check tflite-dynamic-filter-run "$NODE" "$JS/run_tflite.cjs" "$TF/conv_int8_dynfilter.tflite" "$TF/dyn" \
  "$TF/input.npy" "$TF/filter.npy"
check tflite-dynamic-filter-tflite-single "$PY" "$HERE/check_conv_int8.py" check "$HERE/conv_int8.json" \
  "$TF/input.npy" "$TF/dyn/output_0.npy" --expect tflite-single
# The other Wasm builds compute the same.
check tflite-relaxed-simd-build bash -c "'$NODE' --experimental-wasm-relaxed-simd '$JS/run_tflite.cjs' --build relaxed \
  '$TF/conv_int8.tflite' '$TF/relaxed' '$TF/input.npy' && cmp '$TF/relaxed/output_0.npy' '$TF/const/output_0.npy'"
check tflite-threaded-build bash -c "'$NODE' --experimental-wasm-relaxed-simd '$JS/run_tflite.cjs' --build threaded --threads 2 \
  '$TF/conv_int8.tflite' '$TF/threaded' '$TF/input.npy' && cmp '$TF/threaded/output_0.npy' '$TF/const/output_0.npy'"

# QUANTIZE of exact ties (x / scale = k + 0.5): XNNPACK takes the op and rounds to even
# (TFLite's own kernel would round away from zero: 1 2 -1 -2 3 -3 5 -5).
check tflite-quantize-flatc flatc --binary -o "$TF" "$SCHEMA" "$HERE/quantize_ties.json"
"$PY" -c "import numpy as np; np.save('$TF/ties.npy', np.array([[0.25, 0.75, -0.25, -0.75, 1.25, -1.25, 2.25, -2.25]], np.float32))"
check tflite-quantize-run "$NODE" "$JS/run_tflite.cjs" "$TF/quantize_ties.tflite" "$TF/qt" "$TF/ties.npy"
check tflite-quantize-ties-to-even "$PY" -c "
import numpy as np, sys
y = np.load('$TF/qt/output_0.npy')
print(y.dtype, y)
sys.exit(0 if y.dtype == np.int8 and y.tolist() == [[0, 2, 0, -2, 2, -2, 4, -4]] else 1)"

# A kernel that fails to prepare: LiteRT.js itself returns garbage silently; the runner must fail.
"$PY" - "$HERE/conv_int8_dynfilter.json" "$TF/bad_shape.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
m['subgraphs'][0]['tensors'][2]['shape'] = [8, 3, 3, 3]   # 8 input channels, filter has 3
json.dump(m, open(sys.argv[2], 'w'))
EOF
"$PY" -c "import numpy as np; np.save('$TF/filter3.npy', np.zeros((8, 3, 3, 3), np.int8))"
flatc --binary -o "$TF" "$SCHEMA" "$TF/bad_shape.json"
expect_fail tflite-prepare-error-detected 'failed to prepare' \
  "$NODE" "$JS/run_tflite.cjs" "$TF/bad_shape.tflite" "$TF/bad" "$TF/input.npy" "$TF/filter3.npy"
expect_fail tflite-wrong-input-dtype 'model wants float32' \
  "$NODE" "$JS/run_tflite.cjs" "$TF/conv_int8.tflite" "$TF/bad" "$TF/filter.npy"

# Batch mode: same outputs as single runs; a failing job does not stop the others.
cat >"$TF/jobs.txt" <<EOF
# model out_dir inputs...
$TF/conv_int8.tflite $TF/batch_const $TF/input.npy
$TF/bad_shape.tflite $TF/batch_bad $TF/input.npy $TF/filter3.npy
$TF/conv_int8_dynfilter.tflite $TF/batch_dyn $TF/input.npy $TF/filter.npy
EOF
expect_fail tflite-batch-reports-failure 'some FAILED' "$NODE" "$JS/run_tflite.cjs" --batch "$TF/jobs.txt"
check tflite-batch-outputs bash -c "cmp '$TF/batch_const/output_0.npy' '$TF/const/output_0.npy' && \
  cmp '$TF/batch_dyn/output_0.npy' '$TF/dyn/output_0.npy'"

# ---------------------------------------------------------------- ONNX / onnxruntime-node
OX="$T/onnx"
mkdir -p "$OX"
check onnx-make "$PY" "$HERE/make_qlinearconv.py" make "$OX"
for opt in all disabled; do
  check "onnx-run-opt-$opt" "$NODE" "$JS/run_onnx.cjs" --opt "$opt" "$OX/qlinearconv.onnx" "$OX/$opt" "$OX/x.npy"
  check "onnx-check-opt-$opt" "$PY" "$HERE/make_qlinearconv.py" check "$OX" "$OX/$opt/output_0.npy"
done
check onnx-names bash -c "[ \"\$(cat '$OX/all/names.txt')\" = '0 y' ]"
check onnx-time bash -c "'$NODE' '$JS/run_onnx.cjs' --time 20 '$OX/qlinearconv.onnx' '$OX/timed' '$OX/x.npy' | grep -q '^median_us [0-9.]* runs 20 '"
printf '%s\n' "$OX/qlinearconv.onnx $OX/batch1 $OX/x.npy" "$OX/qlinearconv.onnx $OX/batch2 $OX/x.npy" >"$OX/jobs.txt"
check onnx-batch bash -c "'$NODE' '$JS/run_onnx.cjs' --opt disabled --batch '$OX/jobs.txt' && \
  cmp '$OX/batch1/output_0.npy' '$OX/disabled/output_0.npy' && cmp '$OX/batch2/output_0.npy' '$OX/disabled/output_0.npy'"
expect_fail onnx-wrong-input-count 'has 1 input' \
  "$NODE" "$JS/run_onnx.cjs" "$OX/qlinearconv.onnx" "$OX/bad" "$OX/x.npy" "$OX/x.npy"

echo "smoke: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
