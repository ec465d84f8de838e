// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR as model ops (tools/model/ops/resize.cc): the .tflite
// options survive a write and a read, the size input is checked as untrusted input (errors name the
// node and the field), XNNPACK's delegate takes RESIZE_BILINEAR only with per-tensor quantization,
// and the systems pick the variants of include/qparity/reference/resize.h (describe()).
#include <gtest/gtest.h>

#include "model/graph_builder.h"
#include "model/op.h"
#include "model/ops/resize.h"
#include "model/runner.h"
#include "model/system.h"
#include "model/tflite/tflite_reader.h"
#include "model/tflite/tflite_writer.h"
#include "tool_error.h"

namespace {

using namespace qparity::model;
using qparity::cli::DType;

struct Spec {
  OpKind op = OpKind::kResizeBilinear;
  DType dtype = DType::kInt8;
  std::vector<std::size_t> in = {1, 3, 5, 2};
  std::vector<std::int64_t> size = {7, 4};
  DType size_dtype = DType::kInt32;
  bool size_constant = true;
  bool align = false, half = false;
  float out_scale = 0.5f;
  std::size_t out_axis = 0;
};

Graph build(const Spec& s) {
  GraphBuilder b("resize.tflite");
  const int x = b.tensor("x", s.dtype, s.in, GraphBuilder::per_tensor(0.5f, 3));
  int size;
  if (s.size_constant) {
    Tensor t = qparity::cli::make_tensor(s.size_dtype, {s.size.size()});
    for (std::size_t i = 0; i < s.size.size(); ++i) t.set_integer(i, s.size[i]);
    size = b.constant("size", t);
  } else {
    size = b.tensor("size", s.size_dtype, {s.size.size()});
    b.input(size);
  }
  Quantization yq = GraphBuilder::per_tensor(s.out_scale, 3);
  yq.axis = s.out_axis;
  const int y = b.tensor("y", s.dtype, {}, yq);
  auto o = std::make_shared<ResizeOptions>();
  o->align_corners = s.align;
  o->half_pixel_centers = s.half;
  b.node(s.op, {x, size}, {y}, o);
  b.input(x);
  b.output(y);
  return b.finish();
}

std::string error_of(const Spec& s) {
  try {
    build(s);
  } catch (const qparity::cli::ToolError& e) {
    return e.what();
  }
  return "";
}

TEST(ModelResize, OptionsRoundTripThroughTflite) {
  for (OpKind op : {OpKind::kResizeBilinear, OpKind::kResizeNearestNeighbor}) {
    for (const auto& [align, half] : {std::pair{true, false}, std::pair{false, true}, std::pair{false, false}}) {
      Spec s;
      s.op = op;
      s.align = align;
      s.half = half;
      const Graph back = read_tflite(write_tflite(build(s)), "resize.tflite");
      ASSERT_EQ(back.nodes.size(), 1u);
      EXPECT_EQ(back.nodes[0].op, op);
      EXPECT_EQ(back.nodes[0].opts<ResizeOptions>().align_corners, align);
      EXPECT_EQ(back.nodes[0].opts<ResizeOptions>().half_pixel_centers, half);
      EXPECT_EQ(back.tensors[static_cast<std::size_t>(back.outputs[0])].shape, (std::vector<std::size_t>{1, 7, 4, 2}));
    }
  }
}

TEST(ModelResize, UntrustedInputIsRefusedNamingTheField) {
  Spec both;
  both.align = both.half = true;
  EXPECT_NE(error_of(both).find("align_corners and half_pixel_centers"), std::string::npos) << error_of(both);
  Spec run_time;
  run_time.size_constant = false;
  EXPECT_NE(error_of(run_time).find("size 'size' is computed at run time"), std::string::npos);
  Spec zero;
  zero.size = {0, 4};
  EXPECT_NE(error_of(zero).find("size 'size' is [0, 4]; allowed: height and width 1 to 32767"), std::string::npos)
      << error_of(zero);
  Spec huge;
  huge.size = {4, 40000};
  EXPECT_NE(error_of(huge).find("allowed: height and width 1 to 32767"), std::string::npos);
  Spec three;
  three.size = {4, 4, 4};
  EXPECT_NE(error_of(three).find("allowed: [2]"), std::string::npos);
  Spec int64;
  int64.size_dtype = DType::kInt64;
  EXPECT_NE(error_of(int64).find("allowed: int32"), std::string::npos);
  Spec requant;
  requant.out_scale = 0.25f;
  EXPECT_NE(error_of(requant).find("quantized differently"), std::string::npos);
  Spec rank3;
  rank3.in = {3, 5, 2};
  EXPECT_NE(error_of(rank3).find("allowed: rank 4"), std::string::npos);
  Spec fine;
  EXPECT_EQ(error_of(fine), "");
  for (const std::string& e : {error_of(both), error_of(zero), error_of(requant)}) {
    EXPECT_NE(e.find("resize.tflite"), std::string::npos) << e;
    EXPECT_NE(e.find("RESIZE_BILINEAR"), std::string::npos) << e;
  }
}

TEST(ModelResize, XnnpackTakesPerTensorBilinearOnly) {
  Spec s;
  const Graph g = build(s);
  EXPECT_TRUE(op_of(OpKind::kResizeBilinear).xnnpack_takes(g, g.nodes[0]));
  s.out_axis = 3;  // one scale along the channels
  const Graph k = build(s);
  EXPECT_FALSE(op_of(OpKind::kResizeBilinear).xnnpack_takes(k, k.nodes[0]));
  s.out_axis = 0;
  s.op = OpKind::kResizeNearestNeighbor;
  const Graph n = build(s);
  EXPECT_FALSE(op_of(OpKind::kResizeNearestNeighbor).xnnpack_takes(n, n.nodes[0]));
}

std::string arithmetic_of(const Graph& g, const std::string& profile) {
  const System sys = find_profile(profile).pick(g, g.nodes[0]);
  return op_of(g.nodes[0].op).prepare(g, g.nodes[0], sys, Engine::kFast)->describe().at(2);
}

TEST(ModelResize, SystemsPickTheirVariant) {
  Spec s;
  const Graph i8 = build(s);
  EXPECT_EQ(arithmetic_of(i8, "tflite-xnnpack-x86").rfind("XNNPACK ibilinear", 0), 0u);
  EXPECT_NE(arithmetic_of(i8, "tflite-reference").find("default build"), std::string::npos);
  EXPECT_NE(arithmetic_of(i8, "tflite-single").find("TFLITE_SINGLE_ROUNDING build"), std::string::npos);
  EXPECT_NE(arithmetic_of(i8, "tflite-builtin-wasm").find("default build"), std::string::npos);
  EXPECT_EQ(arithmetic_of(i8, "ort-cpu").rfind("ONNX Runtime Resize", 0), 0u);
  EXPECT_NE(arithmetic_of(i8, "fbgemm").find("UNVERIFIED"), std::string::npos);
  s.dtype = DType::kUint8;
  const Graph u8 = build(s);
  EXPECT_NE(arithmetic_of(u8, "tflite-builtin-wasm").find("GenericSmallChannel"), std::string::npos);
  EXPECT_NE(arithmetic_of(u8, "tflite-reference").find("reference ResizeBilinear<uint8>"), std::string::npos);
  s.op = OpKind::kResizeNearestNeighbor;
  const Graph nn = build(s);
  EXPECT_NE(arithmetic_of(nn, "tflite-xnnpack-wasm").find("16.16 fixed point"), std::string::npos);
  EXPECT_NE(arithmetic_of(nn, "tflite-reference").find("GetNearestNeighbor"), std::string::npos);
}

// TFLite's optimized uint8 kernel has an 8x special case qparity does not model: refused under it,
// run under the other arithmetics.
TEST(ModelResize, Uint8EightTimesSpecialCaseIsRefusedUnderTflitesOptimizedKernel) {
  Spec s;
  s.dtype = DType::kUint8;
  s.in = {1, 2, 3, 8};
  s.size = {16, 24};
  s.half = true;
  const Graph g = build(s);
  try {
    arithmetic_of(g, "tflite-builtin-x86");
    FAIL() << "the 8x special case was prepared";
  } catch (const qparity::cli::ToolError& e) {
    EXPECT_NE(std::string(e.what()).find("ResizeBilinear888Uint8"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(arithmetic_of(g, "tflite-reference"));
  EXPECT_NO_THROW(arithmetic_of(g, "tflite-xnnpack-x86"));
}

// 1 -> 2000 in the legacy mapping: TFLite's 10-bit scale rounds to 1/1024 and its kernel would read
// past the input; XNNPACK's float scale does not.
TEST(ModelResize, TflitesIntegerKernelOverreadIsRefused) {
  Spec s;
  s.in = {1, 1, 1, 2};
  s.size = {1, 2000};
  const Graph g = build(s);
  try {
    arithmetic_of(g, "tflite-reference");
    FAIL() << "prepared a resize TFLite's kernel cannot run";
  } catch (const qparity::cli::ToolError& e) {
    EXPECT_NE(std::string(e.what()).find("would read outside the input"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(arithmetic_of(g, "tflite-xnnpack-x86"));
}

}  // namespace
