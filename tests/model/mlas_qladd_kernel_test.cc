// The MlasQLinearAdd kernels (kernels/mlas_qladd, contract in
// kernels/entries/qparity_internal/mlas_qladd.h), label unit: every ISA this CPU supports, forced
// through the dispatch override (set_isa_mask_for_testing, then the entry's kernel(active_isa())),
// gives every element the bits of the scalar formula ADD uses under the onnxruntime presets
// (tools/model/ops/mlas_qladd.h, mlas_qladd_element). The family's ISA checks (every SIMD level
// served, unsupported ISAs refused, the forced sweep) are the shared ones of
// tests/support/kernel_family_coverage.h; the ISA coverage guard (tests/support/isa_coverage.h)
// fails the run when a supported ISA was never exercised.
// Exhaustive over the 256 x 256 input pairs of int8 and uint8, same-shape and one-element-x2
// forms, for (scale, zero point) triples with zero points at the type's ends, ratios where the
// fused and the separately rounded sums part, and outputs that saturate at both ends; odd lengths
// for the vector tails; the tile-pool split of the entry.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernel_family_coverage.h"
#include "kernels/mlas_qladd/mlas_qladd_kernel.h"
#include "model/ops/mlas_qladd.h"
#include "qparity/isa.h"
#include "qparity_internal/mlas_qladd.h"
#include "qparity_internal/tile_pool_ranges.h"
#include "tests/support/tile_pool_probe.h"

namespace {

namespace mq = qparity::internal::mlas_qladd;
using qparity::Isa;
using qparity::internal::MlasQladdFamily;
using qparity::model::mlas_qladd_element;
using qparity::model::mlas_qladd_fold_b;
using qparity::model::mlas_qladd_params;

/// One (scale, zero point) triple per input and output, zero points as offsets from the type's
/// middle (128 for uint8, 0 for int8) so that one list serves both types.
struct Quant {
  float s1;
  int dz1;
  float s2;
  int dz2;
  float so;
  int dzo;
};

const std::vector<Quant>& quants() {
  static const std::vector<Quant> q = {
      {0.05f, -3, 0.03f, 5, 0.07f, 1},               // op_samples' ADD
      {0.0235f, 0, 0.0235f, 0, 0.0235f, 0},          // ratios 1: every sum lands on an integer
      {0.0417f, -128, 0.0193f, 127, 0.0511f, -128},  // zero points at the type's ends
      {0.0417f, 127, 0.0193f, -128, 0.0511f, 127},
      {0.1f, 0, 0.1f, 0, 0.001f, 0},                        // ratios 100: saturation at both ends
      {1e-3f, 0, 1e-3f, 0, 1.0f, 0},                        // ratios 1e-3: everything near zo
      {0.3f, 7, 0.7f, -9, 1.0f / 3.0f, 2},                  // ratios near 1 with long mantissas: ties and
      {1.0f / 3.0f, 1, 1.0f / 3.0f, -1, 2.0f / 3.0f, 0},    // half-ulp sums, fused vs separate rounding
      {0.0078125f, 100, 0.00390625f, -100, 0.015625f, 50},  // powers of two: exact ties (half to even)
      {3e-2f, -60, 1.7e-2f, 90, 2.3e-3f, -127},             // large ratios with far zero points
      {1e30f, 0, 1e30f, 0, 1e-8f, 0},                       // v outside int32: cvtps2dq's INT32_MIN
  };
  return q;
}

template <class T>
constexpr int kMid = std::numeric_limits<T>::min() == 0 ? 128 : 0;

template <class T>
mq::Params params_of(const Quant& q) {
  auto clampz = [](int dz) {
    const int z = kMid<T> + dz;
    return z < std::numeric_limits<T>::min()   ? static_cast<int>(std::numeric_limits<T>::min())
           : z > std::numeric_limits<T>::max() ? static_cast<int>(std::numeric_limits<T>::max())
                                               : z;
  };
  return mlas_qladd_params(q.s1, clampz(q.dz1), q.s2, clampz(q.dz2), q.so, clampz(q.dzo));
}

/// The family's dispatch for the shared ISA-coverage checks (tests/support/kernel_family_coverage.h):
/// variant 0 is the uint8 kernel, 1 the int8 one; sse41 runs the scalar kernels (no FMA), every
/// level from avx2 up vector ones.
qparity_test::KernelFamilyDispatch<MlasQladdFamily, mq::RunFn> dispatch() {
  using qparity::internal::MlasQladdKernelSet;
  return {{{"run_u8", &MlasQladdKernelSet::run_u8, [](Isa isa) { return mq::kernel(isa, false); }},
           {"run_s8", &MlasQladdKernelSet::run_s8, [](Isa isa) { return mq::kernel(isa, true); }}},
          &mq::kernel_isa,
          qparity_test::mask_of_isas({Isa::kScalar, Isa::kSse41})};
}

/// Calls f(isa, kernel) for every supported ISA with the dispatch forced to it (the shared sweep:
/// the kernel is the entry's, checked against the registry, and no supported ISA may be skipped).
template <class F>
void for_each_forced_isa(bool is_signed, F&& f) {
  qparity_test::for_each_forced_isa(dispatch(), is_signed ? 1 : 0, f);
}

TEST(MlasQladdKernel, FamilyCoversTheSimdLevels) {
  qparity_test::check_family_covers_the_simd_levels(dispatch());
}

TEST(MlasQladdKernel, UnsupportedIsaIsAnError) {
  qparity_test::check_unsupported_isa_is_an_error(dispatch());
}

/// Every (a, b) pair of the type as two 65,536-element vectors, a in the high byte's order.
template <class T>
void all_pairs(std::vector<T>* x1, std::vector<T>* x2) {
  x1->clear();
  x2->clear();
  for (int i = 0; i < 256; ++i) {
    for (int j = 0; j < 256; ++j) {
      x1->push_back(static_cast<T>(std::numeric_limits<T>::min() + i));
      x2->push_back(static_cast<T>(std::numeric_limits<T>::min() + j));
    }
  }
}

template <class T>
void check_all_pairs() {
  constexpr std::int64_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  constexpr bool kSigned = std::numeric_limits<T>::is_signed;
  std::vector<T> x1, x2;
  all_pairs(&x1, &x2);
  for_each_forced_isa(kSigned, [&](Isa isa, mq::RunFn kernel) {
    std::size_t low = 0, high = 0;
    for (std::size_t qi = 0; qi < quants().size(); ++qi) {
      const mq::Params p = params_of<T>(quants()[qi]);
      // Same shapes: every pair in one call.
      std::vector<T> y(x1.size());
      kernel(x1.data(), x2.data(), x1.size(), p, y.data());
      for (std::size_t i = 0; i < x1.size(); ++i) {
        const std::int64_t want = mlas_qladd_element(p, x1[i], x2[i], false, lo, hi);
        low += want == lo;
        high += want == hi;
        ASSERT_EQ(static_cast<std::int64_t>(y[i]), want)
            << qparity::to_string(isa) << " quant " << qi << " x1 " << int(x1[i]) << " x2 " << int(x2[i]);
      }
      // One-element x2: for each b, all 256 values of x1 against the folded fixed part.
      for (int j = 0; j < 256; ++j) {
        const T b = static_cast<T>(lo + j);
        std::vector<T> ys(256);
        kernel(x1.data() + 0, nullptr, 0, p, ys.data());  // n = 0 writes nothing
        std::vector<T> a(256);
        for (int i = 0; i < 256; ++i) a[static_cast<std::size_t>(i)] = static_cast<T>(lo + i);
        kernel(a.data(), nullptr, a.size(), mlas_qladd_fold_b(p, b), ys.data());
        for (int i = 0; i < 256; ++i) {
          const std::int64_t want = mlas_qladd_element(p, a[static_cast<std::size_t>(i)], b, true, lo, hi);
          ASSERT_EQ(static_cast<std::int64_t>(ys[static_cast<std::size_t>(i)]), want)
              << qparity::to_string(isa) << " quant " << qi << " x1 " << int(a[static_cast<std::size_t>(i)])
              << " scalar x2 " << int(b);
        }
      }
    }
    // The list reaches both ends of the range (saturation on both sides is exercised).
    EXPECT_GT(low, 1000u) << qparity::to_string(isa);
    EXPECT_GT(high, 1000u) << qparity::to_string(isa);
  });
}

TEST(MlasQladdKernel, EveryPairUint8) {
  check_all_pairs<std::uint8_t>();
}
TEST(MlasQladdKernel, EveryPairInt8) {
  check_all_pairs<std::int8_t>();
}

// The quant list holds triples where fused and separately rounded FMAs give different bytes, so
// the exhaustive tests would see a kernel that rounds twice.
TEST(MlasQladdKernel, QuantListSeparatesFusedFromUnfused) {
  std::size_t differ = 0;
  for (const Quant& q : quants()) {
    const mq::Params p = params_of<std::uint8_t>(q);
    for (int a = 0; a < 256; ++a) {
      for (int b = 0; b < 256; ++b) {
        const float unfused = static_cast<float>(a) * p.r1 + (static_cast<float>(b) * p.r2 + p.fixed);
        const float fused = std::fma(static_cast<float>(a), p.r1, std::fma(static_cast<float>(b), p.r2, p.fixed));
        differ += std::nearbyint(unfused) != std::nearbyint(fused);
      }
    }
  }
  EXPECT_GT(differ, 0u);
}

/// Lengths around the vector widths: the tails of every kernel, at every offset into the pairs.
template <class T>
void check_lengths() {
  constexpr std::int64_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  std::vector<T> x1, x2;
  all_pairs(&x1, &x2);
  for_each_forced_isa(std::numeric_limits<T>::is_signed, [&](Isa isa, mq::RunFn kernel) {
    const mq::Params p = params_of<T>(quants()[0]);
    for (std::size_t n : {1, 3, 7, 8, 15, 16, 17, 31, 33, 63, 1000}) {
      for (std::size_t off : {0, 1, 5, 777, 30000}) {
        for (bool scalar_b : {false, true}) {
          // A guard byte past the end: the kernels write exactly n elements.
          std::vector<T> y(n + 1, static_cast<T>(42));
          const mq::Params pk = scalar_b ? mlas_qladd_fold_b(p, x2[off]) : p;
          kernel(x1.data() + off, scalar_b ? nullptr : x2.data() + off, n, pk, y.data());
          for (std::size_t i = 0; i < n; ++i) {
            const std::int64_t want =
                mlas_qladd_element(p, x1[off + i], scalar_b ? x2[off] : x2[off + i], scalar_b, lo, hi);
            ASSERT_EQ(static_cast<std::int64_t>(y[i]), want)
                << qparity::to_string(isa) << " n " << n << " offset " << off << " i " << i << " scalar " << scalar_b;
          }
          ASSERT_EQ(y[n], static_cast<T>(42)) << qparity::to_string(isa) << " n " << n << ": wrote past the end";
        }
      }
    }
  });
}

TEST(MlasQladdKernel, OddLengthsUint8) {
  check_lengths<std::uint8_t>();
}
TEST(MlasQladdKernel, OddLengthsInt8) {
  check_lengths<std::int8_t>();
}

TEST(MlasQladdKernel, ThreadsGiveTheOneThreadBits) {
  const qparity_test::ForceTilePool force;
  // Every pair 16 times over (2^20 elements): a call long enough for a worker to wake and take a
  // range before the caller has run them all.
  std::vector<std::uint8_t> p1, p2, x1, x2;
  all_pairs(&p1, &p2);
  for (int k = 0; k < 16; ++k) {
    x1.insert(x1.end(), p1.begin(), p1.end());
    x2.insert(x2.end(), p2.begin(), p2.end());
  }
  const mq::RunFn kernel = mq::kernel(qparity::active_isa(), false);
  const mq::Params p = params_of<std::uint8_t>(quants()[2]);
  std::vector<std::uint8_t> one(x1.size());
  kernel(x1.data(), x2.data(), x1.size(), p, one.data());
  for (unsigned threads : {2u, 3u}) {
    std::vector<std::uint8_t> many(x1.size());
    struct Ctx {
      const std::uint8_t *x1, *x2;
      const mq::Params* p;
      mq::RunFn kernel;
      std::uint8_t* y;
      std::size_t n;
    } ctx{x1.data(), x2.data(), &p, kernel, many.data(), x1.size()};
    constexpr std::size_t kBlock = 1000;  // not a multiple of a vector: tails inside the tensor
    const std::size_t blocks = (x1.size() + kBlock - 1) / kBlock;
    const bool worker_ran = qparity_test::a_worker_ran_during([&] {
      qparity::internal::run_ranges_on_tile_pool(
          blocks, threads, std::uint64_t{1} << 30,
          [](const void* c, std::size_t begin, std::size_t end) {
            const auto* x = static_cast<const Ctx*>(c);
            const std::size_t i = begin * kBlock, e = std::min<std::size_t>(end * kBlock, x->n);
            x->kernel(x->x1 + i, x->x2 + i, e - i, *x->p, x->y + i);
          },
          &ctx);
    });
    EXPECT_TRUE(worker_ran) << threads << " threads";
    EXPECT_EQ(one, many) << threads << " threads";
  }
}

}  // namespace
