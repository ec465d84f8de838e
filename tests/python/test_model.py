# qparity.Model and qparity.diff against `qparity run --model --all-outputs` and
# `qparity diff --model --json` on a model the tool exported.
import json
import os

import numpy as np
import pytest

import qparity


def test_model_metadata(model_path):
    m = qparity.Model(model_path)
    assert [i["dtype"] for i in m.inputs] == ["int8"]
    assert m.inputs[0]["shape"] == (1, 17, 17, 8)
    assert [o["shape"] for o in m.outputs] == [(1, 6)]
    assert len(m.ops) == 3 and "CONV_2D" in m.ops[0]
    assert "qparity.Model(" in repr(m)


@pytest.mark.parametrize("preset", ["tflite-reference", "tflite-xnnpack-x86", "npu-verisilicon",
                                    "0=ruy-arm,1-=xnnpack-fp32"])
def test_run_equals_cli(cli, model_path, tmp_path, preset):
    m = qparity.Model(model_path)
    x = np.load(os.path.join(os.path.dirname(model_path), "x.npy"))
    got = m.run([x], preset=preset)
    out = tmp_path / "all"
    cli("run", "--model", model_path, "--preset", preset, "--input", os.path.join(os.path.dirname(model_path), "x.npy"),
        "--all-outputs", out)
    files = sorted(os.listdir(out))
    assert files, "the CLI wrote no tensors"
    # The CLI writes the tensors ops compute and the inputs; every one must be in the dict, equal.
    for f in files:
        name = f[:-4]
        assert name in got, f"{name} missing from Model.run's result ({sorted(got)})"
        want = np.load(out / f)
        assert got[name].dtype == want.dtype
        np.testing.assert_array_equal(got[name], want)
    # The reference engine and a dict input give the same bits; seeded inputs are the CLI's.
    by_name = m.run({m.inputs[0]["name"]: x}, preset=preset, reference=True)
    for name in got:
        np.testing.assert_array_equal(by_name[name], got[name])
    seeded = m.run(preset=preset, seed=3)
    cli("run", "--model", model_path, "--preset", preset, "--seed", 3, "--output", tmp_path / "seeded.npy")
    np.testing.assert_array_equal(seeded[m.outputs[0]["name"]], np.load(tmp_path / "seeded.npy"))


@pytest.mark.parametrize("a, b, per_channel", [("tflite-reference", "npu-verisilicon", False),
                                               ("tflite-xnnpack-x86", "tflite-reference", True)])
def test_diff_equals_cli_json(cli, model_path, tmp_path, a, b, per_channel):
    x = os.path.join(os.path.dirname(model_path), "x.npy")
    got = qparity.diff(qparity.Model(model_path), a=a, b=b, inputs=[np.load(x)], per_channel=per_channel)
    cli("diff", "--model", model_path, "--a", a, "--b", b, "--input", x, "--json", tmp_path / "d.json",
        *(["--per-channel"] if per_channel else []))
    want = json.loads((tmp_path / "d.json").read_text())["layers"]
    assert got == want
    assert len(got) == 3 and {"isolated", "accumulated", "name", "shape"} <= set(got[0])
    # The arithmetics differ somewhere on this model, or the comparison proves nothing.
    assert any(layer["accumulated"]["differing"] > 0 for layer in got)


def test_diff_against_dumps(cli, model_path, tmp_path):
    # A "device" whose dumps are the model under npu-verisilicon: diff against them equals the
    # diff of the two arithmetics' accumulated drift.
    m = qparity.Model(model_path)
    cli("run", "--model", model_path, "--preset", "npu-verisilicon", "--seed", 1, "--all-outputs", tmp_path / "dev")
    got = qparity.diff(m, a="tflite-reference", dump_b=str(tmp_path / "dev"))
    both = qparity.diff(m, a="tflite-reference", b="npu-verisilicon")
    assert [l["accumulated"] for l in got] == [l["accumulated"] for l in both]


@pytest.mark.parametrize("call, error, message", [
    (lambda m: qparity.Model("/nonexistent/m.tflite"), OSError, "/nonexistent/m.tflite"),
    (lambda m: m.run([np.zeros((1, 17, 17, 8), np.uint8)]), TypeError, "dtype uint8 is not allowed; allowed: int8"),
    (lambda m: m.run([np.zeros((1, 17, 17, 9), np.int8)]), ValueError, "shape [1, 17, 17, 9]; allowed: [1, 17, 17, 8]"),
    (lambda m: m.run([]), ValueError, "inputs: 0 array(s) for the 1 input(s)"),
    (lambda m: m.run({"nope": np.zeros((1, 17, 17, 8), np.int8)}), ValueError, "inputs: 'nope' is not an input"),
    (lambda m: m.run(np.zeros((1, 17, 17, 8), np.int8)), TypeError, "inputs: got one array; allowed: a list"),
    (lambda m: m.run(5), TypeError, "inputs: expected None, a list of arrays"),
    (lambda m: m.run(preset="nope"), ValueError, "preset"),
    (lambda m: qparity.diff(m, b=None), ValueError, "give b (an arithmetic"),
    (lambda m: qparity.diff(m, b="tflite-reference", dump_b="/tmp"), ValueError, "one of them"),
    (lambda m: qparity.diff(m, b="nope"), ValueError, "nope"),
    (lambda m: qparity.diff(5, b="tflite-reference"), TypeError, "model: expected a qparity.Model or a path"),
])
def test_errors(model_path, call, error, message):
    m = qparity.Model(model_path)
    with pytest.raises(error) as e:
        call(m)
    assert message in str(e.value)


def test_threads_give_the_one_thread_bits(model_path):
    # threads= splits the convolutions and the fully connected layer over the library's pool (the
    # layers of this small model stay under its work threshold: the C++ tests force the pool).
    m = qparity.Model(model_path)
    one = m.run(preset="tflite-xnnpack-x86")
    two = m.run(preset="tflite-xnnpack-x86", threads=2)
    assert sorted(one) == sorted(two)
    for name in one:
        np.testing.assert_array_equal(one[name], two[name])
    assert qparity.diff(m, "tflite-reference", "tflite-xnnpack-x86", threads=2) == \
        qparity.diff(m, "tflite-reference", "tflite-xnnpack-x86")
    for bad in (0, 65):
        with pytest.raises(ValueError, match=r"threads .*allowed: "):
            m.run(threads=bad)
        with pytest.raises(ValueError, match=r"threads .*allowed: "):
            qparity.diff(m, "tflite-reference", "tflite-xnnpack-x86", threads=bad)
