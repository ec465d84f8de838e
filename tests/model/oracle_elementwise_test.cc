// ADD, SUB and MUL in LiteRT.js (TFLite 2.x compiled to WebAssembly) against qparity's
// tflite-xnnpack-wasm profile, on both of TFLite's paths:
//   xnnpack        per-tensor quantization everywhere: XNNPACK's delegate takes the op
//                  (xnnpack-wasm: ADD / SUB one rounding half up with ~21-bit multipliers, MUL fp32);
//   tflite-kernel  the output tensor has one scale along its last axis (quantized_dimension != 0):
//                  the delegate declines the node and TFLite's own kernel runs it with the legacy
//                  per-tensor scale (tflite-double: three DR-AZ roundings for ADD / SUB, one for MUL).
// Cases: int8 and uint8; power-of-two scales that put many results exactly on ties of both signs,
// zero points at both ends of the range, a small output scale that saturates, irregular scales;
// broadcasting (equal shapes, a one-element operand on either side, a row, a channel vector, a
// per-row column, mutual 4-D), odd sizes, every fused activation; some second operands constant.
// Each case also counts what other arithmetics would get wrong ("contrast"); the test requires the
// first contrast, the other path's arithmetic, to differ from the oracle somewhere in every
// (op, type, path) group, so the comparison is shown to be able to fail. The other contrasts are
// tallied only (TFLite's single-rounding build rounds ties up like XNNPACK, so on uint8 ADD it can
// agree with the XNNPACK path everywhere, docs/semantics.md §21.1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <sstream>

#include "model/graph_builder.h"
#include "model/node_map.h"
#include "model/op.h"
#include "model/ops/conv_common.h"
#include "model/ops/elementwise.h"
#include "model/runner.h"
#include "oracle_util.h"
#include "qparity/reference/elementwise.h"

namespace qparity_test {
namespace {

using namespace qparity::model;
using qparity::Activation;
using Shape = std::vector<std::size_t>;

struct Quant {
  float s1, s2, so;
  std::int64_t z1, z2, zo;
  const char* what;
};

/// The quantization of case `k` for `op` and `dt` (see the top of the file).
Quant pick_quant(std::mt19937& rng, OpKind op, DType dt, int k) {
  const bool u8 = dt == DType::kUint8;
  const std::int64_t lo = u8 ? 0 : -128, hi = u8 ? 255 : 127, mid = u8 ? 128 : 0;
  std::uniform_real_distribution<float> u(0.5f, 2.0f);
  std::uniform_int_distribution<std::int64_t> any(lo, hi);
  const bool mul = op == OpKind::kMul;
  switch (k % 4) {
    case 0:  // exact ties: sums / products of power-of-two scales in steps of a quarter output step
      return mul ? Quant{0.125f, 0.25f, 0.125f, mid, mid + 1, mid, "ties"}
                 : Quant{0.5f, 0.25f, 1.0f, mid, mid - 1, mid, "ties"};
    case 1:  // zero points at the ends of the range (ties too)
      // (MUL: zero points that keep the products' sign pointing into the output range.)
      return mul ? Quant{0.25f, 0.0625f, 1.0f / 32.0f, lo, k % 8 == 1 ? lo : hi, k % 8 == 1 ? lo : hi,
                         "zero points at the ends"}
                 : Quant{0.5f, 0.5f, 2.0f, lo, hi, k % 8 == 1 ? hi : lo, "zero points at the ends"};
    case 2:  // saturation: a small output scale
      return mul ? Quant{0.05f * u(rng), 0.05f * u(rng), 0.0005f * u(rng), any(rng), any(rng), any(rng), "saturation"}
                 : Quant{0.05f * u(rng), 0.05f * u(rng), 0.01f * u(rng), any(rng), any(rng), any(rng), "saturation"};
    default:  // realistic irregular scales
      return mul ? Quant{0.02f * u(rng), 0.03f * u(rng), 0.06f * u(rng), any(rng), any(rng), any(rng), "irregular"}
                 : Quant{0.02f * u(rng), 0.03f * u(rng), 0.04f * u(rng), any(rng), any(rng), any(rng), "irregular"};
  }
}

/// Broadcast shape pairs; every output has rank >= 2 (the per-axis output of the TFLite path).
std::pair<Shape, Shape> pick_shapes(int k) {
  const std::size_t odd[] = {1, 3, 7, 17, 63};
  const std::size_t n = odd[static_cast<std::size_t>(k) % 5];
  switch (k % 8) {
    case 0: return {{2, n, 3}, {2, n, 3}};      // equal shapes
    case 1: return {{3, n}, {1}};               // one-element second operand
    case 2: return {{1}, {n, 5}};               // one-element first operand
    case 3: return {{1, 4, 5, n}, {n}};         // channel vector
    case 4: return {{2, 3, n}, {1, 1, n}};      // row, rank 3
    case 5: return {{2, n, 1}, {2, n, 6}};      // per-row column
    case 6: return {{2, 1, n, 1}, {1, 3, 1, 4}};  // mutual 4-D broadcast
    default: return {{n, 9}, {n, 9}};           // equal shapes, rank 2
  }
}

struct Group {
  std::string key;
  std::vector<std::size_t> cases;
};

OracleCase make_case(std::mt19937& rng, OpKind op, DType dt, bool xnnpack_path, int k) {
  const Quant q = pick_quant(rng, op, dt, k);
  const auto [s1, s2] = pick_shapes(k);
  const Activation acts[] = {Activation::kNone, Activation::kRelu, Activation::kRelu6, Activation::kReluN1To1};
  const Activation act = acts[static_cast<std::size_t>(k / 2) % 4];
  const bool constant2 = k % 5 == 4;
  const std::int64_t tmin = dt == DType::kUint8 ? 0 : -128, tmax = dt == DType::kUint8 ? 255 : 127;
  // MUL's tie cases take data within 12 of the zero points, so that the products (scaled by 1/4
  // or 1/2) stay inside the output range instead of saturating.
  const bool near = op == OpKind::kMul && k % 4 < 2;
  const auto lo_of = [&](std::int64_t z) { return near ? std::max(tmin, z - 12) : tmin; };
  const auto hi_of = [&](std::int64_t z) { return near ? std::min(tmax, z + 12) : tmax; };

  GraphBuilder b("elementwise oracle case");
  const int x1 = b.tensor("x1", dt, s1, GraphBuilder::per_tensor(q.s1, q.z1));
  Tensor d2 = random_tensor(rng, dt, s2, lo_of(q.z2), hi_of(q.z2));
  const int x2 = constant2 ? b.constant("x2", d2, GraphBuilder::per_tensor(q.s2, q.z2))
                           : b.tensor("x2", dt, s2, GraphBuilder::per_tensor(q.s2, q.z2));
  Quantization qo = GraphBuilder::per_tensor(q.so, q.zo);
  const Shape out_shape = qparity::reference::broadcast_shape(s1, s2);
  if (!xnnpack_path) qo.axis = out_shape.size() - 1;  // one scale along the last axis
  const int y = b.tensor("y", dt, {}, qo);
  auto o = std::make_shared<ElementwiseOptions>();
  o->activation = act;
  b.node(op, {x1, x2}, {y}, o);
  b.input(x1);
  if (!constant2) b.input(x2);
  b.output(y);

  OracleCase c;
  c.profile = "tflite-xnnpack-wasm";
  c.path = xnnpack_path ? "xnnpack" : "tflite-kernel";
  c.op = std::string(to_string(op)) + " " + qparity::cli::to_string(dt);
  c.graph = b.finish();
  c.inputs.push_back(random_tensor(rng, dt, s1, lo_of(q.z1), hi_of(q.z1)));
  if (!constant2) c.inputs.push_back(d2);
  std::ostringstream label;
  label << "case " << k << " " << c.op << " " << qparity::cli::shape_text(s1) << (constant2 ? " const " : " ")
        << qparity::cli::shape_text(s2) << " " << q.what << " act " << activation_text(act) << " path " << c.path;
  c.label = label.str();
  // The other path's arithmetic and the other rounding build; for MUL also XNNPACK's ARM rndnu.
  c.contrasts = xnnpack_path ? std::vector<std::string>{"tflite-reference", "tflite-single"}
                             : std::vector<std::string>{"xnnpack-fp32", "tflite-single"};
  if (op == OpKind::kMul && xnnpack_path) c.contrasts.push_back("tflite-xnnpack-arm");
  return c;
}

std::vector<Tensor> run_profile(const OracleCase& c, const std::string& profile) {
  Runner runner(c.graph, resolve_node_map(parse_node_map(profile, "profile"), c.graph, "profile"));
  runner.run(c.inputs);
  return runner.outputs();
}

TEST(TfliteOracle, AddSubMulBothPaths) {
  std::mt19937 rng(20261201);
  std::vector<OracleCase> cases;
  std::map<std::string, std::vector<std::size_t>> groups;
  for (OpKind op : {OpKind::kAdd, OpKind::kSub, OpKind::kMul}) {
    for (DType dt : {DType::kInt8, DType::kUint8}) {
      for (bool xnnpack_path : {true, false}) {
        for (int k = 0; k < 16; ++k) {
          OracleCase c = make_case(rng, op, dt, xnnpack_path, k);
          // The case exercises the path it is labelled with.
          const Node& n = c.graph.nodes[0];
          ASSERT_EQ(op_of(n.op).xnnpack_takes(c.graph, n), xnnpack_path) << c.label;
          groups[c.op + " " + c.path].push_back(cases.size());
          cases.push_back(std::move(c));
        }
      }
    }
  }
  const std::size_t elements = run_oracle_cases(cases);
  EXPECT_GT(elements, 20000u);
  // The first contrast differs from the profile (which equals the oracle where the test passes)
  // somewhere in every group.
  for (const auto& [key, members] : groups) {
    std::size_t differ = 0;
    std::string other;
    for (std::size_t i : members) {
      const OracleCase& c = cases[i];
      other = c.contrasts.front();
      const std::vector<Tensor> ours = run_profile(c, c.profile);
      const std::vector<Tensor> theirs = run_profile(c, other);
      for (std::size_t k = 0; k < ours.size(); ++k) {
        for (std::size_t e = 0; e < ours[k].elements(); ++e) differ += ours[k].value_at(e) != theirs[k].value_at(e);
      }
    }
    EXPECT_GT(differ, 0u) << key << ": contrast " << other << " never differs";
  }
}

}  // namespace
}  // namespace qparity_test
