// The arithmetic a node runs under: a *system*. A preset (include/qparity/presets.h) fixes how
// convolutions and fully connected layers requantize; a system adds how the runtime it names
// computes every other op (its op style) and, where the instruction set changes a runtime's
// arithmetic (XNNPACK's MUL), for which target. Every op interprets a system in its own file
// (tools/model/ops/<op>.cc, which cites the source of each style it reproduces).
//
// A *profile* reproduces a whole runtime: it picks a system per node the way that runtime would
// (TFLite with XNNPACK: XNNPACK's arithmetic for the ops XNNPACK takes, TFLite's own kernels for the
// rest). A named preset is the profile that gives every node that preset's system.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "qparity/float_precision.h"
#include "qparity/presets.h"

namespace qparity::model {

struct Graph;
struct Node;

/// How a runtime computes the ops other than the convolution-like ones.
enum class OpStyle : std::uint8_t {
  kTfliteReference,  ///< TFLite's reference kernels and TFLite Micro (reference_ops,
                     ///< reference_integer_ops); double or single rounding as the preset's core
  kTfliteOptimized,  ///< TFLite's own optimized kernels (optimized_ops), no delegate
  kXnnpack,          ///< XNNPACK's operators, as TFLite's XNNPACK delegate runs them
  kFloat,            ///< element-wise ops in float32: dequantize, compute, requantize with
                     ///< round-half-even (the pattern of ONNX Runtime's, PyTorch's and oneDNN's
                     ///< quantized element-wise ops; UNVERIFIED per op)
  kNpu,              ///< hypothesis: one rounding with the preset's tie rule and multiplier
};

/// The instruction set a runtime was built for, where it changes the arithmetic.
enum class Target : std::uint8_t {
  kX86,   ///< x86-64 builds (SSE/AVX kernels)
  kArm,   ///< ARM builds (NEON kernels)
  kWasm,  ///< WebAssembly builds (LiteRT.js: wasmsimd kernels)
};

const char* to_string(OpStyle style);
const char* to_string(Target target);

struct System {
  std::string name;  ///< what chose it: "tflite-reference", "tflite-xnnpack-x86 (XNNPACK)"
  Preset preset;     ///< an integer arithmetic's preset; under a float precision, only its name
  OpStyle style = OpStyle::kTfliteReference;
  Target target = Target::kX86;
  /// Set for the float arithmetics (fp32, fp16, fp16-acc16, bf16: include/qparity/float_precision.h),
  /// which run float32 models' ops; an integer arithmetic leaves it empty. The runner keeps the two
  /// apart (runner.h).
  std::optional<FloatPrecision> float_precision;
};

/// A named per-node choice of systems.
struct Profile {
  std::string name;
  std::string description;
  std::string source;
  /// The system of a node (the graph is validated; node is one of its nodes).
  std::function<System(const Graph&, const Node&)> pick;
};

/// The runtime profiles (not the presets), in documentation order.
const std::vector<Profile>& runtime_profiles();

/// The profile of a name: a runtime profile, a float precision (fp32, fp16, fp16-acc16, bf16: every
/// node under it) or a preset name (find_preset), which gives every node that preset's system.
/// Throws cli::ToolError listing the names.
Profile find_profile(const std::string& name);

/// Whether this CPU has VNNI (AVX-VNNI or AVX-512 VNNI), which ONNX Runtime's MLAS uses for its
/// u8 x s8 GEMMs instead of VPMADDUBSW (profile ort-cpu picks ort-cpu-vnni or ort-cpu-avx2 by it).
bool cpu_has_vnni();

/// Whether this CPU (and its OS) has AVX-512F, for which ONNX Runtime's MLAS sums a float32
/// Softmax's exponentials with its AVX512F kernel instead of the FMA3 one (platform.cpp); profile
/// ort-cpu-unfused gives an unfused QDQ Softmax the kernel by it (docs/semantics.md §22.8).
bool cpu_has_avx512f();

/// The system of a float precision: every op of a float32 model stores in its storage format and
/// sums in its accumulator format.
System system_of_float_precision(const FloatPrecision& precision);

/// The system a preset implies for every node (its op style and target; see system.cc for each).
System system_of_preset(const Preset& preset);

}  // namespace qparity::model
