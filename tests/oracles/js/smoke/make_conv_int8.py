#!/usr/bin/env python3
"""Writes the smoke-test TFLite models as flatbuffer JSON (for tools/model/tflite/tflite_subset.fbs).

    conv_int8.json            float32 input -> QUANTIZE -> CONV_2D (int8, constant per-channel
                              filter, int32 bias) -> DEQUANTIZE -> float32 output
    conv_int8_dynfilter.json  the same graph and numbers, but the int8 filter is a second graph
                              input instead of a constant buffer (XNNPACK only takes convolutions
                              with static weights, so TFLite's own kernel runs this one)
                              (check_conv_int8.py takes the filter values to feed from
                              conv_int8.json)

Deterministic (fixed seed); the committed JSON is this script's output. Usage:
    python3 make_conv_int8.py [out_dir]      (default: the directory of this script)

Numbers are chosen so that the checks are exact and tell the arithmetics apart:
  * input scale 2^-4 and output scale 2^-8: quantize and dequantize are exact for the inputs
    the check feeds (x = (q - zp) * 2^-4), so any mismatch comes from the convolution;
  * even output channels have filter scale 2^-5, so the requantization multiplier
    s_in * s_w / s_out is exactly 0.5 and every odd accumulator is a tie (round-half-even,
    half-up and half-away-from-zero all differ there); odd channels have irregular scales;
  * 1x8x8x8 input, 8 output channels, 3x3 SAME: a wrong filter layout (OHWI) or
    input layout (NHWC) changes nearly every output.
"""
import json
import os
import re
import sys

import numpy as np

N, H, W, CIN, COUT, KH, KW = 1, 8, 8, 8, 8, 3, 3
S_IN, Z_IN = 2.0 ** -4, -3
S_OUT, Z_OUT = 2.0 ** -8, 5
ODD_SCALES = [0.0137, 0.0291, 0.04733, 0.00893]   # filter scales of channels 1, 3, 5, 7


def filter_scales():
    return [2.0 ** -5 if c % 2 == 0 else ODD_SCALES[c // 2] for c in range(COUT)]


def make_data():
    rng = np.random.default_rng(20240611)
    w = rng.integers(-3, 4, size=(COUT, KH, KW, CIN)).astype(np.int8)   # OHWI
    w[3, 1, 1, :] = [25, -25, 12, -12, 20, -20, 1, -1]                # a few larger taps
    bias = rng.integers(-20, 21, size=(COUT,)).astype(np.int32)
    return w, bias


def u8list(a):
    return [int(b) for b in np.ascontiguousarray(a).view(np.uint8).ravel()]


def model_json(dynamic_filter):
    w, bias = make_data()
    sw = filter_scales()
    bias_scales = [float(np.float32(S_IN) * np.float32(s)) for s in sw]
    buffers = [{}]                           # 0: the empty sentinel buffer
    if dynamic_filter:
        filter_buffer = 0
    else:
        buffers.append({"data": u8list(w)})
        filter_buffer = len(buffers) - 1
    buffers.append({"data": u8list(bias.astype('<i4'))})
    bias_buffer = len(buffers) - 1

    tensors = [
        {"name": "input", "shape": [N, H, W, CIN], "type": "FLOAT32", "buffer": 0},
        {"name": "input_int8", "shape": [N, H, W, CIN], "type": "INT8", "buffer": 0,
         "quantization": {"scale": [S_IN], "zero_point": [Z_IN]}},
        {"name": "filter", "shape": [COUT, KH, KW, CIN], "type": "INT8", "buffer": filter_buffer,
         "quantization": {"scale": sw, "zero_point": [0] * COUT, "quantized_dimension": 0}},
        {"name": "bias", "shape": [COUT], "type": "INT32", "buffer": bias_buffer,
         "quantization": {"scale": bias_scales, "zero_point": [0] * COUT,
                          "quantized_dimension": 0}},
        {"name": "conv_int8", "shape": [N, H, W, COUT], "type": "INT8", "buffer": 0,
         "quantization": {"scale": [S_OUT], "zero_point": [Z_OUT]}},
        {"name": "output", "shape": [N, H, W, COUT], "type": "FLOAT32", "buffer": 0},
    ]
    opcodes = [
        {"deprecated_builtin_code": 114, "builtin_code": "QUANTIZE", "version": 2},
        {"deprecated_builtin_code": 3, "builtin_code": "CONV_2D", "version": 3},
        {"deprecated_builtin_code": 6, "builtin_code": "DEQUANTIZE", "version": 2},
    ]
    operators = [
        {"opcode_index": 0, "inputs": [0], "outputs": [1],
         "builtin_options_type": "QuantizeOptions", "builtin_options": {}},
        {"opcode_index": 1, "inputs": [1, 2, 3], "outputs": [4],
         "builtin_options_type": "Conv2DOptions",
         "builtin_options": {"padding": "SAME", "stride_w": 1, "stride_h": 1,
                             "fused_activation_function": "NONE"}},
        {"opcode_index": 2, "inputs": [4], "outputs": [5],
         "builtin_options_type": "DequantizeOptions", "builtin_options": {}},
    ]
    inputs = [0, 2] if dynamic_filter else [0]
    model = {
        "version": 3,
        "description": "qparity smoke test: QUANTIZE -> CONV_2D int8 -> DEQUANTIZE"
                       + (" (filter is a graph input)" if dynamic_filter else ""),
        "operator_codes": opcodes,
        "subgraphs": [{"name": "main", "tensors": tensors, "inputs": inputs, "outputs": [5],
                       "operators": operators}],
        "buffers": buffers,
    }
    return model, w


def dump(model, path):
    # Indented, but every list of numbers on one line: diffable and short.
    text = json.dumps(model, indent=1, separators=(',', ': '))
    text = re.sub(r'\[[-0-9.e,\s]*\]', lambda m: ' '.join(m.group(0).split()), text)
    with open(path, 'w') as f:
        f.write(text + '\n')


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    m, w = model_json(False)
    dump(m, os.path.join(out, 'conv_int8.json'))
    m, w = model_json(True)
    dump(m, os.path.join(out, 'conv_int8_dynfilter.json'))


if __name__ == '__main__':
    main()
