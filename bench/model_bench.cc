// model_bench: whole-model time of qparity's graph runner against the sum of its convolution,
// depthwise and fully connected kernels (the target: whole <= 1.2x kernels, so the ops
// between them must not dominate), one thread, on the zoo's MobileNet v2 (224x224) and ResNet
// blocks; and LiteRT.js's time for the same .tflite (TFLite compiled to WebAssembly: a reference
// point for what a user's TFLite would take, not a like-for-like speed peer; native ONNX Runtime is
// the speed peer of the ONNX work).
//
//   ./bench/model_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// Rows: model/<model>/<profile>/whole, model/<model>/<profile>/kernels (the conv / depthwise / FC
// nodes only, run_node on the same tensors), litertjs/<model> (median of --time runs, manual time;
// skipped with a message when node or the npm packages are missing).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "model/node_map.h"
#include "model/runner.h"
#include "model/tflite/tflite_writer.h"
#include "model/zoo.h"
#include "npy.h"

namespace {

using namespace qparity::model;

struct Bench {
  std::string name;
  Graph graph;
  qparity::cli::Tensor input;
};

const std::vector<Bench>& benches() {
  static const std::vector<Bench> b = [] {
    std::vector<Bench> out;
    std::mt19937 rng(3);
    auto image = [&](std::size_t size) {
      qparity::cli::Tensor t = qparity::cli::make_tensor(qparity::cli::DType::kInt8, {1, size, size, 3});
      std::uniform_int_distribution<int> d(-128, 127);
      for (std::size_t i = 0; i < t.elements(); ++i) t.set_integer(i, d(rng));
      return t;
    };
    ZooOptions zo;
    zo.seed = 11;
    out.push_back({"mnv2_224", mobilenet_v2(zo), image(224)});
    zo.input_size = 112;
    zo.classes = 100;
    out.push_back({"resnet_blocks_112", resnet_blocks(zo, 4, 64), image(112)});
    return out;
  }();
  return b;
}

bool is_kernel(OpKind k) {
  return k == OpKind::kConv2D || k == OpKind::kDepthwiseConv2D || k == OpKind::kFullyConnected;
}

void model_row(benchmark::State& state, const Bench* b, std::string profile, bool kernels_only) {
  Runner r(b->graph, resolve_node_map(parse_node_map(profile, "profile"), b->graph, "profile"));
  r.run({b->input});
  for (auto _ : state) {
    if (kernels_only) {
      for (std::size_t i = 0; i < b->graph.nodes.size(); ++i) {
        if (is_kernel(b->graph.nodes[i].op)) r.run_node(i);
      }
    } else {
      r.run({b->input});
    }
    benchmark::DoNotOptimize(r.value(b->graph.outputs[0]).bytes.data());
  }
}

void litert_row(benchmark::State& state, const Bench* b) {
  const std::string dir = QPARITY_JS_ORACLE_DIR;
  const std::string work = "/tmp/qparity_model_bench_" + std::to_string(::getpid());
  std::string cmd = "mkdir -p " + work;
  if (std::system(cmd.c_str()) != 0) {
    state.SkipWithError("cannot create a scratch directory");
    return;
  }
  const std::vector<std::uint8_t> bytes = write_tflite(b->graph);
  std::FILE* f = std::fopen((work + "/m.tflite").c_str(), "wb");
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  qparity::cli::write_npy(work + "/in.npy", b->input);
  cmd = "node " + dir + "/run_tflite.cjs --time 30 " + work + "/m.tflite " + work + "/out " + work + "/in.npy 2>/dev/null";
  double median_us = -1;
  if (std::FILE* p = ::popen(cmd.c_str(), "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, p)) std::sscanf(line, "median_us %lf", &median_us);
    ::pclose(p);
  }
  cmd = "rm -rf " + work;
  (void)std::system(cmd.c_str());
  if (median_us < 0) {
    state.SkipWithError("LiteRT.js did not run (node, or npm ci --ignore-scripts in tests/oracles/js)");
    return;
  }
  for (auto _ : state) state.SetIterationTime(median_us * 1e-6);
}

int register_rows() {
  for (const Bench& b : benches()) {
    for (const char* profile : {"tflite-xnnpack-x86", "tflite-reference"}) {
      for (bool kernels : {false, true}) {
        benchmark::RegisterBenchmark(("model/" + b.name + "/" + profile + (kernels ? "/kernels" : "/whole")).c_str(),
                                     model_row, &b, std::string(profile), kernels)
            ->Unit(benchmark::kMicrosecond);
      }
    }
    benchmark::RegisterBenchmark(("litertjs/" + b.name).c_str(), litert_row, &b)
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
  }
  return 0;
}

const int registered = register_rows();

}  // namespace

BENCHMARK_MAIN();
