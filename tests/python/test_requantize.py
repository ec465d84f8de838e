# qparity.requantize against the `qparity requant` tool, the header-only reference, TFLite's
# formula written in Python, on strided views; and its error messages.
import numpy as np
import pytest

import qparity
import tflite_formula

RNG = np.random.default_rng(20261127)
ACC = np.concatenate([RNG.integers(-2 ** 31, 2 ** 31, 3000, dtype=np.int64),
                      np.array([-2 ** 31, 2 ** 31 - 1, 0, 1, -1, 127, -128, 135, -10]),
                      RNG.integers(-5000, 5000, 1000)]).astype(np.int32)


def cli_requant(cli, tmp_path, preset, lines, scale=False):
    path = tmp_path / "in.csv"
    path.write_text("\n".join(lines) + "\n")
    out = cli("requant", "--preset", preset, "--input", path, *(["--scale"] if scale else []))
    return np.array([int(v) for v in out.split()], dtype=np.int64)


@pytest.mark.parametrize("preset", ["tflite-reference", "tflite-single", "ruy-x86", "ruy-arm",
                                    "xnnpack-fp32", "xnnpack-rndnu", "onnxruntime",
                                    "npu-he-q15-int32", "npu-tz-f24-int32"])
def test_multiplier_shift_equals_cli(cli, tmp_path, preset):
    m, s = 1518500250, -9
    got = qparity.requantize(ACC, m, s, preset=preset, dtype="int32")
    want = cli_requant(cli, tmp_path, preset, [f"{a},{m},{s}" for a in ACC])
    np.testing.assert_array_equal(got, want)
    ref = qparity.requantize(ACC, m, s, preset=preset, dtype="int32", reference=True)
    np.testing.assert_array_equal(ref, want)


@pytest.mark.parametrize("preset", ["tflite-reference", "xnnpack-fp32", "xnnpack-rndnu", "npu-verisilicon"])
def test_scale_equals_cli(cli, tmp_path, preset):
    scale = 0.0037
    got = qparity.requantize(ACC, scale=scale, preset=preset, dtype="int32")
    want = cli_requant(cli, tmp_path, preset, [f"{a},{scale!r}" for a in ACC], scale=True)
    np.testing.assert_array_equal(got, want)


def test_per_channel_equals_per_tensor_columns(cli, tmp_path):
    acc = ACC[:4000].reshape(1000, 4)
    ms = np.array([1518500250, 1073741824, 2147483647, 1999999999], dtype=np.int32)
    ss = np.array([-9, -1, -20, 0], dtype=np.int32)
    got = qparity.requantize(acc, ms, ss, preset="tflite-reference", zero_point=3, qmin=-100, qmax=100)
    assert got.dtype == np.int8 and got.shape == acc.shape
    for c in range(4):
        col = qparity.requantize(np.ascontiguousarray(acc[:, c]), int(ms[c]), int(ss[c]), zero_point=3,
                                 qmin=-100, qmax=100)
        np.testing.assert_array_equal(got[:, c], col)
        want = cli_requant(cli, tmp_path, "tflite-reference", [f"{a},{ms[c]},{ss[c]}" for a in acc[:, c]])
        np.testing.assert_array_equal(got[:, c], np.clip(want + 3, -100, 100))
    scales = [0.001, 0.02, 0.5, 3e-5]
    by_scale = qparity.requantize(acc, scale=scales, preset="xnnpack-fp32")
    for c in range(4):
        np.testing.assert_array_equal(by_scale[:, c], qparity.requantize(np.ascontiguousarray(acc[:, c]),
                                                                         scale=scales[c], preset="xnnpack-fp32"))


def test_tflite_formula_in_python():
    for m, s in [(1518500250, -9), (1073741824, -1), (2147483647, 0), (1288490189, -31)]:
        got = qparity.requantize(ACC, m, s, zero_point=-7, dtype="int16")
        want = [tflite_formula.requantize(a, m, s, -7, -32768, 32767) for a in ACC]
        np.testing.assert_array_equal(got, np.array(want, dtype=np.int16))


def test_output_dtypes_and_clamp():
    acc = np.arange(-1000, 1000, 7, dtype=np.int32)
    wide = qparity.requantize(acc, 1073741824, 0, dtype="int32", zero_point=0)
    for dtype, lo, hi in [("int8", -128, 127), ("uint8", 0, 255), ("int16", -32768, 32767)]:
        got = qparity.requantize(acc, 1073741824, 0, dtype=dtype, zero_point=lo + 10)
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got, np.clip(wide + lo + 10, lo, hi))


@pytest.mark.parametrize("make_view", [
    lambda a: a[:, ::2],              # strided
    lambda a: a[::-1, ::-1],          # negative strides
    lambda a: np.asfortranarray(a),   # Fortran order
    lambda a: a.T,                    # transposed view
])
def test_views_read_in_c_order(make_view):
    base = ACC[:4000].reshape(40, 100)
    view = make_view(base)
    got = qparity.requantize(view, 1518500250, -9)
    want = qparity.requantize(np.ascontiguousarray(view), 1518500250, -9)
    assert got.shape == view.shape
    np.testing.assert_array_equal(got, want)
    per_channel = qparity.requantize(view, scale=np.linspace(0.001, 0.01, view.shape[-1]), preset="xnnpack-fp32")
    np.testing.assert_array_equal(
        per_channel, qparity.requantize(np.ascontiguousarray(view), scale=np.linspace(0.001, 0.01, view.shape[-1]),
                                        preset="xnnpack-fp32"))


def test_zero_dim_and_empty():
    assert qparity.requantize(np.array(135, dtype=np.int32), scale=0.0037).shape == ()
    # 135 * 0.0037 = 0.4995, yet 1 under tflite-reference: its first rounding makes a tie (README).
    assert int(qparity.requantize(np.array(135, dtype=np.int32), scale=0.0037)) == 1
    assert qparity.requantize(np.zeros((0, 3), dtype=np.int32), 1 << 30, 0).shape == (0, 3)


@pytest.mark.parametrize("call, error, message", [
    (lambda: qparity.requantize(ACC.astype(np.int64), 1 << 30, 0), TypeError,
     "acc: dtype int64 is not allowed; allowed: int32"),
    (lambda: qparity.requantize(ACC.astype(np.float32), 1 << 30, 0), TypeError,
     "acc: dtype float32 is not allowed; allowed: int32"),
    (lambda: qparity.requantize([1, 2, 3], 1 << 30, 0), TypeError, "acc: expected a numpy array, got list"),
    (lambda: qparity.requantize(ACC.astype(">i4"), 1 << 30, 0), TypeError, "not in the machine's byte order"),
    (lambda: qparity.requantize(ACC, 2 ** 31, 0), ValueError,
     "multiplier = 2147483648 is out of range; allowed: [0, 2147483647] (Q31 mantissa)"),
    (lambda: qparity.requantize(ACC, 1 << 30, 31), ValueError,
     "shift = 31 is out of range; allowed: [-31, 30] (TFLite convention, > 0 = left)"),
    (lambda: qparity.requantize(ACC, 1 << 30, True), TypeError, "shift: expected an integer, got bool"),
    (lambda: qparity.requantize(ACC, 1 << 30), ValueError, "multiplier needs shift"),
    (lambda: qparity.requantize(ACC), ValueError, "give either scale or multiplier and shift"),
    (lambda: qparity.requantize(ACC, 1 << 30, 0, scale=0.1), ValueError, "scale cannot be combined"),
    (lambda: qparity.requantize(ACC, scale=-0.5), ValueError, "scale under preset tflite-reference: scale = -0.5"),
    (lambda: qparity.requantize(ACC, scale=float("nan")), ValueError, "allowed: a finite value > 0"),
    (lambda: qparity.requantize(ACC, scale="0.1"), TypeError, "scale: expected a real number, got str"),
    (lambda: qparity.requantize(ACC, [1, 2], [0]), ValueError, "allowed: as many shifts as multipliers"),
    (lambda: qparity.requantize(ACC[:4000].reshape(-1, 4), scale=[0.1, 0.2, 0.3]), ValueError,
     "4 channel(s) on its last axis but 3 parameters were given"),
    (lambda: qparity.requantize(ACC, 1 << 30, 0, dtype="float32"), ValueError,
     "dtype: 'float32' is not allowed; allowed: int8, uint8, int16, int32"),
    (lambda: qparity.requantize(ACC, 1 << 30, 0, zero_point=128), ValueError,
     "zero_point = 128 is out of range; allowed: [-128, 127] (int8)"),
    (lambda: qparity.requantize(ACC, 1 << 30, 0, qmin=10, qmax=5), ValueError,
     "qmax = 5 is out of range; allowed: [10, 127]"),
    (lambda: qparity.requantize(ACC, 1 << 30, 0, preset="tflite"), ValueError,
     "preset 'tflite' is unknown; allowed: tflite-reference"),
])
def test_errors(call, error, message):
    with pytest.raises(error) as e:
        call()
    assert message in str(e.value)
