// The non-throwing API (include/qparity/nothrow.h, status.h) against the throwing one: every entry
// point returns kOk and the same bits on a valid call, and on bad input the StatusCode of what the
// throwing call throws (kInvalidArgument, kUnsupportedIsa for a forced ISA the CPU or build lacks,
// kOutOfMemory for std::bad_alloc) with exactly the exception's message.
#include "qparity/nothrow.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "failing_new.h"
#include "qparity/presets.h"
#include "qparity/status.h"

namespace {

using namespace qparity;
using qparity_test::FailAllocations;

/// The message of the InvalidArgument `f` throws (a failure if it throws nothing or another type).
template <class F>
std::string thrown_message(F&& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the throwing call threw another type: " << e.what();
    return {};
  }
  ADD_FAILURE() << "the throwing call did not throw";
  return {};
}

/// Expects `s` to be `code` with the message of the InvalidArgument `throwing` throws.
template <class F>
void expect_same_error(const Status& s, StatusCode code, F&& throwing) {
  const std::string want = thrown_message(throwing);
  EXPECT_EQ(s.code(), code) << to_string(s.code()) << ": " << s.message();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(std::string(s.message()), want);
  EXPECT_EQ(want.rfind("qparity: ", 0), 0u) << want;
}

#define EXPECT_OK(expr)                                                   \
  do {                                                                    \
    const ::qparity::Status s_ = (expr);                                  \
    EXPECT_TRUE(s_.ok()) << to_string(s_.code()) << ": " << s_.message(); \
  } while (0)

/// An ISA value that is never in supported_isas() (not an Isa at all), and a real ISA this CPU or
/// build lacks, if there is one (e.g. amx on most machines).
const Isa kNotAnIsa = static_cast<Isa>(1u << 30);
std::optional<Isa> unsupported_isa() {
  for (Isa isa : all_isas()) {
    if ((supported_isas() & mask_of(isa)) == 0) return isa;
  }
  return std::nullopt;
}

template <class T>
std::vector<T> random_vector(std::size_t n, int lo, int hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(d(rng));
  return v;
}

/// Per-channel TFLite parameters for n channels (scales around 1/200).
std::vector<RequantParams> channel_params(std::size_t n) {
  const Preset preset = find_preset("tflite-reference");
  std::vector<RequantParams> p;
  for (std::size_t j = 0; j < n; ++j) {
    p.push_back(
        derive_requant_params(preset, 0.05f, 0.1f * (1.0f + static_cast<float>(j) / 16.0f), 1.0f));
  }
  return p;
}

constexpr RoundingCore kCore = RoundingCore::kDoubleRoundingAwayFromZero;

// ------------------------------------------ Status ------------------------------------------

TEST(Status, OkIsTheDefaultAndCarriesNoMessage) {
  const Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.code(), StatusCode::kOk);
  EXPECT_STREQ(ok.message(), "");
  EXPECT_TRUE(Status(StatusCode::kOk, "ignored").ok());
  EXPECT_STREQ(Status(StatusCode::kOk, "ignored").message(), "");
}

TEST(Status, FailuresKeepTheirCodeAndMessage) {
  const Status s(StatusCode::kInvalidArgument, "qparity: shift = 31 is out of range");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_STREQ(s.message(), "qparity: shift = 31 is out of range");
  const Status copy = s;
  EXPECT_STREQ(copy.message(), s.message());
  // Without a message of its own, a failure names its code.
  EXPECT_STREQ(Status(StatusCode::kOutOfMemory).message(), "qparity: out of memory");
  EXPECT_STREQ(Status(StatusCode::kUnsupportedIsa).message(), "qparity: unsupported ISA");
  EXPECT_STREQ(Status(StatusCode::kInvalidArgument).message(), "qparity: invalid argument");
  EXPECT_STREQ(Status(StatusCode::kInternal).message(), "qparity: internal error");
  EXPECT_STREQ(to_string(StatusCode::kOk), "ok");
  EXPECT_STREQ(to_string(StatusCode::kInvalidArgument), "invalid argument");
  EXPECT_STREQ(to_string(StatusCode::kUnsupportedIsa), "unsupported ISA");
  EXPECT_STREQ(to_string(StatusCode::kOutOfMemory), "out of memory");
  EXPECT_STREQ(to_string(StatusCode::kInternal), "internal");
}

TEST(Status, ResultHoldsAValueOrAFailure) {
  Result<int> value = 7;
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, 7);
  EXPECT_EQ(value.value(), 7);
  EXPECT_TRUE(value.status().ok());
  const Result<int> failed = Status(StatusCode::kInvalidArgument, "qparity: bad");
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_STREQ(failed.status().message(), "qparity: bad");
  // An ok Status is not a value.
  const Result<int> empty = Status();
  EXPECT_EQ(empty.status().code(), StatusCode::kInternal);
  EXPECT_DEATH({ (void)*failed; }, "qparity: the value of a failed Result was used: qparity: bad");
}

// -------------------------------------------- ISA --------------------------------------------

TEST(NothrowIsa, SameAnswersAsTheThrowingFunctions) {
  for (Isa isa : all_isas()) {
    const Result<Isa> parsed = nothrow::isa_from_string(to_string(isa));
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    EXPECT_EQ(*parsed, isa);
    const Result<Isa> kernel = nothrow::requantize_kernel_isa(isa);
    ASSERT_TRUE(kernel.ok()) << kernel.status().message();
    EXPECT_EQ(*kernel, requantize_kernel_isa(isa));
  }
  const Result<Isa> active = nothrow::active_isa();
  ASSERT_TRUE(active.ok());
  EXPECT_EQ(*active, active_isa());
  const Result<IsaMask> enabled = nothrow::enabled_isas();
  ASSERT_TRUE(enabled.ok());
  EXPECT_EQ(*enabled, enabled_isas());
}

TEST(NothrowIsa, BadNamesAndValuesAreInvalidArguments) {
  expect_same_error(nothrow::isa_from_string("avx3").status(), StatusCode::kInvalidArgument,
                    [] { isa_from_string("avx3"); });
  expect_same_error(nothrow::requantize_kernel_isa(kNotAnIsa).status(),
                    StatusCode::kInvalidArgument, [] { requantize_kernel_isa(kNotAnIsa); });
}

// ------------------------------------------ requantize ----------------------------------------

struct RequantCase {
  std::size_t rows = 3, channels = 37;
  std::vector<std::int32_t> acc = random_vector<std::int32_t>(rows * channels, -40000, 40000, 1);
  std::vector<RequantParams> params = channel_params(channels);
  RequantizeArgs args() const {
    RequantizeArgs a;
    a.core = kCore;
    a.params = params.data();
    a.per_channel = true;
    a.output = full_range_output(OutputType::kInt8, -5);
    a.rows = rows;
    a.channels = channels;
    a.acc = acc.data();
    return a;
  }
};

TEST(NothrowRequantize, ValidCallsGiveTheThrowingCallsBits) {
  RequantCase c;
  std::vector<std::int8_t> want(c.acc.size()), got(c.acc.size(), 0);
  requantize(c.args(), want.data());
  EXPECT_OK(nothrow::requantize(c.args(), got.data()));
  EXPECT_EQ(got, want);
  for (Isa isa : all_isas()) {
    if ((supported_isas() & mask_of(isa)) == 0) continue;
    SCOPED_TRACE(to_string(isa));
    std::vector<std::int32_t> want32(c.acc.size()), got32(c.acc.size(), 0);
    RequantizeArgs a = c.args();
    a.output = OutputParams{};
    requantize(isa, a, want32.data());
    EXPECT_OK(nothrow::requantize(isa, a, got32.data()));
    EXPECT_EQ(got32, want32);
  }
}

TEST(NothrowRequantize, BadInputGivesTheExceptionsCodeAndMessage) {
  RequantCase c;
  std::vector<std::int8_t> out(c.acc.size());
  // A null pointer.
  expect_same_error(nothrow::requantize<std::int8_t>(c.args(), nullptr),
                    StatusCode::kInvalidArgument,
                    [&] { requantize<std::int8_t>(c.args(), nullptr); });
  // A bad shift in one channel (the message names the channel).
  c.params[11].shift = 31;
  expect_same_error(nothrow::requantize(c.args(), out.data()), StatusCode::kInvalidArgument,
                    [&] { requantize(c.args(), out.data()); });
  EXPECT_NE(std::string(nothrow::requantize(c.args(), out.data()).message()).find("params[11]"),
            std::string::npos);
  c.params[11].shift = -8;
  // An output zero point outside the output type.
  RequantizeArgs a = c.args();
  a.output.zero_point = 200;
  expect_same_error(nothrow::requantize(a, out.data()), StatusCode::kInvalidArgument,
                    [&] { requantize(a, out.data()); });
  // A forced ISA this build or CPU does not have.
  expect_same_error(nothrow::requantize(kNotAnIsa, c.args(), out.data()),
                    StatusCode::kUnsupportedIsa,
                    [&] { requantize(kNotAnIsa, c.args(), out.data()); });
  if (const std::optional<Isa> missing = unsupported_isa()) {
    expect_same_error(nothrow::requantize(*missing, c.args(), out.data()),
                      StatusCode::kUnsupportedIsa,
                      [&] { requantize(*missing, c.args(), out.data()); });
  }
}

// --------------------------------------- GEMM, fully connected --------------------------------

struct GemmCase {
  std::size_t m = 7, n = 19, k = 45;
  std::vector<std::int8_t> a = random_vector<std::int8_t>(m * k, -128, 127, 2);
  std::vector<std::int8_t> b = random_vector<std::int8_t>(n * k, -128, 127, 3);
  std::vector<std::int32_t> bias = random_vector<std::int32_t>(n, -5000, 5000, 4);
  std::vector<RequantParams> params = channel_params(n);

  GemmWeights weights() const {
    GemmWeights w;
    w.n = n;
    w.k = k;
    w.b = b.data();
    w.bias = bias.data();
    w.params = params.data();
    w.per_channel = true;
    return w;
  }
  GemmCall<std::int8_t, std::int8_t> call(std::int8_t* c) const {
    return GemmCall<std::int8_t, std::int8_t>{
        m, a.data(), 0, 3, full_range_output(OutputType::kInt8, -2), c, 0};
  }
  GemmProblem<std::int8_t, std::int8_t> problem(std::int8_t* c) const {
    GemmProblem<std::int8_t, std::int8_t> g;
    g.m = m;
    g.n = n;
    g.k = k;
    g.a = a.data();
    g.a_zero_point = 3;
    g.b = b.data();
    g.bias = bias.data();
    g.params = params.data();
    g.per_channel = true;
    g.output = full_range_output(OutputType::kInt8, -2);
    g.c = c;
    return g;
  }
  FullyConnectedWeights fc_weights() const {
    FullyConnectedWeights f;
    f.output_depth = n;
    f.input_depth = k;
    f.filter = b.data();
    f.bias = bias.data();
    f.params = params.data();
    f.per_channel = true;
    return f;
  }
  FullyConnectedCall<std::int8_t, std::int8_t> fc_call(std::int8_t* out) const {
    FullyConnectedCall<std::int8_t, std::int8_t> c;
    c.batch = m;
    c.input = a.data();
    c.input_zero_point = 3;
    c.output = full_range_output(OutputType::kInt8, -2);
    c.out = out;
    return c;
  }
};

TEST(NothrowGemm, ValidCallsGiveTheThrowingCallsBits) {
  GemmCase g;
  const std::size_t size = g.m * g.n;
  std::vector<std::int8_t> want(size);
  const PackedGemm packed(g.weights(), kCore);
  gemm(packed, g.call(want.data()));

  Result<PackedGemm> p = nothrow::pack_gemm(g.weights(), kCore);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->isa(), packed.isa());
  EXPECT_EQ(p->kernel_name(), packed.kernel_name());

  std::vector<std::int8_t> got(size, 0);
  EXPECT_OK(nothrow::gemm(*p, g.call(got.data())));
  EXPECT_EQ(got, want);

  got.assign(size, 0);
  const std::size_t tiles = gemm_tile_count(*p, g.m);
  EXPECT_OK(nothrow::gemm_tiles(*p, g.call(got.data()), 0, tiles / 2));
  EXPECT_OK(nothrow::gemm_tiles(*p, g.call(got.data()), tiles / 2, tiles));
  EXPECT_EQ(got, want);

  got.assign(size, 0);
  const std::size_t cut = gemm_tile_count(*p, g.m, 2);
  EXPECT_OK(nothrow::gemm_tiles(*p, g.call(got.data()), 2, cut / 2, cut));
  EXPECT_OK(nothrow::gemm_tiles(*p, g.call(got.data()), 2, 0, cut / 2));
  EXPECT_EQ(got, want);

  got.assign(size, 0);
  EXPECT_OK(nothrow::gemm_threaded(*p, g.call(got.data()), 2));
  EXPECT_EQ(got, want);

  got.assign(size, 0);
  EXPECT_OK(nothrow::gemm(g.problem(got.data()), kCore));
  EXPECT_EQ(got, want);

  got.assign(size, 0);
  EXPECT_OK((nothrow::gemm<DoubleRoundingAwayFromZero, Int32Accumulator>(g.problem(got.data()))));
  EXPECT_EQ(got, want);

  // Every supported ISA, forced.
  for (Isa isa : all_isas()) {
    if ((supported_isas() & mask_of(isa)) == 0) continue;
    SCOPED_TRACE(to_string(isa));
    const PackedGemm forced(isa, g.weights(), kCore, {AccumulatorKind::kSaturating, 24});
    std::vector<std::int8_t> want_isa(size), got_isa(size, 0);
    gemm(forced, g.call(want_isa.data()));
    Result<PackedGemm> q =
        nothrow::pack_gemm(isa, g.weights(), kCore, {AccumulatorKind::kSaturating, 24});
    ASSERT_TRUE(q.ok()) << q.status().message();
    EXPECT_EQ(q->isa(), isa);
    EXPECT_OK(nothrow::gemm(*q, g.call(got_isa.data())));
    EXPECT_EQ(got_isa, want_isa);
  }
}

TEST(NothrowGemm, BadInputGivesTheExceptionsCodeAndMessage) {
  GemmCase g;
  std::vector<std::int8_t> out(g.m * g.n);
  // Packing: a bad shift in channel 5, a null filter, a bad accumulator, an unsupported ISA.
  g.params[5].shift = 31;
  expect_same_error(nothrow::pack_gemm(g.weights(), kCore).status(), StatusCode::kInvalidArgument,
                    [&] { (void)PackedGemm(g.weights(), kCore); });
  expect_same_error(nothrow::gemm(g.problem(out.data()), kCore), StatusCode::kInvalidArgument,
                    [&] { gemm(g.problem(out.data()), kCore); });
  g.params[5].shift = -8;
  GemmWeights no_b = g.weights();
  no_b.b = nullptr;
  expect_same_error(nothrow::pack_gemm(no_b, kCore).status(), StatusCode::kInvalidArgument,
                    [&] { (void)PackedGemm(no_b, kCore); });
  const AccumulatorSpec bad_acc{AccumulatorKind::kSaturating, 50};
  expect_same_error(nothrow::pack_gemm(g.weights(), kCore, bad_acc).status(),
                    StatusCode::kInvalidArgument,
                    [&] { (void)PackedGemm(g.weights(), kCore, bad_acc); });
  expect_same_error(nothrow::pack_gemm(kNotAnIsa, g.weights(), kCore).status(),
                    StatusCode::kUnsupportedIsa,
                    [&] { (void)PackedGemm(kNotAnIsa, g.weights(), kCore); });
  if (const std::optional<Isa> missing = unsupported_isa()) {
    expect_same_error(nothrow::pack_gemm(*missing, g.weights(), kCore).status(),
                      StatusCode::kUnsupportedIsa,
                      [&] { (void)PackedGemm(*missing, g.weights(), kCore); });
  }

  // Running: a zero point outside int8, a null output, a tile range past the end.
  const PackedGemm packed(g.weights(), kCore);
  auto call = g.call(out.data());
  call.a_zero_point = 300;
  expect_same_error(nothrow::gemm(packed, call), StatusCode::kInvalidArgument,
                    [&] { gemm(packed, call); });
  expect_same_error(nothrow::gemm_threaded(packed, call, 2), StatusCode::kInvalidArgument,
                    [&] { gemm_threaded(packed, call, 2); });
  call = g.call(nullptr);
  expect_same_error(nothrow::gemm(packed, call), StatusCode::kInvalidArgument,
                    [&] { gemm(packed, call); });
  const std::size_t tiles = gemm_tile_count(packed, g.m);
  expect_same_error(nothrow::gemm_tiles(packed, g.call(out.data()), 0, tiles + 1),
                    StatusCode::kInvalidArgument,
                    [&] { gemm_tiles(packed, g.call(out.data()), 0, tiles + 1); });
  const std::size_t cut = gemm_tile_count(packed, g.m, 2);
  expect_same_error(nothrow::gemm_tiles(packed, g.call(out.data()), 2, 0, cut + 1),
                    StatusCode::kInvalidArgument,
                    [&] { gemm_tiles(packed, g.call(out.data()), 2, 0, cut + 1); });
  // One-shot with m = 0.
  auto problem = g.problem(out.data());
  problem.m = 0;
  expect_same_error(nothrow::gemm(problem, kCore), StatusCode::kInvalidArgument,
                    [&] { gemm(problem, kCore); });
}

TEST(NothrowGemm, AllocationFailureIsOutOfMemory) {
  GemmCase g;
  Status s;
  {
    FailAllocations fail;
    s = nothrow::pack_gemm(g.weights(), kCore).status();
  }
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory);
  EXPECT_STREQ(s.message(), "qparity: out of memory");
}

TEST(NothrowFullyConnected, ValidAndBadCalls) {
  GemmCase g;
  const std::size_t size = g.m * g.n;
  std::vector<std::int8_t> want(size), got(size, 0);
  const PackedGemm packed = pack_fully_connected(g.fc_weights(), kCore);
  fully_connected(packed, g.fc_call(want.data()));

  Result<PackedGemm> p = nothrow::pack_fully_connected(g.fc_weights(), kCore);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_OK(nothrow::fully_connected(*p, g.fc_call(got.data())));
  EXPECT_EQ(got, want);
  got.assign(size, 0);
  EXPECT_OK((
      nothrow::fully_connected<DoubleRoundingAwayFromZero>(g.fc_weights(), g.fc_call(got.data()))));
  EXPECT_EQ(got, want);

  auto call = g.fc_call(got.data());
  call.input_zero_point = -129;
  expect_same_error(nothrow::fully_connected(*p, call), StatusCode::kInvalidArgument,
                    [&] { fully_connected(packed, call); });
  expect_same_error(nothrow::fully_connected<DoubleRoundingAwayFromZero>(g.fc_weights(), call),
                    StatusCode::kInvalidArgument,
                    [&] { fully_connected<DoubleRoundingAwayFromZero>(g.fc_weights(), call); });
  FullyConnectedWeights f = g.fc_weights();
  f.input_depth = 0;
  expect_same_error(nothrow::pack_fully_connected(f, kCore).status(), StatusCode::kInvalidArgument,
                    [&] { (void)pack_fully_connected(f, kCore); });
}

// -------------------------------------- conv2d, depthwise -------------------------------------

struct ConvCase {
  Conv2DGeometry geometry;
  DepthwiseConv2DGeometry dw_geometry;
  std::vector<std::int8_t> input, filter, dw_filter;
  std::vector<std::int32_t> bias;
  std::vector<RequantParams> params;

  ConvCase() {
    geometry.batch = 2;
    geometry.in_h = 9;
    geometry.in_w = 7;
    geometry.in_channels = 6;
    geometry.out_channels = 10;
    geometry.groups = 2;
    geometry.window.kernel_h = geometry.window.kernel_w = 3;
    geometry.window.stride_h = 2;
    geometry.window.padding = Padding::kSame;
    dw_geometry.batch = 2;
    dw_geometry.in_h = 9;
    dw_geometry.in_w = 7;
    dw_geometry.in_channels = 6;
    dw_geometry.depth_multiplier = 2;
    dw_geometry.window = geometry.window;
    input = random_vector<std::int8_t>(2 * 9 * 7 * 6, -128, 127, 5);
    filter = random_vector<std::int8_t>(10 * 3 * 3 * 3, -127, 127, 6);
    dw_filter = random_vector<std::int8_t>(3 * 3 * 12, -127, 127, 7);
    bias = random_vector<std::int32_t>(12, -3000, 3000, 8);
    params = channel_params(12);
  }
  ConvWeights weights(const std::vector<std::int8_t>& f) const {
    ConvWeights w;
    w.filter = f.data();
    w.bias = bias.data();
    w.params = params.data();
    w.per_channel = true;
    return w;
  }
  std::size_t conv_out_size() const { return 2 * 5 * 7 * 10; }  // SAME: ceil(9/2) x 7
  std::size_t dw_out_size() const { return 2 * 5 * 7 * 12; }
  ConvCall<std::int8_t, std::int8_t> call(std::int8_t* out) const {
    return ConvCall<std::int8_t, std::int8_t>{input.data(), -1,
                                              full_range_output(OutputType::kInt8, 4), out};
  }
};

TEST(NothrowConv2D, ValidCallsGiveTheThrowingCallsBits) {
  ConvCase c;
  const std::size_t size = c.conv_out_size();
  std::vector<std::int8_t> want(size), got(size, 0);
  const PackedConv2D packed(c.geometry, c.weights(c.filter), kCore);
  conv2d(packed, c.call(want.data()));

  Result<PackedConv2D> p = nothrow::pack_conv2d(c.geometry, c.weights(c.filter), kCore);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->kernel_name(), packed.kernel_name());
  EXPECT_OK(nothrow::conv2d(*p, c.call(got.data())));
  EXPECT_EQ(got, want);

  got.assign(size, 0);
  const std::size_t tiles = conv2d_tile_count(*p);
  EXPECT_OK(nothrow::conv2d_tiles(*p, c.call(got.data()), 0, tiles / 2));
  EXPECT_OK(nothrow::conv2d_tiles(*p, c.call(got.data()), tiles / 2, tiles));
  EXPECT_EQ(got, want);

  got.assign(size, 0);
  const std::size_t cut = conv2d_tile_count(*p, 2);
  EXPECT_OK(nothrow::conv2d_tiles(*p, c.call(got.data()), 2, cut / 2, cut));
  EXPECT_OK(nothrow::conv2d_tiles(*p, c.call(got.data()), 2, 0, cut / 2));
  EXPECT_EQ(got, want);

  got.assign(size, 0);
  EXPECT_OK(nothrow::conv2d_threaded(*p, c.call(got.data()), 3));
  EXPECT_EQ(got, want);

  Conv2DProblem<std::int8_t, std::int8_t> problem{c.geometry, c.weights(c.filter), c.call(nullptr)};
  got.assign(size, 0);
  problem.call.out = got.data();
  EXPECT_OK(nothrow::conv2d(problem, kCore));
  EXPECT_EQ(got, want);
  got.assign(size, 0);
  EXPECT_OK((nothrow::conv2d<DoubleRoundingAwayFromZero>(problem)));
  EXPECT_EQ(got, want);

  for (Isa isa : all_isas()) {
    if ((supported_isas() & mask_of(isa)) == 0) continue;
    SCOPED_TRACE(to_string(isa));
    Result<PackedConv2D> q = nothrow::pack_conv2d(isa, c.geometry, c.weights(c.filter), kCore);
    ASSERT_TRUE(q.ok()) << q.status().message();
    EXPECT_EQ(q->isa(), isa);
    got.assign(size, 0);
    EXPECT_OK(nothrow::conv2d(*q, c.call(got.data())));
    EXPECT_EQ(got, want);
  }
}

TEST(NothrowConv2D, BadInputGivesTheExceptionsCodeAndMessage) {
  ConvCase c;
  std::vector<std::int8_t> out(c.conv_out_size());
  Conv2DGeometry bad = c.geometry;
  bad.groups = 4;  // divides neither 6 nor 10
  expect_same_error(nothrow::pack_conv2d(bad, c.weights(c.filter), kCore).status(),
                    StatusCode::kInvalidArgument,
                    [&] { (void)PackedConv2D(bad, c.weights(c.filter), kCore); });
  c.params[7].multiplier = -1;
  expect_same_error(nothrow::pack_conv2d(c.geometry, c.weights(c.filter), kCore).status(),
                    StatusCode::kInvalidArgument,
                    [&] { (void)PackedConv2D(c.geometry, c.weights(c.filter), kCore); });
  Conv2DProblem<std::int8_t, std::int8_t> problem{c.geometry, c.weights(c.filter),
                                                  c.call(out.data())};
  expect_same_error(nothrow::conv2d(problem, kCore), StatusCode::kInvalidArgument,
                    [&] { conv2d(problem, kCore); });
  c.params[7].multiplier = 1 << 30;
  expect_same_error(
      nothrow::pack_conv2d(kNotAnIsa, c.geometry, c.weights(c.filter), kCore).status(),
      StatusCode::kUnsupportedIsa,
      [&] { (void)PackedConv2D(kNotAnIsa, c.geometry, c.weights(c.filter), kCore); });

  const PackedConv2D packed(c.geometry, c.weights(c.filter), kCore);
  auto call = c.call(out.data());
  call.output.qmin = 100;
  call.output.qmax = 50;
  expect_same_error(nothrow::conv2d(packed, call), StatusCode::kInvalidArgument,
                    [&] { conv2d(packed, call); });
  expect_same_error(nothrow::conv2d_threaded(packed, call, 2), StatusCode::kInvalidArgument,
                    [&] { conv2d_threaded(packed, call, 2); });
  const std::size_t tiles = conv2d_tile_count(packed);
  expect_same_error(nothrow::conv2d_tiles(packed, c.call(out.data()), 2, 1),
                    StatusCode::kInvalidArgument,
                    [&] { conv2d_tiles(packed, c.call(out.data()), 2, 1); });
  expect_same_error(nothrow::conv2d_tiles(packed, c.call(out.data()), 0, tiles + 1),
                    StatusCode::kInvalidArgument,
                    [&] { conv2d_tiles(packed, c.call(out.data()), 0, tiles + 1); });
  const std::size_t cut = conv2d_tile_count(packed, 2);
  expect_same_error(nothrow::conv2d_tiles(packed, c.call(out.data()), 2, 0, cut + 1),
                    StatusCode::kInvalidArgument,
                    [&] { conv2d_tiles(packed, c.call(out.data()), 2, 0, cut + 1); });
}

TEST(NothrowDepthwiseConv2D, ValidCallsGiveTheThrowingCallsBits) {
  ConvCase c;
  const std::size_t size = c.dw_out_size();
  std::vector<std::int8_t> want(size), got(size, 0);
  const PackedDepthwiseConv2D packed(c.dw_geometry, c.weights(c.dw_filter), kCore);
  depthwise_conv2d(packed, c.call(want.data()));

  Result<PackedDepthwiseConv2D> p =
      nothrow::pack_depthwise_conv2d(c.dw_geometry, c.weights(c.dw_filter), kCore);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->kernel_name(), packed.kernel_name());
  EXPECT_OK(nothrow::depthwise_conv2d(*p, c.call(got.data())));
  EXPECT_EQ(got, want);

  got.assign(size, 0);
  const std::size_t tiles = depthwise_conv2d_tile_count(*p);
  EXPECT_OK(nothrow::depthwise_conv2d_tiles(*p, c.call(got.data()), 0, tiles / 2));
  EXPECT_OK(nothrow::depthwise_conv2d_tiles(*p, c.call(got.data()), tiles / 2, tiles));
  EXPECT_EQ(got, want);

  got.assign(size, 0);
  const std::size_t cut = depthwise_conv2d_tile_count(*p, 2);
  EXPECT_OK(nothrow::depthwise_conv2d_tiles(*p, c.call(got.data()), 2, cut / 2, cut));
  EXPECT_OK(nothrow::depthwise_conv2d_tiles(*p, c.call(got.data()), 2, 0, cut / 2));
  EXPECT_EQ(got, want);

  got.assign(size, 0);
  EXPECT_OK(nothrow::depthwise_conv2d_threaded(*p, c.call(got.data()), 2));
  EXPECT_EQ(got, want);

  DepthwiseConv2DProblem<std::int8_t, std::int8_t> problem{c.dw_geometry, c.weights(c.dw_filter),
                                                           c.call(nullptr)};
  got.assign(size, 0);
  problem.call.out = got.data();
  EXPECT_OK(nothrow::depthwise_conv2d(problem, kCore));
  EXPECT_EQ(got, want);
  got.assign(size, 0);
  EXPECT_OK((nothrow::depthwise_conv2d<DoubleRoundingAwayFromZero>(problem)));
  EXPECT_EQ(got, want);

  for (Isa isa : all_isas()) {
    if ((supported_isas() & mask_of(isa)) == 0) continue;
    SCOPED_TRACE(to_string(isa));
    Result<PackedDepthwiseConv2D> q =
        nothrow::pack_depthwise_conv2d(isa, c.dw_geometry, c.weights(c.dw_filter), kCore);
    ASSERT_TRUE(q.ok()) << q.status().message();
    EXPECT_EQ(q->isa(), isa);
    got.assign(size, 0);
    EXPECT_OK(nothrow::depthwise_conv2d(*q, c.call(got.data())));
    EXPECT_EQ(got, want);
  }
}

TEST(NothrowDepthwiseConv2D, BadInputGivesTheExceptionsCodeAndMessage) {
  ConvCase c;
  std::vector<std::int8_t> out(c.dw_out_size());
  DepthwiseConv2DGeometry bad = c.dw_geometry;
  bad.window.kernel_h = 11;  // VALID: larger than the input
  bad.window.padding = Padding::kValid;
  expect_same_error(nothrow::pack_depthwise_conv2d(bad, c.weights(c.dw_filter), kCore).status(),
                    StatusCode::kInvalidArgument,
                    [&] { (void)PackedDepthwiseConv2D(bad, c.weights(c.dw_filter), kCore); });
  ConvWeights w = c.weights(c.dw_filter);
  w.filter = nullptr;
  expect_same_error(nothrow::pack_depthwise_conv2d(c.dw_geometry, w, kCore).status(),
                    StatusCode::kInvalidArgument,
                    [&] { (void)PackedDepthwiseConv2D(c.dw_geometry, w, kCore); });
  if (const std::optional<Isa> missing = unsupported_isa()) {
    expect_same_error(
        nothrow::pack_depthwise_conv2d(*missing, c.dw_geometry, c.weights(c.dw_filter), kCore)
            .status(),
        StatusCode::kUnsupportedIsa, [&] {
          (void)PackedDepthwiseConv2D(*missing, c.dw_geometry, c.weights(c.dw_filter), kCore);
        });
  }
  DepthwiseConv2DProblem<std::int8_t, std::int8_t> problem{c.dw_geometry, w, c.call(out.data())};
  expect_same_error(nothrow::depthwise_conv2d(problem, kCore), StatusCode::kInvalidArgument,
                    [&] { depthwise_conv2d(problem, kCore); });

  const PackedDepthwiseConv2D packed(c.dw_geometry, c.weights(c.dw_filter), kCore);
  auto call = c.call(out.data());
  call.input = nullptr;
  expect_same_error(nothrow::depthwise_conv2d(packed, call), StatusCode::kInvalidArgument,
                    [&] { depthwise_conv2d(packed, call); });
  expect_same_error(nothrow::depthwise_conv2d_threaded(packed, call, 2),
                    StatusCode::kInvalidArgument,
                    [&] { depthwise_conv2d_threaded(packed, call, 2); });
  const std::size_t tiles = depthwise_conv2d_tile_count(packed);
  expect_same_error(nothrow::depthwise_conv2d_tiles(packed, c.call(out.data()), tiles, tiles + 1),
                    StatusCode::kInvalidArgument,
                    [&] { depthwise_conv2d_tiles(packed, c.call(out.data()), tiles, tiles + 1); });
  const std::size_t cut = depthwise_conv2d_tile_count(packed, 2);
  expect_same_error(nothrow::depthwise_conv2d_tiles(packed, c.call(out.data()), 2, cut, cut + 1),
                    StatusCode::kInvalidArgument,
                    [&] { depthwise_conv2d_tiles(packed, c.call(out.data()), 2, cut, cut + 1); });
}

TEST(NothrowConv2D, AllocationFailureIsOutOfMemory) {
  ConvCase c;
  Status conv, dw;
  {
    FailAllocations fail;
    conv = nothrow::pack_conv2d(c.geometry, c.weights(c.filter), kCore).status();
    dw = nothrow::pack_depthwise_conv2d(c.dw_geometry, c.weights(c.dw_filter), kCore).status();
  }
  EXPECT_EQ(conv.code(), StatusCode::kOutOfMemory);
  EXPECT_EQ(dw.code(), StatusCode::kOutOfMemory);
}

}  // namespace
