#include "model/onnx/ort_qdq_float.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "model/ops/conv_common.h"
#include "model/ops/batch_matmul.h"
#include "model/ops/elementwise.h"
#include "model/ops/mlas_global_sum.h"
#include "preset_params.h"
#include "qparity/error.h"
#include "qparity/reference/batch_matmul.h"
#include "qparity_internal/qdq_fma.h"
#include "qparity_internal/tile_pool_ranges.h"
#include "tool_error.h"

namespace qparity::model {
namespace {

namespace qdq_fma = qparity::internal::qdq_fma;

// An 8-bit tensor's affine parameters per index of its quantized axis (one entry when per tensor).
struct Affine {
  std::vector<float> scales;
  std::vector<std::int32_t> zero_points;
  float scale(std::size_t i) const { return scales.size() == 1 ? scales[0] : scales[i]; }
  std::int32_t zero_point(std::size_t i) const { return zero_points.size() == 1 ? zero_points[0] : zero_points[i]; }
};

Affine affine_of(const TensorDef& t) {
  Affine a;
  a.scales = t.quant.scales;
  for (std::size_t i = 0; i < t.quant.scales.size(); ++i) {
    a.zero_points.push_back(static_cast<std::int32_t>(t.quant.zero_point(i)));
  }
  if (a.zero_points.empty()) a.zero_points.push_back(0);
  return a;
}

// ONNX Runtime's DequantizeLinear: float(x - zero_point) * scale, one float32 rounding.
float dequantize(std::int64_t q, float scale, std::int32_t zero_point) {
  return static_cast<float>(static_cast<std::int32_t>(q) - zero_point) * scale;
}

// Every element of `in` dequantized into out[0, elements): 8-bit tensors are read straight from
// their bytes (Tensor::integer_at per element cost as much as the vector path's sums).
void dequantize_all(const Tensor& in, float scale, std::int32_t zero_point, float* out) {
  const std::size_t n = in.elements();
  const std::uint8_t* bytes = in.bytes.data();
  if (in.dtype == DType::kInt8) {
    for (std::size_t i = 0; i < n; ++i) out[i] = dequantize(static_cast<std::int8_t>(bytes[i]), scale, zero_point);
  } else if (in.dtype == DType::kUint8) {
    for (std::size_t i = 0; i < n; ++i) out[i] = dequantize(bytes[i], scale, zero_point);
  } else {
    for (std::size_t i = 0; i < n; ++i) out[i] = dequantize(in.integer_at(i), scale, zero_point);
  }
}

// out[i] = q, an 8-bit output's byte written directly (as Tensor::set_integer writes it).
void store_integer(Tensor& out, std::size_t i, std::int64_t q) {
  if (out.dtype == DType::kInt8 || out.dtype == DType::kUint8) {
    out.bytes[i] = static_cast<std::uint8_t>(q);
  } else {
    out.set_integer(i, q);
  }
}

// The clamp a fused activation applies to y_f (ONNX Relu, Clip(0, 6)).
void clamp_activation(Activation a, float* y) {
  switch (a) {
    case Activation::kNone:
      return;
    case Activation::kRelu:
      *y = std::max(*y, 0.0f);
      return;
    case Activation::kRelu6:
      *y = std::min(std::max(*y, 0.0f), 6.0f);
      return;
    case Activation::kReluN1To1:
      *y = std::min(std::max(*y, -1.0f), 1.0f);
      return;
  }
}

// ONNX Runtime's QuantizeLinear (MLAS MlasQuantizeLinear): y / scale in float32, clamped to the
// type's range less the zero point (a NaN becomes the lower bound, as MAXPS returns its second
// operand), converted with round half to even, plus the zero point.
std::int64_t quantize(float y, float scale, std::int32_t zero_point, DType t) {
  const auto lo = static_cast<float>(cli::dtype_min(t) - zero_point);
  const auto hi = static_cast<float>(cli::dtype_max(t) - zero_point);
  float v = y / scale;
  v = v > lo ? v : lo;
  v = v < hi ? v : hi;
  return static_cast<std::int64_t>(std::nearbyint(v)) + zero_point;
}

// quantize() over a whole [pixels][channels] y_f with the per-channel bias (empty: none) added and
// the activation's clamp applied first, into `out`: the limits computed once, and for 8-bit
// outputs (every QuantizeLinear the reader accepts) the rounding done inline so that the loop
// vectorizes: for |v| <= 2^22, (v + 1.5 * 2^23) - 1.5 * 2^23 rounds v to an integer half to even
// under the default rounding mode (v is clamped to the type's range less the zero point first, a
// NaN to the lower bound), the same integer as std::nearbyint, which costs a library call per
// output on this build's baseline ISA.
void quantize_outputs(const std::vector<float>& y, std::size_t channels, const std::vector<float>& bias,
                      Activation act, float scale, std::int32_t zero_point, Tensor& out) {
  const bool eight_bit = out.dtype == DType::kInt8 || out.dtype == DType::kUint8;
  if (!eight_bit || channels == 0) {
    for (std::size_t at = 0; at < y.size(); ++at) {
      float v = y[at];
      if (!bias.empty()) v += bias[at % channels];
      clamp_activation(act, &v);
      store_integer(out, at, quantize(v, scale, zero_point, out.dtype));
    }
    return;
  }
  const auto lo = static_cast<float>(cli::dtype_min(out.dtype) - zero_point);
  const auto hi = static_cast<float>(cli::dtype_max(out.dtype) - zero_point);
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23
  std::uint8_t* bytes = out.bytes.data();
  for (std::size_t at = 0; at < y.size(); at += channels) {
    for (std::size_t c = 0; c < channels; ++c) {
      float v = y[at + c];
      if (!bias.empty()) v += bias[c];
      clamp_activation(act, &v);
      v = v / scale;
      v = v > lo ? v : lo;
      v = v < hi ? v : hi;
      const float r = (v + kRound) - kRound;
      bytes[at + c] = static_cast<std::uint8_t>(static_cast<std::int32_t>(r) + zero_point);
    }
  }
}

// MLAS's K slice for an SGEMM with n columns and k depth (MlasSgemmOperation, MlasConvOperation):
// 128, doubled each time the N stride (128) halves while N stride / 2 >= n and N stride > 16, when
// n < k. A single-row GEMM (MLAS's M1 kernels) sums K in one slice.
std::size_t mlas_k_slice(std::size_t rows, std::size_t n, std::size_t k) {
  if (rows == 1) return k == 0 ? 1 : k;
  std::size_t stride_n = 128, stride_k = 128;
  if (n < k) {
    while (stride_n > 16 && stride_n / 2 >= n) {
      stride_k *= 2;
      stride_n /= 2;
    }
  }
  return stride_k;
}

// "K = 144 in slices of 128" / "K = 18 in one slice" for describe().
std::string slice_text(std::size_t k, std::size_t slice) {
  return slice >= k ? fmt::format("K = {} in one slice", k) : fmt::format("K = {} in slices of {}", k, slice);
}

// One output of the float32 GEMM: the products of `taps` (x_f, w_f pairs in K order; a padded tap
// has x_f = 0 and adds nothing) summed with FMAs, each K slice from zero and added to the total.
class SliceSum {
 public:
  explicit SliceSum(std::size_t slice) : slice_(slice) {}
  void start() {
    total_ = 0.0f;
    slice_acc_ = 0.0f;
    k_ = 0;
    first_slice_ = true;
  }
  // Starts from an output that already holds `value` (ORT's Gemm copies C into Y, then runs the
  // SGEMM with beta 1): every slice is added to it.
  void start_from(float value) {
    start();
    total_ = value;
    first_slice_ = false;
  }
  void add(float x, float w) {
    slice_acc_ = std::fma(x, w, slice_acc_);
    if (++k_ == slice_) flush();
  }
  void skip() {  // a padded tap: an FMA of 0 leaves the slice's sum as it is
    if (++k_ == slice_) flush();
  }
  float finish() {
    if (k_ != 0) flush();
    return total_;
  }

 private:
  void flush() {
    total_ = first_slice_ ? slice_acc_ : total_ + slice_acc_;
    first_slice_ = false;
    slice_acc_ = 0.0f;
    k_ = 0;
  }
  std::size_t slice_;
  float total_ = 0.0f, slice_acc_ = 0.0f;
  std::size_t k_ = 0;
  bool first_slice_ = true;
};

std::size_t count_of(const std::vector<std::size_t>& shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;  // validated shapes: no overflow
  return n;
}

// The dequantized filter and bias of a conv-like node, in the node's filter layout.
struct FloatWeights {
  std::vector<float> filter;
  std::vector<float> bias;  // empty: none
};

FloatWeights float_weights(const Graph& g, const Node& n, std::size_t channel_dim, std::size_t channels) {
  const TensorDef& in = input_def(g, n, 0);
  const TensorDef& f = input_def(g, n, 1);
  if (!f.constant() || (has_input(n, 2) && !input_def(g, n, 2).constant())) {
    node_error(g, n, "the filter and bias must be constants under the unfused-QDQ arithmetic");
  }
  const Affine fa = affine_of(f);
  FloatWeights w;
  const Tensor& fd = *f.data;
  w.filter.resize(fd.elements());
  std::size_t inner = 1;
  for (std::size_t d = channel_dim + 1; d < f.shape.size(); ++d) inner *= f.shape[d];
  // Row by row of one channel, 8-bit filters read as bytes (integer_at per element made this the
  // largest part of preparing a ResNet-18).
  const std::size_t dim = f.shape[channel_dim];
  const std::uint8_t* bytes = fd.bytes.data();
  for (std::size_t row = 0, i = 0; i < fd.elements(); ++row) {
    const std::size_t c = row % dim;
    const float scale = fa.scale(c);
    const std::int32_t zero_point = fa.zero_point(c);
    for (std::size_t j = 0; j < inner; ++j, ++i) {
      const std::int64_t q = fd.dtype == DType::kInt8    ? static_cast<std::int8_t>(bytes[i])
                             : fd.dtype == DType::kUint8 ? bytes[i]
                                                         : fd.integer_at(i);
      w.filter[i] = dequantize(q, scale, zero_point);
    }
  }
  if (has_input(n, 2)) {
    const TensorDef& b = input_def(g, n, 2);
    const Tensor& bd = *b.data;
    const Affine xa = affine_of(in);
    w.bias.resize(channels);
    for (std::size_t c = 0; c < channels; ++c) {
      // The bias's own DequantizeLinear scale (the reader keeps it); x_scale * w_scale otherwise.
      const float s =
          b.quant.present() ? (b.quant.per_axis() ? b.quant.scales[c] : b.quant.scales[0]) : xa.scale(0) * fa.scale(c);
      w.bias[c] = static_cast<float>(static_cast<std::int32_t>(bd.integer_at(c))) * s;
    }
  }
  return w;
}

// CONV_2D (groups 1 or more) and DEPTHWISE_CONV_2D on NHWC tensors: ONNX Runtime's float Conv
// (MlasConv: im2col in (channel, kernel row, kernel column) order, then SGEMM per group).
class ConvFloat : public PreparedNode {
 public:
  // kernel: the qdq_fma kernel of the fast engine; null: the scalar reference (SliceSum).
  ConvFloat(const Graph& g, const Node& n, const System& sys, bool depthwise, qdq_fma::RunFn kernel)
      : sys_(sys), depthwise_(depthwise), kernel_(kernel) {
    in_ = n.inputs[0];
    out_ = n.outputs[0];
    const TensorDef& in = input_def(g, n, 0);
    const TensorDef& f = input_def(g, n, 1);
    const TensorDef& out = g.tensors[static_cast<std::size_t>(out_)];
    in_type_ = in.dtype;
    out_type_ = out.dtype;
    x_ = affine_of(in);
    y_ = affine_of(out);
    batch_ = in.shape[0];
    ih_ = in.shape[1];
    iw_ = in.shape[2];
    ic_ = in.shape[3];
    oh_ = out.shape[1];
    ow_ = out.shape[2];
    oc_ = out.shape[3];
    kh_ = f.shape[1];
    kw_ = f.shape[2];
    Window2D win;
    if (depthwise) {
      const auto& o = n.opts<DepthwiseConv2DOptions>();
      win = o.window;
      act_ = o.activation;
      cpg_ = 1;
      filters_per_group_ = oc_ / ic_;
      weights_ = float_weights(g, n, 3, oc_);
    } else {
      const auto& o = n.opts<Conv2DOptions>();
      win = o.window;
      act_ = o.activation;
      cpg_ = f.shape[3];
      filters_per_group_ = oc_ / (ic_ / cpg_);
      weights_ = float_weights(g, n, 0, oc_);
    }
    win.kernel_h = kh_;
    win.kernel_w = kw_;
    stride_h_ = win.stride_h;
    stride_w_ = win.stride_w;
    dil_h_ = win.dilation_h;
    dil_w_ = win.dilation_w;
    const ResolvedWindow r = resolve_window(win, ih_, iw_);
    pad_top_ = r.pad_top;
    pad_left_ = r.pad_left;
    // MlasConvPrepare: a pointwise convolution (1x1, stride 1, no padding) multiplies the input
    // directly (one MlasGemm per group: a single-row GEMM when the group has one filter); the
    // others expand then multiply, K sliced by the output size.
    const std::size_t k = cpg_ * kh_ * kw_;
    const bool pointwise = k == cpg_ && stride_h_ == 1 && stride_w_ == 1 && r.pad_top == 0 && r.pad_left == 0 &&
                           r.pad_bottom == 0 && r.pad_right == 0;
    slice_ = pointwise ? mlas_k_slice(filters_per_group_, oh_ * ow_, k) : mlas_k_slice(2, oh_ * ow_, k);
    if (kernel_ != nullptr) {
      pack();
      plan_runs();
    }
  }

  // y_f before the bias: the float32 sum of every output (NHWC order), from the dequantized input.
  // Every output is written (the reference and the vector path cover all of them), so y is only
  // resized: a run reuses the previous run's buffers instead of allocating and zeroing them.
  // `threads` (>= 1) split the fast engine's pixels; every output keeps its one-thread bits.
  void sums(const Tensor& in, std::vector<float>* y, unsigned threads) const {
    // kLanePad spare floats: the depthwise vector path reads whole vectors past the last channel.
    xf_.resize(in.elements() + qdq_fma::kLanePad);
    dequantize_all(in, x_.scale(0), x_.zero_point(0), xf_.data());
    y->resize(batch_ * oh_ * ow_ * oc_);
    if (kernel_ == nullptr) {
      sums_reference(xf_, y->data());
    } else {
      sums_fast(xf_, y->data(), threads);
    }
  }

  void run(std::vector<Tensor>& values) const override { run_on_threads(values, 1); }

  void run_on_threads(std::vector<Tensor>& values, unsigned threads) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    sums(in, &y_f_, threads);
    quantize_outputs(y_f_, oc_, weights_.bias, act_, y_.scale(0), y_.zero_point(0), out);
  }

  std::vector<std::string> describe() const override {
    return {fmt::format("arithmetic: {}", sys_.name),
            "ONNX Runtime unfused QDQ: x_f = float(x - zp) * s; y_f = float32 FMAs in (channel, ky, kx) order",
            fmt::format("{} (MLAS SGEMM; each slice from 0, then added); + bias_f; {}",
                        slice_text(cpg_ * kh_ * kw_, slice_), activation_text(act_)),
            "q = clamp(round_half_even(y_f / y_scale) + y_zp) (float32 division)"};
  }

 private:
  // The scalar reference: one SliceSum per output, padded taps skipped.
  void sums_reference(const std::vector<float>& xf, float* y_out) const {
    SliceSum sum(slice_);
    std::size_t at = 0;
    for (std::size_t b = 0; b < batch_; ++b) {
      for (std::size_t oy = 0; oy < oh_; ++oy) {
        for (std::size_t ox = 0; ox < ow_; ++ox) {
          for (std::size_t o = 0; o < oc_; ++o, ++at) {
            const std::size_t group = o / filters_per_group_;
            sum.start();
            for (std::size_t ci = 0; ci < cpg_; ++ci) {
              const std::size_t c = group * cpg_ + ci;
              for (std::size_t ky = 0; ky < kh_; ++ky) {
                const auto y =
                    static_cast<std::ptrdiff_t>(oy * stride_h_ + ky * dil_h_) - static_cast<std::ptrdiff_t>(pad_top_);
                for (std::size_t kx = 0; kx < kw_; ++kx) {
                  const auto x = static_cast<std::ptrdiff_t>(ox * stride_w_ + kx * dil_w_) -
                                 static_cast<std::ptrdiff_t>(pad_left_);
                  if (y < 0 || x < 0 || y >= static_cast<std::ptrdiff_t>(ih_) ||
                      x >= static_cast<std::ptrdiff_t>(iw_)) {
                    sum.skip();
                    continue;
                  }
                  const float w = depthwise_ ? weights_.filter[(ky * kw_ + kx) * oc_ + o]
                                             : weights_.filter[((o * kh_ + ky) * kw_ + kx) * cpg_ + ci];
                  sum.add(xf[((b * ih_ + static_cast<std::size_t>(y)) * iw_ + static_cast<std::size_t>(x)) * ic_ + c],
                          w);
                }
              }
            }
            y_out[at] = sum.finish();
          }
        }
      }
    }
  }

  // The filter value of output channel o at tap (ci, ky, kx) of its group.
  float filter_at(std::size_t o, std::size_t ci, std::size_t ky, std::size_t kx) const {
    return depthwise_ ? weights_.filter[(ky * kw_ + kx) * oc_ + o] : weights_.filter[((o * kh_ + ky) * kw_ + kx) * cpg_ + ci];
  }

  // The vector path's tables: the taps in K order (ci, ky, kx) with their input offsets from a
  // window's top-left input pixel, and per group the filter as [K][lanes padded]. One channel per
  // group (depthwise with multiplier 1): one block of all channels, each lane reading its own input
  // channel; otherwise the lanes are a group's filters, sharing each tap's input value.
  void pack() {
    const std::size_t k = cpg_ * kh_ * kw_;
    per_lane_ = cpg_ == 1 && filters_per_group_ == 1;
    groups_ = per_lane_ ? 1 : oc_ / filters_per_group_;
    lanes_ = per_lane_ ? oc_ : filters_per_group_;
    ldw_ = (lanes_ + qdq_fma::kLanePad - 1) / qdq_fma::kLanePad * qdq_fma::kLanePad;
    tap_ky_.resize(k);
    tap_kx_.resize(k);
    offsets_.resize(k);
    for (std::size_t ci = 0, t = 0; ci < cpg_; ++ci) {
      for (std::size_t ky = 0; ky < kh_; ++ky) {
        for (std::size_t kx = 0; kx < kw_; ++kx, ++t) {
          tap_ky_[t] = ky;
          tap_kx_[t] = kx;
          offsets_[t] = static_cast<std::ptrdiff_t>(((ky * dil_h_) * iw_ + kx * dil_w_) * ic_ + (per_lane_ ? 0 : ci));
        }
      }
    }
    packed_.assign(groups_ * k * ldw_, 0.0f);
    for (std::size_t g = 0; g < groups_; ++g) {
      for (std::size_t t = 0; t < k; ++t) {
        const std::size_t ci = t / (kh_ * kw_);
        for (std::size_t c = 0; c < lanes_; ++c) {
          packed_[(g * k + t) * ldw_ + c] = filter_at(g * lanes_ + c, ci, tap_ky_[t], tap_kx_[t]);
        }
      }
    }
  }

  // The taps of a window that fall inside the input: kernel rows [ky0, ky1) and columns [kx0, kx1)
  // (a window's valid rows and columns are contiguous); empty when ky0 >= ky1 or kx0 >= kx1.
  struct TapBox {
    std::size_t ky0 = 0, ky1 = 0, kx0 = 0, kx1 = 0;
    bool operator==(const TapBox& o) const { return ky0 == o.ky0 && ky1 == o.ky1 && kx0 == o.kx0 && kx1 == o.kx1; }
  };

  // The kernel positions [first, last + 1) whose input index origin + i * dilation is in [0, size).
  static void valid_range(std::ptrdiff_t origin, std::size_t taps, std::size_t dilation, std::size_t size,
                          std::size_t* lo, std::size_t* hi) {
    *lo = taps;
    *hi = 0;
    for (std::size_t i = 0; i < taps; ++i) {
      const std::ptrdiff_t at = origin + static_cast<std::ptrdiff_t>(i * dilation);
      if (at >= 0 && at < static_cast<std::ptrdiff_t>(size)) {
        if (*lo == taps) *lo = i;
        *hi = i + 1;
      }
    }
  }

  // Up to kMaxPixels output pixels whose windows have the same valid taps (every tap inside, or one
  // border box: a mask of its valid taps): one kernel call. The pixels need not be neighbours, so
  // border pixels share calls too (a 7x7 output has 24 of its 49 pixels on the border).
  struct Run {
    std::size_t pixels = 0;
    std::size_t pixel[qdq_fma::kMaxPixels] = {};      // output pixel index (b, oy, ox)
    std::ptrdiff_t origin[qdq_fma::kMaxPixels] = {};  // x index of the window's top-left tap
    std::size_t mask = kNoMask;                       // offset of its valid-tap mask in masks_
  };
  static constexpr std::size_t kNoMask = static_cast<std::size_t>(-1);

  // The runs of every output pixel and the masks of the border boxes (geometry only: once, at
  // prepare): the pixels of each box in raster order, kMaxPixels at a time.
  void plan_runs() {
    const std::size_t k = cpg_ * kh_ * kw_;
    const TapBox full{0, kh_, 0, kw_};
    std::vector<TapBox> boxes{full};
    std::vector<Run> open(1);  // per box: the run being filled
    const auto ih = static_cast<std::ptrdiff_t>(ih_), iw = static_cast<std::ptrdiff_t>(iw_);
    for (std::size_t b = 0; b < batch_; ++b) {
      for (std::size_t oy = 0; oy < oh_; ++oy) {
        const auto y0 = static_cast<std::ptrdiff_t>(oy * stride_h_) - static_cast<std::ptrdiff_t>(pad_top_);
        TapBox row;
        valid_range(y0, kh_, dil_h_, ih_, &row.ky0, &row.ky1);
        for (std::size_t ox = 0; ox < ow_; ++ox) {
          const auto x0 = static_cast<std::ptrdiff_t>(ox * stride_w_) - static_cast<std::ptrdiff_t>(pad_left_);
          TapBox here = row;
          valid_range(x0, kw_, dil_w_, iw_, &here.kx0, &here.kx1);
          std::size_t m = 0;
          while (m < boxes.size() && !(boxes[m] == here)) ++m;
          if (m == boxes.size()) {
            boxes.push_back(here);
            Run fresh;
            fresh.mask = masks_.size();
            for (std::size_t t = 0; t < k; ++t) {
              masks_.push_back(tap_ky_[t] >= here.ky0 && tap_ky_[t] < here.ky1 && tap_kx_[t] >= here.kx0 &&
                               tap_kx_[t] < here.kx1);
            }
            open.push_back(fresh);
          }
          Run& r = open[m];
          r.pixel[r.pixels] = (b * oh_ + oy) * ow_ + ox;
          r.origin[r.pixels] = ((static_cast<std::ptrdiff_t>(b) * ih + y0) * iw + x0) * static_cast<std::ptrdiff_t>(ic_);
          if (++r.pixels == qdq_fma::kMaxPixels) {
            runs_.push_back(r);
            r.pixels = 0;
          }
        }
      }
    }
    for (const Run& r : open) {
      if (r.pixels != 0) runs_.push_back(r);
    }
  }

  // The vector path, loop by loop: per group, per block of kChannelBlock lanes, per K slice (or all
  // of K, below), every run. A slice's weights of one lane block (at most 256 taps x 64 lanes,
  // 64 KiB) are then read by all the layer's pixels while cached, instead of the whole filter
  // streaming through the cache once per run (which made the 512-channel layers of ResNet-18,
  // K = 4,608, twice as slow as ONNX Runtime). Each lane's FMAs and slice additions are the same,
  // in the same order.
  //
  // Threads split the runs (output pixels): each range of runs goes through the whole loop nest
  // above for its own pixels, so every output is computed by one thread in the one-thread order
  // (K is never split) and writes only its own row.
  void sums_fast(const std::vector<float>& xf, float* y_out, unsigned threads) const {
    if (lanes_ == 0) return;  // no output channel: nothing to compute (and no empty buffer to copy)
    const std::size_t row = groups_ * ldw_;
    const std::size_t pixels = batch_ * oh_ * ow_;
    // The groups' padded lanes side by side; y itself when that is y's layout.
    const bool direct = row == oc_;
    if (!direct) scratch_.resize(pixels * row);
    float* y = direct ? y_out : scratch_.data();
    struct Ctx {
      const ConvFloat* self;
      const float* x;
      float* y;
    } ctx{this, xf.data(), y};
    const std::uint64_t macs = static_cast<std::uint64_t>(pixels) * oc_ * (cpg_ * kh_ * kw_);
    qparity::internal::run_ranges_on_tile_pool(
        runs_.size(), threads, macs,
        [](const void* c, std::size_t begin, std::size_t end) {
          const auto* k = static_cast<const Ctx*>(c);
          k->self->sums_fast_runs(k->x, k->y, begin, end);
        },
        &ctx);
    if (!direct) {
      for (std::size_t p = 0; p < pixels; ++p) {
        for (std::size_t g = 0; g < groups_; ++g) {
          std::memcpy(y_out + p * oc_ + g * lanes_, y + p * row + g * ldw_, lanes_ * sizeof(float));
        }
      }
    }
  }

  // The loop nest of sums_fast for runs_[begin, end): their pixels' rows of y (groups_ * ldw_ floats).
  void sums_fast_runs(const float* xf, float* y, std::size_t begin, std::size_t end) const {
    constexpr std::size_t kChannelBlock = 4 * qdq_fma::kLanePad;
    const std::size_t k = cpg_ * kh_ * kw_;
    const std::size_t row = groups_ * ldw_;
    // A lane block's whole filter that stays in L2 (1 MiB on this session's Zen 4, shared with the
    // input and the sums) is run all slices at a time per run, so that the run's sums stay in L1
    // between slices (the 7x7 stem: 37 KiB of weights, 3 MiB of sums); a larger one slice by slice.
    constexpr std::size_t kWholeFilterBytes = 256 * 1024;
    const std::size_t k_step = k * kChannelBlock * sizeof(float) <= kWholeFilterBytes ? k : slice_;
    qdq_fma::Block blk;
    blk.x = xf;
    blk.offsets = offsets_.data();
    blk.x_per_lane = per_lane_;
    blk.ldw = ldw_;
    blk.k = k;
    blk.slice = slice_;
    for (std::size_t g = 0; g < groups_; ++g) {
      const std::ptrdiff_t channel = per_lane_ ? 0 : static_cast<std::ptrdiff_t>(g * cpg_);
      for (std::size_t c0 = 0; c0 < lanes_; c0 += kChannelBlock) {
        blk.lanes = std::min(kChannelBlock, lanes_ - c0);
        blk.w = packed_.data() + g * k * ldw_ + c0;
        // Depthwise lanes read their own input channel: the block's first lane is channel c0.
        const std::ptrdiff_t lane_shift = per_lane_ ? static_cast<std::ptrdiff_t>(c0) : 0;
        for (std::size_t kb = 0; kb < k; kb += k_step) {
          blk.k_begin = kb;
          blk.k_end = kb + k_step;
          for (std::size_t i = begin; i < end; ++i) {
            const Run& r = runs_[i];
            blk.pixels = r.pixels;
            for (std::size_t p = 0; p < r.pixels; ++p) {
              blk.base[p] = r.origin[p] + channel + lane_shift;
              blk.out_row[p] = r.pixel[p] * row;
            }
            blk.valid = r.mask == kNoMask ? nullptr : masks_.data() + r.mask;
            blk.out = y + g * ldw_ + c0;
            kernel_(blk);
          }
        }
      }
    }
  }

  System sys_;
  bool depthwise_;
  qdq_fma::RunFn kernel_;
  int in_ = -1, out_ = -1;
  DType in_type_{}, out_type_{};
  Affine x_, y_;
  std::size_t batch_ = 0, ih_ = 0, iw_ = 0, ic_ = 0, oh_ = 0, ow_ = 0, oc_ = 0, kh_ = 0, kw_ = 0;
  std::size_t cpg_ = 1, filters_per_group_ = 1, stride_h_ = 1, stride_w_ = 1, dil_h_ = 1, dil_w_ = 1;
  std::size_t pad_top_ = 0, pad_left_ = 0, slice_ = 1;
  Activation act_ = Activation::kNone;
  FloatWeights weights_;
  // The vector path's tables (pack()).
  bool per_lane_ = false;
  std::size_t groups_ = 1, lanes_ = 0, ldw_ = 0;
  std::vector<std::size_t> tap_ky_, tap_kx_;
  std::vector<std::ptrdiff_t> offsets_;
  std::vector<float> packed_;
  std::vector<Run> runs_;
  std::vector<unsigned char> masks_;  // per distinct border box: k flags, tap valid or not
  // Buffers reused from run to run (a prepared node runs one input at a time).
  mutable std::vector<float> xf_, y_f_, scratch_;
};

// One output of MLAS's single-row SGEMM kernel for an unpacked B (MlasSgemmKernelM1Avx, which x86
// builds run for M = 1 on every AVX CPU): products rounded on their own (vmulps, no FMA), summed
// four K rows at a time as ((p0 + p1) + p2) + p3, each block then added to the output, which starts
// as `c` (C with beta 1, else +0); the K remainder as one block of two, then one of one.
float m1_sum(const float* x, const float* w, std::size_t k, std::size_t stride, float c = 0.0f) {
  auto p = [&](std::size_t i) { return x[i] * w[i * stride]; };
  std::size_t i = 0;
  for (; i + 4 <= k; i += 4) c = (((p(i) + p(i + 1)) + p(i + 2)) + p(i + 3)) + c;
  if ((k - i) & 2) {
    c = (p(i) + p(i + 1)) + c;
    i += 2;
  }
  if ((k - i) & 1) c = p(i) + c;
  return c;
}

// One output of MLAS's single-row SGEMM kernel for a transposed B (MlasSgemmKernelM1TransposeBAvx,
// onnxruntime/core/mlas/lib/x86_64/SgemmKernelM1TransposeBAvx.S, which platform.cpp selects for
// M = 1 on every AVX CPU, AVX-512 ones included), output `column` of `n`: the dot product of `a`
// and one row `b` of B, both contiguous along K. Eight lane sums acc[l] = sum over K blocks of
// a[8i + l] * b[8i + l], each product rounded on its own (vmulps, no FMA) and added in K order
// from +0; the K remainder (k mod 8) as one masked block whose missing lanes add +0. The kernel
// takes the columns four at a time, then two, then one, and reduces the lanes of each group in
// its own order:
//   four:  (((acc0 + acc1) + acc2) + acc3) + (((acc4 + acc5) + acc6) + acc7)
//   two:   ((acc0 + acc2) + (acc4 + acc6)) + ((acc1 + acc3) + (acc5 + acc7))
//   one:   ((acc0 + acc1) + (acc2 + acc3)) + ((acc4 + acc5) + (acc6 + acc7))
// and then adds the output's prior value `c` (beta 1; beta 0 reads no C: pass +0) last.
float m1_transpose_b_sum(const float* a, const float* b, std::size_t k, std::size_t column, std::size_t n,
                         float c) {
  float acc[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  for (std::size_t i = 0; i < k; ++i) {
    const float product = a[i] * b[i];
    acc[i % 8] = acc[i % 8] + product;
  }
  float s = 0.0f;
  if (column < n / 4 * 4) {
    s = (((acc[0] + acc[1]) + acc[2]) + acc[3]) + (((acc[4] + acc[5]) + acc[6]) + acc[7]);
  } else if ((n % 4) >= 2 && column < n / 4 * 4 + 2) {
    s = ((acc[0] + acc[2]) + (acc[4] + acc[6])) + ((acc[1] + acc[3]) + (acc[5] + acc[7]));
  } else {
    s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  }
  return s + c;
}

// FULLY_CONNECTED as ONNX MatMul with a constant b: y[r, j] = sum_k a_f[r, k] * b_f[k, j] (MlasGemm
// over all leading rows of a); with a bias (read from Gemm's C) the output starts as the bias and
// each K slice is added to it (ORT's Gemm broadcasts C into Y, then multiplies with beta 1). A
// Gemm with one row of A runs m1_transpose_b_sum (transB 1), its sum then added to the bias, or
// m1_sum starting from the bias (transB 0).
class FcFloat : public PreparedNode {
 public:
  // kernel: the qdq_fma kernel of the fast engine; null: the scalar reference (SliceSum).
  FcFloat(const Graph& g, const Node& n, const System& sys, qdq_fma::RunFn kernel) : sys_(sys), kernel_(kernel) {
    in_ = n.inputs[0];
    out_ = n.outputs[0];
    const TensorDef& in = input_def(g, n, 0);
    const TensorDef& f = input_def(g, n, 1);
    const TensorDef& out = g.tensors[static_cast<std::size_t>(out_)];
    out_type_ = out.dtype;
    x_ = affine_of(in);
    y_ = affine_of(out);
    units_ = f.shape[0];
    depth_ = f.shape[1];
    rows_ = depth_ == 0 ? 0 : count_of(in.shape) / depth_;
    act_ = n.opts<FullyConnectedOptions>().activation;
    weights_ = float_weights(g, n, 0, units_);
    slice_ = mlas_k_slice(rows_, units_, depth_);
    // A one-row Gemm runs MLAS's single-row kernels, in both engines (one output row: nothing to
    // vectorize across rows): the transposed-B one for transB 1, the other for transB 0.
    one_row_gemm_ = rows_ == 1 && !weights_.bias.empty();
    trans_b_ = !n.gemm_b_not_transposed;
    if (kernel_ != nullptr) {
      // The vector path's filter as [K][units padded] and, with a bias, the starting values.
      ldw_ = (units_ + qdq_fma::kLanePad - 1) / qdq_fma::kLanePad * qdq_fma::kLanePad;
      packed_.assign(depth_ * ldw_, 0.0f);
      for (std::size_t j = 0; j < units_; ++j) {
        for (std::size_t k = 0; k < depth_; ++k) packed_[k * ldw_ + j] = weights_.filter[j * depth_ + k];
      }
      if (!weights_.bias.empty()) {
        start_.assign(ldw_, 0.0f);
        std::copy(weights_.bias.begin(), weights_.bias.end(), start_.begin());
      }
      offsets_.resize(depth_);
      for (std::size_t k = 0; k < depth_; ++k) offsets_[k] = static_cast<std::ptrdiff_t>(k);
    }
  }

  // y_f before the activation: every output (rows x units), from the dequantized input; `threads`
  // (>= 1) split the fast engine's rows, every output keeping its one-thread bits.
  void sums(const Tensor& in, std::vector<float>* y, unsigned threads) const {
    std::vector<float> xf(in.elements());
    dequantize_all(in, x_.scale(0), x_.zero_point(0), xf.data());
    y->assign(rows_ * units_, 0.0f);
    if (one_row_gemm_) {
      // ORT's Gemm copies the bias into Y, then MLAS adds the kernel's sum to it (beta 1).
      for (std::size_t j = 0; j < units_; ++j) {
        const float* w = weights_.filter.data() + j * depth_;
        (*y)[j] = trans_b_ ? m1_transpose_b_sum(xf.data(), w, depth_, j, units_, weights_.bias[j])
                           : m1_sum(xf.data(), w, depth_, 1, weights_.bias[j]);
      }
    } else if (kernel_ == nullptr) {
      sums_reference(xf, y->data());
    } else {
      sums_fast(xf, y->data(), threads);
    }
  }

  void run(std::vector<Tensor>& values) const override { run_on_threads(values, 1); }

  void run_on_threads(std::vector<Tensor>& values, unsigned threads) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    std::vector<float> y;
    sums(in, &y, threads);
    for (std::size_t at = 0; at < y.size(); ++at) {
      float v = y[at];
      clamp_activation(act_, &v);
      store_integer(out, at, quantize(v, y_.scale(0), y_.zero_point(0), out_type_));
    }
  }

  std::vector<std::string> describe() const override {
    if (one_row_gemm_ && !trans_b_) {
      return {fmt::format("arithmetic: {}", sys_.name),
              "ONNX Runtime unfused QDQ Gemm, one row, transB 0: MLAS's single-row kernel, products rounded",
              fmt::format("y_f starts as bias_f, blocks of 4 K summed, then added to it; {}", activation_text(act_)),
              "q = clamp(round_half_even(y_f / y_scale) + y_zp) (float32 division)"};
    }
    if (one_row_gemm_) {
      return {fmt::format("arithmetic: {}", sys_.name),
              "ONNX Runtime unfused QDQ Gemm, one row, transB 1: MLAS's single-row transposed-B kernel, products "
              "rounded, 8 lane sums along K, reduced per group of 4 / 2 / 1 units",
              fmt::format("y_f = lane sum + bias_f (beta 1); {}", activation_text(act_)),
              "q = clamp(round_half_even(y_f / y_scale) + y_zp) (float32 division)"};
    }
    return {fmt::format("arithmetic: {}", sys_.name),
            weights_.bias.empty() ? "ONNX Runtime unfused QDQ MatMul: float32 FMAs in K order"
                                  : "ONNX Runtime unfused QDQ Gemm: y_f starts as bias_f, float32 FMAs in K order",
            fmt::format("{} (MLAS SGEMM; each slice from 0, then added to y_f); {}", slice_text(depth_, slice_),
                        activation_text(act_)),
            "q = clamp(round_half_even(y_f / y_scale) + y_zp) (float32 division)"};
  }

 private:
  // The scalar reference: one SliceSum per output.
  void sums_reference(const std::vector<float>& xf, float* y_out) const {
    SliceSum sum(slice_);
    for (std::size_t r = 0; r < rows_; ++r) {
      for (std::size_t j = 0; j < units_; ++j) {
        if (weights_.bias.empty()) {
          sum.start();
        } else {
          sum.start_from(weights_.bias[j]);
        }
        for (std::size_t k = 0; k < depth_; ++k) {
          sum.add(xf[r * depth_ + k], weights_.filter[j * depth_ + k]);
        }
        y_out[r * units_ + j] = sum.finish();
      }
    }
  }

  // The vector path: kMaxPixels rows of A per call, every unit a lane. Threads split the blocks of
  // rows (each output is one thread's, in the one-thread order; K is never split).
  void sums_fast(const std::vector<float>& xf, float* y_out, unsigned threads) const {
    if (units_ == 0) return;  // no column: nothing to compute (and no empty buffer to copy)
    struct Ctx {
      const FcFloat* self;
      const float* x;
      float* y;
    } ctx{this, xf.data(), y_out};
    const std::size_t blocks = (rows_ + qdq_fma::kMaxPixels - 1) / qdq_fma::kMaxPixels;
    const std::uint64_t macs = static_cast<std::uint64_t>(rows_) * units_ * depth_;
    qparity::internal::run_ranges_on_tile_pool(
        blocks, threads, macs,
        [](const void* c, std::size_t begin, std::size_t end) {
          const auto* k = static_cast<const Ctx*>(c);
          k->self->sums_fast_rows(k->x, k->y, begin, end);
        },
        &ctx);
  }

  // Row blocks [begin, end) of sums_fast, kMaxPixels rows each.
  void sums_fast_rows(const float* xf, float* y_out, std::size_t begin, std::size_t end) const {
    std::vector<float> scratch(qdq_fma::kMaxPixels * ldw_);
    qdq_fma::Block blk;
    blk.x = xf;
    blk.offsets = offsets_.data();
    blk.w = packed_.data();
    blk.ldw = ldw_;
    blk.k = depth_;
    blk.slice = slice_;
    blk.lanes = units_;
    blk.start = start_.empty() ? nullptr : start_.data();
    blk.out = scratch.data();
    for (std::size_t p = 0; p < qdq_fma::kMaxPixels; ++p) blk.out_row[p] = p * ldw_;
    for (std::size_t r0 = begin * qdq_fma::kMaxPixels; r0 < rows_ && r0 < end * qdq_fma::kMaxPixels;
         r0 += qdq_fma::kMaxPixels) {
      blk.pixels = std::min(qdq_fma::kMaxPixels, rows_ - r0);
      for (std::size_t p = 0; p < blk.pixels; ++p) blk.base[p] = static_cast<std::ptrdiff_t>((r0 + p) * depth_);
      kernel_(blk);
      for (std::size_t p = 0; p < blk.pixels; ++p) {
        std::memcpy(y_out + (r0 + p) * units_, scratch.data() + p * ldw_, units_ * sizeof(float));
      }
    }
  }

  System sys_;
  qdq_fma::RunFn kernel_;
  int in_ = -1, out_ = -1;
  DType out_type_{};
  Affine x_, y_;
  std::size_t units_ = 0, depth_ = 0, rows_ = 0, slice_ = 1;
  bool one_row_gemm_ = false, trans_b_ = true;
  Activation act_ = Activation::kNone;
  FloatWeights weights_;
  // The vector path's tables.
  std::size_t ldw_ = 0;
  std::vector<float> packed_, start_;
  std::vector<std::ptrdiff_t> offsets_;
};

// BATCH_MATMUL as ONNX MatMul with an N-D or run-time b: ORT's float MatMul (MatMulComputeHelper,
// MlasGemmBatch) runs one SGEMM per output batch of the broadcast shape, or one over all of a's
// rows when b is 2-D (a's leading dimensions flattened into M). B is not packed ahead (ORT packs a
// constant 2-D b only, which the reader makes a FULLY_CONNECTED), so a GEMM of one row runs MLAS's
// single-row kernel (m1_sum), a GEMM of one column the transposed one (m1_transpose_b_sum) and
// the others SliceSum's chains with the slice of mlas_k_slice. Per-
// tensor quantization (the reader's BATCH_MATMUL has no other). The scalar reference serves both
// engines: one path keeps the bits obviously the same, and this form's GEMMs are small.
class BatchMatMulFloat : public PreparedNode {
 public:
  BatchMatMulFloat(const Graph& g, const Node& n, const System& sys) : sys_(sys) {
    lhs_ = n.inputs[0];
    rhs_ = n.inputs[1];
    out_ = n.outputs[0];
    const TensorDef& a = input_def(g, n, 0);
    const TensorDef& b = input_def(g, n, 1);
    const TensorDef& out = g.tensors[static_cast<std::size_t>(out_)];
    const auto& o = n.opts<BatchMatMulOptions>();
    try {
      geo_ = reference::batch_matmul_geometry(a.shape, b.shape, o.adj_x, o.adj_y);
    } catch (const std::exception& e) {
      node_error(g, n, cli::without_library_prefix(e.what()));
    }
    if (o.adj_x || o.adj_y) node_error(g, n, "adj_x / adj_y under the unfused-QDQ arithmetic; allowed: neither (ONNX MatMul)");
    out_type_ = out.dtype;
    qa_ = affine_of(a);
    qb_ = affine_of(b);
    y_ = affine_of(out);
    // ORT's GEMM rows: all of a's rows when b is one matrix, else one batch matrix's.
    const std::size_t rows = b.shape.size() == 2 ? count_of(a.shape) / geo_.k : geo_.m;
    single_row_ = rows == 1;
    gemm_rows_ = rows;
    flat_rows_ = b.shape.size() == 2;
    slice_ = mlas_k_slice(rows, geo_.n, geo_.k);
    // MLAS turns a one-column SGEMM (ldb = ldc = 1) into a single-row one on the transposed
    // operands: b is the row and a's rows the transposed B (m1_transpose_b_sum).
    single_column_ = !single_row_ && geo_.n == 1;
    if (b.constant()) {
      rhs_f_.resize(b.data->elements());
      dequantize_all(*b.data, qb_.scale(0), qb_.zero_point(0), rhs_f_.data());
    }
  }

  void run(std::vector<Tensor>& values) const override {
    const Tensor& a = values[static_cast<std::size_t>(lhs_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    std::vector<float> af(a.elements()), bf;
    dequantize_all(a, qa_.scale(0), qa_.zero_point(0), af.data());
    if (rhs_f_.empty()) {
      const Tensor& b = values[static_cast<std::size_t>(rhs_)];
      bf.resize(b.elements());
      dequantize_all(b, qb_.scale(0), qb_.zero_point(0), bf.data());
    }
    const std::vector<float>& rhs = rhs_f_.empty() ? bf : rhs_f_;
    const std::size_t m = geo_.m, k = geo_.k, nn = geo_.n;
    SliceSum sum(slice_);
    for (std::size_t batch = 0; batch < geo_.batches(); ++batch) {
      const float* x = af.data() + geo_.lhs_batch(batch) * m * k;
      const float* w = rhs.data() + geo_.rhs_batch(batch) * k * nn;
      for (std::size_t r = 0; r < m; ++r) {
        for (std::size_t j = 0; j < nn; ++j) {
          float y = 0.0f;
          if (single_row_) {
            y = m1_sum(x + r * k, w + j, k, nn);
          } else if (single_column_) {
            // The kernel's row groups run over the SGEMM's rows: all of a's when b is 2-D.
            const std::size_t row = flat_rows_ ? batch * m + r : r;
            y = m1_transpose_b_sum(w, x + r * k, k, row, gemm_rows_, 0.0f);
          } else {
            sum.start();
            for (std::size_t i = 0; i < k; ++i) sum.add(x[r * k + i], w[i * nn + j]);
            y = sum.finish();
          }
          store_integer(out, (batch * m + r) * nn + j, quantize(y, y_.scale(0), y_.zero_point(0), out_type_));
        }
      }
    }
  }

  std::vector<std::string> describe() const override {
    return {fmt::format("arithmetic: {}", sys_.name),
            fmt::format("ONNX Runtime unfused QDQ MatMul, {} batch(es) of [{}, {}] x [{}, {}]: float32 FMAs in K order",
                        geo_.batches(), geo_.m, geo_.k, geo_.k, geo_.n),
            single_row_      ? std::string("one row: MLAS's single-row kernel, products rounded, summed in blocks of 4 K")
            : single_column_ ? std::string("one column: MLAS's single-row transposed-B kernel on the transposed operands, "
                                           "products rounded, 8 lane sums along K, reduced per group of 4 / 2 / 1 rows")
                             : fmt::format("{} (MLAS SGEMM; each slice from 0, then added to y_f)", slice_text(geo_.k, slice_)),
            "q = clamp(round_half_even(y_f / y_scale) + y_zp) (float32 division)"};
  }

 private:
  System sys_;
  int lhs_ = -1, rhs_ = -1, out_ = -1;
  DType out_type_{};
  Affine qa_, qb_, y_;
  reference::BatchMatMulGeometry geo_;
  std::size_t slice_ = 1;
  bool single_row_ = false, single_column_ = false;
  std::size_t gemm_rows_ = 0;  // rows of each SGEMM ORT runs
  bool flat_rows_ = false;     // b 2-D: one SGEMM over all of a's rows
  std::vector<float> rhs_f_;  // a constant b dequantized once; empty for a run-time b
};

// ADD / MUL of two tensors of one shape, or of a tensor and a one-element constant: ONNX Runtime's
// float Add / Mul on the dequantized inputs.
class BinaryFloat : public PreparedNode {
 public:
  BinaryFloat(const Graph& g, const Node& n, const System& sys) : sys_(sys), mul_(n.op == OpKind::kMul) {
    a_ = n.inputs[0];
    b_ = n.inputs[1];
    out_ = n.outputs[0];
    const TensorDef& a = input_def(g, n, 0);
    const TensorDef& b = input_def(g, n, 1);
    const TensorDef& out = g.tensors[static_cast<std::size_t>(out_)];
    if (b.shape != a.shape && count_of(b.shape) != 1) {
      node_error(g, n,
                 fmt::format("inputs of shapes {} and {}; allowed under the unfused-QDQ arithmetic: one shape, "
                             "or a one-element second input",
                             cli::shape_text(a.shape), cli::shape_text(b.shape)));
    }
    out_type_ = out.dtype;
    qa_ = affine_of(a);
    qb_ = affine_of(b);
    y_ = affine_of(out);
    act_ = n.opts<ElementwiseOptions>().activation;
  }

  void run(std::vector<Tensor>& values) const override {
    const Tensor& a = values[static_cast<std::size_t>(a_)];
    const Tensor& b = values[static_cast<std::size_t>(b_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    const bool scalar_b = b.elements() == 1;
    for (std::size_t i = 0; i < out.elements(); ++i) {
      const float x = dequantize(a.integer_at(i), qa_.scale(0), qa_.zero_point(0));
      const float z = dequantize(b.integer_at(scalar_b ? 0 : i), qb_.scale(0), qb_.zero_point(0));
      float v = mul_ ? x * z : x + z;
      clamp_activation(act_, &v);
      out.set_integer(i, quantize(v, y_.scale(0), y_.zero_point(0), out_type_));
    }
  }

  std::vector<std::string> describe() const override {
    return {fmt::format("arithmetic: {}", sys_.name),
            fmt::format("ONNX Runtime unfused QDQ {}: float32 {} of the dequantized inputs; {}", mul_ ? "Mul" : "Add",
                        mul_ ? "product" : "sum", activation_text(act_)),
            "q = clamp(round_half_even(y_f / y_scale) + y_zp) (float32 division)"};
  }

 private:
  System sys_;
  bool mul_;
  int a_ = -1, b_ = -1, out_ = -1;
  DType out_type_{};
  Affine qa_, qb_, y_;
  Activation act_ = Activation::kNone;
};

// MEAN over H and W of an NHWC tensor (ONNX GlobalAveragePool): the dequantized values summed in
// float32 in the order of MLAS's global pooling kernel (onnxruntime/core/mlas/lib/pooling.cpp
// MlasPoolGlobalKernel with MlasReduceAddFloat32x4: four lanes, then a pairwise reduction, then the
// tail), divided by their count.
class GlobalAverageFloat : public PreparedNode {
 public:
  GlobalAverageFloat(const Graph& g, const Node& n, const System& sys) : sys_(sys) {
    in_ = n.inputs[0];
    out_ = n.outputs[0];
    const TensorDef& in = input_def(g, n, 0);
    const TensorDef& out = g.tensors[static_cast<std::size_t>(out_)];
    if (in.shape.size() != 4 || count_of(out.shape) != in.shape[0] * in.shape[3]) {
      node_error(g, n, "allowed under the unfused-QDQ arithmetic: the mean over H and W of a 4-D tensor");
    }
    out_type_ = out.dtype;
    x_ = affine_of(in);
    y_ = affine_of(out);
    batch_ = in.shape[0];
    hw_ = in.shape[1] * in.shape[2];
    c_ = in.shape[3];
  }

  void run(std::vector<Tensor>& values) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    for (std::size_t b = 0; b < batch_; ++b) {
      for (std::size_t c = 0; c < c_; ++c) {
        auto x = [&](std::size_t p) {
          return dequantize(in.integer_at((b * hw_ + p) * c_ + c), x_.scale(0), x_.zero_point(0));
        };
        const float sum = mlas_global_sum(hw_, x);  // MLAS's global kernel's order
        const float mean = sum / static_cast<float>(hw_);
        out.set_integer(b * c_ + c, quantize(mean, y_.scale(0), y_.zero_point(0), out_type_));
      }
    }
  }

  std::vector<std::string> describe() const override {
    return {fmt::format("arithmetic: {}", sys_.name),
            "ONNX Runtime unfused QDQ GlobalAveragePool: float32 sum in MLAS's 4-lane order / count",
            "q = clamp(round_half_even(mean / y_scale) + y_zp) (float32 division)"};
  }

 private:
  System sys_;
  int in_ = -1, out_ = -1;
  DType out_type_{};
  Affine x_, y_;
  std::size_t batch_ = 0, hw_ = 0, c_ = 0;
};

}  // namespace

bool ort_qdq_float_handles(const Node& node, const System& system) {
  const OpKind k = node.op;
  return system.preset.name == kOrtQdqFloatPreset &&
         (k == OpKind::kConv2D || k == OpKind::kDepthwiseConv2D || k == OpKind::kFullyConnected || k == OpKind::kAdd ||
          k == OpKind::kMul || k == OpKind::kMean || k == OpKind::kBatchMatMul);
}

std::unique_ptr<PreparedNode> prepare_ort_qdq_float(const Graph& graph, const Node& node, const System& system,
                                                    Engine engine) {
  const OpKind k = node.op;
  // The fast engine's kernel: the qdq_fma family's for the dispatching ISA (QPARITY_ISA and the
  // tests' mask apply, as to the integer kernels).
  const qdq_fma::RunFn kernel = engine == Engine::kFast ? qdq_fma::kernel(active_isa()) : nullptr;
  if (k == OpKind::kConv2D) return std::make_unique<ConvFloat>(graph, node, system, false, kernel);
  if (k == OpKind::kDepthwiseConv2D) return std::make_unique<ConvFloat>(graph, node, system, true, kernel);
  if (k == OpKind::kFullyConnected) return std::make_unique<FcFloat>(graph, node, system, kernel);
  if (k == OpKind::kAdd || k == OpKind::kMul) return std::make_unique<BinaryFloat>(graph, node, system);
  if (k == OpKind::kMean) return std::make_unique<GlobalAverageFloat>(graph, node, system);
  if (k == OpKind::kBatchMatMul) return std::make_unique<BatchMatMulFloat>(graph, node, system);
  node_error(graph, node, "the unfused-QDQ arithmetic does not compute this op");
}

std::vector<float> ort_qdq_float_sums(const Graph& graph, const Node& node, const System& system, Engine engine,
                                      Isa isa, const Tensor& input, unsigned threads) {
  qdq_fma::RunFn kernel = nullptr;
  if (engine == Engine::kFast) {
    try {
      kernel = qdq_fma::kernel(isa);
    } catch (const InvalidArgument& e) {
      node_error(graph, node, std::string("the vector path asked for is not available here: ") + e.what());
    }
  }
  std::vector<float> y;
  if (node.op == OpKind::kConv2D || node.op == OpKind::kDepthwiseConv2D) {
    ConvFloat(graph, node, system, node.op == OpKind::kDepthwiseConv2D, kernel).sums(input, &y, threads);
  } else if (node.op == OpKind::kFullyConnected) {
    FcFloat(graph, node, system, kernel).sums(input, &y, threads);
  } else {
    node_error(graph, node, "y_f is computed for CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED only");
  }
  return y;
}

}  // namespace qparity::model
