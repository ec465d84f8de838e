#include "model/onnx/onnx_writer.h"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "model/onnx/onnx_proto_fields.h"
#include "model/ops/conv_common.h"
#include "model/ops/elementwise.h"
#include "model/ops/mean.h"
#include "model/ops/pool2d.h"
#include "model/ops/resize.h"
#include "tool_error.h"

namespace qparity::model {

using cli::ToolError;

namespace {

// Opset 13: DequantizeLinear / QuantizeLinear with per-axis scales (what the reader requires).
constexpr std::int64_t kOpset = 13;
constexpr std::int64_t kIrVersion = 8;
constexpr const char* kMicrosoft = "com.microsoft";

// An activation's quantization as two initializer names (the scale and the zero point).
struct Affine {
  std::string scale;
  std::string zero_point;
};

// NHWC dimensions as ONNX declares them (NCHW for 4-D, unchanged otherwise).
std::vector<std::size_t> onnx_dims(const std::vector<std::size_t>& s) {
  if (s.size() != 4) return s;
  return {s[0], s[3], s[1], s[2]};
}

class Writer {
 public:
  Writer(const Graph& g, const OnnxWriteOptions& o) : g_(g), o_(o), names_(g.tensors.size()) {}

  onnx::ModelProto write();

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw ToolError(fmt::format("{}: cannot write as ONNX ({}): {}", g_.source.empty() ? "graph" : g_.source,
                                onnx_form_name(o_.form), problem));
  }
  const TensorDef& tensor(int t) const { return g_.tensors[static_cast<std::size_t>(t)]; }

  std::string unique(const std::string& want);
  // The ONNX name of activation tensor t (checked: 8-bit, per-tensor quantization).
  const std::string& value(int t, const std::string& label);
  DType act_type(int t) const;
  std::int64_t act_zero_point(int t) const;
  Affine affine(int t, const std::string& label);
  std::string add_initializer(const std::string& want, const Tensor& data);
  std::string scalar_float(const std::string& want, float v);
  onnx::NodeProto* add_node(const std::string& op, const std::string& name, const std::vector<std::string>& inputs,
                            const std::vector<std::string>& outputs, const char* domain = "");
  void add_value_info(onnx::ValueInfoProto* v, int t);

  // QDQ form: a DequantizeLinear of `v` for one consumer; a QuantizeLinear of `f` into `out`.
  std::string dequantize(const std::string& v, const Affine& a, const std::string& consumer, std::int64_t axis = -1);
  void quantize(const std::string& f, const Affine& a, const std::string& out, const std::string& name);

  // Whether the fused activation changes nothing the output's quantization does not already clamp.
  bool clamp_implied(Activation act, int out) const;
  // The activation of a computing node: "" (implied), "Relu" or "Clip6" (QDQ form); refused in the
  // operator form.
  std::string activation_node(Activation act, int out, const std::string& label) const;

  // Filter, its per-channel scales and zero points, and the bias as initializers in ONNX layout.
  struct Weights {
    std::string w, w_scale, w_zero_point, bias, bias_scale, bias_zero_point;
  };
  Weights conv_weights(const Node& n, const std::string& label, bool depthwise, bool fully_connected, int x);

  void write_conv(const Node& n, const std::string& label);
  void write_fully_connected(const Node& n, const std::string& label);
  void write_add(const Node& n, const std::string& label);
  void write_mean(const Node& n, const std::string& label);
  void write_max_pool(const Node& n, const std::string& label);
  // RESIZE_BILINEAR, and RESIZE_NEAREST_NEIGHBOR carrying ONNX's rule (read from an ONNX Resize).
  void write_resize(const Node& n, const std::string& label);
  // The float operator's output through an optional Relu / Clip into the QuantizeLinear of `out`.
  void finish_qdq(const std::string& f, const std::string& act, const Affine& a, const std::string& out);

  const Graph& g_;
  OnnxWriteOptions o_;
  onnx::ModelProto model_;
  onnx::GraphProto* graph_ = nullptr;
  std::vector<std::string> names_;  // per graph tensor: its ONNX value ("" until named)
  std::set<std::string> used_;
  std::map<int, Affine> affines_;
};

const char* kAllowed =
    "allowed: CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED (2-D input), ADD (two activations of one shape), MEAN "
    "(over H and W of a 4-D tensor), MAX_POOL_2D (QDQ form), RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR read from "
    "an ONNX Resize";

std::string Writer::unique(const std::string& want) {
  std::string name = want.empty() ? std::string("value") : want;
  for (int k = 1; used_.count(name) != 0; ++k) name = fmt::format("{}_{}", want, k);
  used_.insert(name);
  return name;
}

DType Writer::act_type(int t) const {
  return o_.activations == DType::kUint8 ? DType::kUint8 : tensor(t).dtype;
}

std::int64_t Writer::act_zero_point(int t) const {
  return tensor(t).quant.zero_point() + (o_.activations == DType::kUint8 ? 128 : 0);
}

const std::string& Writer::value(int t, const std::string& label) {
  const TensorDef& d = tensor(t);
  if (d.constant()) {
    fail(fmt::format("{}: {} is a constant where an activation is expected; {}", label, g_.tensor_label(t), kAllowed));
  }
  const bool ok_type = o_.activations == DType::kUint8 ? d.dtype == DType::kInt8
                                                       : d.dtype == DType::kInt8 || d.dtype == DType::kUint8;
  if (!ok_type) {
    fail(fmt::format("{}: {} is {}; allowed: int8 or uint8 activations ({} with uint8 activations)", label,
                     g_.tensor_label(t), cli::to_string(d.dtype), "int8 graphs only"));
  }
  if (!d.quant.present() || d.quant.per_axis()) {
    fail(fmt::format("{}: {} is {}; allowed: one scale and zero point per activation", label, g_.tensor_label(t),
                     d.quant.present() ? "quantized per axis" : "not quantized"));
  }
  std::string& n = names_[static_cast<std::size_t>(t)];
  if (n.empty()) n = unique(d.name.empty() ? fmt::format("tensor_{}", t) : d.name);
  return n;
}

std::string Writer::add_initializer(const std::string& want, const Tensor& data) {
  onnx::TensorProto* p = graph_->add_initializer();
  set_tensor_proto(p, unique(want), data);
  return p->name();
}

std::string Writer::scalar_float(const std::string& want, float v) {
  Tensor t = cli::make_tensor(DType::kFloat32, {});
  std::memcpy(t.bytes.data(), &v, sizeof v);
  return add_initializer(want, t);
}

Affine Writer::affine(int t, const std::string& label) {
  const std::string& name = value(t, label);
  const auto it = affines_.find(t);
  if (it != affines_.end()) return it->second;
  Affine a;
  a.scale = scalar_float(name + "/scale", tensor(t).quant.scales[0]);
  Tensor zp = cli::make_tensor(act_type(t), {});
  zp.set_integer(0, act_zero_point(t));
  a.zero_point = add_initializer(name + "/zero_point", zp);
  affines_.emplace(t, a);
  return a;
}

onnx::NodeProto* Writer::add_node(const std::string& op, const std::string& name,
                                  const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                                  const char* domain) {
  onnx::NodeProto* n = graph_->add_node();
  n->set_op_type(op);
  n->set_name(name);
  n->set_domain(domain);
  for (const std::string& i : inputs) n->add_input(i);
  for (const std::string& o : outputs) n->add_output(o);
  return n;
}

void Writer::add_value_info(onnx::ValueInfoProto* v, int t) {
  v->set_name(names_[static_cast<std::size_t>(t)]);
  onnx::TypeProto_Tensor* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx_data_type(act_type(t)));
  onnx::TensorShapeProto* s = tt->mutable_shape();
  for (std::size_t d : onnx_dims(tensor(t).shape)) s->add_dim()->set_dim_value(static_cast<std::int64_t>(d));
}

std::string Writer::dequantize(const std::string& v, const Affine& a, const std::string& consumer,
                               std::int64_t axis) {
  const std::string out = unique(v + "/dq/" + consumer);
  onnx::NodeProto* n = add_node("DequantizeLinear", out, {v, a.scale, a.zero_point}, {out});
  if (axis >= 0) add_int_attribute(n, "axis", axis);
  return out;
}

void Writer::quantize(const std::string& f, const Affine& a, const std::string& out, const std::string& name) {
  add_node("QuantizeLinear", unique(name + "/quantize"), {f, a.scale, a.zero_point}, {out});
}

bool Writer::clamp_implied(Activation act, int out) const {
  if (act == Activation::kNone) return true;
  if (act != Activation::kRelu && act != Activation::kRelu6) return false;
  const bool u8 = act_type(out) == DType::kUint8;
  const std::int64_t qmin = u8 ? 0 : -128, qmax = u8 ? 255 : 127;
  const std::int64_t zp = act_zero_point(out);
  if (zp != qmin) return false;  // 0.0 quantizes to zp under either rounding: the lower bound is zp
  if (act == Activation::kRelu) return true;
  // 6.0 quantizes to zp + round(6 / scale) (float division; half away from zero for TFLite, half to
  // even for XNNPACK): implied when both roundings reach the type's maximum.
  const float r = 6.0f / tensor(out).quant.scales[0];
  const double lower = std::min(std::floor(static_cast<double>(r) + 0.5), std::nearbyint(static_cast<double>(r)));
  return zp + lower >= static_cast<double>(qmax);
}

std::string Writer::activation_node(Activation act, int out, const std::string& label) const {
  if (clamp_implied(act, out)) return "";
  if (o_.form == OnnxForm::kQLinear || (act != Activation::kRelu && act != Activation::kRelu6)) {
    fail(fmt::format(
        "{}: its fused {} clamps inside the output's quantized range; allowed: activations the output's "
        "quantization implies (zero point at the type's minimum, as the TFLite converter writes){}",
        label, activation_text(act), o_.form == OnnxForm::kQLinear ? ", or --format onnx-qdq (Relu / Clip)" : ""));
  }
  return act == Activation::kRelu ? "Relu" : "Clip6";
}

void Writer::finish_qdq(const std::string& f, const std::string& act, const Affine& a, const std::string& out) {
  std::string v = f;
  if (act == "Relu") {
    v = unique(f + "/relu");
    add_node("Relu", v, {f}, {v});
  } else if (act == "Clip6") {
    v = unique(f + "/clip");
    add_node("Clip", v, {f, scalar_float(f + "/min", 0.0f), scalar_float(f + "/max", 6.0f)}, {v});
  }
  quantize(v, a, out, out);
}

Writer::Weights Writer::conv_weights(const Node& n, const std::string& label, bool depthwise, bool fully_connected,
                                     int x) {
  if (n.inputs.size() < 2 || n.inputs[1] < 0 || !tensor(n.inputs[1]).constant()) {
    fail(fmt::format("{}: its filter is not a constant; allowed: constant filters", label));
  }
  const TensorDef& wd = tensor(n.inputs[1]);
  const Tensor& w = *wd.data;
  if (w.dtype != DType::kInt8 && w.dtype != DType::kUint8) {
    fail(fmt::format("{}: its filter is {}; allowed: int8 or uint8", label, cli::to_string(w.dtype)));
  }
  // ONNX layout [M, C/group, kH, kW] from OHWI (conv), 1HWC (depthwise) or [units, K] (FC).
  const std::vector<std::size_t>& s = w.shape;
  std::size_t m = 0, cpg = 0, kh = 1, kw = 1;
  if (fully_connected) {
    m = s[0];
    cpg = s[1];
  } else if (depthwise) {
    m = s[3];
    cpg = 1;
    kh = s[1];
    kw = s[2];
  } else {
    m = s[0];
    kh = s[1];
    kw = s[2];
    cpg = s[3];
  }
  const std::size_t axis = depthwise ? 3 : 0;
  if (wd.quant.per_axis() && wd.quant.axis != axis) {
    fail(fmt::format("{}: its filter is quantized along axis {}; allowed: the output channels (axis {})", label,
                     wd.quant.axis, axis));
  }
  if (!wd.quant.present()) fail(fmt::format("{}: its filter is not quantized", label));
  Tensor ow = cli::make_tensor(w.dtype, {m, cpg, kh, kw});
  for (std::size_t o = 0; o < m; ++o) {
    for (std::size_t c = 0; c < cpg; ++c) {
      for (std::size_t y = 0; y < kh; ++y) {
        for (std::size_t xx = 0; xx < kw; ++xx) {
          std::size_t src = 0;
          if (fully_connected) {
            src = o * cpg + c;
          } else if (depthwise) {
            src = (y * kw + xx) * m + o;
          } else {
            src = ((o * kh + y) * kw + xx) * cpg + c;
          }
          ow.bytes[((o * cpg + c) * kh + y) * kw + xx] = w.bytes[src];
        }
      }
    }
  }
  Weights r;
  const std::string base = value(n.outputs[0], label);
  const bool per_channel = wd.quant.per_axis();
  const std::size_t count = per_channel ? m : 1;
  Tensor sc = cli::make_tensor(DType::kFloat32, per_channel ? std::vector<std::size_t>{m} : std::vector<std::size_t>{});
  Tensor zp = cli::make_tensor(w.dtype, per_channel ? std::vector<std::size_t>{m} : std::vector<std::size_t>{});
  Tensor bsc = sc;
  const float xs = tensor(x).quant.scales[0];
  for (std::size_t i = 0; i < count; ++i) {
    const float ws = wd.quant.scales[i];
    std::memcpy(sc.bytes.data() + 4 * i, &ws, 4);
    const float bs = xs * ws;  // float32, as the reader and ONNX Runtime's quantizer compute it
    std::memcpy(bsc.bytes.data() + 4 * i, &bs, 4);
    zp.set_integer(i, wd.quant.zero_point(i));
  }
  r.w = add_initializer(base + "/weights", ow);
  r.w_scale = add_initializer(base + "/weights/scale", sc);
  r.w_zero_point = add_initializer(base + "/weights/zero_point", zp);
  if (n.inputs.size() > 2 && n.inputs[2] >= 0) {
    const TensorDef& bd = tensor(n.inputs[2]);
    if (!bd.constant() || bd.dtype != DType::kInt32 || bd.data->elements() != m) {
      fail(fmt::format("{}: its bias is not an int32 constant of {} values; allowed: that", label, m));
    }
    Tensor b = *bd.data;
    b.shape = {m};
    r.bias = add_initializer(base + "/bias", b);
    r.bias_scale = add_initializer(base + "/bias/scale", bsc);
    r.bias_zero_point = add_initializer(base + "/bias/zero_point",
                                        cli::make_tensor(DType::kInt32, per_channel ? std::vector<std::size_t>{m}
                                                                                    : std::vector<std::size_t>{}));
  }
  return r;
}

void Writer::write_conv(const Node& n, const std::string& label) {
  const bool depthwise = n.op == OpKind::kDepthwiseConv2D;
  const Window2D& win = depthwise ? n.opts<DepthwiseConv2DOptions>().window : n.opts<Conv2DOptions>().window;
  const Activation act = depthwise ? n.opts<DepthwiseConv2DOptions>().activation : n.opts<Conv2DOptions>().activation;
  const int x = n.inputs[0], y = n.outputs[0];
  const std::string act_op = activation_node(act, y, label);
  const std::vector<std::size_t>& xs = tensor(x).shape;  // N, H, W, C
  if (xs.size() != 4) fail(fmt::format("{}: its input is not 4-D", label));
  const Weights w = conv_weights(n, label, depthwise, false, x);
  const std::vector<std::size_t>& fs = tensor(n.inputs[1]).shape;
  const std::size_t kh = fs[1], kw = fs[2];
  const std::size_t group = depthwise ? xs[3] : xs[3] / fs[3];
  // Explicit pads, TensorFlow's SAME split (the odd pixel at the bottom / right).
  auto same = [](std::size_t in, std::size_t k, std::size_t s, std::size_t d, std::int64_t* lo, std::int64_t* hi) {
    const std::size_t out = (in + s - 1) / s;
    const std::size_t need = (out - 1) * s + (k - 1) * d + 1;
    const std::size_t total = need > in ? need - in : 0;
    *lo = static_cast<std::int64_t>(total / 2);
    *hi = static_cast<std::int64_t>(total - total / 2);
  };
  std::int64_t top = 0, bottom = 0, left = 0, right = 0;
  if (win.padding == Padding::kSame) {
    same(xs[1], kh, win.stride_h, win.dilation_h, &top, &bottom);
    same(xs[2], kw, win.stride_w, win.dilation_w, &left, &right);
  } else if (win.padding == Padding::kExplicit) {
    top = static_cast<std::int64_t>(win.pad_top);
    bottom = static_cast<std::int64_t>(win.pad_bottom);
    left = static_cast<std::int64_t>(win.pad_left);
    right = static_cast<std::int64_t>(win.pad_right);
  }
  const std::string out = value(y, label);
  auto attributes = [&](onnx::NodeProto* c) {
    add_ints_attribute(c, "kernel_shape", {static_cast<std::int64_t>(kh), static_cast<std::int64_t>(kw)});
    add_ints_attribute(c, "strides", {static_cast<std::int64_t>(win.stride_h), static_cast<std::int64_t>(win.stride_w)});
    add_ints_attribute(c, "dilations", {static_cast<std::int64_t>(win.dilation_h), static_cast<std::int64_t>(win.dilation_w)});
    add_ints_attribute(c, "pads", {top, left, bottom, right});
    add_int_attribute(c, "group", static_cast<std::int64_t>(group));
  };
  const Affine xa = affine(x, label), ya = affine(y, label);
  if (o_.form == OnnxForm::kQLinear) {
    std::vector<std::string> in = {value(x, label), xa.scale, xa.zero_point, w.w,         w.w_scale,
                                   w.w_zero_point,  ya.scale, ya.zero_point};
    if (!w.bias.empty()) in.push_back(w.bias);
    attributes(add_node("QLinearConv", n.name, in, {out}));
    return;
  }
  std::vector<std::string> in = {dequantize(value(x, label), xa, out),
                                 dequantize(w.w, {w.w_scale, w.w_zero_point}, out, 0)};
  if (!w.bias.empty()) in.push_back(dequantize(w.bias, {w.bias_scale, w.bias_zero_point}, out, 0));
  const std::string f = unique(out + "/float");
  attributes(add_node("Conv", n.name, in, {f}));
  finish_qdq(f, act_op, ya, out);
}

// FULLY_CONNECTED as a 1x1 convolution of [N, K, 1, 1], reshaped in and out: QLinearMatMul has no
// bias, and ONNX Runtime's float Gemm with one row of A (the unfused QDQ form at level disabled)
// runs a single-row kernel whose summation order qparity does not reproduce (§22.5), while its
// float 1x1 Conv is reproduced.
void Writer::write_fully_connected(const Node& n, const std::string& label) {
  const auto& o = n.opts<FullyConnectedOptions>();
  const int x = n.inputs[0], y = n.outputs[0];
  const std::vector<std::size_t>& xs = tensor(x).shape;
  const std::vector<std::size_t>& ws = tensor(n.inputs[1]).shape;
  if (xs.size() != 2 || ws.size() != 2 || xs[1] != ws[1]) {
    fail(fmt::format("{}: input {} with filter {}; allowed: a 2-D input [N, K] and a filter [units, K]", label,
                     cli::shape_text(xs), cli::shape_text(ws)));
  }
  const std::string act_op = activation_node(o.activation, y, label);
  const Weights w = conv_weights(n, label, false, true, x);
  const std::string out = value(y, label);
  const Affine xa = affine(x, label), ya = affine(y, label);
  auto shape = [&](const std::string& want, std::vector<std::size_t> dims) {
    Tensor t = cli::make_tensor(DType::kInt64, {dims.size()});
    for (std::size_t i = 0; i < dims.size(); ++i) t.set_integer(i, static_cast<std::int64_t>(dims[i]));
    return add_initializer(want, t);
  };
  // A reshape of a quantized value (QDQ form: DequantizeLinear -> Reshape -> QuantizeLinear, one
  // quantization on both sides).
  auto reshape = [&](const std::string& from, const Affine& a, const std::string& to, std::vector<std::size_t> dims) {
    const std::string s = shape(to + "/shape", std::move(dims));
    if (o_.form == OnnxForm::kQLinear) {
      add_node("Reshape", unique(to + "/reshape"), {from, s}, {to});
      return;
    }
    const std::string f = unique(to + "/float");
    add_node("Reshape", unique(to + "/reshape"), {dequantize(from, a, to), s}, {f});
    quantize(f, a, to, to);
  };
  const std::string in4 = unique(out + "/input_nchw");
  reshape(value(x, label), xa, in4, {xs[0], xs[1], 1, 1});
  const std::string out4 = unique(out + "/nchw");
  if (o_.form == OnnxForm::kQLinear) {
    std::vector<std::string> in = {in4, xa.scale, xa.zero_point, w.w, w.w_scale, w.w_zero_point, ya.scale,
                                   ya.zero_point};
    if (!w.bias.empty()) in.push_back(w.bias);
    add_ints_attribute(add_node("QLinearConv", n.name, in, {out4}), "kernel_shape", {1, 1});
  } else {
    std::vector<std::string> in = {dequantize(in4, xa, out4), dequantize(w.w, {w.w_scale, w.w_zero_point}, out4, 0)};
    if (!w.bias.empty()) in.push_back(dequantize(w.bias, {w.bias_scale, w.bias_zero_point}, out4, 0));
    const std::string f = unique(out4 + "/float");
    add_ints_attribute(add_node("Conv", n.name, in, {f}), "kernel_shape", {1, 1});
    finish_qdq(f, act_op, ya, out4);
  }
  reshape(out4, ya, out, {xs[0], ws[0]});
}

void Writer::write_add(const Node& n, const std::string& label) {
  const int a = n.inputs[0], b = n.inputs[1], y = n.outputs[0];
  const Activation act = n.options ? n.opts<ElementwiseOptions>().activation : Activation::kNone;
  if (tensor(a).shape != tensor(b).shape) {
    fail(fmt::format("{}: inputs of shapes {} and {}; allowed: one shape (no broadcasting)", label,
                     cli::shape_text(tensor(a).shape), cli::shape_text(tensor(b).shape)));
  }
  const std::string act_op = activation_node(act, y, label);
  const Affine aa = affine(a, label), ba = affine(b, label), ya = affine(y, label);
  const std::string out = value(y, label);
  if (o_.form == OnnxForm::kQLinear) {
    add_node("QLinearAdd", n.name,
             {value(a, label), aa.scale, aa.zero_point, value(b, label), ba.scale, ba.zero_point, ya.scale,
              ya.zero_point},
             {out}, kMicrosoft);
    return;
  }
  const std::string f = unique(out + "/float");
  add_node("Add", n.name, {dequantize(value(a, label), aa, out), dequantize(value(b, label), ba, out)}, {f});
  finish_qdq(f, act_op, ya, out);
}

void Writer::write_mean(const Node& n, const std::string& label) {
  const int x = n.inputs[0], y = n.outputs[0];
  const std::vector<std::size_t>& xs = tensor(x).shape;
  bool hw = xs.size() == 4 && n.inputs.size() == 2 && n.inputs[1] >= 0 && tensor(n.inputs[1]).constant();
  if (hw) {
    std::set<std::int64_t> axes;
    const Tensor& at = *tensor(n.inputs[1]).data;
    for (std::size_t i = 0; i < at.elements(); ++i) axes.insert(at.integer_at(i) < 0 ? at.integer_at(i) + 4 : at.integer_at(i));
    hw = axes == std::set<std::int64_t>{1, 2};
  }
  if (!hw) fail(fmt::format("{}: a MEAN other than over H and W of a 4-D tensor; {}", label, kAllowed));
  const bool keep = n.opts<ReducerOptions>().keep_dims;
  const Affine xa = affine(x, label), ya = affine(y, label);
  const std::string out = value(y, label);
  // keep_dims false: [N, C] is the pooled [N, C, 1, 1] flattened.
  const std::string pooled = keep ? out : unique(out + "/pooled");
  if (o_.form == OnnxForm::kQLinear) {
    add_node("QLinearGlobalAveragePool", n.name, {value(x, label), xa.scale, xa.zero_point, ya.scale, ya.zero_point},
             {pooled}, kMicrosoft);
    if (!keep) add_node("Flatten", unique(out + "/flatten"), {pooled}, {out});
    return;
  }
  const std::string f = unique(pooled + "/float");
  add_node("GlobalAveragePool", n.name, {dequantize(value(x, label), xa, out)}, {f});
  quantize(f, ya, pooled, pooled);
  if (keep) return;
  const std::string ff = unique(out + "/flat_float");
  add_node("Flatten", unique(out + "/flatten"), {dequantize(pooled, ya, out)}, {ff});
  quantize(ff, ya, out, out);
}

void Writer::write_max_pool(const Node& n, const std::string& label) {
  const auto& o = n.opts<Pool2DOptions>();
  const int x = n.inputs[0], y = n.outputs[0];
  if (o_.form == OnnxForm::kQLinear) {
    fail(fmt::format("{}: the operator form has no int8 MaxPool that qparity reads back; allowed there: {}; or "
                     "--format onnx-qdq",
                     label, "CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, ADD, MEAN"));
  }
  const TensorDef &xd = tensor(x), &yd = tensor(y);
  if (xd.quant.scales != yd.quant.scales || xd.quant.zero_point() != yd.quant.zero_point()) {
    fail(fmt::format("{}: input and output quantized differently; allowed: one scale and zero point", label));
  }
  if (!clamp_implied(o.activation, y)) {
    fail(fmt::format("{}: its fused {} clamps inside the output's range; allowed: none", label,
                     activation_text(o.activation)));
  }
  const Affine xa = affine(x, label), ya = affine(y, label);
  const std::string out = value(y, label);
  const std::string f = unique(out + "/float");
  onnx::NodeProto* p = add_node("MaxPool", n.name, {dequantize(value(x, label), xa, out)}, {f});
  add_ints_attribute(p, "kernel_shape",
           {static_cast<std::int64_t>(o.window.filter_h), static_cast<std::int64_t>(o.window.filter_w)});
  add_ints_attribute(p, "strides", {static_cast<std::int64_t>(o.window.stride_h), static_cast<std::int64_t>(o.window.stride_w)});
  if (o.window.padding == Padding::kExplicit) {
    add_ints_attribute(p, "pads",
                       {static_cast<std::int64_t>(o.window.pad_top), static_cast<std::int64_t>(o.window.pad_left),
                        static_cast<std::int64_t>(o.window.pad_bottom), static_cast<std::int64_t>(o.window.pad_right)});
  } else {
    add_string_attribute(p, "auto_pad", o.window.padding == Padding::kSame ? "SAME_UPPER" : "VALID");
  }
  quantize(f, ya, out, out);
}

// RESIZE_BILINEAR as Resize (mode linear, `sizes` [N, C, H, W]) with the coordinate mode its options
// name (align_corners, half_pixel, else asymmetric), and a RESIZE_NEAREST_NEIGHBOR carrying ONNX's
// rule as Resize in mode nearest with that rule (TFLite's nearest rules have no ONNX form): on the
// 8-bit value itself in the operator form, between DequantizeLinear and QuantizeLinear in the QDQ
// form. The reader reads either back as the same node; ONNX Runtime computes either as qparity's
// ort-cpu* profiles do (docs/semantics.md §21.9).
void Writer::write_resize(const Node& n, const std::string& label) {
  const auto& o = n.opts<ResizeOptions>();
  const bool nearest = n.op == OpKind::kResizeNearestNeighbor;
  if (nearest && !o.onnx_nearest) {
    fail(fmt::format("{}: RESIZE_NEAREST_NEIGHBOR with TFLite's index rule ({}) has no ONNX Resize that computes it; "
                     "{}", label, o.describe(), kAllowed));
  }
  const int x = n.inputs[0], y = n.outputs[0];
  const std::vector<std::size_t>& s = tensor(y).shape;  // NHWC
  Tensor sizes = cli::make_tensor(DType::kInt64, {4});
  const std::size_t nchw[4] = {s[0], s[3], s[1], s[2]};
  for (std::size_t d = 0; d < 4; ++d) sizes.set_integer(d, static_cast<std::int64_t>(nchw[d]));
  const std::string out = value(y, label);
  const std::string in = value(x, label);
  const std::string sz = add_initializer(out + "/sizes", sizes);
  const char* ctm = nearest              ? to_string(o.onnx_nearest->coordinates)
                    : o.align_corners      ? "align_corners"
                    : o.half_pixel_centers ? "half_pixel"
                                           : "asymmetric";
  onnx::NodeProto* p = nullptr;
  std::string f;
  if (o_.form == OnnxForm::kQLinear) {
    p = add_node("Resize", n.name, {in, "", "", sz}, {out});
  } else {
    const Affine xa = affine(x, label);
    f = unique(out + "/float");
    p = add_node("Resize", n.name, {dequantize(in, xa, out), "", "", sz}, {f});
  }
  add_string_attribute(p, "mode", nearest ? "nearest" : "linear");
  add_string_attribute(p, "coordinate_transformation_mode", ctm);
  if (nearest) add_string_attribute(p, "nearest_mode", to_string(o.onnx_nearest->nearest));
  if (o_.form == OnnxForm::kQdq) quantize(f, affine(y, label), out, out);
}

onnx::ModelProto Writer::write() {
  if (o_.activations != DType::kInt8 && o_.activations != DType::kUint8) {
    fail("activation type; allowed: int8 or uint8");
  }
  model_.set_ir_version(kIrVersion);
  model_.set_producer_name(o_.producer);
  onnx::OperatorSetIdProto* d = model_.add_opset_import();
  d->set_domain("");
  d->set_version(kOpset);
  onnx::OperatorSetIdProto* ms = model_.add_opset_import();
  ms->set_domain(kMicrosoft);
  ms->set_version(1);
  graph_ = model_.mutable_graph();
  graph_->set_name(g_.source.empty() ? "qparity" : g_.source);
  for (int t : g_.inputs) {
    value(t, fmt::format("graph input {}", g_.tensor_label(t)));
    add_value_info(graph_->add_input(), t);
  }
  for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
    const Node& n = g_.nodes[i];
    const std::string label = g_.node_label(i);
    switch (n.op) {
      case OpKind::kConv2D:
      case OpKind::kDepthwiseConv2D:
        write_conv(n, label);
        break;
      case OpKind::kFullyConnected:
        write_fully_connected(n, label);
        break;
      case OpKind::kAdd:
        write_add(n, label);
        break;
      case OpKind::kMean:
        write_mean(n, label);
        break;
      case OpKind::kMaxPool2D:
        write_max_pool(n, label);
        break;
      case OpKind::kResizeBilinear:
      case OpKind::kResizeNearestNeighbor:
        write_resize(n, label);
        break;
      default:
        fail(fmt::format("{}: {} has no ONNX form in qparity's writer; {}", label, to_string(n.op), kAllowed));
    }
  }
  for (int t : g_.outputs) {
    value(t, fmt::format("graph output {}", g_.tensor_label(t)));
    add_value_info(graph_->add_output(), t);
  }
  return std::move(model_);
}

}  // namespace

const char* onnx_form_name(OnnxForm form) { return form == OnnxForm::kQLinear ? "onnx-qlinear" : "onnx-qdq"; }

std::vector<std::uint8_t> write_onnx(const Graph& graph, const OnnxWriteOptions& options) {
  const onnx::ModelProto model = Writer(graph, options).write();
  const std::size_t size = model.ByteSizeLong();
  if (size > static_cast<std::size_t>(INT_MAX)) {
    throw ToolError(fmt::format("{}: the ONNX model would have {} bytes; allowed: less than 2 GiB (protobuf's limit)",
                                graph.source, size));
  }
  std::vector<std::uint8_t> bytes(size);
  if (size > 0 && !model.SerializeToArray(bytes.data(), static_cast<int>(size))) {
    throw ToolError(fmt::format("{}: protobuf could not serialize the ONNX model", graph.source));
  }
  return bytes;
}

}  // namespace qparity::model
