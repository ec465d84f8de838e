# TFLite's reference requantization written out in Python integers, independently of qparity's
# C++ (tflite/kernels/internal/common.h MultiplyByQuantizedMultiplier, default double-rounding
# build): the tests check the module against it, not only against other qparity code.
INT32_MIN, INT32_MAX = -2 ** 31, 2 ** 31 - 1


def srdhm(a, b):
    """gemmlowp SaturatingRoundingDoublingHighMul."""
    if a == b == INT32_MIN:
        return INT32_MAX
    ab = a * b
    nudge = (1 << 30) if ab >= 0 else 1 - (1 << 30)
    q = abs(ab + nudge) >> 31  # division by 2^31 truncating toward zero
    return q if ab + nudge >= 0 else -q


def rounding_divide_by_pot(x, exponent):
    """gemmlowp RoundingDivideByPOT: ties away from zero."""
    mask = (1 << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> exponent) + (1 if remainder > threshold else 0)


def multiply_by_quantized_multiplier(x, multiplier, shift):
    """For shift <= 0 (no left pre-shift, whose int32 overflow TFLite leaves undefined)."""
    assert shift <= 0
    return rounding_divide_by_pot(srdhm(x, multiplier), -shift)


def requantize(acc, multiplier, shift, zero_point, qmin, qmax):
    v = multiply_by_quantized_multiplier(int(acc), int(multiplier), int(shift)) + zero_point
    return min(max(v, qmin), qmax)
