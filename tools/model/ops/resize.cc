// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR: an int8 / uint8 NHWC tensor resized in height and
// width to the size given by input 1 (a constant int32 tensor [2] = {height, width}). Neither op
// requantizes in any runtime: the kernels work on the stored integers, so qparity requires the
// output's scale and zero point to be the input's (a one-scale output quantized along another axis,
// which XNNPACK's delegate declines, is accepted: the oracle tests use it to reach TFLite's kernel).
//
// The arithmetic is include/qparity/reference/resize.h (docs/semantics.md §21.9); the node's
// system picks its variant:
//
//   style              RESIZE_BILINEAR                        RESIZE_NEAREST_NEIGHBOR
//   kTfliteReference   int8: kTfliteInteger, or kTflite-      kTfliteReference (GetNearestNeighbor)
//                      IntegerSingleRounding when the preset's
//                      core is SR-UP (TFLITE_SINGLE_ROUNDING=1);
//                      uint8: kTfliteFloatReference
//                      (tflite/kernels/resize_bilinear.cc
//                      Eval<kReference>)
//   kTfliteOptimized   int8: as kTfliteReference (Eval<kOpt-  int8: kTfliteReference; uint8:
//                      imized> calls ResizeBilinearInteger);  kTfliteOptimizedFixedPoint
//                      uint8: kTfliteFloatOptimized; the 8x   (resize_nearest_neighbor.cc: the
//                      special case ResizeBilinear888Uint8    optimized kernel's uint8 path)
//                      is refused (not modelled)
//   kXnnpack           kXnnpackQ11 (the delegate's            as kTfliteOptimized: XNNPACK's delegate
//                      VisitResizeBilinearNode: 4-D, static   has no 8-bit RESIZE_NEAREST_NEIGHBOR
//                      size, per-tensor 8-bit; flags          path (measured: LiteRT.js runs it in
//                      ALIGN_CORNERS / TENSORFLOW_LEGACY_MODE TFLite's kernel, docs/semantics.md
//                      from the options)                      §21.9); xnnpack_takes() is false
//   kFloat             ONNX Runtime's systems: kOnnxRuntime   a node read from ONNX (options.onnx_
//                      (its Resize on 8-bit tensors with the  nearest): ort_resize_nearest (measured;
//                      ONNX mode the options name; a QDQ      refused under every other system); else
//                                                             kTfliteReference (UNVERIFIED)
//                      group read from .onnx, under preset
//                      onnxruntime-qdq-float: dequantize,
//                      float Resize, QuantizeLinear;
//                      measured); the others kFloat32
//                      (UNVERIFIED)
//   kNpu               as kTfliteOptimized (UNVERIFIED        as kTfliteOptimized (UNVERIFIED)
//                      hypothesis: a vendor's converter is
//                      validated against TFLite's CPU kernel)
//
// *Measured* against LiteRT.js (tests/model/oracle_resize_test.cc): int8 and uint8, both options,
// both paths (XNNPACK and TFLite's kernel). Both engines run the reference (the op moves or blends
// a few values per output; nothing to vectorise yet).
#include "model/ops/resize.h"

#include <fmt/format.h>

#include <cstring>

#include "model/op.h"
#include "model/ops/data_ops.h"
#include "model/ops/op_variants.h"
#include "preset_params.h"
#include "qparity/reference/resize.h"
#include "tflite_subset_generated.h"
#include "tool_error.h"

namespace qparity::model {

const char* to_string(reference::OnnxCoordinateMode mode) {
  switch (mode) {
    case reference::OnnxCoordinateMode::kHalfPixel: return "half_pixel";
    case reference::OnnxCoordinateMode::kPytorchHalfPixel: return "pytorch_half_pixel";
    case reference::OnnxCoordinateMode::kAsymmetric: return "asymmetric";
    case reference::OnnxCoordinateMode::kAlignCorners: return "align_corners";
  }
  return "?";
}

const char* to_string(reference::OnnxNearestMode mode) {
  switch (mode) {
    case reference::OnnxNearestMode::kRoundPreferFloor: return "round_prefer_floor";
    case reference::OnnxNearestMode::kRoundPreferCeil: return "round_prefer_ceil";
    case reference::OnnxNearestMode::kFloor: return "floor";
    case reference::OnnxNearestMode::kCeil: return "ceil";
  }
  return "?";
}

std::string ResizeOptions::describe() const {
  if (onnx_nearest) {
    return fmt::format("ONNX coordinate_transformation_mode {}, nearest_mode {}", to_string(onnx_nearest->coordinates),
                       to_string(onnx_nearest->nearest));
  }
  return fmt::format("align_corners {}, half_pixel_centers {}", align_corners, half_pixel_centers);
}

namespace {

using reference::ResizeBilinearVariant;
using reference::ResizeGeometry;
using reference::ResizeNearestVariant;

/// The largest height or width qparity takes, on either side: TFLite's uint8 nearest-neighbour
/// kernel computes `in << 16` in int32.
constexpr std::int64_t kMaxSide = 32767;

const char* bilinear_variant_text(ResizeBilinearVariant v) {
  switch (v) {
    case ResizeBilinearVariant::kTfliteInteger:
      return "TFLite ResizeBilinearInteger, default build: 10-bit weights, int64 sum, (acc +- 2^19) / 2^20 (round "
             "half away from zero)";
    case ResizeBilinearVariant::kTfliteIntegerSingleRounding:
      return "TFLite ResizeBilinearInteger, TFLITE_SINGLE_ROUNDING build: 10-bit weights, int64 sum, (acc + 2^19) >> "
             "20 (round half up)";
    case ResizeBilinearVariant::kTfliteFloatReference:
      return "TFLite reference ResizeBilinear<uint8>: float32 weights, x * wy * wx summed in float, trunc(sum + 0.5f)";
    case ResizeBilinearVariant::kTfliteFloatOptimized:
      return "TFLite optimized ResizeBilinearGenericSmallChannel<uint8>: float32 weights wy * wx formed first, "
             "summed in float, trunc(sum + 0.5f)";
    case ResizeBilinearVariant::kXnnpackQ11:
      return "XNNPACK ibilinear: 11-bit weights lrintf(alpha * 2048), int32 horizontal then vertical blend, (acc + "
             "2^21) >> 22 (round half up)";
    case ResizeBilinearVariant::kFloat32:
      return "float32 style (UNVERIFIED): TFLite's float weights, sum rounded half to even";
    case ResizeBilinearVariant::kOnnxRuntime:
      return "ONNX Runtime Resize (linear) on 8-bit tensors: ONNX coordinates (align_corners, half_pixel or "
             "asymmetric as the options name), float32 weights, sum truncated toward zero";
  }
  return "?";
}

const char* nearest_variant_text(ResizeNearestVariant v, bool options) {
  if (v == ResizeNearestVariant::kTfliteOptimizedFixedPoint && !options) {
    return "TFLite optimized uint8: 16.16 fixed point, src = min((i * ((in << 16) / out + 1)) >> 16, in - 1)";
  }
  return "TFLite GetNearestNeighbor: float32 scale, src = floor((i + offset) * scale) (align_corners: round half "
         "away from zero), clamped to the input";
}

ResizeBilinearVariant bilinear_variant(const System& sys, DType d) {
  const bool int8 = d == DType::kInt8;
  switch (sys.style) {
    case OpStyle::kTfliteReference:
      if (!int8) return ResizeBilinearVariant::kTfliteFloatReference;
      return tflite_build_of(sys.preset) == TfliteBuild::kSingleRounding
                 ? ResizeBilinearVariant::kTfliteIntegerSingleRounding
                 : ResizeBilinearVariant::kTfliteInteger;
    case OpStyle::kTfliteOptimized:
    case OpStyle::kNpu:
      if (!int8) return ResizeBilinearVariant::kTfliteFloatOptimized;
      return tflite_build_of(sys.preset) == TfliteBuild::kSingleRounding
                 ? ResizeBilinearVariant::kTfliteIntegerSingleRounding
                 : ResizeBilinearVariant::kTfliteInteger;
    case OpStyle::kXnnpack: return ResizeBilinearVariant::kXnnpackQ11;
    case OpStyle::kFloat:
      return is_onnxruntime_system(sys) ? ResizeBilinearVariant::kOnnxRuntime : ResizeBilinearVariant::kFloat32;
  }
  return ResizeBilinearVariant::kTfliteInteger;
}

ResizeNearestVariant nearest_variant(const System& sys, DType d) {
  switch (sys.style) {
    case OpStyle::kTfliteOptimized:
    case OpStyle::kXnnpack:
    case OpStyle::kNpu:
      return d == DType::kUint8 ? ResizeNearestVariant::kTfliteOptimizedFixedPoint
                                : ResizeNearestVariant::kTfliteReference;
    case OpStyle::kTfliteReference:
    case OpStyle::kFloat: return ResizeNearestVariant::kTfliteReference;
  }
  return ResizeNearestVariant::kTfliteReference;
}

/// The geometry of a checked node: input [N, H, W, C], size {out_h, out_w}, the options.
ResizeGeometry geometry_of(const Graph& g, const Node& n) {
  const TensorDef& in = input_def(g, n, 0);
  const TensorDef& size = input_def(g, n, 1);
  const ResizeOptions& o = n.opts<ResizeOptions>();
  ResizeGeometry geo;
  geo.batches = in.shape[0];
  geo.in_h = in.shape[1];
  geo.in_w = in.shape[2];
  geo.channels = in.shape[3];
  geo.out_h = static_cast<std::size_t>(size.data->integer_at(0));
  geo.out_w = static_cast<std::size_t>(size.data->integer_at(1));
  geo.align_corners = o.align_corners;
  geo.half_pixel_centers = o.half_pixel_centers;
  return geo;
}

std::string geometry_text(const ResizeGeometry& geo) {
  return fmt::format("{}x{} -> {}x{} ({} images of {} channels), align_corners {}, half_pixel_centers {}", geo.in_h,
                     geo.in_w, geo.out_h, geo.out_w, geo.batches, geo.channels, geo.align_corners,
                     geo.half_pixel_centers);
}

class ResizePrepared : public PreparedNode {
 public:
  ResizePrepared(const Graph& g, const Node& n, const System& sys)
      : system_(sys), bilinear_(n.op == OpKind::kResizeBilinear), in_(n.inputs[0]), out_(n.outputs[0]) {
    const TensorDef& in = input_def(g, n, 0);
    dtype_ = in.dtype;
    geo_ = geometry_of(g, n);
    quant_ = quant_text(in);
    in_q_ = tensor_quant(in);
    if (bilinear_) {
      bilinear_variant_ = bilinear_variant(sys, dtype_);
      // An unfused QDQ group (ort_system: preset onnxruntime-qdq-float): dequantize, float Resize,
      // QuantizeLinear.
      ort_qdq_ = bilinear_variant_ == ResizeBilinearVariant::kOnnxRuntime && sys.preset.name == "onnxruntime-qdq-float";
      if (bilinear_variant_ == ResizeBilinearVariant::kTfliteFloatOptimized &&
          reference::resize_bilinear_888_special_case(geo_)) {
        node_error(g, n, fmt::format("{} under {}: TFLite's optimized uint8 kernel runs its 8x upsampling special "
                                     "case (ResizeBilinear888Uint8) here, whose arithmetic qparity does not model; "
                                     "allowed: any other size, channel count or option, or a TFLite reference or "
                                     "XNNPACK arithmetic", geometry_text(geo_), sys.name));
      }
      // Checks the sizes the variant can run (TFLite's integer kernel would read outside the input
      // on some huge upsamplings) now rather than at run time.
      if (bilinear_variant_ != ResizeBilinearVariant::kOnnxRuntime) {
        try {
          (void)reference::detail::bilinear_axis(bilinear_variant_, geo_.in_h, geo_.out_h, geo_.align_corners,
                                                 geo_.half_pixel_centers, "height");
          (void)reference::detail::bilinear_axis(bilinear_variant_, geo_.in_w, geo_.out_w, geo_.align_corners,
                                                 geo_.half_pixel_centers, "width");
        } catch (const InvalidArgument& e) {
          node_error(g, n, fmt::format("{} under {}: {}", geometry_text(geo_), sys.name,
                                       cli::without_library_prefix(e.what())));
        }
      }
    } else {
      nearest_variant_ = nearest_variant(sys, dtype_);
      onnx_nearest_ = n.opts<ResizeOptions>().onnx_nearest;
      if (onnx_nearest_ && !is_onnxruntime_system(sys)) {
        node_error(g, n, fmt::format("read from an ONNX Resize in mode nearest ({}) under {}: only ONNX Runtime's "
                                     "systems run ONNX's nearest rules (TFLite's RESIZE_NEAREST_NEIGHBOR picks other "
                                     "indices); allowed: the ort-cpu* profiles and the onnxruntime presets",
                                     n.options->describe(), sys.name));
      }
    }
  }

  void run(std::vector<Tensor>& values) const override {
    const Tensor& x = values[static_cast<std::size_t>(in_)];
    Tensor& y = values[static_cast<std::size_t>(out_)];
    with_8bit_type(dtype_, [&](auto t) {
      using T = decltype(t);
      std::vector<T> out;
      if (!bilinear_ && onnx_nearest_) {
        out = reference::ort_resize_nearest<T>(elements_of<T>(x), geo_, onnx_nearest_->coordinates,
                                               onnx_nearest_->nearest);
      } else if (!bilinear_) {
        out = reference::resize_nearest<T>(elements_of<T>(x), geo_, nearest_variant_);
      } else if (ort_qdq_) {
        out = reference::ort_resize_bilinear<T>(elements_of<T>(x), geo_, reference::onnx_mode_of(geo_), &in_q_);
      } else {
        out = reference::resize_bilinear<T>(elements_of<T>(x), geo_, bilinear_variant_);
      }
      if (!out.empty()) std::memcpy(data_of<T>(y), out.data(), out.size());
    });
  }

  std::vector<std::string> describe() const override {
    const std::string npu = system_.style == OpStyle::kNpu ? "NPU hypothesis (UNVERIFIED): " : "";
    return {fmt::format("arithmetic: {}", system_.name),
            fmt::format("{} {}, {} (input and output)", bilinear_ ? "RESIZE_BILINEAR" : "RESIZE_NEAREST_NEIGHBOR",
                        geometry_text(geo_), quant_),
            npu + (!bilinear_ && onnx_nearest_
                       ? fmt::format("ONNX Runtime Resize (nearest): ONNX positions ({}), nearest_mode {}, clamped to "
                                     "the input; an axis of scale 1 copied", to_string(onnx_nearest_->coordinates),
                                     to_string(onnx_nearest_->nearest))
                   : !bilinear_ ? nearest_variant_text(nearest_variant_, geo_.align_corners || geo_.half_pixel_centers)
                   : ort_qdq_  ? "ONNX Runtime QDQ group DequantizeLinear -> Resize (linear, float32) -> "
                                 "QuantizeLinear: float(x - zp) * s blended with ONNX coordinates and float32 "
                                 "weights, then y / s rounded half to even + zp"
                               : bilinear_variant_text(bilinear_variant_))};
  }

 private:
  System system_;
  bool bilinear_;
  int in_, out_;
  DType dtype_ = DType::kInt8;
  ResizeGeometry geo_;
  std::string quant_;
  ResizeBilinearVariant bilinear_variant_ = ResizeBilinearVariant::kTfliteInteger;
  ResizeNearestVariant nearest_variant_ = ResizeNearestVariant::kTfliteReference;
  reference::TensorQuant in_q_;
  bool ort_qdq_ = false;
  std::optional<OnnxNearestRule> onnx_nearest_;
};

class ResizeOp : public Op {
 public:
  explicit ResizeOp(OpKind kind) : kind_(kind) {}

  // int8 and uint8, each option, up- and downsampling at non-integer ratios.
  std::vector<OpSample> samples() const override {
    struct S {
      const char* label;
      DType d;
      std::vector<std::size_t> in;
      std::int64_t oh, ow;
      bool align, half;
    };
    const S all[] = {
        {"int8, half_pixel, 3x5 -> 7x4", DType::kInt8, {1, 3, 5, 3}, 7, 4, false, true},
        {"int8, legacy mapping, 4x4 -> 6x3", DType::kInt8, {1, 4, 4, 2}, 6, 3, false, false},
        {"uint8, align_corners, 5x3 -> 2x7", DType::kUint8, {2, 5, 3, 2}, 2, 7, true, false},
    };
    std::vector<OpSample> out;
    for (const S& s : all) {
      SampleBuilder b(s.label);
      const std::int64_t zp = s.d == DType::kInt8 ? -3 : 128;
      const int x = b.input("x", s.d, s.in, 0.05f, zp);
      const int size = b.constant_values("size", DType::kInt32, {2}, {s.oh, s.ow});
      const int y = b.output("y", s.d, 0.05f, zp);
      auto o = std::make_shared<ResizeOptions>();
      o->align_corners = s.align;
      o->half_pixel_centers = s.half;
      b.node(kind_, {x, size}, {y}, o);
      out.push_back(b.finish());
    }
    return out;
  }

  void check(Graph& g, const Node& n) const override {
    check_arity(g, n, 2, 2, 1);
    const TensorDef& in = input_def(g, n, 0);
    const TensorDef& size = input_def(g, n, 1);
    const TensorDef& out = output_def(g, n, 0);
    require_dtype(g, n, in, "input", {DType::kInt8, DType::kUint8});
    if (out.dtype != in.dtype) {
      node_error(g, n, fmt::format("output '{}' is {}, the input {}; allowed: the same type", out.name,
                                   cli::to_string(out.dtype), cli::to_string(in.dtype)));
    }
    if (in.shape.size() != 4) {
      node_error(g, n, fmt::format("input '{}' has shape {}; allowed: rank 4 (NHWC)", in.name,
                                   cli::shape_text(in.shape)));
    }
    for (std::size_t d = 1; d <= 2; ++d) {
      if (in.shape[d] < 1 || in.shape[d] > static_cast<std::size_t>(kMaxSide)) {
        node_error(g, n, fmt::format("input '{}' has {} {}; allowed: 1 to {}", in.name, d == 1 ? "height" : "width",
                                     in.shape[d], kMaxSide));
      }
    }
    require_per_tensor(g, n, in, "input");
    require_valid_scales(g, n, in, "input");
    if (out.quant.scales.size() != 1 || !same_quantization(in, out)) {
      node_error(g, n, fmt::format("output '{}' is quantized differently from input '{}'; allowed: the same scale "
                                   "and zero point (TFLite's and XNNPACK's kernels interpolate the stored integers, "
                                   "they do not requantize)", out.name, in.name));
    }
    if (size.dtype != DType::kInt32) {
      node_error(g, n, fmt::format("size '{}' is {}; allowed: int32", size.name, cli::to_string(size.dtype)));
    }
    if (!size.constant()) {
      node_error(g, n, fmt::format("size '{}' is computed at run time; allowed: a constant tensor (qparity needs the "
                                   "output shape before running)", size.name));
    }
    if (size.shape != std::vector<std::size_t>{2}) {
      node_error(g, n, fmt::format("size '{}' has shape {}; allowed: [2] (new height, new width)", size.name,
                                   cli::shape_text(size.shape)));
    }
    const std::int64_t oh = size.data->integer_at(0), ow = size.data->integer_at(1);
    if (oh < 1 || oh > kMaxSide || ow < 1 || ow > kMaxSide) {
      node_error(g, n, fmt::format("size '{}' is [{}, {}]; allowed: height and width 1 to {}", size.name, oh, ow,
                                   kMaxSide));
    }
    if (!n.options) node_error(g, n, "no options (align_corners, half_pixel_centers)");
    const ResizeOptions& o = n.opts<ResizeOptions>();
    if (o.onnx_nearest && (kind_ != OpKind::kResizeNearestNeighbor || o.align_corners || o.half_pixel_centers)) {
      node_error(g, n, "ONNX nearest rule on a RESIZE_BILINEAR, or together with align_corners / half_pixel_centers; "
                       "allowed: on RESIZE_NEAREST_NEIGHBOR alone");
    }
    if (o.align_corners && o.half_pixel_centers) {
      node_error(g, n, "options align_corners and half_pixel_centers are both true; allowed: at most one (TFLite's "
                       "Prepare refuses both)");
    }
    set_output_shape(g, n, 0, {in.shape[0], static_cast<std::size_t>(oh), static_cast<std::size_t>(ow), in.shape[3]});
  }

  std::unique_ptr<PreparedNode> prepare(const Graph& g, const Node& n, const System& sys, Engine) const override {
    check_system_fits(g, n, sys);
    return std::make_unique<ResizePrepared>(g, n, sys);
  }

  // RESIZE_BILINEAR: VisitResizeBilinearNode (tflite/delegates/xnnpack/xnnpack_delegate.cc) takes a
  // 4-D input with a static int32 size and per-tensor 8-bit input and output; check() has already
  // required the rest. RESIZE_NEAREST_NEIGHBOR: not for 8-bit tensors (see the top of this file).
  bool xnnpack_takes(const Graph& g, const Node& n) const override {
    if (kind_ != OpKind::kResizeBilinear) return false;
    return xnnpack_per_tensor_8bit(input_def(g, n, 0)) && xnnpack_per_tensor_8bit(g.tensors[static_cast<std::size_t>(n.outputs[0])]);
  }

  std::shared_ptr<const OpOptions> read_tflite(const tflite::Operator& op, const std::string&) const override {
    auto o = std::make_shared<ResizeOptions>();
    // Without an options table TFLite's parser leaves both flags false.
    if (kind_ == OpKind::kResizeBilinear) {
      if (const tflite::ResizeBilinearOptions* t = op.builtin_options_as_ResizeBilinearOptions()) {
        o->align_corners = t->align_corners();
        o->half_pixel_centers = t->half_pixel_centers();
      }
    } else if (const tflite::ResizeNearestNeighborOptions* t = op.builtin_options_as_ResizeNearestNeighborOptions()) {
      o->align_corners = t->align_corners();
      o->half_pixel_centers = t->half_pixel_centers();
    }
    return o;
  }

  TfliteOptions write_tflite(flatbuffers::FlatBufferBuilder& b, const Node& n) const override {
    const ResizeOptions& o = n.opts<ResizeOptions>();
    if (o.onnx_nearest) {
      throw cli::ToolError(fmt::format("node '{}': RESIZE_NEAREST_NEIGHBOR with ONNX's index rule ({}) has no .tflite "
                                       "form (TFLite's options name other rules)", n.name, o.describe()));
    }
    if (kind_ == OpKind::kResizeBilinear) {
      return {tflite::BuiltinOptions_ResizeBilinearOptions,
              tflite::CreateResizeBilinearOptions(b, o.align_corners, o.half_pixel_centers).o};
    }
    return {tflite::BuiltinOptions_ResizeNearestNeighborOptions,
            tflite::CreateResizeNearestNeighborOptions(b, o.align_corners, o.half_pixel_centers).o};
  }

 private:
  OpKind kind_;
};

}  // namespace

const Op& resize_bilinear_op() {
  static const ResizeOp op(OpKind::kResizeBilinear);
  return op;
}

const Op& resize_nearest_neighbor_op() {
  static const ResizeOp op(OpKind::kResizeNearestNeighbor);
  return op;
}

}  // namespace qparity::model
