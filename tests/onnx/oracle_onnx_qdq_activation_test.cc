// QDQ groups with a Relu or Clip(0, 6) between the operator and its QuantizeLinear, in the real ONNX
// Runtime (npm onnxruntime-node, one thread) against qparity's reader and runner at both graph
// optimization levels (ort-cpu at `all`, ort-cpu-unfused at `disabled`). ORT removes the activation
// only where the QuantizeLinear's clamp makes it redundant (a Relu before a zero point at the type's
// minimum; a Clip whose bounds cover the quantized range): the group is then fused as without it.
// A kept activation stops ORT's QDQ selectors, so the group runs as float kernels even where ORT
// would fuse it otherwise (uint8 groups, int8 ones between single-consumer Q -> DQ pairs, Gemm, Add).
// Contrasts: the group with the activation dropped must get elements wrong on every row where ORT
// keeps it (the data reaches below the zero point), and the fused arithmetic with the activation
// as a clamp (what qparity did before) on the rows built to part fused and float32 arithmetic.
// Label oracle; fails (never skips) without node or the npm package.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "model/onnx/onnx_reader.h"
#include "onnx_qdq_models.h"
#include "onnx_test_support.h"
#include "oracle_tally.h"
#include "ort_runner.h"

namespace qparity_test {
namespace {

using qparity::cli::DType;
using qparity::cli::Tensor;

constexpr DType kS8 = DType::kInt8;
constexpr DType kU8 = DType::kUint8;

struct ActivationCase {
  std::string row;   ///< tally row
  BuiltOnnx model;   ///< with the Relu / Clip
  BuiltOnnx plain;   ///< the same group and data without it
  bool redundant;    ///< ORT removes the activation (and then fuses where it fuses the plain group)
  bool parts = false;  ///< cancelling sums: fused and float32 arithmetic part on some elements
};

std::string zp_text(DType t, std::int64_t zp) { return std::string(t == kU8 ? "u8" : "s8") + " zp " + std::to_string(zp); }

// Conv groups, int8 between single-consumer Q -> DQ pairs (ORT fuses those when nothing is between
// the Conv and its QuantizeLinear), y_scale 0.03: about half of the outputs below zero.
void conv_cases(std::vector<ActivationCase>* cases) {
  std::uint64_t seed = 1500;
  auto add = [&](DType t, std::int64_t zp, const std::string& act, float y_scale, bool cancelling, bool redundant) {
    QdqConvSpec s;
    s.conv.x = t;
    s.conv.x_zp = t == kU8 ? 128 : 3;
    s.conv.y_zp = zp;
    s.conv.y_scale = y_scale;
    s.conv.seed = seed++;
    s.single_consumer_pairs = t == kS8;
    if (cancelling) {  // K = 144: an MLAS K slice of 128 and one of 16 in float32
      s.cancelling = true;
      s.conv.c = 16;
      s.conv.h = s.conv.wd = 10;
      s.conv.w_lo = -127;
      s.conv.bias = false;
    }
    QdqConvSpec p = s;
    s.activation = act;
    cases->push_back({"QDQ Conv + " + act + " " + zp_text(t, zp) + (act == "Clip6" ? " scale " + fmt::format("{}", y_scale) : "") +
                          (cancelling ? " cancelling" : ""),
                      qdq_conv_model(s), qdq_conv_model(p), redundant, cancelling});
  };
  for (std::int64_t zp : {-128, -127, 0, 5, 127}) add(kS8, zp, "Relu", 0.03f, false, zp == -128);
  for (std::int64_t zp : {0, 1, 128, 255}) add(kU8, zp, "Relu", 0.03f, false, zp == 0);
  // Clip(0, 6): kept where the quantized range reaches past 6 (0.03 * 255 = 7.65), removed where it
  // stays inside (0.0235 * 255 = 5.99) and the zero point is the minimum.
  add(kU8, 0, "Clip6", 0.03f, false, false);
  add(kU8, 0, "Clip6", 0.0235f, false, true);
  add(kS8, -128, "Clip6", 0.03f, false, false);
  add(kS8, -128, "Clip6", 0.0235f, false, true);
  add(kS8, 5, "Clip6", 0.0235f, false, false);
  for (std::int64_t zp : {1, 128}) add(kU8, zp, "Relu", 0.0002f, true, false);
  add(kU8, 0, "Relu", 0.0002f, true, true);
  add(kU8, 128, "Clip6", 0.0002f, true, false);
  for (std::int64_t zp : {-128, -127, 5}) add(kS8, zp, "Relu", 0.0002f, true, zp == -128);
}

// MatMul and Gemm groups: a [1, 1, rows, K] between single-consumer pairs for int8 MatMul; Gemm
// (transB 1, bias C) is fused for both types without an activation.
void matmul_cases(std::vector<ActivationCase>* cases) {
  std::uint64_t seed = 1600;
  auto add = [&](bool gemm, DType t, std::int64_t zp, bool cancelling) {
    QdqMatMulSpec s;
    s.gemm = gemm;
    s.mm.a = t;
    s.mm.a_zp = t == kU8 ? 128 : 3;
    s.mm.y_zp = zp;
    s.mm.per_column = true;
    s.mm.y_scale = 0.05f;
    s.mm.seed = seed++;
    s.mm.a_shape = {24, 40};
    if (cancelling) {  // K = 300 in one float32 slice, N = 16
      s.cancelling = true;
      s.mm.a_shape = {24, 300};
      s.mm.y_scale = 0.0002f;
      s.mm.b_lo = -127;
    }
    if (!gemm && t == kS8) {
      s.single_consumer_pairs = true;
      s.mm.a_shape.insert(s.mm.a_shape.begin(), {1, 1});
    }
    QdqMatMulSpec p = s;
    s.activation = "Relu";
    const bool redundant = zp == qparity::cli::dtype_min(t);
    cases->push_back({std::string("QDQ ") + (gemm ? "Gemm" : "MatMul") + " + Relu " + zp_text(t, zp) +
                          (cancelling ? " cancelling" : ""),
                      qdq_matmul_model(s), qdq_matmul_model(p), redundant, cancelling});
  };
  for (bool gemm : {false, true}) {
    for (std::int64_t zp : {-128, 5}) add(gemm, kS8, zp, false);
    for (std::int64_t zp : {0, 128}) add(gemm, kU8, zp, false);
    for (std::int64_t zp : {-128, 5}) add(gemm, kS8, zp, true);
    for (std::int64_t zp : {0, 128}) add(gemm, kU8, zp, true);
  }
}

// Add groups (fused for both types without an activation). Not parting rows: with the Relu, the
// fused ADD and the float32 one gave the same bits on this data (measured), so only the dropped
// activation is a contrast here.
void add_cases(std::vector<ActivationCase>* cases) {
  std::uint64_t seed = 1700;
  for (DType t : {kS8, kU8}) {
    for (std::int64_t zp : {qparity::cli::dtype_min(t), t == kU8 ? std::int64_t{131} : std::int64_t{5}}) {
      QMulSpec s;
      s.op = "QLinearAdd";
      s.t = t;
      s.c_scale = 0.07f;
      if (t == kU8) {
        s.a_zp = 128;
        s.b_zp = 120;
      }
      s.c_zp = zp;
      s.seed = seed++;
      cases->push_back({"QDQ Add + Relu " + zp_text(t, zp), qdq_binary_model(s, "Relu"), qdq_binary_model(s),
                        zp == qparity::cli::dtype_min(t)});
    }
  }
}

TEST(OnnxQdqOracle, ActivationKeptOrDroppedBitExact) {
  std::vector<ActivationCase> cases;
  conv_cases(&cases);
  matmul_cases(&cases);
  add_cases(&cases);
  std::vector<OrtJob> jobs;
  for (const ActivationCase& c : cases) jobs.push_back({c.model.label, c.model.bytes, c.model.inputs});
  std::map<std::string, std::size_t> parted;  // the other fused / float32 choice, on rows built to part them
  for (const char* opt : {"all", "disabled"}) {
    const bool all = std::string(opt) == "all";
    const std::string profile = all ? "ort-cpu" : "ort-cpu-unfused", path = std::string("ORT opt ") + opt;
    for_each_ort_result(jobs, opt, [&](std::size_t i, const std::vector<Tensor>& ort, const qparity::model::Graph& g) {
      const ActivationCase& c = cases[i];
      const OutputsCompared ours = compare_outputs(ort, run_qparity(g, c.model.inputs, profile));
      EXPECT_EQ(ours.wrong, 0u) << c.model.label << " (" << path << ") under " << profile << ": " << ours.first;
      tally(c.row, path, profile, ours.elements, ours.wrong);
      // The activation dropped: wrong wherever ORT keeps it (outputs below the zero point exist).
      const std::size_t dropped =
          compare_outputs(ort, run_qparity(qparity::model::read_onnx(c.plain.bytes, c.plain.label), c.model.inputs,
                                           profile))
              .wrong;
      tally(c.row, path, "activation dropped (contrast)", ours.elements, dropped);
      if (!c.redundant) {
        EXPECT_GT(dropped, 0u) << c.model.label << " (" << path
                               << "): dropping the kept activation changes nothing, so the row could not fail";
      }
      if (all && c.parts) {
        // Where ORT keeps the activation the group is float32 and the contrast the fused formula
        // with the activation as a clamp (onnxruntime); where it removes it, the float32 one.
        const std::string other = c.redundant ? "ort-cpu-unfused" : "onnxruntime";
        const std::size_t wrong = compare_outputs(ort, run_qparity(g, c.model.inputs, other)).wrong;
        tally(c.row, path, other + " (contrast)", ours.elements, wrong);
        parted[(c.redundant ? "removed / " : "kept / ") + other] += wrong;
      }
      return ours.elements;
    });
  }
  for (const char* key : {"kept / onnxruntime", "removed / ort-cpu-unfused"}) {
    EXPECT_GT(parted[key], 0u) << key << ": the other arithmetic agrees with ORT on every parting row";
  }
}

}  // namespace
}  // namespace qparity_test
