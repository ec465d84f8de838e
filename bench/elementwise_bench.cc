// qparity element-wise ADD / SUB / MUL throughput (include/qparity/elementwise.h) on every ISA
// against the header reference (reference::elementwise, a plain per-element loop), on MobileNet v2's
// residual ADD shapes and the broadcast forms the driver treats differently.
//
// Names: elementwise/<arithmetic>/<op>/<shape>/<isa|reference>; items/s counts output elements.
// Before timing, each qparity row checks its output against the reference and skips with an error
// on a mismatch, so a fast but wrong path can never produce a number.
//
//   ./bench/elementwise_bench --benchmark_min_time=0.2 --benchmark_filter='mbv2'
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "qparity/elementwise.h"
#include "qparity/isa.h"

namespace {

using qparity::Isa;
using qparity::OutputType;
using namespace qparity::reference;
using Shape = std::vector<std::size_t>;

struct Workload {
  std::string name;
  Shape s1, s2;
};

// MobileNet v2's residual ADDs (224x224 input): the bottleneck outputs at 56x56x24, 28x28x32,
// 14x14x64, 14x14x96 and 7x7x160; then the broadcast forms on the largest.
const Workload kWorkloads[] = {
    {"mbv2_56x56x24", {1, 56, 56, 24}, {1, 56, 56, 24}},
    {"mbv2_28x28x32", {1, 28, 28, 32}, {1, 28, 28, 32}},
    {"mbv2_14x14x64", {1, 14, 14, 64}, {1, 14, 14, 64}},
    {"mbv2_14x14x96", {1, 14, 14, 96}, {1, 14, 14, 96}},
    {"mbv2_7x7x160", {1, 7, 7, 160}, {1, 7, 7, 160}},
    {"channel_56x56x24+24", {1, 56, 56, 24}, {24}},
    {"scalar_56x56x24+1", {1, 56, 56, 24}, {1}},
};

struct Variant {
  ElementwiseOp op;
  ElementwiseArithmetic arithmetic;
};

const Variant kVariants[] = {
    {ElementwiseOp::kAdd, ElementwiseArithmetic::kTfliteDouble},
    {ElementwiseOp::kAdd, ElementwiseArithmetic::kTfliteSingle},
    {ElementwiseOp::kAdd, ElementwiseArithmetic::kXnnpackX86},
    {ElementwiseOp::kSub, ElementwiseArithmetic::kTfliteDouble},
    {ElementwiseOp::kMul, ElementwiseArithmetic::kTfliteDouble},
    {ElementwiseOp::kMul, ElementwiseArithmetic::kXnnpackX86},
    {ElementwiseOp::kMul, ElementwiseArithmetic::kNpuSingleRounding},
    {ElementwiseOp::kAdd, ElementwiseArithmetic::kNpuSingleRounding},
};

ElementwiseParams params_for(const Variant& v) {
  // Realistic residual-ADD scales: two inputs near 0.05, output a little coarser.
  return derive_elementwise_params(v.op, v.arithmetic, OutputType::kInt8, {0.0512f, -3}, {0.0437f, 5},
                                   {v.op == ElementwiseOp::kMul ? 0.0061f : 0.0735f, -1}, qparity::Activation::kRelu6);
}

struct Data {
  std::vector<std::int8_t> a, b, want;
  std::vector<std::int8_t> out;
};

Data make_data(const Workload& w, const ElementwiseParams& p) {
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> d(-128, 127);
  Data data;
  data.a.resize(shape_elements(w.s1));
  data.b.resize(shape_elements(w.s2));
  for (auto& x : data.a) x = static_cast<std::int8_t>(d(rng));
  for (auto& x : data.b) x = static_cast<std::int8_t>(d(rng));
  data.want = elementwise(p, w.s1, data.a, w.s2, data.b);
  data.out.resize(data.want.size());
  return data;
}

void fast_row(benchmark::State& state, Workload w, Variant v, Isa isa) {
  if ((qparity::supported_isas() & qparity::mask_of(isa)) == 0) {
    state.SkipWithError("ISA not supported on this CPU");
    return;
  }
  const ElementwiseParams p = params_for(v);
  Data d = make_data(w, p);
  try {
    qparity::elementwise(isa, p, w.s1, d.a.data(), w.s2, d.b.data(), d.out.data());
  } catch (const std::exception& e) {
    state.SkipWithError((std::string("elementwise threw: ") + e.what()).c_str());
    return;
  }
  if (d.out != d.want) {
    state.SkipWithError("output differs from the reference (not timed)");
    return;
  }
  for (auto _ : state) {
    qparity::elementwise(isa, p, w.s1, d.a.data(), w.s2, d.b.data(), d.out.data());
    benchmark::DoNotOptimize(d.out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(d.want.size()));
  state.SetLabel(qparity::elementwise_kernel_name(p, isa));
}

void reference_row(benchmark::State& state, Workload w, Variant v) {
  const ElementwiseParams p = params_for(v);
  Data d = make_data(w, p);
  for (auto _ : state) {
    std::vector<std::int8_t> r = elementwise(p, w.s1, d.a, w.s2, d.b);
    benchmark::DoNotOptimize(r.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(d.want.size()));
  state.SetLabel("reference::elementwise");
}

void register_rows() {
  for (const Variant& v : kVariants) {
    for (const Workload& w : kWorkloads) {
      const std::string base = std::string("elementwise/") + to_string(v.arithmetic) + "/" + to_string(v.op) + "/" +
                               w.name + "/";
      benchmark::RegisterBenchmark((base + "reference").c_str(), reference_row, w, v);
      for (Isa isa : qparity::all_isas()) {
        if ((qparity::supported_isas() & qparity::mask_of(isa)) == 0) continue;  // rows this CPU can run
        benchmark::RegisterBenchmark((base + qparity::to_string(isa)).c_str(), fast_row, w, v, isa);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_rows();
  benchmark::AddCustomContext("qparity_active_isa", qparity::to_string(qparity::active_isa()));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
