// Compares LiteRT.js's outputs for one-op models (make_models.py collect -> observed.txt) with
// every variant of include/qparity/reference/{quantize,activation,pooling,mean,softmax}.h.
//
//   compare_ops observed.txt [--cases]
//
// observed.txt: one model a line,
//   NAME PATH OP T_IN T_OUT S_IN ZP_IN S_OUT ZP_OUT key=value... | inputs... | observed outputs...
// (inputs: stored integers, or floats for OP f2q; outputs: stored integers, or floats for OP dq).
// Prints, per (op, path, variant), the elements compared and the mismatches; --cases adds one line
// per model and variant. Exit status 1 if the variant expected for a path (the EXPECT table below)
// misses an element, 2 on a malformed line.
//
// Build: g++ -std=c++17 -O2 -I include tests/oracles/js/ops/compare_ops.cc
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "qparity/reference/activation.h"
#include "qparity/reference/mean.h"
#include "qparity/reference/pooling.h"
#include "qparity/reference/quantize.h"
#if __has_include("qparity/reference/softmax.h")
#include "qparity/reference/softmax.h"
#define QPARITY_HAVE_SOFTMAX 1
#endif

using namespace qparity;
using namespace qparity::reference;

namespace {

struct Case {
  std::string name, path, op, t_in, t_out;
  TensorQuant in, out;
  std::map<std::string, std::string> kv;
  std::vector<double> inputs, observed;
};

std::vector<std::size_t> dims_of(const std::string& s) {
  std::vector<std::size_t> d;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, 'x')) d.push_back(std::stoul(t));
  return d;
}

std::vector<int> ints_of(const std::string& s, char sep) {
  std::vector<int> d;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, sep)) d.push_back(std::stoi(t));
  return d;
}

bool parse(const std::string& line, Case* c) {
  const auto p1 = line.find(" | ");
  const auto p2 = line.find(" | ", p1 + 3);
  if (p1 == std::string::npos || p2 == std::string::npos) return false;
  std::stringstream head(line.substr(0, p1));
  head >> c->name >> c->path >> c->op >> c->t_in >> c->t_out >> c->in.scale >> c->in.zero_point >>
      c->out.scale >> c->out.zero_point;
  std::string kv;
  while (head >> kv) {
    const auto e = kv.find('=');
    if (e != std::string::npos) c->kv[kv.substr(0, e)] = kv.substr(e + 1);
  }
  std::stringstream a(line.substr(p1 + 3, p2 - p1 - 3)), b(line.substr(p2 + 3));
  double v;
  // Values are printed with 9 significant digits: each names one float32, to which it is rounded
  // back (integers are unaffected).
  while (a >> v) c->inputs.push_back(static_cast<float>(v));
  while (b >> v) c->observed.push_back(static_cast<float>(v));
  return !head.bad();
}

template <class T>
std::vector<T> as(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}
template <class T>
std::vector<double> back(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

Activation act_of(const Case& c) {
  const std::string a = c.kv.count("act") ? c.kv.at("act") : "NONE";
  return a == "RELU" ? Activation::kRelu : a == "RELU6" ? Activation::kRelu6 : Activation::kNone;
}

PoolWindow window_of(const Case& c) {
  PoolWindow w;
  const auto f = dims_of(c.kv.at("filter"));
  const auto s = dims_of(c.kv.at("stride"));
  w.filter_h = f[0];
  w.filter_w = f[1];
  w.stride_h = s[0];
  w.stride_w = s[1];
  w.padding = c.kv.at("padding") == "SAME" ? Padding::kSame : Padding::kValid;
  return w;
}

Shape4 shape4(const Case& c) {
  const auto d = dims_of(c.kv.at("shape"));
  return Shape4{d[0], d[1], d[2], d[3]};
}

using Variant = std::pair<std::string, std::function<std::vector<double>()>>;

// The variants that apply to case c, for element type T (int8 / uint8 by the case's types).
template <class T, class TOut = T>
std::vector<Variant> variants(const Case& c) {
  std::vector<Variant> v;
  const NpuHypothesis npu{};  // npu-he-q15 (the VeriSilicon hypothesis)
  if (c.op == "f2q") {
    const auto x = as<float>(c.inputs);
    for (auto [n, q] : {std::pair{"tflite-float-div", QuantizeFloatVariant::kTfliteFloatDivide},
                        std::pair{"tflite-double-div", QuantizeFloatVariant::kTfliteDoubleDivide},
                        std::pair{"xnnpack", QuantizeFloatVariant::kXnnpack},
                        std::pair{"float32-div-rne", QuantizeFloatVariant::kFloat32DivideHalfEven}}) {
      v.push_back({n, [=] { return back(quantize<TOut>(x, c.out, q)); }});
    }
  } else if (c.op == "dq") {
    v.push_back({"all", [=] { return back(dequantize<T>(as<T>(c.inputs), c.in)); }});
  } else if (c.op == "rq") {
    const auto x = as<T>(c.inputs);
    for (auto [n, q] : {std::pair{"tflite-double", RequantizeVariant::kTfliteDoubleRounding},
                        std::pair{"tflite-single", RequantizeVariant::kTfliteSingleRounding},
                        std::pair{"xnnpack", RequantizeVariant::kXnnpack},
                        std::pair{"npu-he-q15", RequantizeVariant::kNpuSingleRounding},
                        std::pair{"float32", RequantizeVariant::kFloat32}}) {
      try {
        const auto p = make_requantize_params<T, TOut>(c.in, c.out, q, npu);
        v.push_back({n, [=] { return back(requantize<T, TOut>(x, p)); }});
      } catch (const InvalidArgument&) {
      }
    }
  } else if (c.op == "relu" || c.op == "relu6") {
    const auto x = as<T>(c.inputs);
    const ReluKind k = c.op == "relu" ? ReluKind::kRelu : ReluKind::kRelu6;
    for (auto [n, q] : {std::pair{"tflite-double", ReluVariant::kTfliteDoubleRounding},
                        std::pair{"tflite-single", ReluVariant::kTfliteSingleRounding},
                        std::pair{"tflm", ReluVariant::kTflm}, std::pair{"xnnpack-clamp", ReluVariant::kXnnpackClamp},
                        std::pair{"npu-he-q15", ReluVariant::kNpuSingleRounding}, std::pair{"float32", ReluVariant::kFloat32}}) {
      try {
        const auto p = make_relu_params<T>(k, c.in, c.out, q, npu);
        v.push_back({n, [=] { return back(relu<T>(x, p)); }});
      } catch (const InvalidArgument&) {
      }
    }
  } else if (c.op == "avgpool") {
    const auto x = as<T>(c.inputs);
    for (auto [n, q] : {std::pair{"tflite", AveragePoolVariant::kTflite}, std::pair{"npu-he-q15", AveragePoolVariant::kNpuSingleRounding},
                        std::pair{"float32", AveragePoolVariant::kFloat32}}) {
      v.push_back({n, [=] { return back(average_pool<T>(x, shape4(c), window_of(c), c.in, c.out, act_of(c), q, npu)); }});
    }
  } else if (c.op == "maxpool") {
    const auto x = as<T>(c.inputs);
    for (auto [n, q] : {std::pair{"tflite", MaxPoolVariant::kTflite}, std::pair{"xnnpack", MaxPoolVariant::kXnnpack}}) {
      v.push_back({n, [=] { return back(max_pool<T>(x, shape4(c), window_of(c), c.out, act_of(c), q)); }});
    }
  } else if (c.op == "mean") {
    const auto x = as<T>(c.inputs);
    MeanSpec spec;
    spec.axes = ints_of(c.kv.at("axes"), ',');
    spec.keep_dims = c.kv.at("keep") == "1";
    const auto dims = dims_of(c.kv.at("shape"));
    for (auto [n, q, b] : {std::tuple{"tflite-opt-hw", MeanVariant::kTfliteOptimizedHW, TfliteBuild::kDoubleRounding},
                           std::tuple{"tflite-opt-hw-single", MeanVariant::kTfliteOptimizedHW, TfliteBuild::kSingleRounding},
                           std::tuple{"tflite-opt-hw-neon", MeanVariant::kTfliteOptimizedHWNeon, TfliteBuild::kDoubleRounding},
                           std::tuple{"tflite-reference", MeanVariant::kTfliteReference, TfliteBuild::kDoubleRounding},
                           std::tuple{"tflite-reference-single", MeanVariant::kTfliteReference, TfliteBuild::kSingleRounding},
                           std::tuple{"tflm-hw", MeanVariant::kTflmHW, TfliteBuild::kDoubleRounding},
                           std::tuple{"tflm-same-quant-trunc", MeanVariant::kTflmSameQuantTruncate, TfliteBuild::kDoubleRounding},
                           std::tuple{"xnnpack", MeanVariant::kXnnpack, TfliteBuild::kDoubleRounding},
                           std::tuple{"npu-he-q15", MeanVariant::kNpuSingleRounding, TfliteBuild::kDoubleRounding},
                           std::tuple{"float32", MeanVariant::kFloat32, TfliteBuild::kDoubleRounding}}) {
      try {
        (void)mean<T>(x, dims, spec, c.in, c.out, q, b, npu);
        v.push_back({n, [=] { return back(mean<T>(x, dims, spec, c.in, c.out, q, b, npu)); }});
      } catch (const InvalidArgument&) {
      }
    }
#ifdef QPARITY_HAVE_SOFTMAX
  } else if (c.op == "softmax") {
    const auto x = as<T>(c.inputs);
    const auto dims = dims_of(c.kv.at("shape"));
    const float beta = c.kv.count("beta") ? std::stof(c.kv.at("beta")) : 1.0f;
    for (auto [n, q] : {std::pair{"tflite-reference", SoftmaxVariant::kTfliteReference},
                        std::pair{"tflite-reference-single", SoftmaxVariant::kTfliteReferenceSingleRounding},
                        std::pair{"tflite-optimized-float-lut", SoftmaxVariant::kTfliteOptimizedFloatTable},
                        std::pair{"tflite-optimized-uint16-lut", SoftmaxVariant::kTfliteOptimizedUint16Table},
                        std::pair{"float32", SoftmaxVariant::kFloat32}}) {
      try {
        (void)softmax<T, TOut>(x, dims.back(), c.in, c.out, beta, q);
        v.push_back({n, [=] { return back(softmax<T, TOut>(x, dims.back(), c.in, c.out, beta, q)); }});
      } catch (const InvalidArgument&) {
      }
    }
#endif
  }
  return v;
}

std::vector<Variant> variants_for(const Case& c) {
  const std::string ti = c.op == "f2q" ? c.t_out : c.t_in;
  const std::string to = c.op == "dq" ? c.t_in : c.t_out;
  if (ti == "int8" && to == "int8") return variants<std::int8_t, std::int8_t>(c);
  if (ti == "int8" && to == "uint8") return variants<std::int8_t, std::uint8_t>(c);
  if (ti == "uint8" && to == "int8") return variants<std::uint8_t, std::int8_t>(c);
  return variants<std::uint8_t, std::uint8_t>(c);
}

// The variant each (op, path) is expected to match exactly (docs/semantics.md §21).
const std::map<std::string, std::string> kExpect = {
    {"f2q/xnnpack", "xnnpack"},          {"f2q/tflite", "tflite-double-div"},
    {"dq/xnnpack", "all"},               {"dq/tflite", "all"},
    {"rq/xnnpack", "xnnpack"},           {"rq/tflite", "tflite-double"},
    {"relu/xnnpack", "tflite-double"},   {"relu/tflite", "tflite-double"},
    {"relu6/xnnpack", "tflite-double"},  {"relu6/tflite", "tflite-double"},
    {"avgpool/xnnpack", "tflite"},       {"avgpool/tflite", "tflite"},
    {"maxpool/xnnpack", "xnnpack"},      {"maxpool/tflite", "tflite"},
    {"mean/xnnpack", "xnnpack"},         {"mean/tflite", "tflite-opt-hw|tflite-reference"},
    {"softmax/xnnpack", "tflite-optimized-float-lut"}, {"softmax/tflite", "tflite-optimized-float-lut"},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: compare_ops observed.txt [--cases]\n");
    return 2;
  }
  const bool per_case = argc > 2 && std::string(argv[2]) == "--cases";
  std::ifstream f(argv[1]);
  std::string line;
  struct Tally { long elements = 0, mismatches = 0, models = 0, models_exact = 0; };
  std::map<std::string, Tally> table;  // "op path variant"
  std::map<std::string, Tally> expected;  // "op/path" -> tally of the expected variant
  int status = 0;
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    Case c;
    if (!parse(line, &c)) {
      std::fprintf(stderr, "malformed line: %.80s\n", line.c_str());
      return 2;
    }
    const std::string key = c.op + "/" + c.path;
    const std::string want = kExpect.count(key) ? kExpect.at(key) : "";
    bool expected_ok = false, expected_seen = false;
    for (const auto& [name, fn] : variants_for(c)) {
      std::vector<double> got;
      try {
        got = fn();
      } catch (const InvalidArgument& e) {
        continue;
      }
      long mism = 0;
      if (got.size() != c.observed.size()) {
        mism = static_cast<long>(c.observed.size());
      } else {
        for (std::size_t i = 0; i < got.size(); ++i) mism += got[i] != c.observed[i];
      }
      Tally& t = table[c.op + " " + c.path + " " + name];
      t.elements += static_cast<long>(c.observed.size());
      t.mismatches += mism;
      t.models += 1;
      t.models_exact += mism == 0;
      if (per_case) std::printf("%-70s %-8s %-28s %6zu %6ld\n", c.name.c_str(), c.path.c_str(), name.c_str(), c.observed.size(), mism);
      if (("|" + want + "|").find("|" + name + "|") != std::string::npos) {
        expected_seen = true;
        expected_ok = expected_ok || mism == 0;
      }
    }
    if (!want.empty()) {
      Tally& e = expected[key];
      e.models += 1;
      e.elements += static_cast<long>(c.observed.size());
      e.models_exact += expected_ok;
      if (!expected_ok) {
        std::printf("EXPECTED VARIANT MISSES: %s %s (want %s%s)\n", c.name.c_str(), c.path.c_str(), want.c_str(),
                    expected_seen ? "" : ", not applicable");
        status = 1;
      }
    }
  }
  std::printf("\n%-10s %-8s %-28s %8s %8s %10s %10s\n", "op", "path", "variant", "models", "exact", "elements", "mismatches");
  for (const auto& [k, t] : table) {
    std::stringstream ss(k);
    std::string op, path, name;
    ss >> op >> path >> name;
    std::printf("%-10s %-8s %-28s %8ld %8ld %10ld %10ld\n", op.c_str(), path.c_str(), name.c_str(), t.models, t.models_exact,
                t.elements, t.mismatches);
  }
  std::printf("\nexpected variant per op/path (exact models / models):\n");
  long pass = 0, fail = 0;
  for (const auto& [k, t] : expected) {
    std::printf("  %-16s %-40s %ld / %ld\n", k.c_str(), kExpect.at(k).c_str(), t.models_exact, t.models);
    pass += t.models_exact;
    fail += t.models - t.models_exact;
  }
  std::printf("%ld passed, %ld failed\n", pass, fail);
  return status;
}
