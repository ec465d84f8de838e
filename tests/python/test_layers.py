# conv2d, depthwise_conv2d, fully_connected and gemm against `qparity run` (the same layer JSON and
# .npy tensors) on the fast and the reference engine, against a numpy convolution with TFLite's
# formula, on strided views; and their error messages.
import json

import numpy as np
import pytest

import qparity
import tflite_formula

RNG = np.random.default_rng(7)


def rand(dtype, shape, lo=None, hi=None):
    info = np.iinfo(dtype)
    return RNG.integers(info.min if lo is None else lo, (info.max if hi is None else hi) + 1, shape).astype(dtype)


def cli_run(cli, npy, tmp_path, op, params, x, w, b, preset, reference=False):
    """`qparity run <op>` with the layer JSON `params` (the keyword arguments) on .npy files."""
    (tmp_path / "params.json").write_text(json.dumps(params))
    args = ["run", op, "--params", tmp_path / "params.json", "--input", npy("x", x), "--filter", npy("w", w),
            "--preset", preset, "--output", tmp_path / "y.npy"]
    if b is not None:
        args += ["--bias", npy("b", b)]
    if reference:
        args.append("--reference")
    cli(*args)
    return np.load(tmp_path / "y.npy")


CONV_CASES = [
    # (input dtype, input shape, filter shape, params)
    (np.int8, (2, 11, 13, 8), (16, 3, 3, 8),
     dict(strides=[2, 1], dilations=[1, 2], padding="SAME", input_zero_point=-5, output_zero_point=3,
          input_scale=0.02, filter_scales=[0.001 * (i + 1) for i in range(16)], output_scale=0.07,
          activation="RELU6")),
    (np.uint8, (1, 9, 9, 6), (4, 2, 2, 3),
     dict(groups=2, padding={"top": 1, "bottom": 0, "left": 2, "right": 1}, input_zero_point=128,
          output_zero_point=120, multipliers=[1518500250, 1273741824, 2000000000, 1100000000],
          shifts=[-9, -8, -10, -9], activation_min=100, activation_max=250)),
    (np.int8, (1, 7, 7, 5), (3, 1, 1, 5),
     dict(input_zero_point=2, filter_zero_point=-1, input_scale=0.5, filter_scales=0.25, output_scale=3.0,
          output_dtype="int16")),
]


@pytest.mark.parametrize("case", range(len(CONV_CASES)))
@pytest.mark.parametrize("preset, accumulator", [("tflite-reference", None), ("xnnpack-fp32", None),
                                                 ("ruy-arm", None), ("npu-he-q15-sat24", None),
                                                 ("tflite-reference", "sat20"), ("onnxruntime", "wrap18")])
def test_conv2d_equals_cli(cli, npy, tmp_path, case, preset, accumulator):
    dtype, xs, ws, params = CONV_CASES[case]
    x, w, b = rand(dtype, xs), rand(np.int8, ws, -127, 127), rand(np.int32, ws[:1], -3000, 3000)
    py_params = dict(params)
    if isinstance(py_params.get("padding"), dict):
        p = py_params["padding"]
        py_params["padding"] = (p["top"], p["bottom"], p["left"], p["right"])
    got = qparity.conv2d(x, w, b, preset=preset, accumulator=accumulator, **py_params)
    # The CLI takes the accumulator model through the NPU family name only; for another preset
    # compare with the reference engine, which is a different implementation of the same definition.
    cli_preset = preset if accumulator is None else None
    if cli_preset is not None:
        np.testing.assert_array_equal(got, cli_run(cli, npy, tmp_path, "conv2d", params, x, w, b, preset))
        np.testing.assert_array_equal(got, cli_run(cli, npy, tmp_path, "conv2d", params, x, w, b, preset, True))
    ref = qparity.conv2d(x, w, b, preset=preset, accumulator=accumulator, reference=True, **py_params)
    np.testing.assert_array_equal(got, ref)
    assert got.dtype == np.dtype(params.get("output_dtype", np.dtype(dtype).name))


def test_accumulator_model_matters():
    # Large accumulators: a 12-bit wrapping accumulator must change results, so `accumulator` is
    # really passed down (and equals the NPU-family preset that names it).
    x, w = rand(np.int8, (1, 6, 6, 32)), rand(np.int8, (8, 3, 3, 32), -127, 127)
    kw = dict(input_scale=0.01, filter_scales=0.01, output_scale=0.5)
    wide = qparity.conv2d(x, w, preset="npu-he-q31-int32", **kw)
    sat = qparity.conv2d(x, w, preset="npu-he-q31-int32", accumulator="sat16", **kw)
    assert not np.array_equal(wide, sat)
    np.testing.assert_array_equal(sat, qparity.conv2d(x, w, preset="npu-he-q31-sat16", **kw))


@pytest.mark.parametrize("preset", ["tflite-reference", "xnnpack-rndnu", "cmsis-nn"])
def test_depthwise_equals_cli(cli, npy, tmp_path, preset):
    x, w, b = rand(np.int8, (2, 10, 8, 4)), rand(np.int8, (1, 3, 3, 8), -127, 127), rand(np.int32, (8,), -900, 900)
    params = dict(strides=[2, 2], padding="SAME", depth_multiplier=2, input_zero_point=7, output_zero_point=-4,
                  input_scale=0.03, filter_scales=[0.004 + 0.001 * i for i in range(8)], output_scale=0.04,
                  activation="RELU")
    got = qparity.depthwise_conv2d(x, w, b, preset=preset, **params)
    np.testing.assert_array_equal(got, cli_run(cli, npy, tmp_path, "depthwise_conv2d", params, x, w, b, preset))
    np.testing.assert_array_equal(got, qparity.depthwise_conv2d(x, w, b, preset=preset, reference=True, **params))


@pytest.mark.parametrize("preset", ["tflite-reference", "xnnpack-fp32", "onednn"])
def test_fully_connected_and_gemm_equal_cli(cli, npy, tmp_path, preset):
    if preset not in [p["name"] for p in qparity.presets()]:
        pytest.fail(f"preset {preset} is not in qparity.presets()")
    x, w, b = rand(np.uint8, (5, 2, 3, 7)), rand(np.int8, (9, 42), -127, 127), rand(np.int32, (9,), -5000, 5000)
    params = dict(input_zero_point=131, output_zero_point=140, input_scale=0.05, filter_scales=0.003,
                  output_scale=0.2, activation="RELU6")
    got = qparity.fully_connected(x, w, b, preset=preset, **params)
    assert got.shape == (5, 9)
    np.testing.assert_array_equal(got, cli_run(cli, npy, tmp_path, "fully_connected", params, x, w, b, preset))
    g = qparity.gemm(x.reshape(5, 42), w, b, a_zero_point=131, output_zero_point=140, a_scale=0.05,
                     b_scales=0.003, output_scale=0.2, activation="RELU6", preset=preset)
    np.testing.assert_array_equal(g, got)


def test_conv2d_equals_tflite_formula_in_numpy():
    # An independent oracle: the convolution as numpy integer sums, the requantization as TFLite's
    # MultiplyByQuantizedMultiplier in Python integers (tflite_formula.py).
    x, w, b = rand(np.int8, (1, 6, 7, 3)), rand(np.int8, (5, 3, 2, 3), -127, 127), rand(np.int32, (5,), -800, 800)
    xzp, ozp = -9, 4
    ms, ss = [1518500250, 1073741824, 1900000000, 1200000000, 2100000000], [-8, -9, -10, -7, -8]
    got = qparity.conv2d(x, w, b, strides=(2, 1), input_zero_point=xzp, output_zero_point=ozp,
                         multipliers=ms, shifts=ss)
    oh, ow = (6 - 3) // 2 + 1, 7 - 2 + 1
    want = np.zeros((1, oh, ow, 5), dtype=np.int64)
    xi = x.astype(np.int64) - xzp
    for i in range(oh):
        for j in range(ow):
            patch = xi[0, 2 * i:2 * i + 3, j:j + 2, :]
            for o in range(5):
                acc = int((patch * w[o].astype(np.int64)).sum()) + int(b[o])
                want[0, i, j, o] = tflite_formula.requantize(acc, ms[o], ss[o], ozp, -128, 127)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("make_view", [
    lambda a: a[:, ::-1],                     # negative strides
    lambda a: np.asfortranarray(a),           # Fortran order
    lambda a: np.concatenate([a, a], axis=3)[..., ::2],  # strided
])
def test_views(make_view):
    x, w = rand(np.int8, (1, 8, 8, 4)), rand(np.int8, (6, 3, 3, 4), -127, 127)
    kw = dict(padding="SAME", input_scale=0.02, filter_scales=0.01, output_scale=0.05)
    vx, vw = make_view(x), np.asfortranarray(w)
    assert not vx.flags.c_contiguous
    got = qparity.conv2d(vx, vw, **kw)
    np.testing.assert_array_equal(got, qparity.conv2d(np.ascontiguousarray(vx), w, **kw))


X, W = rand(np.int8, (1, 5, 5, 2)), rand(np.int8, (3, 3, 3, 2), -127, 127)
SCALES = dict(input_scale=0.1, filter_scales=0.1, output_scale=0.1)


@pytest.mark.parametrize("call, error, message", [
    (lambda: qparity.conv2d(X.astype(np.int16), W, **SCALES), TypeError,
     "input: dtype int16 is not allowed; allowed: int8, uint8"),
    (lambda: qparity.conv2d(X, W.astype(np.uint8), **SCALES), TypeError, "filter: dtype uint8 is not allowed; allowed: int8"),
    (lambda: qparity.conv2d(X, W, np.zeros(3, np.int64), **SCALES), TypeError,
     "bias: dtype int64 is not allowed; allowed: int32"),
    (lambda: qparity.conv2d(X, W, np.zeros(4, np.int32), **SCALES), ValueError, "bias"),
    (lambda: qparity.conv2d(X[0], W, **SCALES), ValueError, "input shape [5, 5, 2]"),
    (lambda: qparity.conv2d(X, W[:, :, :, :1], **SCALES), ValueError, "do not fit"),
    (lambda: qparity.conv2d(X, W, strides=0, **SCALES), ValueError, "strides"),
    (lambda: qparity.conv2d(X, W, strides=(1, 2, 3), **SCALES), ValueError,
     "strides: 3 value(s); allowed: an integer or a pair (h, w)"),
    (lambda: qparity.conv2d(X, W, strides=1.5, **SCALES), TypeError, "strides: expected an integer or a pair"),
    (lambda: qparity.conv2d(X, W, padding="FULL", **SCALES), ValueError,
     "padding: 'FULL'; allowed: 'SAME', 'VALID' or (top, bottom, left, right)"),
    (lambda: qparity.conv2d(X, W, input_zero_point=300, **SCALES), ValueError, "input_zero_point"),
    (lambda: qparity.conv2d(X, W, input_scale=0.1, filter_scales=-1.0, output_scale=0.1), ValueError,
     "filter_scales"),
    (lambda: qparity.conv2d(X, W, input_scale=0.1, filter_scales=[0.1, 0.1], output_scale=0.1), ValueError,
     "filter_scales"),
    (lambda: qparity.conv2d(X, W), ValueError, "scale"),
    (lambda: qparity.conv2d(X, W, input_scale=float("inf"), filter_scales=0.1, output_scale=0.1), ValueError,
     "input_scale: inf is out of range; allowed: a finite number > 0"),
    (lambda: qparity.conv2d(X, W, input_scale=0.1, filter_scales=[0.1, float("nan"), 0.1], output_scale=0.1),
     ValueError, "filter_scales[1]: nan is out of range"),
    (lambda: qparity.conv2d(X, W, input_scale=1e300, filter_scales=0.1, output_scale=0.1), ValueError,
     "input_scale: 1e+300 is not representable as a float32 scale"),
    (lambda: qparity.conv2d(X, W, multipliers=[1 << 30], shifts=[40]), ValueError, "shifts"),
    (lambda: qparity.conv2d(X, W, activation="GELU", **SCALES), ValueError, "GELU"),
    (lambda: qparity.conv2d(X, W, output_dtype="float32", **SCALES), ValueError, "output_dtype"),
    (lambda: qparity.conv2d(X, W, preset="nope", **SCALES), ValueError, "preset: preset 'nope' is unknown; allowed:"),
    (lambda: qparity.conv2d(X, W, accumulator="sat99", **SCALES), ValueError,
     "accumulator: 'sat99' is unknown; allowed: int32, int64, sat16..sat48, wrap16..wrap64"),
    (lambda: qparity.depthwise_conv2d(X, W, **SCALES), ValueError, "depthwise_conv2d"),
    (lambda: qparity.fully_connected(X, W, **SCALES), ValueError, "fully_connected"),
    (lambda: qparity.gemm(X, W.reshape(3, 18), a_scale=0.1, b_scales=0.1, output_scale=0.1), ValueError, "a: 4-D array of shape (1, 5, 5, 2); allowed: 2-D [M, K]"),
    (lambda: qparity.gemm(X[0, 0], W.reshape(3, 18)[:, :2], a_zero_point=1000, a_scale=0.1, b_scales=0.1,
                          output_scale=0.1), ValueError, "a_zero_point"),
    (lambda: qparity.gemm(X[0, 0], W.reshape(3, 18)[:, :2], a_scale=0.1, b_scales=[0.1, 0.1], output_scale=0.1),
     ValueError, "b_scales: 2 values for 3 output channels"),
    (lambda: qparity.gemm(X[0, 0].astype(np.int16), W.reshape(3, 18)[:, :2], a_scale=0.1, b_scales=0.1,
                          output_scale=0.1), TypeError, "a: dtype int16 is not allowed; allowed: int8, uint8"),
])
def test_errors(call, error, message):
    with pytest.raises(error) as e:
        call()
    assert message in str(e.value)
