#!/usr/bin/env python3
"""One-op TFLite models for ADD, SUB and MUL, to measure LiteRT.js against
include/qparity/reference/elementwise.h (docs/semantics.md §21.1, §21.2).

Every model is  float32 a, b -> QUANTIZE -> (a_q, b_q) -> OP -> y_q -> DEQUANTIZE -> y
with the graph outputs [y, y_q, a_q, b_q]: y_q gives the op's integers directly, a_q / b_q prove
that the float inputs landed exactly on the intended quantized values, and y checks DEQUANTIZE.

Two models per case, one per path through LiteRT.js:
  <case>__xnnpack.json   plain per-tensor quantization: the XNNPACK delegate takes the op
  <case>__tflite.json    the op's output tensor carries per-axis quantization parameters (one scale,
                         one zero point, quantized_dimension = last axis): XNNPACK declines the node,
                         TFLite's own kernel reads the (legacy) per-tensor scale and zero point and
                         runs. (Several scales would make TFLite's per-tensor scale 0: it aborts.)
int16 cases exist only for the TFLite path (XNNPACK has no int16 ADD / SUB / MUL).

Usage:
    make_models.py models [DIR]    write the model JSON files (default: models/ next to this
                                   script; the committed files are this command's output)
    make_models.py inputs DIR      write DIR/<case>_a.npy, _b.npy (float32 inputs, on the grid),
                                   DIR/<case>_qa.npy, _qb.npy (the integers they stand for) and
                                   DIR/manifest.txt (one line per model, read by
                                   compare_elementwise.cc)
Deterministic (fixed seeds). Needs numpy (Debian python3-numpy).
"""
import json
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

DTYPES = {
    'int8': ('INT8', np.int8, -128, 127),
    'uint8': ('UINT8', np.uint8, 0, 255),
    'int16': ('INT16', np.int16, -32768, 32767),
}
OPS = {'ADD': (0, 'AddOptions'), 'SUB': (41, 'SubOptions'), 'MUL': (18, 'MulOptions')}
ACTIVATIONS = ('NONE', 'RELU', 'RELU6', 'RELU_N1_TO_1')


def f32(x):
    return float(np.float32(x))


def case(name, op, dtype, q1, q2, qo, shape1=None, shape2=None, act='NONE', seed=0, paths=None,
         lo=None, hi=None):
    """q1, q2, qo: (scale, zero_point). shape1/shape2 None: every pair of values in [lo, hi]
    (the whole type range by default) as shapes [N, 1] and [1, N] (broadcast to [N, N])."""
    _, _, tmin, tmax = DTYPES[dtype]
    if paths is None:
        paths = ['tflite'] if dtype == 'int16' else ['xnnpack', 'tflite']
    return dict(name=name, op=op, dtype=dtype, q1=(f32(q1[0]), q1[1]), q2=(f32(q2[0]), q2[1]),
                qo=(f32(qo[0]), qo[1]), shape1=shape1, shape2=shape2, act=act, seed=seed,
                paths=paths, lo=tmin if lo is None else lo, hi=tmax if hi is None else hi)


def cases():
    c = []
    # ---- ties: every odd v1 + v2 (or v1 v2) is an exact half at the output scale -------------
    for op in ('ADD', 'SUB'):
        c.append(case(f'{op.lower()}_ties_int8', op, 'int8', (1.0, 0), (1.0, 0), (2.0, 0)))
        c.append(case(f'{op.lower()}_ties_uint8', op, 'uint8', (1.0, 128), (1.0, 128), (2.0, 128)))
        # quarter steps: y = v1/2 + v2/4, ties of both signs, three-step TFLite rescale
        c.append(case(f'{op.lower()}_quarter_int8', op, 'int8', (0.5, 3), (0.25, -7), (1.0, -1)))
        # zero points at the ends of the range
        c.append(case(f'{op.lower()}_zp_ends_int8', op, 'int8', (1.0, -128), (1.0, 127), (2.0, 127)))
        c.append(case(f'{op.lower()}_zp_ends_uint8', op, 'uint8', (1.0, 0), (1.0, 255), (2.0, 255)))
        # irregular scales: off-tie double rounding, 21-bit XNNPACK multipliers, float vs double
        c.append(case(f'{op.lower()}_irregular_int8', op, 'int8', (0.0137, -3), (0.0291, 5),
                      (0.0431, 2)))
        c.append(case(f'{op.lower()}_irregular_uint8', op, 'uint8', (0.0137, 120), (0.0291, 131),
                      (0.0431, 126)))
        # very different input scales (ratio 2^-10 at the XNNPACK limit side), and saturation
        c.append(case(f'{op.lower()}_far_scales_int8', op, 'int8', (0.7, 1), (0.0009, -2),
                      (0.71, 0)))
        c.append(case(f'{op.lower()}_saturate_int8', op, 'int8', (0.3, 0), (0.2, 0), (0.05, 0)))
    # ---- MUL ----------------------------------------------------------------------------------
    c.append(case('mul_ties_int8', 'MUL', 'int8', (1.0, 0), (1.0, 0), (2.0, 0), lo=-20, hi=20))
    c.append(case('mul_ties_uint8', 'MUL', 'uint8', (1.0, 128), (1.0, 128), (2.0, 128), lo=108,
                  hi=148))
    c.append(case('mul_quarter_int8', 'MUL', 'int8', (0.5, 0), (0.5, 0), (2.0, -3), lo=-30, hi=30))
    c.append(case('mul_zp_ends_int8', 'MUL', 'int8', (0.05, -128), (0.04, 127), (1.0, 127)))
    c.append(case('mul_zp_ends_uint8', 'MUL', 'uint8', (0.05, 0), (0.04, 255), (1.0, 255)))
    c.append(case('mul_irregular_int8', 'MUL', 'int8', (0.0137, -3), (0.0291, 5), (0.00431, 2)))
    c.append(case('mul_irregular_uint8', 'MUL', 'uint8', (0.0137, 120), (0.0291, 131),
                  (0.00431, 126)))
    c.append(case('mul_irregular2_int8', 'MUL', 'int8', (0.031, 7), (0.017, -9), (0.0123, -4)))
    c.append(case('mul_small_scale_int8', 'MUL', 'int8', (0.01, 0), (0.01, 0), (1.0, 0)))
    # ---- scales where TFLite's and TFLM's multiplier derivations give different outputs (found
    # by searching random scales with the reference header: MUL float32 vs double composition,
    # SUB double vs float32 quotients)
    c.append(case('mul_tflite_vs_tflm_int8', 'MUL', 'int8', (0.00744313281, 0), (0.0453751907, 0),
                  (0.0053128181, 0)))
    c.append(case('sub_tflite_vs_tflm_int8', 'SUB', 'int8', (0.0447777696, 0), (0.0112708304, 0),
                  (0.0489690192, 0)))
    # ---- fused activations whose bounds are exact ties in TFLite's or XNNPACK's quantization --
    for op in ('ADD', 'SUB', 'MUL'):
        c.append(case(f'{op.lower()}_relu_n1_to_1_int8', op, 'int8', (1.0, 0), (1.0, 0), (2.0, 0),
                      act='RELU_N1_TO_1', lo=-20, hi=20))
        c.append(case(f'{op.lower()}_relu6_int8', op, 'int8', (1.0, 0), (1.0, 0), (4.0, 1),
                      act='RELU6', lo=-40, hi=40))
        c.append(case(f'{op.lower()}_relu_uint8', op, 'uint8', (0.5, 130), (0.5, 120), (1.0, 125),
                      act='RELU', lo=100, hi=160))
    # ---- broadcasting: scalar, row, channel, 4-D, 6-D, odd sizes --------------------------------
    bq1, bq2, bqo = (0.0137, -3), (0.0291, 5), (0.0431, 2)
    for op in ('ADD', 'SUB', 'MUL'):
        o = op.lower()
        qo = bqo if op != 'MUL' else (0.00431, 2)
        c.append(case(f'{o}_bcast_scalar_int8', op, 'int8', bq1, bq2, qo, [2, 3, 4, 5], [1], seed=1))
        c.append(case(f'{o}_bcast_scalar_first_int8', op, 'int8', bq1, bq2, qo, [], [3, 7], seed=2))
        c.append(case(f'{o}_bcast_row_int8', op, 'int8', bq1, bq2, qo, [3, 5, 7], [7], seed=3))
        c.append(case(f'{o}_bcast_channel_int8', op, 'int8', bq1, bq2, qo, [2, 4, 4, 3], [1, 1, 1, 3],
                      seed=4))
        c.append(case(f'{o}_bcast_batch_int8', op, 'int8', bq1, bq2, qo, [2, 1, 1, 1], [2, 4, 4, 3],
                      seed=15))
        c.append(case(f'{o}_bcast_4d_int8', op, 'int8', bq1, bq2, qo, [1, 3, 1, 5], [2, 1, 4, 1], seed=5))
        c.append(case(f'{o}_bcast_6d_int8', op, 'int8', bq1, bq2, qo, [2, 1, 3, 1, 2, 3],
                      [1, 2, 3, 4, 1, 3], seed=6))
        c.append(case(f'{o}_bcast_6d_uint8', op, 'uint8', (0.0137, 120), (0.0291, 131),
                      (qo[0], 126), [2, 1, 3, 1, 2, 3], [1, 2, 1, 4, 2, 1], seed=7))
        # (rank >= 2: a rank-1 output's only axis is 0, and quantized_dimension 0 with one scale
        # is per-tensor to XNNPACK, which then takes the "tflite" model too)
        c.append(case(f'{o}_odd_sizes_int8', op, 'int8', bq1, bq2, qo, [1, 37], [1, 37], seed=8))
        c.append(case(f'{o}_odd_sizes_uint8', op, 'uint8', (0.0137, 120), (0.0291, 131),
                      (qo[0], 126), [3, 5, 7], [3, 5, 7], seed=9))
    # ---- int16 (TFLite only): general scales, zero points 0 (add.cc / mul.cc require it) -------
    c.append(case('add_int16', 'ADD', 'int16', (0.00037, 0), (0.00051, 0), (0.00093, 0), [4096],
                  [4096], seed=10))
    c.append(case('add_ties_int16', 'ADD', 'int16', (0.5, 0), (0.25, 0), (1.0, 0), [4096], [4096],
                  seed=11))
    c.append(case('sub_int16', 'SUB', 'int16', (0.00037, 0), (0.00051, 0), (0.00093, 0), [4096],
                  [4096], seed=12))
    # (Asymmetric int16 SUB, which the newest sub.cc allows, is refused by LiteRT.js 2.5.3's TFLite:
    # "sub.cc:276 input1->params.zero_point != 0".)
    c.append(case('mul_int16', 'MUL', 'int16', (0.00037, 0), (0.00051, 0), (1.1e-6, 0), [4096],
                  [4096], seed=14))
    return c


def shapes_and_ints(cs):
    """Integer inputs (numpy arrays of the case's dtype) and their shapes."""
    _, npt, _, _ = DTYPES[cs['dtype']]
    if cs['shape1'] is None:
        vals = np.arange(cs['lo'], cs['hi'] + 1, dtype=np.int64)
        n = len(vals)
        return [n, 1], vals.reshape(n, 1).astype(npt), [1, n], vals.reshape(1, n).astype(npt)
    rng = np.random.default_rng(20250601 + cs['seed'])
    s1, s2 = cs['shape1'], cs['shape2']
    a = rng.integers(cs['lo'], cs['hi'] + 1, size=s1, dtype=np.int64).astype(npt)
    b = rng.integers(cs['lo'], cs['hi'] + 1, size=s2, dtype=np.int64).astype(npt)
    return list(s1), np.asarray(a), list(s2), np.asarray(b)


def broadcast(s1, s2):
    return list(np.broadcast_shapes(tuple(s1), tuple(s2)))


def model_json(cs, path):
    ttype, _, _, _ = DTYPES[cs['dtype']]
    s1, _, s2, _ = shapes_and_ints(cs)
    so = broadcast(s1, s2)
    code, options_type = OPS[cs['op']]
    q = lambda sz: {'scale': [sz[0]], 'zero_point': [sz[1]]}
    qy = q(cs['qo'])
    if path == 'tflite':
        qy['quantized_dimension'] = max(len(so) - 1, 0)
    options = {'fused_activation_function': cs['act']}
    if cs['op'] in ('ADD', 'SUB') and cs['dtype'] == 'int16':
        options['pot_scale_int16'] = False
    version = {'int8': 2, 'uint8': 1, 'int16': 3}[cs['dtype']]
    tensors = [
        {'name': 'a', 'shape': s1, 'type': 'FLOAT32', 'buffer': 0},
        {'name': 'b', 'shape': s2, 'type': 'FLOAT32', 'buffer': 0},
        {'name': 'a_q', 'shape': s1, 'type': ttype, 'buffer': 0, 'quantization': q(cs['q1'])},
        {'name': 'b_q', 'shape': s2, 'type': ttype, 'buffer': 0, 'quantization': q(cs['q2'])},
        {'name': 'y_q', 'shape': so, 'type': ttype, 'buffer': 0, 'quantization': qy},
        {'name': 'y', 'shape': so, 'type': 'FLOAT32', 'buffer': 0},
    ]
    operators = [
        {'opcode_index': 0, 'inputs': [0], 'outputs': [2],
         'builtin_options_type': 'QuantizeOptions', 'builtin_options': {}},
        {'opcode_index': 0, 'inputs': [1], 'outputs': [3],
         'builtin_options_type': 'QuantizeOptions', 'builtin_options': {}},
        {'opcode_index': 1, 'inputs': [2, 3], 'outputs': [4],
         'builtin_options_type': options_type, 'builtin_options': options},
        {'opcode_index': 2, 'inputs': [4], 'outputs': [5],
         'builtin_options_type': 'DequantizeOptions', 'builtin_options': {}},
    ]
    return {
        'version': 3,
        'description': f"qparity elementwise oracle: {cs['name']} ({path} path): QUANTIZE -> "
                       f"{cs['op']} {cs['dtype']} -> DEQUANTIZE",
        'operator_codes': [
            {'deprecated_builtin_code': 114, 'builtin_code': 'QUANTIZE', 'version': 2},
            {'deprecated_builtin_code': code, 'builtin_code': cs['op'], 'version': version},
            {'deprecated_builtin_code': 6, 'builtin_code': 'DEQUANTIZE', 'version': 2},
        ],
        'subgraphs': [{'name': 'main', 'tensors': tensors, 'inputs': [0, 1],
                       'outputs': [5, 4, 2, 3], 'operators': operators}],
        'buffers': [{}],
    }


def dump(model, path):
    text = json.dumps(model, indent=1, separators=(',', ': '))
    text = re.sub(r'\[[-0-9.e,\s]*\]', lambda m: ' '.join(m.group(0).split()), text)
    with open(path, 'w') as f:
        f.write(text + '\n')


def write_models(out):
    os.makedirs(out, exist_ok=True)
    for cs in cases():
        for path in cs['paths']:
            dump(model_json(cs, path), os.path.join(out, f"{cs['name']}__{path}.json"))


def write_inputs(out):
    os.makedirs(out, exist_ok=True)
    lines = []
    for cs in cases():
        s1, a, s2, b = shapes_and_ints(cs)
        (sc1, z1), (sc2, z2), (sco, zo) = cs['q1'], cs['q2'], cs['qo']
        # On the grid: float32((q - z) * s); QUANTIZE gives q back (checked through a_q, b_q).
        fa = ((a.astype(np.float64) - z1) * sc1).astype(np.float32)
        fb = ((b.astype(np.float64) - z2) * sc2).astype(np.float32)
        base = os.path.join(out, cs['name'])
        np.save(base + '_a.npy', fa)
        np.save(base + '_b.npy', fb)
        np.save(base + '_qa.npy', a)
        np.save(base + '_qb.npy', b)
        for path in cs['paths']:
            dims = lambda s: ' '.join([str(len(s))] + [str(d) for d in s])
            lines.append(' '.join([
                cs['name'], path, cs['op'], cs['dtype'], cs['act'],
                float(sc1).hex(), str(z1), float(sc2).hex(), str(z2), float(sco).hex(), str(zo),
                dims(s1), dims(s2)]))
    with open(os.path.join(out, 'manifest.txt'), 'w') as f:
        f.write('# case path op dtype activation s1 z1 s2 z2 so zo rank1 dims1... rank2 dims2...\n')
        f.write('\n'.join(lines) + '\n')


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ('models', 'inputs'):
        print(__doc__)
        sys.exit(2)
    if sys.argv[1] == 'models':
        write_models(sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, 'models'))
    else:
        if len(sys.argv) < 3:
            print(__doc__)
            sys.exit(2)
        write_inputs(sys.argv[2])


if __name__ == '__main__':
    main()
