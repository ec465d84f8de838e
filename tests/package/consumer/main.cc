// Downstream use of the compiled library: requantize with the active ISA and check the result
// against the header-only reference.
#include <cstdio>
#include <vector>

#include <qparity/qparity.h>

int main() {
  const qparity::Preset preset = qparity::find_preset("tflite-reference");
  const qparity::RequantParams p = qparity::derive_requant_params(preset, 0.5f, 0.0074f, 1.0f);
  std::vector<std::int32_t> acc;
  for (std::int32_t v = -5000; v <= 5000; v += 7) acc.push_back(v);
  std::vector<std::int8_t> out(acc.size());
  qparity::RequantizeArgs args;
  args.core = preset.core;
  args.params = &p;
  args.output = qparity::full_range_output(qparity::OutputType::kInt8, -3);
  args.channels = acc.size();
  args.acc = acc.data();
  qparity::requantize(args, out.data());
  for (std::size_t i = 0; i < acc.size(); ++i) {
    const std::int32_t want = qparity::requantize_to_output<qparity::DoubleRoundingAwayFromZero>(
        acc[i], p, args.output);
    if (out[i] != want) {
      std::printf("mismatch at acc=%d: %d != %d\n", acc[i], out[i], want);
      return 1;
    }
  }
  std::printf("consumer ok: %zu values on %s\n", acc.size(), qparity::to_string(qparity::active_isa()));
  return 0;
}
