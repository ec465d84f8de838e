#!/usr/bin/env python3
"""One-op TFLite models for QUANTIZE, DEQUANTIZE, requantizing QUANTIZE, RELU / RELU6,
AVERAGE_POOL_2D, MAX_POOL_2D, MEAN and SOFTMAX, to measure LiteRT.js against
include/qparity/reference/{quantize,activation,pooling,mean,softmax}.h (docs/semantics.md §21).

Graphs (all tensors per-tensor quantized unless the path says otherwise):
  op on 8-bit data   float32 x -> QUANTIZE -> x_q -> OP -> y_q -> DEQUANTIZE -> y
                     graph outputs [y, y_q, x_q]: y_q is the op's integers, x_q proves that x
                     landed on the intended integers (inputs are exactly on the grid:
                     x = (q - zp) * s with a power-of-two s, which every QUANTIZE maps back to q)
  QUANTIZE itself    float32 x -> QUANTIZE -> y_q -> DEQUANTIZE -> y;  outputs [y, y_q]
  DEQUANTIZE itself  int8 / uint8 x_q (a graph input) -> DEQUANTIZE -> y;  outputs [y]
Two paths per case:
  xnnpack  as written: the XNNPACK delegate takes the op if it supports it
  tflite   the op's output tensor carries per-axis quantization (one scale, one zero point,
           quantized_dimension = last axis): XNNPACK declines the node and TFLite's own kernel
           runs, reading the legacy per-tensor scale / zero point. XNNPACK does accept such
           tensors for QUANTIZE / DEQUANTIZE (measured), so those models get rank-7 tensors
           instead ([1,1,1,1,1,1,N]): XNNPACK takes at most 6 dimensions.

Usage:
  make_models.py gen DIR       write DIR/models/<case>__<path>.json, DIR/inputs/<case>__<path>.npy,
                               DIR/jobs.txt (for run_tflite.cjs --batch) and DIR/cases.json
  make_models.py collect DIR   read DIR/out/<case>__<path>/output_*.npy, check x_q and y, write
                               DIR/observed.txt (one line per model, read by compare_ops.cc)
Deterministic (fixed seeds). Needs numpy (Debian python3-numpy). run_ops.sh drives everything.
"""
import json
import os
import re
import sys

import numpy as np

TYPES = {'int8': ('INT8', np.int8, -128, 127), 'uint8': ('UINT8', np.uint8, 0, 255)}
OPCODES = {  # name: (code, version, options type)
    'QUANTIZE': (114, 2, 'QuantizeOptions'), 'DEQUANTIZE': (6, 2, 'DequantizeOptions'),
    'AVERAGE_POOL_2D': (1, 2, 'Pool2DOptions'), 'MAX_POOL_2D': (17, 2, 'Pool2DOptions'),
    'MEAN': (40, 2, 'ReducerOptions'), 'RELU': (19, 2, None), 'RELU6': (21, 2, None),
    'SOFTMAX': (25, 2, 'SoftmaxOptions'),
}


def f32(v):
    return float(np.float32(v))


def case(name, op, t_in, t_out, q_in, q_out, shape, **kw):
    c = dict(name=name, op=op, t_in=t_in, t_out=t_out, q_in=(f32(q_in[0]), int(q_in[1])),
             q_out=(f32(q_out[0]), int(q_out[1])), shape=list(shape), paths=['xnnpack', 'tflite'])
    c.update(kw)
    return c


def cases():
    out = []
    # ---- QUANTIZE float32 -> 8 bit ("f2q"): ties of both signs, saturation, reciprocal vs division
    for t, s, zp in [('int8', 0.5, 0), ('int8', 0.5, 127), ('int8', 0.5, -128), ('int8', 0.1, 0),
                     ('int8', 6 / 255, -128), ('int8', 3.0, 5), ('uint8', 0.25, 128), ('uint8', 0.5, 0),
                     ('uint8', 0.5, 255)]:
        out.append(case(f'f2q_{t}_s{f32(s):.6g}_z{zp}', 'f2q', 'float32', t, (1, 0), (s, zp), [1, 0]))
    # ---- DEQUANTIZE: every stored value
    for t, s, zp in [('int8', 0.1, -3), ('int8', 0.5, 127), ('uint8', 6 / 255, 128), ('uint8', 0.3, 0)]:
        out.append(case(f'dq_{t}_s{f32(s):.6g}_z{zp}', 'dq', t, 'float32', (s, zp), (1, 0), [1, 256]))
    # ---- requantizing QUANTIZE: every stored value; ties at ratios 1/2, 1/4; 8-bit multiplier at 1/3
    for ti, to, qi, qo in [('int8', 'int8', (1.0, 0), (2.0, 0)), ('int8', 'int8', (1.0, 0), (4.0, 5)),
                           ('int8', 'int8', (1.0, -100), (3.0, 5)), ('int8', 'int8', (0.5, 3), (0.25, 127)),
                           ('int8', 'int8', (1.0, 0), (4.0, -128)), ('int8', 'int8', (0.25, 0), (0.0235294, -7)),
                           ('uint8', 'uint8', (1.0, 128), (4.0, 128)), ('uint8', 'uint8', (1.0, 0), (3.0, 255)),
                           ('int8', 'uint8', (1.0, 0), (4.0, 128)), ('uint8', 'int8', (1.0, 128), (2.0, 0))]:
        paths = ['xnnpack', 'tflite'] if ti == to else ['tflite']
        out.append(case(f'rq_{ti}_{to}_{qi[0]:g}_{qi[1]}_{qo[0]:g}_{qo[1]}', 'rq', ti, to, qi, qo, [1, 256],
                        paths=paths))
    # ---- RELU / RELU6: same quantization (a clamp), and requantizing ones (ties at ratio 1/4)
    for kind in ['RELU', 'RELU6']:
        for t, qi, qo in [('int8', (4.0, 1), (4.0, 1)), ('int8', (0.5, -128), (0.5, -128)),
                          ('int8', (1.0, 0), (4.0, 0)), ('int8', (0.5, 3), (0.125, -128)),
                          ('int8', (1.0, 0), (4.0, -3)), ('uint8', (1.0, 128), (4.0, 3)),
                          ('uint8', (0.25, 0), (0.25, 0))]:
            out.append(case(f'{kind.lower()}_{t}_{qi[0]:g}_{qi[1]}_{qo[0]:g}_{qo[1]}', kind.lower(), t, t,
                            qi, qo, [1, 256]))
    # ---- pooling
    geoms = [([1, 7, 7, 3], 3, 3, 2, 2, 'SAME'), ([1, 17, 17, 5], 5, 5, 3, 3, 'SAME'),
             ([1, 3, 3, 1], 2, 2, 1, 1, 'VALID'), ([1, 1, 1, 2], 1, 1, 1, 1, 'VALID'),
             ([2, 6, 5, 4], 2, 3, 2, 1, 'SAME'), ([1, 8, 8, 17], 4, 4, 4, 4, 'VALID')]
    quants = [('int8', (0.25, -128), 'NONE'), ('int8', (0.25, 127), 'NONE'), ('int8', (4.0, 1), 'RELU6'),
              ('int8', (0.5, 1), 'RELU'), ('uint8', (0.25, 128), 'NONE'), ('uint8', (4.0, 3), 'RELU6')]
    gi = 0
    for op in ['avgpool', 'maxpool']:
        for g in geoms:
            for t, q, act in quants:
                gi += 1
                shape, fh, fw, sh, sw, pad = g
                out.append(case(f'{op}_{gi}_{t}_{"x".join(map(str, shape))}_f{fh}x{fw}_s{sh}x{sw}_{pad}_{act}_z{q[1]}',
                                op, t, t, q, q, shape, filter=[fh, fw], stride=[sh, sw], padding=pad,
                                act=act, seed=gi))
    # ---- MEAN: 4-D H,W keep_dims (MobileNet / ResNet), odd sizes, and general axes
    mi = 0
    for t, qi, qo in [('int8', (0.25, -128), (0.25, -128)), ('int8', (0.25, 1), (0.1, 3)),
                      ('int8', (0.5, 127), (0.0625, -5)), ('int8', (0.125, 0), (0.3, 0)),
                      ('uint8', (0.25, 128), (0.25, 128)), ('uint8', (0.5, 0), (0.2, 255))]:
        for shape, axes, keep in [([1, 7, 7, 20], [1, 2], True), ([1, 17, 17, 3], [1, 2], True),
                                  ([2, 3, 3, 17], [1, 2], True), ([1, 1, 1, 5], [1, 2], True),
                                  ([1, 4, 4, 16], [2, 1], True), ([1, 6, 6, 7], [1, 2], False),
                                  ([2, 5, 3, 7], [3], False), ([1, 3, 7, 5], [1], True), ([4, 33], [1], True),
                                  ([2, 4, 4, 3], [0, 3], False)]:
            mi += 1
            out.append(case(f'mean_{mi}_{t}_{"x".join(map(str, shape))}_ax{"".join(map(str, axes))}_k{int(keep)}',
                            'mean', t, t, qi, qo, shape, axes=axes, keep=keep, seed=100 + mi))
    return out


def softmax_cases():
    out = []
    si = 0
    for t, to, qi, qo in [('int8', 'int8', (0.0625, 0), (1 / 256, -128)), ('int8', 'int8', (0.25, -128), (1 / 256, -128)),
                          ('int8', 'int8', (0.015625, 127), (1 / 256, -128)), ('uint8', 'uint8', (0.0625, 128), (1 / 256, 0)),
                          ('uint8', 'uint8', (0.125, 0), (1 / 256, 0))]:
        for shape in ([1, 1], [4, 3], [3, 7], [2, 17], [1, 1000], [2, 2, 2, 10]):
            for beta in (1.0, 0.5):
                si += 1
                out.append(case(f'softmax_{si}_{t}_{"x".join(map(str, shape))}_b{beta:g}', 'softmax', t, to, qi, qo,
                                shape, beta=beta, seed=500 + si))
    # Rows where the kernels part (found by searching random rows with the references: near-ties
    # of p * 256, resolved differently by the fixed point, the float table and the uint16 table).
    for s_in, row in [(0.0625, [-77, -74, 83, -12, 100, -14, -93, 79, -58, -107, 104, -44]),
                      (0.05, [0, 35, -112, -95, 53, -107, 30, 6, -44, 88]),
                      (0.1, [57, -83, -21, -60, 75, -104, -47, -6, 117, -62, 39, -11]),
                      (0.1, [8, -14, 1, 6, 31, 19, 14, 8])]:
        si += 1
        out.append(case(f'softmax_{si}_int8_near_tie_s{s_in:g}', 'softmax', 'int8', 'int8', (s_in, 0),
                        (1 / 256, -128), [1, len(row)], beta=1.0, data=row))
    return out


def rng_ints(c, lo, hi, n):
    rng = np.random.default_rng(c.get('seed', 0) + 7919 * len(c['name']))
    return rng.integers(lo, hi + 1, size=n, dtype=np.int64)


def input_ints(c):
    """The stored input integers of case c (for 'f2q': the float inputs)."""
    if c['op'] == 'f2q':
        s, zp = c['q_out']
        ks = np.arange(-300, 301)
        vals = list(np.float32((ks + 0.5) * s)) + list(np.float32(ks * s * 0.37))
        vals += [np.float32(k * 0.01) for k in range(-1300, 1301, 7)]
        vals += [np.float32(v) for v in (0.0, -0.0, 1e6, -1e6, 254.5 * s, -254.5 * s, 127.5 * s, -128.5 * s)]
        return np.array(vals, dtype=np.float32)
    _, _, lo, hi = TYPES[c['t_in']]
    n = int(np.prod(c['shape']))
    if 'data' in c:
        return np.array(c['data'], dtype=np.int64)
    if c['op'] in ('dq', 'rq', 'relu', 'relu6'):
        return np.arange(lo, hi + 1, dtype=np.int64)
    return rng_ints(c, lo, hi, n)


def model_json(c, path):
    op = c['op']
    quant = lambda q, per_axis, rank: dict(scale=[q[0]], zero_point=[q[1]],
                                           **({'quantized_dimension': max(rank - 1, 0)} if per_axis else {}))
    per_axis = path == 'tflite'
    shape = c['shape'] if op not in ('f2q',) else [int(len(input_ints(c)))]
    if op in ('dq', 'rq', 'relu', 'relu6'):
        shape = [int(len(input_ints(c)))]
    if op in ('f2q', 'dq', 'rq') and path == 'tflite':
        # XNNPACK accepts QUANTIZE / DEQUANTIZE tensors with one-scale per-axis parameters, but no
        # tensor of more than 6 dimensions: rank 7 sends them to TFLite's own kernels.
        per_axis = False
        shape = [1] * 6 + shape[-1:]
    tensors, operators, opnames, buffers = [], [], [], [{}]

    def tensor(name, shp, ttype, q=None, buf=0):
        t = {'name': name, 'shape': list(shp), 'type': ttype, 'buffer': buf}
        if q is not None:
            t['quantization'] = q
        tensors.append(t)
        return len(tensors) - 1

    def add_op(name, ins, outs, options=None):
        if name not in opnames:
            opnames.append(name)
        code, version, otype = OPCODES[name]
        o = {'opcode_index': opnames.index(name), 'inputs': ins, 'outputs': outs}
        if otype:
            o['builtin_options_type'] = otype
            o['builtin_options'] = options or {}
        operators.append(o)

    if op == 'f2q':
        ttype = TYPES[c['t_out']][0]
        x = tensor('x', shape, 'FLOAT32')
        yq = tensor('y_q', shape, ttype, quant(c['q_out'], per_axis, len(shape)))
        y = tensor('y', shape, 'FLOAT32')
        add_op('QUANTIZE', [x], [yq])
        add_op('DEQUANTIZE', [yq], [y])
        inputs, outputs = [x], [y, yq]
    elif op == 'dq':
        ttype = TYPES[c['t_in']][0]
        xq = tensor('x_q', shape, ttype, quant(c['q_in'], per_axis, len(shape)))
        y = tensor('y', shape, 'FLOAT32')
        add_op('DEQUANTIZE', [xq], [y])
        inputs, outputs = [xq], [y]
    else:
        tin, tout = TYPES[c['t_in']][0], TYPES[c['t_out']][0]
        x = tensor('x', shape, 'FLOAT32')
        xq = tensor('x_q', shape, tin, quant(c['q_in'], False, len(shape)))
        add_op('QUANTIZE', [x], [xq])
        if op == 'mean':
            dims = list(shape)
            red = [a % len(dims) for a in c['axes']]
            oshape = [1 if i in red else d for i, d in enumerate(dims) if c['keep'] or i not in red]
            buffers.append({'data': [int(b) for b in np.array(c['axes'], dtype='<i4').view(np.uint8)]})
            ax = tensor('axes', [len(c['axes'])], 'INT32', None, len(buffers) - 1)
            yq = tensor('y_q', oshape, tout, quant(c['q_out'], per_axis, len(oshape)))
            add_op('MEAN', [xq, ax], [yq], {'keep_dims': bool(c['keep'])})
        elif op in ('avgpool', 'maxpool'):
            n, h, w, ch = shape
            fh, fw = c['filter']
            sh, sw = c['stride']
            if c['padding'] == 'SAME':
                oh, ow = -(-h // sh), -(-w // sw)
            else:
                oh, ow = (h - fh) // sh + 1, (w - fw) // sw + 1
            oshape = [n, oh, ow, ch]
            yq = tensor('y_q', oshape, tout, quant(c['q_out'], per_axis, 4))
            add_op('AVERAGE_POOL_2D' if op == 'avgpool' else 'MAX_POOL_2D', [xq], [yq],
                   {'padding': c['padding'], 'stride_w': sw, 'stride_h': sh, 'filter_width': fw,
                    'filter_height': fh, 'fused_activation_function': c['act']})
        elif op in ('relu', 'relu6'):
            oshape = shape
            yq = tensor('y_q', oshape, tout, quant(c['q_out'], per_axis, len(oshape)))
            add_op(op.upper(), [xq], [yq])
        elif op == 'rq':
            oshape = shape
            yq = tensor('y_q', oshape, tout, quant(c['q_out'], per_axis, len(oshape)))
            add_op('QUANTIZE', [xq], [yq])
        elif op == 'softmax':
            oshape = shape
            yq = tensor('y_q', oshape, tout, quant(c['q_out'], per_axis, len(oshape)))
            add_op('SOFTMAX', [xq], [yq], {'beta': c.get('beta', 1.0)})
        y = tensor('y', oshape, 'FLOAT32')
        add_op('DEQUANTIZE', [yq], [y])
        inputs, outputs = [x], [y, yq, xq]
    opcodes = []
    for name in opnames:
        code, version, _ = OPCODES[name]
        opcodes.append({'deprecated_builtin_code': code, 'builtin_code': name, 'version': version})
    return {'version': 3, 'description': f'qparity ops oracle: {c["name"]} ({path} path)',
            'operator_codes': opcodes,
            'subgraphs': [{'name': 'main', 'tensors': tensors, 'inputs': inputs, 'outputs': outputs,
                           'operators': operators}],
            'buffers': buffers}


def model_input(c):
    v = input_ints(c)
    if c['op'] == 'f2q':
        return v.astype(np.float32)
    if c['op'] == 'dq':
        return v.astype(TYPES[c['t_in']][1])
    s, zp = c['q_in']
    shape = c['shape'] if c['op'] not in ('rq', 'relu', 'relu6') else [len(v)]
    return ((v - zp) * np.float64(s)).astype(np.float32).reshape(shape)


def gen(d):
    for sub in ('models', 'inputs'):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    allc = cases() + softmax_cases()
    jobs = []
    for c in allc:
        for p in c['paths']:
            m = f"{c['name']}__{p}"
            model = model_json(c, p)
            sg = model['subgraphs'][0]
            in_shape = sg['tensors'][sg['inputs'][0]]['shape']
            np.save(os.path.join(d, 'inputs', m + '.npy'), model_input(c).reshape(in_shape))
            text = json.dumps(model, indent=1)
            text = re.sub(r'\[[-0-9.e,\s]*\]', lambda mm: ' '.join(mm.group(0).split()), text)
            with open(os.path.join(d, 'models', m + '.json'), 'w') as f:
                f.write(text + '\n')
            jobs.append(f"models/{m}.tflite out/{m} inputs/{m}.npy")
    with open(os.path.join(d, 'jobs.txt'), 'w') as f:
        f.write('\n'.join(jobs) + '\n')
    with open(os.path.join(d, 'cases.json'), 'w') as f:
        json.dump(allc, f)
    print(f'{len(allc)} cases, {len(jobs)} models')


def fmt(v):
    return '%.9g' % float(v)


def collect(d):
    with open(os.path.join(d, 'cases.json')) as f:
        allc = json.load(f)
    lines, bad = [], 0
    for c in allc:
        v = input_ints(c)
        for p in c['paths']:
            od = os.path.join(d, 'out', f"{c['name']}__{p}")
            if not os.path.exists(os.path.join(od, 'output_0.npy')):
                print(f'MISSING {od}')
                bad += 1
                continue
            outs = [np.load(os.path.join(od, f'output_{i}.npy')) for i in range(3)
                    if os.path.exists(os.path.join(od, f'output_{i}.npy'))]
            if c['op'] == 'dq':
                obs = outs[0].ravel()
            else:
                obs = outs[1].ravel().astype(np.int64)
                s, zp = c['q_out']
                deq = ((obs - zp) * np.float64(s)).astype(np.float32)
                if not np.array_equal(deq, outs[0].ravel()):
                    print(f'CHECK {c["name"]} {p}: DEQUANTIZE output is not s * (y_q - zp)')
                    bad += 1
            if c['op'] not in ('f2q', 'dq') and not np.array_equal(outs[2].ravel().astype(np.int64), v):
                print(f'CHECK {c["name"]} {p}: x_q differs from the intended integers')
                bad += 1
            keys = [f"shape={'x'.join(map(str, c['shape']))}"]
            for k in ('filter', 'stride'):
                if k in c:
                    keys.append(f"{k}={'x'.join(map(str, c[k]))}")
            for k in ('padding', 'act'):
                if k in c:
                    keys.append(f'{k}={c[k]}')
            if 'axes' in c:
                keys.append('axes=' + ','.join(map(str, c['axes'])))
                keys.append(f"keep={int(c['keep'])}")
            if 'beta' in c:
                keys.append('beta=' + fmt(c['beta']))
            head = ' '.join([c['name'], p, c['op'], c['t_in'], c['t_out'], fmt(c['q_in'][0]), str(c['q_in'][1]),
                             fmt(c['q_out'][0]), str(c['q_out'][1])] + keys)
            ins = ' '.join(fmt(x) if c['op'] == 'f2q' else str(int(x)) for x in v)
            ob = ' '.join(fmt(x) if c['op'] == 'dq' else str(int(x)) for x in obs)
            lines.append(f'{head} | {ins} | {ob}')
    with open(os.path.join(d, 'observed.txt'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print(f'{len(lines)} models collected, {bad} check failures')
    return bad


if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[1] not in ('gen', 'collect'):
        sys.stderr.write(__doc__)
        sys.exit(2)
    if sys.argv[1] == 'gen':
        gen(sys.argv[2])
    else:
        sys.exit(1 if collect(sys.argv[2]) else 0)
