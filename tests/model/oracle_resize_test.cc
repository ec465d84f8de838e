// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR in LiteRT.js (TFLite compiled to WebAssembly) against
// qparity's tflite-xnnpack-wasm profile, one LiteRT.js batch, on both of TFLite's paths:
//   xnnpack        the model as written: XNNPACK's delegate takes RESIZE_BILINEAR (its q11
//                  ibilinear kernels), TFLite's own kernel runs RESIZE_NEAREST_NEIGHBOR;
//   tflite-kernel  the op's output carries its one scale along the last dimension
//                  (quantized_dimension 3), which XNNPACK declines: TFLite's own kernels (int8
//                  RESIZE_BILINEAR: the 10-bit integer kernel; uint8: the optimized float kernel;
//                  uint8 RESIZE_NEAREST_NEIGHBOR: the optimized 16.16 fixed point).
// Cases: int8 and uint8; no option, align_corners, half_pixel_centers; up- and downsampling at
// integer and non-integer ratios, 1-pixel sides on either end, 1 to 17 channels, batch 2; data over
// the whole type range (the extremes blend without saturating: no variant can leave the range);
// 2x upsampling in the legacy mapping puts half the outputs on exact halves (weights 1/2), where
// the roundings part: TFLite's half away from zero against XNNPACK's half up and the single build's
// half up. Contrasts, each of which must get some element wrong: TFLite's arithmetic against the
// XNNPACK path (tflite-builtin-wasm), XNNPACK's against TFLite's kernel (xnnpack-fp32), the
// single-rounding build against the default one (tflite-single), and for uint8
// RESIZE_NEAREST_NEIGHBOR the float index rule against the fixed point (tflite-reference, on
// 14 -> 46 where the two pick a different row).
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "model/graph_builder.h"
#include "model/op.h"
#include "model/ops/resize.h"
#include "oracle_util.h"

namespace qparity_test {
namespace {

using namespace qparity::model;

constexpr const char* kProfile = "tflite-xnnpack-wasm";

struct ResizeShape {
  std::size_t n, h, w, c, oh, ow;
};

const ResizeShape kShapes[] = {
    {1, 3, 5, 3, 7, 4},   {1, 4, 4, 2, 8, 8},    {1, 5, 3, 2, 2, 7},   {1, 1, 1, 4, 3, 2},    {1, 2, 2, 3, 1, 1},
    {1, 7, 7, 17, 13, 13}, {2, 8, 6, 5, 3, 5},   {1, 2, 3, 1, 8, 12},  {1, 16, 16, 8, 5, 5},  {1, 1, 4, 2, 4, 1},
    {1, 6, 9, 4, 6, 9},    {1, 3, 3, 16, 10, 10},
};

OracleCase resize_case(std::mt19937& rng, OpKind op, DType d, const ResizeShape& s, bool align, bool half,
                       bool kernel_path, int index) {
  const std::int64_t lo = d == DType::kUint8 ? 0 : -128, hi = d == DType::kUint8 ? 255 : 127;
  const float scale = 0.05f + 0.01f * static_cast<float>(index % 7);
  const std::int64_t zp = d == DType::kUint8 ? 100 + index % 50 : -7 + index % 20;
  GraphBuilder b("oracle resize case");
  const int x = b.tensor("x", d, {s.n, s.h, s.w, s.c}, GraphBuilder::per_tensor(scale, zp));
  Tensor size_data = qparity::cli::make_tensor(DType::kInt32, {2});
  size_data.set_integer(0, static_cast<std::int64_t>(s.oh));
  size_data.set_integer(1, static_cast<std::int64_t>(s.ow));
  const int size = b.constant("size", size_data);
  Quantization yq = GraphBuilder::per_tensor(scale, zp);
  if (kernel_path) yq.axis = 3;  // one scale along the channels: XNNPACK declines
  const int y = b.tensor("y", d, {}, yq);
  auto o = std::make_shared<ResizeOptions>();
  o->align_corners = align;
  o->half_pixel_centers = half;
  b.node(op, {x, size}, {y}, o);
  b.input(x);
  b.output(y);
  OracleCase c;
  c.graph = b.finish();
  c.profile = kProfile;
  c.inputs.push_back(random_tensor(rng, d, {s.n, s.h, s.w, s.c}, lo, hi));
  c.op = std::string(to_string(op)) + " " + qparity::cli::to_string(d);
  c.path = op_of(op).xnnpack_takes(c.graph, c.graph.nodes.at(0)) ? "xnnpack" : "tflite-kernel";
  std::ostringstream label;
  label << "case " << index << " " << c.op << " " << s.n << "x" << s.h << "x" << s.w << "x" << s.c << " -> " << s.oh
        << "x" << s.ow << (align ? " align_corners" : "") << (half ? " half_pixel_centers" : "")
        << (kernel_path ? " per-axis output" : "") << " path " << c.path;
  c.label = label.str();
  if (op == OpKind::kResizeBilinear) {
    if (c.path == "xnnpack") {
      c.contrasts = {"tflite-builtin-wasm"};
    } else if (d == DType::kInt8) {
      c.contrasts = {"xnnpack-fp32", "tflite-single"};
    } else {
      c.contrasts = {"xnnpack-fp32"};
    }
  } else if (d == DType::kUint8) {
    c.contrasts = {"tflite-reference"};
  }
  return c;
}

TEST(TfliteOracle, ResizeBothOpsBothPaths) {
  std::mt19937 rng(20261127);
  std::vector<OracleCase> cases;
  int index = 0;
  const std::pair<bool, bool> options[] = {{false, false}, {true, false}, {false, true}};
  for (OpKind op : {OpKind::kResizeBilinear, OpKind::kResizeNearestNeighbor}) {
    for (DType d : {DType::kInt8, DType::kUint8}) {
      for (std::size_t si = 0; si < std::size(kShapes); ++si) {
        for (std::size_t oi = 0; oi < std::size(options); ++oi) {
          // Each shape under every option on one path, alternating, and the legacy 2x upsampling on both.
          const bool kernel = (si + oi) % 2 == 1;
          cases.push_back(resize_case(rng, op, d, kShapes[si], options[oi].first, options[oi].second, kernel, index++));
          if (si == 1 && oi == 0) {
            cases.push_back(resize_case(rng, op, d, kShapes[si], false, false, !kernel, index++));
          }
        }
      }
    }
  }
  // The size pair where TFLite's uint8 fixed-point nearest index and its float rule part.
  for (bool kernel : {false, true}) {
    cases.push_back(
        resize_case(rng, OpKind::kResizeNearestNeighbor, DType::kUint8, {1, 14, 14, 2, 46, 46}, false, false, kernel,
                    index++));
  }
  const std::size_t compared = run_oracle_cases(cases);
  EXPECT_GT(compared, 40000u);
  expect_contrasts_differ(cases);
}

}  // namespace
}  // namespace qparity_test
