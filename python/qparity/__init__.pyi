# Type stubs and documentation of the qparity Python module (what an editor shows).
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

Scalars = Union[int, Sequence[int], npt.NDArray[np.integer]]
Reals = Union[float, Sequence[float], npt.NDArray[np.floating]]
Inputs = Union[None, Sequence[npt.NDArray[Any]], Mapping[str, npt.NDArray[Any]]]

def presets() -> List[Dict[str, str]]:
    """The named presets, in documentation order: one dict per preset with "name",
    "description", "source" (where the behaviour was read), "core" (rounding core, e.g. "DR-AZ"),
    "formula", "tie_rule", "derivation" (multiplier from the real scale), "composition" (how
    s_in * s_w / s_out is composed), "clamp" (activation bound quantization) and "accumulator"
    ("int32", "sat24", ...). NPU-family names ("npu-he-q15-int32", ...) are accepted wherever a
    preset is, and described by preset_info()."""

def profiles() -> List[Dict[str, str]]:
    """The runtime profiles (tflite-xnnpack-x86, ...): name, description, source. A profile picks
    a preset per op the way that runtime does; Model.run and diff take profiles, presets, or
    per-op maps of them ("npu-verisilicon,SOFTMAX=tflite-reference")."""

def preset_info(name: str) -> Dict[str, str]:
    """One preset's record (as presets()), NPU-family names included. ValueError lists the names."""

def explain(acc: int, *, scale: Optional[float] = None, multiplier: Optional[int] = None,
            shift: Optional[int] = None, zero_point: int = 0,
            presets: Optional[Sequence[str]] = None) -> List[Dict[str, Any]]:
    """What `qparity explain` prints, as records: for one int32 accumulator, under every named
    preset (or `presets`), the parameters the preset derives ("params"), the intermediate values of
    its rounding core ("steps": [(name, exact decimal)]), the "result" (zero point included) and the
    "rule" that decided it ("tie, half to even", "no tie (nearest)", ...); "error" says why a preset
    cannot represent the scale (the other fields are then None).

    Give scale (real, in [2^-64, 2^31]: each preset derives its own parameters from it as the system
    it reproduces would) or multiplier (Q31 mantissa, [0, 2^31-1]) and shift ([-31, 30], TFLite
    convention: real scale = multiplier * 2^(shift-31)); zero_point in [-32768, 65535]."""

def requantize(acc: npt.NDArray[np.int32], multiplier: Optional[Scalars] = None,
               shift: Optional[Scalars] = None, *, scale: Optional[Reals] = None,
               preset: str = "tflite-reference", zero_point: int = 0, qmin: Optional[int] = None,
               qmax: Optional[int] = None, dtype: str = "int8",
               reference: bool = False) -> npt.NDArray[Any]:
    """out = clamp(core(acc, params) + zero_point, qmin, qmax), element-wise, with the preset's
    rounding core (e.g. tflite-reference: SaturatingRoundingDoublingHighMul then
    RoundingDivideByPOT, ties away from zero). acc: int32 array of any shape.

    Parameters: multiplier and shift (TFLite convention, as `qparity requant`: Q31 cores use them
    as given, Q15 cores reduce the multiplier, float cores use float(M * 2^(shift-31))), or scale
    (the preset derives its parameters). One value: per tensor; one per channel of the last axis:
    per channel. dtype: int8, uint8, int16 or int32; qmin/qmax default to its range.
    reference=True runs the header-only definition instead of the SIMD kernels (same bits)."""

def conv2d(input: npt.NDArray[Any], filter: npt.NDArray[Any],
           bias: Optional[npt.NDArray[Any]] = None, *, strides: Union[int, Tuple[int, int]] = 1,
           dilations: Union[int, Tuple[int, int]] = 1,
           padding: Union[str, Tuple[int, int, int, int]] = "VALID", groups: Optional[int] = None,
           input_zero_point: int = 0, filter_zero_point: int = 0, output_zero_point: int = 0,
           input_scale: Optional[float] = None, filter_scales: Optional[Reals] = None,
           output_scale: Optional[float] = None, multipliers: Optional[Scalars] = None,
           shifts: Optional[Scalars] = None, activation: str = "NONE",
           activation_min: Optional[int] = None, activation_max: Optional[int] = None,
           output_dtype: Optional[str] = None, preset: str = "tflite-reference",
           accumulator: Optional[str] = None, reference: bool = False) -> npt.NDArray[Any]:
    """TFLite CONV_2D: input NHWC (int8 or uint8), filter OHWI int8 (I = in_channels / groups),
    bias int32 [O] in accumulator units. acc = bias + sum (x - input_zp) * (w - filter_zp), run
    through the accumulator model (int32, int64, satN, wrapN: the preset's unless `accumulator`),
    requantized by the preset's rounding core, plus output_zero_point, clamped by the activation.

    Requantization from input_scale, filter_scales (one or one per output channel) and output_scale
    (float32, as TFLite stores them; the preset composes and derives its own multipliers), or from
    explicit multipliers/shifts (TFLite convention). padding: "SAME", "VALID" or explicit
    (top, bottom, left, right). activation: NONE, RELU, RELU6, RELU_N1_TO_1 (quantized with the
    preset's clamp derivation) or explicit activation_min/max. output_dtype: int8, uint8, int16,
    int32 (default: the input's). reference=True forces the header-only oracle. Exactly
    `qparity run conv2d` (tools/qparity/SCHEMA.md), whose keys these arguments are.

    Under a float precision (preset "fp32", "fp16", "fp16-acc16" or "bf16"; also for
    depthwise_conv2d and fully_connected): float32 input, filter and bias, no quantization
    arguments (zero points, scales, multipliers, activation bounds, output_dtype, accumulator);
    float32 result, every store rounded to the precision's format, equal to Model.run on the
    same layer as a float .tflite (docs/semantics.md §24)."""

def depthwise_conv2d(input: npt.NDArray[Any], filter: npt.NDArray[Any],
                     bias: Optional[npt.NDArray[Any]] = None, *,
                     strides: Union[int, Tuple[int, int]] = 1,
                     dilations: Union[int, Tuple[int, int]] = 1,
                     padding: Union[str, Tuple[int, int, int, int]] = "VALID",
                     depth_multiplier: Optional[int] = None, input_zero_point: int = 0,
                     filter_zero_point: int = 0, output_zero_point: int = 0,
                     input_scale: Optional[float] = None, filter_scales: Optional[Reals] = None,
                     output_scale: Optional[float] = None, multipliers: Optional[Scalars] = None,
                     shifts: Optional[Scalars] = None, activation: str = "NONE",
                     activation_min: Optional[int] = None, activation_max: Optional[int] = None,
                     output_dtype: Optional[str] = None, preset: str = "tflite-reference",
                     accumulator: Optional[str] = None, reference: bool = False) -> npt.NDArray[Any]:
    """TFLite DEPTHWISE_CONV_2D: input NHWC, filter [1, H, W, O] int8 (O = C * depth_multiplier).
    Arithmetic and arguments as conv2d."""

def fully_connected(input: npt.NDArray[Any], filter: npt.NDArray[Any],
                    bias: Optional[npt.NDArray[Any]] = None, *, input_zero_point: int = 0,
                    filter_zero_point: int = 0, output_zero_point: int = 0,
                    input_scale: Optional[float] = None, filter_scales: Optional[Reals] = None,
                    output_scale: Optional[float] = None, multipliers: Optional[Scalars] = None,
                    shifts: Optional[Scalars] = None, activation: str = "NONE",
                    activation_min: Optional[int] = None, activation_max: Optional[int] = None,
                    output_dtype: Optional[str] = None, preset: str = "tflite-reference",
                    accumulator: Optional[str] = None, reference: bool = False) -> npt.NDArray[Any]:
    """TFLite FULLY_CONNECTED (keep_num_dims = false): filter [O, I] int8; the input is read as
    [batch, I] (batch = input.size / I), the output is [batch, O]. Arithmetic as conv2d."""

def gemm(a: npt.NDArray[Any], b: npt.NDArray[np.int8], bias: Optional[npt.NDArray[np.int32]] = None,
         *, a_zero_point: int = 0, b_zero_point: int = 0, output_zero_point: int = 0,
         a_scale: Optional[float] = None, b_scales: Optional[Reals] = None,
         output_scale: Optional[float] = None, multipliers: Optional[Scalars] = None,
         shifts: Optional[Scalars] = None, activation: str = "NONE",
         activation_min: Optional[int] = None, activation_max: Optional[int] = None,
         output_dtype: Optional[str] = None, preset: str = "tflite-reference",
         accumulator: Optional[str] = None, reference: bool = False) -> npt.NDArray[Any]:
    """C[M, N] = requantize(bias[n] + sum_k (A[m, k] - a_zp) * (B[n, k] - b_zp)): fully_connected
    with a 2-D A [M, K] (int8 or uint8) and B [N, K] int8 (weights N x K, one row per output
    channel)."""

class Model:
    """A model file (.tflite) read and validated once; immutable, usable from several threads."""
    def __init__(self, path: str) -> None: ...
    @property
    def path(self) -> str: ...
    @property
    def inputs(self) -> List[Dict[str, Any]]:
        """The graph inputs, in order: name, dtype, shape, scales, zero_points."""
    @property
    def outputs(self) -> List[Dict[str, Any]]: ...
    @property
    def ops(self) -> List[str]:
        """The ops in execution order, as the CLI names them ("op 3 (CONV_2D 'conv1')")."""
    def run(self, inputs: Inputs = None, *, preset: str = "tflite-reference", seed: int = 1,
            reference: bool = False, threads: int = 1) -> Dict[str, npt.NDArray[Any]]:
        """Runs the model under `preset` (a preset, a runtime profile such as tflite-xnnpack-x86,
        or a per-op map "npu-verisilicon,SOFTMAX=tflite-reference") and returns every tensor by
        name (constants included; a name two tensors share gets its dump file name,
        "name_<index>"). inputs: one array per graph input in order, a dict by input name, or None
        for the CLI's seeded inputs (`--seed`). threads (1..64): the convolutions and fully
        connected layers split over that many threads, with the same bits as 1 (`--threads`).
        Exactly `qparity run --model --all-outputs`."""

def diff(model: Union[Model, str], a: str = "tflite-reference", b: Optional[str] = None, *,
         dump_b: Optional[str] = None, inputs: Inputs = None, seed: int = 1,
         per_channel: bool = False, threads: int = 1) -> List[Dict[str, Any]]:
    """Per-op drift of the model under B (or a device's dumps in directory dump_b) against A:
    one record per op output of an integer type, the "layers" of `qparity diff --model --json`
    with the same numbers: index, name, preset_a, preset_b, shape, zero_point, "isolated" (the op
    under B fed A's inputs) and "accumulated" (each side on its own previous outputs) metrics with
    elements, differing, percent_differing, max_abs_diff, mae, mean_diff, cosine, histogram
    ([[b - a, count], ...]) and, with per_channel, channels. threads (1..64): as Model.run
    (`--threads`); the same numbers as 1."""
