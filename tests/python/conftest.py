# Shared fixtures of the Python module's tests: the `qparity` command-line tool (the comparisons
# run it on the same data), .npy helpers and a small .tflite model exported by the tool.
#
# The module and the tool come from the build tree: ctest sets PYTHONPATH to build/python and
# QPARITY_CLI to the tool's path (tests/python/CMakeLists.txt). Run by hand:
#   PYTHONPATH=build/python QPARITY_CLI=build/tools/qparity /usr/bin/python3 -m pytest tests/python
import json
import os
import subprocess

import numpy as np
import pytest


def _cli_path():
    path = os.environ.get("QPARITY_CLI")
    if not path or not os.access(path, os.X_OK):
        # Not a skip: a comparison test that cannot run must fail the suite.
        raise RuntimeError(f"QPARITY_CLI={path!r} is not an executable qparity tool; set it to build/tools/qparity")
    return path


@pytest.fixture(scope="session")
def cli():
    """Runs `qparity ARGS...`; returns stdout; raises with stderr on a non-zero exit."""
    path = _cli_path()

    def run(*args, input=None):
        done = subprocess.run([path, *map(str, args)], input=input, capture_output=True, text=True)
        if done.returncode != 0:
            raise AssertionError(f"qparity {' '.join(map(str, args))} exited {done.returncode}: {done.stderr}")
        return done.stdout

    return run


@pytest.fixture
def npy(tmp_path):
    """Saves an array as tmp_path/<name>.npy and returns the path."""
    def save(name, array):
        path = tmp_path / f"{name}.npy"
        np.save(path, array)
        return str(path)
    return save


@pytest.fixture(scope="session")
def model_path(tmp_path_factory, cli):
    """A three-op .tflite model (conv2d, depthwise_conv2d, fully_connected; real scales,
    per-channel filter scales, RELU6) exported by `qparity export` from a stack of seeded layers."""
    d = tmp_path_factory.mktemp("model")
    stack = {
        "input": {"seed": 11, "shape": [1, 17, 17, 8], "min": -128, "max": 127},
        "layers": [
            {"type": "conv2d", "name": "conv", "strides": [2, 2], "padding": "SAME",
             "input_zero_point": -3, "output_zero_point": 5, "input_scale": 0.02,
             "filter_scales": [0.002 + 0.0007 * i for i in range(16)], "output_scale": 0.05,
             "activation": "RELU6",
             "filter": {"seed": 1, "shape": [16, 3, 3, 8], "min": -127, "max": 127},
             "bias": {"seed": 2, "shape": [16], "min": -2000, "max": 2000}},
            {"type": "depthwise_conv2d", "name": "dw", "padding": "VALID",
             "input_zero_point": 5, "output_zero_point": -2, "input_scale": 0.05,
             "filter_scales": 0.009, "output_scale": 0.03,
             "filter": {"seed": 3, "shape": [1, 3, 3, 32], "min": -127, "max": 127}},
            {"type": "fully_connected", "name": "fc", "input_zero_point": -2,
             "output_zero_point": 1, "input_scale": 0.03, "filter_scales": 0.006,
             "output_scale": 0.02,
             "filter": {"seed": 4, "shape": [6, 1568], "min": -127, "max": 127},
             "bias": {"seed": 5, "shape": [6], "min": -500, "max": 500}},
        ],
    }
    (d / "stack.json").write_text(json.dumps(stack))
    cli("export", "--stack", d / "stack.json", "--output", d / "m.tflite", "--save-input", d / "x.npy")
    return str(d / "m.tflite")
