// A downstream engine compiled with -fno-exceptions (the whole project): derives its parameters
// with the header-only helpers, runs a GEMM and a conv2d through qparity's non-throwing API
// (qparity/nothrow.h), checks them against the header-only reference, and checks that bad
// arguments come back as a Status whose message names the parameter. Exit status 0 iff all hold.
#include <qparity/nothrow.h>
#include <qparity/reference.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <vector>

#if QPARITY_HAS_EXCEPTIONS
#error "this consumer must be compiled with -fno-exceptions"
#endif

namespace {

int g_failures = 0;

void check(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what);
    ++g_failures;
  }
}

// Expects `s` to be `code` with a message that contains every fragment.
void check_error(const qparity::Status& s, qparity::StatusCode code,
                 std::initializer_list<const char*> fragments, const char* what) {
  bool ok = s.code() == code && std::strncmp(s.message(), "qparity: ", 9) == 0;
  for (const char* f : fragments) ok = ok && std::strstr(s.message(), f) != nullptr;
  if (!ok) {
    std::printf("FAILED: %s: got %s \"%s\"\n", what, qparity::to_string(s.code()), s.message());
    ++g_failures;
  } else {
    std::printf("  %s -> %s: %s\n", what, qparity::to_string(s.code()), s.message());
  }
}

template <class T>
std::vector<T> pattern(std::size_t n, int lo, int hi, std::uint32_t seed) {
  std::vector<T> v(n);
  for (T& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<T>(lo +
                       static_cast<int>((seed >> 8) % static_cast<std::uint32_t>(hi - lo + 1)));
  }
  return v;
}

}  // namespace

int main() {
  using namespace qparity;
  const Preset preset = find_preset("tflite-reference");
  const std::size_t m = 5, n = 24, k = 40;
  std::vector<RequantParams> params;
  for (std::size_t j = 0; j < n; ++j) {
    params.push_back(
        derive_requant_params(preset, 0.05f, 0.08f + 0.01f * static_cast<float>(j), 1.0f));
  }
  const std::vector<std::int8_t> a = pattern<std::int8_t>(m * k, -128, 127, 1);
  const std::vector<std::int8_t> b = pattern<std::int8_t>(n * k, -127, 127, 2);
  const std::vector<std::int32_t> bias = pattern<std::int32_t>(n, -4000, 4000, 3);

  // ---- GEMM: pack, run, compare with reference::gemm.
  GemmProblem<std::int8_t, std::int8_t> g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = a.data();
  g.a_zero_point = -3;
  g.b = b.data();
  g.bias = bias.data();
  g.params = params.data();
  g.per_channel = true;
  g.output = full_range_output(OutputType::kInt8, 7);
  std::vector<std::int8_t> want(m * n), got(m * n);
  g.c = want.data();
  reference::gemm(g, preset.core, preset.accumulator);

  Result<PackedGemm> packed = nothrow::pack_gemm(weights_of(g), preset.core, preset.accumulator);
  check(packed.ok(), "pack_gemm of valid weights");
  if (!packed.ok()) return 1;
  GemmCall<std::int8_t, std::int8_t> call = call_of(g);
  call.c = got.data();
  check(nothrow::gemm(*packed, call).ok(), "gemm of a valid call");
  check(got == want, "gemm equals reference::gemm");
  std::vector<std::int8_t> threaded(m * n);
  call.c = threaded.data();
  check(nothrow::gemm_threaded(*packed, call, 2).ok(), "gemm_threaded of a valid call");
  check(threaded == want, "gemm_threaded equals reference::gemm");

  // ---- Bad arguments come back as statuses naming the parameter.
  call.a_zero_point = 300;
  check_error(nothrow::gemm(*packed, call), StatusCode::kInvalidArgument,
              {"a_zero_point = 300", "allowed: [-128, 127]"}, "gemm with a_zero_point 300");
  call.a_zero_point = -3;
  call.c = nullptr;
  check_error(nothrow::gemm(*packed, call), StatusCode::kInvalidArgument, {"c is null"},
              "gemm with a null output");
  std::vector<RequantParams> bad_params = params;
  bad_params[3].shift = 31;
  GemmWeights bad_weights = weights_of(g);
  bad_weights.params = bad_params.data();
  check_error(nothrow::pack_gemm(bad_weights, preset.core).status(), StatusCode::kInvalidArgument,
              {"shift = 31", "allowed: [-31, 30]", "params[3]"},
              "pack_gemm with shift 31 in channel 3");
  check_error(nothrow::isa_from_string("avx1024").status(), StatusCode::kInvalidArgument,
              {"ISA 'avx1024' is unknown", "allowed: scalar"}, "isa_from_string(\"avx1024\")");
  for (Isa isa : all_isas()) {
    if ((supported_isas() & mask_of(isa)) != 0) continue;
    check_error(nothrow::pack_gemm(isa, weights_of(g), preset.core).status(),
                StatusCode::kUnsupportedIsa, {"is not supported on this CPU or not compiled in"},
                "pack_gemm on an unsupported ISA");
    break;
  }

  // ---- conv2d: 3x3 SAME on 2x8x8x4 -> 6 channels, per-channel scales.
  Conv2DProblem<std::int8_t, std::int8_t> c;
  c.geometry.batch = 2;
  c.geometry.in_h = c.geometry.in_w = 8;
  c.geometry.in_channels = 4;
  c.geometry.out_channels = 6;
  c.geometry.window.kernel_h = c.geometry.window.kernel_w = 3;
  c.geometry.window.padding = Padding::kSame;
  const std::vector<std::int8_t> input = pattern<std::int8_t>(2 * 8 * 8 * 4, -128, 127, 4);
  const std::vector<std::int8_t> filter = pattern<std::int8_t>(6 * 3 * 3 * 4, -127, 127, 5);
  c.weights.filter = filter.data();
  c.weights.bias = bias.data();
  c.weights.params = params.data();
  c.weights.per_channel = true;
  c.call.input = input.data();
  c.call.input_zero_point = 2;
  c.call.output = full_range_output(OutputType::kInt8, -1);
  std::vector<std::int8_t> conv_want(2 * 8 * 8 * 6), conv_got(conv_want.size());
  c.call.out = conv_want.data();
  reference::conv2d(c, preset.core, preset.accumulator);

  Result<PackedConv2D> conv =
      nothrow::pack_conv2d(c.geometry, c.weights, preset.core, preset.accumulator);
  check(conv.ok(), "pack_conv2d of a valid layer");
  if (!conv.ok()) return 1;
  ConvCall<std::int8_t, std::int8_t> conv_call = c.call;
  conv_call.out = conv_got.data();
  check(nothrow::conv2d(*conv, conv_call).ok(), "conv2d of a valid call");
  check(conv_got == conv_want, "conv2d equals reference::conv2d");

  Conv2DGeometry bad_geometry = c.geometry;
  bad_geometry.groups = 3;
  check_error(nothrow::pack_conv2d(bad_geometry, c.weights, preset.core).status(),
              StatusCode::kInvalidArgument, {"groups = 3", "allowed: a divisor"},
              "pack_conv2d with groups 3");
  conv_call.output.qmin = 20;
  conv_call.output.qmax = 10;
  check_error(nothrow::conv2d(*conv, conv_call), StatusCode::kInvalidArgument, {"qmax = 10"},
              "conv2d with qmax < qmin");

  if (g_failures != 0) return 1;
  std::printf("nothrow consumer ok (-fno-exceptions): gemm %zux%zux%zu and conv2d on %s\n", m, n, k,
              to_string(packed->isa()));
  return 0;
}
