// Accumulate-only FULLY_CONNECTED, CONV_2D and DEPTHWISE_CONV_2D (int32 output): see
// int32_accumulate.h.
#include "model/ops/int32_accumulate.h"

#include <fmt/format.h>

#include <cstring>
#include <type_traits>

#include "preset_params.h"
#include "qparity/accumulator.h"
#include "tool_error.h"

namespace qparity::model {

bool accumulates_only(const Graph& g, const Node& n) {
  return !n.outputs.empty() && n.outputs[0] >= 0 &&
         g.tensors[static_cast<std::size_t>(n.outputs[0])].dtype == DType::kInt32;
}

void check_accumulate_tensors(const Graph& g, const Node& n, std::size_t filter_axis, std::size_t out_channels,
                              bool has_activation) {
  const TensorDef& in = input_def(g, n, 0);
  const TensorDef& filter = input_def(g, n, 1);
  require_dtype(g, n, in, "input (of an int32 output)", {DType::kInt8, DType::kUint8});
  require_per_tensor(g, n, in, "input");
  require_dtype(g, n, filter, "filter (of an int32 output)", {DType::kInt8, DType::kUint8});
  if (!filter.quant.present()) node_error(g, n, fmt::format("filter '{}' has no zero point", filter.name));
  const std::size_t nz = filter.quant.zero_points.size();
  if (nz != 1 && nz != out_channels) {
    node_error(g, n,
               fmt::format("filter '{}' has {} zero points; allowed: 1 or one per output channel ({})", filter.name, nz,
                           out_channels));
  }
  if (nz > 1 && filter.quant.axis != filter_axis) {
    node_error(g, n,
               fmt::format("filter '{}' is quantized along dimension {}; allowed: {} (the output channels)",
                           filter.name, filter.quant.axis, filter_axis));
  }
  for (std::size_t i = 0; i < nz; ++i) {
    const std::int64_t z = filter.quant.zero_points[i];
    if (z < cli::dtype_min(filter.dtype) || z > cli::dtype_max(filter.dtype)) {
      node_error(g, n,
                 fmt::format("filter '{}' zero_point[{}] = {}; allowed: {} to {}", filter.name, i, z,
                             cli::dtype_min(filter.dtype), cli::dtype_max(filter.dtype)));
    }
  }
  if (has_input(n, 2)) {
    node_error(g, n,
               fmt::format("has a bias '{}' and an int32 output; allowed: no bias (the output holds the raw "
                           "accumulators)",
                           input_def(g, n, 2).name));
  }
  if (has_activation) node_error(g, n, "has a fused activation and an int32 output; allowed: none");
}

namespace {

// The input and filter element types of an accumulate-only node: f(A{}, W{}).
template <class F>
void with_accumulate_types(DType in, DType filter, F&& f) {
  const bool a8 = in == DType::kInt8, w8 = filter == DType::kInt8;
  if (a8 && w8) return f(std::int8_t{}, std::int8_t{});
  if (a8) return f(std::int8_t{}, std::uint8_t{});
  if (w8) return f(std::uint8_t{}, std::int8_t{});
  return f(std::uint8_t{}, std::uint8_t{});
}

std::vector<std::int32_t> filter_zero_points_of(const TensorDef& filter) {
  std::vector<std::int32_t> z;
  for (std::int64_t v : filter.quant.zero_points) z.push_back(static_cast<std::int32_t>(v));
  return z;
}

// What both accumulate-only nodes read and check: the operand tensors, their types and zero points,
// and the system's accumulator model (validated once, naming the node).
class AccumulatePrepared : public PreparedNode {
 protected:
  AccumulatePrepared(const Graph& g, const Node& n, const System& sys)
      : system_(sys), in_(n.inputs[0]), filter_(n.inputs[1]), out_(n.outputs[0]) {
    const TensorDef& in = input_def(g, n, 0);
    const TensorDef& filter = input_def(g, n, 1);
    in_type_ = in.dtype;
    filter_type_ = filter.dtype;
    input_zero_point_ = static_cast<std::int32_t>(in.quant.zero_point());
    filter_zero_points_ = filter_zero_points_of(filter);
    try {
      validate(sys.preset.accumulator);
    } catch (const InvalidArgument& e) {
      node_error(g, n, cli::without_library_prefix(e.what()));
    }
  }

  /// describe()'s lines: the arithmetic (with `order`, how the node gathers its operands) and the
  /// zero points.
  std::vector<std::string> describe_with(const std::string& order) const {
    return {fmt::format("accumulate only (int32 output, no bias or requantization), accumulator {}{}",
                        to_string(system_.preset.accumulator), order),
            fmt::format("input zero point {}, filter zero point{} {}", input_zero_point_,
                        filter_zero_points_.size() == 1 ? "" : "s (first)", filter_zero_points_[0])};
  }

  System system_;
  int in_, filter_, out_;
  DType in_type_{}, filter_type_{};
  std::int32_t input_zero_point_ = 0;
  std::vector<std::int32_t> filter_zero_points_;
};

class FcAccumulatePrepared : public AccumulatePrepared {
 public:
  FcAccumulatePrepared(const Graph& g, const Node& n, const System& sys, std::size_t batch, std::size_t depth,
                       std::size_t out)
      : AccumulatePrepared(g, n, sys), batch_(batch), depth_(depth), channels_(out) {}

  void run(std::vector<Tensor>& values) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    const Tensor& filter = values[static_cast<std::size_t>(filter_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    with_accumulate_types(in_type_, filter_type_, [&](auto a, auto w) {
      using A = decltype(a);
      using W = decltype(w);
      const A* x = reinterpret_cast<const A*>(in.bytes.data());
      const W* f = reinterpret_cast<const W*>(filter.bytes.data());
      for (std::size_t r = 0; r < batch_; ++r) {
        for (std::size_t c = 0; c < channels_; ++c) {
          const std::int32_t wz = filter_zero_points_[filter_zero_points_.size() == 1 ? 0 : c];
          const std::int32_t acc =
              static_cast<std::int32_t>(accumulate(system_.preset.accumulator, std::is_signed<A>::value, x + r * depth_,
                                                   f + c * depth_, depth_, input_zero_point_, wz, 0));
          std::memcpy(out.bytes.data() + (r * channels_ + c) * sizeof(std::int32_t), &acc, sizeof acc);
        }
      }
    });
  }

  std::vector<std::string> describe() const override { return describe_with(""); }

 private:
  std::size_t batch_, depth_, channels_;
};

class ConvAccumulatePrepared : public AccumulatePrepared {
 public:
  ConvAccumulatePrepared(const Graph& g, const Node& n, const System& sys, const Conv2DGeometry& geometry,
                         const ResolvedWindow& window, std::size_t depth_multiplier)
      : AccumulatePrepared(g, n, sys), geo_(geometry), win_(window), multiplier_(depth_multiplier) {}

  void run(std::vector<Tensor>& values) const override {
    const Tensor& in = values[static_cast<std::size_t>(in_)];
    const Tensor& filter = values[static_cast<std::size_t>(filter_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    const Window2D& w = geo_.window;
    const std::size_t icg = geo_.in_channels / geo_.groups, ocg = geo_.out_channels / geo_.groups;
    const std::size_t k = w.kernel_h * w.kernel_w * icg;
    with_accumulate_types(in_type_, filter_type_, [&](auto a, auto wt) {
      using A = decltype(a);
      using W = decltype(wt);
      const A* x = reinterpret_cast<const A*>(in.bytes.data());
      const W* f = reinterpret_cast<const W*>(filter.bytes.data());
      std::vector<A> patch(k);
      std::vector<W> row(k);
      std::size_t o = 0;
      for (std::size_t b = 0; b < geo_.batch; ++b) {
        for (std::size_t oy = 0; oy < win_.out_h; ++oy) {
          for (std::size_t ox = 0; ox < win_.out_w; ++ox) {
            for (std::size_t oc = 0; oc < geo_.out_channels; ++oc, ++o) {
              const std::size_t first_ic = multiplier_ > 0 ? oc / multiplier_ : oc / ocg * icg;
              std::size_t t = 0;
              for (std::size_t ky = 0; ky < w.kernel_h; ++ky) {
                // Signed: taps in the top / left padding have a negative coordinate.
                const std::int64_t iy = static_cast<std::int64_t>(oy * w.stride_h + ky * w.dilation_h) -
                                        static_cast<std::int64_t>(win_.pad_top);
                for (std::size_t kx = 0; kx < w.kernel_w; ++kx) {
                  const std::int64_t ix = static_cast<std::int64_t>(ox * w.stride_w + kx * w.dilation_w) -
                                          static_cast<std::int64_t>(win_.pad_left);
                  const bool inside = iy >= 0 && ix >= 0 && static_cast<std::size_t>(iy) < geo_.in_h &&
                                      static_cast<std::size_t>(ix) < geo_.in_w;
                  for (std::size_t i = 0; i < icg; ++i, ++t) {
                    patch[t] = inside ? x[((b * geo_.in_h + static_cast<std::size_t>(iy)) * geo_.in_w +
                                           static_cast<std::size_t>(ix)) *
                                              geo_.in_channels +
                                          first_ic + i]
                                      : static_cast<A>(input_zero_point_);
                    row[t] = multiplier_ > 0 ? f[(ky * w.kernel_w + kx) * geo_.out_channels + oc] : f[oc * k + t];
                  }
                }
              }
              const std::int32_t wz = filter_zero_points_[filter_zero_points_.size() == 1 ? 0 : oc];
              const std::int32_t acc =
                  static_cast<std::int32_t>(accumulate(system_.preset.accumulator, std::is_signed<A>::value,
                                                       patch.data(), row.data(), k, input_zero_point_, wz, 0));
              std::memcpy(out.bytes.data() + o * sizeof(std::int32_t), &acc, sizeof acc);
            }
          }
        }
      }
    });
  }

  std::vector<std::string> describe() const override {
    return describe_with(", window in ky, kx, ic order, padding reads the input zero point");
  }

 private:
  Conv2DGeometry geo_;
  ResolvedWindow win_;
  std::size_t multiplier_;
};

}  // namespace

std::unique_ptr<PreparedNode> prepare_fc_accumulate(const Graph& g, const Node& n, const System& sys, std::size_t batch,
                                                    std::size_t depth, std::size_t out) {
  return std::make_unique<FcAccumulatePrepared>(g, n, sys, batch, depth, out);
}

std::unique_ptr<PreparedNode> prepare_conv_accumulate(const Graph& g, const Node& n, const System& sys,
                                                      const Conv2DGeometry& geometry, const ResolvedWindow& window,
                                                      std::size_t depth_multiplier) {
  return std::make_unique<ConvAccumulatePrepared>(g, n, sys, geometry, window, depth_multiplier);
}

}  // namespace qparity::model
