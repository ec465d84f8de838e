// The fast engine of ONNX Runtime's unfused-QDQ float32 sums (the library's qdq_fma kernels,
// kernels/qdq_fma) against the scalar reference (SliceSum in model/onnx/ort_qdq_float.cc): on each
// conv / MatMul / Gemm shape below, every y_f of the kernel serving each ISA this CPU supports has
// the reference's float bits (the widest also on 3 threads), and the whole model run with
// Engine::kFast gives the quantized outputs of Engine::kReference. The shapes
// stress the paths' edges: channel counts that are not a multiple of a vector (1, 3, 17, 63),
// K just below, at and past MLAS's 128 slice and a doubled (256) slice, padding, stride 2,
// dilation, 1x1, grouped and depthwise convolutions, batch 2, Gemm's bias start.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "model/onnx/onnx_reader.h"
#include "model/node_map.h"
#include "model/onnx/ort_qdq_float.h"
#include "model/runner.h"
#include "model/system.h"
#include "onnx_qdq_models.h"
#include "onnx_test_support.h"

namespace qparity_test {
namespace {

using qparity::cli::DType;
using qparity::cli::Tensor;
using qparity::model::Engine;
using qparity::model::find_profile;
using qparity::model::Graph;
using qparity::model::Node;
using qparity::model::OpKind;
using qparity::model::read_onnx;
using qparity::model::Runner;

const Node& arithmetic_node(const Graph& g) {
  for (const Node& n : g.nodes) {
    if (n.op == OpKind::kConv2D || n.op == OpKind::kDepthwiseConv2D || n.op == OpKind::kFullyConnected) return n;
  }
  throw std::runtime_error("no conv or fully connected node");
}

// The ISAs this CPU supports, lowest first (scalar at least).
std::vector<qparity::Isa> supported_paths() {
  std::vector<qparity::Isa> isas;
  for (qparity::Isa isa : qparity::all_isas()) {
    if ((qparity::supported_isas() & qparity::mask_of(isa)) != 0) isas.push_back(isa);
  }
  return isas;
}

// y_f bit for bit per vector path, then the whole model's quantized outputs fast vs reference.
void expect_same_bits(const BuiltOnnx& model, std::uint64_t seed) {
  SCOPED_TRACE(model.label);
  const Graph g = read_onnx(model.bytes, "m.onnx");
  const Node& node = arithmetic_node(g);
  const qparity::model::System sys = find_profile("ort-cpu-unfused").pick(g, node);
  ASSERT_EQ(sys.preset.name, qparity::model::kOrtQdqFloatPreset);
  const auto& in_def = g.tensors[static_cast<std::size_t>(node.inputs[0])];
  std::mt19937 rng(static_cast<std::uint32_t>(seed));
  const Tensor input = random_tensor(rng, in_def.dtype, in_def.shape, -128, 127);
  const std::vector<float> reference =
      ort_qdq_float_sums(g, node, sys, Engine::kReference, qparity::Isa::kScalar, input);
  ASSERT_FALSE(reference.empty());
  const std::vector<qparity::Isa> isas = supported_paths();
  for (qparity::Isa isa : isas) {
    for (unsigned threads : {1u, 3u}) {
      if (threads > 1 && isa != isas.back()) continue;
      const std::vector<float> fast = ort_qdq_float_sums(g, node, sys, Engine::kFast, isa, input, threads);
      ASSERT_EQ(fast.size(), reference.size());
      std::size_t differ = 0, first = 0;
      for (std::size_t i = 0; i < fast.size(); ++i) {
        if (std::memcmp(&fast[i], &reference[i], sizeof(float)) != 0 && differ++ == 0) first = i;
      }
      EXPECT_EQ(differ, 0u) << "isa " << qparity::to_string(isa) << ", " << threads << " threads: first at " << first
                            << ": " << fast[first] << " vs reference " << reference[first];
    }
  }
  const std::vector<qparity::model::System> systems = qparity::model::resolve_node_map(
      qparity::model::parse_node_map("ort-cpu-unfused", "profile"), g, "profile");
  Runner fast_runner(g, systems, Engine::kFast);
  Runner reference_runner(g, systems, Engine::kReference);
  fast_runner.run(model.inputs);
  reference_runner.run(model.inputs);
  const OutputsCompared c = compare_outputs(reference_runner.outputs(), fast_runner.outputs());
  EXPECT_GT(c.elements, 0u);
  EXPECT_EQ(c.wrong, 0u) << c.first;
}

QdqConvSpec conv(std::size_t c, std::size_t m, std::size_t kh, std::size_t kw, std::size_t h, std::size_t wd,
                 std::size_t stride, std::int64_t pad, std::size_t group = 1) {
  QdqConvSpec s;
  s.conv.c = c;
  s.conv.m = m;
  s.conv.kh = kh;
  s.conv.kw = kw;
  s.conv.h = h;
  s.conv.wd = wd;
  s.conv.stride = stride;
  s.conv.pads = {pad, pad, pad, pad};
  s.conv.group = group;
  s.conv.seed = c * 1000 + m * 10 + kh;
  return s;
}

TEST(OrtQdqFast, ConvSumsHaveTheReferenceBits) {
  std::vector<QdqConvSpec> specs = {
      conv(3, 17, 3, 3, 11, 9, 2, 1),     // odd channels, padding, stride 2 (K = 27)
      conv(5, 1, 3, 3, 7, 7, 1, 1),       // one output channel
      conv(4, 3, 3, 3, 6, 13, 1, 0),      // three output channels, no padding
      conv(127, 63, 1, 1, 10, 10, 1, 0),  // pointwise, K = 127, 100 pixels: slices of 128
      conv(128, 17, 1, 1, 10, 10, 1, 0),  // K = 128: exactly one slice
      conv(43, 33, 1, 3, 10, 12, 1, 1),   // K = 129: a slice of 128 then one of 1, padded taps in both
      conv(12, 63, 5, 5, 10, 10, 1, 2),   // K = 300, 100 pixels: slices of 128, 128, 44
      conv(12, 17, 5, 5, 8, 5, 1, 2),     // K = 300, 40 pixels: slices of 256, 44
      conv(12, 20, 5, 5, 4, 4, 1, 2),     // K = 300, 16 pixels: one slice
      conv(8, 19, 1, 1, 9, 9, 2, 0),      // 1x1 stride 2 (not MLAS's pointwise case)
      conv(12, 18, 3, 3, 9, 8, 1, 1, 3),  // grouped: 4 channels, 6 filters per group
      conv(17, 17, 3, 3, 9, 10, 2, 1, 17),  // depthwise, 17 channels, stride 2
      conv(63, 63, 3, 3, 6, 7, 1, 1, 63),   // depthwise, 63 channels
      conv(8, 16, 3, 3, 7, 7, 1, 1, 8),     // depthwise with multiplier 2
      conv(1, 70, 3, 3, 15, 16, 1, 1),      // one input channel, 70 outputs (a 64-lane block + a tail)
      // Whole 16-lane rows (sums written in place), two 64-lane blocks, K = 288 in slices of 128,
      // 128, 32, border pixels of each box grouped across rows:
      conv(32, 128, 3, 3, 9, 9, 1, 1),
      conv(80, 80, 3, 3, 6, 7, 1, 1, 80),  // depthwise, 80 channels: a 64-lane block + 16, in place
      // K = 1,152 (a 64-lane block's filter over 256 KiB: run slice by slice over all pixels), 36
      // pixels: slices of 256, the last of 128.
      conv(128, 40, 3, 3, 6, 6, 1, 1),
  };
  QdqConvSpec dilated = conv(6, 9, 3, 3, 12, 12, 1, 2);
  dilated.conv.dilation = 2;
  specs.push_back(dilated);
  QdqConvSpec batch = conv(16, 40, 3, 3, 8, 8, 1, 1);
  batch.conv.n = 2;
  batch.activation = "Relu";
  batch.cancelling = true;  // sums that depend on their order
  specs.push_back(batch);
  QdqConvSpec cancelling = conv(48, 33, 3, 3, 10, 9, 1, 1);  // K = 432: slices of 128
  cancelling.cancelling = true;
  specs.push_back(cancelling);
  std::uint64_t seed = 1;
  for (const QdqConvSpec& s : specs) expect_same_bits(qdq_conv_model(s), seed++);
}

TEST(OrtQdqFast, MatMulAndGemmSumsHaveTheReferenceBits) {
  struct Case {
    std::vector<std::size_t> a_shape;
    std::size_t n;
    bool gemm;
    bool cancelling;
  };
  const std::vector<Case> cases = {
      {{7, 300}, 100, false, false},   // slices of 128, 7 rows (a block of 6 and one)
      {{2, 3, 129}, 17, false, true},  // slices of 256 (N 17), leading dims as rows
      {{1, 300}, 63, false, false},    // one row: one slice
      {{9, 128}, 1, true, false},      // Gemm: starts from the bias, one unit
      {{5, 200}, 70, true, true},      // Gemm, slices of 128 then 72
  };
  std::uint64_t seed = 100;
  for (const Case& c : cases) {
    QdqMatMulSpec s;
    s.mm.a_shape = c.a_shape;
    s.mm.n = c.n;
    s.mm.seed = seed;
    s.gemm = c.gemm;
    s.cancelling = c.cancelling;
    expect_same_bits(qdq_matmul_model(s), seed++);
  }
}

}  // namespace
}  // namespace qparity_test
