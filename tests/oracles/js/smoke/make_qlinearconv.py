#!/usr/bin/env python3
"""One-node QLinearConv ONNX model for the onnxruntime-node smoke test, and its numpy check.

    make_qlinearconv.py make OUT_DIR
        writes OUT_DIR/qlinearconv.onnx (int8 x [1,8,8,8] NCHW -> QLinearConv 3x3, pads 1,
        8 output channels, per-channel int8 weights, int32 bias -> int8 y) and OUT_DIR/x.npy
    make_qlinearconv.py check OUT_DIR OUTPUT.npy
        recomputes y with numpy and exits 1 unless OUTPUT.npy matches it bit for bit

Reference arithmetic (ONNX Runtime's CPU QLinearConv, MLAS): acc = sum (x - x_zp) * (w - w_zp)
+ B in int32, y = clamp(round_half_even(float32(acc) * float32(x_scale * w_scale[c] / y_scale))
+ y_zp, -128, 127) -- the same arithmetic as check_conv_int8.py's xnnpack-fp32. The numbers
follow make_conv_int8.py: even channels have multiplier exactly 0.5 (every odd accumulator is a
tie), odd channels irregular ones. Weights stay within [-3, 3] so that no pair of u8 x s8
products can reach int16 saturation (VPMADDUBSW) on CPUs without VNNI.

Needs Debian's python3-onnx and python3-numpy.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_conv_int8 import conv_acc, requant  # noqa: E402

N, C, H, W, COUT, K = 1, 8, 8, 8, 8, 3
X_SCALE, X_ZP = 2.0 ** -4, -3
Y_SCALE, Y_ZP = 2.0 ** -8, 5
W_SCALES = [2.0 ** -5, 0.0137, 2.0 ** -5, 0.0291, 2.0 ** -5, 0.04733, 2.0 ** -5, 0.00893]


def data():
    rng = np.random.default_rng(20240612)
    w = rng.integers(-3, 4, size=(COUT, C, K, K)).astype(np.int8)          # OIHW
    b = rng.integers(-20, 21, size=(COUT,)).astype(np.int32)
    x = rng.integers(-11, 6, size=(N, C, H, W)).astype(np.int8)            # NCHW
    return x, w, b


def make(out_dir):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    x, w, b = data()
    inits = [
        numpy_helper.from_array(np.array(X_SCALE, np.float32), 'x_scale'),
        numpy_helper.from_array(np.array(X_ZP, np.int8), 'x_zero_point'),
        numpy_helper.from_array(w, 'w'),
        numpy_helper.from_array(np.array(W_SCALES, np.float32), 'w_scale'),
        numpy_helper.from_array(np.zeros(COUT, np.int8), 'w_zero_point'),
        numpy_helper.from_array(np.array(Y_SCALE, np.float32), 'y_scale'),
        numpy_helper.from_array(np.array(Y_ZP, np.int8), 'y_zero_point'),
        numpy_helper.from_array(b, 'B'),
    ]
    node = helper.make_node(
        'QLinearConv',
        ['x', 'x_scale', 'x_zero_point', 'w', 'w_scale', 'w_zero_point', 'y_scale', 'y_zero_point', 'B'],
        ['y'], name='conv', kernel_shape=[K, K], pads=[1, 1, 1, 1], strides=[1, 1])
    graph = helper.make_graph(
        [node], 'qparity_smoke_qlinearconv',
        [helper.make_tensor_value_info('x', TensorProto.INT8, [N, C, H, W])],
        [helper.make_tensor_value_info('y', TensorProto.INT8, [N, COUT, H, W])],
        initializer=inits)
    model = helper.make_model(graph, producer_name='qparity smoke test',
                              opset_imports=[helper.make_opsetid('', 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out_dir, 'qlinearconv.onnx'))
    np.save(os.path.join(out_dir, 'x.npy'), x)


def reference():
    x, w, b = data()
    p = {'s_in': np.float32(X_SCALE), 'z_in': X_ZP, 's_w': np.array(W_SCALES, np.float32),
         's_out': np.float32(Y_SCALE), 'z_out': Y_ZP}
    acc = conv_acc(x.transpose(0, 2, 3, 1), X_ZP, w.transpose(0, 2, 3, 1), b)   # NHWC, OHWI
    return acc, p


def check(out_dir, output):
    y = np.load(output)
    if y.dtype != np.int8 or y.shape != (N, COUT, H, W):
        print(f'FAIL: {output} is {y.dtype} {y.shape}, expected int8 {(N, COUT, H, W)}')
        return 1
    acc, p = reference()
    ties = sum(int(np.sum(acc[..., c] % 2 != 0)) for c in range(0, COUT, 2))
    y_nhwc = y.transpose(0, 2, 3, 1).astype(np.int64)
    status = 1
    print(f'{output}: {y.size} outputs, {ties} exact ties, '
          f'{int(np.sum((y == -128) | (y == 127)))} saturated')
    for arith in ('xnnpack-fp32', 'tflite-double', 'tflite-single'):
        bad = int(np.sum(requant(acc, p, arith) != y_nhwc))
        print(f'  {arith:14s} {bad:4d} mismatches')
        if arith == 'xnnpack-fp32' and bad == 0:
            status = 0
    print('OK: matches round-half-even float32 requantization bit for bit' if status == 0
          else 'FAIL: ORT does not follow the float32 round-half-even arithmetic')
    return status


def main():
    if len(sys.argv) == 3 and sys.argv[1] == 'make':
        make(sys.argv[2])
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == 'check':
        return check(sys.argv[2], sys.argv[3])
    print(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main())
