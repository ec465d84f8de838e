// A software model of the AMX instructions the GEMM micro-kernel uses (LDTILECFG, STTILECFG,
// TILERELEASE, TILEZERO, TILELOADD, TILESTORED, TDPBSSD, TDPBUSD), written from the "Operation"
// pseudo-code and the exception conditions of the Intel SDM, so that the kernel body
// (kernels/gemm/ukernel_amx_body.h) can be run and checked on CPUs without AMX.
//
// Modelled: palette 1 (8 tiles, at most 16 rows x 64 bytes) and the TMUL limits every AMX CPU
// reports (CPUID 0x1E: tmul_maxk = 16, tmul_maxn = 64 bytes); LDTILECFG's validation (#GP) and
// its zeroing of all tile data; the tile state's INIT (unconfigured) state after TILERELEASE or a
// palette 0; start_row (rows [start_row, rows) are loaded / stored, then it is reset to 0); rows
// at `base + row * stride`, `colsb` bytes each, the rest of a loaded row and the rows past `rows`
// zeroed; the dot products with sign or zero extension and int32 wrap-around; and #UD for an
// unconfigured state, invalid tiles, repeated tile operands and incompatible TDP shapes.
// A fault is thrown as amx::Fault. Not modelled: TSX aborts, the non-temporal TILELOADDT1, the
// restart of an interrupted load (nothing interrupts the model), BF16 / FP16 instructions.
//
// Every memory row a tile instruction reads or writes is logged, so that tests can check the
// kernel stays inside its operands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace qparity_test {
namespace amx {

inline constexpr unsigned kMaxNames = 8;      ///< palette 1: tiles tmm0..tmm7
inline constexpr unsigned kMaxRows = 16;      ///< palette 1: rows per tile
inline constexpr unsigned kBytesPerRow = 64;  ///< palette 1: bytes per tile row
inline constexpr unsigned kTmulMaxK = 16;     ///< CPUID 0x1E: rows of B / dwords of an A row
inline constexpr unsigned kTmulMaxN = 64;     ///< CPUID 0x1E: bytes of a C / B row

/// A #UD or #GP the instruction would raise; what() names the instruction and the rule.
class Fault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One memory row touched by a tile instruction (or the 64 bytes of LDTILECFG / STTILECFG).
struct Access {
  std::uintptr_t address;
  std::size_t bytes;
  bool write;
};

/// How often each instruction ran since the last reset_counts().
struct Counts {
  std::size_t ldtilecfg = 0, sttilecfg = 0, tilerelease = 0, tilezero = 0, tileloadd = 0,
              tilestored = 0, tdp = 0;
};

class Emulator {
 public:
  // ---- instructions -----------------------------------------------------------------------------

  void ldtilecfg(const void* mem) {
    ++counts_.ldtilecfg;
    unsigned char buf[64];
    std::memcpy(buf, mem, sizeof buf);
    log(mem, sizeof buf, false);
    const unsigned palette = buf[0];
    if (palette > 1) fault("LDTILECFG #GP: palette_id " + std::to_string(palette) + " > 1");
    if (palette == 0) {  // the INIT state
      set_init_state();
      return;
    }
    require_zero(buf, 2, 16, "LDTILECFG #GP: reserved bytes 2..15");
    Tile cfg[kMaxNames];
    for (unsigned n = 0; n < kMaxNames; ++n) {
      cfg[n].colsb = static_cast<unsigned>(buf[16 + 2 * n]) | static_cast<unsigned>(buf[17 + 2 * n]) << 8;
      if (cfg[n].colsb > kBytesPerRow) {
        fault("LDTILECFG #GP: tile " + std::to_string(n) + " colsb " + std::to_string(cfg[n].colsb) + " > 64");
      }
    }
    require_zero(buf, 32, 48, "LDTILECFG #GP: reserved bytes 32..47");
    for (unsigned n = 0; n < kMaxNames; ++n) {
      cfg[n].rows = buf[48 + n];
      if (cfg[n].rows > kMaxRows) {
        fault("LDTILECFG #GP: tile " + std::to_string(n) + " rows " + std::to_string(cfg[n].rows) + " > 16");
      }
    }
    require_zero(buf, 56, 64, "LDTILECFG #GP: reserved bytes 56..63");
    for (unsigned n = 0; n < kMaxNames; ++n) {
      if ((cfg[n].rows == 0) != (cfg[n].colsb == 0)) {
        fault("LDTILECFG #GP: tile " + std::to_string(n) + " has only one of rows and colsb zero");
      }
      cfg[n].valid = cfg[n].rows != 0;
    }
    for (unsigned n = 0; n < kMaxNames; ++n) tiles_[n] = cfg[n];  // data zeroed (Tile{} is zero)
    start_row_ = buf[1];
    configured_ = true;
  }

  void sttilecfg(void* mem) {
    ++counts_.sttilecfg;
    unsigned char buf[64] = {};
    if (configured_) {
      buf[0] = 1;
      buf[1] = static_cast<unsigned char>(start_row_);
      for (unsigned n = 0; n < kMaxNames; ++n) {
        buf[16 + 2 * n] = static_cast<unsigned char>(tiles_[n].colsb & 0xff);
        buf[17 + 2 * n] = static_cast<unsigned char>(tiles_[n].colsb >> 8);
        buf[48 + n] = static_cast<unsigned char>(tiles_[n].rows);
      }
    }
    std::memcpy(mem, buf, sizeof buf);
    log(mem, sizeof buf, true);
  }

  void tilerelease() {
    ++counts_.tilerelease;
    set_init_state();
  }

  void tilezero(int t) {
    ++counts_.tilezero;
    Tile& d = valid_tile("TILEZERO", t);
    std::memset(d.data, 0, sizeof d.data);  // max_rows x bytes_per_row
    start_row_ = 0;
  }

  void tileloadd(int t, const void* base, std::int64_t stride) {
    ++counts_.tileloadd;
    Tile& d = valid_tile("TILELOADD", t);
    unsigned start = start_row_;
    zero_rows_from(d, start);
    for (; start < d.rows; ++start) {
      const std::uintptr_t p = row_address(base, stride, start);
      std::memcpy(d.data[start], reinterpret_cast<const void*>(p), d.colsb);  // rest stays zero
      log(reinterpret_cast<const void*>(p), d.colsb, false);
    }
    start_row_ = 0;
  }

  void tilestored(int t, void* base, std::int64_t stride) {
    ++counts_.tilestored;
    const Tile& s = valid_tile("TILESTORED", t);
    for (unsigned start = start_row_; start < s.rows; ++start) {
      const std::uintptr_t p = row_address(base, stride, start);
      std::memcpy(reinterpret_cast<void*>(p), s.data[start], s.colsb);
      log(reinterpret_cast<const void*>(p), s.colsb, true);
    }
    start_row_ = 0;
  }

  /// int8 x int8 (TDPBSSD tdst, tsrc1, tsrc2: Intel operand order).
  void tdpbssd(int dst, int src1, int src2) { tdp("TDPBSSD", dst, src1, src2, true, true); }
  /// uint8 x int8 (TDPBUSD).
  void tdpbusd(int dst, int src1, int src2) { tdp("TDPBUSD", dst, src1, src2, false, true); }

  // ---- observation --------------------------------------------------------------------------------

  bool configured() const { return configured_; }
  const Counts& counts() const { return counts_; }
  const std::vector<Access>& accesses() const { return accesses_; }
  /// Forgets the counts and the access log (the tile state is kept).
  void reset_counts() {
    counts_ = Counts{};
    accesses_.clear();
  }

 private:
  struct Tile {
    unsigned rows = 0, colsb = 0;
    bool valid = false;
    unsigned char data[kMaxRows][kBytesPerRow] = {};
  };

  [[noreturn]] static void fault(const std::string& what) { throw Fault(what); }

  static void require_zero(const unsigned char* buf, unsigned begin, unsigned end, const char* what) {
    for (unsigned i = begin; i < end; ++i) {
      if (buf[i] != 0) fault(std::string(what) + " must be zero (byte " + std::to_string(i) + ")");
    }
  }

  void set_init_state() {
    for (Tile& t : tiles_) t = Tile{};
    start_row_ = 0;
    configured_ = false;
  }

  Tile& valid_tile(const char* insn, int t) {
    if (!configured_) fault(std::string(insn) + " #UD: tiles are not configured (TILES_CONFIGURED == 0)");
    if (t < 0 || t >= static_cast<int>(kMaxNames) || !tiles_[t].valid) {
      fault(std::string(insn) + " #UD: tmm" + std::to_string(t) + " is not a valid tile");
    }
    return tiles_[t];
  }

  static void zero_rows_from(Tile& t, unsigned first) {
    for (unsigned r = first; r < kMaxRows; ++r) std::memset(t.data[r], 0, kBytesPerRow);
  }

  /// base + row * stride, with the wrap-around of 64-bit address arithmetic.
  static std::uintptr_t row_address(const void* base, std::int64_t stride, unsigned row) {
    return reinterpret_cast<std::uintptr_t>(base) +
           static_cast<std::uintptr_t>(stride) * static_cast<std::uintptr_t>(row);
  }

  void log(const void* p, std::size_t bytes, bool write) {
    accesses_.push_back(Access{reinterpret_cast<std::uintptr_t>(p), bytes, write});
  }

  static std::int32_t dword_of(const unsigned char* p) {
    std::int32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }

  /// TDPB[SU][SU]D tdst, tsrc1, tsrc2: C = m x n (tdst), A = m x k (tsrc1), B = k x n (tsrc2).
  void tdp(const char* insn, int dst, int src1, int src2, bool src1_signed, bool src2_signed) {
    ++counts_.tdp;
    const std::string name(insn);
    if (dst == src1 || dst == src2 || src1 == src2) fault(name + " #UD: the three tiles must differ");
    Tile& c = valid_tile(insn, dst);
    const Tile& a = valid_tile(insn, src1);
    const Tile& b = valid_tile(insn, src2);
    if (c.colsb % 4 != 0 || a.colsb % 4 != 0 || b.colsb % 4 != 0) fault(name + " #UD: colsb not a multiple of 4");
    if (c.colsb != b.colsb) fault(name + " #UD: tdest.colsb != tsrc2.colsb");
    if (c.rows != a.rows) fault(name + " #UD: tdest.rows != tsrc1.rows");
    if (a.colsb / 4 != b.rows) fault(name + " #UD: tsrc1.colsb / 4 != tsrc2.rows");
    if (c.colsb > kTmulMaxN || b.colsb > kTmulMaxN) fault(name + " #UD: colsb > tmul_maxn");
    if (a.colsb / 4 > kTmulMaxK || b.rows > kTmulMaxK) fault(name + " #UD: K > tmul_maxk");

    auto extend = [](unsigned char byte, bool is_signed) -> std::int32_t {
      return is_signed ? static_cast<std::int32_t>(static_cast<std::int8_t>(byte)) : byte;
    };
    for (unsigned m = 0; m < c.rows; ++m) {
      std::uint32_t tmp[kBytesPerRow / 4];
      for (unsigned n = 0; n < c.colsb / 4; ++n) tmp[n] = static_cast<std::uint32_t>(dword_of(c.data[m] + 4 * n));
      for (unsigned k = 0; k < a.colsb / 4; ++k) {
        const unsigned char* x = a.data[m] + 4 * k;
        for (unsigned n = 0; n < c.colsb / 4; ++n) {
          const unsigned char* y = b.data[k] + 4 * n;
          std::uint32_t acc = tmp[n];
          for (unsigned e = 0; e < 4; ++e) {  // each product is exact in int32; the sum wraps
            acc += static_cast<std::uint32_t>(extend(x[e], src1_signed) * extend(y[e], src2_signed));
          }
          tmp[n] = acc;
        }
      }
      std::memset(c.data[m], 0, kBytesPerRow);  // write_row_and_zero
      std::memcpy(c.data[m], tmp, c.colsb);
    }
    zero_rows_from(c, c.rows);
    start_row_ = 0;
  }

  bool configured_ = false;
  unsigned start_row_ = 0;
  Tile tiles_[kMaxNames];
  Counts counts_;
  std::vector<Access> accesses_;
};

}  // namespace amx
}  // namespace qparity_test
