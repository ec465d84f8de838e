// The unfused-QDQ float32 kernels (kernels/qdq_fma, contract in
// kernels/entries/qparity_internal/qdq_fma.h), label unit: every ISA this CPU supports, forced
// through the dispatch override (set_isa_mask_for_testing, then the entry's kernel(active_isa())),
// gives every output the bits of the scalar kernel, the contract's loops with std::fma. The
// family's ISA checks (every SIMD level served, unsupported ISAs refused, the forced sweep) are the
// shared ones of tests/support/kernel_family_coverage.h; the ISA coverage guard
// (tests/support/isa_coverage.h) fails the run when a supported ISA was never exercised or
// QPARITY_EXPECT_ISAS names one the build lacks. Blocks: K and lanes 1, 3, 7, 17, 63
// (and 64, 70), 1..6 pixels in layers of 1, 3, 7, 17 and 63 pixels, K slices of 1, 7, 128 and
// 256, padded taps (a mask), per-lane (depthwise) and broadcast inputs, a start value (Gemm's C),
// a layer run slice by slice (k_begin / k_end), and K = 4,608 (ResNet-18's last layers). The
// threaded case runs disjoint pixel ranges on the tile pool (also under ThreadSanitizer, .ci/test).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernel_family_coverage.h"
#include "kernels/qdq_fma/qdq_fma_kernel.h"
#include "qparity/isa.h"
#include "qparity_internal/qdq_fma.h"
#include "qparity_internal/tile_pool_ranges.h"
#include "tests/support/tile_pool_probe.h"

namespace {

namespace qdq_fma = qparity::internal::qdq_fma;
using qparity::Isa;
using qparity::internal::QdqFmaFamily;

/// One layer's operands: `pixels` output pixels, each with its own input window.
struct Layer {
  std::size_t k = 1, lanes = 1, pixels = 1, slice = 128;
  bool per_lane = false, masked = false, start = false;
  std::size_t ldw = 0;
  std::vector<float> x, w, start_values;
  std::vector<std::ptrdiff_t> offsets;
  std::vector<unsigned char> valid;
};

// Values with spread exponents and both signs, so that the order of the FMAs shows in the bits.
float random_value(std::mt19937& rng) {
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-6, 6);
  return std::ldexp(mantissa(rng), exponent(rng));
}

Layer make_layer(std::size_t k, std::size_t lanes, std::size_t pixels, std::size_t slice, bool per_lane, bool masked,
                 bool start, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Layer l;
  l.k = k;
  l.lanes = lanes;
  l.pixels = pixels;
  l.slice = slice;
  l.per_lane = per_lane;
  l.masked = masked;
  l.start = start;
  l.ldw = (lanes + qdq_fma::kLanePad - 1) / qdq_fma::kLanePad * qdq_fma::kLanePad;
  // Pixel p's window starts at p * k * ldw; tap t reads row (7 t mod k) of it: offsets out of order.
  l.x.resize(pixels * k * l.ldw + qdq_fma::kLanePad);
  for (float& v : l.x) v = random_value(rng);
  l.w.assign(k * l.ldw, 0.0f);  // padded lanes stay zero, as the contract asks
  for (std::size_t t = 0; t < k; ++t) {
    for (std::size_t c = 0; c < lanes; ++c) l.w[t * l.ldw + c] = random_value(rng);
  }
  l.offsets.resize(k);
  for (std::size_t t = 0; t < k; ++t) l.offsets[t] = static_cast<std::ptrdiff_t>((7 * t) % k * l.ldw);
  if (masked) {
    l.valid.resize(k);
    for (std::size_t t = 0; t < k; ++t) l.valid[t] = static_cast<unsigned char>(rng() % 3 != 0);
  }
  if (start) {
    l.start_values.assign(l.ldw, 0.0f);
    for (std::size_t c = 0; c < lanes; ++c) l.start_values[c] = random_value(rng);
  }
  return l;
}

/// Runs pixels [p_begin, p_end) of `l` with `run`, kMaxPixels at a time, K slices [k_begin, k_end)
/// per call (`k_step` apart: the whole K in one call when k_step >= k), into out (one ldw row per pixel).
void run_layer(qdq_fma::RunFn run, const Layer& l, std::size_t k_step, std::size_t p_begin, std::size_t p_end,
               float* out) {
  qdq_fma::Block b;
  b.x = l.x.data();
  b.offsets = l.offsets.data();
  b.valid = l.masked ? l.valid.data() : nullptr;
  b.x_per_lane = l.per_lane;
  b.w = l.w.data();
  b.ldw = l.ldw;
  b.k = l.k;
  b.slice = l.slice;
  b.lanes = l.lanes;
  b.start = l.start ? l.start_values.data() : nullptr;
  b.out = out;
  for (std::size_t kb = 0; kb < (l.k == 0 ? 1 : l.k); kb += k_step) {
    b.k_begin = kb;
    b.k_end = kb + k_step;
    for (std::size_t p0 = p_begin; p0 < p_end; p0 += qdq_fma::kMaxPixels) {
      b.pixels = std::min(qdq_fma::kMaxPixels, p_end - p0);
      for (std::size_t p = 0; p < b.pixels; ++p) {
        b.base[p] = static_cast<std::ptrdiff_t>((p0 + p) * l.k * l.ldw);
        b.out_row[p] = (p0 + p) * l.ldw;
      }
      run(b);
    }
  }
}

/// Every output lane < lanes of `got` has the bits of `want`; returns a description of the first that does not.
std::string first_difference(const Layer& l, const std::vector<float>& want, const std::vector<float>& got) {
  for (std::size_t p = 0; p < l.pixels; ++p) {
    for (std::size_t c = 0; c < l.lanes; ++c) {
      const std::size_t i = p * l.ldw + c;
      if (std::memcmp(&want[i], &got[i], sizeof(float)) != 0) {
        return "pixel " + std::to_string(p) + " lane " + std::to_string(c) + ": " + std::to_string(got[i]) +
               " vs scalar " + std::to_string(want[i]);
      }
    }
  }
  return "";
}

qdq_fma::RunFn scalar_kernel() {
  const qparity::internal::QdqFmaKernelSet* set = qparity::internal::own_kernels<QdqFmaFamily>(Isa::kScalar);
  return set == nullptr ? nullptr : set->run;
}

/// The family's dispatch for the shared ISA-coverage checks (tests/support/kernel_family_coverage.h):
/// sse41 runs the scalar kernel (no FMA), every level from avx2 up a vector one.
qparity_test::KernelFamilyDispatch<QdqFmaFamily, qdq_fma::RunFn> dispatch() {
  return {{{"run", &qparity::internal::QdqFmaKernelSet::run, [](Isa isa) { return qdq_fma::kernel(isa); }}},
          &qdq_fma::kernel_isa,
          qparity_test::mask_of_isas({Isa::kScalar, Isa::kSse41})};
}

/// Calls f(isa, kernel) for every supported ISA with the dispatch forced to it (the shared sweep:
/// the kernel is the entry's, checked against the registry, and no supported ISA may be skipped).
template <class F>
void for_each_forced_isa(F&& f) {
  qparity_test::for_each_forced_isa(dispatch(), 0, f);
}

TEST(QdqFmaKernel, FamilyCoversTheSimdLevels) {
  qparity_test::check_family_covers_the_simd_levels(dispatch());
}

TEST(QdqFmaKernel, UnsupportedIsaIsAnError) {
  qparity_test::check_unsupported_isa_is_an_error(dispatch());
}

TEST(QdqFmaKernel, EveryIsaGivesTheScalarBits) {
  const qdq_fma::RunFn scalar = scalar_kernel();
  ASSERT_NE(scalar, nullptr);
  for_each_forced_isa([&](Isa isa, qdq_fma::RunFn kernel) {
    std::uint32_t seed = 1;
    std::size_t layers = 0;
    for (std::size_t k : {1u, 3u, 7u, 17u, 63u, 129u, 300u}) {
      for (std::size_t lanes : {1u, 3u, 7u, 17u, 63u, 64u, 70u}) {
        for (std::size_t pixels : {1u, 3u, 7u, 17u, 63u}) {
          const std::size_t ldw = (lanes + qdq_fma::kLanePad - 1) / qdq_fma::kLanePad * qdq_fma::kLanePad;
          if (pixels * k * ldw > 100000) continue;  // keep the sweep fast
          for (std::size_t slice : {1u, 7u, 128u, 256u}) {
            if (slice == 1 && k > 17) continue;
            const int variant = static_cast<int>(seed % 8);  // per_lane, masked, start in every combination
            const bool per_lane = (variant & 1) != 0, masked = (variant & 2) != 0, start = (variant & 4) != 0;
            const Layer l = make_layer(k, lanes, pixels, slice, per_lane, masked, start, seed++);
            // Whole K per call, and slice by slice (k_step = slice: k_begin > 0 adds to the output).
            for (std::size_t k_step : {k, slice}) {
              std::vector<float> want(pixels * l.ldw, -7.0f), got(pixels * l.ldw, -7.0f);
              run_layer(scalar, l, k_step, 0, pixels, want.data());
              run_layer(kernel, l, k_step, 0, pixels, got.data());
              const std::string diff = first_difference(l, want, got);
              ASSERT_EQ(diff, "") << qparity::to_string(isa) << ": K " << k << ", lanes " << lanes << ", pixels "
                                  << pixels << ", slice " << slice << ", step " << k_step << ", per lane " << per_lane
                                  << ", masked " << masked << ", start " << start;
              ++layers;
            }
          }
        }
      }
    }
    EXPECT_GT(layers, 400u) << qparity::to_string(isa);
  });
}

TEST(QdqFmaKernel, LargeKGivesTheScalarBits) {
  const qdq_fma::RunFn scalar = scalar_kernel();
  ASSERT_NE(scalar, nullptr);
  for_each_forced_isa([&](Isa isa, qdq_fma::RunFn kernel) {
    // ResNet-18's 3x3 convolutions on 512 channels: K = 4,608, slices of 128; a 64-lane block.
    for (bool masked : {false, true}) {
      const Layer l = make_layer(4608, 64, 6, 128, false, masked, false, masked ? 11u : 12u);
      // Unmasked: all of K per call; masked: slice by slice (k_begin > 0 adds to the output).
      const std::size_t k_step = masked ? l.slice : l.k;
      std::vector<float> want(l.pixels * l.ldw), got(l.pixels * l.ldw);
      run_layer(scalar, l, k_step, 0, l.pixels, want.data());
      run_layer(kernel, l, k_step, 0, l.pixels, got.data());
      EXPECT_EQ(first_difference(l, want, got), "") << qparity::to_string(isa) << " masked " << masked;
    }
  });
}

TEST(QdqFmaKernel, ThreadsGiveTheOneThreadBits) {
  const qparity_test::ForceTilePool force;
  const Layer l = make_layer(300, 70, 63, 128, false, true, true, 21u);
  const qdq_fma::RunFn kernel = qdq_fma::kernel(qparity::active_isa());
  std::vector<float> one(l.pixels * l.ldw);
  run_layer(kernel, l, l.slice, 0, l.pixels, one.data());
  for (unsigned threads : {2u, 3u}) {
    std::vector<float> many(l.pixels * l.ldw);
    struct Ctx {
      const Layer* l;
      qdq_fma::RunFn kernel;
      float* out;
    } ctx{&l, kernel, many.data()};
    // One range per block of kMaxPixels pixels: each pixel's K slices stay in one range, in order.
    const std::size_t blocks = (l.pixels + qdq_fma::kMaxPixels - 1) / qdq_fma::kMaxPixels;
    const bool worker_ran = qparity_test::a_worker_ran_during([&] {
      qparity::internal::run_ranges_on_tile_pool(
          blocks, threads, std::uint64_t{1} << 30,
          [](const void* c, std::size_t begin, std::size_t end) {
            const auto* x = static_cast<const Ctx*>(c);
            run_layer(x->kernel, *x->l, x->l->slice, begin * qdq_fma::kMaxPixels,
                      std::min(x->l->pixels, end * qdq_fma::kMaxPixels), x->out);
          },
          &ctx);
    });
    EXPECT_TRUE(worker_ran) << threads << " threads";
    EXPECT_EQ(first_difference(l, one, many), "") << threads << " threads";
  }
}

}  // namespace
