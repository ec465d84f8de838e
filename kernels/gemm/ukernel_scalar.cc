// Portable GEMM micro-kernels (any CPU): plain C++ over the kDot4 format, written so that the
// compiler vectorises the 16-column inner loops for the baseline ISA. They define the arithmetic
// every SIMD micro-kernel must reproduce (see gemm_ukernel.h).
#include <cstddef>
#include <cstdint>

#include "kernels/gemm/gemm_ukernel.h"

namespace qparity {
namespace internal {
namespace {

constexpr std::size_t kMr = 4;
constexpr std::size_t kNr = 16;

void init_tile(const UkernelArgs& p, std::int32_t (&acc)[kMr][kNr]) {
  for (std::size_t i = 0; i < kMr; ++i) {
    for (std::size_t j = 0; j < kNr; ++j) {
      if (p.accumulate) {
        acc[i][j] = p.c[i * p.ldc + j];
      } else {
        const std::uint32_t ci = p.col_init ? static_cast<std::uint32_t>(p.col_init[j]) : 0u;
        const std::uint32_t ri = p.row_init ? static_cast<std::uint32_t>(p.row_init[i]) : 0u;
        acc[i][j] = static_cast<std::int32_t>(ci + ri);
      }
    }
  }
}

void store_tile(const UkernelArgs& p, const std::int32_t (&acc)[kMr][kNr]) {
  for (std::size_t i = 0; i < kMr; ++i) {
    for (std::size_t j = 0; j < kNr; ++j) p.c[i * p.ldc + j] = acc[i][j];
  }
}

// Exact: |sum| < 2^31 for kgroups * 4 <= kMaxKBlock, so int32 addition cannot overflow.
void dot4_exact_4x16(const UkernelArgs& p) {
  std::int32_t acc[kMr][kNr];
  init_tile(p, acc);
  const auto* a = static_cast<const std::uint8_t*>(p.a);
  const auto* b = static_cast<const std::int8_t*>(p.b);
  for (std::size_t g = 0; g < p.kgroups; ++g) {
    const std::int8_t* bg = b + g * kPanelGroupBytes;
    for (std::size_t i = 0; i < kMr; ++i) {
      const std::uint8_t* ai = a + (g * kMr + i) * 4;
      std::int32_t sum[kNr];
      for (std::size_t j = 0; j < kNr; ++j) {
        sum[j] = ai[0] * bg[j * 4 + 0] + ai[1] * bg[j * 4 + 1] + ai[2] * bg[j * 4 + 2] +
                 ai[3] * bg[j * 4 + 3];
      }
      for (std::size_t j = 0; j < kNr; ++j) {
        acc[i][j] = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc[i][j]) +
                                              static_cast<std::uint32_t>(sum[j]));
      }
    }
  }
  store_tile(p, acc);
}

inline std::int32_t saturate_int16(std::int32_t v) { return v > 32767 ? 32767 : (v < -32768 ? -32768 : v); }

// VPMADDUBSW semantics: each pair of (uint8 * int8) products is summed and saturated to int16.
void dot4_pairsat_4x16(const UkernelArgs& p) {
  std::int32_t acc[kMr][kNr];
  init_tile(p, acc);
  const auto* a = static_cast<const std::uint8_t*>(p.a);
  const auto* b = static_cast<const std::int8_t*>(p.b);
  for (std::size_t g = 0; g < p.kgroups; ++g) {
    const std::int8_t* bg = b + g * kPanelGroupBytes;
    for (std::size_t i = 0; i < kMr; ++i) {
      const std::uint8_t* ai = a + (g * kMr + i) * 4;
      for (std::size_t j = 0; j < kNr; ++j) {
        const std::int32_t lo = saturate_int16(ai[0] * bg[j * 4 + 0] + ai[1] * bg[j * 4 + 1]);
        const std::int32_t hi = saturate_int16(ai[2] * bg[j * 4 + 2] + ai[3] * bg[j * 4 + 3]);
        acc[i][j] = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc[i][j]) +
                                              static_cast<std::uint32_t>(lo + hi));
      }
    }
  }
  store_tile(p, acc);
}

}  // namespace

namespace {
UkernelSet ukernel_set() {
  UkernelSet s;
  s.exact = Ukernel{"scalar-dot4-4x16", PackFormat::kDot4, Arithmetic::kExact, kMr, kNr,
                    &dot4_exact_4x16, nullptr};
  s.pair_saturate = Ukernel{"scalar-dot4-pairsat-4x16", PackFormat::kDot4,
                            Arithmetic::kPairSaturate16, kMr, kNr, &dot4_pairsat_4x16, nullptr};
  return s;
}
}  // namespace

}  // namespace internal
}  // namespace qparity

QPARITY_DEFINE_KERNELS(qparity::internal::GemmUkernelFamily) { return qparity::internal::ukernel_set(); }
