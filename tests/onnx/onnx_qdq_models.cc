#include "onnx_qdq_models.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "onnx_builder.h"
#include "onnx_test_support.h"

namespace qparity_test {

using qparity::cli::DType;
using qparity::cli::Tensor;

namespace {

// Adds the scale and zero point initializers `<value>_dq_s`, `<value>_dq_z` and a DequantizeLinear of
// `value` (axis when per axis); returns the float output's name.
std::string dq(OnnxBuilder& b, const std::string& value, DType t, const std::vector<float>& scales,
               const std::vector<std::int64_t>& zps, std::int64_t axis = 1) {
  b.scales(value + "_dq_s", scales);
  b.zero_points(value + "_dq_z", t, zps);
  onnx::NodeProto& n = b.node("DequantizeLinear", {value, value + "_dq_s", value + "_dq_z"}, {value + "_f"});
  if (scales.size() > 1) OnnxBuilder::int_attr(n, "axis", axis);
  return value + "_f";
}

// A QuantizeLinear of float `value` to `out` (scale `<out>_s`, zero point `<out>_z`).
void q(OnnxBuilder& b, const std::string& value, const std::string& out, DType t, float scale, std::int64_t zp) {
  b.scales(out + "_s", {scale});
  b.zero_points(out + "_z", t, {zp});
  b.node("QuantizeLinear", {value, out + "_s", out + "_z"}, {out});
}

// Relu, or Clip(0, 6) with its bounds as float initializers; returns the output's name.
std::string activation(OnnxBuilder& b, const std::string& kind, const std::string& value) {
  if (kind.empty()) return value;
  if (kind == "Relu") {
    b.node("Relu", {value}, {value + "_relu"});
    return value + "_relu";
  }
  Tensor lo = qparity::cli::make_tensor(DType::kFloat32, {}), hi = qparity::cli::make_tensor(DType::kFloat32, {});
  const float zero = 0.0f, six = 6.0f;
  std::memcpy(lo.bytes.data(), &zero, 4);
  std::memcpy(hi.bytes.data(), &six, 4);
  b.initializer(value + "_lo", lo);
  b.initializer(value + "_hi", hi);
  b.node("Clip", {value, value + "_lo", value + "_hi"}, {value + "_clip"});
  return value + "_clip";
}

// float `value` -> MaxPool 1x1 group -> `<name>q`, read by one DequantizeLinear only (whose float
// output is returned): an int8 Q -> DQ pair ONNX Runtime on x86 makes uint8 (QDQS8ToU8Transformer).
std::string through_single_consumer_pair(OnnxBuilder& b, const std::string& value, const std::string& name, DType t,
                                         float scale, std::int64_t zp) {
  onnx::NodeProto& pool = b.node("MaxPool", {value}, {name + "_pool"});
  OnnxBuilder::ints(pool, "kernel_shape", {1, 1});
  q(b, name + "_pool", name + "q", t, scale, zp);
  return dq(b, name + "q", t, {scale}, {zp});
}

// QuantizeLinear of float `value` to the graph output y; with `single_consumer_pair`, through yq read
// by one DequantizeLinear -> Flatten group -> y instead.
void quantize_output(OnnxBuilder& b, const std::string& value, bool single_consumer_pair, DType t, float scale,
                     std::int64_t zp) {
  if (!single_consumer_pair) return q(b, value, "y", t, scale, zp);
  q(b, value, "yq", t, scale, zp);
  b.node("Flatten", {dq(b, "yq", t, {scale}, {zp})}, {"y_flat"});
  q(b, "y_flat", "y", t, scale, zp);
}

}  // namespace

BuiltOnnx qdq_conv_model(const QdqConvSpec& spec) {
  const QConvSpec& s = spec.conv;
  std::mt19937 rng(static_cast<std::uint32_t>(s.seed));
  OnnxBuilder b;
  b.input("x", s.x, {s.n, s.c, s.h, s.wd});
  b.output("y", s.x);
  const std::size_t cpg = s.c / s.group;
  const bool u8w = s.w == DType::kUint8;
  const std::int64_t lo = u8w && s.w_lo < 0 ? 0 : s.w_lo, hi = u8w && s.w_hi == 127 ? 255 : s.w_hi;
  Tensor w = random_tensor(rng, s.w, {s.m, cpg, s.kh, s.kw}, lo, hi);
  const std::size_t taps = s.kh * s.kw;
  if (spec.cancelling) {  // w[o, c + C/2] = -w[o, c], one in 40 off by one
    std::uniform_int_distribution<int> off(-40, 40);
    for (std::size_t o = 0; o < s.m; ++o) {
      for (std::size_t c = 0; c < cpg / 2; ++c) {
        for (std::size_t t = 0; t < taps; ++t) {
          const std::int64_t v = w.integer_at((o * cpg + c) * taps + t);
          const int d = off(rng);
          const std::int64_t neg = -v + (d == 40 ? 1 : d == -40 ? -1 : 0);
          w.set_integer((o * cpg + c + cpg / 2) * taps + t,
                        std::max<std::int64_t>(lo, std::min<std::int64_t>(hi, neg)));
        }
      }
    }
  }
  b.initializer("w", w);
  const std::vector<float> ws = s.per_channel ? spread_scales(rng, s.w_scale, s.m) : std::vector<float>{s.w_scale};
  std::string xf = dq(b, "x", s.x, {s.x_scale}, {s.x_zp});
  if (spec.single_consumer_pairs) xf = through_single_consumer_pair(b, xf, "x", s.x, s.x_scale, s.x_zp);
  const std::string wf = dq(b, "w", s.w, ws, std::vector<std::int64_t>(ws.size(), s.w_zp), 0);
  std::vector<std::string> inputs{xf, wf};
  if (s.bias) {
    b.initializer("B", random_tensor(rng, DType::kInt32, {s.m}, -20000, 20000));
    std::vector<float> bs;
    for (float v : ws) bs.push_back(s.x_scale * v);  // ONNX Runtime's quantizer: x_scale * w_scale
    b.scales("B_s", bs);
    // The zero point has the scale's shape (a scalar for a scalar scale).
    b.initializer(
        "B_z", qparity::cli::make_tensor(
                   DType::kInt32, bs.size() == 1 ? std::vector<std::size_t>{} : std::vector<std::size_t>{bs.size()}));
    onnx::NodeProto& bn = b.node("DequantizeLinear", {"B", "B_s", "B_z"}, {"B_f"});
    if (bs.size() > 1) OnnxBuilder::int_attr(bn, "axis", 0);
    inputs.push_back("B_f");
  }
  onnx::NodeProto& n = b.node("Conv", inputs, {"conv"});
  OnnxBuilder::ints(n, "kernel_shape", {static_cast<std::int64_t>(s.kh), static_cast<std::int64_t>(s.kw)});
  OnnxBuilder::ints(n, "strides", {static_cast<std::int64_t>(s.stride), static_cast<std::int64_t>(s.stride)});
  OnnxBuilder::ints(n, "dilations", {static_cast<std::int64_t>(s.dilation), static_cast<std::int64_t>(s.dilation)});
  OnnxBuilder::ints(n, "pads", s.pads);
  if (s.group != 1) OnnxBuilder::int_attr(n, "group", static_cast<std::int64_t>(s.group));
  quantize_output(b, activation(b, spec.activation, "conv"), spec.single_consumer_pairs, s.x, s.y_scale, s.y_zp);
  BuiltOnnx out;
  out.label =
      fmt::format("QDQ Conv {}x{} c{} m{} k{}x{} group {} stride {} {}{}{} seed {}", qparity::cli::to_string(s.x),
                  qparity::cli::to_string(s.w), s.c, s.m, s.kh, s.kw, s.group, s.stride,
                  s.per_channel ? "per-channel" : "per-tensor", spec.activation.empty() ? "" : " + " + spec.activation,
                  spec.cancelling ? " cancelling" : "", s.seed);
  if (spec.single_consumer_pairs) out.label += " between single-consumer Q -> DQ pairs";
  out.bytes = b.bytes();
  const bool full = s.x_lo == -1 && s.x_hi == -1;
  Tensor x = random_tensor(rng, s.x, {s.n, s.c, s.h, s.wd}, full ? qparity::cli::dtype_min(s.x) : s.x_lo,
                           full ? qparity::cli::dtype_max(s.x) : s.x_hi);
  if (spec.cancelling) {  // channel c + C/2 repeats channel c
    const std::size_t plane = s.h * s.wd;
    for (std::size_t bi = 0; bi < s.n; ++bi) {
      for (std::size_t c = 0; c < s.c / 2; ++c) {
        for (std::size_t p = 0; p < plane; ++p) {
          x.set_integer((bi * s.c + c + s.c / 2) * plane + p, x.integer_at((bi * s.c + c) * plane + p));
        }
      }
    }
  }
  out.inputs.push_back(std::move(x));
  return out;
}

BuiltOnnx qdq_matmul_model(const QdqMatMulSpec& spec) {
  const QMatMulSpec& s = spec.mm;
  std::mt19937 rng(static_cast<std::uint32_t>(s.seed));
  OnnxBuilder b;
  const std::size_t k = s.a_shape.back();
  b.input("a", s.a, s.a_shape);
  b.output("y", s.a);
  const bool u8b = s.b == DType::kUint8;
  const std::int64_t lo = u8b && s.b_lo < 0 ? 0 : s.b_lo, hi = u8b && s.b_hi == 127 ? 255 : s.b_hi;
  Tensor w = random_tensor(rng, s.b, {k, s.n}, lo, hi);
  if (spec.cancelling) {  // row k + K/2 = -row k, one in 40 off by one
    std::uniform_int_distribution<int> off(-40, 40);
    for (std::size_t i = 0; i < k / 2; ++i) {
      for (std::size_t j = 0; j < s.n; ++j) {
        const int d = off(rng);
        const std::int64_t neg = -w.integer_at(i * s.n + j) + (d == 40 ? 1 : d == -40 ? -1 : 0);
        w.set_integer((i + k / 2) * s.n + j, std::max<std::int64_t>(lo, std::min<std::int64_t>(hi, neg)));
      }
    }
  }
  if (spec.gemm && spec.trans_b) {  // Gemm's B with transB 1 is [n, K]
    Tensor t = qparity::cli::make_tensor(s.b, {s.n, k});
    for (std::size_t i = 0; i < k; ++i) {
      for (std::size_t j = 0; j < s.n; ++j) t.set_integer(j * k + i, w.integer_at(i * s.n + j));
    }
    w = std::move(t);
  }
  b.initializer("b", w);
  const std::vector<float> bs = s.per_column ? spread_scales(rng, s.b_scale, s.n) : std::vector<float>{s.b_scale};
  std::string af = dq(b, "a", s.a, {s.a_scale}, {s.a_zp});
  if (spec.single_consumer_pairs) af = through_single_consumer_pair(b, af, "a", s.a, s.a_scale, s.a_zp);
  const std::string bf = dq(b, "b", s.b, bs, std::vector<std::int64_t>(bs.size(), s.b_zp), spec.gemm && spec.trans_b ? 0 : 1);
  if (spec.gemm) {
    b.initializer("C", random_tensor(rng, DType::kInt32, {s.n}, -spec.c_range, spec.c_range));
    std::vector<float> cs;
    for (std::size_t j = 0; j < s.n; ++j) cs.push_back(s.a_scale * bs[bs.size() == 1 ? 0 : j]);
    b.scales("C_s", cs);
    b.initializer("C_z", qparity::cli::make_tensor(DType::kInt32, {s.n}));
    onnx::NodeProto& cn = b.node("DequantizeLinear", {"C", "C_s", "C_z"}, {"C_f"});
    OnnxBuilder::int_attr(cn, "axis", 0);
    onnx::NodeProto& g = b.node("Gemm", {af, bf, "C_f"}, {"mm"});
    if (spec.trans_b) OnnxBuilder::int_attr(g, "transB", 1);
  } else {
    b.node("MatMul", {af, bf}, {"mm"});
  }
  quantize_output(b, activation(b, spec.activation, "mm"), spec.single_consumer_pairs, s.a, s.y_scale, s.y_zp);
  BuiltOnnx out;
  out.label =
      fmt::format("QDQ {} {}x{} a {} n {} {}{} seed {}", spec.gemm ? (spec.trans_b ? "Gemm" : "Gemm transB 0") : "MatMul", qparity::cli::to_string(s.a),
                  qparity::cli::to_string(s.b), qparity::cli::shape_text(s.a_shape), s.n,
                  s.per_column ? "per-column" : "per-tensor", spec.cancelling ? " cancelling" : "", s.seed);
  if (!spec.activation.empty()) out.label += " + " + spec.activation;
  if (spec.single_consumer_pairs) out.label += " between single-consumer Q -> DQ pairs";
  out.bytes = b.bytes();
  Tensor a = random_tensor(rng, s.a, s.a_shape, qparity::cli::dtype_min(s.a), qparity::cli::dtype_max(s.a));
  if (spec.cancelling) {
    const std::size_t rows = a.elements() / k;
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t i = 0; i < k / 2; ++i) a.set_integer(r * k + i + k / 2, a.integer_at(r * k + i));
    }
  }
  out.inputs.push_back(std::move(a));
  return out;
}

BuiltOnnx qdq_batch_matmul_model(const QdqBatchMatMulSpec& spec) {
  const QBatchMatMulSpec& s = spec.mm;
  std::mt19937 rng(static_cast<std::uint32_t>(s.seed));
  OnnxBuilder b;
  const std::size_t k = s.a_shape.back(), n = s.b_shape.back();
  const std::int64_t b_lo = qparity::cli::dtype_min(s.b) + (spec.cancelling ? 1 : 0), b_hi = qparity::cli::dtype_max(s.b);
  Tensor bt = random_tensor(rng, s.b, s.b_shape, b_lo, b_hi);
  if (spec.cancelling) {  // in each matrix, row k + K/2 = -row k (int8 b, zero point 0), one in 40 off by one
    std::uniform_int_distribution<int> off(-40, 40);
    for (std::size_t m0 = 0; m0 < bt.elements(); m0 += k * n) {
      for (std::size_t i = 0; i < k / 2; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
          const int d = off(rng);
          const std::int64_t neg = -bt.integer_at(m0 + i * n + j) + (d == 40 ? 1 : d == -40 ? -1 : 0);
          bt.set_integer(m0 + (i + k / 2) * n + j, std::max<std::int64_t>(b_lo, std::min<std::int64_t>(b_hi, neg)));
        }
      }
    }
  }
  b.input("a", s.a, s.a_shape);
  if (s.b_input) {
    b.input("b", s.b, s.b_shape);
  } else {
    b.initializer("b", bt);
  }
  b.output("y", s.a);
  std::string af = dq(b, "a", s.a, {s.a_scale}, {s.a_zp});
  if (spec.single_consumer_pairs) af = through_single_consumer_pair(b, af, "a", s.a, s.a_scale, s.a_zp);
  const std::string bf = dq(b, "b", s.b, {s.b_scale}, {s.b_zp});
  b.node("MatMul", {af, bf}, {"mm"});
  quantize_output(b, "mm", spec.single_consumer_pairs, s.a, s.y_scale, s.y_zp);
  BuiltOnnx out;
  out.label = fmt::format("QDQ MatMul {}x{} a {} b {} ({}){} seed {}", qparity::cli::to_string(s.a),
                          qparity::cli::to_string(s.b), qparity::cli::shape_text(s.a_shape),
                          qparity::cli::shape_text(s.b_shape), s.b_input ? "input" : "constant",
                          spec.cancelling ? " cancelling" : "", s.seed);
  if (spec.single_consumer_pairs) out.label += " between single-consumer Q -> DQ pairs";
  out.bytes = b.bytes();
  Tensor a = random_tensor(rng, s.a, s.a_shape, qparity::cli::dtype_min(s.a), qparity::cli::dtype_max(s.a));
  if (spec.cancelling) {  // column k + K/2 repeats column k
    for (std::size_t r = 0; r < a.elements() / k; ++r) {
      for (std::size_t i = 0; i < k / 2; ++i) a.set_integer(r * k + i + k / 2, a.integer_at(r * k + i));
    }
  }
  out.inputs.push_back(std::move(a));
  if (s.b_input) out.inputs.push_back(std::move(bt));
  return out;
}

BuiltOnnx qdq_binary_model(const QMulSpec& s, const std::string& act) {
  std::mt19937 rng(static_cast<std::uint32_t>(s.seed));
  OnnxBuilder b;
  const std::int64_t lo = qparity::cli::dtype_min(s.t), hi = qparity::cli::dtype_max(s.t);
  b.input("a", s.t, s.shape);
  if (s.b_scalar) {
    b.initializer("b", random_tensor(rng, s.t, {1}, lo, hi));
  } else {
    b.input("b", s.t, s.shape);
  }
  b.output("y", s.t);
  const std::string op = s.op == "QLinearAdd" ? "Add" : "Mul";
  const std::string af = dq(b, "a", s.t, {s.a_scale}, {s.a_zp});
  const std::string bf = dq(b, "b", s.t, {s.b_scale}, {s.b_zp});
  b.node(op, {af, bf}, {"c"});
  q(b, activation(b, act, "c"), "y", s.t, s.c_scale, s.c_zp);
  BuiltOnnx out;
  out.label = fmt::format("QDQ {} {} {} {} scales {}/{}/{}{} seed {}", op, qparity::cli::to_string(s.t),
                          qparity::cli::shape_text(s.shape), s.b_scalar ? "scalar b" : "b input", s.a_scale, s.b_scale,
                          s.c_scale, act.empty() ? "" : " + " + act, s.seed);
  out.bytes = b.bytes();
  out.inputs.push_back(random_tensor(rng, s.t, s.shape, lo, hi));
  if (!s.b_scalar) out.inputs.push_back(random_tensor(rng, s.t, s.shape, lo, hi));
  return out;
}

BuiltOnnx qdq_pool_model(const QdqPoolSpec& s) {
  std::mt19937 rng(static_cast<std::uint32_t>(s.seed));
  OnnxBuilder b;
  b.input("x", s.t, s.shape);
  b.output("y", s.t);
  const std::string xf = dq(b, "x", s.t, {s.x_scale}, {s.x_zp});
  onnx::NodeProto& n = b.node(s.op, {xf}, {"p"});
  if (s.op != "GlobalAveragePool") {
    OnnxBuilder::ints(n, "kernel_shape", {s.k, s.kw != 0 ? s.kw : s.k});
    OnnxBuilder::ints(n, "strides", {s.stride, s.stride});
    if (!s.auto_pad.empty() || s.same_upper) OnnxBuilder::string_attr(n, "auto_pad", s.auto_pad.empty() ? "SAME_UPPER" : s.auto_pad);
    if (!s.pads.empty()) OnnxBuilder::ints(n, "pads", s.pads);
    if (s.count_include_pad) OnnxBuilder::int_attr(n, "count_include_pad", 1);
  }
  const bool same = s.op == "MaxPool";
  q(b, "p", "y", s.t, same ? s.x_scale : s.y_scale, same ? s.x_zp : s.y_zp);
  BuiltOnnx out;
  out.label = fmt::format("QDQ {} {} {} k{}x{} s{}{}{}{} zp {}/{} scales {}/{} seed {}", s.op,
                          qparity::cli::to_string(s.t), qparity::cli::shape_text(s.shape), s.k, s.kw != 0 ? s.kw : s.k,
                          s.stride, !s.auto_pad.empty() ? " " + s.auto_pad : (s.same_upper ? " SAME_UPPER" : ""),
                          s.pads.empty() ? "" : fmt::format(" pads [{}]", fmt::join(s.pads, ", ")),
                          s.count_include_pad ? " count_include_pad" : "", s.x_zp, s.y_zp, s.x_scale, s.y_scale,
                          s.seed);
  out.bytes = b.bytes();
  out.inputs.push_back(random_tensor(rng, s.t, s.shape, qparity::cli::dtype_min(s.t), qparity::cli::dtype_max(s.t)));
  return out;
}

BuiltOnnx qdq_transpose_model(DType t, const std::vector<std::size_t>& shape, const std::vector<std::int64_t>& perm,
                              std::uint64_t seed, float y_scale, std::int64_t y_zp_shift) {
  std::mt19937 rng(static_cast<std::uint32_t>(seed));
  OnnxBuilder b;
  const std::int64_t zp = t == DType::kUint8 ? 131 : -7;
  b.input("x", t, shape);
  b.output("y", t);
  const std::string xf = dq(b, "x", t, {0.037f}, {zp});
  onnx::NodeProto& n = b.node("Transpose", {xf}, {"p"});
  if (!perm.empty()) OnnxBuilder::ints(n, "perm", perm);
  q(b, "p", "y", t, y_scale, zp + y_zp_shift);
  BuiltOnnx out;
  out.label = fmt::format("QDQ Transpose {} {} perm [{}] y {}/{} seed {}", qparity::cli::to_string(t),
                          qparity::cli::shape_text(shape), fmt::join(perm, ", "), y_scale, zp + y_zp_shift, seed);
  out.bytes = b.bytes();
  out.inputs.push_back(random_tensor(rng, t, shape, qparity::cli::dtype_min(t), qparity::cli::dtype_max(t)));
  return out;
}

BuiltOnnx qdq_concat_model(DType t, std::uint64_t seed) {
  std::mt19937 rng(static_cast<std::uint32_t>(seed));
  OnnxBuilder b;
  const bool u8 = t == DType::kUint8;
  const std::int64_t lo = qparity::cli::dtype_min(t), hi = qparity::cli::dtype_max(t);
  b.input("a", t, {1, 3, 5, 6});
  b.input("b", t, {1, 4, 5, 6});
  b.output("y", t);
  const float ys = 0.04f;
  const std::int64_t yz = u8 ? 125 : -2;
  const std::string af = dq(b, "a", t, {u8 ? 0.031f : ys}, {u8 ? 130 : yz});
  const std::string bf = dq(b, "b", t, {u8 ? 0.057f : ys}, {u8 ? 118 : yz});
  onnx::NodeProto& n = b.node("Concat", {af, bf}, {"cat"});
  OnnxBuilder::int_attr(n, "axis", 1);
  q(b, "cat", "y", t, ys, yz);
  BuiltOnnx out;
  out.label = fmt::format("QDQ Concat {} seed {}", qparity::cli::to_string(t), seed);
  out.bytes = b.bytes();
  out.inputs.push_back(random_tensor(rng, t, {1, 3, 5, 6}, lo, hi));
  out.inputs.push_back(random_tensor(rng, t, {1, 4, 5, 6}, lo, hi));
  return out;
}

BuiltOnnx qdq_resnet_model(DType act, std::uint64_t seed) {
  std::mt19937 rng(static_cast<std::uint32_t>(seed));
  OnnxBuilder b;
  const bool u8 = act == DType::kUint8;
  const std::int64_t z = u8 ? 128 : 0;
  b.input("x", act, {1, 16, 12, 12});
  b.output("y", act);
  // Each quantized value's scale and zero point, as its QuantizeLinear wrote it.
  struct Qv {
    float s;
    std::int64_t z;
  };
  const Qv x{0.05f, z}, c1{0.08f, u8 ? 0 : -128}, c2{0.1f, z + 2}, r{0.09f, u8 ? 0 : -128}, g{0.03f, z + 3},
      y{0.02f, z - 1};
  auto conv = [&](const std::string& in, const Qv& inq, const std::string& p, const Qv& outq, bool relu) {
    b.initializer(p + "w", random_tensor(rng, DType::kInt8, {16, 16, 3, 3}, -127, 127));
    const std::vector<float> ws = spread_scales(rng, 0.004f, 16);
    const std::string xf = dq(b, in, act, {inq.s}, {inq.z});
    const std::string wf = dq(b, p + "w", DType::kInt8, ws, std::vector<std::int64_t>(16, 0), 0);
    b.initializer(p + "b", random_tensor(rng, DType::kInt32, {16}, -2000, 2000));
    std::vector<float> bs;
    for (float v : ws) bs.push_back(inq.s * v);
    b.scales(p + "b_s", bs);
    b.initializer(p + "b_z", qparity::cli::make_tensor(DType::kInt32, {16}));
    onnx::NodeProto& bn = b.node("DequantizeLinear", {p + "b", p + "b_s", p + "b_z"}, {p + "b_f"});
    OnnxBuilder::int_attr(bn, "axis", 0);
    onnx::NodeProto& n = b.node("Conv", {xf, wf, p + "b_f"}, {p + "f"});
    OnnxBuilder::ints(n, "kernel_shape", {3, 3});
    OnnxBuilder::ints(n, "pads", {1, 1, 1, 1});
    q(b, activation(b, relu ? "Relu" : "", p + "f"), p + "y", act, outq.s, outq.z);
  };
  // Each consumer gets its own DequantizeLinear, as ONNX Runtime's quantizer writes them.
  conv("x", x, "c1_", c1, true);
  conv("c1_y", c1, "c2_", c2, false);
  b.node("DequantizeLinear", {"x", "x_dq_s", "x_dq_z"}, {"x_f2"});
  const std::string sf = dq(b, "c2_y", act, {c2.s}, {c2.z});
  b.node("Add", {sf, "x_f2"}, {"add"});
  q(b, activation(b, "Relu", "add"), "r", act, r.s, r.z);
  const std::string rf = dq(b, "r", act, {r.s}, {r.z});
  onnx::NodeProto& mp = b.node("MaxPool", {rf}, {"mp"});
  OnnxBuilder::ints(mp, "kernel_shape", {2, 2});
  OnnxBuilder::ints(mp, "strides", {2, 2});
  q(b, "mp", "m", act, r.s, r.z);
  const std::string mf = dq(b, "m", act, {r.s}, {r.z});
  b.node("GlobalAveragePool", {mf}, {"gap"});
  q(b, "gap", "g", act, g.s, g.z);
  const std::string gf = dq(b, "g", act, {g.s}, {g.z});
  b.node("Flatten", {gf}, {"flat"});
  q(b, "flat", "f", act, g.s, g.z);
  const std::string ff = dq(b, "f", act, {g.s}, {g.z});
  b.initializer("fc_w", random_tensor(rng, DType::kInt8, {16, 10}, -127, 127));
  const std::string fw = dq(b, "fc_w", DType::kInt8, {0.01f}, {0});
  b.node("MatMul", {ff, fw}, {"fc"});
  q(b, "fc", "y", act, y.s, y.z);
  BuiltOnnx out;
  out.label = fmt::format("QDQ ResNet block + head {} seed {}", qparity::cli::to_string(act), seed);
  out.bytes = b.bytes();
  out.inputs.push_back(
      random_tensor(rng, act, {1, 16, 12, 12}, qparity::cli::dtype_min(act), qparity::cli::dtype_max(act)));
  return out;
}

Tensor float_quantize_inputs(std::mt19937& rng, const std::vector<std::size_t>& shape, float scale, std::int64_t zp,
                             DType t) {
  Tensor x = qparity::cli::make_tensor(DType::kFloat32, shape);
  const std::int64_t lo = qparity::cli::dtype_min(t) - zp, hi = qparity::cli::dtype_max(t) - zp;
  std::uniform_int_distribution<std::int64_t> step(lo, hi - 1);
  std::uniform_real_distribution<float> uniform(static_cast<float>(lo - 2) * scale, static_cast<float>(hi + 2) * scale);
  for (std::size_t i = 0; i < x.elements(); ++i) {
    float v = 0;
    switch (i % 4) {
      case 0: v = (static_cast<float>(step(rng)) + 0.5f) * scale; break;  // k + 1/2 steps
      case 1: v = static_cast<float>((rng() & 1) != 0 ? hi + 40 : lo - 40) * scale; break;  // saturates
      default: v = uniform(rng); break;
    }
    std::memcpy(x.bytes.data() + 4 * i, &v, 4);
  }
  return x;
}

BuiltOnnx qdq_float_io_model(DType t, float x_scale, std::int64_t x_zp, std::uint64_t seed) {
  std::mt19937 rng(static_cast<std::uint32_t>(seed));
  const std::vector<std::size_t> shape{1, 4, 6, 5};
  OnnxBuilder b;
  b.input("x", DType::kFloat32, shape);
  b.output("y", DType::kFloat32);
  q(b, "x", "xq", t, x_scale, x_zp);
  const std::string xf = dq(b, "xq", t, {x_scale}, {x_zp});
  b.initializer("b", random_tensor(rng, t, {1}, qparity::cli::dtype_min(t), qparity::cli::dtype_max(t)));
  const std::string bf = dq(b, "b", t, {0.0213f}, {t == DType::kInt8 ? 5 : 120});
  b.node("Add", {xf, bf}, {"c"});
  q(b, "c", "cq", t, 0.0517f, t == DType::kInt8 ? -9 : 133);
  dq(b, "cq", t, {0.0517f}, {t == DType::kInt8 ? -9 : 133});
  onnx::GraphProto& g = *b.model().mutable_graph();
  g.mutable_node(g.node_size() - 1)->set_output(0, "y");  // the last DequantizeLinear's output is y
  BuiltOnnx out;
  out.label = fmt::format("float x -> Q -> DQ Add Q -> DQ -> float y, {} x scale {} zp {} seed {}",
                          qparity::cli::to_string(t), x_scale, x_zp, seed);
  out.bytes = b.bytes();
  out.inputs.push_back(float_quantize_inputs(rng, shape, x_scale, x_zp, t));
  return out;
}

BuiltOnnx lone_linear_model(const LoneLinearSpec& s) {
  std::mt19937 rng(static_cast<std::uint32_t>(s.seed));
  const std::vector<std::size_t> shape{1, 3, 4, 5};
  OnnxBuilder b;
  b.input("x", s.quantize ? DType::kFloat32 : s.t, shape);
  b.output("y", s.quantize ? s.t : DType::kFloat32);
  b.scales("s", s.scales);
  b.zero_points("z", s.t, s.zps);
  onnx::NodeProto& n = b.node(s.quantize ? "QuantizeLinear" : "DequantizeLinear", {"x", "s", "z"}, {"y"});
  if (s.scales.size() > 1) OnnxBuilder::int_attr(n, "axis", 1);
  BuiltOnnx out;
  out.label = fmt::format("{} {} {} scales {} zero points {} seed {}", s.quantize ? "QuantizeLinear" : "DequantizeLinear",
                          qparity::cli::to_string(s.t), s.scales.size() > 1 ? "per axis 1" : "per tensor", s.scales,
                          s.zps, s.seed);
  out.bytes = b.bytes();
  out.inputs.push_back(s.quantize ? float_quantize_inputs(rng, shape, s.scales[0], s.zps[0], s.t)
                                  : random_tensor(rng, s.t, shape, qparity::cli::dtype_min(s.t),
                                                  qparity::cli::dtype_max(s.t)));
  return out;
}

}  // namespace qparity_test
