// ONNX Resize (modes linear and nearest) in the real ONNX Runtime (npm onnxruntime-node, CPU execution provider,
// one thread) against qparity's reference of it (include/qparity/reference/resize.h
// ort_resize_bilinear, ort_resize_nearest), at graph optimization levels `all` and `disabled`, in both
// forms:
//   plain  Resize on int8 / uint8 tensors: ORT's float weights on the stored integers, truncated;
//   qdq    DequantizeLinear -> Resize (float32) -> QuantizeLinear: the float blend, then MLAS's
//          QuantizeLinear (ORT fuses nothing here at either level).
// Opset 13, NCHW inputs resized in H and W through the `sizes` input, coordinate modes
// half_pixel, pytorch_half_pixel, asymmetric and align_corners (nearest: with the nearest modes
// round_prefer_floor, round_prefer_ceil, floor and ceil in turn), up- and downsampling at integer and
// non-integer ratios and 1-pixel sides, full-range data. The reference runs on the NHWC transpose.
// Each model is also read by qparity's .onnx reader (RESIZE_BILINEAR between NCHW <-> NHWC
// transposes) and run under ort-cpu (level all) and ort-cpu-unfused (level disabled): the whole path
// a user takes, tallied as its own row.
//
// Contrasts, each of which must get some element wrong: for the plain form, TFLite's 10-bit integer
// kernel on the matching TFLite options (the same positions for align_corners; half_pixel and
// asymmetric map onto half_pixel_centers and the legacy mapping) and ORT's own QDQ arithmetic; for
// the QDQ form, the plain form's truncation of the stored integers; for nearest, TFLite's index rule
// on the matching options.
// Label oracle; fails (never skips) without node or the npm package.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>

#include "model/onnx/onnx_reader.h"
#include "onnx_builder.h"
#include "onnx_test_support.h"
#include "oracle_tally.h"
#include "ort_runner.h"
#include "qparity/reference/resize.h"

namespace qparity_test {
namespace {

using qparity::cli::DType;
using qparity::cli::Tensor;
namespace ref = qparity::reference;

struct Case {
  DType dtype;
  bool qdq;
  bool nearest;  // mode nearest (nearest_mode nm), else linear
  ref::OnnxNearestMode nm;
  ref::OnnxCoordinateMode mode;
  std::size_t c, h, w, oh, ow;
  float scale;
  std::int64_t zp;
  std::string name;
};

const char* mode_name(ref::OnnxCoordinateMode m) {
  switch (m) {
    case ref::OnnxCoordinateMode::kHalfPixel: return "half_pixel";
    case ref::OnnxCoordinateMode::kPytorchHalfPixel: return "pytorch_half_pixel";
    case ref::OnnxCoordinateMode::kAsymmetric: return "asymmetric";
    case ref::OnnxCoordinateMode::kAlignCorners: return "align_corners";
  }
  return "?";
}

const char* nearest_name(ref::OnnxNearestMode m) {
  switch (m) {
    case ref::OnnxNearestMode::kRoundPreferFloor: return "round_prefer_floor";
    case ref::OnnxNearestMode::kRoundPreferCeil: return "round_prefer_ceil";
    case ref::OnnxNearestMode::kFloor: return "floor";
    case ref::OnnxNearestMode::kCeil: return "ceil";
  }
  return "?";
}

std::vector<std::uint8_t> resize_model(const Case& k) {
  OnnxBuilder b(13);
  b.input("x", k.dtype, {1, k.c, k.h, k.w});
  b.output("y", k.dtype, {1, k.c, k.oh, k.ow});
  Tensor sizes = qparity::cli::make_tensor(DType::kInt64, {4});
  const std::int64_t dims[] = {1, static_cast<std::int64_t>(k.c), static_cast<std::int64_t>(k.oh),
                               static_cast<std::int64_t>(k.ow)};
  for (std::size_t i = 0; i < 4; ++i) sizes.set_integer(i, dims[i]);
  b.initializer("sizes", sizes);
  const std::string in = k.qdq ? "xf" : "x", out = k.qdq ? "yf" : "y";
  if (k.qdq) {
    b.scales("s", {k.scale});
    b.zero_points("zp", k.dtype, {k.zp});
    b.node("DequantizeLinear", {"x", "s", "zp"}, {"xf"});
  }
  onnx::NodeProto& r = b.node("Resize", {in, "", "", "sizes"}, {out});
  OnnxBuilder::string_attr(r, "mode", k.nearest ? "nearest" : "linear");
  OnnxBuilder::string_attr(r, "coordinate_transformation_mode", mode_name(k.mode));
  if (k.nearest) OnnxBuilder::string_attr(r, "nearest_mode", nearest_name(k.nm));
  if (k.qdq) b.node("QuantizeLinear", {"yf", "s", "zp"}, {"y"});
  return b.bytes();
}

/// NCHW <-> NHWC of an 8-bit [1, C, H, W] / [1, H, W, C] buffer.
template <class T>
std::vector<T> to_nhwc(const T* x, std::size_t c, std::size_t h, std::size_t w) {
  std::vector<T> y(c * h * w);
  for (std::size_t i = 0; i < c; ++i)
    for (std::size_t p = 0; p < h * w; ++p) y[p * c + i] = x[i * h * w + p];
  return y;
}
template <class T>
std::vector<T> to_nchw(const std::vector<T>& x, std::size_t c, std::size_t h, std::size_t w) {
  std::vector<T> y(c * h * w);
  for (std::size_t i = 0; i < c; ++i)
    for (std::size_t p = 0; p < h * w; ++p) y[i * h * w + p] = x[p * c + i];
  return y;
}

/// Mismatching elements between ORT's NCHW output and an NHWC result.
template <class T>
std::size_t differ(const Tensor& ort, const std::vector<T>& nhwc, const Case& k, std::string* first) {
  const std::vector<T> want = to_nchw(nhwc, k.c, k.oh, k.ow);
  const T* got = reinterpret_cast<const T*>(ort.bytes.data());
  std::size_t n = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (got[i] == want[i]) continue;
    if (n++ == 0 && first != nullptr) {
      *first = "element " + std::to_string(i) + ": ORT " + std::to_string(static_cast<int>(got[i])) + ", expected " +
               std::to_string(static_cast<int>(want[i]));
    }
  }
  return n;
}

template <class T>
void compare(const Case& k, const std::vector<std::uint8_t>& model, const Tensor& x, const Tensor& ort,
             const std::string& opt) {
  ASSERT_EQ(ort.elements(), k.c * k.oh * k.ow) << k.name;
  ref::ResizeGeometry g;
  g.in_h = k.h;
  g.in_w = k.w;
  g.channels = k.c;
  g.out_h = k.oh;
  g.out_w = k.ow;
  const std::vector<T> xs = to_nhwc(reinterpret_cast<const T*>(x.bytes.data()), k.c, k.h, k.w);
  const ref::TensorQuant q{k.scale, static_cast<std::int32_t>(k.zp)};
  const std::vector<T> ours = k.nearest ? ref::ort_resize_nearest(xs, g, k.mode, k.nm)
                                        : ref::ort_resize_bilinear(xs, g, k.mode, k.qdq ? &q : nullptr);
  std::string first;
  const std::size_t wrong = differ(ort, ours, k, &first);
  EXPECT_EQ(wrong, 0u) << k.name << " opt " << opt << ": " << first;
  const std::string op = std::string(k.nearest ? "Resize nearest " : "Resize linear ") + qparity::cli::to_string(k.dtype);
  const std::string path = std::string(k.qdq ? "qdq" : "plain") + " opt " + opt;
  tally(op, path, k.nearest ? "ort_resize_nearest" : "ort_resize_bilinear", ours.size(), wrong);
  // The same model through the reader and the runner, under the profile of the level.
  const std::string profile = opt == "all" ? "ort-cpu" : "ort-cpu-unfused";
  if (!k.nearest && k.mode == ref::OnnxCoordinateMode::kPytorchHalfPixel && (k.oh == 1 || k.ow == 1)) {
    // The reader takes pytorch_half_pixel only where it is half_pixel (every output side > 1).
    EXPECT_ANY_THROW(qparity::model::read_onnx(model, k.name + ".onnx")) << k.name;
  } else {
    const qparity::model::Graph graph = qparity::model::read_onnx(model, k.name + ".onnx");
    const std::vector<Tensor> run = run_qparity(graph, {x}, profile);
    const OutputsCompared c = compare_outputs({ort}, run);
    EXPECT_EQ(c.wrong, 0u) << k.name << " under " << profile << ": " << c.first;
    tally(op, path, "qparity " + profile, c.elements, c.wrong);
  }
  if (k.nearest) {
    // TFLite's index rule on the matching options (asymmetric: the legacy mapping).
    if (k.mode != ref::OnnxCoordinateMode::kPytorchHalfPixel) {
      g.align_corners = k.mode == ref::OnnxCoordinateMode::kAlignCorners;
      g.half_pixel_centers = k.mode == ref::OnnxCoordinateMode::kHalfPixel;
      tally(op, "opt " + opt, "TFLite index rule (contrast)", ours.size(),
            differ(ort, ref::resize_nearest(xs, g, ref::ResizeNearestVariant::kTfliteReference), k, nullptr));
    }
    return;
  }
  if (k.qdq) {
    tally(op, path, "plain truncation (contrast)", ours.size(),
          differ(ort, ref::ort_resize_bilinear(xs, g, k.mode), k, nullptr));
    return;
  }
  tally(op, path, "ORT QDQ float (contrast)", ours.size(),
        differ(ort, ref::ort_resize_bilinear(xs, g, k.mode, &q), k, nullptr));
  if (k.mode != ref::OnnxCoordinateMode::kPytorchHalfPixel) {
    g.align_corners = k.mode == ref::OnnxCoordinateMode::kAlignCorners;
    g.half_pixel_centers = k.mode == ref::OnnxCoordinateMode::kHalfPixel;
    tally(op, path, "TFLite 10-bit integer (contrast)", ours.size(),
          differ(ort, ref::resize_bilinear(xs, g, ref::ResizeBilinearVariant::kTfliteInteger), k, nullptr));
  }
}

TEST(OnnxResizeOracle, LinearAndNearestPlainAndQdqBothLevels) {
  std::mt19937 rng(20261127);
  const ref::OnnxCoordinateMode modes[] = {ref::OnnxCoordinateMode::kHalfPixel,
                                           ref::OnnxCoordinateMode::kPytorchHalfPixel,
                                           ref::OnnxCoordinateMode::kAsymmetric,
                                           ref::OnnxCoordinateMode::kAlignCorners};
  struct Geo {
    std::size_t c, h, w, oh, ow;
  };
  const Geo geos[] = {{3, 3, 5, 7, 4}, {2, 4, 4, 8, 8}, {5, 8, 6, 3, 5}, {4, 1, 1, 3, 2},
                      {3, 2, 2, 1, 1}, {17, 7, 7, 13, 13}, {8, 16, 16, 5, 5}, {2, 1, 4, 4, 1}};
  std::vector<Case> cases;
  std::vector<OrtJob> jobs;
  int index = 0;
  const ref::OnnxNearestMode nearest_modes[] = {ref::OnnxNearestMode::kRoundPreferFloor,
                                                 ref::OnnxNearestMode::kRoundPreferCeil, ref::OnnxNearestMode::kFloor,
                                                 ref::OnnxNearestMode::kCeil};
  for (DType d : {DType::kInt8, DType::kUint8}) {
    for (bool qdq : {false, true}) {
      for (bool nearest : {false, true}) {
      for (const Geo& geo : geos) {
        for (ref::OnnxCoordinateMode m : modes) {
          // Nearest: every coordinate mode with every nearest mode over the geometries.
          const ref::OnnxNearestMode nm = nearest_modes[static_cast<std::size_t>(index) % 4];
          Case k{d, qdq, nearest, nm, m, geo.c, geo.h, geo.w, geo.oh, geo.ow,
                 0.02f + 0.01f * static_cast<float>(index % 5), d == DType::kInt8 ? -5 + index % 11 : 100 + index % 50,
                 ""};
          k.name = std::string(qparity::cli::to_string(d)) + (qdq ? " qdq " : " plain ") +
                   (nearest ? std::string("nearest ") + nearest_name(nm) + " " : std::string("linear ")) +
                   mode_name(m) + " " + std::to_string(geo.h) + "x" + std::to_string(geo.w) + " -> " +
                   std::to_string(geo.oh) + "x" + std::to_string(geo.ow) + " c" + std::to_string(geo.c);
          const std::int64_t lo = d == DType::kInt8 ? -128 : 0, hi = d == DType::kInt8 ? 127 : 255;
          jobs.push_back({k.name, resize_model(k), {random_tensor(rng, d, {1, geo.c, geo.h, geo.w}, lo, hi)}});
          cases.push_back(k);
          ++index;
        }
      }
      }
    }
  }
  for (const std::string opt : {"all", "disabled"}) {
    std::string setup_error;
    const std::vector<OrtResult> results = run_ort(jobs, opt, &setup_error);
    ASSERT_TRUE(setup_error.empty()) << setup_error;
    ASSERT_EQ(results.size(), jobs.size());
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      ASSERT_TRUE(results[i].ok) << cases[i].name << ": " << results[i].error;
      ASSERT_EQ(results[i].outputs.size(), 1u) << cases[i].name;
      if (cases[i].dtype == DType::kInt8) {
        compare<std::int8_t>(cases[i], jobs[i].model, jobs[i].inputs[0], results[i].outputs[0], opt);
      } else {
        compare<std::uint8_t>(cases[i], jobs[i].model, jobs[i].inputs[0], results[i].outputs[0], opt);
      }
    }
  }
  // Every contrast row must have found a difference (the comparison can fail).
  for (const char* t : {"int8", "uint8"}) {
    for (const std::string opt : {"all", "disabled"}) {
      const std::string op = std::string("Resize linear ") + t;
      for (const auto& [path, contrast] :
           {std::pair<std::string, std::string>{"plain opt " + opt, "ORT QDQ float (contrast)"},
            {"plain opt " + opt, "TFLite 10-bit integer (contrast)"},
            {"qdq opt " + opt, "plain truncation (contrast)"}}) {
        const TallyRow r = tally_row(op, path, contrast);
        EXPECT_GT(r.elements, 0u) << op << " " << path << " " << contrast;
        EXPECT_GT(r.mismatches, 0u) << op << " " << path << " " << contrast << ": the contrast never differs";
      }
      EXPECT_EQ(tally_row(op, "plain opt " + opt, "ort_resize_bilinear").mismatches, 0u);
      const std::string nop = std::string("Resize nearest ") + t;
      EXPECT_GT(tally_row(nop, "opt " + opt, "TFLite index rule (contrast)").mismatches, 0u) << nop;
      EXPECT_GT(tally_row(nop, "qdq opt " + opt, "ort_resize_nearest").elements, 0u) << nop;
      EXPECT_GT(tally_row(op, "qdq opt " + opt, std::string("qparity ") + (opt == "all" ? "ort-cpu" : "ort-cpu-unfused"))
                    .elements,
                0u);
    }
  }
}

}  // namespace
}  // namespace qparity_test
