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
// nodes only, run_node on the same tensors), model/<model>/<profile>/threads:2 (whole, on a Runner
// of two threads), litertjs/<model> (median of --time runs, manual time;
// skipped with a message when node or the npm packages are missing).
//
// ONNX (issue 16 "Speed"): the zoo's MobileNet v2 (operator form, int8) and ResNet-18 (QDQ form,
// uint8 and int8 activations) at 224x224, written by qparity's ONNX writer and read back by its
// reader: onnx/<model>/<profile>/whole (qparity's graph runner, one thread),
// onnx/<model>/<profile>/threads:2 (the runner on two threads: Runner(..., threads = 2), whose
// convolutions and fully connected layers split over the library's tile pool, the int8 QDQ
// model's float32 ones by output pixels), onnx/<model>/ort-cpu/op/<OP> (the
// nodes of one op kind, run_node, the median over 5 runs of their summed time: where the time
// goes), and ort/<model>/threads:<N> (onnxruntime-node on the
// same model bytes and input, graph optimization level all, intra_op_num_threads N, the median of
// 20 runs after a warm-up; manual time). The int8 QDQ ResNet-18 runs 12 of its 21 convolutions in
// float32 under ort-cpu (as ORT does; the other 9 sit between single-consumer Q -> DQ pairs, which
// ORT makes uint8 and fuses): only ort-cpu, one iteration, for that one.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <algorithm>
#include <chrono>
#include <map>

#include "model/node_map.h"
#include "model/onnx/onnx_reader.h"
#include "model/onnx/onnx_writer.h"
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

struct OnnxBench {
  std::string name;
  std::vector<std::uint8_t> bytes;  // the .onnx file
  Graph graph;                      // read back from it
  qparity::cli::Tensor input;       // NCHW
  bool float_convs = false;         // int8 QDQ: ORT (and ort-cpu) run most convolutions in float32
};

const std::vector<OnnxBench>& onnx_benches() {
  static const std::vector<OnnxBench> b = [] {
    std::vector<OnnxBench> out;
    ZooOptions zo;
    zo.seed = 11;
    zo.softmax = false;
    auto add = [&](const std::string& name, const Graph& g, OnnxForm form, qparity::cli::DType act) {
      OnnxWriteOptions wo;
      wo.form = form;
      wo.activations = act;
      OnnxBench e;
      e.name = name;
      e.bytes = write_onnx(g, wo);
      e.graph = read_onnx(e.bytes, name);
      e.input = qparity::cli::generate_tensor(act, {1, 3, 224, 224}, 5, act == qparity::cli::DType::kUint8 ? 0 : -128,
                                              act == qparity::cli::DType::kUint8 ? 255 : 127);
      e.float_convs = form == OnnxForm::kQdq && act == qparity::cli::DType::kInt8;
      out.push_back(std::move(e));
    };
    const Graph mnv2 = mobilenet_v2(zo);
    const Graph r18 = resnet18(zo);
    add("mnv2_224_qlinear_s8", mnv2, OnnxForm::kQLinear, qparity::cli::DType::kInt8);
    add("resnet18_224_qdq_u8", r18, OnnxForm::kQdq, qparity::cli::DType::kUint8);
    add("resnet18_224_qdq_s8", r18, OnnxForm::kQdq, qparity::cli::DType::kInt8);
    return out;
  }();
  return b;
}

void onnx_row(benchmark::State& state, const OnnxBench* b, std::string profile, unsigned threads) {
  Runner r(b->graph, resolve_node_map(parse_node_map(profile, "profile"), b->graph, "profile"), Engine::kFast,
           threads);
  // A warm-up run, as the ORT rows have one: the float32 rows time one iteration each, which would
  // otherwise be the run that first touches every buffer.
  r.run({b->input});
  for (auto _ : state) {
    r.run({b->input});
    benchmark::DoNotOptimize(r.value(b->graph.outputs[0]).bytes.data());
  }
}

// The summed time of the nodes of one op kind, the median of 5 runs of every node (run_node, in
// graph order; manual time). Measured once per model and profile, for all its op kinds together.
void onnx_op_row(benchmark::State& state, const OnnxBench* b, std::string profile, OpKind kind) {
  static std::map<std::string, std::map<OpKind, double>> medians;
  const std::string key = b->name + "/" + profile;
  if (medians.count(key) == 0) {
    Runner r(b->graph, resolve_node_map(parse_node_map(profile, "profile"), b->graph, "profile"));
    r.run({b->input});
    std::map<OpKind, std::vector<double>> runs;
    for (int k = 0; k < 5; ++k) {
      std::map<OpKind, double> total;
      for (std::size_t i = 0; i < b->graph.nodes.size(); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        r.run_node(i);
        total[b->graph.nodes[i].op] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
      for (const auto& [op, t] : total) runs[op].push_back(t);
    }
    for (auto& [op, v] : runs) {
      std::sort(v.begin(), v.end());
      medians[key][op] = v[v.size() / 2];
    }
  }
  const double t = medians[key][kind];
  for (auto _ : state) state.SetIterationTime(t);
}

// The median time (microseconds) a script of tests/oracles/js reports ("median_us N") for `model`
// written as model_file in a scratch directory with `input` as in.npy; negative when it did not run
// (no node, no npm packages, no scratch directory).
double node_median_us(const std::string& script_and_options, const std::vector<std::uint8_t>& model,
                      const std::string& model_file, const qparity::cli::Tensor& input) {
  const std::string dir = QPARITY_JS_ORACLE_DIR;
  const std::string work = "/tmp/qparity_model_bench_" + std::to_string(::getpid());
  std::string cmd = "mkdir -p " + work;
  if (std::system(cmd.c_str()) != 0) return -1;
  if (std::FILE* f = std::fopen((work + "/" + model_file).c_str(), "wb")) {
    std::fwrite(model.data(), 1, model.size(), f);
    std::fclose(f);
  }
  qparity::cli::write_npy(work + "/in.npy", input);
  cmd = "node " + dir + "/" + script_and_options + " " + work + "/" + model_file + " " + work + "/out " + work +
        "/in.npy 2>/dev/null";
  double median_us = -1;
  if (std::FILE* p = ::popen(cmd.c_str(), "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, p)) std::sscanf(line, "median_us %lf", &median_us);
    ::pclose(p);
  }
  cmd = "rm -rf " + work;
  (void)std::system(cmd.c_str());
  return median_us;
}

void ort_row(benchmark::State& state, const OnnxBench* b, int threads) {
  const double median_us = node_median_us(
      "run_onnx.cjs --opt all --threads " + std::to_string(threads) + " --time 20", b->bytes, "m.onnx", b->input);
  if (median_us < 0) {
    state.SkipWithError("onnxruntime-node did not run (node, or npm ci --ignore-scripts in tests/oracles/js)");
    return;
  }
  for (auto _ : state) state.SetIterationTime(median_us * 1e-6);
}

bool is_kernel(OpKind k) {
  return k == OpKind::kConv2D || k == OpKind::kDepthwiseConv2D || k == OpKind::kFullyConnected;
}

void model_row(benchmark::State& state, const Bench* b, std::string profile, bool kernels_only, unsigned threads) {
  Runner r(b->graph, resolve_node_map(parse_node_map(profile, "profile"), b->graph, "profile"), Engine::kFast,
           threads);
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
  const double median_us = node_median_us("run_tflite.cjs --time 30", write_tflite(b->graph), "m.tflite", b->input);
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
                                     model_row, &b, std::string(profile), kernels, 1u)
            ->Unit(benchmark::kMicrosecond);
      }
      benchmark::RegisterBenchmark(("model/" + b.name + "/" + profile + "/threads:2").c_str(), model_row, &b,
                                   std::string(profile), false, 2u)
          ->Unit(benchmark::kMicrosecond);
    }
    benchmark::RegisterBenchmark(("litertjs/" + b.name).c_str(), litert_row, &b)
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
  }
  for (const OnnxBench& b : onnx_benches()) {
    for (int threads : {1, 2}) {
      benchmark::RegisterBenchmark(("ort/" + b.name + "/threads:" + std::to_string(threads)).c_str(), ort_row, &b,
                                   threads)
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMicrosecond);
    }
    const std::vector<std::string> profiles =
        b.float_convs ? std::vector<std::string>{"ort-cpu"}
                      : std::vector<std::string>{"ort-cpu", "ort-cpu-unfused", "tflite-xnnpack-x86", "tflite-reference"};
    for (const std::string& profile : profiles) {
      auto* row = benchmark::RegisterBenchmark(("onnx/" + b.name + "/" + profile + "/whole").c_str(), onnx_row, &b,
                                               profile, 1u)
                      ->Unit(benchmark::kMicrosecond);
      // The graph runner on two threads (its convolutions and fully connected layers split over
      // the library's tile pool, the float32 ones of the int8 QDQ form too), next to
      // ort/<model>/threads:2.
      auto* threaded = benchmark::RegisterBenchmark(("onnx/" + b.name + "/" + profile + "/threads:2").c_str(),
                                                    onnx_row, &b, profile, 2u)
                           ->Unit(benchmark::kMicrosecond);
      if (b.float_convs) {
        row->Iterations(1);
        threaded->Iterations(1);
      }
    }
    std::map<OpKind, int> kinds;
    for (const Node& n : b.graph.nodes) ++kinds[n.op];
    for (const auto& [kind, count] : kinds) {
      benchmark::RegisterBenchmark(
          ("onnx/" + b.name + "/ort-cpu/op/" + to_string(kind) + "/nodes:" + std::to_string(count)).c_str(),
          onnx_op_row, &b, std::string("ort-cpu"), kind)
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMicrosecond);
    }
  }
  return 0;
}

const int registered = register_rows();

}  // namespace

BENCHMARK_MAIN();
