#include "onnx_test_models.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <random>

#include "onnx_builder.h"
#include "onnx_test_support.h"

namespace qparity_test {

using qparity::cli::DType;
using qparity::cli::Tensor;

BuiltOnnx qlinear_conv_model(const QConvSpec& s) {
  std::mt19937 rng(static_cast<std::uint32_t>(s.seed));
  OnnxBuilder b;
  b.input("x", s.x, {s.n, s.c, s.h, s.wd});
  b.output("y", s.x);
  const std::size_t cpg = s.c / s.group;
  const bool u8w = s.w == DType::kUint8;
  const std::int64_t lo = u8w && s.w_lo < 0 ? 0 : s.w_lo, hi = u8w && s.w_hi == 127 ? 255 : s.w_hi;
  b.initializer("w", random_tensor(rng, s.w, {s.m, cpg, s.kh, s.kw}, lo, hi));
  b.scales("x_scale", {s.x_scale});
  b.zero_points("x_zero_point", s.x, {s.x_zp});
  const std::size_t nw = s.per_channel ? s.m : 1;
  b.scales("w_scale", s.per_channel ? spread_scales(rng, s.w_scale, s.m) : std::vector<float>{s.w_scale});
  b.zero_points("w_zero_point", s.w, std::vector<std::int64_t>(nw, s.w_zp));
  b.scales("y_scale", {s.y_scale});
  b.zero_points("y_zero_point", s.x, {s.y_zp});
  std::vector<std::string> inputs{"x",       "x_scale",      "x_zero_point", "w",
                                  "w_scale", "w_zero_point", "y_scale",      "y_zero_point"};
  if (s.bias) {
    b.initializer("B", random_tensor(rng, DType::kInt32, {s.m}, -20000, 20000));
    inputs.push_back("B");
  }
  onnx::NodeProto& n = b.node("QLinearConv", inputs, {"y"});
  OnnxBuilder::ints(n, "kernel_shape", {static_cast<std::int64_t>(s.kh), static_cast<std::int64_t>(s.kw)});
  OnnxBuilder::ints(n, "strides", {static_cast<std::int64_t>(s.stride), static_cast<std::int64_t>(s.stride)});
  OnnxBuilder::ints(n, "dilations", {static_cast<std::int64_t>(s.dilation), static_cast<std::int64_t>(s.dilation)});
  if (s.group != 1) OnnxBuilder::int_attr(n, "group", static_cast<std::int64_t>(s.group));
  if (s.auto_pad.empty()) {
    OnnxBuilder::ints(n, "pads", s.pads);
  } else {
    OnnxBuilder::string_attr(n, "auto_pad", s.auto_pad);
  }
  BuiltOnnx out;
  out.label =
      fmt::format("QLinearConv {}x{} c{} m{} k{}x{} group {} stride {} dil {} {}{} seed {}",
                  qparity::cli::to_string(s.x), qparity::cli::to_string(s.w), s.c, s.m, s.kh, s.kw, s.group, s.stride,
                  s.dilation, s.per_channel ? "per-channel" : "per-tensor",
                  s.auto_pad.empty() ? fmt::format(" pads [{}]", fmt::join(s.pads, ",")) : " " + s.auto_pad, s.seed);
  out.bytes = b.bytes();
  const bool full = s.x_lo == -1 && s.x_hi == -1;
  out.inputs.push_back(random_tensor(rng, s.x, {s.n, s.c, s.h, s.wd}, full ? qparity::cli::dtype_min(s.x) : s.x_lo,
                                     full ? qparity::cli::dtype_max(s.x) : s.x_hi));
  return out;
}

BuiltOnnx qlinear_matmul_model(const QMatMulSpec& s) {
  std::mt19937 rng(static_cast<std::uint32_t>(s.seed));
  OnnxBuilder b;
  const std::size_t k = s.a_shape.back();
  b.input("a", s.a, s.a_shape);
  b.output("y", s.a);
  const bool u8b = s.b == DType::kUint8;
  const std::int64_t lo = u8b && s.b_lo < 0 ? 0 : s.b_lo, hi = u8b && s.b_hi == 127 ? 255 : s.b_hi;
  b.initializer("b", random_tensor(rng, s.b, {k, s.n}, lo, hi));
  b.scales("a_scale", {s.a_scale});
  b.zero_points("a_zero_point", s.a, {s.a_zp});
  const std::size_t nb = s.per_column ? s.n : 1;
  b.scales("b_scale", s.per_column ? spread_scales(rng, s.b_scale, s.n) : std::vector<float>{s.b_scale});
  b.zero_points("b_zero_point", s.b, std::vector<std::int64_t>(nb, s.b_zp));
  b.scales("y_scale", {s.y_scale});
  b.zero_points("y_zero_point", s.a, {s.y_zp});
  b.node("QLinearMatMul", {"a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"},
         {"y"});
  BuiltOnnx out;
  out.label = fmt::format("QLinearMatMul {}x{} a {} n {} {} seed {}", qparity::cli::to_string(s.a),
                          qparity::cli::to_string(s.b), qparity::cli::shape_text(s.a_shape), s.n,
                          s.per_column ? "per-column" : "per-tensor", s.seed);
  out.bytes = b.bytes();
  out.inputs.push_back(random_tensor(rng, s.a, s.a_shape, qparity::cli::dtype_min(s.a), qparity::cli::dtype_max(s.a)));
  return out;
}

BuiltOnnx qlinear_batch_matmul_model(const QBatchMatMulSpec& s) {
  std::mt19937 rng(static_cast<std::uint32_t>(s.seed));
  OnnxBuilder b;
  b.input("a", s.a, s.a_shape);
  const Tensor bt =
      random_tensor(rng, s.b, s.b_shape, qparity::cli::dtype_min(s.b), qparity::cli::dtype_max(s.b));
  if (s.b_input) {
    b.input("b", s.b, s.b_shape);
  } else {
    b.initializer("b", bt);
  }
  b.output("y", s.a);
  b.scales("a_scale", {s.a_scale});
  b.zero_points("a_zero_point", s.a, {s.a_zp});
  b.scales("b_scale", {s.b_scale});
  b.zero_points("b_zero_point", s.b, {s.b_zp});
  b.scales("y_scale", {s.y_scale});
  b.zero_points("y_zero_point", s.a, {s.y_zp});
  b.node("QLinearMatMul", {"a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"},
         {"y"});
  BuiltOnnx out;
  out.label = fmt::format("QLinearMatMul {}x{} a {} b {} ({}) seed {}", qparity::cli::to_string(s.a),
                          qparity::cli::to_string(s.b), qparity::cli::shape_text(s.a_shape),
                          qparity::cli::shape_text(s.b_shape), s.b_input ? "input" : "constant", s.seed);
  out.bytes = b.bytes();
  out.inputs.push_back(random_tensor(rng, s.a, s.a_shape, qparity::cli::dtype_min(s.a), qparity::cli::dtype_max(s.a)));
  if (s.b_input) out.inputs.push_back(bt);
  return out;
}

BuiltOnnx matmul_integer_batch_model(const QBatchMatMulSpec& s) {
  std::mt19937 rng(static_cast<std::uint32_t>(s.seed));
  OnnxBuilder b;
  b.input("a", s.a, s.a_shape);
  const Tensor bt = random_tensor(rng, s.b, s.b_shape, qparity::cli::dtype_min(s.b), qparity::cli::dtype_max(s.b));
  if (s.b_input) {
    b.input("b", s.b, s.b_shape);
  } else {
    b.initializer("b", bt);
  }
  b.output("y", DType::kInt32);
  b.zero_points("a_zero_point", s.a, {s.a_zp});
  b.zero_points("b_zero_point", s.b, {s.b_zp});
  b.node("MatMulInteger", {"a", "b", "a_zero_point", "b_zero_point"}, {"y"});
  BuiltOnnx out;
  out.label = fmt::format("MatMulInteger {}x{} a {} B {} ({}) seed {}", qparity::cli::to_string(s.a),
                          qparity::cli::to_string(s.b), qparity::cli::shape_text(s.a_shape),
                          qparity::cli::shape_text(s.b_shape), s.b_input ? "input" : "constant", s.seed);
  out.bytes = b.bytes();
  out.inputs.push_back(random_tensor(rng, s.a, s.a_shape, qparity::cli::dtype_min(s.a), qparity::cli::dtype_max(s.a)));
  if (s.b_input) out.inputs.push_back(bt);
  return out;
}

BuiltOnnx matmul_integer_model(const MatMulIntegerSpec& s) {
  std::mt19937 rng(static_cast<std::uint32_t>(s.seed));
  OnnxBuilder b(13);
  const std::size_t k = s.a_shape.back();
  b.input("a", s.a, s.a_shape);
  b.output("y", DType::kInt32);
  b.initializer("b", random_tensor(rng, s.b, {k, s.n}, qparity::cli::dtype_min(s.b), qparity::cli::dtype_max(s.b)));
  std::vector<std::string> inputs{"a", "b"};
  if (s.a_zero_point || s.b_zero_point) inputs.push_back(s.a_zero_point ? "a_zero_point" : "");
  if (s.a_zero_point) b.zero_points("a_zero_point", s.a, {s.a_zp});
  if (s.b_zero_point) {
    std::vector<std::int64_t> zps{s.b_zp};
    if (s.b_per_column) {
      zps.clear();
      for (std::size_t j = 0; j < s.n; ++j) {
        zps.push_back(std::clamp<std::int64_t>(s.b_zp + static_cast<std::int64_t>(j % 7) - 3,
                                               qparity::cli::dtype_min(s.b), qparity::cli::dtype_max(s.b)));
      }
    }
    b.zero_points("b_zero_point", s.b, zps);
    inputs.push_back("b_zero_point");
  }
  b.node("MatMulInteger", inputs, {"y"});
  BuiltOnnx out;
  out.label = fmt::format("MatMulInteger {}x{} a {} n {} {} {} seed {}", qparity::cli::to_string(s.a),
                          qparity::cli::to_string(s.b), qparity::cli::shape_text(s.a_shape), s.n,
                          s.a_zero_point ? fmt::format("a_zp {}", s.a_zp) : std::string("no a_zp"),
                          !s.b_zero_point  ? std::string("no b_zp")
                          : s.b_per_column ? std::string("b_zp per column")
                                           : fmt::format("b_zp {}", s.b_zp),
                          s.seed);
  out.bytes = b.bytes();
  out.inputs.push_back(random_tensor(rng, s.a, s.a_shape, qparity::cli::dtype_min(s.a), qparity::cli::dtype_max(s.a)));
  return out;
}

BuiltOnnx conv_integer_model(const ConvIntegerSpec& s) {
  std::mt19937 rng(static_cast<std::uint32_t>(s.seed));
  OnnxBuilder b(13);
  b.input("x", s.x, {s.n, s.c, s.h, s.wd});
  b.output("y", DType::kInt32);
  b.initializer("w", random_tensor(rng, s.w, {s.m, s.c / s.group, s.kh, s.kw}, qparity::cli::dtype_min(s.w),
                                   qparity::cli::dtype_max(s.w)));
  std::vector<std::string> inputs{"x", "w"};
  if (s.x_zero_point || s.w_zero_point) inputs.push_back(s.x_zero_point ? "x_zero_point" : "");
  if (s.x_zero_point) b.zero_points("x_zero_point", s.x, {s.x_zp});
  if (s.w_zero_point) {
    std::vector<std::int64_t> zps{s.w_zp};
    if (s.w_per_channel) {
      zps.clear();
      for (std::size_t oc = 0; oc < s.m; ++oc) zps.push_back(s.w_zp + static_cast<std::int64_t>(oc % 5) - 2);
    }
    b.zero_points("w_zero_point", s.w, zps);
    inputs.push_back("w_zero_point");
  }
  onnx::NodeProto& node = b.node("ConvInteger", inputs, {"y"});
  OnnxBuilder::ints(node, "pads", s.pads);
  OnnxBuilder::ints(node, "strides", {static_cast<std::int64_t>(s.stride), static_cast<std::int64_t>(s.stride)});
  OnnxBuilder::ints(node, "dilations", {static_cast<std::int64_t>(s.dilation), static_cast<std::int64_t>(s.dilation)});
  OnnxBuilder::int_attr(node, "group", static_cast<std::int64_t>(s.group));
  BuiltOnnx out;
  out.label =
      fmt::format("ConvInteger {}x{} c {} m {} {}x{} group {} stride {} dilation {} {} {} seed {}",
                  qparity::cli::to_string(s.x), qparity::cli::to_string(s.w), s.c, s.m, s.kh, s.kw, s.group, s.stride,
                  s.dilation, s.x_zero_point ? fmt::format("x_zp {}", s.x_zp) : std::string("no x_zp"),
                  !s.w_zero_point   ? std::string("no w_zp")
                  : s.w_per_channel ? std::string("w_zp per channel")
                                    : fmt::format("w_zp {}", s.w_zp),
                  s.seed);
  out.bytes = b.bytes();
  out.inputs.push_back(
      random_tensor(rng, s.x, {s.n, s.c, s.h, s.wd}, qparity::cli::dtype_min(s.x), qparity::cli::dtype_max(s.x)));
  return out;
}

}  // namespace qparity_test

namespace qparity_test {

BuiltOnnx qlinear_chain_model(DType act, std::uint64_t seed) {
  std::mt19937 rng(static_cast<std::uint32_t>(seed));
  OnnxBuilder b;
  const bool u8 = act == DType::kUint8;
  b.input("x", act, {1, 8, 32, 32});
  b.output("y", act);
  struct Layer {
    std::size_t in, out, k, stride, group;
  };
  const Layer layers[] = {
      {8, 16, 3, 2, 1}, {16, 16, 3, 1, 16}, {16, 24, 1, 1, 1}, {24, 48, 3, 2, 24}, {48, 8, 1, 1, 1}};
  std::string prev = "x";
  b.scales("s0", {0.05f});
  b.zero_points("z0", act, {u8 ? 128 : 0});
  std::size_t i = 0;
  for (const Layer& l : layers) {
    ++i;
    const std::string p = "l" + std::to_string(i) + "_";
    const std::string out = i == std::size(layers) ? "y" : p + "y";
    b.initializer(p + "w", random_tensor(rng, DType::kInt8, {l.out, l.in / l.group, l.k, l.k}, -127, 127));
    b.scales(p + "ws", spread_scales(rng, 0.02f / static_cast<float>(l.k), l.out));
    b.zero_points(p + "wz", DType::kInt8, std::vector<std::int64_t>(l.out, 0));
    b.initializer(p + "b", random_tensor(rng, DType::kInt32, {l.out}, -3000, 3000));
    b.scales(p + "ys", {0.04f + 0.01f * static_cast<float>(i)});
    b.zero_points(p + "yz", act, {u8 ? 120 + static_cast<std::int64_t>(i) : static_cast<std::int64_t>(i) - 3});
    const std::string xs = i == 1 ? "s0" : "l" + std::to_string(i - 1) + "_ys";
    const std::string xz = i == 1 ? "z0" : "l" + std::to_string(i - 1) + "_yz";
    onnx::NodeProto& n =
        b.node("QLinearConv", {prev, xs, xz, p + "w", p + "ws", p + "wz", p + "ys", p + "yz", p + "b"}, {out});
    const auto k = static_cast<std::int64_t>(l.k), s = static_cast<std::int64_t>(l.stride);
    OnnxBuilder::ints(n, "kernel_shape", {k, k});
    OnnxBuilder::ints(n, "strides", {s, s});
    OnnxBuilder::ints(n, "pads", {k / 2, k / 2, k / 2, k / 2});
    if (l.group != 1) OnnxBuilder::int_attr(n, "group", static_cast<std::int64_t>(l.group));
    prev = out;
  }
  BuiltOnnx built;
  built.label = fmt::format("QLinearConv chain (MobileNet v2 shaped) {} seed {}", qparity::cli::to_string(act), seed);
  built.bytes = b.bytes();
  built.inputs.push_back(
      random_tensor(rng, act, {1, 8, 32, 32}, qparity::cli::dtype_min(act), qparity::cli::dtype_max(act)));
  return built;
}

}  // namespace qparity_test

namespace qparity_test {

BuiltOnnx qlinear_mul_model(const QMulSpec& s) {
  std::mt19937 rng(static_cast<std::uint32_t>(s.seed));
  OnnxBuilder b(13, /*microsoft_domain=*/true);
  const std::int64_t lo = qparity::cli::dtype_min(s.t), hi = qparity::cli::dtype_max(s.t);
  b.input("a", s.t, s.shape);
  if (s.b_scalar) {
    b.initializer("b", random_tensor(rng, s.t, {1}, lo, hi));
  } else {
    b.input("b", s.t, s.shape);
  }
  b.output("y", s.t);
  b.scales("as", {s.a_scale});
  b.zero_points("az", s.t, {s.a_zp});
  b.scales("bs", {s.b_scale});
  b.zero_points("bz", s.t, {s.b_zp});
  b.scales("cs", {s.c_scale});
  b.zero_points("cz", s.t, {s.c_zp});
  b.node(s.op, {"a", "as", "az", "b", "bs", "bz", "cs", "cz"}, {"y"}, "com.microsoft");
  BuiltOnnx out;
  out.label = fmt::format("{} {} {} {} scales {}/{}/{} seed {}", s.op, qparity::cli::to_string(s.t),
                          qparity::cli::shape_text(s.shape), s.b_scalar ? "scalar b" : "b input", s.a_scale, s.b_scale,
                          s.c_scale, s.seed);
  out.bytes = b.bytes();
  out.inputs.push_back(random_tensor(rng, s.t, s.shape, lo, hi));
  if (!s.b_scalar) out.inputs.push_back(random_tensor(rng, s.t, s.shape, lo, hi));
  return out;
}

}  // namespace qparity_test

namespace qparity_test {

BuiltOnnx qlinear_global_average_pool_model(const QGapSpec& s) {
  std::mt19937 rng(static_cast<std::uint32_t>(s.seed));
  OnnxBuilder b(13, /*microsoft_domain=*/true);
  b.input("x", s.t, s.shape);
  b.output("y", s.t);
  b.scales("xs", {s.x_scale});
  b.zero_points("xz", s.t, {s.x_zp});
  b.scales("ys", {s.y_scale});
  b.zero_points("yz", s.t, {s.y_zp});
  b.node("QLinearGlobalAveragePool", {"x", "xs", "xz", "ys", "yz"}, {"y"}, "com.microsoft");
  BuiltOnnx out;
  out.label = fmt::format("QLinearGlobalAveragePool {} {} scales {}/{} seed {}", qparity::cli::to_string(s.t),
                          qparity::cli::shape_text(s.shape), s.x_scale, s.y_scale, s.seed);
  out.bytes = b.bytes();
  out.inputs.push_back(random_tensor(rng, s.t, s.shape, qparity::cli::dtype_min(s.t), qparity::cli::dtype_max(s.t)));
  return out;
}

}  // namespace qparity_test

namespace qparity_test {

BuiltOnnx resnet_block_model(DType act, std::uint64_t seed) {
  std::mt19937 rng(static_cast<std::uint32_t>(seed));
  OnnxBuilder b(13, /*microsoft_domain=*/true);
  const bool u8 = act == DType::kUint8;
  const std::int64_t z = u8 ? 128 : 0;
  b.input("x", act, {1, 16, 12, 12});
  b.output("y", act);
  b.scales("xs", {0.05f});
  b.zero_points("xz", act, {z});
  for (int i = 1; i <= 2; ++i) {
    const std::string p = "c" + std::to_string(i) + "_";
    b.initializer(p + "w", random_tensor(rng, DType::kInt8, {16, 16, 3, 3}, -127, 127));
    b.scales(p + "ws", spread_scales(rng, 0.004f, 16));
    b.zero_points(p + "wz", DType::kInt8, std::vector<std::int64_t>(16, 0));
    b.initializer(p + "b", random_tensor(rng, DType::kInt32, {16}, -2000, 2000));
    b.scales(p + "ys", {0.06f + 0.02f * static_cast<float>(i)});
    b.zero_points(p + "yz", act, {z + i});
    const std::string in = i == 1 ? "x" : "c1_y", xs = i == 1 ? "xs" : "c1_ys", xz = i == 1 ? "xz" : "c1_yz";
    onnx::NodeProto& n =
        b.node("QLinearConv", {in, xs, xz, p + "w", p + "ws", p + "wz", p + "ys", p + "yz", p + "b"}, {p + "y"});
    OnnxBuilder::ints(n, "kernel_shape", {3, 3});
    OnnxBuilder::ints(n, "pads", {1, 1, 1, 1});
  }
  b.scales("rs", {0.09f});
  b.zero_points("rz", act, {z - 2});
  b.node("QLinearAdd", {"c2_y", "c2_ys", "c2_yz", "x", "xs", "xz", "rs", "rz"}, {"r"}, "com.microsoft");
  b.scales("gs", {0.03f});
  b.zero_points("gz", act, {z + 3});
  b.node("QLinearGlobalAveragePool", {"r", "rs", "rz", "gs", "gz"}, {"g"}, "com.microsoft");
  b.node("Flatten", {"g"}, {"f"});
  b.initializer("fc_w", random_tensor(rng, DType::kInt8, {16, 10}, -127, 127));
  b.scales("fc_ws", {0.01f});
  b.zero_points("fc_wz", DType::kInt8, {0});
  b.scales("ys", {0.02f});
  b.zero_points("yz", act, {z - 1});
  b.node("QLinearMatMul", {"f", "gs", "gz", "fc_w", "fc_ws", "fc_wz", "ys", "yz"}, {"y"});
  BuiltOnnx out;
  out.label = fmt::format("ResNet block + head {} seed {}", qparity::cli::to_string(act), seed);
  out.bytes = b.bytes();
  out.inputs.push_back(
      random_tensor(rng, act, {1, 16, 12, 12}, qparity::cli::dtype_min(act), qparity::cli::dtype_max(act)));
  return out;
}

}  // namespace qparity_test

namespace qparity_test {

BuiltOnnx qlinear_concat_model(const QConcatSpec& s) {
  std::mt19937 rng(static_cast<std::uint32_t>(s.seed));
  OnnxBuilder b(13, /*microsoft_domain=*/true);
  const bool u8 = s.t == DType::kUint8;
  const std::int64_t lo = qparity::cli::dtype_min(s.t), hi = qparity::cli::dtype_max(s.t);
  // Along the channel axis the two inputs may differ in channels; along H or W they must not.
  const std::size_t c2 = s.axis == 1 || s.axis == -3 ? 4 : 3;
  const std::vector<std::size_t> sa{1, 3, 5, 6}, sb{1, c2, 5, 6};
  b.output("y", s.t);
  const float ys = s.ties ? 0.0625f : 0.04f;
  b.scales("ys", {ys});
  b.zero_points("yz", s.t, {u8 ? 125 : -2});
  b.scales("as", {s.same_quantization ? ys : (s.ties ? 0.03125f : 0.031f)});
  b.zero_points("az", s.t, {s.same_quantization ? (u8 ? 125 : -2) : (u8 ? 130 : 3)});
  b.scales("bs", {s.same_quantization ? ys : (s.ties ? 0.125f : 0.057f)});
  b.zero_points("bz", s.t, {s.same_quantization ? (u8 ? 125 : -2) : (u8 ? 118 : -6)});
  if (s.after_convs) {
    b.input("x", s.t, {1, 3, 5, 6});
    b.scales("xs", {0.05f});
    b.zero_points("xz", s.t, {u8 ? 128 : 0});
    for (int i = 0; i < 2; ++i) {
      const std::string p = i == 0 ? "a" : "b";
      const std::size_t m = i == 0 ? 3 : c2;
      b.initializer(p + "_w", random_tensor(rng, DType::kInt8, {m, 3, 1, 1}, -127, 127));
      b.scales(p + "_ws", {0.01f});
      b.zero_points(p + "_wz", DType::kInt8, {0});
      onnx::NodeProto& n =
          b.node("QLinearConv", {"x", "xs", "xz", p + "_w", p + "_ws", p + "_wz", p + "s", p + "z"}, {p});
      OnnxBuilder::ints(n, "kernel_shape", {1, 1});
    }
  } else {
    b.input("a", s.t, sa);
    b.input("b", s.t, sb);
  }
  onnx::NodeProto& n = b.node("QLinearConcat", {"ys", "yz", "a", "as", "az", "b", "bs", "bz"}, {"y"}, "com.microsoft");
  OnnxBuilder::int_attr(n, "axis", s.axis);
  BuiltOnnx out;
  out.label = fmt::format("QLinearConcat {} axis {}{}{}{} seed {}", qparity::cli::to_string(s.t), s.axis,
                          s.after_convs ? " after convs" : "", s.same_quantization ? " same quantization" : "",
                          s.ties ? " ties" : "", s.seed);
  out.bytes = b.bytes();
  if (s.after_convs) {
    out.inputs.push_back(random_tensor(rng, s.t, {1, 3, 5, 6}, lo, hi));
  } else {
    out.inputs.push_back(random_tensor(rng, s.t, sa, lo, hi));
    out.inputs.push_back(random_tensor(rng, s.t, sb, lo, hi));
  }
  return out;
}

}  // namespace qparity_test

namespace qparity_test {

BuiltOnnx qlinear_average_pool_model(const QAvgPoolSpec& s) {
  std::mt19937 rng(static_cast<std::uint32_t>(s.seed));
  OnnxBuilder b(13, /*microsoft_domain=*/true);
  b.input("x", s.t, s.shape);
  b.output("y", s.t);
  b.scales("xs", {s.x_scale});
  b.zero_points("xz", s.t, {s.x_zp});
  b.scales("ys", {s.y_scale});
  b.zero_points("yz", s.t, {s.y_zp});
  onnx::NodeProto& n = b.node("QLinearAveragePool", {"x", "xs", "xz", "ys", "yz"}, {"y"}, "com.microsoft");
  const std::int64_t kw = s.kw != 0 ? s.kw : s.k;
  OnnxBuilder::ints(n, "kernel_shape", {s.k, kw});
  OnnxBuilder::ints(n, "strides", {s.stride, s.stride});
  const std::string auto_pad = !s.auto_pad.empty() ? s.auto_pad : (s.same_upper ? "SAME_UPPER" : "");
  if (!auto_pad.empty()) OnnxBuilder::string_attr(n, "auto_pad", auto_pad);
  if (!s.pads.empty()) OnnxBuilder::ints(n, "pads", s.pads);
  if (s.count_include_pad) OnnxBuilder::int_attr(n, "count_include_pad", 1);
  BuiltOnnx out;
  out.label = fmt::format("QLinearAveragePool {} {} k{}x{} s{} {}{}{} zp {}/{} scales {}/{} seed {}",
                          qparity::cli::to_string(s.t), qparity::cli::shape_text(s.shape), s.k, kw, s.stride,
                          auto_pad.empty() ? "VALID" : auto_pad,
                          s.pads.empty() ? "" : fmt::format(" pads [{}]", fmt::join(s.pads, ", ")),
                          s.count_include_pad ? " count_include_pad" : "", s.x_zp, s.y_zp, s.x_scale, s.y_scale, s.seed);
  out.bytes = b.bytes();
  out.inputs.push_back(random_tensor(rng, s.t, s.shape, qparity::cli::dtype_min(s.t), qparity::cli::dtype_max(s.t)));
  return out;
}

}  // namespace qparity_test
