// The compiled element-wise ADD / SUB / MUL (include/qparity/elementwise.h, kernels/elementwise/)
// against the header (reference::elementwise), element for element, on every ISA this CPU supports
// (for_each_supported_isa; isa_coverage.cc fails the run if one was not exercised):
//   * every arithmetic x op x type (int8, uint8; int16 where the header has it) on random
//     parameters, random data and the broadcast shapes the driver treats differently (equal
//     shapes, a scalar on either side, per-channel rows, per-row scalars, mutual 4-D and 6-D
//     broadcasts) at the odd sizes 1, 3, 7, 17, 63;
//   * every pair of values (a [256, 1] x [1, 256] broadcast) for parameters chosen for exact ties
//     of both signs (power-of-two scales), saturation (a small output scale), zero points at both
//     ends of the range and every fused activation;
//   * that each vector ISA runs its own kernel for the arithmetics that have one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "isa_coverage.h"
#include "kernels/elementwise/elementwise_kernel.h"
#include "qparity/elementwise.h"
#include "qparity/isa.h"

namespace {

using qparity::Activation;
using qparity::InvalidArgument;
using qparity::Isa;
using qparity::NpuMultiplierPrecision;
using qparity::OutputType;
using qparity::TieRule;
using namespace qparity::reference;
using A = ElementwiseArithmetic;
using Op = ElementwiseOp;
using Shape = std::vector<std::size_t>;

constexpr Op kOps[] = {Op::kAdd, Op::kSub, Op::kMul};
constexpr Activation kActs[] = {Activation::kNone, Activation::kRelu, Activation::kRelu6, Activation::kReluN1To1};

/// The arithmetics with the NPU hypothesis at each tie rule and precision the family has.
struct Variant {
  A arithmetic;
  NpuElementwiseOptions npu;
  std::string name;
};

std::vector<Variant> variants() {
  std::vector<Variant> v;
  for (A a : kAllElementwiseArithmetics) {
    if (a != A::kNpuSingleRounding) {
      v.push_back({a, {}, to_string(a)});
      continue;
    }
    const TieRule ties[] = {TieRule::kHalfUp, TieRule::kHalfAwayFromZero, TieRule::kHalfToEven, TieRule::kTowardZero,
                            TieRule::kFloor};
    const NpuMultiplierPrecision precs[] = {NpuMultiplierPrecision::kQ31, NpuMultiplierPrecision::kQ15,
                                            NpuMultiplierPrecision::kFloat24};
    for (TieRule t : ties) {
      for (NpuMultiplierPrecision p : precs) {
        v.push_back({a, {t, p}, "npu tie " + std::to_string(static_cast<int>(t)) + " precision " +
                                    std::to_string(static_cast<int>(p))});
      }
    }
  }
  return v;
}

template <class T>
std::vector<T> random_data(std::mt19937& rng, std::size_t n) {
  std::uniform_int_distribution<int> d(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(d(rng));
  return v;
}

/// Runs the reference and every supported ISA on one case; returns false (after a failure message)
/// at the first mismatch.
template <class T>
bool check_case(const ElementwiseParams& p, const Shape& s1, const std::vector<T>& in1, const Shape& s2,
                const std::vector<T>& in2, const std::string& what) {
  Shape out_shape;
  const std::vector<T> want = elementwise(p, s1, in1, s2, in2, &out_shape);
  bool ok = true;
  qparity_test::for_each_supported_isa([&](Isa isa) {
    if (!ok) return;
    std::vector<T> got(want.size() + 1, T{});
    got.back() = static_cast<T>(0x5A);  // sentinel: nothing is written past the output
    qparity::elementwise(isa, p, s1, in1.data(), s2, in2.data(), got.data());
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (got[i] != want[i]) {
        ADD_FAILURE() << what << " on " << qparity::to_string(isa) << " ("
                      << qparity::elementwise_kernel_name(p, isa) << "): element " << i << " is "
                      << static_cast<int>(got[i]) << ", the reference " << static_cast<int>(want[i]);
        ok = false;
        return;
      }
    }
    if (got.back() != static_cast<T>(0x5A)) {
      ADD_FAILURE() << what << " on " << qparity::to_string(isa) << ": wrote past the output";
      ok = false;
    }
  });
  return ok;
}

/// The broadcast shape pairs the driver handles differently, at odd sizes.
std::vector<std::pair<Shape, Shape>> shape_pairs() {
  std::vector<std::pair<Shape, Shape>> v;
  for (std::size_t n : {1, 3, 7, 17, 63}) {
    v.push_back({{n}, {n}});                      // equal shapes
    v.push_back({{2, n, 3}, {2, n, 3}});          // equal shapes, merged into one row
    v.push_back({{}, {3, n}});                    // scalar first
    v.push_back({{n, 5}, {1}});                   // scalar second
    v.push_back({{2, 3, 3, n}, {n}});             // per-channel row (second)
    v.push_back({{1, 1, n}, {2, 5, n}});          // per-channel row (first)
    v.push_back({{2, 3, n, 1}, {2, 3, n, 7}});    // per-row scalar (first)
    v.push_back({{4, n}, {4, 1}});                // per-row scalar (second)
    v.push_back({{2, 1, n, 1}, {1, 3, 1, 5}});    // mutual 4-D broadcast
    v.push_back({{2, 1, 3, 1, n, 1}, {1, 2, 1, 2, 1, 3}});  // 6-D
    v.push_back({{3, 1, n}, {3, 4, n}});          // per-channel rows repeated per outer index
  }
  v.push_back({{700}, {700}});                  // long rows (several unrolled vectors)
  v.push_back({{5000}, {}});                    // a scalar expanded in several blocks
  v.push_back({{3000, 2}, {2}});                // tiled rows in several tiles
  return v;
}

/// Random but valid quantization: scales over a wide range (so every multiplier form occurs), zero
/// points often at the ends of the range.
template <class T>
void random_quant(std::mt19937& rng, TensorQuantization* q1, TensorQuantization* q2, TensorQuantization* qo) {
  std::uniform_real_distribution<float> e(-6.0f, 1.0f);
  std::uniform_int_distribution<int> pick(0, 3);
  const int lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  auto zp = [&]() {
    switch (pick(rng)) {
      case 0: return lo;
      case 1: return hi;
      case 2: return (lo + hi + 1) / 2;
      default: return std::uniform_int_distribution<int>(lo, hi)(rng);
    }
  };
  q1->scale = std::exp2(e(rng));
  q2->scale = std::exp2(e(rng));
  qo->scale = std::exp2(e(rng) + 0.5f);
  q1->zero_point = zp();
  q2->zero_point = zp();
  qo->zero_point = zp();
}

template <class T>
void random_suite(OutputType type, std::uint32_t seed) {
  std::mt19937 rng(seed);
  const auto shapes = shape_pairs();
  std::size_t cases = 0;
  for (const Variant& v : variants()) {
    for (Op op : kOps) {
      for (int trial = 0; trial < 4; ++trial) {
        TensorQuantization q1, q2, qo;
        random_quant<T>(rng, &q1, &q2, &qo);
        const Activation act = kActs[std::uniform_int_distribution<int>(0, 3)(rng)];
        ElementwiseParams p;
        try {
          p = derive_elementwise_params(op, v.arithmetic, type, q1, q2, qo, act, v.npu);
        } catch (const InvalidArgument&) {
          continue;  // a combination the runtime refuses (scale range, TFLM uint8, NEON SUB...)
        }
        for (std::size_t s = trial % 3; s < shapes.size(); s += 3) {
          const auto& [s1, s2] = shapes[s];
          const std::vector<T> in1 = random_data<T>(rng, shape_elements(s1));
          const std::vector<T> in2 = random_data<T>(rng, shape_elements(s2));
          const std::string what = v.name + " " + to_string(op) + " " + to_string(type) + " trial " +
                                   std::to_string(trial) + " shapes #" + std::to_string(s);
          if (!check_case(p, s1, in1, s2, in2, what)) return;
          ++cases;
        }
      }
    }
  }
  EXPECT_GT(cases, 500u);
}

TEST(ElementwiseFast, RandomInt8) { random_suite<std::int8_t>(OutputType::kInt8, 20261201); }
TEST(ElementwiseFast, RandomUint8) { random_suite<std::uint8_t>(OutputType::kUint8, 20261202); }

TEST(ElementwiseFast, RandomInt16RunsTheReferenceLoop) {
  std::mt19937 rng(7);
  const ElementwiseParams p =
      derive_elementwise_params(Op::kAdd, A::kTfliteDouble, OutputType::kInt16, {0.5f, 0}, {0.25f, 0}, {0.75f, 0});
  const std::vector<std::int16_t> a = random_data<std::int16_t>(rng, 3 * 17), b = random_data<std::int16_t>(rng, 17);
  EXPECT_TRUE(check_case(p, {3, 17}, a, {17}, b, "int16 ADD"));
  EXPECT_EQ(qparity::elementwise_kernel_name(p, Isa::kScalar), "scalar per-element");
}

/// Every pair of values, as a [256, 1] x [1, 256] broadcast (rows of 256 with a per-row scalar
/// first operand).
template <class T>
void grid_suite(OutputType type) {
  const int lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  std::vector<T> col(256), row(256);
  for (int i = 0; i < 256; ++i) col[static_cast<std::size_t>(i)] = row[static_cast<std::size_t>(i)] = static_cast<T>(lo + i);
  struct Q {
    TensorQuantization q1, q2, qo;
    const char* what;
  };
  const int mid = (lo + hi + 1) / 2;
  const Q quants[] = {
      // Power-of-two scales: ADD / SUB sums and MUL products land on exact halves of both signs.
      {{0.5f, mid}, {0.25f, mid}, {1.0f, mid}, "ties"},
      {{0.5f, lo}, {0.5f, hi}, {2.0f, lo}, "ties, zero points at the ends"},
      {{0.125f, hi}, {0.25f, lo}, {1.0f / 64.0f, hi}, "MUL ties"},
      // A small output scale: most outputs saturate at both ends.
      {{0.3f, mid}, {0.7f, mid + 3}, {0.011f, mid}, "saturation"},
      {{0.0123f, lo}, {0.0456f, hi}, {0.0789f, mid - 5}, "irregular scales"},
      // A tiny output scale: TFLite's ADD output multiplier near 1 (shift 0, so the rescale
      // cannot use the high-half mode), every output saturated.
      {{0.5f, mid}, {0.25f, mid}, {1e-6f, mid}, "tiny output scale"},
  };
  std::size_t cases = 0;
  for (const Variant& v : variants()) {
    for (Op op : kOps) {
      for (const Q& q : quants) {
        for (Activation act : kActs) {
          ElementwiseParams p;
          try {
            p = derive_elementwise_params(op, v.arithmetic, type, q.q1, q.q2, q.qo, act, v.npu);
          } catch (const InvalidArgument&) {
            continue;
          }
          const std::string what = v.name + " " + to_string(op) + " " + to_string(type) + " " + q.what + " act " +
                                   std::to_string(static_cast<int>(act));
          if (!check_case(p, {256, 1}, col, {1, 256}, row, what)) return;
          ++cases;
        }
      }
    }
  }
  EXPECT_GT(cases, 300u);
}

TEST(ElementwiseFast, EveryPairInt8) { grid_suite<std::int8_t>(OutputType::kInt8); }
TEST(ElementwiseFast, EveryPairUint8) { grid_suite<std::uint8_t>(OutputType::kUint8); }

/// Each vector ISA runs its own kernel for the arithmetics that have one; the others run the
/// reference loop.
TEST(ElementwiseFast, VectorIsasRunTheirOwnKernels) {
  using qparity::internal::ElementwiseFamily;
  const TensorQuantization q1{0.02f, 3}, q2{0.03f, -7}, qo{0.05f, 1};
  struct Expect {
    Op op;
    A a;
    const char* kernel;  // what follows "<isa> "
  };
  const Expect vectorised[] = {
      {Op::kAdd, A::kTfliteDouble, "tflite-add DR-AZ"},     {Op::kSub, A::kTfliteSingle, "tflite-sub SR-UP"},
      {Op::kAdd, A::kTfliteMicroDouble, "tflite-add DR-AZ"}, {Op::kMul, A::kTfliteDouble, "int-mul DR-AZ"},
      {Op::kMul, A::kTfliteMicroSingle, "int-mul SR-UP"},   {Op::kAdd, A::kXnnpackX86, "xnnpack-add"},
      {Op::kSub, A::kXnnpackArm, "xnnpack-sub"},            {Op::kMul, A::kXnnpackWasm, "fp32-mul"},
      {Op::kMul, A::kXnnpackArm, "int-mul SR-UP"},          {Op::kMul, A::kNpuSingleRounding, "int-mul SR-EVEN"},
      {Op::kAdd, A::kNpuSingleRounding, "npu-add SR-EVEN"},  {Op::kSub, A::kNpuSingleRounding, "npu-sub SR-EVEN"},
  };
  qparity_test::for_each_supported_isa([&](Isa isa) {
    Isa served{};
    ASSERT_TRUE(qparity::internal::serving_isa<ElementwiseFamily>(isa, &served));
    const std::string prefix = std::string(qparity::to_string(served)) + " ";
    for (const Expect& e : vectorised) {
      const ElementwiseParams p = derive_elementwise_params(e.op, e.a, OutputType::kInt8, q1, q2, qo);
      EXPECT_EQ(qparity::elementwise_kernel_name(p, isa),
                served == Isa::kScalar ? std::string("scalar per-element") : prefix + e.kernel)
          << to_string(e.a) << " " << to_string(e.op) << " on " << qparity::to_string(isa);
    }
    for (A a : {A::kTfliteNeon, A::kTfliteNeonScalarBroadcast}) {
      const ElementwiseParams p = derive_elementwise_params(Op::kAdd, a, OutputType::kInt8, q1, q2, qo);
      EXPECT_EQ(qparity::elementwise_kernel_name(p, isa), "scalar per-element") << to_string(a);
    }
  });
}

/// NPU ADD / SUB with input scales 2^30 apart: the aligned terms do not fit the vector kernel's 64-bit
/// lanes, so the reference loop runs (and still agrees).
TEST(ElementwiseFast, NpuAddFarScalesRunsTheReferenceLoop) {
  std::mt19937 rng(11);
  for (Op op : {Op::kAdd, Op::kSub}) {
    const ElementwiseParams p = derive_elementwise_params(op, A::kNpuSingleRounding, OutputType::kInt8,
                                                          {0.5f, 3}, {std::ldexp(0.5f, -30), -4}, {0.25f, 1});
    EXPECT_EQ(qparity::elementwise_kernel_name(p, qparity::active_isa()), "scalar per-element");
    const std::vector<std::int8_t> a = random_data<std::int8_t>(rng, 100), b = random_data<std::int8_t>(rng, 100);
    EXPECT_TRUE(check_case(p, {100}, a, {100}, b, "NPU far scales"));
  }
}

TEST(ElementwiseFast, Errors) {
  const ElementwiseParams p =
      derive_elementwise_params(Op::kAdd, A::kTfliteDouble, OutputType::kInt8, {1, 0}, {1, 0}, {1, 0});
  std::vector<std::int8_t> a(6), b(6), out(6);
  std::vector<std::uint8_t> ua(6), ub(6), uout(6);
  EXPECT_THROW(qparity::elementwise(p, {6}, ua.data(), {6}, ub.data(), uout.data()), InvalidArgument);
  EXPECT_THROW(qparity::elementwise(p, {2, 3}, a.data(), {3, 2}, b.data(), out.data()), InvalidArgument);
  EXPECT_THROW(qparity::elementwise(p, {1, 1, 1, 1, 1, 1, 6}, a.data(), {6}, b.data(), out.data()), InvalidArgument);
  // An empty broadcast writes nothing.
  EXPECT_NO_THROW(qparity::elementwise(p, {0, 3}, a.data(), {3}, b.data(), out.data()));
}

}  // namespace
