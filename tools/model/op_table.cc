#include "model/op_table.h"

#include <fmt/format.h>

#include "model/op.h"
#include "tool_error.h"

namespace qparity::model {
namespace {

/// "XNNPACK", "TFLite kernel", ...: the path a system's style names, short enough for a cell.
const char* path_of(OpStyle style) {
  switch (style) {
    case OpStyle::kTfliteReference: return "reference";
    case OpStyle::kTfliteOptimized: return "TFLite kernel";
    case OpStyle::kXnnpack: return "XNNPACK";
    case OpStyle::kFloat: return "float32";
    case OpStyle::kNpu: return "NPU";
  }
  return "?";
}

/// The op's own variant where its describe() line 0 names one: "arithmetic: <system> [<variant>]".
std::string variant_of(const std::vector<std::string>& lines) {
  if (lines.empty()) return "";
  const std::string& l = lines[0];
  const std::size_t open = l.rfind(" [");
  if (open == std::string::npos || l.back() != ']') return "";
  return l.substr(open + 1);
}

std::string cell(const Profile& profile, const OpSample& sample) {
  const Node& node = sample.graph.nodes.at(0);
  try {
    const System sys = profile.pick(sample.graph, node);
    const auto prepared = op_of(node.op).prepare(sample.graph, node, sys, Engine::kReference);
    const std::string variant = variant_of(prepared->describe());
    std::string text = fmt::format("{}: {}", path_of(sys.style), sys.preset.name);
    if (!variant.empty()) text += " " + variant;
    return text;
  } catch (const cli::ToolError& e) {
    // An op read from .onnx models only (no .tflite operator code) runs only ONNX Runtime's
    // arithmetic: a short cell instead of the refusal under each other profile.
    if (tflite_code_of(node.op) < 0) return "n/a: ONNX Runtime's arithmetic only";
    return fmt::format("not supported: {}", e.what());
  }
}

}  // namespace

std::vector<std::string> default_table_profiles() {
  return {"tflite-xnnpack-x86", "tflite-xnnpack-arm", "tflite-builtin-x86", "tflite-builtin-arm"};
}

std::vector<OpTableRow> op_arithmetic_table(const std::vector<std::string>& profile_names) {
  std::vector<Profile> profiles;
  for (const std::string& name : profile_names) profiles.push_back(find_profile(name));
  std::vector<OpTableRow> rows;
  std::size_t count = 0;
  const OpKind* ops = all_ops(&count);
  for (std::size_t i = 0; i < count; ++i) {
    for (const OpSample& sample : op_of(ops[i]).samples()) {
      OpTableRow row;
      row.op = to_string(ops[i]);
      row.sample = sample.label;
      for (const Profile& p : profiles) row.cells.push_back(cell(p, sample));
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace qparity::model
