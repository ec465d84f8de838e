// pool_bench: the compiled pooling kernels (include/qparity/pooling.h) against the header-only
// scalar references (reference/pooling.h, reference/mean.h) on MobileNet v2 / ResNet shapes, one
// thread. Rows
//   pool/<layer>/<variant>/<isa>         the compiled path forced to <isa> (every supported ISA
//                                        with pooling kernels of its own: scalar, avx2, avx512)
//   pool/<layer>/<variant>/reference     the reference header's function (std::vector in and out)
// Layers:
//   gap7x7x1280  MobileNet v2's global average pool, 1x7x7x1280 int8: MEAN over H,W (TFLite
//                optimized, XNNPACK) and AVERAGE_POOL_2D 7x7 VALID (the older converters' form)
//   max3x3s2_112x112x64  ResNet's stem max pool, 3x3 stride 2 SAME on 1x112x112x64 int8
// Counters: items_per_second = input elements per second (the input tensor's size per call).
// Every row first checks its output against the reference (a mismatch aborts the benchmark).
//
//   ./build/bench/pool_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//                            --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "qparity/isa.h"
#include "qparity/pooling.h"
#include "qparity/reference/mean.h"
#include "qparity/reference/pooling.h"

namespace {

using namespace qparity;
using reference::Shape4;
using reference::TensorQuant;

std::vector<std::int8_t> random_input(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<std::int8_t> v(n);
  for (auto& x : v) x = static_cast<std::int8_t>(d(rng));
  return v;
}

struct Layer {
  std::string name;
  std::string variant;
  Shape4 shape;
  std::size_t out_size;
  /// Runs the compiled path on `isa` into y.
  std::function<void(Isa, const std::int8_t*, std::int8_t*)> fast;
  /// The reference's output.
  std::function<std::vector<std::int8_t>(const std::vector<std::int8_t>&)> ref;
};

std::vector<Layer> layers() {
  std::vector<Layer> l;
  const Shape4 gap{1, 7, 7, 1280};
  const TensorQuant q_in{0.0235f, -128}, q_out{0.0117f, -128};
  for (const auto& [name, v] : std::vector<std::pair<std::string, reference::MeanVariant>>{
           {"mean_tflite_optimized", reference::MeanVariant::kTfliteOptimizedHW},
           {"mean_xnnpack", reference::MeanVariant::kXnnpack}}) {
    Layer layer;
    layer.name = "gap7x7x1280";
    layer.variant = name;
    layer.shape = gap;
    layer.out_size = gap.n * gap.c;
    layer.fast = [gap, q_in, q_out, v](Isa isa, const std::int8_t* x, std::int8_t* y) {
      mean_hw(isa, x, gap, q_in, q_out, v, y);
    };
    layer.ref = [gap, q_in, q_out, v](const std::vector<std::int8_t>& x) {
      reference::MeanSpec spec;
      spec.axes = {1, 2};
      spec.keep_dims = true;
      return reference::mean(x, {gap.n, gap.h, gap.w, gap.c}, spec, q_in, q_out, v);
    };
    l.push_back(layer);
  }
  {
    reference::PoolWindow w;
    w.filter_h = w.filter_w = 7;
    w.padding = Padding::kValid;
    Layer layer;
    layer.name = "gap7x7x1280";
    layer.variant = "avgpool_tflite";
    layer.shape = gap;
    layer.out_size = gap.n * gap.c;
    layer.fast = [gap, w, q_in](Isa isa, const std::int8_t* x, std::int8_t* y) {
      average_pool(isa, x, gap, w, q_in, q_in, Activation::kNone, reference::AveragePoolVariant::kTflite, y);
    };
    layer.ref = [gap, w, q_in](const std::vector<std::int8_t>& x) {
      return reference::average_pool(x, gap, w, q_in, q_in, Activation::kNone, reference::AveragePoolVariant::kTflite);
    };
    l.push_back(layer);
  }
  {
    const Shape4 s{1, 112, 112, 64};
    reference::PoolWindow w;
    w.filter_h = w.filter_w = 3;
    w.stride_h = w.stride_w = 2;
    w.padding = Padding::kSame;
    const TensorQuant q{0.05f, -128};
    for (const auto& [name, v] : std::vector<std::pair<std::string, reference::MaxPoolVariant>>{
             {"maxpool_tflite", reference::MaxPoolVariant::kTflite},
             {"maxpool_xnnpack", reference::MaxPoolVariant::kXnnpack}}) {
      Layer layer;
      layer.name = "max3x3s2_112x112x64";
      layer.variant = name;
      layer.shape = s;
      layer.out_size = reference::pool_output_shape(s, w).size();
      layer.fast = [s, w, q, v](Isa isa, const std::int8_t* x, std::int8_t* y) {
        max_pool(isa, x, s, w, q, Activation::kRelu6, v, y);
      };
      layer.ref = [s, w, q, v](const std::vector<std::int8_t>& x) {
        return reference::max_pool(x, s, w, q, Activation::kRelu6, v);
      };
      l.push_back(layer);
    }
  }
  return l;
}

void register_all() {
  for (const Layer& layer : layers()) {
    const std::vector<std::int8_t> x = random_input(layer.shape.size(), 1234);
    const std::vector<std::int8_t> want = layer.ref(x);
    const double items = static_cast<double>(layer.shape.size());
    for (Isa isa : all_isas()) {
      if ((supported_isas() & mask_of(isa)) == 0 || pooling_kernel_isa(isa) != isa) continue;
      std::vector<std::int8_t> got(layer.out_size);
      layer.fast(isa, x.data(), got.data());
      if (std::memcmp(got.data(), want.data(), want.size()) != 0) {
        std::fprintf(stderr, "pool_bench: %s/%s on %s differs from the reference\n", layer.name.c_str(),
                     layer.variant.c_str(), to_string(isa));
        std::exit(1);
      }
      benchmark::RegisterBenchmark(("pool/" + layer.name + "/" + layer.variant + "/" + to_string(isa)).c_str(),
                                   [layer, x, isa, items](benchmark::State& state) {
                                     std::vector<std::int8_t> y(layer.out_size);
                                     for (auto _ : state) {
                                       layer.fast(isa, x.data(), y.data());
                                       benchmark::DoNotOptimize(y.data());
                                       benchmark::ClobberMemory();
                                     }
                                     state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                                                             static_cast<std::int64_t>(items));
                                   });
    }
    benchmark::RegisterBenchmark(("pool/" + layer.name + "/" + layer.variant + "/reference").c_str(),
                                 [layer, x, items](benchmark::State& state) {
                                   for (auto _ : state) {
                                     std::vector<std::int8_t> y = layer.ref(x);
                                     benchmark::DoNotOptimize(y.data());
                                   }
                                   state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                                                           static_cast<std::int64_t>(items));
                                 });
  }
}

std::string isa_list(IsaMask mask) {
  std::string s;
  for (Isa isa : all_isas()) {
    if ((mask & mask_of(isa)) == 0) continue;
    if (!s.empty()) s += ",";
    s += to_string(isa);
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("qparity_supported_isas", isa_list(supported_isas()));
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
