// Packing of a strided A into the micro-kernel's format (kernels/gemm/gemm_pack_a.h).
#include "kernels/gemm/gemm_pack_a.h"

#include <algorithm>
#include <cstring>

#include "kernels/gemm/pack_dot4.h"

namespace qparity {
namespace internal {

template <class AType>
void pack_a(const PackedGemmData& d, const Ukernel& kernel, const AType* a, std::size_t lda,
            std::size_t rows, std::size_t k0, std::size_t kgroups, std::uint8_t* dst,
            std::size_t* row_bytes_out) {
  const std::size_t K = d.k, MR = kernel.mr;
  const std::size_t groups_of_rows = ceil_div(rows, MR);
  switch (kernel.format) {
    case PackFormat::kDot4: {
      // Each row's K bytes become dwords at a stride of MR dwords; the +128 of int8 activations
      // is an XOR of the sign bits (a + 128 mod 256 = a ^ 0x80), four bytes at a time.
      const std::uint32_t flip = activation_offset<AType>(kernel) ? 0x80808080u : 0u;
      const std::size_t k_end = std::min(K, k0 + kgroups * 4);
      const std::size_t full = (k_end - k0) / 4;  // groups entirely inside K
      const std::uint8_t* row_ptr[kMaxMr];
      for (std::size_t rg = 0; rg < groups_of_rows; ++rg) {
        std::uint8_t* out = dst + rg * kgroups * MR * 4;
        for (std::size_t r = 0; r < MR; ++r) {
          const std::size_t row = rg * MR + r;
          row_ptr[r] = row < rows ? reinterpret_cast<const std::uint8_t*>(a + row * lda) + k0 : nullptr;
        }
        pack_dot4_run(row_ptr, MR, full, flip, out);
        for (std::size_t r = 0; r < MR; ++r) {
          const std::size_t row = rg * MR + r;
          if (row >= rows) {
            for (std::size_t g = full; g < kgroups; ++g) std::memset(out + (g * MR + r) * 4, 0, 4);
            continue;
          }
          const std::uint8_t* src = row_ptr[r];
          for (std::size_t g = full; g < kgroups; ++g) {  // the partial last group, then zeros
            std::uint8_t* o = out + (g * MR + r) * 4;
            for (std::size_t t = 0; t < 4; ++t) {
              const std::size_t k = k0 + g * 4 + t;
              o[t] = k < K ? static_cast<std::uint8_t>(src[g * 4 + t] ^ static_cast<std::uint8_t>(flip)) : 0;
            }
          }
        }
      }
      break;
    }
    case PackFormat::kPairs16: {
      const std::size_t k_end = std::min(K, k0 + kgroups * 2);
      const std::size_t full = (k_end - k0) / 2;
      for (std::size_t rg = 0; rg < groups_of_rows; ++rg) {
        auto* out = reinterpret_cast<std::int16_t*>(dst) + rg * kgroups * MR * 2;
        for (std::size_t r = 0; r < MR; ++r) {
          const std::size_t row = rg * MR + r;
          if (row >= rows) {
            for (std::size_t g = 0; g < kgroups; ++g) out[(g * MR + r) * 2] = out[(g * MR + r) * 2 + 1] = 0;
            continue;
          }
          const AType* src = a + row * lda + k0;
          for (std::size_t g = 0; g < full; ++g) {
            out[(g * MR + r) * 2] = static_cast<std::int16_t>(src[g * 2]);
            out[(g * MR + r) * 2 + 1] = static_cast<std::int16_t>(src[g * 2 + 1]);
          }
          for (std::size_t g = full; g < kgroups; ++g) {
            for (std::size_t t = 0; t < 2; ++t) {
              const std::size_t k = k0 + g * 2 + t;
              out[(g * MR + r) * 2 + t] = k < K ? static_cast<std::int16_t>(src[g * 2 + t]) : 0;
            }
          }
        }
      }
      break;
    }
    case PackFormat::kRows64: {
      // Tile-major: the 16 x 64 bytes of each A tile (16 rows, one 64-byte K step) contiguous,
      // so that a TILELOADD reads 1 KiB in order (stride 64) and a kernel call's A is two
      // sequential streams, not 32 rows each advancing by a line per step.
      const std::size_t row_bytes = rows64_row_bytes(kgroups);
      *row_bytes_out = row_bytes;
      const std::size_t steps = row_bytes / kRows64TileRowBytes;
      // Whole 64-byte lines by fixed-size copies the compiler inlines (one vector load and store
      // each), the rest by calls: at K = 64 the rows are one line, and a memset plus a memcpy call
      // per row (with pack_a itself) took 17 % (DR-AZ) and 22 % (F32) of a 3136x64x64 GEMM on
      // the AMX path (perf, Xeon family 6 model 207).
      const std::size_t len = std::min(kgroups * 4, K - k0);
      const std::size_t lines = len / 64;
      for (std::size_t r = 0; r < groups_of_rows * MR; ++r) {
        std::uint8_t* o = dst + rows64_offset(r, 0, row_bytes);
        std::size_t s = 0;
        if (r < rows) {
          const auto* src = reinterpret_cast<const std::uint8_t*>(a + r * lda + k0);
          for (; s < lines; ++s) std::memcpy(o + s * kRows64TileBytes, src + s * 64, 64);
          if (len > lines * 64) {
            std::uint8_t* line = o + s * kRows64TileBytes;
            std::memcpy(line, src + s * 64, len - lines * 64);
            std::memset(line + (len - lines * 64), 0, 64 - (len - lines * 64));
            ++s;
          }
        }
        for (; s < steps; ++s) std::memset(o + s * kRows64TileBytes, 0, 64);
      }
      break;
    }
  }
}

#define QPARITY_PACK_A_INSTANTIATE(A)                                                   \
  template void pack_a<A>(const PackedGemmData&, const Ukernel&, const A*, std::size_t, \
                          std::size_t, std::size_t, std::size_t, std::uint8_t*, std::size_t*);
QPARITY_FOR_EACH_ACTIVATION_TYPE(QPARITY_PACK_A_INSTANTIATE)
#undef QPARITY_PACK_A_INSTANTIATE

}  // namespace internal
}  // namespace qparity
