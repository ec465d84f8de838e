#!/usr/bin/env python3
"""Reference for the TFLite smoke models (QUANTIZE -> CONV_2D int8 -> DEQUANTIZE).

    check_conv_int8.py inputs MODEL.json OUT_DIR
        writes OUT_DIR/input.npy (float32, exactly on the input's quantization grid) and
        OUT_DIR/filter.npy (int8, the filter of MODEL.json, for the model whose filter is an input)
    check_conv_int8.py check MODEL.json INPUT.npy OUTPUT.npy --expect ARITH [--filter FILTER.npy]
        recomputes the convolution from the numbers in MODEL.json under each arithmetic below,
        prints how many of the int8 outputs each one gets wrong, and exits 1 unless ARITH
        reproduces every output

Arithmetics (y = requantized int8 output, acc = sum (q_in - z_in) * w + bias, int32):
    xnnpack-fp32   y = clamp(round_half_even(float32(acc) * float32(s_in * s_w / s_out)) + z_out)
                   with the scale computed in float32 ((s_in * s_w) / s_out), as XNNPACK does
    tflite-double  TFLite's reference integer path: multiplier from the double
                   s_in * s_w / s_out (QuantizeMultiplier), then SaturatingRoundingDoublingHighMul
                   and RoundingDivideByPOT (two roundings)
    tflite-single  the same multiplier, one rounding: (acc * q + 2^(30 - shift)) >> (31 - shift)

Only numpy is needed (Debian's python3-numpy).
"""
import argparse
import json
import math
import sys

import numpy as np

INT32_MIN = -(1 << 31)


def load_model(path):
    with open(path) as f:
        m = json.load(f)
    sg = m['subgraphs'][0]
    tensors = sg['tensors']
    ops = sg['operators']
    codes = m['operator_codes']

    def code(op):
        c = codes[op.get('opcode_index', 0)]
        return c.get('builtin_code', c.get('deprecated_builtin_code'))

    conv = [op for op in ops if code(op) in ('CONV_2D', 3)]
    assert len(conv) == 1, 'expected one CONV_2D'
    conv = conv[0]
    x_t, w_t, b_t = (tensors[i] for i in conv['inputs'])
    y_t = tensors[conv['outputs'][0]]
    opts = conv.get('builtin_options', {})
    assert opts.get('padding', 'SAME') in ('SAME', 0) and opts.get('stride_w', 1) == 1 \
        and opts.get('stride_h', 1) == 1, 'the check handles SAME, stride 1 only'

    def buf(t, dtype):
        data = m['buffers'][t.get('buffer', 0)].get('data')
        if not data:
            return None
        return np.frombuffer(bytes(data), dtype=dtype).reshape(t['shape'])

    q = lambda t: t['quantization']
    return {
        'input_shape': tensors[sg['inputs'][0]]['shape'],
        's_in': np.float32(q(x_t)['scale'][0]), 'z_in': int(q(x_t)['zero_point'][0]),
        's_w': np.array(q(w_t)['scale'], dtype=np.float32),
        'w': buf(w_t, np.int8), 'w_shape': w_t['shape'],
        'bias': buf(b_t, '<i4'),
        's_out': np.float32(q(y_t)['scale'][0]), 'z_out': int(q(y_t)['zero_point'][0]),
    }


def conv_acc(q_in, z_in, w, bias):
    """int64 accumulators of a SAME, stride-1 NHWC conv; w is OHWI; padding contributes 0."""
    n, h, wd, cin = q_in.shape
    cout, kh, kw, _ = w.shape
    ph, pw = (kh - 1) // 2, (kw - 1) // 2
    xp = np.zeros((n, h + kh - 1, wd + kw - 1, cin), dtype=np.int64)
    xp[:, ph:ph + h, pw:pw + wd, :] = q_in.astype(np.int64) - z_in
    acc = np.zeros((n, h, wd, cout), dtype=np.int64)
    for dy in range(kh):
        for dx in range(kw):
            patch = xp[:, dy:dy + h, dx:dx + wd, :]                       # n h w cin
            acc += np.einsum('nhwc,oc->nhwo', patch, w[:, dy, dx, :].astype(np.int64))
    return acc + bias.astype(np.int64)


def quantize_multiplier(m):
    """TFLite's QuantizeMultiplier: m (double) -> (q31 multiplier, shift)."""
    if m == 0.0:
        return 0, 0
    frac, shift = math.frexp(m)
    q = int(math.floor(abs(frac) * (1 << 31) + 0.5)) * (1 if frac > 0 else -1)   # std::round
    if q == (1 << 31):
        q //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    return q, shift


def trunc_div(a, b):
    """C integer division (truncates toward zero), elementwise on int64 arrays."""
    qt = np.abs(a) // b
    return np.where(a < 0, -qt, qt)


def srdhm(a, b):
    ab = a.astype(np.int64) * np.int64(b)
    nudge = np.where(ab >= 0, np.int64(1 << 30), np.int64(1 - (1 << 30)))
    r = trunc_div(ab + nudge, np.int64(1 << 31))
    return np.where((a == INT32_MIN) & (b == INT32_MIN), np.int64((1 << 31) - 1), r)


def rdbp(x, exponent):
    mask = np.int64((1 << exponent) - 1)
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0).astype(np.int64)
    return (x >> exponent) + (remainder > threshold).astype(np.int64)


def requant(acc, p, arith):
    out = np.empty_like(acc)
    for c in range(acc.shape[-1]):
        a = acc[..., c]
        if arith == 'xnnpack-fp32':
            scale = np.float32(np.float32(p['s_in'] * p['s_w'][c]) / p['s_out'])
            y = np.rint(a.astype(np.float32) * scale).astype(np.int64)
        else:
            m = float(p['s_in']) * float(p['s_w'][c]) / float(p['s_out'])
            q, shift = quantize_multiplier(m)
            if arith == 'tflite-double':
                left, right = max(shift, 0), max(-shift, 0)
                y = rdbp(srdhm(a * (1 << left), q), right)
            elif arith == 'tflite-single':
                total = 31 - shift
                y = (a * np.int64(q) + np.int64(1 << (total - 1))) >> total
            else:
                raise ValueError(arith)
        out[..., c] = y
    return np.clip(out + p['z_out'], -128, 127)


ARITHS = ('xnnpack-fp32', 'tflite-double', 'tflite-single')


def cmd_inputs(args):
    p = load_model(args.model)
    rng = np.random.default_rng(7)
    q = rng.integers(-11, 6, size=p['input_shape'])          # small: many ties, few saturations
    q.flat[::97] = rng.integers(-128, 128, size=q.flat[::97].shape)   # and some extremes
    x = ((q - p['z_in']) * np.float64(p['s_in'])).astype(np.float32)
    assert np.all(np.round(x / p['s_in']) + p['z_in'] == q)      # exactly on the grid
    np.save(f'{args.out_dir}/input.npy', x)
    np.save(f'{args.out_dir}/filter.npy', p['w'])


def cmd_check(args):
    p = load_model(args.model)
    x = np.load(args.input)
    y = np.load(args.output)
    w = p['w'] if args.filter is None else np.load(args.filter)
    assert w is not None, 'the model has no constant filter: pass --filter'
    if y.dtype != np.float32 or list(y.shape) != list(x.shape[:3]) + [w.shape[0]]:
        print(f'FAIL: output is {y.dtype} {y.shape}')
        return 1
    q_in = np.round(x / p['s_in']).astype(np.int64) + p['z_in']       # exact by construction
    # Dequantized outputs must sit exactly on the output grid (s_out is a power of two).
    yq = y / p['s_out']
    if not np.all(yq == np.round(yq)):
        print('FAIL: output values are not on the output quantization grid')
        return 1
    y_int8 = np.round(yq).astype(np.int64) + p['z_out']
    acc = conv_acc(q_in, p['z_in'], w, p['bias'])
    ties = 0
    for c in range(acc.shape[-1]):
        m = float(p['s_in']) * float(p['s_w'][c]) / float(p['s_out'])
        if m == 0.5:
            ties += int(np.sum(acc[..., c] % 2 != 0))
    print(f'{args.output}: {y_int8.size} outputs, {ties} exact ties '
          f'(channels with multiplier 0.5), {int(np.sum((y_int8 == -128) | (y_int8 == 127)))} saturated')
    result = {}
    for a in ARITHS:
        ref = requant(acc, p, a)
        bad = int(np.sum(ref != y_int8))
        result[a] = bad
        note = ''
        if bad:
            i = np.argwhere(ref != y_int8)[0]
            note = f'  first at {tuple(int(v) for v in i)}: got {int(y_int8[tuple(i)])}, ' \
                   f'{a} gives {int(ref[tuple(i)])} (acc {int(acc[tuple(i)])})'
        print(f'  {a:14s} {bad:4d} mismatches{note}')
    if result[args.expect] != 0:
        print(f'FAIL: the runtime does not follow {args.expect}')
        return 1
    print(f'OK: matches {args.expect} bit for bit')
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    a = sub.add_parser('inputs')
    a.add_argument('model')
    a.add_argument('out_dir')
    c = sub.add_parser('check')
    c.add_argument('model')
    c.add_argument('input')
    c.add_argument('output')
    c.add_argument('--expect', choices=ARITHS, required=True)
    c.add_argument('--filter')
    args = ap.parse_args()
    if args.cmd == 'inputs':
        cmd_inputs(args)
        return 0
    return cmd_check(args)


if __name__ == '__main__':
    sys.exit(main())
