// The spatial geometry of 2-D convolutions (conv2d and depthwise conv2d), in TFLite's vocabulary:
// kernel size, strides, dilations and padding, and how they determine the output size and the
// top/left padding (tensorflow/lite/kernels/padding.h ComputePaddingHeightWidth,
// tensorflow/lite/kernels/internal/types.h; docs/semantics.md §3.4).
//
//   effective kernel   ek = (k - 1) * dilation + 1
//   VALID              out = (in - ek) / stride + 1          (requires in >= ek), no padding
//   SAME               out = ceil(in / stride); total = max((out - 1) * stride + ek - in, 0);
//                      before = total / 2, after = total - before (the odd extra pixel goes to
//                      the bottom / right, as in TFLite and TensorFlow)
//   explicit           out = (in + before + after - ek) / stride + 1 (requires in + pads >= ek)
//
// Taps that fall outside the image read the input zero point (TFLite skips them, which is the same
// for every accumulator model: such a term is (zp - zp) * w = 0; qparity's kernels and reference
// treat them as zero-point-valued inputs, which also defines the pair-saturating model).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "qparity/error.h"

namespace qparity {

enum class Padding : std::uint8_t {
  kValid,     ///< no padding
  kSame,      ///< TensorFlow SAME: output = ceil(input / stride), odd extra pixel bottom/right
  kExplicit,  ///< pad_top / pad_bottom / pad_left / pad_right as given
};

inline const char* to_string(Padding p) {
  switch (p) {
    case Padding::kValid: return "VALID";
    case Padding::kSame: return "SAME";
    case Padding::kExplicit: return "EXPLICIT";
  }
  return "?";
}

/// Kernel window of a 2-D convolution.
struct Window2D {
  std::size_t kernel_h = 1, kernel_w = 1;
  std::size_t stride_h = 1, stride_w = 1;
  std::size_t dilation_h = 1, dilation_w = 1;
  Padding padding = Padding::kValid;
  /// Used only with Padding::kExplicit.
  std::size_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
};

/// A window resolved against an input size: output size and the padding actually applied.
struct ResolvedWindow {
  std::size_t out_h = 0, out_w = 0;
  std::size_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
};

namespace detail {

/// Largest spatial size, kernel size, stride, dilation or padding accepted: keeps every index
/// computation far from overflow (2^24 = 16M pixels per side).
inline constexpr std::int64_t kMaxConvExtent = std::int64_t{1} << 24;

QPARITY_MAY_THROW
inline void require_extent(const char* name, std::size_t v, std::int64_t lo = 1) {
  require_in_range(name, static_cast<std::int64_t>(v > static_cast<std::size_t>(kMaxConvExtent)
                                                       ? kMaxConvExtent + 1
                                                       : v),
                   lo, kMaxConvExtent);
}

QPARITY_MAY_THROW
inline std::size_t resolve_axis(const char* axis, std::size_t in, std::size_t k, std::size_t stride,
                                std::size_t dilation, Padding padding, std::size_t* before,
                                std::size_t* after) {
  const std::size_t ek = (k - 1) * dilation + 1;
  switch (padding) {
    case Padding::kValid:
      *before = *after = 0;
      break;
    case Padding::kSame: {
      const std::size_t out = (in + stride - 1) / stride;
      const std::size_t need = (out - 1) * stride + ek;
      const std::size_t total = need > in ? need - in : 0;
      *before = total / 2;
      *after = total - *before;
      return out;
    }
    case Padding::kExplicit:
      break;
  }
  const std::size_t padded = in + *before + *after;
  if (padded < ek) {
    QPARITY_THROW(InvalidArgument(
        std::string("qparity: the ") + axis + " effective kernel extent " + std::to_string(ek) +
        " ((kernel - 1) * dilation + 1) exceeds the padded input " + std::to_string(padded) +
        " (input " + std::to_string(in) + " + padding " + std::to_string(*before + *after) +
        ") with " + to_string(padding) +
        " padding; allowed: effective kernel <= padded input (or use SAME padding)"));
  }
  return (padded - ek) / stride + 1;
}

}  // namespace detail

/// Validates `w` and resolves it against an in_h x in_w input. Throws InvalidArgument naming the
/// parameter (kernel_h, stride_w, pad_top, ...) and its allowed range.
QPARITY_MAY_THROW
inline ResolvedWindow resolve_window(const Window2D& w, std::size_t in_h, std::size_t in_w) {
  detail::require_extent("input_height", in_h);
  detail::require_extent("input_width", in_w);
  detail::require_extent("kernel_h", w.kernel_h);
  detail::require_extent("kernel_w", w.kernel_w);
  detail::require_extent("stride_h", w.stride_h);
  detail::require_extent("stride_w", w.stride_w);
  detail::require_extent("dilation_h", w.dilation_h);
  detail::require_extent("dilation_w", w.dilation_w);
  if (static_cast<int>(w.padding) > static_cast<int>(Padding::kExplicit)) {
    QPARITY_THROW(InvalidArgument("qparity: padding " +
                                  std::to_string(static_cast<int>(w.padding)) +
                                  " is not a valid Padding; allowed: VALID, SAME, EXPLICIT"));
  }
  ResolvedWindow r;
  if (w.padding == Padding::kExplicit) {
    detail::require_extent("pad_top", w.pad_top, 0);
    detail::require_extent("pad_bottom", w.pad_bottom, 0);
    detail::require_extent("pad_left", w.pad_left, 0);
    detail::require_extent("pad_right", w.pad_right, 0);
    r.pad_top = w.pad_top;
    r.pad_bottom = w.pad_bottom;
    r.pad_left = w.pad_left;
    r.pad_right = w.pad_right;
  }
  if ((w.kernel_h - 1) * w.dilation_h + 1 > static_cast<std::size_t>(detail::kMaxConvExtent)) {
    detail::throw_out_of_range("(kernel_h - 1) * dilation_h + 1", (w.kernel_h - 1) * w.dilation_h + 1,
                               "<= 16777216");
  }
  if ((w.kernel_w - 1) * w.dilation_w + 1 > static_cast<std::size_t>(detail::kMaxConvExtent)) {
    detail::throw_out_of_range("(kernel_w - 1) * dilation_w + 1", (w.kernel_w - 1) * w.dilation_w + 1,
                               "<= 16777216");
  }
  r.out_h = detail::resolve_axis("vertical", in_h, w.kernel_h, w.stride_h, w.dilation_h, w.padding,
                                 &r.pad_top, &r.pad_bottom);
  r.out_w = detail::resolve_axis("horizontal", in_w, w.kernel_w, w.stride_w, w.dilation_w, w.padding,
                                 &r.pad_left, &r.pad_right);
  return r;
}

/// Shape of a conv2d: input NHWC [batch][in_h][in_w][in_channels], filter OHWI
/// [out_channels][kernel_h][kernel_w][in_channels / groups], output NHWC
/// [batch][out_h][out_w][out_channels]. Group g reads input channels
/// [g * in_channels / groups, (g + 1) * in_channels / groups) and writes output channels
/// [g * out_channels / groups, (g + 1) * out_channels / groups) (TFLite grouped CONV_2D, where
/// the filter's last dimension is in_channels / groups).
struct Conv2DGeometry {
  std::size_t batch = 1;
  std::size_t in_h = 0, in_w = 0, in_channels = 0;
  std::size_t out_channels = 0;
  std::size_t groups = 1;
  Window2D window{};
};

/// Shape of a depthwise conv2d: input NHWC [batch][in_h][in_w][in_channels], filter 1HWO
/// [1][kernel_h][kernel_w][in_channels * depth_multiplier], output NHWC with
/// out_channels = in_channels * depth_multiplier; output channel oc = ic * depth_multiplier + m
/// reads input channel ic (TFLite DEPTHWISE_CONV_2D).
struct DepthwiseConv2DGeometry {
  std::size_t batch = 1;
  std::size_t in_h = 0, in_w = 0, in_channels = 0;
  std::size_t depth_multiplier = 1;
  Window2D window{};
  std::size_t out_channels() const { return in_channels * depth_multiplier; }
};

/// Validates a conv2d geometry (every extent, groups dividing both channel counts, the window) and
/// returns the resolved window.
QPARITY_MAY_THROW
inline ResolvedWindow validate(const Conv2DGeometry& g) {
  detail::require_extent("batch", g.batch);
  detail::require_extent("in_channels", g.in_channels);
  detail::require_extent("out_channels", g.out_channels);
  detail::require_extent("groups", g.groups);
  if (g.in_channels % g.groups != 0 || g.out_channels % g.groups != 0) {
    QPARITY_THROW(InvalidArgument("qparity: groups = " + std::to_string(g.groups) +
                                  " is out of range; allowed: a divisor of both in_channels (" +
                                  std::to_string(g.in_channels) + ") and out_channels (" +
                                  std::to_string(g.out_channels) + ")"));
  }
  const ResolvedWindow r = resolve_window(g.window, g.in_h, g.in_w);
  const std::size_t k = g.window.kernel_h * g.window.kernel_w * (g.in_channels / g.groups);
  if (k > static_cast<std::size_t>(std::int64_t{1} << 31)) {
    detail::throw_out_of_range("kernel_h * kernel_w * in_channels / groups", k, "<= 2^31");
  }
  return r;
}

/// Validates a depthwise geometry and returns the resolved window.
QPARITY_MAY_THROW
inline ResolvedWindow validate(const DepthwiseConv2DGeometry& g) {
  detail::require_extent("batch", g.batch);
  detail::require_extent("in_channels", g.in_channels);
  detail::require_extent("depth_multiplier", g.depth_multiplier);
  detail::require_extent("in_channels * depth_multiplier", g.in_channels * g.depth_multiplier);
  return resolve_window(g.window, g.in_h, g.in_w);
}

}  // namespace qparity
