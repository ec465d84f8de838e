#include "layer.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "input_files.h"
#include "npy.h"
#include "tool_error.h"

namespace qparity::cli {

const char* to_string(LayerType type) {
  switch (type) {
    case LayerType::kConv2D: return "conv2d";
    case LayerType::kDepthwiseConv2D: return "depthwise_conv2d";
    case LayerType::kFullyConnected: return "fully_connected";
  }
  return "?";
}

bool layer_type_from_string(const std::string& text, LayerType* out) {
  for (LayerType t : {LayerType::kConv2D, LayerType::kDepthwiseConv2D, LayerType::kFullyConnected}) {
    if (text == to_string(t)) {
      *out = t;
      return true;
    }
  }
  return false;
}

const char* activation_name(Activation activation) {
  switch (activation) {
    case Activation::kNone: return "NONE";
    case Activation::kRelu: return "RELU";
    case Activation::kRelu6: return "RELU6";
    case Activation::kReluN1To1: return "RELU_N1_TO_1";
  }
  return "?";
}

std::size_t Layer::out_channels() const {
  if (filter.shape.empty()) return 0;
  return type == LayerType::kDepthwiseConv2D ? filter.shape.back() : filter.shape.front();
}

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string read_text_file(const std::string& path) {
  const std::vector<std::uint8_t> bytes = read_input_file(path, {"a JSON file"});
  return std::string(bytes.begin(), bytes.end());
}

namespace {

using nlohmann::json;

// Generated tensors are bounded so that a typo in a shape cannot exhaust memory (and so that the
// fuzzer explores parsing rather than allocation).
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
constexpr std::size_t kMaxGeneratedElements = std::size_t{1} << 16;
#else
constexpr std::size_t kMaxGeneratedElements = std::size_t{1} << 28;
#endif

// ---- JSON text -> json, with duplicate keys rejected --------------------------------------------

// nlohmann::json keeps the last of duplicate keys silently; a duplicated key in a hand-edited
// file is almost always a mistake, so the parse callback tracks where it is and rejects them.
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(const std::string& context) : context_(context) {}

  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        count_array_element();
        frames_.push_back(Frame{event == json::parse_event_t::object_start, {}, {}, -1});
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!frames_.empty()) frames_.pop_back();
        break;
      case json::parse_event_t::key: {
        Frame& top = frames_.back();
        top.key = parsed.get<std::string>();
        if (!top.keys.insert(top.key).second) {
          const std::string where = path();
          throw ToolError(fmt::format("{}: {}: duplicate key \"{}\" (each key may appear once)",
                                      context_, where.empty() ? "the top-level object" : where, top.key));
        }
        break;
      }
      case json::parse_event_t::value:
        count_array_element();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool is_object;
    std::set<std::string> keys;
    std::string key;
    long index;
  };

  void count_array_element() {
    if (!frames_.empty() && !frames_.back().is_object) ++frames_.back().index;
  }

  // The path of the innermost open object (the one whose key is duplicated).
  std::string path() const {
    std::string p;
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      if (f.is_object) {
        p += p.empty() ? f.key : "." + f.key;
      } else {
        p += fmt::format("[{}]", f.index);
      }
    }
    return p;
  }

  const std::string& context_;
  std::vector<Frame> frames_;
};

json parse_json_text(const std::string& text, const std::string& context) {
  try {
    return json::parse(text, DuplicateKeyCheck(context), /*allow_exceptions=*/true,
                       /*ignore_comments=*/false);
  } catch (const json::exception& e) {
    // parse_error ("[json.exception.parse_error.101] parse error at line 1, column 5: ...") and
    // out_of_range (a number such as 1e999 that overflows): keep the part after "] ".
    std::string what = e.what();
    const std::size_t bracket = what.find("] ");
    if (bracket != std::string::npos) what = what.substr(bracket + 2);
    throw ToolError(fmt::format("{}: invalid JSON: {}", context, what));
  }
}

// ---- typed access with the file and the JSON path in every error --------------------------------

struct Node {
  const json& value;
  std::string path;  // "" for the document root
  const std::string& context;

  Node child(const std::string& key) const {
    return Node{value.at(key), path.empty() ? key : path + "." + key, context};
  }
  Node element(std::size_t i) const { return Node{value.at(i), fmt::format("{}[{}]", path, i), context}; }
  bool has(const char* key) const { return value.contains(key); }
};

[[noreturn]] void fail(const Node& n, const std::string& problem) {
  throw ToolError(fmt::format("{}: {}: {}", n.context, n.path.empty() ? "the top-level value" : n.path,
                              problem));
}

const char* type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a non-integer number";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return "an unsupported value";
  }
}

void require_object(const Node& n, const std::vector<const char*>& allowed) {
  if (!n.value.is_object()) fail(n, fmt::format("expected an object, got {}", type_name(n.value)));
  for (auto it = n.value.begin(); it != n.value.end(); ++it) {
    bool known = false;
    for (const char* k : allowed) known = known || it.key() == k;
    if (!known) {
      const std::string where = n.path.empty() ? it.key() : n.path + "." + it.key();
      throw ToolError(fmt::format("{}: {}: unknown key; allowed keys here: {}", n.context, where,
                                  fmt::join(allowed, ", ")));
    }
  }
}

std::int64_t get_int(const Node& n, std::int64_t lo, std::int64_t hi, const char* note = nullptr) {
  const std::string allowed = fmt::format("an integer in [{}, {}]{}{}", lo, hi, note ? " " : "", note ? note : "");
  if (n.value.is_number_unsigned()) {
    const auto v = n.value.get<std::uint64_t>();
    // nlohmann stores every non-negative integer as unsigned: check both ends here too.
    if (v > static_cast<std::uint64_t>(hi) || (lo > 0 && v < static_cast<std::uint64_t>(lo))) fail(n, fmt::format("{} is out of range; allowed: {}", v, allowed));
    return static_cast<std::int64_t>(v);
  }
  if (n.value.is_number_integer()) {
    const auto v = n.value.get<std::int64_t>();
    if (v < lo || v > hi) fail(n, fmt::format("{} is out of range; allowed: {}", v, allowed));
    return v;
  }
  fail(n, fmt::format("expected {}, got {}", allowed, type_name(n.value)));
}

std::uint64_t get_uint64(const Node& n) {
  if (n.value.is_number_unsigned()) return n.value.get<std::uint64_t>();
  if (n.value.is_number_integer()) {
    fail(n, fmt::format("{} is out of range; allowed: an integer in [0, 18446744073709551615]",
                        n.value.get<std::int64_t>()));
  }
  fail(n, fmt::format("expected an integer in [0, 18446744073709551615], got {}", type_name(n.value)));
}

std::string get_string(const Node& n, const char* allowed) {
  if (!n.value.is_string()) fail(n, fmt::format("expected {}, got {}", allowed, type_name(n.value)));
  return n.value.get<std::string>();
}

// A scale: a JSON number, stored as float32 (TFLite's scales are float32). It must be finite and
// > 0 both as written and after rounding to float32.
float get_scale(const Node& n) {
  if (!n.value.is_number()) fail(n, fmt::format("expected a number > 0, got {}", type_name(n.value)));
  const double d = n.value.get<double>();
  const float f = static_cast<float>(d);
  if (!(std::isfinite(d) && d > 0.0)) fail(n, fmt::format("{} is out of range; allowed: a finite number > 0", d));
  if (!(std::isfinite(f) && f > 0.0f)) {
    fail(n, fmt::format("{} is not representable as a float32 scale (it rounds to {}); allowed: "
                        "[1.4e-45, 3.4e38]", d, f));
  }
  return f;
}

// [h, w] pair of extents (strides, dilations).
void get_pair(const Node& n, std::size_t* h, std::size_t* w) {
  constexpr std::int64_t kMax = std::int64_t{1} << 24;
  if (!n.value.is_array() || n.value.size() != 2) {
    fail(n, fmt::format("expected an array of 2 integers [h, w] in [1, {}], got {}", kMax,
                        n.value.is_array() ? fmt::format("an array of {}", n.value.size())
                                           : std::string(type_name(n.value))));
  }
  *h = static_cast<std::size_t>(get_int(n.element(0), 1, kMax));
  *w = static_cast<std::size_t>(get_int(n.element(1), 1, kMax));
}

// A number or an array of numbers -> list (per tensor or per channel).
template <class T, class Get>
std::vector<T> get_list(const Node& n, Get get) {
  std::vector<T> out;
  if (n.value.is_array()) {
    if (n.value.empty()) fail(n, "expected one value or a non-empty array of per-channel values, got []");
    for (std::size_t i = 0; i < n.value.size(); ++i) out.push_back(get(n.element(i)));
  } else {
    out.push_back(get(n));
  }
  return out;
}

std::vector<std::size_t> get_shape(const Node& n) {
  if (!n.value.is_array()) fail(n, fmt::format("expected an array of dimensions, got {}", type_name(n.value)));
  if (n.value.size() > 8) fail(n, fmt::format("{} dimensions; allowed: at most 8", n.value.size()));
  std::vector<std::size_t> shape;
  for (std::size_t i = 0; i < n.value.size(); ++i) {
    shape.push_back(static_cast<std::size_t>(get_int(n.element(i), 1, std::int64_t{1} << 28)));
  }
  return shape;
}

// ---- tensors: an .npy path or a seeded generator ------------------------------------------------

#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
std::string resolve_path(const std::string& base_dir, const std::string& path) {
  if (path.empty() || path[0] == '/' || base_dir.empty() || base_dir == ".") return path;
  return base_dir + "/" + path;
}
#endif

/// What a tensor must be: its dtype (fixed for filters and biases; any of `allowed` for inputs).
struct TensorRequirement {
  std::vector<DType> allowed;  // first = default dtype of a generator
  const char* what;            // "filter", "bias", "input"
};

Tensor get_tensor(const Node& n, [[maybe_unused]] const std::string& base_dir, const TensorRequirement& req) {
  std::vector<std::string> allowed_names;
  for (DType d : req.allowed) allowed_names.push_back(to_string(d));
  Tensor t;
  if (n.value.is_string()) {
    const std::string path = n.value.get<std::string>();
    if (path.empty()) fail(n, "expected a .npy path, got an empty string");
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    fail(n, "file access is disabled in fuzzing builds");
#else
    try {
      t = read_npy(resolve_path(base_dir, path));
    } catch (const ToolError& e) {
      throw ToolError(fmt::format("{}: {}: {}", n.context, n.path, e.what()), e.exit_code());
    }
#endif
  } else if (n.value.is_object()) {
    require_object(n, {"seed", "shape", "dtype", "min", "max"});
    for (const char* key : {"seed", "shape", "min", "max"}) {
      if (!n.has(key)) {
        fail(n, fmt::format("missing key \"{}\"; a generated tensor needs seed, shape, min and max{}", key,
                            req.allowed.size() > 1 ? " (and optionally dtype)" : ""));
      }
    }
    DType dtype = req.allowed.front();
    if (n.has("dtype")) {
      const Node d = n.child("dtype");
      const std::string text = get_string(d, "a dtype name");
      bool ok = dtype_from_string(text, &dtype);
      bool allowed = false;
      for (DType a : req.allowed) allowed = allowed || (ok && a == dtype);
      if (!allowed) fail(d, fmt::format("\"{}\" is not allowed here; allowed: {}", text, fmt::join(allowed_names, ", ")));
    }
    const std::uint64_t seed = get_uint64(n.child("seed"));
    const std::vector<std::size_t> shape = get_shape(n.child("shape"));
    std::size_t elements = 0;
    if (!checked_elements(shape, size_of(dtype), &elements) || elements > kMaxGeneratedElements) {
      fail(n.child("shape"), fmt::format("{} has too many elements; allowed: at most {} generated elements",
                                         shape_text(shape), kMaxGeneratedElements));
    }
    const std::int64_t lo = dtype_min(dtype), hi = dtype_max(dtype);
    const std::int64_t min = get_int(n.child("min"), lo, hi, to_string(dtype));
    const std::int64_t max = get_int(n.child("max"), lo, hi, to_string(dtype));
    if (min > max) fail(n.child("max"), fmt::format("max = {} is below min = {}; allowed: min <= max", max, min));
    return generate_tensor(dtype, shape, seed, min, max);
  } else {
    fail(n, fmt::format("expected a .npy path or a generator {{\"seed\", \"shape\", \"min\", \"max\"}}, got {}",
                        type_name(n.value)));
  }
  bool ok = false;
  for (DType a : req.allowed) ok = ok || a == t.dtype;
  if (!ok) {
    fail(n, fmt::format("the {} is {}; allowed: {}", req.what, to_string(t.dtype), fmt::join(allowed_names, ", ")));
  }
  return t;
}

// ---- the layer ----------------------------------------------------------------------------------

const std::vector<const char*> kLayerKeys = {
    "type", "name", "comment", "strides", "dilations", "padding", "groups", "depth_multiplier",
    "input_zero_point", "filter_zero_point", "output_zero_point", "input_scale", "filter_scales",
    "output_scale", "multipliers", "shifts", "activation", "activation_min", "activation_max",
    "output_dtype", "filter", "bias", "fold_batch"};

void check_name(const Node& n, const std::string& name) {
  bool ok = !name.empty() && name.size() <= 64 && name[0] != '.';
  for (char c : name) {
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                c == '-' || c == '.');
  }
  if (!ok) {
    fail(n, fmt::format("\"{}\" is not a valid layer name (it names output files); allowed: 1 to 64 of "
                        "A-Z a-z 0-9 _ - . not starting with '.'",
                        name));
  }
}

void check_filter_shape(const Node& where, const Layer& layer) {
  const std::vector<std::size_t>& s = layer.filter.shape;
  const char* layout = layer.type == LayerType::kConv2D            ? "[out_channels, kernel_h, kernel_w, in_channels / groups] (OHWI)"
                       : layer.type == LayerType::kDepthwiseConv2D ? "[1, kernel_h, kernel_w, out_channels] (1HWO)"
                                                                   : "[output_depth, input_depth] (OI)";
  const std::size_t rank = layer.type == LayerType::kFullyConnected ? 2 : 4;
  bool ok = s.size() == rank;
  for (std::size_t d : s) ok = ok && d > 0;
  if (ok && layer.type == LayerType::kDepthwiseConv2D) ok = s[0] == 1;
  if (!ok) {
    fail(where, fmt::format("filter shape {} does not fit {}; allowed: {}", shape_text(s), to_string(layer.type),
                            layout));
  }
}

std::string missing_scale_message(const char* key) {
  return fmt::format("missing key \"{}\"; requantization needs input_scale, filter_scales and output_scale, or "
                     "multipliers and shifts (a float layer, with a float32 filter, needs none)", key);
}

std::string bounded_activation_message(Activation a) {
  return fmt::format("{} needs output_scale to quantize its bounds; allowed: add output_scale, or give "
                     "activation_min/activation_max", activation_name(a));
}

Layer parse_layer_node(const Node& n, const std::string& base_dir, const LayerSources& given) {
  require_object(n, kLayerKeys);
  Layer layer;

  // type: from the JSON (stack layers) and/or the command line (`run <type>`); they must agree.
  if (n.has("type")) {
    const Node t = n.child("type");
    const std::string text = get_string(t, "a layer type");
    if (!layer_type_from_string(text, &layer.type)) {
      fail(t, fmt::format("unknown layer type \"{}\"; allowed: conv2d, depthwise_conv2d, fully_connected", text));
    }
    if (given.type && *given.type != layer.type) {
      fail(t, fmt::format("\"{}\" contradicts the command line's {}", text, to_string(*given.type)));
    }
  } else if (given.type) {
    layer.type = *given.type;
  } else {
    fail(n, "missing key \"type\"; allowed: conv2d, depthwise_conv2d, fully_connected");
  }
  const bool conv = layer.type != LayerType::kFullyConnected;

  layer.name = to_string(layer.type);
  if (n.has("name")) {
    const Node nm = n.child("name");
    layer.name = get_string(nm, "a layer name");
    check_name(nm, layer.name);
  }
  if (n.has("comment")) get_string(n.child("comment"), "a string");

  // Window keys only make sense for convolutions: rejecting them on fully_connected catches a
  // wrong "type" early.
  auto only_for = [&](const char* key, bool ok, const char* types) {
    if (n.has(key) && !ok) fail(n.child(key), fmt::format("not a parameter of {}; it applies to {}", to_string(layer.type), types));
  };
  only_for("strides", conv, "conv2d and depthwise_conv2d");
  only_for("dilations", conv, "conv2d and depthwise_conv2d");
  only_for("padding", conv, "conv2d and depthwise_conv2d");
  only_for("groups", layer.type == LayerType::kConv2D, "conv2d");
  only_for("depth_multiplier", layer.type == LayerType::kDepthwiseConv2D, "depthwise_conv2d");
  only_for("fold_batch", layer.type == LayerType::kFullyConnected, "fully_connected");

  if (n.has("strides")) get_pair(n.child("strides"), &layer.window.stride_h, &layer.window.stride_w);
  if (n.has("dilations")) get_pair(n.child("dilations"), &layer.window.dilation_h, &layer.window.dilation_w);
  if (n.has("padding")) {
    const Node p = n.child("padding");
    constexpr std::int64_t kMaxPad = std::int64_t{1} << 24;
    if (p.value.is_string()) {
      const std::string text = p.value.get<std::string>();
      if (text == "SAME") {
        layer.window.padding = Padding::kSame;
      } else if (text == "VALID") {
        layer.window.padding = Padding::kValid;
      } else {
        fail(p, fmt::format("\"{}\" is not a padding; allowed: \"SAME\", \"VALID\" or "
                            "{{\"top\", \"bottom\", \"left\", \"right\"}}", text));
      }
    } else if (p.value.is_object()) {
      require_object(p, {"top", "bottom", "left", "right"});
      for (const char* side : {"top", "bottom", "left", "right"}) {
        if (!p.has(side)) fail(p, fmt::format("missing key \"{}\"; explicit padding needs top, bottom, left and right", side));
      }
      layer.window.padding = Padding::kExplicit;
      layer.window.pad_top = static_cast<std::size_t>(get_int(p.child("top"), 0, kMaxPad));
      layer.window.pad_bottom = static_cast<std::size_t>(get_int(p.child("bottom"), 0, kMaxPad));
      layer.window.pad_left = static_cast<std::size_t>(get_int(p.child("left"), 0, kMaxPad));
      layer.window.pad_right = static_cast<std::size_t>(get_int(p.child("right"), 0, kMaxPad));
    } else {
      fail(p, fmt::format("expected \"SAME\", \"VALID\" or {{\"top\", \"bottom\", \"left\", \"right\"}}, got {}",
                          type_name(p.value)));
    }
  }
  if (n.has("fold_batch")) {
    const Node b = n.child("fold_batch");
    if (!b.value.is_boolean()) fail(b, fmt::format("expected true or false, got {}", type_name(b.value)));
    layer.fold_batch = b.value.get<bool>();
  }
  if (n.has("groups")) layer.groups = static_cast<std::size_t>(get_int(n.child("groups"), 1, std::int64_t{1} << 24));
  if (n.has("depth_multiplier")) {
    layer.depth_multiplier = static_cast<std::size_t>(get_int(n.child("depth_multiplier"), 1, std::int64_t{1} << 24));
  }

  // Zero points: ranges of any supported dtype here; run_layer checks them against the actual
  // input and output dtypes.
  if (n.has("input_zero_point")) {
    layer.input_zero_point = static_cast<std::int32_t>(get_int(n.child("input_zero_point"), -128, 255, "(int8 or uint8 input)"));
  }
  if (n.has("filter_zero_point")) {
    layer.filter_zero_point = static_cast<std::int32_t>(get_int(n.child("filter_zero_point"), -128, 127, "(int8 filter)"));
  }
  if (n.has("output_dtype")) {
    const Node d = n.child("output_dtype");
    const std::string text = get_string(d, "int8, uint8, int16 or int32");
    DType dtype{};
    if (!dtype_from_string(text, &dtype) || dtype == DType::kFloat32 || dtype == DType::kInt64) {
      fail(d, fmt::format("\"{}\" is not an output dtype; allowed: int8, uint8, int16, int32", text));
    }
    layer.output_dtype = dtype;
  }
  // With a known output dtype the zero point and bounds are checked against it here already.
  const std::int64_t out_lo = layer.output_dtype ? dtype_min(*layer.output_dtype) : dtype_min(DType::kInt32);
  const std::int64_t out_hi = layer.output_dtype ? dtype_max(*layer.output_dtype) : dtype_max(DType::kInt32);
  const char* out_note = layer.output_dtype ? to_string(*layer.output_dtype) : nullptr;
  if (n.has("output_zero_point")) {
    layer.output_zero_point = static_cast<std::int32_t>(get_int(n.child("output_zero_point"), out_lo, out_hi, out_note));
  }

  // Requantization: scales, or explicit multipliers and shifts.
  const char* missing_scale_key = nullptr;
  const bool has_scales = n.has("input_scale") || n.has("filter_scales");
  const bool has_multipliers = n.has("multipliers") || n.has("shifts");
  if (has_scales && has_multipliers) {
    fail(n.child(n.has("multipliers") ? "multipliers" : "shifts"),
         "give either scales (input_scale, filter_scales, output_scale) or explicit multipliers and "
         "shifts, not both");
  }
  if (has_multipliers) {
    for (const char* key : {"multipliers", "shifts"}) {
      if (!n.has(key)) fail(n, fmt::format("missing key \"{}\"; explicit requantization needs multipliers and shifts", key));
    }
    layer.multipliers = get_list<std::int32_t>(n.child("multipliers"), [](const Node& e) {
      return static_cast<std::int32_t>(get_int(e, 0, 2147483647, "(Q31 mantissa)"));
    });
    layer.shifts = get_list<std::int32_t>(n.child("shifts"), [](const Node& e) {
      return static_cast<std::int32_t>(get_int(e, -31, 30, "(TFLite convention, > 0 = left)"));
    });
    if (layer.shifts.size() != layer.multipliers.size()) {
      fail(n.child("shifts"), fmt::format("{} shifts for {} multipliers; allowed: one shift per multiplier",
                                          layer.shifts.size(), layer.multipliers.size()));
    }
  } else {
    // A missing scale is an error only once the filter says the layer is quantized (a float layer,
    // float32 filter, has none); it is reported before any problem of the filter itself.
    for (const char* key : {"input_scale", "filter_scales", "output_scale"}) {
      if (!n.has(key) && missing_scale_key == nullptr) missing_scale_key = key;
    }
    if (missing_scale_key == nullptr) {
      layer.input_scale = get_scale(n.child("input_scale"));
      layer.filter_scales = get_list<float>(n.child("filter_scales"), get_scale);
    }
  }
  if (n.has("output_scale")) layer.output_scale = get_scale(n.child("output_scale"));

  // Activation: TFLite's fused activation, or explicit quantized bounds.
  bool bounded_activation_without_scale = false;  // an error for a quantized layer (checked below)
  const bool explicit_bounds = n.has("activation_min") || n.has("activation_max");
  if (n.has("activation")) {
    const Node a = n.child("activation");
    const std::string text = get_string(a, "NONE, RELU, RELU6 or RELU_N1_TO_1");
    bool found = false;
    for (Activation act : {Activation::kNone, Activation::kRelu, Activation::kRelu6, Activation::kReluN1To1}) {
      if (text == activation_name(act)) {
        layer.activation = act;
        found = true;
      }
    }
    if (!found) fail(a, fmt::format("\"{}\" is not an activation; allowed: NONE, RELU, RELU6, RELU_N1_TO_1", text));
    if (explicit_bounds && layer.activation != Activation::kNone) {
      fail(a, "give either activation or activation_min/activation_max, not both");
    }
    bounded_activation_without_scale =
        (layer.activation == Activation::kRelu6 || layer.activation == Activation::kReluN1To1) && !layer.output_scale;
  }
  if (n.has("activation_min")) {
    layer.activation_min = static_cast<std::int32_t>(get_int(n.child("activation_min"), out_lo, out_hi, out_note));
  }
  if (n.has("activation_max")) {
    layer.activation_max = static_cast<std::int32_t>(get_int(n.child("activation_max"), out_lo, out_hi, out_note));
  }
  if (layer.activation_min && layer.activation_max && *layer.activation_min > *layer.activation_max) {
    fail(n.child("activation_max"), fmt::format("{} is below activation_min = {}; allowed: activation_min <= activation_max",
                                                *layer.activation_max, *layer.activation_min));
  }

  // Filter and bias: from the JSON or the command line, never both.
  if (n.has("filter") && given.filter) fail(n.child("filter"), "the filter is given both here and on the command line (--filter)");
  if (n.has("bias") && given.bias) fail(n.child("bias"), "the bias is given both here and on the command line (--bias)");
  if (given.filter) {
    layer.filter = *given.filter;
    if (layer.filter.dtype != DType::kInt8 && layer.filter.dtype != DType::kFloat32) {
      throw ToolError(fmt::format("--filter: the filter is {}; allowed: int8, float32 (a float layer)",
                                  to_string(layer.filter.dtype)));
    }
  } else if (n.has("filter")) {
    layer.filter = get_tensor(n.child("filter"), base_dir, {{DType::kInt8, DType::kFloat32}, "filter"});
  } else {
    // No filter: the quantized layer's own mistakes first (as before float layers existed).
    if (missing_scale_key != nullptr) fail(n, missing_scale_message(missing_scale_key));
    if (bounded_activation_without_scale) fail(n.child("activation"), bounded_activation_message(layer.activation));
    fail(n, "missing key \"filter\" (a .npy path or a generator)");
  }
  if (!layer.is_float()) {
    if (missing_scale_key != nullptr) fail(n, missing_scale_message(missing_scale_key));
    if (bounded_activation_without_scale) {
      fail(n.child("activation"), bounded_activation_message(layer.activation));
    }
  }
  const Node filter_where = n.has("filter") ? n.child("filter") : n;
  check_filter_shape(filter_where, layer);
  const std::size_t oc = layer.out_channels();
  // A float32 filter makes a float layer (float32 bias, input and output, no quantization).
  const DType bias_dtype = layer.is_float() ? DType::kFloat32 : DType::kInt32;
  if (given.bias) {
    layer.bias = *given.bias;
    if (layer.bias->dtype != bias_dtype) {
      throw ToolError(fmt::format("--bias: the bias is {}; allowed: {} (with a{} {} filter)",
                                  to_string(layer.bias->dtype), to_string(bias_dtype),
                                  layer.is_float() ? "" : "n", to_string(layer.filter.dtype)));
    }
  } else if (n.has("bias")) {
    layer.bias = get_tensor(n.child("bias"), base_dir, {{bias_dtype}, "bias"});
  }
  if (layer.bias && (layer.bias->shape.size() != 1 || layer.bias->shape[0] != oc)) {
    const std::string problem = fmt::format("bias shape {} does not match the filter's {} output channels; allowed: [{}]",
                                            shape_text(layer.bias->shape), oc, oc);
    if (n.has("bias")) fail(n.child("bias"), problem);
    throw ToolError(fmt::format("--bias: {}", problem));
  }

  if (layer.is_float()) {
    // A float layer has no quantization: a key that would quantize it is a mistake, not ignored.
    for (const char* key : {"input_zero_point", "filter_zero_point", "output_zero_point", "input_scale",
                            "filter_scales", "output_scale", "multipliers", "shifts", "activation_min",
                            "activation_max", "output_dtype"}) {
      if (n.has(key)) {
        fail(n.child(key), "not a parameter of a float layer (float32 filter: float32 input, bias and output, "
                           "no quantization); allowed: type, name, strides, dilations, padding, groups, "
                           "depth_multiplier, activation, filter, bias, fold_batch");
      }
    }
  }

  // Per-channel lists: one value or one per output channel.
  auto check_count = [&](const char* key, std::size_t count) {
    if (count != 1 && count != oc) {
      fail(n.child(key), fmt::format("{} values for {} output channels; allowed: 1 (per tensor) or {} (per channel)",
                                     count, oc, oc));
    }
  };
  if (layer.explicit_multipliers()) {
    check_count("multipliers", layer.multipliers.size());
  } else if (!layer.is_float()) {
    check_count("filter_scales", layer.filter_scales.size());
  }
  if (layer.type == LayerType::kDepthwiseConv2D && layer.depth_multiplier != 0 && oc % layer.depth_multiplier != 0) {
    fail(n.child("depth_multiplier"), fmt::format("{} does not divide the filter's {} output channels; allowed: a divisor of {}",
                                                  layer.depth_multiplier, oc, oc));
  }
  if (conv) {
    layer.window.kernel_h = layer.filter.shape[1];
    layer.window.kernel_w = layer.filter.shape[2];
  }
  return layer;
}

Stack parse_stack_node(const Node& root, const std::string& base_dir) {
  require_object(root, {"input", "layers", "comment"});
  Stack stack;
  if (root.has("comment")) get_string(root.child("comment"), "a string");
  if (root.has("input")) {
    stack.input = get_tensor(root.child("input"), base_dir, {{DType::kInt8, DType::kUint8, DType::kFloat32}, "input"});
  }
  if (!root.has("layers")) fail(root, "missing key \"layers\" (an array of layer objects)");
  const Node layers = root.child("layers");
  if (!layers.value.is_array() || layers.value.empty()) {
    fail(layers, fmt::format("expected a non-empty array of layer objects, got {}",
                             layers.value.is_array() ? "[]" : type_name(layers.value)));
  }
  for (std::size_t i = 0; i < layers.value.size(); ++i) {
    stack.layers.push_back(parse_layer_node(layers.element(i), base_dir, {}));
    // Float layers take float32 tensors, quantized layers int8/uint8 ones: a stack is one or the other.
    const bool float_layer = stack.layers[i].is_float();
    const bool float_stack = i == 0 ? (stack.input ? stack.input->dtype == DType::kFloat32 : float_layer)
                                    : stack.layers[0].is_float();
    if (float_layer != float_stack) {
      const Node node = layers.element(i);
      fail(node.has("filter") ? node.child("filter") : node,
           fmt::format("a {} filter in a stack whose {} is {}; a stack is all float (float32 input and filters) "
                       "or all quantized (int8/uint8 input, int8 filters)",
                       to_string(stack.layers[i].filter.dtype), i == 0 && stack.input ? "input" : "layers[0] filter",
                       i == 0 && stack.input ? to_string(stack.input->dtype)
                                             : to_string(stack.layers[0].filter.dtype)));
    }
    if (i == 0) continue;
    // A stack feeds each layer the previous one's output as it is: one tensor, one quantization.
    const Layer& prev = stack.layers[i - 1];
    const Layer& cur = stack.layers[i];
    const Node node = layers.element(i);
    const std::string prev_name = fmt::format("layers[{}] ('{}')", i - 1, prev.name);
    if (cur.input_zero_point != prev.output_zero_point) {
      fail(node.has("input_zero_point") ? node.child("input_zero_point") : node,
           fmt::format("input_zero_point {} differs from {}'s output_zero_point {}; a stack feeds each layer the "
                       "previous layer's output unchanged, so both must be the same",
                       cur.input_zero_point, prev_name, prev.output_zero_point));
    }
    if (cur.input_scale && prev.output_scale && *cur.input_scale != *prev.output_scale) {
      fail(node.child("input_scale"),
           fmt::format("input_scale {} differs from {}'s output_scale {}; a stack feeds each layer the previous "
                       "layer's output unchanged, so both must be the same",
                       *cur.input_scale, prev_name, *prev.output_scale));
    }
  }
  return stack;
}

}  // namespace

Layer parse_layer(const std::string& json_text, const std::string& base_dir, const std::string& context,
                  const LayerSources& given) {
  const json doc = parse_json_text(json_text, context);
  return parse_layer_node(Node{doc, "", context}, base_dir, given);
}

Stack parse_stack(const std::string& json_text, const std::string& base_dir, const std::string& context) {
  const json doc = parse_json_text(json_text, context);
  return parse_stack_node(Node{doc, "", context}, base_dir);
}

Stack load_stack(const std::string& path) {
  return parse_stack(read_text_file(path), directory_of(path), path);
}

}  // namespace qparity::cli
