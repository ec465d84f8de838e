// ONNX Runtime's table activations (docs/semantics.md §22.7) and QLinearSoftmax (§22.8) in the real ONNX Runtime (npm
// onnxruntime-node, CPU execution provider, one thread) against qparity's reader and runner:
// com.microsoft QLinearSigmoid / QLinearLeakyRelu and the QDQ groups DequantizeLinear -> Sigmoid /
// LeakyRelu -> QuantizeLinear, int8 and uint8, per tensor, each input holding all 256 values (the
// whole table), at level `all` under ort-cpu and at level `disabled` under ort-cpu-unfused.
//
// Contrasts show the comparison can fail: plausible wrong arithmetics (the logistic through
// std::exp, MLAS's portable kernel without fused multiply-adds, quantization rounding half away
// from zero) are computed here, per element, and quantizations that part each from ORT's table
// are searched for in the reference; ORT must then disagree with the contrast on those models.
// Label oracle; fails (never skips) without node or the npm package.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

#include "model/node_map.h"
#include "model/onnx/onnx_reader.h"
#include "model/runner.h"
#include "onnx_lookup_models.h"
#include "onnx_test_support.h"
#include "oracle_tally.h"
#include "ort_runner.h"
#include "qparity/reference/ort_lookup_table.h"
#include "tool_error.h"

namespace qparity_test {
namespace {

using qparity::cli::DType;
using qparity::cli::Tensor;
namespace ref = qparity::reference;

constexpr DType kS8 = DType::kInt8;
constexpr DType kU8 = DType::kUint8;

// A wrong arithmetic: the float function and the quantization of one element.
struct Contrast {
  std::string name;
  std::function<float(float v, float alpha, bool sigmoid)> f;
  std::function<std::int64_t(float y, float scale, std::int64_t zp, DType t)> quantize;
};

std::int64_t quantize_half_even(float y, float scale, std::int64_t zp, DType t) {
  return t == kS8 ? ref::ort_quantize_linear<std::int8_t>(y, scale, static_cast<std::int32_t>(zp))
                  : ref::ort_quantize_linear<std::uint8_t>(y, scale, static_cast<std::int32_t>(zp));
}

float ort_function(float v, float alpha, bool sigmoid) {
  return sigmoid ? ref::mlas_logistic_fma3(v) : ref::ort_leaky_relu(v, alpha);
}

// MLAS's portable logistic kernel (MlasLogisticKernel: separate multiplies and adds, clamp to
// [0, 1]); the build has -ffp-contract=off, so each operation rounds.
float mlas_logistic_portable(float x) {
  float v = x < -18.0f ? -18.0f : x;
  v = v > 18.0f ? 18.0f : v;
  const float s = v * v;
  float p = s * 4.37031012579801e-11f + 1.15627324459942e-07f;
  p = p * s + 6.08574864600143e-05f;
  p = p * s + 8.51377133304701e-03f;
  p = p * s + 2.48287947061529e-01f;
  p = p * v;
  float q = s * 6.10247389755681e-13f + 5.76102136993427e-09f;
  q = q * s + 6.29106785017040e-06f;
  q = q * s + 1.70198817374094e-03f;
  q = q * s + 1.16817656904453e-01f;
  q = q * s + 9.93151921023180e-01f;
  const float y = p / q + 0.5f;
  return y < 0.0f ? 0.0f : (y > 1.0f ? 1.0f : y);
}

const std::vector<Contrast>& contrasts() {
  static const std::vector<Contrast> c = {
      {"logistic 1 / (1 + std::exp(-v))",
       [](float v, float alpha, bool sigmoid) {
         return sigmoid ? 1.0f / (1.0f + std::exp(-v)) : ref::ort_leaky_relu(v, alpha);
       },
       quantize_half_even},
      {"MLAS portable logistic (no FMA)",
       [](float v, float alpha, bool sigmoid) {
         return sigmoid ? mlas_logistic_portable(v) : ref::ort_leaky_relu(v, alpha);
       },
       quantize_half_even},
      {"quantize rounding half away from zero", ort_function,
       [](float y, float scale, std::int64_t zp, DType t) {
         const float v = std::round(y / scale);
         const std::int64_t lo = t == kS8 ? -128 : 0, hi = t == kS8 ? 127 : 255;
         const std::int64_t q = static_cast<std::int64_t>(v) + zp;
         return q < lo ? lo : (q > hi ? hi : q);
       }},
  };
  return c;
}

// The contrast's output for the model's input.
Tensor contrast_output(const LookupSpec& s, const Tensor& x, const Contrast& c) {
  Tensor y = qparity::cli::make_tensor(s.type, x.shape);
  for (std::size_t i = 0; i < x.elements(); ++i) {
    const float v = s.x_scale * static_cast<float>(x.integer_at(i) - s.x_zp);
    y.set_integer(i, c.quantize(c.f(v, s.alpha, s.sigmoid), s.y_scale, s.y_zp, s.type));
  }
  return y;
}

// Whether the contrast differs from ORT's table on some entry (every 8-bit value).
bool parts(const LookupSpec& s, const Contrast& c) {
  for (int i = 0; i < 256; ++i) {
    const std::int64_t x = s.type == kS8 ? static_cast<std::int8_t>(i) : i;
    const float v = s.x_scale * static_cast<float>(x - s.x_zp);
    if (c.quantize(c.f(v, s.alpha, s.sigmoid), s.y_scale, s.y_zp, s.type) !=
        quantize_half_even(ort_function(v, s.alpha, s.sigmoid), s.y_scale, s.y_zp, s.type)) {
      return true;
    }
  }
  return false;
}

// The first output scale y_scale * (1 + k / 2^16), k = 0, 1, ..., whose table the contrast parts
// from ORT's (the search is in the references, not in ORT).
LookupSpec parting(LookupSpec s, const Contrast& c) {
  const float base = s.y_scale;
  for (int k = 0; k < 200000; ++k) {
    s.y_scale = base * (1.0f + static_cast<float>(k) / 65536.0f);
    if (parts(s, c)) return s;
  }
  ADD_FAILURE() << "no output scale near " << base << " parts " << c.name << " from ORT's table";
  return s;
}

struct LookupCase {
  std::string row;  ///< tally row
  LookupSpec spec;
  BuiltOnnx model;
  int contrast = -1;  ///< index into contrasts() that must disagree with ORT, or -1
};

std::vector<LookupCase> cases() {
  std::vector<LookupCase> out;
  auto add = [&](LookupSpec s, int contrast) {
    const std::string t = s.type == kS8 ? "s8" : "u8";
    const std::string op =
        s.qdq ? (s.sigmoid ? "QDQ Sigmoid" : "QDQ LeakyRelu") : (s.sigmoid ? "QLinearSigmoid" : "QLinearLeakyRelu");
    const std::string label = op + " " + t + " x_scale " + std::to_string(s.x_scale) + " y_scale " +
                              std::to_string(s.y_scale) +
                              (contrast >= 0 ? " (parts " + contrasts()[contrast].name + ")" : "");
    out.push_back({op + " " + t, s, lookup_model(s, label), contrast});
  };
  for (bool qdq : {false, true}) {
    for (DType t : {kS8, kU8}) {
      const bool s8 = t == kS8;
      // Sigmoid: inputs within MLAS's [-18, 18], beyond it, and a fine one; outputs over [0, 1].
      for (const auto& [xs, xz] :
           {std::pair<float, std::int64_t>{0.05f, s8 ? 0 : 128}, {0.2f, s8 ? 10 : 100}, {0.0123f, s8 ? -7 : 131}}) {
        LookupSpec s;
        s.sigmoid = true;
        s.qdq = qdq;
        s.type = t;
        s.x_scale = xs;
        s.x_zp = xz;
        s.y_scale = 1.0f / 256.0f;
        s.y_zp = s8 ? -128 : 0;
        add(s, -1);
        s.y_scale = 0.0047f;  // saturating at 1, an offset zero point
        s.y_zp = s8 ? -100 : 20;
        add(s, -1);
      }
      // LeakyRelu: the default alpha, a coarse one, and exact halves (ties of both signs).
      for (const auto& [alpha, ys] : {std::pair<float, float>{0.01f, 0.03f}, {0.3f, 0.071f}, {0.5f, 0.1f}}) {
        LookupSpec s;
        s.sigmoid = false;
        s.qdq = qdq;
        s.type = t;
        s.alpha = alpha;
        s.x_scale = 0.1f;
        s.x_zp = s8 ? 5 : 120;
        s.y_scale = ys;
        s.y_zp = s8 ? 3 : 125;
        add(s, -1);
      }
      // Quantizations that part each contrast from ORT's table.
      LookupSpec sig;
      sig.qdq = qdq;
      sig.type = t;
      sig.x_scale = 0.03f;
      sig.x_zp = s8 ? 0 : 128;
      sig.y_zp = s8 ? -128 : 0;
      add(parting(sig, contrasts()[0]), 0);
      add(parting(sig, contrasts()[1]), 1);
      LookupSpec ties;  // alpha 0.5, equal scales: the negative half lands on .5 steps
      ties.sigmoid = false;
      ties.qdq = qdq;
      ties.type = t;
      ties.alpha = 0.5f;
      ties.x_scale = ties.y_scale = 0.25f;
      ties.x_zp = s8 ? 0 : 128;
      ties.y_zp = s8 ? 0 : 128;
      add(ties, 2);
    }
  }
  return out;
}

TEST(OnnxLookupOracle, SigmoidAndLeakyReluBitExactAtBothLevels) {
  const std::vector<LookupCase> all = cases();
  std::map<std::string, std::size_t> contrast_wrong;
  std::vector<OrtJob> jobs;
  for (const LookupCase& c : all) jobs.push_back({c.model.label, c.model.bytes, c.model.inputs});
  for (const char* opt : {"all", "disabled"}) {
    const std::string profile = std::string(opt) == "all" ? "ort-cpu" : "ort-cpu-unfused";
    for_each_ort_result(jobs, opt, [&](std::size_t i, const std::vector<Tensor>& ort, const qparity::model::Graph& g) {
      const LookupCase& c = all[i];
      const OutputsCompared ours = compare_outputs(ort, run_qparity(g, c.model.inputs, profile));
      if (ours.wrong != 0) {
        ADD_FAILURE() << c.model.label << " (ORT opt " << opt << ") under " << profile << ": " << ours.first;
      }
      tally(c.row, std::string("ORT opt ") + opt, profile, ours.elements, ours.wrong);
      if (c.contrast >= 0) {
        const Contrast& k = contrasts()[static_cast<std::size_t>(c.contrast)];
        const std::size_t wrong = compare_outputs(ort, {contrast_output(c.spec, c.model.inputs[0], k)}).wrong;
        tally(c.row, std::string("ORT opt ") + opt, k.name + " (contrast)", ours.elements, wrong);
        contrast_wrong[c.model.label + " / opt " + opt] += wrong;
      }
      return ours.elements;
    });
  }
  for (const auto& [row, wrong] : contrast_wrong) {
    EXPECT_GT(wrong, 0u) << row << ": the contrast agrees with ORT, so this comparison could not fail";
  }
}

// QLinearSoftmax (opset 13 and 12 attribute rules) and QDQ Softmax, int8 and uint8: rows of 256
// holding every value (each distance to the maximum, the whole exponential table), rows of 10 and
// of 1000 with seeded values and dominant elements (int8's wrap-around). Level all under ort-cpu;
// level disabled under ort-cpu-unfused for QLinearSoftmax, while an unfused QDQ Softmax (ORT's
// float32 kernel) must be refused naming the node. Contrast: the float32 style of fbgemm's system
// (dequantize, expf, float sum, round half to even).
TEST(OnnxLookupOracle, SoftmaxBitExact) {
  struct SoftmaxCase {
    std::string row;
    BuiltOnnx model;
    bool qdq;
  };
  std::vector<SoftmaxCase> all;
  std::uint64_t seed = 900;
  for (bool qdq : {false, true}) {
    for (DType t : {kS8, kU8}) {
      const bool s8 = t == kS8;
      for (const auto& [row, rows] : {std::pair<std::size_t, std::size_t>{256, 3}, {10, 32}, {1000, 4}}) {
        for (float xs : {0.1f, 0.02f, 0.5f}) {
          for (std::int64_t opset : {13, 12}) {
            if (qdq && opset != 13) continue;
            SoftmaxSpec s;
            s.qdq = qdq;
            s.type = t;
            s.x_scale = xs;
            s.x_zp = s8 ? 3 : 128;
            s.y_zp = s8 ? -128 : 0;
            s.y_scale = opset == 12 ? 1.0005f / 256.0f : 1.0f / 256.0f;  // within SOFTMAX's 0.1 %: multiplier 255
            s.opset = opset;
            s.row = row;
            s.rows = rows;
            s.seed = seed++;
            const std::string op = std::string(qdq ? "QDQ Softmax " : "QLinearSoftmax ") + (s8 ? "s8" : "u8");
            all.push_back({op,
                           softmax_model(s, op + " row " + std::to_string(row) + " x_scale " + std::to_string(xs) +
                                                " opset " + std::to_string(opset)),
                           qdq});
          }
        }
      }
    }
  }
  std::map<std::string, std::size_t> contrast_wrong;
  for (const char* opt : {"all", "disabled"}) {
    const std::string profile = std::string(opt) == "all" ? "ort-cpu" : "ort-cpu-unfused";
    std::vector<OrtJob> jobs;
    std::vector<const SoftmaxCase*> run;
    for (const SoftmaxCase& c : all) {
      if (c.qdq && profile == "ort-cpu-unfused") {
        const qparity::model::Graph g = qparity::model::read_onnx(c.model.bytes, c.model.label);
        try {
          run_qparity(g, c.model.inputs, profile);
          ADD_FAILURE() << c.model.label << ": ort-cpu-unfused ran an unfused QDQ Softmax";
        } catch (const qparity::cli::ToolError& e) {
          EXPECT_NE(std::string(e.what()).find("(SOFTMAX"), std::string::npos) << e.what();
          EXPECT_NE(std::string(e.what()).find("which qparity does not model"), std::string::npos) << e.what();
        }
        continue;
      }
      jobs.push_back({c.model.label, c.model.bytes, c.model.inputs});
      run.push_back(&c);
    }
    for_each_ort_result(jobs, opt, [&](std::size_t i, const std::vector<Tensor>& ort, const qparity::model::Graph& g) {
      const SoftmaxCase& c = *run[i];
      const OutputsCompared ours = compare_outputs(ort, run_qparity(g, c.model.inputs, profile));
      if (ours.wrong != 0) {
        ADD_FAILURE() << c.model.label << " (ORT opt " << opt << ") under " << profile << ": " << ours.first;
      }
      tally(c.row, std::string("ORT opt ") + opt, profile, ours.elements, ours.wrong);
      const std::size_t wrong = compare_outputs(ort, run_qparity(g, c.model.inputs, "fbgemm")).wrong;
      tally(c.row, std::string("ORT opt ") + opt, "fbgemm float32 softmax (contrast)", ours.elements, wrong);
      contrast_wrong[c.row.substr(c.row.size() - 2) + " softmax / opt " + opt] += wrong;
      return ours.elements;
    });
  }
  for (const auto& [row, wrong] : contrast_wrong) {
    EXPECT_GT(wrong, 0u) << row << ": the contrast agrees with ORT, so this comparison could not fail";
  }
}

}  // namespace
}  // namespace qparity_test
