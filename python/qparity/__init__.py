"""qparity: bit-exact int8 arithmetic of inference backends, from Python.

numpy in, numpy out. Every function runs qparity's C++ library (the same code as the `qparity`
command-line tool, so the same bits and the same error messages) with the GIL released; calls are
thread-safe. Array arguments of any layout are accepted and read in C order (strided views,
negative strides and Fortran order through one copy). requantize reads a C-contiguous acc in place;
the layer functions and Model.run copy their inputs once into the tool's runners, which own their
tensors. Results are returned without a copy. A wrong dtype is a TypeError, a wrong shape or
parameter a ValueError naming the argument and its allowed range.

A preset (``presets()``) fixes every axis that changes output bits: rounding core, multiplier
derivation from the real scale, scale composition, activation clamp derivation, accumulator model.
"""
import json as _json
import re as _re

from ._qparity import Model, __version__, explain, preset_info, presets, profiles, requantize
from . import _qparity

__all__ = ["Model", "conv2d", "depthwise_conv2d", "diff", "explain", "fully_connected", "gemm",
           "preset_info", "presets", "profiles", "requantize", "__version__"]

def _is_int(value):
    # bool is an int in Python, never a meaningful stride or zero point.
    import numbers
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _int(name, value):
    if not _is_int(value):
        raise TypeError(f"{name}: expected an integer, got {type(value).__name__}")
    return int(value)


def _pair(name, value):
    """An int or a pair of ints -> [h, w]."""
    if _is_int(value):
        return [int(value), int(value)]
    try:
        items = list(value)
    except TypeError:
        raise TypeError(f"{name}: expected an integer or a pair (h, w) of integers, "
                        f"got {type(value).__name__}") from None
    if len(items) != 2:
        raise ValueError(f"{name}: {len(items)} value(s); allowed: an integer or a pair (h, w)")
    return [_int(f"{name}[{i}]", v) for i, v in enumerate(items)]


def _one_or_list(name, value, convert):
    """A number or a 1-D sequence (list, tuple, numpy array) -> number or list."""
    if hasattr(value, "ndim") and value.ndim == 0:
        value = value.item()
    if isinstance(value, (list, tuple)) or hasattr(value, "__array__"):
        items = [v.item() if hasattr(v, "item") else v for v in list(value)]
        if not items:
            raise ValueError(f"{name}: empty; allowed: one value, or one per output channel")
        return [convert(f"{name}[{i}]", v) for i, v in enumerate(items)]
    return convert(name, value)


def _real(name, value):
    import math
    import numbers
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected a real number, got {type(value).__name__}")
    if not math.isfinite(value):
        # JSON has no inf or nan: refused here with the parser's wording for a bad scale.
        raise ValueError(f"{name}: {float(value)} is out of range; allowed: a finite number > 0")
    return float(value)


def _padding(value):
    if isinstance(value, str):
        if value.upper() not in ("SAME", "VALID"):
            raise ValueError(f"padding: '{value}'; allowed: 'SAME', 'VALID' or (top, bottom, left, right)")
        return value.upper()
    try:
        items = list(value)
    except TypeError:
        raise TypeError("padding: expected 'SAME', 'VALID' or (top, bottom, left, right), "
                        f"got {type(value).__name__}") from None
    if len(items) != 4:
        raise ValueError(f"padding: {len(items)} value(s); allowed: 'SAME', 'VALID' or (top, bottom, left, right)")
    names = ("top", "bottom", "left", "right")
    return {n: _int(f"padding[{i}] ({n})", v) for i, (n, v) in enumerate(zip(names, items))}


_FLOAT_PRECISIONS = ("fp32", "fp16", "fp16-acc16", "bf16")


def _layer(type_, input, filter, bias, conv, *, strides, dilations, padding, groups, depth_multiplier,
           input_zero_point, filter_zero_point, output_zero_point, input_scale, filter_scales,
           output_scale, multipliers, shifts, activation, activation_min, activation_max,
           output_dtype, preset, accumulator, reference):
    # The keyword arguments are the keys of the CLI's layer JSON (tools/qparity/SCHEMA.md): the
    # CLI's parser validates them and names them in its messages.
    p = {"input_zero_point": _int("input_zero_point", input_zero_point),
         "filter_zero_point": _int("filter_zero_point", filter_zero_point),
         "output_zero_point": _int("output_zero_point", output_zero_point)}
    if preset in _FLOAT_PRECISIONS:
        # A float layer (float32 arrays) has no quantization: the zero points are left out when they
        # are the defaults, so that a non-zero one is named by the CLI's parser as not a float key.
        p = {k: v for k, v in p.items() if v != 0}
    if conv:
        p["strides"] = _pair("strides", strides)
        p["dilations"] = _pair("dilations", dilations)
        p["padding"] = _padding(padding)
    if groups is not None:
        p["groups"] = _int("groups", groups)
    if depth_multiplier is not None:
        p["depth_multiplier"] = _int("depth_multiplier", depth_multiplier)
    if input_scale is not None:
        p["input_scale"] = _real("input_scale", input_scale)
    if filter_scales is not None:
        p["filter_scales"] = _one_or_list("filter_scales", filter_scales, _real)
    if output_scale is not None:
        p["output_scale"] = _real("output_scale", output_scale)
    if multipliers is not None:
        p["multipliers"] = _one_or_list("multipliers", multipliers, _int)
    if shifts is not None:
        p["shifts"] = _one_or_list("shifts", shifts, _int)
    if not isinstance(activation, str):
        raise TypeError(f"activation: expected a string, got {type(activation).__name__}")
    p["activation"] = activation.upper()
    if activation_min is not None:
        p["activation_min"] = _int("activation_min", activation_min)
    if activation_max is not None:
        p["activation_max"] = _int("activation_max", activation_max)
    if output_dtype is not None:
        import numpy
        try:
            p["output_dtype"] = numpy.dtype(output_dtype).name
        except TypeError:
            raise TypeError(f"output_dtype: {output_dtype!r} is not a dtype; "
                            "allowed: int8, uint8, int16, int32") from None
    if not isinstance(preset, str):
        raise TypeError(f"preset: expected a preset name (str), got {type(preset).__name__}")
    if accumulator is not None and not isinstance(accumulator, str):
        raise TypeError(f"accumulator: expected a string such as 'int32' or 'sat24', got {type(accumulator).__name__}")
    return _qparity._run_layer(type_, _json.dumps(p), input, filter, bias, preset, accumulator, bool(reference))


def conv2d(input, filter, bias=None, *, strides=1, dilations=1, padding="VALID", groups=None,
           input_zero_point=0, filter_zero_point=0, output_zero_point=0, input_scale=None,
           filter_scales=None, output_scale=None, multipliers=None, shifts=None, activation="NONE",
           activation_min=None, activation_max=None, output_dtype=None, preset="tflite-reference",
           accumulator=None, reference=False):
    """TFLite CONV_2D. See the stub (__init__.pyi) for the arguments."""
    return _layer("conv2d", input, filter, bias, True, strides=strides, dilations=dilations,
                  padding=padding, groups=groups, depth_multiplier=None,
                  input_zero_point=input_zero_point, filter_zero_point=filter_zero_point,
                  output_zero_point=output_zero_point, input_scale=input_scale,
                  filter_scales=filter_scales, output_scale=output_scale, multipliers=multipliers,
                  shifts=shifts, activation=activation, activation_min=activation_min,
                  activation_max=activation_max, output_dtype=output_dtype, preset=preset,
                  accumulator=accumulator, reference=reference)


def depthwise_conv2d(input, filter, bias=None, *, strides=1, dilations=1, padding="VALID",
                     depth_multiplier=None, input_zero_point=0, filter_zero_point=0,
                     output_zero_point=0, input_scale=None, filter_scales=None, output_scale=None,
                     multipliers=None, shifts=None, activation="NONE", activation_min=None,
                     activation_max=None, output_dtype=None, preset="tflite-reference",
                     accumulator=None, reference=False):
    """TFLite DEPTHWISE_CONV_2D. See the stub (__init__.pyi) for the arguments."""
    return _layer("depthwise_conv2d", input, filter, bias, True, strides=strides,
                  dilations=dilations, padding=padding, groups=None,
                  depth_multiplier=depth_multiplier, input_zero_point=input_zero_point,
                  filter_zero_point=filter_zero_point, output_zero_point=output_zero_point,
                  input_scale=input_scale, filter_scales=filter_scales, output_scale=output_scale,
                  multipliers=multipliers, shifts=shifts, activation=activation,
                  activation_min=activation_min, activation_max=activation_max,
                  output_dtype=output_dtype, preset=preset, accumulator=accumulator,
                  reference=reference)


def fully_connected(input, filter, bias=None, *, input_zero_point=0, filter_zero_point=0,
                    output_zero_point=0, input_scale=None, filter_scales=None, output_scale=None,
                    multipliers=None, shifts=None, activation="NONE", activation_min=None,
                    activation_max=None, output_dtype=None, preset="tflite-reference",
                    accumulator=None, reference=False):
    """TFLite FULLY_CONNECTED. See the stub (__init__.pyi) for the arguments."""
    return _layer("fully_connected", input, filter, bias, False, strides=None, dilations=None,
                  padding=None, groups=None, depth_multiplier=None,
                  input_zero_point=input_zero_point, filter_zero_point=filter_zero_point,
                  output_zero_point=output_zero_point, input_scale=input_scale,
                  filter_scales=filter_scales, output_scale=output_scale, multipliers=multipliers,
                  shifts=shifts, activation=activation, activation_min=activation_min,
                  activation_max=activation_max, output_dtype=output_dtype, preset=preset,
                  accumulator=accumulator, reference=reference)


_GEMM_RENAMES = {"input_zero_point": "a_zero_point", "filter_zero_point": "b_zero_point",
                 "input_scale": "a_scale", "filter_scales": "b_scales", "input:": "a:", "filter:": "b:"}
_GEMM_NAMES = _re.compile(r"\b(?:input_zero_point|filter_zero_point|input_scale|filter_scales)\b|"
                         r"^(?:input|filter):")


def gemm(a, b, bias=None, *, a_zero_point=0, b_zero_point=0, output_zero_point=0, a_scale=None,
         b_scales=None, output_scale=None, multipliers=None, shifts=None, activation="NONE",
         activation_min=None, activation_max=None, output_dtype=None, preset="tflite-reference",
         accumulator=None, reference=False):
    """C[M, N] = requantize(A[M, K] x B[N, K]^T + bias). See the stub (__init__.pyi)."""
    ndim = getattr(a, "ndim", None)
    if ndim is not None and ndim != 2:
        raise ValueError(f"a: {ndim}-D array of shape {tuple(a.shape)}; allowed: 2-D [M, K]")
    try:
        return fully_connected(a, b, bias, input_zero_point=a_zero_point, filter_zero_point=b_zero_point,
                               output_zero_point=output_zero_point, input_scale=a_scale,
                               filter_scales=b_scales, output_scale=output_scale,
                               multipliers=multipliers, shifts=shifts, activation=activation,
                               activation_min=activation_min, activation_max=activation_max,
                               output_dtype=output_dtype, preset=preset, accumulator=accumulator,
                               reference=reference)
    except (TypeError, ValueError) as e:
        # Errors name fully_connected's arguments; say gemm's instead.
        raise type(e)(_GEMM_NAMES.sub(lambda m: _GEMM_RENAMES[m.group(0)], str(e))) from None


def diff(model, a="tflite-reference", b=None, *, dump_b=None, inputs=None, seed=1, per_channel=False, threads=1):
    """Per-op drift of `model` under arithmetic B against A; see the stub (__init__.pyi)."""
    if isinstance(model, str):
        model = Model(model)
    if not isinstance(model, Model):
        raise TypeError(f"model: expected a qparity.Model or a path, got {type(model).__name__}")
    for name, value in (("a", a), ("b", b), ("dump_b", dump_b)):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name}: expected a string, got {type(value).__name__}")
    if not _is_int(seed) or seed < 0 or seed >= 2 ** 64:
        raise ValueError(f"seed = {seed!r}; allowed: an integer in [0, 2^64-1]")
    # The CLI's JSON report, parsed: the same numbers as `qparity diff --model ... --json`.
    if not _is_int(threads) or threads < 1 or threads > 64:
        raise ValueError(f"threads = {threads!r}; allowed: an integer in [1, 64]")
    report = _json.loads(_qparity._diff_json(model, a, b, dump_b, inputs, int(seed), bool(per_channel),
                                             int(threads)))
    return report["layers"]
