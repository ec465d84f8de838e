#include "model/system.h"

#include <fmt/format.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "model/graph.h"
#include "model/op.h"
#include "tool_error.h"

namespace qparity::model {

using cli::ToolError;

const char* to_string(OpStyle style) {
  switch (style) {
    case OpStyle::kTfliteReference: return "TFLite reference kernels";
    case OpStyle::kTfliteOptimized: return "TFLite optimized kernels";
    case OpStyle::kXnnpack: return "XNNPACK";
    case OpStyle::kFloat: return "float32 element-wise";
    case OpStyle::kNpu: return "NPU single rounding (hypothesis)";
  }
  return "?";
}

const char* to_string(Target target) {
  switch (target) {
    case Target::kX86: return "x86";
    case Target::kArm: return "arm";
    case Target::kWasm: return "wasm";
  }
  return "?";
}

System system_of_preset(const Preset& preset) {
  System s;
  s.name = preset.name;
  s.preset = preset;
  const std::string& n = preset.name;
  // Which runtime computes the model's other ops when a preset names only the convolutions'
  // arithmetic (docs/semantics.md §19.9, §21).
  if (n.compare(0, 4, "npu-") == 0) {
    s.style = OpStyle::kNpu;  // make_npu_preset's family, and npu-verisilicon
  } else if (n == "ruy-x86") {
    s.style = OpStyle::kTfliteOptimized;  // TFLite's GEMM backend on x86: its other ops are TFLite's
    s.target = Target::kX86;
  } else if (n == "ruy-arm") {
    s.style = OpStyle::kTfliteOptimized;
    s.target = Target::kArm;
  } else if (n == "xnnpack-fp32") {
    s.style = OpStyle::kXnnpack;
    s.target = Target::kX86;
  } else if (n == "xnnpack-rndnu") {
    s.style = OpStyle::kXnnpack;  // the rndnu scheme is XNNPACK's ARM one
    s.target = Target::kArm;
  } else if (n == "onnxruntime" || n == "fbgemm" || n == "onednn") {
    s.style = OpStyle::kFloat;
  } else {
    // tflite-reference, tflite-single, gemmlowp, cmsis-nn(-single), tosa-*, tflite-16x8: the
    // reference kernels' formulas with the preset's rounding (TFLite Micro and CMSIS-NN share
    // them; TOSA's legalizations of TFLite ops restate them).
    s.style = OpStyle::kTfliteReference;
  }
  return s;
}

System system_of_float_precision(const FloatPrecision& precision) {
  System s;
  s.name = precision.name;
  s.preset = Preset{};  // no integer arithmetic: only the name, for messages
  s.preset.name = precision.name;
  s.preset.description = precision.description;
  s.preset.source = precision.source;
  s.float_precision = precision;
  return s;
}

namespace {

Profile float_profile(const FloatPrecision& precision) {
  const System sys = system_of_float_precision(precision);
  Profile p;
  p.name = precision.name;
  p.description = precision.description;
  p.source = precision.source;
  p.pick = [sys](const Graph&, const Node&) { return sys; };
  return p;
}

Profile preset_profile(const Preset& preset) {
  const System sys = system_of_preset(preset);
  Profile p;
  p.name = preset.name;
  p.description = preset.description;
  p.source = preset.source;
  p.pick = [sys](const Graph&, const Node&) { return sys; };
  return p;
}

/// TFLite without a delegate on `target`: each op's own kernel (its preset per op and target).
System tflite_builtin(const Graph& g, const Node& n, Target target, const std::string& profile) {
  System s;
  s.preset = op_of(n.op).tflite_builtin_preset(g, n, target);
  s.style = OpStyle::kTfliteOptimized;
  s.target = target;
  s.name = fmt::format("{} (TFLite kernel, {})", profile, s.preset.name);
  return s;
}

Profile builtin_profile(Target target) {
  Profile p;
  p.name = fmt::format("tflite-builtin-{}", to_string(target));
  p.description = fmt::format("TFLite's own CPU kernels without a delegate, {} build", to_string(target));
  p.source = "google-ai-edge/LiteRT tflite/kernels/*.cc (optimized kernels; conv/FC through "
             "cpu_backend_gemm: ruy), docs/semantics.md §3.6, §20";
  const std::string name = p.name;
  p.pick = [target, name](const Graph& g, const Node& n) { return tflite_builtin(g, n, target, name); };
  return p;
}

Profile xnnpack_profile(Target target) {
  Profile p;
  p.name = fmt::format("tflite-xnnpack-{}", to_string(target));
  p.description = fmt::format("TFLite's default CPU path, {} build: XNNPACK for the ops its delegate "
                              "takes, TFLite's own kernels for the rest", to_string(target));
  p.source = "google-ai-edge/LiteRT tflite/delegates/xnnpack/xnnpack_delegate.cc; google/XNNPACK; "
             "docs/semantics.md §20";
  const std::string name = p.name;
  p.pick = [target, name](const Graph& g, const Node& n) {
    const Op& op = op_of(n.op);
    if (!op.xnnpack_takes(g, n)) return tflite_builtin(g, n, target, name);
    System s;
    s.preset = op.xnnpack_preset(g, n, target);
    s.style = OpStyle::kXnnpack;
    s.target = target;
    s.name = fmt::format("{} (XNNPACK, {})", name, s.preset.name);
    return s;
  };
  return p;
}

/// The CPU variants of ONNX Runtime's arithmetic (docs/semantics.md §20.2, §22).
enum class OrtCpu : std::uint8_t {
  kAvx2,  ///< x86 without VNNI: u8 x s8 GEMMs multiply with VPMADDUBSW (int16 pair saturation)
  kVnni,  ///< x86 with AVX-VNNI / AVX-512 VNNI: VPDPBUSD, exact int32
};

}  // namespace

bool cpu_has_vnni() {
#if defined(__x86_64__) || defined(__i386__)
  // CPUID directly (older compilers' __builtin_cpu_supports does not know "avxvnni"): leaf 7
  // subleaf 0 ECX bit 11 is AVX512_VNNI, subleaf 1 EAX bit 4 is AVX-VNNI; the OS must save the
  // YMM state (XCR0 bits 1-2) and, for AVX-512, the opmask and ZMM state (bits 5-7).
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0 || (c & (1u << 27)) == 0) return false;  // OSXSAVE
  unsigned xcr0_lo = 0, xcr0_hi = 0;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  if ((xcr0_lo & 0x6u) != 0x6u) return false;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
  const bool avx512_vnni = (c & (1u << 11)) != 0 && (b & (1u << 16)) != 0 && (xcr0_lo & 0xe0u) == 0xe0u;
  bool avx_vnni = false;
  if (__get_cpuid_count(7, 1, &a, &b, &c, &d) != 0) avx_vnni = (a & (1u << 4)) != 0;
  return avx512_vnni || avx_vnni;
#else
  return false;
#endif
}

bool cpu_has_avx512f() {
#if defined(__x86_64__) || defined(__i386__)
  // __builtin_cpu_supports also checks that the OS saves the opmask and ZMM state.
  return __builtin_cpu_supports("avx512f") != 0;
#else
  return false;
#endif
}

namespace {

/// ONNX Runtime's CPU execution provider: QLinearConv and QLinearMatMul requantize with MLAS's
/// MlasRequantizeOutput (preset onnxruntime: F32, float-composed scale); on CPUs without VNNI the
/// u8-activation x s8-weight convolutions and matrix products accumulate through VPMADDUBSW, each
/// pair of consecutive K products saturated to int16 (accumulator pairsat16). Depthwise
/// convolutions (MlasConvDepthwise) and the other type combinations accumulate exactly.
/// Whether ONNX Runtime (1.30, x86, graph optimization level basic or higher) fuses the QDQ group a
/// node was read from into its QLinear operator (measured, docs/semantics.md §22.5): Add, Mul and
/// Gemm and GlobalAveragePool always (QLinearAdd / QLinearMul / QGemm / QLinearGlobalAveragePool), Conv
/// with uint8 activations in and out as ORT sees them (Node::ort_uint8_group: int8 Q -> DQ pairs with
/// one consumer become uint8 first), MatMul likewise (uint8 activations in and out as ORT sees them;
/// its x86 QDQ selectors leave other int8 ones to the float kernels);
/// Sigmoid, LeakyRelu and Softmax of both types (QLinearSigmoid / QLinearLeakyRelu / QLinearSoftmax:
/// ORT's optimized model, §22.7, §22.8); AveragePool of both types (QLinearAveragePool). The other
/// groups compute the same bits either way.
bool ort_fuses_qdq(const Graph& g, const Node& n) {
  // A Relu / Clip between the operator and its QuantizeLinear that ORT does not remove as redundant
  // stops every QDQ selector (GetQDQSelection gives up on a non-redundant one): the operator, the
  // activation and the QuantizeLinear run as float kernels (measured, tests/onnx/oracle_onnx_qdq_test.cc).
  if (n.ort_keeps_activation) return false;
  if (n.op == OpKind::kAdd || n.op == OpKind::kMul || n.op == OpKind::kLogistic || n.op == OpKind::kLeakyRelu ||
      n.op == OpKind::kSoftmax) {
    return true;
  }
  // AveragePool groups of either type become QLinearAveragePool: measured on int8 windows that reach
  // into SAME_UPPER padding, where the fused and float formulas part (tests/onnx/oracle_onnx_qdq_test.cc).
  if (n.op == OpKind::kAveragePool2D) return true;
  // GlobalAveragePool groups (QLinearGlobalAveragePool) too, int8 included: measured on a whole
  // ResNet-18 (tests/onnx/oracle_onnx_models_test.cc), where the float32 kernel and the QLinear one
  // differ on 17 of 512 elements and ORT at level all gives the QLinear ones.
  if (n.op == OpKind::kMean) return true;
  // Resize groups run in float32 at every level, uint8 included (tests/onnx/oracle_onnx_resize_test.cc;
  // in mode nearest the round trip returns the stored values, so either way gives the same bits).
  if (n.op == OpKind::kResizeBilinear || n.op == OpKind::kResizeNearestNeighbor) return false;
  // Gemm groups (QGemm) too: the reader gives a FULLY_CONNECTED from Gemm a bias, one from MatMul none.
  if (n.op == OpKind::kFullyConnected && n.inputs.size() > 2 && n.inputs[2] >= 0) return true;
  // Conv groups: uint8 activations in and out as ORT's Conv selector sees them, int8 pairs with a
  // single consumer turned uint8 (measured on ResNet-18: its second convolution of each block).
  if (n.op == OpKind::kConv2D || n.op == OpKind::kDepthwiseConv2D) return n.ort_uint8_group;
  // MatMul groups likewise (measured: an int8 MatMul between single-consumer pairs is fused).
  if ((n.op == OpKind::kFullyConnected || n.op == OpKind::kBatchMatMul) && n.ort_uint8_group) return true;
  return !n.inputs.empty() && n.inputs[0] >= 0 &&
         g.tensors[static_cast<std::size_t>(n.inputs[0])].dtype == cli::DType::kUint8;
}

/// The float32 kernels MLAS picks for an unfused QDQ Softmax (docs/semantics.md §22.8): AVX512F where
/// the CPU has it, else FMA3. Independent of OrtCpu: an AVX-512F CPU may lack VNNI (Skylake-SP) and a
/// VNNI CPU may lack AVX-512F (AVX-VNNI on Alder Lake).
enum class OrtFloatIsa : std::uint8_t { kFma3, kAvx512f };

System ort_system(const Graph& g, const Node& n, OrtCpu cpu, OrtFloatIsa float_isa, const std::string& profile,
                  bool fuse_qdq) {
  if (n.onnx_qdq && !(fuse_qdq && ort_fuses_qdq(g, n))) {
    // DequantizeLinear, the float32 operator, QuantizeLinear (model/onnx/ort_qdq_float.h).
    System s = system_of_preset(find_preset("onnxruntime"));
    s.preset.name = "onnxruntime-qdq-float";
    s.preset.description = "ONNX Runtime, an unfused QDQ group: dequantize, float32 operator, quantize";
    s.name = fmt::format("{} (onnxruntime, unfused QDQ in float32)", profile);
    // The float32 Softmax sums its exponentials with MLAS's AVX512F kernel where the CPU has
    // AVX-512F, else with the FMA3 one; the two round differently (softmax_ort.h).
    if (n.op == OpKind::kSoftmax && float_isa == OrtFloatIsa::kFma3) {
      s.preset.name = "onnxruntime-qdq-float-fma3";
      s.preset.description = "ONNX Runtime, an unfused QDQ group in float32 on a CPU without AVX-512F (MLAS's "
                             "FMA3 sum of exponentials)";
      s.name = fmt::format("{} (onnxruntime, unfused QDQ in float32, FMA3)", profile);
    }
    return s;
  }
  System s = system_of_preset(find_preset("onnxruntime"));
  s.name = fmt::format("{} (onnxruntime)", profile);
  if (cpu == OrtCpu::kAvx2 &&
      (n.op == OpKind::kConv2D || n.op == OpKind::kFullyConnected || n.op == OpKind::kBatchMatMul) &&
      n.inputs.size() >= 2 &&
      n.inputs[0] >= 0 && n.inputs[1] >= 0) {
    const TensorDef& in = g.tensors[static_cast<std::size_t>(n.inputs[0])];
    const TensorDef& w = g.tensors[static_cast<std::size_t>(n.inputs[1])];
    // An int8 Conv group ORT fuses runs as uint8 there (Node::ort_uint8_group); the pair-saturating
    // accumulator shifts int8 activations by 128 first, the same uint8 values.
    if ((in.dtype == cli::DType::kUint8 || n.ort_uint8_group) && w.dtype == cli::DType::kInt8) {
      s.preset.name = "onnxruntime-pairsat16";
      s.preset.description = "ONNX Runtime MLAS u8 x s8 on AVX2 without VNNI: int16-saturated K pairs, then F32";
      s.preset.accumulator = AccumulatorSpec{AccumulatorKind::kPairSaturating, 32};
      s.name = fmt::format("{} (onnxruntime, pairsat16)", profile);
    }
  }
  return s;
}

/// This CPU's variants, for the profiles that follow the machine they run on.
OrtCpu host_ort_cpu() { return cpu_has_vnni() ? OrtCpu::kVnni : OrtCpu::kAvx2; }
OrtFloatIsa host_ort_float_isa() { return cpu_has_avx512f() ? OrtFloatIsa::kAvx512f : OrtFloatIsa::kFma3; }

Profile ort_profile(const std::string& name, const std::string& description, std::function<OrtCpu()> cpu,
                    std::function<OrtFloatIsa()> float_isa, bool fuse_qdq = true) {
  Profile p;
  p.name = name;
  p.description = description;
  p.source = "microsoft/onnxruntime onnxruntime/core/mlas/lib/quantize.cpp (MlasRequantizeOutput), "
             "qgemm_kernel_avx2.cpp (VPMADDUBSW) and the VNNI QGEMM kernels; unfused QDQ groups: the float "
             "kernels (MLAS sgemm.cpp, convolve.cpp, MlasQuantizeLinear); docs/semantics.md §22";
  p.pick = [cpu, float_isa, name, fuse_qdq](const Graph& g, const Node& n) {
    return ort_system(g, n, cpu(), float_isa(), name, fuse_qdq);
  };
  return p;
}

}  // namespace

const std::vector<Profile>& runtime_profiles() {
  static const std::vector<Profile> profiles = {
      xnnpack_profile(Target::kX86),  xnnpack_profile(Target::kArm),  xnnpack_profile(Target::kWasm),
      builtin_profile(Target::kX86),  builtin_profile(Target::kArm),  builtin_profile(Target::kWasm),
      ort_profile("ort-cpu", "ONNX Runtime's CPU execution provider as it runs on this CPU (ort-cpu-vnni or "
                  "ort-cpu-avx2, by the CPU's VNNI support), graph optimizations on: QDQ groups fused into QLinear "
                  "operators where ORT fuses them (uint8, int8 Conv between single-consumer Q/DQ pairs; Add and Mul), "
                  "the other int8 Conv / MatMul groups in float32",
                  host_ort_cpu, host_ort_float_isa),
      ort_profile("ort-cpu-avx2", "ONNX Runtime's CPU execution provider on x86 without VNNI (u8 x s8 products "
                  "summed in int16-saturated pairs)", [] { return OrtCpu::kAvx2; }, host_ort_float_isa),
      ort_profile("ort-cpu-vnni", "ONNX Runtime's CPU execution provider on x86 with AVX-VNNI or AVX-512 VNNI "
                  "(exact int32 accumulation)", [] { return OrtCpu::kVnni; }, host_ort_float_isa),
      ort_profile("ort-cpu-unfused", "ONNX Runtime's CPU execution provider with graph optimizations disabled: "
                  "every QDQ group in float32 (dequantize, float operator, quantize; Softmax with MLAS's AVX512F or FMA3 "
                  "kernel by the CPU's AVX-512F support); QLinear operators as ort-cpu",
                  host_ort_cpu, host_ort_float_isa, /*fuse_qdq=*/false),
      // The unfused arithmetic of the two x86 CPU classes, for replaying another machine's outputs
      // here (ort-cpu-unfused follows the CPU it runs on).
      ort_profile("ort-cpu-unfused-avx2", "ort-cpu-unfused as it runs on x86 without VNNI or AVX-512F (e.g. AMD Zen 1-3, "
                  "Intel Haswell to Comet Lake): QLinear operators as ort-cpu-avx2, QDQ Softmax with MLAS's FMA3 kernel",
                  [] { return OrtCpu::kAvx2; }, [] { return OrtFloatIsa::kFma3; }, /*fuse_qdq=*/false),
      ort_profile("ort-cpu-unfused-avx512vnni", "ort-cpu-unfused as it runs on x86 with AVX-512F and AVX-512 VNNI (e.g. "
                  "AMD Zen 4 and 5, Intel Ice Lake-SP and later): QLinear operators as ort-cpu-vnni, QDQ Softmax with "
                  "MLAS's AVX512F kernel",
                  [] { return OrtCpu::kVnni; }, [] { return OrtFloatIsa::kAvx512f; }, /*fuse_qdq=*/false),
  };
  return profiles;
}

Profile find_profile(const std::string& name) {
  for (const Profile& p : runtime_profiles()) {
    if (p.name == name) return p;
  }
  if (const FloatPrecision* precision = find_float_precision(name)) return float_profile(*precision);
  try {
    return preset_profile(find_preset(name));
  } catch (const InvalidArgument&) {
    std::vector<std::string> names;
    for (const Profile& p : runtime_profiles()) names.push_back(p.name);
    for (const Preset& p : named_presets()) names.push_back(p.name);
    throw ToolError(fmt::format("'{}' is neither a runtime profile nor a preset; allowed: {}, or "
                                "npu-{{hu|haz|he|tz|fl}}-{{q31|q15|f24}}-{{int32|int64|satN|wrapN}}; for float32 "
                                "models: {}",
                                name, fmt::join(names, ", "), float_precision_names()));
  }
}

}  // namespace qparity::model
