// Header-only reference conv2d and depthwise conv2d with TFLite's semantics: the oracle every
// convolution kernel is tested against, for every rounding core and accumulator model.
//
// TFLite CONV_2D (tensorflow/lite/kernels/internal/reference/integer_ops/conv.h ConvPerChannel;
// docs/semantics.md §3.4) and DEPTHWISE_CONV_2D (.../integer_ops/depthwise_conv.h):
//   out[b][y][x][oc] = clamp(requant(sum_taps (in[b][iy][ix][ic] - in_zp) * (w[..] - w_zp[oc])
//                                    + bias[oc]) + out_zp, act_min, act_max)
//
// The accumulation order, which the non-exact accumulator models (satN, wrapN, pairsat16) make
// observable, is defined as a GEMM over the im2col row of each output pixel:
//   conv2d:     k = (ky * kernel_w + kx) * (in_channels / groups) + ic   (the OHWI filter row)
//   depthwise:  k = ky * kernel_w + kx
// i.e. TFLite's loop order (filter_y, filter_x, in_channel). A tap outside the image holds the
// input zero point (conv_geometry.h): for the exact models that is TFLite's "skip the tap".
// So for every model, conv2d(problem) == gemm(im2col(problem)) with reference::gemm's definition.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "qparity/accumulator.h"
#include "qparity/conv_geometry.h"
#include "qparity/error.h"
#include "qparity/output_stage.h"
#include "qparity/policies.h"
#include "qparity/reference_gemm.h"
#include "qparity/requant_params.h"

namespace qparity {

/// The constant operands of a convolution (conv2d: filter OHWI; depthwise: filter 1HWO).
struct ConvWeights {
  const std::int8_t* filter = nullptr;               ///< dense, layout per operation
  const std::int32_t* filter_zero_points = nullptr;  ///< null (all 0), one, or out_channels values
  bool filter_zero_point_per_channel = false;
  const std::int32_t* bias = nullptr;                ///< out_channels int32 values, or null
  const RequantParams* params = nullptr;             ///< one, or out_channels (per_channel)
  bool per_channel = false;
};

/// One run of a convolution: dense NHWC input and output.
template <class AType, class OutType>
struct ConvCall {
  static_assert(std::is_same<AType, std::int8_t>::value || std::is_same<AType, std::uint8_t>::value,
                "ConvCall: activations must be int8_t or uint8_t");
  const AType* input = nullptr;
  std::int32_t input_zero_point = 0;
  OutputParams output{};  ///< zero point and activation clamp (activation_output_params)
  OutType* out = nullptr;
};

/// A whole conv2d (reference and one-shot entries).
template <class AType, class OutType>
struct Conv2DProblem {
  Conv2DGeometry geometry{};
  ConvWeights weights{};
  ConvCall<AType, OutType> call{};
};

/// A whole depthwise conv2d.
template <class AType, class OutType>
struct DepthwiseConv2DProblem {
  DepthwiseConv2DGeometry geometry{};
  ConvWeights weights{};
  ConvCall<AType, OutType> call{};
};

/// Validates the weights of a convolution with `out_channels` outputs for `core`.
QPARITY_MAY_THROW
inline void validate_conv_weights(const ConvWeights& w, std::size_t out_channels, RoundingCore core) {
  detail::require_pointer(w.filter, "filter");
  detail::require_pointer(w.params, "params");
  if (w.filter_zero_points != nullptr) {
    const std::size_t nz = w.filter_zero_point_per_channel ? out_channels : 1;
    for (std::size_t j = 0; j < nz; ++j) {
      detail::require_in_range("filter_zero_points[c]", w.filter_zero_points[j], -128, 127,
                               "int8 filters");
    }
  }
  const std::size_t np = w.per_channel ? out_channels : 1;
  detail::IndexedErrorSuffix entry{"params", 0};  // errors end with " (params[j])"
  const detail::ErrorContext context(&detail::IndexedErrorSuffix::wrap, &entry);
  for (; entry.index < np; ++entry.index) validate(core, w.params[entry.index]);
}

/// Validates one run: pointers, the input zero point within AType, the output parameters.
template <class AType, class OutType>
QPARITY_MAY_THROW
void validate_conv_call(const ConvCall<AType, OutType>& c) {
  detail::require_pointer(c.input, "input");
  detail::require_pointer(c.out, "out");
  const bool a_signed = std::is_signed<AType>::value;
  detail::require_in_range("input_zero_point", c.input_zero_point, a_signed ? -128 : 0,
                           a_signed ? 127 : 255, a_signed ? "int8 activations" : "uint8 activations");
  validate(c.output, detail::output_type_of<OutType>());
}

/// Validates a conv2d problem for `core`; returns the resolved window.
template <class AType, class OutType>
QPARITY_MAY_THROW
ResolvedWindow validate_conv2d(const Conv2DProblem<AType, OutType>& p, RoundingCore core) {
  const ResolvedWindow r = validate(p.geometry);
  validate_conv_weights(p.weights, p.geometry.out_channels, core);
  validate_conv_call(p.call);
  return r;
}

/// Validates a depthwise conv2d problem for `core`; returns the resolved window.
template <class AType, class OutType>
QPARITY_MAY_THROW
ResolvedWindow validate_depthwise_conv2d(const DepthwiseConv2DProblem<AType, OutType>& p,
                                         RoundingCore core) {
  const ResolvedWindow r = validate(p.geometry);
  validate_conv_weights(p.weights, p.geometry.out_channels(), core);
  validate_conv_call(p.call);
  return r;
}

namespace reference {
namespace detail {

/// Input value at (b, iy, ix, c) or the zero point when (iy, ix) is outside the image.
template <class AType>
AType input_or_zero_point(const AType* in, std::size_t h, std::size_t w, std::size_t channels,
                          std::size_t b, std::ptrdiff_t iy, std::ptrdiff_t ix, std::size_t c,
                          std::int32_t zp) {
  if (iy < 0 || ix < 0 || iy >= static_cast<std::ptrdiff_t>(h) || ix >= static_cast<std::ptrdiff_t>(w)) {
    return static_cast<AType>(zp);
  }
  return in[((b * h + static_cast<std::size_t>(iy)) * w + static_cast<std::size_t>(ix)) * channels + c];
}

template <class Policy, class Dot, class AType, class OutType>
void conv2d_loop(const Conv2DProblem<AType, OutType>& p, const ResolvedWindow& r, const Dot& dot,
                 bool wide) {
  const Conv2DGeometry& g = p.geometry;
  const Window2D& win = g.window;
  const std::size_t icg = g.in_channels / g.groups, ocg = g.out_channels / g.groups;
  const std::size_t k = win.kernel_h * win.kernel_w * icg;
  const ConvWeights& w = p.weights;
  std::vector<AType> row(k);
  for (std::size_t b = 0; b < g.batch; ++b) {
    for (std::size_t oy = 0; oy < r.out_h; ++oy) {
      for (std::size_t ox = 0; ox < r.out_w; ++ox) {
        OutType* out = p.call.out + ((b * r.out_h + oy) * r.out_w + ox) * g.out_channels;
        for (std::size_t grp = 0; grp < g.groups; ++grp) {
          for (std::size_t ky = 0; ky < win.kernel_h; ++ky) {
            const std::ptrdiff_t iy = static_cast<std::ptrdiff_t>(oy * win.stride_h + ky * win.dilation_h) -
                                      static_cast<std::ptrdiff_t>(r.pad_top);
            for (std::size_t kx = 0; kx < win.kernel_w; ++kx) {
              const std::ptrdiff_t ix = static_cast<std::ptrdiff_t>(ox * win.stride_w + kx * win.dilation_w) -
                                        static_cast<std::ptrdiff_t>(r.pad_left);
              for (std::size_t ic = 0; ic < icg; ++ic) {
                row[(ky * win.kernel_w + kx) * icg + ic] = input_or_zero_point(
                    p.call.input, g.in_h, g.in_w, g.in_channels, b, iy, ix, grp * icg + ic,
                    p.call.input_zero_point);
              }
            }
          }
          for (std::size_t o = 0; o < ocg; ++o) {
            const std::size_t oc = grp * ocg + o;
            const std::int32_t w_zp =
                w.filter_zero_points ? w.filter_zero_points[w.filter_zero_point_per_channel ? oc : 0] : 0;
            const std::int64_t bias = w.bias ? w.bias[oc] : 0;
            const std::int64_t acc =
                dot(row.data(), w.filter + oc * k, k, p.call.input_zero_point, w_zp, bias);
            const std::int32_t y = requantize_accumulator<Policy>(
                acc, wide, w.params[w.per_channel ? oc : 0], p.call.output);
            out[oc] = saturating_cast<OutType>(y);
          }
        }
      }
    }
  }
}

template <class Policy, class Dot, class AType, class OutType>
void depthwise_conv2d_loop(const DepthwiseConv2DProblem<AType, OutType>& p, const ResolvedWindow& r,
                           const Dot& dot, bool wide) {
  const DepthwiseConv2DGeometry& g = p.geometry;
  const Window2D& win = g.window;
  const std::size_t oc_count = g.out_channels();
  const std::size_t k = win.kernel_h * win.kernel_w;
  const ConvWeights& w = p.weights;
  std::vector<AType> row(k);
  for (std::size_t b = 0; b < g.batch; ++b) {
    for (std::size_t oy = 0; oy < r.out_h; ++oy) {
      for (std::size_t ox = 0; ox < r.out_w; ++ox) {
        OutType* out = p.call.out + ((b * r.out_h + oy) * r.out_w + ox) * oc_count;
        for (std::size_t ic = 0; ic < g.in_channels; ++ic) {
          for (std::size_t ky = 0; ky < win.kernel_h; ++ky) {
            const std::ptrdiff_t iy = static_cast<std::ptrdiff_t>(oy * win.stride_h + ky * win.dilation_h) -
                                      static_cast<std::ptrdiff_t>(r.pad_top);
            for (std::size_t kx = 0; kx < win.kernel_w; ++kx) {
              const std::ptrdiff_t ix = static_cast<std::ptrdiff_t>(ox * win.stride_w + kx * win.dilation_w) -
                                        static_cast<std::ptrdiff_t>(r.pad_left);
              row[ky * win.kernel_w + kx] = input_or_zero_point(
                  p.call.input, g.in_h, g.in_w, g.in_channels, b, iy, ix, ic, p.call.input_zero_point);
            }
          }
          for (std::size_t m = 0; m < g.depth_multiplier; ++m) {
            const std::size_t oc = ic * g.depth_multiplier + m;
            const std::int32_t w_zp =
                w.filter_zero_points ? w.filter_zero_points[w.filter_zero_point_per_channel ? oc : 0] : 0;
            const std::int64_t bias = w.bias ? w.bias[oc] : 0;
            const std::int64_t acc =
                dot(row.data(), qparity::detail::StridedView<std::int8_t>{w.filter + oc, oc_count}, k,
                    p.call.input_zero_point, w_zp, bias);
            const std::int32_t y = requantize_accumulator<Policy>(
                acc, wide, w.params[w.per_channel ? oc : 0], p.call.output);
            out[oc] = saturating_cast<OutType>(y);
          }
        }
      }
    }
  }
}

}  // namespace detail

/// The reference conv2d for rounding policy `Policy` and accumulator model `Accum`. Validates
/// (throws InvalidArgument naming the parameter).
template <class Policy, class Accum = Int32Accumulator, class AType, class OutType>
QPARITY_MAY_THROW
void conv2d(const Conv2DProblem<AType, OutType>& p) {
  const ResolvedWindow r = validate_conv2d(p, Policy::kCore);
  detail::conv2d_loop<Policy>(
      p, r,
      [](auto a, auto b, std::size_t k, std::int32_t za, std::int32_t zb, std::int64_t bias) {
        return Accum::dot(a, b, k, za, zb, bias);
      },
      Accum::kBits > 32);
}

/// The reference conv2d with the rounding core and accumulator model chosen at run time.
template <class AType, class OutType>
QPARITY_MAY_THROW
void conv2d(const Conv2DProblem<AType, OutType>& p, RoundingCore core, AccumulatorSpec accumulator) {
  validate(accumulator);
  const ResolvedWindow r = validate_conv2d(p, core);
  constexpr bool kSignedA = std::is_signed<AType>::value;
  visit_rounding_core(core, [&](auto policy) {
    using Policy = decltype(policy);
    detail::conv2d_loop<Policy>(
        p, r,
        [&](auto a, auto b, std::size_t k, std::int32_t za, std::int32_t zb, std::int64_t bias) {
          return accumulate(accumulator, kSignedA, a, b, k, za, zb, bias);
        },
        accumulator.bits > 32);
  });
}

/// The reference depthwise conv2d for `Policy` and `Accum`. Validates.
template <class Policy, class Accum = Int32Accumulator, class AType, class OutType>
QPARITY_MAY_THROW
void depthwise_conv2d(const DepthwiseConv2DProblem<AType, OutType>& p) {
  const ResolvedWindow r = validate_depthwise_conv2d(p, Policy::kCore);
  detail::depthwise_conv2d_loop<Policy>(
      p, r,
      [](auto a, auto b, std::size_t k, std::int32_t za, std::int32_t zb, std::int64_t bias) {
        return Accum::dot(a, b, k, za, zb, bias);
      },
      Accum::kBits > 32);
}

/// The reference depthwise conv2d with the rounding core and accumulator model chosen at run time.
template <class AType, class OutType>
QPARITY_MAY_THROW
void depthwise_conv2d(const DepthwiseConv2DProblem<AType, OutType>& p, RoundingCore core,
                      AccumulatorSpec accumulator) {
  validate(accumulator);
  const ResolvedWindow r = validate_depthwise_conv2d(p, core);
  constexpr bool kSignedA = std::is_signed<AType>::value;
  visit_rounding_core(core, [&](auto policy) {
    using Policy = decltype(policy);
    detail::depthwise_conv2d_loop<Policy>(
        p, r,
        [&](auto a, auto b, std::size_t k, std::int32_t za, std::int32_t zb, std::int64_t bias) {
          return accumulate(accumulator, kSignedA, a, b, k, za, zb, bias);
        },
        accumulator.bits > 32);
  });
}

}  // namespace reference
}  // namespace qparity
