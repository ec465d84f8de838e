// Every op of the list through its samples (Op::samples): each sample is a valid graph, and every
// runtime profile and a spread of presets prepares it and runs it with the fast engine giving the
// reference engine's bits on seeded inputs. A new op is covered by this test once it lists its
// samples (the method is pure, so it cannot forget to). Also `qparity list --ops`'s table: one row
// per sample, no cell a profile cannot prepare for the profiles TFLite ships (the .onnx-only ops, without a
// .tflite operator code, run only under ONNX Runtime's arithmetic and are refused by every other one).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "model/op.h"
#include "model/op_table.h"
#include "model/runner.h"
#include "model/system.h"
#include "tool_error.h"

namespace {

using namespace qparity::model;
using qparity::cli::DType;
using qparity::cli::Tensor;

Tensor seeded(const TensorDef& d, std::mt19937& rng) {
  Tensor t = qparity::cli::make_tensor(d.dtype, d.shape);
  if (d.dtype == DType::kFloat32) {
    std::uniform_real_distribution<float> u(-8.0f, 8.0f);
    for (std::size_t i = 0; i < t.elements(); ++i) {
      const float v = u(rng);
      std::memcpy(t.bytes.data() + 4 * i, &v, 4);
    }
    return t;
  }
  const std::int64_t lo = qparity::cli::dtype_min(d.dtype), hi = qparity::cli::dtype_max(d.dtype);
  std::uniform_int_distribution<std::int64_t> u(lo, hi);
  for (std::size_t i = 0; i < t.elements(); ++i) t.set_integer(i, u(rng));
  return t;
}

std::vector<std::string> profiles_to_run() {
  std::vector<std::string> names;
  for (const Profile& p : runtime_profiles()) names.push_back(p.name);
  for (const char* preset : {"tflite-reference", "tflite-single", "xnnpack-fp32", "xnnpack-rndnu", "ruy-x86",
                             "onnxruntime", "npu-verisilicon", "tosa-single"}) {
    names.push_back(preset);
  }
  return names;
}

TEST(OpSamples, EveryOpHasSamplesThatRunUnderEveryProfileFastEqualsReference) {
  std::size_t count = 0;
  const OpKind* ops = all_ops(&count);
  std::size_t runs = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::vector<OpSample> samples = op_of(ops[i]).samples();
    EXPECT_FALSE(samples.empty()) << to_string(ops[i]) << " lists no samples";
    for (const OpSample& s : samples) {
      SCOPED_TRACE(std::string(to_string(ops[i])) + ", " + s.label);
      ASSERT_EQ(s.graph.nodes.size(), 1u);
      EXPECT_EQ(s.graph.nodes[0].op, ops[i]);
      std::mt19937 rng(static_cast<unsigned>(i * 131 + runs));
      std::vector<Tensor> inputs;
      for (int t : s.graph.inputs) inputs.push_back(seeded(s.graph.tensors[static_cast<std::size_t>(t)], rng));
      for (const std::string& name : profiles_to_run()) {
        SCOPED_TRACE(name);
        const Profile p = find_profile(name);
        std::vector<System> systems = {p.pick(s.graph, s.graph.nodes[0])};
        if (tflite_code_of(ops[i]) < 0 && systems[0].preset.name.rfind("onnxruntime", 0) != 0) {
          // An op read from .onnx models only has ONNX Runtime's arithmetic; the others refuse it.
          EXPECT_THROW(Runner(s.graph, systems, Engine::kFast), qparity::cli::ToolError);
          continue;
        }
        Runner fast(s.graph, systems, Engine::kFast);
        Runner ref(s.graph, systems, Engine::kReference);
        fast.run(inputs);
        ref.run(inputs);
        const std::vector<Tensor> a = fast.outputs(), b = ref.outputs();
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t o = 0; o < a.size(); ++o) EXPECT_EQ(a[o].bytes, b[o].bytes) << "output " << o;
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 40u * profiles_to_run().size());
}

TEST(OpSamples, ListOpsTableCoversEverySampleAndNamesThePath) {
  const std::vector<std::string> profiles = {"tflite-xnnpack-x86", "tflite-builtin-arm", "tflite-reference"};
  const std::vector<OpTableRow> rows = op_arithmetic_table(profiles);
  std::size_t count = 0, samples = 0;
  const OpKind* ops = all_ops(&count);
  for (std::size_t i = 0; i < count; ++i) samples += op_of(ops[i]).samples().size();
  ASSERT_EQ(rows.size(), samples);
  bool xnnpack = false, kernel = false;
  for (const OpTableRow& r : rows) {
    ASSERT_EQ(r.cells.size(), profiles.size());
    OpKind kind{};
    ASSERT_TRUE(op_from_name(r.op, &kind)) << r.op;
    if (tflite_code_of(kind) < 0) {  // .onnx-only ops: TFLite's profiles do not run them
      for (const std::string& c : r.cells) EXPECT_EQ(c, "n/a: ONNX Runtime's arithmetic only") << r.op;
      continue;
    }
    for (const std::string& c : r.cells) EXPECT_EQ(c.find("not supported"), std::string::npos) << r.op << " " << c;
    if (r.op == "CONV_2D" && r.sample.find("constant filter") != std::string::npos) {
      EXPECT_EQ(r.cells[0].rfind("XNNPACK: xnnpack-fp32", 0), 0u) << r.cells[0];
      xnnpack = true;
    }
    if (r.op == "CONV_2D" && r.sample.find("run time") != std::string::npos) {
      EXPECT_EQ(r.cells[0], "TFLite kernel: ruy-x86");
      kernel = true;
    }
    EXPECT_EQ(r.cells[2].rfind("reference: tflite-reference", 0), 0u) << r.op << " " << r.cells[2];
  }
  EXPECT_TRUE(xnnpack && kernel);
}

}  // namespace
