# The type stubs (python/qparity/__init__.pyi, what editors show) describe the module as it is:
# every public name, and for each function the same parameters in the same order with the same
# defaults as the implementation (the pybind11 functions' signatures are read from their
# docstrings' first line).
import ast
import inspect
import os
import re

import qparity


def stub_functions():
    """{name: ([parameter names], {parameter: default})} for functions, {name: None} for classes."""
    tree = ast.parse(open(os.path.join(os.path.dirname(qparity.__file__), "__init__.pyi")).read())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            a = node.args
            positional = [x.arg for x in a.args]
            defaults = dict(zip(positional[len(positional) - len(a.defaults):], map(ast.literal_eval, a.defaults)))
            defaults.update({x.arg: ast.literal_eval(d) for x, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
            out[node.name] = (positional + [x.arg for x in a.kwonlyargs], defaults)
        elif isinstance(node, ast.ClassDef):
            out[node.name] = None
    return out


def runtime_parameters(f):
    try:
        sig = inspect.signature(f)
        return [p.name for p in sig.parameters.values()]
    except (TypeError, ValueError):
        # pybind11: "name(acc: int, *, scale: Optional[float] = None, ...) -> ..."
        first = f.__doc__.splitlines()[0]
        inner = first[first.index("(") + 1:first.rindex(") ->")]
        return [m.group(1) for m in re.finditer(r"(?:^|, )(\w+):", inner)]


def test_every_public_name_has_a_stub():
    stubs = stub_functions()
    for name in qparity.__all__:
        if name != "__version__":
            assert name in stubs, f"{name} has no stub in __init__.pyi"


def test_stub_parameters_match_the_implementation():
    for name, stub in stub_functions().items():
        if stub is None:
            continue
        names, defaults = stub
        f = getattr(qparity, name)
        assert runtime_parameters(f) == names, f"{name}: stub {names} != implementation {runtime_parameters(f)}"
        try:
            sig = inspect.signature(f)
        except (TypeError, ValueError):
            continue
        for k, v in defaults.items():
            assert sig.parameters[k].default == v, f"{name}({k}=...): stub default {v!r}, implementation {sig.parameters[k].default!r}"
