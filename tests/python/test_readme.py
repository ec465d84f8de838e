# The README's Python example, run as written: the code between the markers
# "<!-- python-example: begin -->" and "<!-- python-example: end -->" in README.md. Its model is the
# demo's, exported by `qparity export` as the README's Models section does.
import os
import re


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def readme_example():
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    m = re.search(r"<!-- python-example: begin -->\s*```python\n(.*?)```\s*<!-- python-example: end -->", text, re.S)
    assert m, "README.md has no python example between the markers"
    return m.group(1)


def test_readme_example(cli, tmp_path, monkeypatch, capsys):
    code = readme_example()
    cli("export", "--stack", os.path.join(ROOT, "examples/npu_drift/stack.json"), "--output",
        tmp_path / "npu_drift.tflite", "--save-input", tmp_path / "input.npy")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md (python example)", "exec"), {"__name__": "readme_example"})
    out = capsys.readouterr().out
    assert "1 of 1024 outputs differ, by at most 1 LSB" in out  # the oracle check found the NPU's 1-LSB drift
    assert "19 conv19 10607 6 0.998212" in out  # the model diff's last op, as the README's table shows
