#include "preset_map.h"

#include <fmt/format.h>

#include "plural.h"
#include "preset_params.h"
#include "qparity/float_precision.h"
#include "tool_error.h"

namespace qparity::cli {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// A layer index: decimal digits only (no sign, no blanks inside), below 10^9.
bool parse_index(const std::string& s, std::size_t* out) {
  if (s.empty() || s.size() > 9) return false;
  std::size_t v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<std::size_t>(c - '0');
  }
  *out = v;
  return true;
}

std::string range_text(const PresetRange& r) {
  if (!r.last) return fmt::format("{}-", r.first);
  if (*r.last == r.first) return std::to_string(r.first);
  return fmt::format("{}-{}", r.first, *r.last);
}

void check_preset(const std::string& name, const std::string& option, const std::string& item) {
  if (find_float_precision(name) != nullptr) {
    throw ToolError(fmt::format("{}: item '{}': '{}' is a float precision, for float stacks (float32 input and "
                                "filters) and float models; this stack is quantized: allowed: an integer preset "
                                "(qparity list)", option, item, name));
  }
  try {
    (void)find_preset(name);
  } catch (const InvalidArgument& e) {
    throw ToolError(fmt::format("{}: item '{}': {}", option, item, without_library_prefix(e.what())));
  }
}

}  // namespace

PresetMap parse_preset_map(const std::string& text, const std::string& option) {
  const char* syntax = "expected PRESET or RANGE=PRESET items separated by commas, RANGE = I, I-J "
                       "or I- (0-based layer indices)";
  PresetMap map;
  if (trim(text).empty()) throw ToolError(fmt::format("{}: empty; {}", option, syntax));
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item = trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (item.empty()) throw ToolError(fmt::format("{}: empty item in '{}'; {}", option, text, syntax));
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) {
      if (map.default_preset) {
        throw ToolError(fmt::format("{}: two default presets ('{}' and '{}'); give one, and RANGE=PRESET "
                                    "for the others",
                                    option, *map.default_preset, item));
      }
      check_preset(item, option, item);
      map.default_preset = item;
    } else {
      const std::string range = trim(item.substr(0, eq)), preset = trim(item.substr(eq + 1));
      PresetRange r;
      r.preset = preset;
      const std::size_t dash = range.find('-');
      bool ok;
      if (dash == std::string::npos) {
        ok = parse_index(range, &r.first);
        r.last = r.first;
      } else {
        ok = parse_index(range.substr(0, dash), &r.first);
        const std::string last = range.substr(dash + 1);
        if (!last.empty()) {
          std::size_t l = 0;
          ok = ok && parse_index(last, &l);
          r.last = l;
        }
      }
      if (!ok) {
        throw ToolError(fmt::format("{}: item '{}': range '{}' is not I, I-J or I- with 0-based layer "
                                    "indices",
                                    option, item, range));
      }
      if (r.last && *r.last < r.first) {
        throw ToolError(fmt::format("{}: item '{}': range {}-{} ends before it starts", option, item,
                                    r.first, *r.last));
      }
      if (preset.empty()) throw ToolError(fmt::format("{}: item '{}': no preset after '='", option, item));
      check_preset(preset, option, item);
      map.ranges.push_back(r);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return map;
}

std::vector<qparity::Preset> resolve_preset_map(const PresetMap& map, std::size_t layer_count,
                                                const std::string& option) {
  std::vector<std::optional<std::size_t>> owner(layer_count);  // index into map.ranges
  for (std::size_t i = 0; i < map.ranges.size(); ++i) {
    const PresetRange& r = map.ranges[i];
    const std::size_t last = r.last ? *r.last : (layer_count == 0 ? 0 : layer_count - 1);
    if (r.first >= layer_count || last >= layer_count) {
      throw ToolError(fmt::format("{}: range {} is outside the stack, whose {} {} 0-{}", option,
                                  range_text(r), count_of(layer_count, "layer"), layer_count == 1 ? "is" : "are", layer_count == 0 ? 0 : layer_count - 1));
    }
    for (std::size_t l = r.first; l <= last; ++l) {
      if (owner[l]) {
        throw ToolError(fmt::format("{}: ranges {} and {} overlap at layer {}", option,
                                    range_text(map.ranges[*owner[l]]), range_text(r), l));
      }
      owner[l] = i;
    }
  }
  std::vector<qparity::Preset> out;
  std::string uncovered;
  for (std::size_t l = 0; l < layer_count; ++l) {
    if (owner[l]) {
      out.push_back(find_preset(map.ranges[*owner[l]].preset));
    } else if (map.default_preset) {
      out.push_back(find_preset(*map.default_preset));
    } else {
      uncovered += (uncovered.empty() ? "" : ", ") + std::to_string(l);
    }
  }
  if (!uncovered.empty()) {
    throw ToolError(fmt::format("{}: no preset for layer(s) {}; add a default preset (an item without "
                                "'=') or a range covering them",
                                option, uncovered));
  }
  return out;
}

std::string preset_map_text(const PresetMap& map) {
  std::string out = map.default_preset ? *map.default_preset : "";
  for (const PresetRange& r : map.ranges) {
    out += (out.empty() ? "" : ",") + range_text(r) + "=" + r.preset;
  }
  return out;
}

}  // namespace qparity::cli
