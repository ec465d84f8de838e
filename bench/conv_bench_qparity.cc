// conv_bench's qparity rows: the fast conv2d and depthwise
// conv2d of include/qparity/conv2d.h and depthwise_conv2d.h on every ISA path this CPU supports x
// every rounding core, on the same workload as the peers.
//
//   qparity/<isa>/<core>/<shape>   PackedConv2D / PackedDepthwiseConv2D(isa, ..., core) once, then
//                                  conv2d / depthwise_conv2d(packed, call)
//   qparity_halved/<isa>/F32-ZPF/<shape>
//                                  the same on oneDNN's arithmetic without int8 VNNI: its filter
//                                  halved, its weight scale doubled (onednn_arithmetic(w, 0.5))
//
// Each core gets per-channel parameters from the workload's real scales composed in float, derived
// the way the presets do: TFLite's QuantizeMultiplier for the fixed-point cores (reduced to Q15 for
// Q15), the float scale for F32 and F32-ZPF. Each row's output is checked against the reference
// before it is timed.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/conv_bench.h"
#include "bench/external_thread_pool.h"
#include "bench/conv_bench_workload.h"
#include "qparity/conv2d.h"
#include "qparity/depthwise_conv2d.h"
#include "qparity/isa.h"
#include "qparity/presets.h"

namespace qparity_bench {
namespace {

std::vector<qparity::RequantParams> params_for(qparity::RoundingCore core, const ConvWorkload& w) {
  const qparity::MultiplierDerivation derivation =
      qparity::is_float_core(core) ? qparity::MultiplierDerivation::kFloatScale
                                   : qparity::MultiplierDerivation::kTfliteDoubleBuild;
  std::vector<qparity::RequantParams> params;
  for (float s_w : w.weight_scales) {
    const qparity::EffectiveScale eff = qparity::compose_scale(
        qparity::ScaleComposition::kFloat, kConvInputScale, s_w, w.output_scale);
    params.push_back(qparity::derive_requant_params(core, derivation, eff));
  }
  return params;
}

/// How a row runs the packed layer.
enum class Run { kOneCall, kThreadedTwo, kTilesOnExternalPoolOfTwo };

/// One pool of two for every tile-split row (a process keeps one engine pool).
ExternalThreadPool& pool_of_two() {
  static ExternalThreadPool pool(2);
  return pool;
}

/// The operands of one row: the workload's filter, bias and `core`'s parameters, or (halved)
/// oneDNN's arithmetic without int8 VNNI, its filter halved (onednn_arithmetic(w, 0.5), core
/// F32-ZPF). Shared by the row's closure (the weights point into it).
struct RowOperands {
  std::vector<qparity::RequantParams> params;
  std::vector<std::int8_t> filter;  ///< the halved filter; empty: the workload's
  qparity::ConvWeights weights;
};

std::shared_ptr<const RowOperands> row_operands(const ConvWorkload& w, qparity::RoundingCore core,
                                                bool halved) {
  auto r = std::make_shared<RowOperands>();
  if (halved) {
    OnednnArithmetic a = onednn_arithmetic(w, 0.5f);
    r->params = std::move(a.params);
    r->filter = std::move(a.filter);
    r->weights = conv_weights(w, r->params, /*with_bias=*/false);
    r->weights.filter = r->filter.data();
  } else {
    r->params = params_for(core, w);
    r->weights = conv_weights(w, r->params);
  }
  return r;
}

PreparedConv prepare_qparity(qparity::Isa isa, qparity::RoundingCore core, const ConvBenchShape& s,
                             Run run, bool halved = false) {
  PreparedConv p;
  if ((qparity::supported_isas() & qparity::mask_of(isa)) == 0) {
    p.error = std::string("isa unavailable: ") + qparity::to_string(isa);
    return p;
  }
  const ConvWorkload& w = conv_workload(s);
  const std::shared_ptr<const RowOperands> operands = row_operands(w, core, halved);
  const qparity::ConvWeights& weights = operands->weights;
  auto out = std::make_shared<AlignedBuffer<std::int8_t>>(w.output_size());
  const qparity::ConvCall<std::int8_t, std::int8_t> call{
      w.input.data(), kConvInputZeroPoint,
      qparity::full_range_output(qparity::OutputType::kInt8, kConvOutputZeroPoint), out->data()};
  if (s.depthwise) {
    auto packed =
        std::make_shared<qparity::PackedDepthwiseConv2D>(isa, depthwise_geometry(s), weights, core);
    const std::size_t tiles = qparity::depthwise_conv2d_tile_count(*packed, 2);
    if (run == Run::kOneCall) {
      p.run = [packed, out, call, operands] { qparity::depthwise_conv2d(*packed, call); };
    } else if (run == Run::kThreadedTwo) {
      p.run = [packed, out, call, operands] { qparity::depthwise_conv2d_threaded(*packed, call, 2); };
    } else {
      p.run = [packed, out, call, operands, tiles] {
        if (tiles < 2) return qparity::depthwise_conv2d_tiles(*packed, call, 2, 0, tiles);  // as *_threaded
        pool_of_two().run([&](unsigned i) {
          qparity::depthwise_conv2d_tiles(*packed, call, 2, tiles * i / 2, tiles * (i + 1) / 2);
        });
      };
    }
    p.label = "kernel=" + packed->kernel_name();
  } else {
    auto packed = std::make_shared<qparity::PackedConv2D>(isa, conv_geometry(s), weights, core);
    const std::size_t tiles = qparity::conv2d_tile_count(*packed, 2);
    if (run == Run::kOneCall) {
      p.run = [packed, out, call, operands] { qparity::conv2d(*packed, call); };
    } else if (run == Run::kThreadedTwo) {
      p.run = [packed, out, call, operands] { qparity::conv2d_threaded(*packed, call, 2); };
    } else {
      p.run = [packed, out, call, operands, tiles] {
        if (tiles < 2) return qparity::conv2d_tiles(*packed, call, 2, 0, tiles);  // as *_threaded
        pool_of_two().run([&](unsigned i) {
          qparity::conv2d_tiles(*packed, call, 2, tiles * i / 2, tiles * (i + 1) / 2);
        });
      };
    }
    p.label = "kernel=" + packed->kernel_name();
  }
  if (run == Run::kThreadedTwo) p.label += " threads=2 (*_threaded)";
  if (run == Run::kTilesOnExternalPoolOfTwo) p.label += " threads=2 (tiles cut for 2 on an external pool)";
  p.run();
  const std::string mismatch = check_conv_against_reference(w, weights, core, out->data());
  if (!mismatch.empty()) p.error = "qparity " + mismatch;
  return p;
}

}  // namespace

void register_conv_qparity_rows() {
  for (qparity::Isa isa : qparity::all_isas()) {
    if ((qparity::supported_isas() & qparity::mask_of(isa)) == 0) continue;
    for (qparity::RoundingCore core : qparity::kAllRoundingCores) {
      register_conv_rows(
          std::string("qparity/") + qparity::to_string(isa) + "/" + qparity::to_string(core),
          [isa, core](const ConvBenchShape& s) { return prepare_qparity(isa, core, s, Run::kOneCall); },
          1);
    }
    // oneDNN's own arithmetic without int8 VNNI (issue 19 item 6: qparity given oneDNN's halved
    // filter and doubled weight scale, the `onednn` preset, against oneDNN's row of the same
    // arithmetic, onednn/<shape> labelled arith=halved-filter where oneDNN runs without VNNI).
    const auto f32zpf = qparity::RoundingCore::kFloat32ZeroPointInside;
    register_conv_rows(
        std::string("qparity_halved/") + qparity::to_string(isa) + "/" + qparity::to_string(f32zpf),
        [isa, f32zpf](const ConvBenchShape& s) {
          return prepare_qparity(isa, f32zpf, s, Run::kOneCall, /*halved=*/true);
        },
        1);
  }
  const qparity::Isa isa = qparity::active_isa();
  for (const auto& [prefix, run] : {std::pair{"t2/qparity/", Run::kThreadedTwo},
                                    std::pair{"t2/qparity_tiles/", Run::kTilesOnExternalPoolOfTwo}}) {
    for (qparity::RoundingCore core : qparity::kAllRoundingCores) {
      register_conv_rows(
          prefix + std::string(qparity::to_string(isa)) + "/" + qparity::to_string(core),
          [isa, core, run = run](const ConvBenchShape& s) { return prepare_qparity(isa, core, s, run); },
          2);
    }
  }
}

}  // namespace qparity_bench
