# qparity.presets / profiles / explain against `qparity list` and `qparity explain`, and explain's
# results against requantize (the library's kernels, another code path than the trace).
import numpy as np
import pytest

import qparity


def test_presets_equal_cli_list(cli):
    names = [p["name"] for p in qparity.presets()]
    assert len(names) == len(set(names)) >= 15
    listed = cli("list")
    for p in qparity.presets():
        assert p["name"] in listed
        assert set(p) == {"name", "description", "source", "core", "formula", "tie_rule", "derivation",
                          "composition", "clamp", "accumulator"}
    ref = qparity.preset_info("tflite-reference")
    assert (ref["core"], ref["accumulator"]) == ("DR-AZ", "int32")
    npu = qparity.preset_info("npu-he-q15-sat24")
    assert npu["accumulator"] == "sat24"
    assert "tflite-xnnpack-x86" in [p["name"] for p in qparity.profiles()]


@pytest.mark.parametrize("acc, kw", [(135, dict(scale=0.0037)), (-10, dict(multiplier=1073741824, shift=-1)),
                                     (2 ** 31 - 1, dict(scale=3e-9)), (-7777, dict(multiplier=2147483647, shift=-12))])
def test_explain_equals_cli_and_requantize(cli, acc, kw):
    rows = qparity.explain(acc, zero_point=0, **kw)
    assert [r["preset"] for r in rows] == [p["name"] for p in qparity.presets()]
    args = ["explain", acc] + (["--scale", repr(kw["scale"])] if "scale" in kw else
                               ["--multiplier", kw["multiplier"], "--shift", kw["shift"]])
    table = cli(*args).splitlines()
    for r in rows:
        line = next((l for l in table if l.split()[:1] == [r["preset"]]), None)
        assert line is not None, f"no row for {r['preset']} in the CLI's table"
        if r["error"] is not None:
            continue
        assert r["params"] in line and r["rule"] in line, (r, line)
        # The result against the library's requantization kernels.
        if "scale" in kw:
            want = qparity.requantize(np.array([acc], np.int32), scale=kw["scale"], preset=r["preset"], dtype="int32")
        else:
            want = qparity.requantize(np.array([acc], np.int32), kw["multiplier"], kw["shift"], preset=r["preset"],
                                      dtype="int32")
        assert r["result"] == int(want[0]), r


def test_explain_tie_rules():
    # 135 * 0.0037 = 0.4995: DR-AZ (tflite-reference) gives 1 through its double rounding, SR-UP 0.
    rows = {r["preset"]: r for r in qparity.explain(135, scale=0.0037, presets=["tflite-reference", "tflite-single"])}
    assert rows["tflite-reference"]["result"] == 1 and rows["tflite-single"]["result"] == 0
    assert rows["tflite-reference"]["steps"] and all(len(s) == 2 for s in rows["tflite-reference"]["steps"])
    # -2.5 with ties: half away from zero -3; half up -2.
    rows = {r["preset"]: r for r in qparity.explain(-10, multiplier=1 << 30, shift=-1,
                                                     presets=["tflite-reference", "tflite-single"])}
    assert (rows["tflite-reference"]["result"], rows["tflite-single"]["result"]) == (-3, -2)


@pytest.mark.parametrize("call, error, message", [
    (lambda: qparity.explain(2 ** 31, scale=0.1), ValueError,
     "acc = 2147483648 is out of range; allowed: [-2147483648, 2147483647] (int32 accumulator)"),
    (lambda: qparity.explain(1, scale=0.1, multiplier=5, shift=0), ValueError, "scale cannot be combined"),
    (lambda: qparity.explain(1, multiplier=5), ValueError, "multiplier needs shift"),
    (lambda: qparity.explain(1), ValueError, "give either scale or multiplier and shift"),
    (lambda: qparity.explain(1, scale=1e-30), ValueError, "scale = 1e-30 is out of range; allowed: a finite value in [2^-64, 2^31]"),
    (lambda: qparity.explain(1, multiplier=-1, shift=0), ValueError, "multiplier = -1 is out of range; allowed: [0, 2147483647]"),
    (lambda: qparity.explain(1, multiplier=1, shift=-32), ValueError, "shift = -32 is out of range; allowed: [-31, 30]"),
    (lambda: qparity.explain(1, scale=0.1, zero_point=70000), ValueError, "zero_point = 70000 is out of range; allowed: [-32768, 65535]"),
    (lambda: qparity.explain(1, scale=0.1, presets=["tflite-reference", "x"]), ValueError, "presets[1]: preset 'x' is unknown"),
    (lambda: qparity.explain(1, scale=0.1, presets=[]), ValueError, "presets: empty"),
    (lambda: qparity.explain("1", scale=0.1), TypeError, ""),
    (lambda: qparity.preset_info("nope"), ValueError, "name: preset 'nope' is unknown; allowed: tflite-reference"),
])
def test_errors(call, error, message):
    with pytest.raises(error) as e:
        call()
    assert message in str(e.value)
