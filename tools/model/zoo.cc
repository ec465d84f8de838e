#include "model/zoo.h"

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "model/graph_builder.h"
#include "model/ops/conv_common.h"
#include "model/ops/data_ops.h"
#include "model/ops/elementwise.h"
#include "model/ops/mean.h"
#include "model/ops/pool2d.h"

namespace qparity::model {
namespace {

// Standard deviation (in LSB) the builder aims at for a linear int8 tensor, and the spread of a
// RELU6 tensor scaled to [0, 6] over [-128, 127].
constexpr double kTargetSigma = 32.0;

struct Act {
  int tensor = -1;
  float scale = 1.0f;
  std::int64_t zp = 0;
  double sigma = kTargetSigma;  ///< spread of (x - zp) in LSB
  std::vector<std::size_t> shape;
};

class Zoo {
 public:
  explicit Zoo(std::uint64_t seed, const std::string& name) : rng_(seed), b_(name) {}

  Act input(std::size_t size) {
    Act a;
    a.scale = 1.0f / 64.0f;
    a.zp = 0;
    a.sigma = 60.0;  // uniform int8 data
    a.shape = {1, size, size, 3};
    a.tensor = b_.tensor("input", DType::kInt8, a.shape, GraphBuilder::per_tensor(a.scale, a.zp));
    b_.input(a.tensor);
    return a;
  }

  /// A conv-like layer with per-channel int8 weights and an int32 bias; `relu6` sets the output
  /// quantization TFLite's converter gives a RELU6 output.
  Act conv(const Act& x, OpKind kind, std::size_t oc, std::size_t k, std::size_t stride, Activation act,
           const std::string& name) {
    const std::size_t ic = x.shape.back();
    const bool dw = kind == OpKind::kDepthwiseConv2D;
    const bool fc = kind == OpKind::kFullyConnected;
    const std::size_t taps = fc ? ic : k * k * (dw ? 1 : ic);
    // Weights: int8 around zero with a spread of ~40, one scale per output channel.
    std::normal_distribution<double> wd(0.0, 40.0);
    std::uniform_real_distribution<double> su(0.7, 1.4);
    std::vector<std::size_t> fshape = fc ? std::vector<std::size_t>{oc, ic}
                                         : dw ? std::vector<std::size_t>{1, k, k, oc} : std::vector<std::size_t>{oc, k, k, ic};
    Tensor w = cli::make_tensor(DType::kInt8, fshape);
    for (std::size_t i = 0; i < w.elements(); ++i) {
      const double v = std::round(wd(rng_));
      w.set_integer(i, static_cast<std::int64_t>(v < -127 ? -127 : (v > 127 ? 127 : v)));
    }
    std::vector<float> ws(oc);
    for (float& s : ws) s = static_cast<float>(0.01 * su(rng_));
    // Output spread before the activation: sqrt(taps) * sigma_x * 40 LSB of s_in * s_w.
    const double acc_sigma = std::sqrt(static_cast<double>(taps)) * x.sigma * 40.0;
    const double real_sigma = acc_sigma * x.scale * ws[0];
    Act y;
    if (act == Activation::kRelu6) {
      y.scale = 6.0f / 255.0f;
      y.zp = -128;
      y.sigma = std::min(60.0, real_sigma / y.scale);
    } else if (act == Activation::kRelu) {
      y.scale = static_cast<float>(2.5 * real_sigma / 255.0);
      y.zp = -128;
      y.sigma = 40.0;
    } else {
      y.scale = static_cast<float>(real_sigma / kTargetSigma);
      y.zp = std::uniform_int_distribution<int>(-8, 8)(rng_);
      y.sigma = kTargetSigma;
    }
    Tensor bias = cli::make_tensor(DType::kInt32, {oc});
    std::normal_distribution<double> bd(0.0, acc_sigma * 0.1);
    for (std::size_t i = 0; i < oc; ++i) bias.set_integer(i, static_cast<std::int64_t>(std::round(bd(rng_))));
    const int wt = b_.constant(name + "/weights", w, GraphBuilder::per_axis(ws, dw ? 3 : 0));
    Quantization bq;
    for (float s : ws) bq.scales.push_back(x.scale * s);
    bq.zero_points.assign(oc, 0);
    const int bt = b_.constant(name + "/bias", bias, bq);
    y.tensor = b_.tensor(name, DType::kInt8, {}, GraphBuilder::per_tensor(y.scale, y.zp));
    if (fc) {
      auto o = std::make_shared<FullyConnectedOptions>();
      o->activation = act;
      b_.node(kind, {x.tensor, wt, bt}, {y.tensor}, o, name);
      y.shape = {x.shape[0], oc};
      return y;
    }
    Window2D win;
    win.stride_h = win.stride_w = stride;
    win.padding = Padding::kSame;
    if (dw) {
      auto o = std::make_shared<DepthwiseConv2DOptions>();
      o->window = win;
      o->depth_multiplier = 1;
      o->activation = act;
      b_.node(kind, {x.tensor, wt, bt}, {y.tensor}, o, name);
    } else {
      auto o = std::make_shared<Conv2DOptions>();
      o->window = win;
      o->activation = act;
      b_.node(kind, {x.tensor, wt, bt}, {y.tensor}, o, name);
    }
    const std::size_t h = (x.shape[1] + stride - 1) / stride, wdt = (x.shape[2] + stride - 1) / stride;
    y.shape = {x.shape[0], h, wdt, oc};
    return y;
  }

  Act add(const Act& a, const Act& c, Activation act, const std::string& name) {
    Act y;
    const double sigma_real = std::sqrt(std::pow(a.sigma * a.scale, 2) + std::pow(c.sigma * c.scale, 2));
    y.scale = static_cast<float>(sigma_real / kTargetSigma);
    y.zp = act == Activation::kNone ? 0 : -128;
    if (act != Activation::kNone) y.scale = static_cast<float>(2.5 * sigma_real / 255.0);
    y.sigma = act == Activation::kNone ? kTargetSigma : 40.0;
    y.shape = a.shape;
    y.tensor = b_.tensor(name, DType::kInt8, {}, GraphBuilder::per_tensor(y.scale, y.zp));
    auto o = std::make_shared<ElementwiseOptions>();
    o->activation = act;
    b_.node(OpKind::kAdd, {a.tensor, c.tensor}, {y.tensor}, o, name);
    return y;
  }

  Act max_pool(const Act& x, std::size_t k, std::size_t stride, const std::string& name) {
    Act y = x;
    y.tensor = b_.tensor(name, DType::kInt8, {}, GraphBuilder::per_tensor(x.scale, x.zp));
    auto o = std::make_shared<Pool2DOptions>();
    o->window.filter_h = o->window.filter_w = k;
    o->window.stride_h = o->window.stride_w = stride;
    o->window.padding = Padding::kSame;
    b_.node(OpKind::kMaxPool2D, {x.tensor}, {y.tensor}, o, name);
    y.shape = {x.shape[0], (x.shape[1] + stride - 1) / stride, (x.shape[2] + stride - 1) / stride, x.shape[3]};
    return y;
  }

  /// MEAN over H and W (keep_dims false): [N, C].
  Act global_mean(const Act& x, const std::string& name) {
    Tensor axes = cli::make_tensor(DType::kInt32, {2});
    axes.set_integer(0, 1);
    axes.set_integer(1, 2);
    const int at = b_.constant(name + "/axes", axes);
    Act y;
    y.scale = x.scale;
    y.zp = x.zp;
    y.sigma = x.sigma / 2;
    y.shape = {x.shape[0], x.shape[3]};
    y.tensor = b_.tensor(name, DType::kInt8, {}, GraphBuilder::per_tensor(y.scale, y.zp));
    auto o = std::make_shared<ReducerOptions>();
    o->keep_dims = false;
    b_.node(OpKind::kMean, {x.tensor, at}, {y.tensor}, o, name);
    return y;
  }

  Act softmax(const Act& x, const std::string& name) {
    Act y;
    y.scale = 1.0f / 256.0f;
    y.zp = -128;
    y.shape = x.shape;
    y.tensor = b_.tensor(name, DType::kInt8, {}, GraphBuilder::per_tensor(y.scale, y.zp));
    auto o = std::make_shared<SoftmaxOptions>();
    o->beta = 1.0f;
    b_.node(OpKind::kSoftmax, {x.tensor}, {y.tensor}, o, name);
    return y;
  }

  Graph finish(const Act& out) {
    b_.output(out.tensor);
    return b_.finish();
  }

 private:
  std::mt19937_64 rng_;
  GraphBuilder b_;
};

}  // namespace

Graph mobilenet_v2(const ZooOptions& opt) {
  Zoo z(opt.seed, "mobilenet_v2");
  Act x = z.input(opt.input_size);
  x = z.conv(x, OpKind::kConv2D, 32, 3, 2, Activation::kRelu6, "stem");
  // (expansion t, channels c, repeats n, first stride s), the paper's table 2.
  const struct { std::size_t t, c, n, s; } stages[] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                                                       {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int block = 0;
  for (const auto& st : stages) {
    for (std::size_t i = 0; i < st.n; ++i, ++block) {
      const std::size_t stride = i == 0 ? st.s : 1;
      const std::string p = "block" + std::to_string(block);
      Act h = x;
      if (st.t != 1) h = z.conv(h, OpKind::kConv2D, x.shape[3] * st.t, 1, 1, Activation::kRelu6, p + "/expand");
      h = z.conv(h, OpKind::kDepthwiseConv2D, h.shape[3], 3, stride, Activation::kRelu6, p + "/depthwise");
      h = z.conv(h, OpKind::kConv2D, st.c, 1, 1, Activation::kNone, p + "/project");
      if (stride == 1 && x.shape[3] == st.c) h = z.add(x, h, Activation::kNone, p + "/add");
      x = h;
    }
  }
  x = z.conv(x, OpKind::kConv2D, 1280, 1, 1, Activation::kRelu6, "head");
  x = z.global_mean(x, "pool");
  x = z.conv(x, OpKind::kFullyConnected, opt.classes, 1, 1, Activation::kNone, "logits");
  if (opt.softmax) x = z.softmax(x, "probabilities");
  return z.finish(x);
}

Graph resnet_blocks(const ZooOptions& opt, std::size_t blocks, std::size_t width) {
  Zoo z(opt.seed, "resnet_blocks");
  Act x = z.input(opt.input_size);
  x = z.conv(x, OpKind::kConv2D, width, 7, 2, Activation::kRelu, "stem");
  x = z.max_pool(x, 3, 2, "stem/pool");
  for (std::size_t i = 0; i < blocks; ++i) {
    const std::string p = "block" + std::to_string(i);
    Act h = z.conv(x, OpKind::kConv2D, width, 3, 1, Activation::kRelu, p + "/conv1");
    h = z.conv(h, OpKind::kConv2D, width, 3, 1, Activation::kNone, p + "/conv2");
    x = z.add(x, h, Activation::kRelu, p + "/add");
  }
  x = z.global_mean(x, "pool");
  x = z.conv(x, OpKind::kFullyConnected, opt.classes, 1, 1, Activation::kNone, "logits");
  return z.finish(x);
}

Graph resnet18(const ZooOptions& opt) {
  Zoo z(opt.seed, "resnet18");
  Act x = z.input(opt.input_size);
  x = z.conv(x, OpKind::kConv2D, 64, 7, 2, Activation::kRelu, "stem");
  x = z.max_pool(x, 3, 2, "stem/pool");
  const std::size_t widths[] = {64, 128, 256, 512};
  for (std::size_t s = 0; s < 4; ++s) {
    for (std::size_t i = 0; i < 2; ++i) {
      const std::string p = "stage" + std::to_string(s + 1) + "/block" + std::to_string(i);
      const std::size_t stride = s > 0 && i == 0 ? 2 : 1;
      Act h = z.conv(x, OpKind::kConv2D, widths[s], 3, stride, Activation::kRelu, p + "/conv1");
      h = z.conv(h, OpKind::kConv2D, widths[s], 3, 1, Activation::kNone, p + "/conv2");
      const Act shortcut =
          stride == 1 ? x : z.conv(x, OpKind::kConv2D, widths[s], 1, stride, Activation::kNone, p + "/downsample");
      x = z.add(shortcut, h, Activation::kRelu, p + "/add");
    }
  }
  x = z.global_mean(x, "pool");
  x = z.conv(x, OpKind::kFullyConnected, opt.classes, 1, 1, Activation::kNone, "logits");
  return z.finish(x);
}

}  // namespace qparity::model
