# qparity.Model on a float32 .tflite under the float precisions (docs/semantics.md §24): Model.run
# equals `qparity run --model`, fp16's outputs are float16 values (every store rounded), fp16 drifts
# from fp32 and fp32 does not drift from itself, and an integer preset on the float model is an
# error naming the precisions; conv2d, depthwise_conv2d and fully_connected on float32 arrays under
# each precision give Model.run's bits on the same layer, and refuse quantization arguments.
import json

import numpy as np
import pytest

import qparity


@pytest.fixture(scope="module")
def float_model(tmp_path_factory, cli):
    """conv2d (RELU6) -> fully_connected, float32 weights from seeded numpy arrays, exported."""
    d = tmp_path_factory.mktemp("float_model")
    rng = np.random.default_rng(2)
    np.save(d / "x.npy", rng.uniform(-2, 2, (1, 6, 6, 4)).astype(np.float32))
    np.save(d / "w0.npy", rng.uniform(-0.5, 0.5, (8, 3, 3, 4)).astype(np.float32))
    np.save(d / "b0.npy", rng.uniform(-0.5, 0.5, (8,)).astype(np.float32))
    np.save(d / "w1.npy", rng.uniform(-0.2, 0.2, (3, 4 * 4 * 8)).astype(np.float32))
    stack = {"input": "x.npy", "layers": [
        {"type": "conv2d", "name": "conv", "activation": "RELU6", "filter": "w0.npy", "bias": "b0.npy"},
        {"type": "fully_connected", "name": "fc", "filter": "w1.npy"}]}
    (d / "stack.json").write_text(json.dumps(stack))
    cli("export", "--stack", d / "stack.json", "--output", d / "f.tflite")
    return d


@pytest.mark.parametrize("precision", ["fp32", "fp16", "fp16-acc16", "bf16"])
def test_run_equals_cli(cli, float_model, tmp_path, precision):
    m = qparity.Model(str(float_model / "f.tflite"))
    x = np.load(float_model / "x.npy")
    got = m.run([x], preset=precision)
    cli("run", "--model", float_model / "f.tflite", "--preset", precision, "--input", float_model / "x.npy",
        "--output", tmp_path / "y.npy")
    y = got[m.outputs[0]["name"]]
    np.testing.assert_array_equal(y, np.load(tmp_path / "y.npy"))
    if precision.startswith("fp16"):
        np.testing.assert_array_equal(y, y.astype(np.float16).astype(np.float32))


def test_diff_fp32_fp16(float_model):
    m = qparity.Model(str(float_model / "f.tflite"))
    x = [np.load(float_model / "x.npy")]
    drift = qparity.diff(m, a="fp32", b="fp16", inputs=x)
    assert len(drift) == 2
    assert all(layer["accumulated"]["real"]["max_abs_diff"] > 0 for layer in drift)
    same = qparity.diff(m, a="fp32", b="fp32", inputs=x)
    assert all(layer["accumulated"]["real"]["max_abs_diff"] == 0 for layer in same)


def test_integer_preset_on_a_float_model(float_model):
    m = qparity.Model(str(float_model / "f.tflite"))
    with pytest.raises(ValueError, match="fp32, fp16, fp16-acc16, bf16"):
        m.run([np.load(float_model / "x.npy")], preset="tflite-reference")


def _one_layer_model(cli, d, layer, x, w, b):
    np.save(d / "x.npy", x)
    np.save(d / "w.npy", w)
    if b is not None:
        np.save(d / "b.npy", b)
        layer["bias"] = "b.npy"
    layer["filter"] = "w.npy"
    (d / "stack.json").write_text(json.dumps({"input": "x.npy", "layers": [layer]}))
    cli("export", "--stack", d / "stack.json", "--output", d / "m.tflite")
    return qparity.Model(str(d / "m.tflite"))


@pytest.mark.parametrize("precision", ["fp32", "fp16", "fp16-acc16", "bf16"])
def test_layer_functions_equal_model_run(cli, tmp_path, precision):
    """conv2d, depthwise_conv2d and fully_connected on float32 arrays under a float precision give
    Model.run's bits on the same layer exported as a float .tflite."""
    rng = np.random.default_rng(7)
    x = rng.uniform(-2, 2, (1, 7, 7, 4)).astype(np.float32)
    cases = [
        ("conv2d", {"type": "conv2d", "padding": "SAME", "strides": [2, 2], "activation": "RELU6"},
         rng.uniform(-0.5, 0.5, (6, 3, 3, 4)).astype(np.float32), rng.uniform(-0.5, 0.5, (6,)).astype(np.float32),
         x, lambda w, b: qparity.conv2d(x, w, b, padding="SAME", strides=2, activation="RELU6", preset=precision)),
        ("depthwise_conv2d", {"type": "depthwise_conv2d", "padding": "VALID"},
         rng.uniform(-0.5, 0.5, (1, 3, 3, 4)).astype(np.float32), None,
         x, lambda w, b: qparity.depthwise_conv2d(x, w, preset=precision)),
    ]
    xf = rng.uniform(-2, 2, (2, 40)).astype(np.float32)
    cases.append(("fully_connected", {"type": "fully_connected"},
                  rng.uniform(-0.3, 0.3, (5, 40)).astype(np.float32), rng.uniform(-0.5, 0.5, (5,)).astype(np.float32),
                  xf, lambda w, b: qparity.fully_connected(xf, w, b, preset=precision)))
    fp32_differs = []
    for name, layer, w, b, inp, call in cases:
        d = tmp_path / name
        d.mkdir()
        m = _one_layer_model(cli, d, layer, inp, w, b)
        want = m.run([inp], preset=precision)[m.outputs[0]["name"]]
        got = call(w, b)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, want, err_msg=name)
        fp32_differs.append(not np.array_equal(got, m.run([inp], preset="fp32")[m.outputs[0]["name"]]))
    assert all(fp32_differs) == (precision != "fp32")


def test_layer_function_float_errors():
    x = np.zeros((1, 4, 4, 2), np.float32)
    w = np.zeros((3, 1, 1, 2), np.float32)
    with pytest.raises(ValueError, match="not a parameter of a float layer"):
        qparity.conv2d(x, w, input_zero_point=3, preset="fp16")
    with pytest.raises(ValueError, match="accumulator"):
        qparity.conv2d(x, w, preset="fp16", accumulator="int32")
    with pytest.raises(TypeError, match="input: dtype int8 is not allowed; allowed: float32"):
        qparity.conv2d(x.astype(np.int8), w, preset="fp16")
