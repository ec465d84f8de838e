// PackedConv2D: validation of the geometry and the filter, the choice between a plain GEMM over
// the input (1x1, stride 1, unpadded) and an implicit GEMM (the indirection table of input pixels
// per output pixel and tap), and one PackedGemm per group over the group's OHWI filter rows.
#include <algorithm>
#include <string>

#include "kernels/support/packed_access.h"
#include "kernels/conv/packed_conv2d_data.h"
#include "kernels/dispatch/unsupported_isa.h"
#include "kernels/gemm/gemm_driver.h"
#include "qparity/conv2d.h"
#include "qparity/error.h"

namespace qparity {
namespace internal {
namespace {

/// a * b, throwing InvalidArgument naming `what` when the product exceeds `limit` (so that every
/// later index computation is far from overflow).
std::size_t checked_product(const char* what, std::size_t a, std::size_t b, std::size_t limit) {
  if (a != 0 && b > limit / a) {
    throw InvalidArgument(std::string("qparity: ") + what + " = " + std::to_string(a) + " * " +
                          std::to_string(b) + " is out of range; allowed: <= " +
                          std::to_string(limit));
  }
  return a * b;
}

// 2^47 elements: far beyond any real tensor, and far from size_t / ptrdiff_t overflow in
// offsets such as image * image_elems + tap offset.
constexpr std::size_t kMaxElements = std::size_t{1} << 47;

}  // namespace
}  // namespace internal

PackedConv2D::PackedConv2D(const Conv2DGeometry& geometry, const ConvWeights& weights,
                           RoundingCore core, AccumulatorSpec accumulator)
    : PackedConv2D(active_isa(), geometry, weights, core, accumulator) {}

PackedConv2D::PackedConv2D(Isa isa, const Conv2DGeometry& geometry, const ConvWeights& weights,
                           RoundingCore core, AccumulatorSpec accumulator) {
  using namespace internal;
  internal::require_supported(isa);
  validate(accumulator);
  const ResolvedWindow r = validate(geometry);
  validate_conv_weights(weights, geometry.out_channels, core);

  auto d = std::make_unique<PackedConv2DData>();
  const Conv2DGeometry& g = geometry;
  const Window2D& w = g.window;
  d->geometry = g;
  d->window = r;
  d->core = core;
  d->accumulator = accumulator;
  d->isa = isa;
  d->rows_per_image = checked_product("out_h * out_w", r.out_h, r.out_w, kMaxElements);
  d->m = checked_product("batch * out_h * out_w", g.batch, d->rows_per_image, kMaxElements);
  d->image_elems = checked_product("in_h * in_w * in_channels",
                                   checked_product("in_h * in_w", g.in_h, g.in_w, kMaxElements),
                                   g.in_channels, kMaxElements);
  checked_product("batch * in_h * in_w * in_channels", g.batch, d->image_elems, kMaxElements);
  checked_product("batch * out_h * out_w * out_channels", d->m, g.out_channels, kMaxElements);
  d->taps = w.kernel_h * w.kernel_w;
  d->icg = g.in_channels / g.groups;
  d->ocg = g.out_channels / g.groups;
  const bool unit_window = w.kernel_h == 1 && w.kernel_w == 1 && w.stride_h == 1 && w.stride_w == 1 &&
                           r.pad_top == 0 && r.pad_bottom == 0 && r.pad_left == 0 && r.pad_right == 0;
  d->plan = unit_window ? Conv2DPlan::kDirectGemm : Conv2DPlan::kImplicitGemm;
  if (d->plan == Conv2DPlan::kImplicitGemm) {
    ImplicitWindow& iw = d->implicit_window;
    iw.in_h = g.in_h;
    iw.in_w = g.in_w;
    iw.pixel_stride = g.in_channels;
    iw.out_w = r.out_w;
    iw.kernel_h = w.kernel_h;
    iw.kernel_w = w.kernel_w;
    iw.stride_h = w.stride_h;
    iw.stride_w = w.stride_w;
    iw.dilation_h = w.dilation_h;
    iw.dilation_w = w.dilation_w;
    iw.pad_top = r.pad_top;
    iw.pad_left = r.pad_left;
  }

  // Group gg's weights: filter rows [gg * ocg, (gg + 1) * ocg), each K = taps * icg long (OHWI:
  // the row is (ky, kx, ic), the im2col order), and the matching slices of the per-channel arrays.
  const std::size_t k = d->taps * d->icg;
  d->gemms.reserve(g.groups);
  for (std::size_t gg = 0; gg < g.groups; ++gg) {
    const std::size_t oc0 = gg * d->ocg;
    GemmWeights gw;
    gw.n = d->ocg;
    gw.k = k;
    gw.b = weights.filter + oc0 * k;
    gw.layout = WeightLayout::kNxK;
    gw.zero_points = weights.filter_zero_points == nullptr
                         ? nullptr
                         : weights.filter_zero_points + (weights.filter_zero_point_per_channel ? oc0 : 0);
    gw.zero_point_per_channel = weights.filter_zero_point_per_channel;
    gw.bias = weights.bias == nullptr ? nullptr : weights.bias + oc0;
    gw.params = weights.params + (weights.per_channel ? oc0 : 0);
    gw.per_channel = weights.per_channel;
    d->gemms.emplace_back(isa, gw, core, accumulator);
  }
  d->tiles_per_group = gemm_tile_count(internal::packed_data(d->gemms.front()), d->m);
  data_ = std::move(d);
}

PackedConv2D::~PackedConv2D() = default;
PackedConv2D::PackedConv2D(PackedConv2D&&) noexcept = default;
PackedConv2D& PackedConv2D::operator=(PackedConv2D&&) noexcept = default;

const Conv2DGeometry& PackedConv2D::geometry() const { return data_->geometry; }
ResolvedWindow PackedConv2D::window() const { return data_->window; }
RoundingCore PackedConv2D::core() const { return data_->core; }
AccumulatorSpec PackedConv2D::accumulator() const { return data_->accumulator; }
Isa PackedConv2D::isa() const { return data_->isa; }

std::string PackedConv2D::kernel_name() const {
  const char* plan = data_->plan == internal::Conv2DPlan::kDirectGemm ? "1x1-gemm " : "implicit-gemm ";
  return plan + data_->gemms.front().kernel_name(data_->m);
}

std::size_t PackedConv2D::packed_bytes() const {
  std::size_t bytes = 0;
  for (const PackedGemm& gm : data_->gemms) bytes += gm.packed_bytes();
  return bytes;
}

}  // namespace qparity
