// INTERNAL: the 64-byte operand of LDTILECFG, the AMX tile configuration (Intel SDM, LDTILECFG,
// "Memory Area Layout", palette 1). Plain data, no intrinsics and no generated build header, so
// that the AMX kernel (kernels/gemm/ukernel_amx_body.h) and bench/peak_bench.cc's TDPBUSD limit
// configure the tiles from the same definition. Not installed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace qparity {
namespace internal {

/// LDTILECFG's operand. Every reserved byte must be zero or LDTILECFG raises #GP.
struct alignas(64) AmxTileConfig {
  std::uint8_t palette_id;
  std::uint8_t start_row;  ///< first row of an interrupted TILELOADD/STORED; 0
  std::uint8_t reserved0[14];
  std::uint16_t colsb[8];  ///< bytes per row of tmm0..tmm7
  std::uint8_t reserved1[16];
  std::uint8_t rows[8];  ///< rows of tmm0..tmm7
  std::uint8_t reserved2[8];
};
static_assert(sizeof(AmxTileConfig) == 64, "LDTILECFG reads exactly 64 bytes");
static_assert(offsetof(AmxTileConfig, colsb) == 16 && offsetof(AmxTileConfig, rows) == 48,
              "field offsets of the SDM's layout");

/// Palette 1 with all eight tiles `rows` x `colsb` bytes (at most 16 x 64), the rest zero.
constexpr AmxTileConfig uniform_amx_tile_config(std::uint8_t rows, std::uint16_t colsb) {
  AmxTileConfig c{};  // reserved bytes and start_row zero
  c.palette_id = 1;
  for (int t = 0; t < 8; ++t) {
    c.colsb[t] = colsb;
    c.rows[t] = rows;
  }
  return c;
}

}  // namespace internal
}  // namespace qparity
