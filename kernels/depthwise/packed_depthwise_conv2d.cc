// PackedDepthwiseConv2D: validation of the geometry and weights, choice of the kernels for
// (ISA, window), the accumulation plan for the accumulator model, and packing of the filter into the
// kernels' int16 tap-pair layout with the per-channel terms the epilogue needs
// (kernels/depthwise/depthwise_kernel.h describes the layout).
#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <string>

#include "kernels/depthwise/packed_depthwise_conv2d_data.h"
#include "kernels/dispatch/unsupported_isa.h"
#include "qparity/depthwise_conv2d.h"
#include "qparity/error.h"

namespace qparity {
namespace internal {
namespace {

// The kernels serving `isa` (the registry's parent chain: avxvnni runs avx2's, sse41 the portable
// ones, amx avx512vnni's). Each getter is compiled with its ISA's flags and may use its
// instructions, so it only runs for a supported ISA (the constructor checks).
const DepthwiseKernelSet& kernels_of(Isa isa) { return *kernels_for<DepthwiseFamily>(isa); }

std::size_t round_up(std::size_t v, std::size_t m) { return (v + m - 1) / m * m; }

/// Channels per tile group: bounds the converted rows a tile keeps (and lets threads split wide
/// layers such as 14x14x512 by channels).
constexpr std::size_t kMaxGroupChannels = 128;
/// Bytes of converted input rows one tile may keep: the band of output rows is chosen so that its
/// rows fit (L2-resident on the target CPUs; each input row is then converted once per band). The
/// quad path keeps only a ring as tall as the window (depthwise_driver.cc, run_quad_tile), so for
/// it the budget only sets the band, i.e. how often a band's first rows are converted again.
constexpr std::size_t kPairRowBudget = 192 * 1024;
constexpr std::size_t kMaxBand = 16;

}  // namespace
}  // namespace internal

PackedDepthwiseConv2D::PackedDepthwiseConv2D(const DepthwiseConv2DGeometry& geometry,
                                             const ConvWeights& weights, RoundingCore core,
                                             AccumulatorSpec accumulator)
    : PackedDepthwiseConv2D(active_isa(), geometry, weights, core, accumulator) {}

PackedDepthwiseConv2D::PackedDepthwiseConv2D(Isa isa, const DepthwiseConv2DGeometry& geometry,
                                             const ConvWeights& weights, RoundingCore core,
                                             AccumulatorSpec accumulator) {
  using namespace internal;
  internal::require_supported(isa);
  validate(accumulator);
  const ResolvedWindow r = validate(geometry);
  const std::size_t oc = geometry.out_channels();
  validate_conv_weights(weights, oc, core);

  auto d = std::make_unique<PackedDepthwiseConv2DData>();
  const Window2D& win = geometry.window;
  d->geometry = geometry;
  d->window = r;
  d->core = core;
  d->accumulator = accumulator;
  d->isa = isa;
  d->out_channels = oc;
  d->taps = win.kernel_h * win.kernel_w;
  d->pairs = (win.kernel_w + 1) / 2;
  d->kernels = kernels_of(isa);
  d->lanes = d->kernels.lanes;

  const AccumulatorKind kind = accumulator.kind;
  if (d->taps > kMaxSimdTaps) {
    d->plan = DwPlan::kReference;
  } else if (kind == AccumulatorKind::kInt32 || kind == AccumulatorKind::kPairSaturating ||
             (kind == AccumulatorKind::kWrapping && accumulator.bits <= 32)) {
    d->plan = DwPlan::kFoldedInt32;
  } else {
    d->plan = DwPlan::kExactWide;
  }
  const std::string prefix = std::string(to_string(isa)) + "-dw";
  if (d->plan == DwPlan::kReference) {
    d->kernel_name = prefix + "-reference";
  } else if (win.kernel_h == 3 && win.kernel_w == 3) {
    d->row = d->kernels.row_3x3;
    d->kernel_name = prefix + "3x3";
  } else if (win.kernel_h == 5 && win.kernel_w == 5) {
    d->row = d->kernels.row_5x5;
    d->kernel_name = prefix + "5x5";
  } else {
    d->row = d->kernels.row_generic;
    d->kernel_name = prefix + "-generic";
  }

  // Per-channel constants.
  d->filter.assign(weights.filter, weights.filter + d->taps * oc);
  d->w_zero_point.assign(oc, 0);
  if (weights.filter_zero_points != nullptr) {
    for (std::size_t c = 0; c < oc; ++c) {
      d->w_zero_point[c] = weights.filter_zero_points[weights.filter_zero_point_per_channel ? c : 0];
    }
  }
  d->bias.assign(oc, 0);
  if (weights.bias != nullptr) std::copy(weights.bias, weights.bias + oc, d->bias.begin());
  d->per_channel = weights.per_channel;
  d->params.assign(weights.params, weights.params + (weights.per_channel ? oc : 1));
  d->abs_sum.assign(oc, 0);
  d->pair_may_saturate.assign(oc, 0);
  for (std::size_t c = 0; c < oc; ++c) {
    std::int64_t s = 0;
    for (std::size_t k = 0; k < d->taps; ++k) s += std::abs(d->filter[k * oc + c] - d->w_zero_point[c]);
    d->abs_sum[c] = s;
    // Int16PairSaturatingAccumulator pairs taps (2j, 2j + 1) in K order and multiplies the raw
    // weights by activations made unsigned, in [0, 255]: a pair can saturate iff its extreme
    // sums 255 * (sum of positive weights) or 255 * (sum of negative weights) leave int16.
    for (std::size_t k = 0; k < d->taps; k += 2) {
      const std::int32_t b0 = d->filter[k * oc + c];
      const std::int32_t b1 = k + 1 < d->taps ? d->filter[(k + 1) * oc + c] : 0;
      const std::int32_t hi = 255 * (std::max(b0, 0) + std::max(b1, 0));
      const std::int32_t lo = 255 * (std::min(b0, 0) + std::min(b1, 0));
      if (hi > 32767 || lo < -32768) d->pair_may_saturate[c] = 1;
    }
    d->any_pair_may_saturate |= d->pair_may_saturate[c] != 0;
  }

  // The quad path needs every packed weight in int8 (VPDPBUSD's signed operand).
  const std::size_t lanes = d->lanes;
  const std::size_t ocp = round_up(oc, lanes);
  if (d->kernels.quad_3x3 != nullptr && d->plan != DwPlan::kReference && win.kernel_h == 3 && win.kernel_w == 3 &&
      win.dilation_w == 1 && (win.stride_w == 1 || win.stride_w == 2)) {
    bool fits = true;
    for (std::size_t i = 0; i < d->filter.size() && fits; ++i) {
      const std::int32_t v = d->filter[i] - d->w_zero_point[i % oc];
      fits = v >= -128 && v <= 127;
    }
    d->quad = fits;
  }

  // Tiling: channel groups x bands of output rows x batch.
  d->group = std::min(ocp, kMaxGroupChannels);
  d->groups = (oc + d->group - 1) / d->group;
  d->pair_row_width = (r.out_w - 1) * win.stride_w + 2 * (d->pairs - 1) * win.dilation_w + 1;
  d->pair_column_step = std::gcd(win.stride_w, 2 * win.dilation_w);
  d->quad_columns = win.stride_w == 1 ? (r.out_w + 1) / 2 : r.out_w;
  const std::size_t row_bytes = d->quad ? d->quad_columns * d->group * 4
                                        : d->pair_row_width * d->group * 2 * sizeof(std::int16_t);
  auto rows_for = [&](std::size_t band) {
    return (band - 1) * win.stride_h + (win.kernel_h - 1) * win.dilation_h + 1;
  };
  d->band = 1;
  while (d->band < std::min(r.out_h, kMaxBand) && rows_for(d->band + 1) * row_bytes <= kPairRowBudget) {
    ++d->band;
  }
  d->bands = (r.out_h + d->band - 1) / d->band;

  // Weights: [block][ky][pair][lane][2], (w - wz) as int16, zero past kernel_w and out_channels.
  if (d->plan != DwPlan::kReference) {
    const std::size_t blocks = ocp / lanes, kh = win.kernel_h, kw = win.kernel_w, P = d->pairs;
    d->weights.assign(blocks * kh * P * lanes * 2, 0);
    for (std::size_t cb = 0; cb < blocks; ++cb) {
      for (std::size_t ky = 0; ky < kh; ++ky) {
        for (std::size_t p = 0; p < P; ++p) {
          for (std::size_t l = 0; l < lanes; ++l) {
            const std::size_t c = cb * lanes + l;
            if (c >= oc) continue;
            for (std::size_t e = 0; e < 2; ++e) {
              const std::size_t kx = 2 * p + e;
              if (kx >= kw) continue;
              d->weights[(((cb * kh + ky) * P + p) * lanes + l) * 2 + e] =
                  static_cast<std::int16_t>(d->filter[(ky * kw + kx) * oc + c] - d->w_zero_point[c]);
            }
          }
        }
      }
    }
    d->init.assign(ocp, 0);
    if (d->plan == DwPlan::kFoldedInt32) std::copy(d->bias.begin(), d->bias.end(), d->init.begin());
  }
  if (d->quad) {
    // [block][ky][variant][lane][4]: variant a = (w0, w1, w2, 0), b = (0, w0, w1, w2).
    const std::size_t blocks = ocp / lanes;
    d->quad_weights.assign(blocks * 3 * 2 * lanes * 4, 0);
    d->wsum.assign(ocp, 0);
    for (std::size_t c = 0; c < oc; ++c) {
      const std::size_t cb = c / lanes, l = c % lanes;
      for (std::size_t ky = 0; ky < 3; ++ky) {
        for (std::size_t kx = 0; kx < 3; ++kx) {
          const std::int32_t v = d->filter[(ky * 3 + kx) * oc + c] - d->w_zero_point[c];
          const std::size_t base = ((cb * 3 + ky) * 2) * lanes * 4 + l * 4;
          d->quad_weights[base + kx] = static_cast<std::int8_t>(v);
          d->quad_weights[base + lanes * 4 + kx + 1] = static_cast<std::int8_t>(v);
          d->wsum[c] += v;
        }
      }
    }
    d->epilogue.assign(blocks * d->kernels.epilogue_words, 0);
    const DwEpilogueVariant variant =
        d->kernels.pack_epilogue(core, d->params.data(), d->per_channel, oc, d->epilogue.data());
    d->quad_kernels = d->kernels.quad_3x3(core, variant, win.stride_w);
    d->kernel_name = prefix + "3x3-quad";
  }
  data_ = std::move(d);
}

PackedDepthwiseConv2D::~PackedDepthwiseConv2D() = default;
PackedDepthwiseConv2D::PackedDepthwiseConv2D(PackedDepthwiseConv2D&&) noexcept = default;
PackedDepthwiseConv2D& PackedDepthwiseConv2D::operator=(PackedDepthwiseConv2D&&) noexcept = default;

const DepthwiseConv2DGeometry& PackedDepthwiseConv2D::geometry() const { return data_->geometry; }
ResolvedWindow PackedDepthwiseConv2D::window() const { return data_->window; }
RoundingCore PackedDepthwiseConv2D::core() const { return data_->core; }
AccumulatorSpec PackedDepthwiseConv2D::accumulator() const { return data_->accumulator; }
Isa PackedDepthwiseConv2D::isa() const { return data_->isa; }
std::string PackedDepthwiseConv2D::kernel_name() const { return data_->kernel_name; }
std::size_t PackedDepthwiseConv2D::packed_bytes() const {
  const internal::PackedDepthwiseConv2DData& d = *data_;
  return d.weights.size() * sizeof(std::int16_t) + d.filter.size() +
         d.out_channels * (3 * sizeof(std::int32_t) + sizeof(std::int64_t) + 1) +
         d.init.size() * sizeof(std::int32_t) + d.params.size() * sizeof(RequantParams) + d.quad_weights.size() +
         d.wsum.size() * sizeof(std::int32_t) + d.epilogue.size() * sizeof(std::int64_t);
}

}  // namespace qparity
