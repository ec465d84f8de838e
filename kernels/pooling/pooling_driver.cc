// The entry points of include/qparity/pooling.h: window geometry, the choice of kernel per variant
// and element type, and the finishing steps that are not a kernel's (the library's vectorised
// requantization for the rounding-core variants, scalar loops for the float32 styles and TFLM's
// MEAN variants). Compiled for the baseline; the reductions run in the per-ISA kernels of
// kernels/pooling/pooling_kernel.h. Each finishing step restates its reference's formula
// (reference/pooling.h, reference/mean.h); tests/pooling/pooling_test.cc proves them equal.
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "kernels/pooling/pooling_kernel.h"
#include "qparity/error.h"
#include "qparity/pooling.h"
#include "qparity/policies.h"
#include "qparity/requantize.h"

namespace qparity {

static_assert(internal::kMaxSumTaps == kMaxPoolingReduction, "pooling.h and pooling_kernel.h disagree");

namespace {

using internal::PoolingFamily;
using internal::PoolingKernelSet;
using internal::PoolTaps;
using reference::AveragePoolVariant;
using reference::MaxPoolVariant;
using reference::MeanVariant;
using reference::NpuHypothesis;
using reference::PoolWindow;
using reference::Shape4;
using reference::TensorQuant;

void require_isa(Isa isa) {
  if ((supported_isas() & mask_of(isa)) == 0) {
    throw InvalidArgument(std::string("qparity: isa = ") + to_string(isa) +
                          " is not supported on this CPU or not compiled in");
  }
}

const PoolingKernelSet& kernels(Isa isa) {
  const PoolingKernelSet* k = internal::kernels_for<PoolingFamily>(isa);
  if (k == nullptr) throw InvalidArgument("qparity: no pooling kernels for this ISA (the build lacks the scalar file)");
  return *k;
}

template <class T>
constexpr bool kSigned = std::is_same<T, std::int8_t>::value;

template <class T>
void require_pointers(const T* x, const T* y) {
  if (x == nullptr || y == nullptr) throw InvalidArgument("qparity: pooling input or output pointer is null");
}

void require_shape(const Shape4& s) {
  if (s.n == 0 || s.h == 0 || s.w == 0 || s.c == 0) {
    throw InvalidArgument("qparity: pooling / MEAN input shape has an empty dimension (N, H, W, C must be >= 1)");
  }
}

/// The taps of output pixel (b, oy, ox): the window clipped to the image, as
/// reference::detail::for_each_window clips it.
struct OutputWindow {
  PoolTaps taps;
  std::size_t n = 0;
};

OutputWindow window_at(const std::uint8_t* x, const Shape4& s, const PoolWindow& w, const ResolvedWindow& r,
                       std::size_t b, std::size_t oy, std::size_t ox) {
  const std::int64_t iy0 = static_cast<std::int64_t>(oy * w.stride_h) - static_cast<std::int64_t>(r.pad_top);
  const std::int64_t ix0 = static_cast<std::int64_t>(ox * w.stride_w) - static_cast<std::int64_t>(r.pad_left);
  const std::int64_t fh = static_cast<std::int64_t>(w.filter_h), fw = static_cast<std::int64_t>(w.filter_w);
  const std::int64_t h = static_cast<std::int64_t>(s.h), wd = static_cast<std::int64_t>(s.w);
  const std::int64_t y0 = iy0 < 0 ? 0 : iy0, y1 = iy0 + fh < h ? iy0 + fh : h;
  const std::int64_t x0 = ix0 < 0 ? 0 : ix0, x1 = ix0 + fw < wd ? ix0 + fw : wd;
  OutputWindow o;
  if (y1 <= y0 || x1 <= x0) return o;
  o.taps.rows = static_cast<std::size_t>(y1 - y0);
  o.taps.cols = static_cast<std::size_t>(x1 - x0);
  o.taps.col_stride = s.c;
  o.taps.row_stride = s.w * s.c;
  o.taps.first = x + ((b * s.h + static_cast<std::size_t>(y0)) * s.w + static_cast<std::size_t>(x0)) * s.c;
  o.n = o.taps.rows * o.taps.cols;
  return o;
}

[[noreturn]] void throw_empty_window() {
  throw InvalidArgument("qparity: a pooling window has no tap inside the image");
}

[[noreturn]] void throw_too_many_taps(std::size_t n) {
  throw InvalidArgument("qparity: a pooling / MEAN reduction over " + std::to_string(n) +
                        " elements; the compiled path sums exactly in int32 up to 2^23 (use the reference)");
}

OutputParams type_range(OutputType type, std::int32_t zp) { return full_range_output(type, zp); }

/// y = requantize(core, acc, params) + offset, saturated to T, for rows x channels (strided): the
/// library's vectorised requantization when the offset is a valid T zero point, else through int32.
template <class T>
void requantize_offset(Isa isa, RoundingCore core, const RequantParams& p, const std::int32_t* acc,
                       std::size_t rows, std::size_t channels, std::size_t stride, std::int64_t offset, T* y) {
  if (rows == 0 || channels == 0) return;
  const OutputType type = reference::detail::output_type_of<T>();
  RequantizeArgs a;
  a.core = core;
  a.params = &p;
  a.rows = rows;
  a.channels = channels;
  a.acc = acc;
  a.acc_row_stride = stride;
  a.dst_row_stride = stride;
  if (offset >= output_type_min(type) && offset <= output_type_max(type)) {
    a.output = type_range(type, static_cast<std::int32_t>(offset));
    requantize<T>(isa, a, y);
    return;
  }
  std::vector<std::int32_t> r(rows * stride);
  a.output = OutputParams{};
  requantize<std::int32_t>(isa, a, r.data());
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t c = 0; c < channels; ++c) {
      y[i * stride + c] = reference::saturate_to<T>(static_cast<std::int64_t>(r[i * stride + c]) + offset);
    }
}

template <class T>
void average_pool_impl(Isa isa, const T* x, const Shape4& s, const PoolWindow& w, const TensorQuant& in,
                       const TensorQuant& out, Activation act, AveragePoolVariant variant, T* y,
                       NpuHypothesis npu) {
  require_isa(isa);
  require_pointers(x, y);
  require_shape(s);
  reference::detail::require_scale("input scale", in.scale);
  reference::detail::require_zero_point<T>("input zero_point", in.zero_point);
  const ResolvedWindow r = reference::detail::resolve_pool(w, s);
  const OutputParams o = activation_output_params(act, ClampDerivation::kTflite, out.scale, out.zero_point,
                                                  reference::detail::output_type_of<T>());
  const PoolingKernelSet& k = kernels(isa);
  const internal::PoolAvgFn avg = kSigned<T> ? k.avg_s8 : k.avg_u8;
  const internal::PoolSumFn sum = kSigned<T> ? k.sum_s8 : k.sum_u8;
  const std::size_t C = s.c;
  std::vector<std::int32_t> acc(C), centered(C);
  std::unordered_map<std::size_t, reference::NpuRequant> npu_params;  // by tap count
  const auto* xb = reinterpret_cast<const std::uint8_t*>(x);
  std::size_t index = 0;
  for (std::size_t b = 0; b < s.n; ++b)
    for (std::size_t oy = 0; oy < r.out_h; ++oy)
      for (std::size_t ox = 0; ox < r.out_w; ++ox, ++index) {
        const OutputWindow win = window_at(xb, s, w, r, b, oy, ox);
        if (win.n == 0) throw_empty_window();
        if (win.n > internal::kMaxSumTaps) throw_too_many_taps(win.n);
        T* dst = y + index * C;
        const std::int64_t n = static_cast<std::int64_t>(win.n);
        if (variant == AveragePoolVariant::kTflite && win.n <= internal::kMaxFusedAverageTaps) {
          avg(win.taps, C, o.qmin, o.qmax, dst);
          continue;
        }
        sum(win.taps, C, acc.data());
        switch (variant) {
          case AveragePoolVariant::kTflite:
            for (std::size_t c = 0; c < C; ++c) {
              const std::int64_t a = acc[c];
              std::int64_t v = a > 0 ? (a + n / 2) / n : (a - n / 2) / n;
              v = v < o.qmin ? o.qmin : (v > o.qmax ? o.qmax : v);
              dst[c] = reference::saturate_to<T>(v);
            }
            break;
          case AveragePoolVariant::kNpuSingleRounding: {
            auto it = npu_params.find(win.n);
            if (it == npu_params.end()) {
              it = npu_params
                       .emplace(win.n, reference::npu_requant(npu, static_cast<double>(in.scale) /
                                                                       (static_cast<double>(out.scale) *
                                                                        static_cast<double>(n))))
                       .first;
            }
            for (std::size_t c = 0; c < C; ++c) {
              centered[c] = static_cast<std::int32_t>(static_cast<std::int64_t>(acc[c]) - n * in.zero_point);
            }
            RequantizeArgs a;
            a.core = it->second.core;
            a.params = &it->second.params;
            a.output = o;
            a.rows = 1;
            a.channels = C;
            a.acc = centered.data();
            requantize<T>(isa, a, dst);
            break;
          }
          case AveragePoolVariant::kFloat32:
            for (std::size_t c = 0; c < C; ++c) {
              const float sum_f = static_cast<float>(static_cast<double>(in.scale) *
                                                     static_cast<double>(static_cast<std::int64_t>(acc[c]) - n * in.zero_point));
              const float mean = sum_f / static_cast<float>(n);
              std::int64_t v = static_cast<std::int64_t>(detail::round_half_even_saturating(mean / out.scale)) + out.zero_point;
              v = v < o.qmin ? o.qmin : (v > o.qmax ? o.qmax : v);
              dst[c] = reference::saturate_to<T>(v);
            }
            break;
        }
      }
}

template <class T>
void max_pool_impl(Isa isa, const T* x, const Shape4& s, const PoolWindow& w, const TensorQuant& out, Activation act,
                   MaxPoolVariant variant, T* y) {
  require_isa(isa);
  require_pointers(x, y);
  require_shape(s);
  const ResolvedWindow r = reference::detail::resolve_pool(w, s);
  const OutputParams o = activation_output_params(
      act, variant == MaxPoolVariant::kTflite ? ClampDerivation::kTflite : ClampDerivation::kXnnpack, out.scale,
      out.zero_point, reference::detail::output_type_of<T>());
  const PoolingKernelSet& k = kernels(isa);
  const internal::PoolMaxFn mx = kSigned<T> ? k.max_s8 : k.max_u8;
  const auto* xb = reinterpret_cast<const std::uint8_t*>(x);
  std::size_t index = 0;
  for (std::size_t b = 0; b < s.n; ++b)
    for (std::size_t oy = 0; oy < r.out_h; ++oy)
      for (std::size_t ox = 0; ox < r.out_w; ++ox, ++index) {
        const OutputWindow win = window_at(xb, s, w, r, b, oy, ox);
        if (win.n == 0) throw_empty_window();
        mx(win.taps, s.c, o.qmin, o.qmax, y + index * s.c);
      }
}

template <class T>
void mean_hw_impl(Isa isa, const T* x, const Shape4& s, const TensorQuant& in, const TensorQuant& out,
                  MeanVariant variant, T* y, TfliteBuild build, NpuHypothesis npu) {
  require_isa(isa);
  require_pointers(x, y);
  reference::detail::require_scale("input scale", in.scale);
  reference::detail::require_scale("output scale", out.scale);
  reference::detail::require_zero_point<T>("input zero_point", in.zero_point);
  reference::detail::require_zero_point<T>("output zero_point", out.zero_point);
  require_shape(s);
  if (variant == MeanVariant::kTflmSameQuantTruncate && (!(in.scale == out.scale) || in.zero_point != out.zero_point)) {
    throw InvalidArgument("qparity: kTflmSameQuantTruncate needs equal input and output quantization");
  }
  const std::size_t C = s.c, N = s.n, pixels = s.h * s.w;
  if (pixels > internal::kMaxSumTaps) throw_too_many_taps(pixels);
  const PoolingKernelSet& k = kernels(isa);
  const internal::PoolSumFn sum = kSigned<T> ? k.sum_s8 : k.sum_u8;
  std::vector<std::int32_t> acc(N * C);
  const auto* xb = reinterpret_cast<const std::uint8_t*>(x);
  for (std::size_t b = 0; b < N; ++b) {
    PoolTaps t;
    t.first = xb + b * pixels * C;
    t.rows = s.h;
    t.cols = s.w;
    t.row_stride = s.w * C;
    t.col_stride = C;
    sum(t, C, acc.data() + b * C);
  }
  const std::int64_t nn = static_cast<std::int64_t>(pixels);
  const OutputType type = reference::detail::output_type_of<T>();
  const OutputParams full = type_range(type, out.zero_point);
  auto centered = [&]() {
    std::vector<std::int32_t> c(acc.size());
    for (std::size_t i = 0; i < acc.size(); ++i) {
      c[i] = static_cast<std::int32_t>(static_cast<std::int64_t>(acc[i]) - nn * in.zero_point);
    }
    return c;
  };
  const RoundingCore tflite_core = build == TfliteBuild::kDoubleRounding ? RoundingCore::kDoubleRoundingAwayFromZero
                                                                          : RoundingCore::kSingleRoundingUpward;
  switch (variant) {
    case MeanVariant::kTfliteOptimizedHW:
    case MeanVariant::kTfliteOptimizedHWNeon: {
      // reference/mean.h: the zero-point term rounded in float into a bias, 1/n in a float-derived
      // multiplier applied to the raw sums.
      float t = static_cast<float>(in.zero_point) * in.scale;
      t = t / out.scale;
      t = t > 0 ? t + 0.5f : t - 0.5f;
      const std::int64_t bias = static_cast<std::int64_t>(out.zero_point) - static_cast<std::int32_t>(t);
      const float denom = static_cast<float>(pixels) * out.scale;
      const float real = in.scale / denom;
      const QuantizedMultiplier m = reference::tflite_quantize_multiplier_checked(static_cast<double>(real), build);
      RequantParams p;
      p.multiplier = m.multiplier;
      p.shift = m.shift;
      const std::size_t neon_end = variant == MeanVariant::kTfliteOptimizedHWNeon ? C / 16 * 16 : 0;
      const RoundingCore neon_core = build == TfliteBuild::kDoubleRounding ? RoundingCore::kDoubleRoundingUpward
                                                                            : RoundingCore::kSingleRoundingUpwardNeon;
      requantize_offset<T>(isa, neon_core, p, acc.data(), N, neon_end, C, bias, y);
      requantize_offset<T>(isa, tflite_core, p, acc.data() + neon_end, N, C - neon_end, C, bias, y + neon_end);
      break;
    }
    case MeanVariant::kTfliteReference: {
      QuantizedMultiplier m = reference::tflite_quantize_multiplier_checked(
          static_cast<double>(in.scale) / static_cast<double>(out.scale), build);
      int kk = 63 - reference::detail::count_leading_zeros_u64(static_cast<std::uint64_t>(pixels));
      kk = kk < 32 ? kk : 32;
      kk = kk < 31 + m.shift ? kk : 31 + m.shift;
      RequantParams p;
      p.multiplier = static_cast<std::int32_t>((static_cast<std::int64_t>(m.multiplier) << kk) / nn);
      p.shift = m.shift - kk;
      const std::vector<std::int32_t> c = centered();
      requantize_offset<T>(isa, tflite_core, p, c.data(), N, C, C, out.zero_point, y);
      break;
    }
    case MeanVariant::kTflmHW: {
      const QuantizedMultiplier m = reference::tflite_quantize_multiplier_checked(
          static_cast<double>(in.scale) / static_cast<double>(out.scale), build);
      const std::vector<std::int32_t> c = centered();
      for (std::size_t i = 0; i < c.size(); ++i) {
        const std::int64_t t = reference::tflite_multiply_by_quantized_multiplier(c[i], m, build);
        y[i] = reference::saturate_to<T>((t > 0 ? (t + nn / 2) / nn : (t - nn / 2) / nn) + out.zero_point);
      }
      break;
    }
    case MeanVariant::kTflmSameQuantTruncate:
      for (std::size_t i = 0; i < acc.size(); ++i) y[i] = reference::saturate_to<T>(static_cast<std::int64_t>(acc[i]) / nn);
      break;
    case MeanVariant::kXnnpack: {
      // F32-ZPF with bias 0 and post-scale 1 is float(float(c) * scale + float(zp)), rounded half
      // to even: XNNPACK's finishing as reference/mean.h states it.
      const float ratio = in.scale / out.scale;
      RequantParams p;
      p.scale = ratio * (1.0f / static_cast<float>(pixels));
      p.bias = 0.0f;
      p.post_scale = 1.0f;
      const std::vector<std::int32_t> c = centered();
      if (Float32ZeroPointInside::is_valid(p)) {
        RequantizeArgs a;
        a.core = RoundingCore::kFloat32ZeroPointInside;
        a.params = &p;
        a.output = full;
        a.rows = N;
        a.channels = C;
        a.acc = c.data();
        requantize<T>(isa, a, y);
      } else {  // a scale that underflowed to 0: the reference's formula as written
        for (std::size_t i = 0; i < c.size(); ++i) {
          const float scaled = static_cast<float>(c[i]) * p.scale;
          y[i] = reference::saturate_to<T>(detail::round_half_even_saturating(scaled + static_cast<float>(out.zero_point)));
        }
      }
      break;
    }
    case MeanVariant::kNpuSingleRounding: {
      const reference::NpuRequant rq = reference::npu_requant(
          npu, static_cast<double>(in.scale) / (static_cast<double>(out.scale) * static_cast<double>(nn)));
      const std::vector<std::int32_t> c = centered();
      requantize_offset<T>(isa, rq.core, rq.params, c.data(), N, C, C, out.zero_point, y);
      break;
    }
    case MeanVariant::kFloat32: {
      const std::vector<std::int32_t> c = centered();
      for (std::size_t i = 0; i < c.size(); ++i) {
        const float mv = static_cast<float>(static_cast<double>(in.scale) * static_cast<double>(c[i]) /
                                            static_cast<double>(nn));
        y[i] = reference::saturate_to<T>(static_cast<std::int64_t>(detail::round_half_even_saturating(mv / out.scale)) +
                                         out.zero_point);
      }
      break;
    }
  }
}

}  // namespace

Isa pooling_kernel_isa(Isa isa) {
  Isa served = Isa::kScalar;
  internal::serving_isa<PoolingFamily>(isa, &served);
  return served;
}

template <class T>
void average_pool(const T* x, const Shape4& s, const PoolWindow& w, const TensorQuant& in, const TensorQuant& out,
                  Activation act, AveragePoolVariant variant, T* y, NpuHypothesis npu) {
  average_pool_impl(active_isa(), x, s, w, in, out, act, variant, y, npu);
}
template <class T>
void average_pool(Isa isa, const T* x, const Shape4& s, const PoolWindow& w, const TensorQuant& in,
                  const TensorQuant& out, Activation act, AveragePoolVariant variant, T* y, NpuHypothesis npu) {
  average_pool_impl(isa, x, s, w, in, out, act, variant, y, npu);
}
template <class T>
void max_pool(const T* x, const Shape4& s, const PoolWindow& w, const TensorQuant& out, Activation act,
              MaxPoolVariant variant, T* y) {
  max_pool_impl(active_isa(), x, s, w, out, act, variant, y);
}
template <class T>
void max_pool(Isa isa, const T* x, const Shape4& s, const PoolWindow& w, const TensorQuant& out, Activation act,
              MaxPoolVariant variant, T* y) {
  max_pool_impl(isa, x, s, w, out, act, variant, y);
}
template <class T>
void mean_hw(const T* x, const Shape4& s, const TensorQuant& in, const TensorQuant& out, MeanVariant variant, T* y,
             TfliteBuild build, NpuHypothesis npu) {
  mean_hw_impl(active_isa(), x, s, in, out, variant, y, build, npu);
}
template <class T>
void mean_hw(Isa isa, const T* x, const Shape4& s, const TensorQuant& in, const TensorQuant& out, MeanVariant variant,
             T* y, TfliteBuild build, NpuHypothesis npu) {
  mean_hw_impl(isa, x, s, in, out, variant, y, build, npu);
}

#define QPARITY_POOLING_INSTANTIATE(T)                                                                 \
  template void average_pool<T>(const T*, const Shape4&, const PoolWindow&, const TensorQuant&,          \
                                const TensorQuant&, Activation, AveragePoolVariant, T*, NpuHypothesis);  \
  template void average_pool<T>(Isa, const T*, const Shape4&, const PoolWindow&, const TensorQuant&,     \
                                const TensorQuant&, Activation, AveragePoolVariant, T*, NpuHypothesis);  \
  template void max_pool<T>(const T*, const Shape4&, const PoolWindow&, const TensorQuant&, Activation,  \
                            MaxPoolVariant, T*);                                                         \
  template void max_pool<T>(Isa, const T*, const Shape4&, const PoolWindow&, const TensorQuant&,         \
                            Activation, MaxPoolVariant, T*);                                             \
  template void mean_hw<T>(const T*, const Shape4&, const TensorQuant&, const TensorQuant&, MeanVariant, \
                           T*, TfliteBuild, NpuHypothesis);                                              \
  template void mean_hw<T>(Isa, const T*, const Shape4&, const TensorQuant&, const TensorQuant&,         \
                           MeanVariant, T*, TfliteBuild, NpuHypothesis);
QPARITY_POOLING_INSTANTIATE(std::int8_t)
QPARITY_POOLING_INSTANTIATE(std::uint8_t)
#undef QPARITY_POOLING_INSTANTIATE

}  // namespace qparity
