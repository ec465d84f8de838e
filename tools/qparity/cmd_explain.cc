// `qparity explain ACC (--scale S | --multiplier M --shift SH) [--zero-point Z] [--presets ...]`:
// one row per preset with its parameters, the intermediate values of its rounding core, its result
// and the rule that decided it, against the exact real value.
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands.h"
#include "csv_input.h"
#include "exact_decimal.h"
#include "explain_trace.h"
#include "preset_params.h"
#include "qparity/reference.h"
#include "table.h"

namespace qparity::cli {
namespace {

constexpr const char* kCommand = "explain";

// --scale limits: every derivation handles them, and acc * scale stays an exact dyadic the
// explanation can print (|acc * scale| < 2^62).
constexpr double kScaleMin = 0x1p-64;
constexpr double kScaleMax = 0x1p31;
constexpr const char* kScaleAllowed = "a finite value in [2^-64, 2^31] (5.42e-20 .. 2147483648)";

constexpr std::int64_t kZeroPointMin = -32768;
constexpr std::int64_t kZeroPointMax = 65535;

struct Inputs {
  std::int32_t acc = 0;
  std::int32_t zero_point = 0;
  bool scale_mode = false;
  double scale = 0.0;
  std::int32_t multiplier = 0;
  std::int32_t shift = 0;
  std::vector<Preset> presets;
};

// Returns the error text, or nothing when all inputs are valid.
std::optional<std::string> parse_inputs(const ExplainOptions& o, Inputs* in) {
  std::string error;
  std::int64_t v = 0;
  if (!parse_int_in_range(o.acc, "ACC", INT32_MIN, INT32_MAX, "int32 accumulator", &v, &error)) {
    return error;
  }
  in->acc = static_cast<std::int32_t>(v);

  if (o.has_scale && (o.has_multiplier || o.has_shift)) {
    return std::string(
        "--scale cannot be combined with --multiplier/--shift; give either --scale S "
        "or --multiplier M --shift SH");
  }
  if (!o.has_scale && !(o.has_multiplier && o.has_shift)) {
    if (o.has_multiplier) return std::string("--multiplier needs --shift");
    if (o.has_shift) return std::string("--shift needs --multiplier");
    return std::string("give either --scale S or --multiplier M --shift SH");
  }
  if (o.has_scale) {
    in->scale_mode = true;
    const ParseStatus st = parse_double(o.scale, &in->scale);
    if (st == ParseStatus::kNotANumber) {
      return fmt::format("--scale '{}' is not a number; allowed: {}", trim(o.scale), kScaleAllowed);
    }
    if (st == ParseStatus::kOutOfRange || !std::isfinite(in->scale) || !(in->scale >= kScaleMin) ||
        !(in->scale <= kScaleMax)) {
      return fmt::format("--scale = {} is out of range; allowed: {}", trim(o.scale), kScaleAllowed);
    }
  } else {
    if (!parse_int_in_range(o.multiplier, "--multiplier", 0, kQ31MultiplierMax, "Q31 mantissa", &v,
                            &error)) {
      return error;
    }
    in->multiplier = static_cast<std::int32_t>(v);
    if (!parse_int_in_range(o.shift, "--shift", kQ31ShiftMin, kQ31ShiftMax,
                            "TFLite convention, > 0 = left", &v, &error)) {
      return error;
    }
    in->shift = static_cast<std::int32_t>(v);
  }
  if (o.has_zero_point) {
    if (!parse_int_in_range(o.zero_point, "--zero-point", kZeroPointMin, kZeroPointMax,
                            "int8/uint8/int16/uint16 zero points", &v, &error)) {
      return error;
    }
    in->zero_point = static_cast<std::int32_t>(v);
  }
  if (o.has_presets) {
    std::string_view rest = o.presets;
    for (;;) {
      const std::size_t comma = rest.find(',');
      const std::string name(trim(rest.substr(0, comma)));
      if (name.empty()) {
        return fmt::format(
            "--presets '{}' has an empty name; allowed: a comma-separated list of "
            "preset names (see 'qparity list')",
            o.presets);
      }
      try {
        in->presets.push_back(find_preset(name));
      } catch (const InvalidArgument& e) {
        return "--presets: " + without_library_prefix(e.what());
      }
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  } else {
    in->presets = named_presets();
  }
  return std::nullopt;
}

struct Row {
  const Preset* preset = nullptr;
  bool ok = false;
  std::string params;
  Trace trace;
  std::string error;
};

std::string join_steps(const std::vector<TraceStep>& steps) {
  std::string s;
  for (const TraceStep& st : steps) {
    if (!s.empty()) s += "  ";
    s += st.name + "=" + st.value;
  }
  return s;
}

std::string describe_nearest(const Dyadic& exact) {
  if (exact.is_tie()) {
    return fmt::format("a tie: nearest integers {} and {}", exact.floor(), exact.floor() + 1);
  }
  if (exact.is_integer()) return "an integer";
  return fmt::format("nearest integer {}", exact.nearest_low());
}

}  // namespace

CLI::App* add_explain_command(CLI::App& app, ExplainOptions* o) {
  CLI::App* sub = app.add_subcommand(
      "explain",
      "Show, for one accumulator, every preset's parameters, the intermediate values of its "
      "rounding core, its result and WHICH RULE DECIDED IT.");
  CLI::Option* acc = sub->add_option("ACC", o->acc, "The int32 accumulator (bias included), e.g. 135 or -10")
                         ->type_name("INT");
  CLI::Option* model =
      sub->add_option("--model", o->model,
                      "Explain one op of a model instead (with --op): its tensors, the arithmetic --a "
                      "(and --b) give it, their derived parameters, and on the model's inputs how many "
                      "of its output elements --b computes differently from --a")
          ->type_name("FILE");
  CLI::Option* op = sub->add_option("--op", o->op, "With --model: the op, by index, node name or output tensor name")
                        ->type_name("OP")
                        ->needs(model);
  model->needs(op);
  model->excludes(acc);
  sub->add_option("--a", o->a, "With --model: per-op map (default tflite-xnnpack-x86)")->type_name("MAP")->needs(model);
  sub->add_option("--b", o->b, "With --model: a second per-op map to compare with")->type_name("MAP")->needs(model);
  sub->add_option("--input", o->input, "With --model: the model's inputs (.npy, comma-separated; default seeded)")
      ->type_name("FILES")
      ->needs(model);
  sub->add_option("--seed", o->seed, "With --model and no --input: the seed of the generated inputs (default 1)")
      ->needs(model);
  CLI::Option* scale =
      sub->add_option("--scale", o->scale,
                      "Effective real scale S in [2^-64, 2^31]; each preset derives its own "
                      "parameters from it (derive_requant_params)")
          ->type_name("S");
  CLI::Option* multiplier =
      sub->add_option("--multiplier", o->multiplier,
                      "Q31 multiplier M in [0, 2147483647], used directly by integer presets")
          ->type_name("M");
  CLI::Option* shift =
      sub->add_option("--shift", o->shift,
                      "Shift in [-31, 30], TFLite convention (> 0 = left); scale = M*2^(SH-31)")
          ->type_name("SH");
  CLI::Option* zp =
      sub->add_option(
             "--zero-point", o->zero_point,
             "Output zero point Z in [-32768, 65535], added after rounding (inside it for F32-ZPF)")
          ->type_name("Z");
  CLI::Option* presets =
      sub->add_option(
             "--presets", o->presets,
             "Comma-separated preset names (default: all named presets; NPU family names allowed)")
          ->type_name("a,b,...");
  sub->footer(
      "With --multiplier/--shift, Q31 presets use (M, SH) as given, Q15 presets reduce M with\n"
      "reduce_multiplier_q31_to_q15, float presets use float(M*2^(SH-31)). With --scale, every\n"
      "preset derives its parameters as the system it reproduces would.\n"
      "Examples:\n"
      "  qparity explain 135 --scale 0.0037        (DR-AZ gives 1, SR-UP gives 0)\n"
      "  qparity explain -10 --multiplier 1073741824 --shift -1   (-2.5: -3, -2 by tie rule)\n"
      "  qparity explain --model m.tflite --op 3 --a tflite-xnnpack-x86 --b npu-verisilicon\n"
      "Exit status: 0 success, 1 write error, 2 invalid option or argument.");
  for (CLI::Option* acc_only : {scale, multiplier, shift, zp, presets}) model->excludes(acc_only);
  sub->callback([o, scale, multiplier, shift, zp, presets] {
    o->has_scale = scale->count() > 0;
    o->has_multiplier = multiplier->count() > 0;
    o->has_shift = shift->count() > 0;
    o->has_zero_point = zp->count() > 0;
    o->has_presets = presets->count() > 0;
  });
  return sub;
}

int run_explain(const ExplainOptions& options) {
  if (!options.model.empty()) return run_explain_model_op(options);
  if (options.acc.empty()) {
    print_error(kCommand, "give ACC (one accumulator) or --model FILE --op OP (one op of a model)");
    return kExitUsage;
  }
  Inputs in;
  if (auto error = parse_inputs(options, &in)) {
    print_error(kCommand, *error);
    return kExitUsage;
  }

  // The exact real value every preset approximates.
  const double real_scale = in.scale_mode ? in.scale : std::ldexp(in.multiplier, in.shift - 31);
  const Dyadic exact =
      (in.scale_mode ? Dyadic::product(in.acc, in.scale)
                     : Dyadic::ratio(static_cast<Int128>(in.acc) * in.multiplier, 31 - in.shift))
          .plus(in.zero_point);

  std::vector<Row> rows;
  for (const Preset& preset : in.presets) {
    Row row;
    row.preset = &preset;
    try {
      const RequantParams p = in.scale_mode
                                  ? params_from_scale(preset, in.scale)
                                  : params_from_multiplier(preset.core, in.multiplier, in.shift);
      row.params = params_text(preset.core, p);
      row.trace = trace_rounding(preset.core, p, in.acc, in.zero_point);
      row.ok = true;
    } catch (const InvalidArgument& e) {
      row.error = without_library_prefix(e.what());
    }
    rows.push_back(std::move(row));
  }

  // The most common result, if one result is strictly more common than every other.
  std::map<std::int64_t, int> counts;
  int computed = 0;
  for (const Row& r : rows) {
    if (r.ok) {
      ++counts[r.trace.result];
      ++computed;
    }
  }
  std::int64_t top_value = 0;
  int majority_count = 0;
  bool unique = false;
  for (const auto& [value, count] : counts) {
    if (count > majority_count) {
      top_value = value;
      majority_count = count;
      unique = true;
    } else if (count == majority_count) {
      unique = false;
    }
  }
  // No majority marks when all presets agree or no result is strictly most common.
  const bool has_majority = unique && counts.size() >= 2;

  fmt::memory_buffer out;
  auto it = std::back_inserter(out);
  const char* zp_text = in.zero_point != 0 ? " + zp" : "";
  if (in.scale_mode) {
    fmt::format_to(it,
                   "acc = {}, scale = {}{} (each preset derives its own parameters from the "
                   "scale)\n",
                   in.acc, trim(options.scale),
                   in.zero_point != 0 ? fmt::format(", zero point = {}", in.zero_point) : "");
  } else {
    fmt::format_to(it, "acc = {}, multiplier = {}, shift = {}{}: real scale M*2^(shift-31) = {}\n",
                   in.acc, in.multiplier, in.shift,
                   in.zero_point != 0 ? fmt::format(", zero point = {}", in.zero_point) : "",
                   real_scale);
  }
  fmt::format_to(it, "exact acc*scale{} = {}  ({})\n", zp_text, exact.to_string(20),
                 describe_nearest(exact));
  if (computed == 1) {
    fmt::format_to(it, "result: {}\n", counts.begin()->first);
  } else if (counts.size() == 1) {
    fmt::format_to(it, "all {} presets agree: {}\n", computed, counts.begin()->first);
  } else if (has_majority) {
    fmt::format_to(it, "most common result: {} ({} of {} presets)\n", top_value, majority_count,
                   computed);
  } else if (computed > 0) {
    fmt::format_to(it, "no single most common result among {} presets\n", computed);
  }
  fmt::format_to(it, "\n");

  Table table({"PRESET", "CORE", in.zero_point != 0 ? "RESULT+ZP" : "RESULT", "DECIDED BY", "MARK",
               "PARAMETERS", "INTERMEDIATE VALUES"});
  table.set_align(2, Table::Align::kRight);
  for (const Row& r : rows) {
    if (!r.ok) {
      table.add_row({r.preset->name, to_string(r.preset->core), "n/a",
                     "parameters not representable", "", "", r.error});
      continue;
    }
    std::string mark;
    if (!exact.is_nearest(r.trace.result)) mark = "!= nearest";
    if (has_majority && r.trace.result != top_value)
      mark += mark.empty() ? "!= majority" : ", != majority";
    table.add_row({r.preset->name, to_string(r.preset->core), fmt::format("{}", r.trace.result),
                   r.trace.rule, mark, r.params, join_steps(r.trace.steps)});
  }
  table.render(out);
  fmt::format_to(it,
                 "\nDECIDED BY: the rounding step that determined the result. MARK: '!= nearest' "
                 "differs from the integer nearest\nto the exact value; '!= majority' differs from "
                 "the most common result. Values are exact; '...' = truncated.\n");
  return write_stdout(kCommand, out) ? kExitOk : kExitIoError;
}

}  // namespace qparity::cli
