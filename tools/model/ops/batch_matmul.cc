// BATCH_MATMUL: lhs [..., M, K] x rhs [..., K, N] -> [..., M, N] per batch, batch dimensions
// broadcast, adj_x / adj_y for transposed stored operands; per-tensor quantization, no fused
// activation. The arithmetic is include/qparity/reference/batch_matmul.h: one quantized GEMM per
// output batch under the node's preset (docs/semantics.md §21.15).
//
// System -> arithmetic: the preset's requantization of the product sum, as CONV_2D and
// FULLY_CONNECTED. TFLite's own kernel (optimized_ops::BatchMatMul through cpu_backend_gemm) is
// tflite_builtin_preset's; int8 only (TFLite's Prepare takes int8
// and int16 operands of one type). ONNX Runtime's QLinearMatMul with an N-D or run-time b (read as
// BATCH_MATMUL, §22.1) also takes uint8 operands: MLAS's QGEMM per batch with MlasRequantizeOutput
// (preset onnxruntime, pairsat16 for u8 x s8 without VNNI, system.cc); other systems refuse uint8
// when preparing.
//
// An int32 output makes it accumulate-only (ONNX's MatMulInteger with an N-D or run-time B): the raw
// sums under the system's accumulator model, as int32_accumulate.h's FULLY_CONNECTED.
//
// Engines: kFast runs the library's GEMM (qparity::gemm, the ISA's vector kernels), with one
// PackedGemm per matrix of a constant rhs packed at preparation; kReference runs
// qparity::reference::gemm per batch. TFLite's paths (measured with LiteRT.js,
// tests/model/oracle_batch_matmul_test.cc): XNNPACK's delegate takes int8 with a rhs zero point of
// 0 (xnnpack_preset: F32), TFLite's own kernel runs the rest with double rounding.
#include "model/ops/batch_matmul.h"

#include <fmt/format.h>

#include <type_traits>

#include "model/ops/conv_common.h"
#include "model/ops/op_variants.h"
#include "preset_params.h"
#include "qparity/accumulator.h"
#include "qparity/gemm.h"
#include "qparity/reference/batch_matmul.h"
#include "qparity/scale_composition.h"
#include "tflite_subset_generated.h"
#include "tool_error.h"

namespace qparity::model {

std::string BatchMatMulOptions::describe() const {
  return fmt::format("adj_x {}, adj_y {}", adj_x ? "true" : "false", adj_y ? "true" : "false");
}

namespace {

reference::BatchMatMulGeometry geometry(const Graph& g, const Node& n) {
  const auto& o = n.opts<BatchMatMulOptions>();
  try {
    return reference::batch_matmul_geometry(input_def(g, n, 0).shape, input_def(g, n, 1).shape, o.adj_x, o.adj_y);
  } catch (const InvalidArgument& e) {
    node_error(g, n, cli::without_library_prefix(e.what()));
  }
}

class BatchMatMulPrepared : public PreparedNode {
 public:
  BatchMatMulPrepared(const Graph& g, const Node& n, const System& sys, Engine engine)
      : system_(sys), engine_(engine), lhs_(n.inputs[0]), rhs_(n.inputs[1]), out_(n.outputs[0]), geo_(geometry(g, n)) {
    const TensorDef& lhs = input_def(g, n, 0);
    const TensorDef& rhs = input_def(g, n, 1);
    const TensorDef& out = g.tensors[static_cast<std::size_t>(out_)];
    if ((lhs.dtype != DType::kInt8 || rhs.dtype != DType::kInt8 || out.dtype != DType::kInt8) &&
        !is_onnxruntime_system(sys)) {
      node_error(g, n, fmt::format("lhs {}, rhs {}, output {} under {}; allowed: int8 throughout (TFLite's "
                                   "BATCH_MATMUL), uint8 only under ONNX Runtime's profiles (QLinearMatMul)",
                                   cli::to_string(lhs.dtype), cli::to_string(rhs.dtype), cli::to_string(out.dtype),
                                   sys.name));
    }
    lhs_type_ = lhs.dtype;
    out_type_ = out.dtype;
    rhs_u8_ = rhs.dtype == DType::kUint8;
    lhs_zero_point_ = static_cast<std::int32_t>(lhs.quant.zero_point());
    // A uint8 rhs r with zero point z gives the products of (r - 128) with zero point z - 128.
    rhs_zero_point_ = static_cast<std::int32_t>(rhs.quant.zero_point() - (rhs_u8_ ? 128 : 0));
    const float s_lhs = lhs.quant.scales[0], s_rhs = rhs.quant.scales[0], s_out = out.quant.scales[0];
    try {
      const EffectiveScale eff = compose_scale(sys.preset.composition, s_lhs, s_rhs, s_out);
      params_ = derive_requant_params(sys.preset.core, sys.preset.derivation, eff, 0.0f);
    } catch (const InvalidArgument& e) {
      node_error(g, n, fmt::format("lhs scale {}, rhs scale {}, output scale {} under preset {}: {}", s_lhs, s_rhs,
                                   s_out, sys.preset.name, cli::without_library_prefix(e.what())));
    }
    try {
      output_ = activation_output_params(Activation::kNone, sys.preset.clamp, s_out,
                                         static_cast<std::int32_t>(out.quant.zero_point()),
                                         out.dtype == DType::kInt8 ? OutputType::kInt8 : OutputType::kUint8);
    } catch (const InvalidArgument& e) {
      node_error(g, n, fmt::format("output: {}", cli::without_library_prefix(e.what())));
    }
    if (!rhs.constant()) return;
    rhs_const_ = rhs_int8(*rhs.data);
    if (engine != Engine::kFast || geo_.n == 0) return;  // N = 0: nothing to pack or compute
    const std::size_t matrices = rhs_const_.size() / (geo_.k * geo_.n);
    try {
      for (std::size_t b = 0; b < matrices; ++b) {
        GemmWeights w;
        w.n = geo_.n;
        w.k = geo_.k;
        w.b = rhs_const_.data() + b * geo_.k * geo_.n;
        w.layout = geo_.adj_y ? WeightLayout::kNxK : WeightLayout::kKxN;
        w.zero_points = rhs_zero_point_ != 0 ? &rhs_zero_point_ : nullptr;
        w.params = &params_;
        packed_.emplace_back(w, sys.preset.core, sys.preset.accumulator);
      }
    } catch (const InvalidArgument& e) {
      node_error(g, n, cli::without_library_prefix(e.what()));
    }
  }

  void run(std::vector<Tensor>& values) const override {
    const Tensor& lhs = values[static_cast<std::size_t>(lhs_)];
    Tensor& out = values[static_cast<std::size_t>(out_)];
    std::vector<std::int8_t> rhs_run;
    if (rhs_const_.empty()) rhs_run = rhs_int8(values[static_cast<std::size_t>(rhs_)]);
    const std::int8_t* rhs = rhs_const_.empty() ? rhs_run.data() : rhs_const_.data();
    with_conv_types(lhs_type_, out_type_, [&](auto a, auto o) {
      using A = decltype(a);
      using O = decltype(o);
      const A* lhs_data = reinterpret_cast<const A*>(lhs.bytes.data());
      std::vector<A> lhs_t;
      if (geo_.adj_x) {  // [..., K, M] -> [..., M, K]: the GEMM's A is row-major M x K
        lhs_t.resize(lhs.elements());
        reference::transpose_matrices(lhs_data, lhs_t.size() / (geo_.m * geo_.k), geo_.k, geo_.m, lhs_t.data());
        lhs_data = lhs_t.data();
      }
      O* out_data = reinterpret_cast<O*>(out.bytes.data());
      const std::int32_t* zp = rhs_zero_point_ != 0 ? &rhs_zero_point_ : nullptr;
      for (std::size_t b = 0; b < geo_.batches() && geo_.m * geo_.n != 0; ++b) {
        const GemmProblem<A, O> p =
            reference::batch_matmul_problem(geo_, b, lhs_data, lhs_zero_point_, rhs, zp, &params_, output_, out_data);
        if (!packed_.empty()) {
          qparity::gemm(packed_[geo_.rhs_batch(b)], GemmCall<A, O>{p.m, p.a, 0, p.a_zero_point, p.output, p.c, 0});
        } else if (engine_ == Engine::kFast) {
          qparity::gemm(p, system_.preset.core, system_.preset.accumulator);
        } else {
          qparity::reference::gemm(p, system_.preset.core, system_.preset.accumulator);
        }
      }
    });
  }

  std::vector<std::string> describe() const override {
    std::vector<std::string> l{fmt::format("arithmetic: {}", system_.name)};
    l.push_back(fmt::format("{} batches of [{}, {}] x [{}, {}] (include/qparity/reference/batch_matmul.h), adj_x {}, "
                            "adj_y {}",
                            geo_.batches(), geo_.m, geo_.k, geo_.k, geo_.n, geo_.adj_x, geo_.adj_y));
    l.push_back(fmt::format("core {}, {} accumulator; {}", to_string(system_.preset.core),
                            to_string(system_.preset.accumulator), cli::params_text(system_.preset.core, params_)));
    l.push_back(fmt::format("lhs zero point {}, rhs zero point {}{}, output zero point {}, clamp [{}, {}]",
                            lhs_zero_point_, rhs_zero_point_, rhs_u8_ ? " (uint8 rhs as r - 128)" : "",
                            output_.zero_point, output_.qmin, output_.qmax));
    if (!packed_.empty()) l.push_back(fmt::format("kernel: {}", packed_[0].kernel_name(geo_.m)));
    return l;
  }

 private:
  // rhs's stored values as int8 (uint8 as r - 128).
  std::vector<std::int8_t> rhs_int8(const Tensor& t) const {
    std::vector<std::int8_t> v(t.elements());
    for (std::size_t i = 0; i < v.size(); ++i) {
      v[i] = static_cast<std::int8_t>(rhs_u8_ ? static_cast<int>(t.bytes[i]) - 128 : static_cast<std::int8_t>(t.bytes[i]));
    }
    return v;
  }

  System system_;
  Engine engine_;
  int lhs_, rhs_, out_;
  reference::BatchMatMulGeometry geo_;
  DType lhs_type_{}, out_type_{};
  bool rhs_u8_ = false;
  std::int32_t lhs_zero_point_ = 0, rhs_zero_point_ = 0;
  RequantParams params_{};
  OutputParams output_{};
  std::vector<std::int8_t> rhs_const_;  // a constant rhs as int8; empty: read per run
  std::vector<PackedGemm> packed_;      // kFast, constant rhs: one per rhs matrix
};

// An int32 output: the raw accumulators of each batch's product (ONNX's MatMulInteger with an N-D
// or run-time B), sum over k of (lhs - zp_lhs) * (rhs - zp_rhs) under the system's accumulator model
// (qparity::accumulate: int32, or pairsat16 where the profile says ORT saturates int16 K pairs), no
// requantization; any signedness of either operand, as int32_accumulate.h's FULLY_CONNECTED.
class BatchMatMulAccumulatePrepared : public PreparedNode {
 public:
  BatchMatMulAccumulatePrepared(const Graph& g, const Node& n, const System& sys)
      : system_(sys), lhs_(n.inputs[0]), rhs_(n.inputs[1]), out_(n.outputs[0]), geo_(geometry(g, n)) {
    const TensorDef& lhs = input_def(g, n, 0);
    const TensorDef& rhs = input_def(g, n, 1);
    lhs_type_ = lhs.dtype;
    rhs_type_ = rhs.dtype;
    lhs_zero_point_ = static_cast<std::int32_t>(lhs.quant.zero_point());
    rhs_zero_point_ = static_cast<std::int32_t>(rhs.quant.zero_point());
    try {
      validate(sys.preset.accumulator);
    } catch (const InvalidArgument& e) {
      node_error(g, n, cli::without_library_prefix(e.what()));
    }
  }

  void run(std::vector<Tensor>& values) const override {
    const Tensor& lhs = values[static_cast<std::size_t>(lhs_)];
    const Tensor& rhs = values[static_cast<std::size_t>(rhs_)];
    std::int32_t* out = reinterpret_cast<std::int32_t*>(values[static_cast<std::size_t>(out_)].bytes.data());
    const std::size_t m_count = geo_.m, n_count = geo_.n, k = geo_.k;
    with_operand_types([&](auto a_tag, auto b_tag) {
      using A = decltype(a_tag);
      using B = decltype(b_tag);
      const A* a = reinterpret_cast<const A*>(lhs.bytes.data());
      const B* b = reinterpret_cast<const B*>(rhs.bytes.data());
      for (std::size_t batch = 0; batch < geo_.batches() && m_count * n_count != 0; ++batch) {
        const A* am = a + geo_.lhs_batch(batch) * m_count * k;
        const B* bm = b + geo_.rhs_batch(batch) * k * n_count;
        for (std::size_t m = 0; m < m_count; ++m) {
          // lhs row m: contiguous, or column m of the stored [K, M] matrix with adj_x.
          const detail::StridedView<A> row{geo_.adj_x ? am + m : am + m * k, geo_.adj_x ? m_count : 1};
          for (std::size_t n = 0; n < n_count; ++n) {
            // rhs column n: stride N in the stored [K, N] matrix, contiguous row n of [N, K] with adj_y.
            const detail::StridedView<B> col{geo_.adj_y ? bm + n * k : bm + n, geo_.adj_y ? 1 : n_count};
            out[(batch * m_count + m) * n_count + n] = static_cast<std::int32_t>(accumulate(
                system_.preset.accumulator, std::is_signed<A>::value, row, col, k, lhs_zero_point_, rhs_zero_point_, 0));
          }
        }
      }
    });
  }

  std::vector<std::string> describe() const override {
    return {fmt::format("arithmetic: {}", system_.name),
            fmt::format("accumulate only (int32 output, no requantization): {} batches of [{}, {}] x [{}, {}], "
                        "accumulator {}",
                        geo_.batches(), geo_.m, geo_.k, geo_.k, geo_.n, to_string(system_.preset.accumulator)),
            fmt::format("lhs zero point {}, rhs zero point {}", lhs_zero_point_, rhs_zero_point_)};
  }

 private:
  template <class F>
  void with_operand_types(F&& f) const {
    const bool a8 = lhs_type_ == DType::kInt8, b8 = rhs_type_ == DType::kInt8;
    if (a8 && b8) return f(std::int8_t{}, std::int8_t{});
    if (a8) return f(std::int8_t{}, std::uint8_t{});
    if (b8) return f(std::uint8_t{}, std::int8_t{});
    return f(std::uint8_t{}, std::uint8_t{});
  }

  System system_;
  int lhs_, rhs_, out_;
  reference::BatchMatMulGeometry geo_;
  DType lhs_type_{}, rhs_type_{};
  std::int32_t lhs_zero_point_ = 0, rhs_zero_point_ = 0;
};

class BatchMatMulOp : public Op {
 public:
  void check(Graph& g, const Node& n) const override {
    check_arity(g, n, 2, 2, 1);
    const TensorDef& lhs = input_def(g, n, 0);
    const TensorDef& rhs = input_def(g, n, 1);
    const TensorDef& out = output_def(g, n, 0);
    require_dtype(g, n, lhs, "lhs", {DType::kInt8, DType::kUint8});
    require_dtype(g, n, rhs, "rhs", {DType::kInt8, DType::kUint8});
    require_dtype(g, n, out, "output", {DType::kInt8, DType::kUint8, DType::kInt32});
    if (out.dtype == DType::kInt32) {  // accumulate only: zero points, any signedness, scales unused
      require_per_tensor(g, n, lhs, "lhs");
      require_per_tensor(g, n, rhs, "rhs");
      set_output_shape(g, n, 0, geometry(g, n).out_shape);
      return;
    }
    if (rhs.dtype == DType::kUint8 && lhs.dtype != DType::kUint8) {
      node_error(g, n, fmt::format("rhs '{}' is uint8 and lhs '{}' int8; allowed: a uint8 rhs with a uint8 lhs",
                                   rhs.name, lhs.name));
    }
    require_per_tensor(g, n, lhs, "lhs");
    require_per_tensor(g, n, rhs, "rhs");
    require_per_tensor(g, n, out, "output");
    set_output_shape(g, n, 0, geometry(g, n).out_shape);
  }

  std::unique_ptr<PreparedNode> prepare(const Graph& g, const Node& n, const System& sys, Engine engine) const override {
    check_system_fits(g, n, sys);
    if (g.tensors[static_cast<std::size_t>(n.outputs[0])].dtype == DType::kInt32) {
      return std::make_unique<BatchMatMulAccumulatePrepared>(g, n, sys);
    }
    return std::make_unique<BatchMatMulPrepared>(g, n, sys, engine);
  }

  std::shared_ptr<const OpOptions> read_tflite(const tflite::Operator& op, const std::string& label) const override {
    auto o = std::make_shared<BatchMatMulOptions>();
    const tflite::BatchMatMulOptions* t = op.builtin_options_as_BatchMatMulOptions();
    if (t == nullptr) return o;  // all false
    if (t->asymmetric_quantize_inputs()) {
      throw cli::ToolError(fmt::format("{}: asymmetric_quantize_inputs (dynamic-range quantization) is not "
                                       "supported; allowed: false",
                                       label));
    }
    o->adj_x = t->adj_x();
    o->adj_y = t->adj_y();
    return o;
  }

  TfliteOptions write_tflite(flatbuffers::FlatBufferBuilder& b, const Node& n) const override {
    const auto& o = n.opts<BatchMatMulOptions>();
    const auto off = tflite::CreateBatchMatMulOptions(b, o.adj_x, o.adj_y, false);
    return {tflite::BuiltinOptions_BatchMatMulOptions, off.o};
  }

  // XNNPACK's delegate takes an int8 BATCH_MATMUL whose rhs has zero point 0, constant or computed
  // at run time, and declines another rhs zero point (measured with LiteRT.js: F32 requantization on
  // the first, TFLite's kernel on the second, tests/model/oracle_batch_matmul_test.cc); tensors with
  // one scale and quantized_dimension 0, as for the other ops.
  bool xnnpack_takes(const Graph& g, const Node& n) const override {
    const TensorDef& lhs = input_def(g, n, 0);
    const TensorDef& rhs = input_def(g, n, 1);
    const TensorDef& out = g.tensors[static_cast<std::size_t>(n.outputs[0])];
    return lhs.dtype == DType::kInt8 && rhs.dtype == DType::kInt8 && out.dtype == DType::kInt8 &&
           xnnpack_per_tensor_8bit(lhs) && xnnpack_per_tensor_8bit(rhs) && xnnpack_per_tensor_8bit(out) &&
           rhs.quant.zero_point() == 0;
  }

  // TFLite's own kernel (optimized_ops::BatchMatMul through cpu_backend_gemm): double rounding
  // (DR-AZ, TFLite's default build), measured in LiteRT.js's WebAssembly build where the same
  // build's FULLY_CONNECTED rounds once; the x86 and ARM builds are assumed alike (UNVERIFIED).
  Preset tflite_builtin_preset(const Graph&, const Node&, Target) const override {
    return find_preset("tflite-reference");
  }

  // int8 throughout: a constant rhs (packed per matrix at preparation), a run-time rhs with a zero
  // point (TFLite's kernel), broadcast batch dimensions and adj_y, and adj_x (labels short enough
  // for `qparity list --ops`'s sample column).
  std::vector<OpSample> samples() const override {
    std::vector<OpSample> out;
    {
      SampleBuilder b("int8, constant rhs, zp 0");
      const int x = b.input("lhs", DType::kInt8, {2, 3, 8}, 0.05f, -3);
      const int w = b.constant("rhs", DType::kInt8, {8, 5}, -100, 100, GraphBuilder::per_tensor(0.02f, 0));
      const int y = b.output("y", DType::kInt8, 0.1f, 2);
      b.node(OpKind::kBatchMatMul, {x, w}, {y}, std::make_shared<BatchMatMulOptions>());
      out.push_back(b.finish());
    }
    {
      SampleBuilder b("int8, run-time rhs zp 4, adj_y");
      const int x = b.input("lhs", DType::kInt8, {2, 1, 3, 8}, 0.05f, -3);
      const int w = b.input("rhs", DType::kInt8, {2, 5, 8}, 0.02f, 4);
      const int y = b.output("y", DType::kInt8, 0.1f, 2);
      auto o = std::make_shared<BatchMatMulOptions>();
      o->adj_y = true;
      b.node(OpKind::kBatchMatMul, {x, w}, {y}, o);
      out.push_back(b.finish());
    }
    {
      SampleBuilder b("int8, run-time rhs zp 0, adj_x");
      const int x = b.input("lhs", DType::kInt8, {2, 8, 3}, 0.05f, -3);
      const int w = b.input("rhs", DType::kInt8, {2, 8, 4}, 0.02f, 0);
      const int y = b.output("y", DType::kInt8, 0.1f, 2);
      auto o = std::make_shared<BatchMatMulOptions>();
      o->adj_x = true;
      b.node(OpKind::kBatchMatMul, {x, w}, {y}, o);
      out.push_back(b.finish());
    }
    return out;
  }
};

}  // namespace

const Op& batch_matmul_op() {
  static const BatchMatMulOp op;
  return op;
}

}  // namespace qparity::model
