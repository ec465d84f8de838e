# qparity.Model on a float32 .tflite under the float precisions (docs/semantics.md §24): Model.run
# equals `qparity run --model`, fp16's outputs are float16 values (every store rounded), fp16 drifts
# from fp32 and fp32 does not drift from itself, and an integer preset on the float model is an
# error naming the precisions.
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
