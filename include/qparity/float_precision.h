// Float precisions: how a float32 model computes on hardware that stores (and possibly sums) in a
// narrower format, e.g. a GPU under OpenVINO's default INFERENCE_PRECISION_HINT = f16, or a
// bfloat16 accelerator. The header-only reference of CONV_2D, DEPTHWISE_CONV_2D,
// FULLY_CONNECTED and SOFTMAX on float tensors under a precision. docs/semantics.md §24.
//
// A precision is a storage format and an accumulator format (float_formats.h for binary16 and
// bfloat16, both rounded to nearest, ties to even):
//   fp32        storage float32, accumulator float32 (the CPU's float model)
//   fp16        storage binary16, accumulator float32 (GPUs under the FP16 hint in practice: half
//               operands, float32 sums in the dot-product units)
//   fp16-acc16  storage binary16, accumulator binary16 (every product and every partial sum
//               rounded to binary16: the worst case a half-precision pipeline can show)
//   bf16        storage bfloat16, accumulator float32 (AVX512_BF16 VDPBF16PS, AMX-BF16, TPUs)
//
// Rounding, every store rounds to nearest, ties to even (IEEE 754-2019 §4.3.1
// roundTiesToEven, the default rounding-direction attribute):
//   - weights (filter, bias) are rounded to the storage format once, when loaded;
//   - every input element is rounded to the storage format when the op reads it (a no-op for a
//     value an earlier op of the same precision stored; it converts a float32 graph input, as a
//     GPU plugin converts the input blob);
//   - a product x * w is a float32 multiplication (exact for two binary16 or two bfloat16
//     operands, whose 11- or 8-bit significands multiply into at most 22 or 16 bits), rounded to
//     the accumulator format; so is every sum acc + p;
//   - the result (after bias and the fused clamp) is rounded to the storage format.
//   Rounding an exact sum or product first to float32 and then to binary16 is correctly rounded
//   (no double-rounding error) because float32's 24 bits are at least 2 * 11 + 2 (Figueroa,
//   "When is double rounding innocuous?", 1995), so the fp16-acc16 steps equal binary16
//   arithmetic; the test proves it against a double-then-round model.
//
// Summation order (what TFLite's float reference kernels do, reference_ops::Conv,
// DepthwiseConv, FullyConnected in tflite/kernels/internal/reference/): the accumulator starts at
// +0 and adds the products tap by tap: conv2d in the filter's OHWI order (ky, then kx, then the
// group's input channels ic), depthwise in (ky, kx) order, fully connected in input-depth order;
// taps outside the image (padding) are skipped; the bias is added last, then the fused activation
// clamps: y = min(max(acc + bias, lo), hi) (NaN propagates, as in TFLite's
// ActivationFunctionWithMinMax). A GPU kernel sums in its own tiled order; with a float32
// accumulator that changes only the last bits of the sum (`diff --a fp32 --b fp16` measures the
// precision, not the order).
//
// No fused multiply-add: each product is rounded before it is added. Compile code that includes
// this header with -ffp-contract=off (qparity's targets do: cmake/QparityFlags.cmake), since GCC
// contracts a * b + c across statements by default in GNU mode whenever FMA is enabled (-mfma,
// -march=native on x86, always on AArch64).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "qparity/conv_geometry.h"
#include "qparity/error.h"
#include "qparity/float_formats.h"

namespace qparity {

/// A floating-point format values are stored or summed in.
enum class FloatFormat : std::uint8_t {
  kFloat32,   ///< IEEE 754 binary32
  kFloat16,   ///< IEEE 754 binary16
  kBfloat16,  ///< bfloat16 (binary32's top 16 bits)
};

inline const char* to_string(FloatFormat f) {
  switch (f) {
    case FloatFormat::kFloat32: return "float32";
    case FloatFormat::kFloat16: return "float16";
    case FloatFormat::kBfloat16: return "bfloat16";
  }
  return "?";
}

/// x rounded to format f (to nearest, ties to even), as a float32 value (exact for every value of
/// f). float32: x itself.
inline float round_to(FloatFormat f, float x) {
  switch (f) {
    case FloatFormat::kFloat32: return x;
    case FloatFormat::kFloat16: return float16_to_float(float_to_float16(x));
    case FloatFormat::kBfloat16: return bfloat16_to_float(float_to_bfloat16(x));
  }
  return x;
}

// X(Id, "name", storage, accumulator, description, source)
#define QPARITY_FLOAT_PRECISION_LIST(X)                                                             \
  X(Fp32, "fp32", kFloat32, kFloat32,                                                              \
    "float32 storage and sums: the float model on a CPU (TFLite's float kernels, OpenVINO CPU f32)", \
    "IEEE 754-2019 binary32; tflite/kernels/internal/reference/conv.h (float Conv)")               \
  X(Fp16, "fp16", kFloat16, kFloat32,                                                              \
    "float16 storage, float32 sums: a GPU inferring in f16 (OpenVINO inference_precision f16)",     \
    "OpenVINO docs: Precision Control (inference_precision); IEEE 754-2019 binary16")              \
  X(Fp16Acc16, "fp16-acc16", kFloat16, kFloat16,                                                   \
    "float16 storage and float16 sums: every product and partial sum rounded to float16",          \
    "IEEE 754-2019 binary16 arithmetic (clause 4.3.1 roundTiesToEven on every operation)")         \
  X(Bf16, "bf16", kBfloat16, kFloat32,                                                             \
    "bfloat16 storage, float32 sums (AVX512_BF16 VDPBF16PS, AMX-BF16, OpenVINO bf16 hint)",        \
    "Intel BF16 ISA (VDPBF16PS: float32 accumulation); OpenVINO docs: inference_precision_hint")

/// A float precision: the formats values are stored and summed in (see the header comment).
struct FloatPrecision {
  std::string name;
  std::string description;
  std::string source;
  FloatFormat storage = FloatFormat::kFloat32;
  FloatFormat accumulator = FloatFormat::kFloat32;
};

/// The float precisions, in list order.
inline const std::vector<FloatPrecision>& float_precisions() {
  static const std::vector<FloatPrecision> table = {
#define QPARITY_FLOAT_PRECISION_ROW(Id, Name, Storage, Acc, Desc, Src) \
  FloatPrecision{Name, Desc, Src, FloatFormat::Storage, FloatFormat::Acc},
      QPARITY_FLOAT_PRECISION_LIST(QPARITY_FLOAT_PRECISION_ROW)
#undef QPARITY_FLOAT_PRECISION_ROW
  };
  return table;
}

/// The precision of a name, or nullptr.
inline const FloatPrecision* find_float_precision(const std::string& name) {
  for (const FloatPrecision& p : float_precisions()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

/// "fp32, fp16, fp16-acc16, bf16".
inline std::string float_precision_names() {
  std::string s;
  for (const FloatPrecision& p : float_precisions()) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

/// The fused activation's bounds (TFLite: NONE = +-infinity, RELU = [0, inf), RELU6 = [0, 6],
/// RELU_N1_TO_1 = [-1, 1]); every bound TFLite uses is exact in all three formats.
struct FloatClamp {
  float min = -std::numeric_limits<float>::infinity();
  float max = std::numeric_limits<float>::infinity();
};

/// One dot product under a precision: acc = +0; add(x, w) per tap; finish(bias, clamp).
class FloatDot {
 public:
  explicit FloatDot(const FloatPrecision& p) : storage_(p.storage), acc_format_(p.accumulator) {}

  /// acc = round_acc(acc + round_acc(x * w)); x and w are already in the storage format.
  void add(float x, float w) {
    const float product = round_to(acc_format_, x * w);
    acc_ = round_to(acc_format_, acc_ + product);
  }

  /// round_storage(min(max(round_acc(acc + bias), lo), hi)); bias already in the storage format.
  float finish(float bias, const FloatClamp& clamp) const {
    const float sum = round_to(acc_format_, acc_ + bias);
    return round_to(storage_, std::min(std::max(sum, clamp.min), clamp.max));
  }

 private:
  FloatFormat storage_;
  FloatFormat acc_format_;
  float acc_ = 0.0f;
};

namespace reference {
namespace detail {

/// The n values of `data` rounded to `f` (the load of a tensor into the storage format).
inline std::vector<float> stored(FloatFormat f, const float* data, std::size_t n) {
  std::vector<float> v(data, data + n);
  for (float& x : v) x = round_to(f, x);
  return v;
}

}  // namespace detail

/// CONV_2D on float tensors under precision p: input NHWC [batch, in_h, in_w, in_channels],
/// filter OHWI [out_channels, kernel_h, kernel_w, in_channels / groups], bias [out_channels] or
/// null, output NHWC [batch, out_h, out_w, out_channels]; group g's output channels read its input
/// channels. Validates the geometry (throws InvalidArgument naming the parameter).
QPARITY_MAY_THROW
inline void float_conv2d(const Conv2DGeometry& g, const FloatPrecision& p, const float* input,
                         const float* filter, const float* bias, const FloatClamp& clamp,
                         float* output) {
  const ResolvedWindow r = validate(g);
  const Window2D& win = g.window;
  const std::size_t icg = g.in_channels / g.groups, ocg = g.out_channels / g.groups;
  const std::size_t k = win.kernel_h * win.kernel_w * icg;
  const std::vector<float> in =
      detail::stored(p.storage, input, g.batch * g.in_h * g.in_w * g.in_channels);
  const std::vector<float> w = detail::stored(p.storage, filter, g.out_channels * k);
  const std::vector<float> b = bias ? detail::stored(p.storage, bias, g.out_channels)
                                    : std::vector<float>(g.out_channels, 0.0f);
  for (std::size_t n = 0; n < g.batch; ++n) {
    for (std::size_t oy = 0; oy < r.out_h; ++oy) {
      for (std::size_t ox = 0; ox < r.out_w; ++ox) {
        float* out = output + ((n * r.out_h + oy) * r.out_w + ox) * g.out_channels;
        for (std::size_t oc = 0; oc < g.out_channels; ++oc) {
          const std::size_t grp = oc / ocg;
          FloatDot dot(p);
          for (std::size_t ky = 0; ky < win.kernel_h; ++ky) {
            const std::ptrdiff_t iy = static_cast<std::ptrdiff_t>(oy * win.stride_h + ky * win.dilation_h) -
                                      static_cast<std::ptrdiff_t>(r.pad_top);
            if (iy < 0 || iy >= static_cast<std::ptrdiff_t>(g.in_h)) continue;
            for (std::size_t kx = 0; kx < win.kernel_w; ++kx) {
              const std::ptrdiff_t ix = static_cast<std::ptrdiff_t>(ox * win.stride_w + kx * win.dilation_w) -
                                        static_cast<std::ptrdiff_t>(r.pad_left);
              if (ix < 0 || ix >= static_cast<std::ptrdiff_t>(g.in_w)) continue;
              const float* x = in.data() + ((n * g.in_h + static_cast<std::size_t>(iy)) * g.in_w +
                                            static_cast<std::size_t>(ix)) * g.in_channels + grp * icg;
              const float* wt = w.data() + oc * k + (ky * win.kernel_w + kx) * icg;
              for (std::size_t ic = 0; ic < icg; ++ic) dot.add(x[ic], wt[ic]);
            }
          }
          out[oc] = dot.finish(b[oc], clamp);
        }
      }
    }
  }
}

/// DEPTHWISE_CONV_2D on float tensors under precision p: input NHWC, filter 1HWO with
/// O = in_channels * depth_multiplier (output channel ic * depth_multiplier + m reads input channel
/// ic), bias [O] or null. Validates the geometry.
QPARITY_MAY_THROW
inline void float_depthwise_conv2d(const DepthwiseConv2DGeometry& g, const FloatPrecision& p,
                                   const float* input, const float* filter, const float* bias,
                                   const FloatClamp& clamp, float* output) {
  const ResolvedWindow r = validate(g);
  const Window2D& win = g.window;
  const std::size_t oc_count = g.out_channels();
  const std::vector<float> in =
      detail::stored(p.storage, input, g.batch * g.in_h * g.in_w * g.in_channels);
  const std::vector<float> w =
      detail::stored(p.storage, filter, win.kernel_h * win.kernel_w * oc_count);
  const std::vector<float> b = bias ? detail::stored(p.storage, bias, oc_count)
                                    : std::vector<float>(oc_count, 0.0f);
  for (std::size_t n = 0; n < g.batch; ++n) {
    for (std::size_t oy = 0; oy < r.out_h; ++oy) {
      for (std::size_t ox = 0; ox < r.out_w; ++ox) {
        float* out = output + ((n * r.out_h + oy) * r.out_w + ox) * oc_count;
        for (std::size_t oc = 0; oc < oc_count; ++oc) {
          const std::size_t ic = oc / g.depth_multiplier;
          FloatDot dot(p);
          for (std::size_t ky = 0; ky < win.kernel_h; ++ky) {
            const std::ptrdiff_t iy = static_cast<std::ptrdiff_t>(oy * win.stride_h + ky * win.dilation_h) -
                                      static_cast<std::ptrdiff_t>(r.pad_top);
            if (iy < 0 || iy >= static_cast<std::ptrdiff_t>(g.in_h)) continue;
            for (std::size_t kx = 0; kx < win.kernel_w; ++kx) {
              const std::ptrdiff_t ix = static_cast<std::ptrdiff_t>(ox * win.stride_w + kx * win.dilation_w) -
                                        static_cast<std::ptrdiff_t>(r.pad_left);
              if (ix < 0 || ix >= static_cast<std::ptrdiff_t>(g.in_w)) continue;
              const float x = in[((n * g.in_h + static_cast<std::size_t>(iy)) * g.in_w +
                                  static_cast<std::size_t>(ix)) * g.in_channels + ic];
              dot.add(x, w[(ky * win.kernel_w + kx) * oc_count + oc]);
            }
          }
          out[oc] = dot.finish(b[oc], clamp);
        }
      }
    }
  }
}

/// FULLY_CONNECTED on float tensors under precision p: input [batch, depth], filter OI
/// [out_depth, depth], bias [out_depth] or null, output [batch, out_depth].
inline void float_fully_connected(std::size_t batch, std::size_t depth, std::size_t out_depth,
                                  const FloatPrecision& p, const float* input, const float* filter,
                                  const float* bias, const FloatClamp& clamp, float* output) {
  const std::vector<float> in = detail::stored(p.storage, input, batch * depth);
  const std::vector<float> w = detail::stored(p.storage, filter, out_depth * depth);
  const std::vector<float> b = bias ? detail::stored(p.storage, bias, out_depth)
                                    : std::vector<float>(out_depth, 0.0f);
  for (std::size_t n = 0; n < batch; ++n) {
    for (std::size_t o = 0; o < out_depth; ++o) {
      FloatDot dot(p);
      for (std::size_t i = 0; i < depth; ++i) dot.add(in[n * depth + i], w[o * depth + i]);
      output[n * out_depth + o] = dot.finish(b[o], clamp);
    }
  }
}

/// SOFTMAX on float tensors under precision p, over consecutive rows of `depth` elements:
/// TFLite's float reference kernel (reference_ops::Softmax, tflite/kernels/internal/reference/
/// softmax.h: max, then exp((x - max) * beta) summed in index order, then each exp / sum) with
/// the precision's roundings:
///   x_j = round_storage(input_j)                  the load
///   m   = max_j x_j                               std::max from float's lowest, in index order
///   t_j = float32(float32(x_j - m) * beta)        two float32 operations, as the kernel's floats
///   e_j = round_acc(std::exp(t_j))                float32 exp of the C library (std::exp(float),
///                                                 glibc's expf here: not a correctly rounded
///                                                 operation), rounded to the accumulator format
///   s   = round_acc(s + e_j) from +0, j = 0, 1, ... in index order
///   y_j = round_storage(round_acc(e_j / s))       float32 division, rounded to the accumulator
///                                                 format, then stored
/// Under fp32 every round_* is the identity, so this is the kernel itself. Under fp16-acc16 each
/// sum and quotient of two binary16 values is the correctly rounded binary16 result (the header
/// comment's argument). beta > 0 and depth > 0 are the caller's to check.
inline void float_softmax(std::size_t rows, std::size_t depth, float beta, const FloatPrecision& p,
                          const float* input, float* output) {
  const std::vector<float> in = detail::stored(p.storage, input, rows * depth);
  std::vector<float> e(depth);
  for (std::size_t r = 0; r < rows; ++r) {
    const float* x = in.data() + r * depth;
    float m = std::numeric_limits<float>::lowest();
    for (std::size_t j = 0; j < depth; ++j) m = std::max(m, x[j]);
    float sum = 0.0f;
    for (std::size_t j = 0; j < depth; ++j) {
      const float t = (x[j] - m) * beta;
      e[j] = round_to(p.accumulator, std::exp(t));
      sum = round_to(p.accumulator, sum + e[j]);
    }
    for (std::size_t j = 0; j < depth; ++j) {
      output[r * depth + j] = round_to(p.storage, round_to(p.accumulator, e[j] / sum));
    }
  }
}

}  // namespace reference
}  // namespace qparity
