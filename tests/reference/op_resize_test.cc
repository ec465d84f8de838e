// Golden vectors of include/qparity/reference/resize.h (docs/semantics.md §21.9), each value worked
// out by hand from the formulas in the header's doc comments: the exact halves where TFLite's
// default build (half away from zero), its single-rounding build (half up) and XNNPACK (half up,
// 11-bit weights) part, weights that only XNNPACK's finer grid resolves, the edge rules of both
// options and the nearest-neighbour index rules.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "qparity/reference/resize.h"

namespace {

using qparity::reference::ResizeBilinearVariant;
using qparity::reference::ResizeGeometry;
using qparity::reference::ResizeNearestVariant;

ResizeGeometry row(std::size_t in_w, std::size_t out_w, bool align = false, bool half = false) {
  ResizeGeometry g;
  g.in_w = in_w;
  g.out_w = out_w;
  g.align_corners = align;
  g.half_pixel_centers = half;
  return g;
}

std::vector<int> bilinear(const std::vector<std::int8_t>& x, const ResizeGeometry& g, ResizeBilinearVariant v) {
  const std::vector<std::int8_t> y = qparity::reference::resize_bilinear(x, g, v);
  return std::vector<int>(y.begin(), y.end());
}

// 2 -> 4 in the legacy mapping: output 1 sits halfway between the inputs. TFLite: s10 = 512,
// position 512, acc = (x0 + x1) * 512 * 1024. XNNPACK: weight 1024 of 2048.
TEST(ResizeBilinearReference, NegativeHalfPartsTheRoundings) {
  const ResizeGeometry g = row(2, 4);
  // (-1 + 0) / 2 = -0.5: away from zero -1, half up 0.
  EXPECT_EQ(bilinear({-1, 0}, g, ResizeBilinearVariant::kTfliteInteger), (std::vector<int>{-1, -1, 0, 0}));
  EXPECT_EQ(bilinear({-1, 0}, g, ResizeBilinearVariant::kTfliteIntegerSingleRounding),
            (std::vector<int>{-1, 0, 0, 0}));
  EXPECT_EQ(bilinear({-1, 0}, g, ResizeBilinearVariant::kXnnpackQ11), (std::vector<int>{-1, 0, 0, 0}));
  // (1 + 2) / 2 = 1.5: every rounding gives 2.
  for (auto v : {ResizeBilinearVariant::kTfliteInteger, ResizeBilinearVariant::kTfliteIntegerSingleRounding,
                 ResizeBilinearVariant::kXnnpackQ11}) {
    EXPECT_EQ(bilinear({1, 2}, g, v), (std::vector<int>{1, 2, 2, 2}));
  }
}

// ONNX Runtime on the same 2 -> 4 (asymmetric, the legacy mapping's ONNX name): weights 0.5 / 0.5 in
// float, the sum truncated toward zero: -0.5 -> 0, 1.5 -> 1. Its QDQ form rounds the dequantized
// blend half to even: with scale 1 and zero point 0, -0.5 -> 0 and 1.5 -> 2.
TEST(ResizeBilinearReference, OnnxRuntimeTruncatesAndItsQdqFormRoundsHalfToEven) {
  const ResizeGeometry g = row(2, 4);
  const auto asym = qparity::reference::OnnxCoordinateMode::kAsymmetric;
  auto ort = [&](std::vector<std::int8_t> x, const qparity::reference::TensorQuant* q) {
    const std::vector<std::int8_t> y = qparity::reference::ort_resize_bilinear(x, g, asym, q);
    return std::vector<int>(y.begin(), y.end());
  };
  const qparity::reference::TensorQuant unit{1.0f, 0};
  EXPECT_EQ(ort({-1, 0}, nullptr), (std::vector<int>{-1, 0, 0, 0}));
  EXPECT_EQ(ort({1, 2}, nullptr), (std::vector<int>{1, 1, 2, 2}));
  EXPECT_EQ(ort({-1, 0}, &unit), (std::vector<int>{-1, 0, 0, 0}));
  EXPECT_EQ(ort({1, 2}, &unit), (std::vector<int>{1, 2, 2, 2}));
  // The model op's kOnnxRuntime variant is this function on the mode the TFLite options name.
  EXPECT_EQ(bilinear({1, 2}, g, ResizeBilinearVariant::kOnnxRuntime), (std::vector<int>{1, 1, 2, 2}));
}

// 3 -> 7 in the legacy mapping, output 1: TFLite s10 = (3072 + 3) / 7 = 439, weight 439/1024 =
// 0.4287; XNNPACK scale 3/7, weight lrintf(0.42857143 * 2048) = 878/2048 = 0.4287. Between -128 and
// 127: TFLite -128 + 255 * 439 / 1024 = -18.68 -> -19; XNNPACK -128 + 255 * 878 / 2048 = -18.68 -> -19.
// Output 2: TFLite 878 -> lo 0, weight 878/1024 (90.64 -> 91); XNNPACK lrintf(0.85714287 * 2048) = 1755
// (90.52 -> 91).
TEST(ResizeBilinearReference, NonIntegerRatio) {
  const ResizeGeometry g = row(3, 7);
  const std::vector<std::int8_t> x = {-128, 127, 0};
  const std::vector<int> tfl = bilinear(x, g, ResizeBilinearVariant::kTfliteInteger);
  const std::vector<int> xnn = bilinear(x, g, ResizeBilinearVariant::kXnnpackQ11);
  EXPECT_EQ(tfl[0], -128);
  EXPECT_EQ(tfl[1], -19);
  EXPECT_EQ(xnn[1], -19);
  EXPECT_EQ(tfl[2], 91);
  EXPECT_EQ(xnn[2], 91);
}

// half_pixel_centers, 2 -> 5: TFLite s10 = (2048 + 2) / 5 = 410, output 0 at 410 / 2 - 512 = -307:
// lo = hi = 0 (C division toward zero), so the edge pixel comes out unchanged; XNNPACK clamps the
// position to 0. Output 2 (the centre): TFLite 2 * 410 + 205 - 512 = 513 -> weight 513/1024, a
// hair past the middle; XNNPACK 2 * 0.4 + (0.2 - 0.5) = 0.5 exactly -> weight 1024/2048.
// x = {-1, 0}: TFLite -1 + 513/1024 = -0.499 -> 0; XNNPACK -0.5 half up -> 0; single build 0.
// x = {-2, 1}: TFLite -2 + 3 * 513 / 1024 = -0.497 -> 0; XNNPACK -0.5 -> 0.
// x = {-3, 0}: TFLite -3 + 3 * 513/1024 = -1.497 -> -1; XNNPACK -1.5 -> -1.
TEST(ResizeBilinearReference, HalfPixelEdgesAndCentre) {
  const ResizeGeometry g = row(2, 5, false, true);
  EXPECT_EQ(bilinear({-1, 0}, g, ResizeBilinearVariant::kTfliteInteger)[0], -1);
  EXPECT_EQ(bilinear({-1, 0}, g, ResizeBilinearVariant::kXnnpackQ11)[0], -1);
  EXPECT_EQ(bilinear({-1, 0}, g, ResizeBilinearVariant::kTfliteInteger)[4], 0);
  EXPECT_EQ(bilinear({-3, 0}, g, ResizeBilinearVariant::kTfliteInteger)[2], -1);
  EXPECT_EQ(bilinear({-3, 0}, g, ResizeBilinearVariant::kXnnpackQ11)[2], -1);
  EXPECT_EQ(bilinear({-4, -1}, g, ResizeBilinearVariant::kXnnpackQ11)[2], -2);  // -2.5 half up
  EXPECT_EQ(bilinear({-4, -1}, g, ResizeBilinearVariant::kTfliteInteger)[2], -2);  // -2.497
}

// align_corners, 3 -> 5: both map output 4 onto input 2 and output 2 onto input 1 exactly.
TEST(ResizeBilinearReference, AlignCornersHitsTheCorners) {
  const ResizeGeometry g = row(3, 5, true, false);
  for (auto v : {ResizeBilinearVariant::kTfliteInteger, ResizeBilinearVariant::kXnnpackQ11,
                 ResizeBilinearVariant::kFloat32}) {
    const std::vector<int> y = bilinear({-100, 7, 120}, g, v);
    EXPECT_EQ(y[0], -100);
    EXPECT_EQ(y[2], 7);
    EXPECT_EQ(y[4], 120);
  }
}

// uint8 float kernels: 2 -> 4 legacy, (3 + 4) / 2 = 3.5 -> trunc(3.5 + 0.5) = 4; the float32 style
// rounds half to even: 4 as well; (4 + 5) / 2 = 4.5: TFLite 5, float32 style 4.
TEST(ResizeBilinearReference, Uint8FloatKernels) {
  const ResizeGeometry g = row(2, 4);
  auto run = [&](std::vector<std::uint8_t> x, ResizeBilinearVariant v) {
    return static_cast<int>(qparity::reference::resize_bilinear(x, g, v)[1]);
  };
  EXPECT_EQ(run({3, 4}, ResizeBilinearVariant::kTfliteFloatReference), 4);
  EXPECT_EQ(run({3, 4}, ResizeBilinearVariant::kTfliteFloatOptimized), 4);
  EXPECT_EQ(run({4, 5}, ResizeBilinearVariant::kTfliteFloatReference), 5);
  EXPECT_EQ(run({4, 5}, ResizeBilinearVariant::kFloat32), 4);
}

TEST(ResizeBilinearReference, RefusesWhatTheKernelsCannotRun) {
  EXPECT_THROW(qparity::reference::resize_bilinear(std::vector<std::int8_t>{1, 2}, row(2, 4, true, true),
                                                   ResizeBilinearVariant::kTfliteInteger),
               qparity::InvalidArgument);
  // 1 -> 2000 in the legacy mapping: s10 = (1024 + 1000) / 2000 = 1, output 1999 at 1999 -> lo 1 of 1.
  EXPECT_THROW(qparity::reference::resize_bilinear(std::vector<std::int8_t>{1}, row(1, 2000),
                                                   ResizeBilinearVariant::kTfliteInteger),
               qparity::InvalidArgument);
  EXPECT_NO_THROW(qparity::reference::resize_bilinear(std::vector<std::int8_t>{1}, row(1, 2000),
                                                      ResizeBilinearVariant::kXnnpackQ11));
}

// Nearest: 3 -> 5 legacy picks floor(i * 0.6) = 0 0 1 1 2; align_corners round(i * 0.5) with ties
// away from zero = 0 1 1 2 2; half_pixel_centers floor((i + 0.5) * 0.6) = 0 0 1 2 2. The uint8
// fixed point (scale (3 << 16) / 5 + 1 = 39322) agrees here and parts from the float rule on
// 14 -> 46 at output 23 (float: 23 * float(14 / 46) = 6.9999995 -> 6; fixed point: 7).
TEST(ResizeNearestReference, IndexRules) {
  using qparity::reference::nearest_axis;
  const auto ref = ResizeNearestVariant::kTfliteReference;
  EXPECT_EQ(nearest_axis(ref, 3, 5, false, false), (std::vector<std::size_t>{0, 0, 1, 1, 2}));
  EXPECT_EQ(nearest_axis(ref, 3, 5, true, false), (std::vector<std::size_t>{0, 1, 1, 2, 2}));
  EXPECT_EQ(nearest_axis(ref, 3, 5, false, true), (std::vector<std::size_t>{0, 0, 1, 2, 2}));
  EXPECT_EQ(nearest_axis(ResizeNearestVariant::kTfliteOptimizedFixedPoint, 3, 5, false, false),
            (std::vector<std::size_t>{0, 0, 1, 1, 2}));
  const auto f = nearest_axis(ref, 14, 46, false, false);
  const auto q = nearest_axis(ResizeNearestVariant::kTfliteOptimizedFixedPoint, 14, 46, false, false);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < f.size(); ++i) differ += f[i] != q[i] ? 1 : 0;
  EXPECT_EQ(differ, 1u);
}

}  // namespace
