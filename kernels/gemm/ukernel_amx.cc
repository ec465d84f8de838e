// AMX GEMM micro-kernels: TDPBUSD (uint8 activations) and TDPBSSD (int8 activations, raw: the
// kRows64 format has no +128 offset) over the kRows64 format, exact. The kernel body is
// kernels/gemm/ukernel_amx_body.h (shared with the software-AMX test); this file supplies the
// instructions, and the kernel's enter / leave (LDTILECFG / TILERELEASE, once per tile). The driver
// only calls these kernels when Isa::kAmx is supported, which includes
// the Linux permission for the tile data state (kernels/dispatch/amx_permission.h).
//
// Why inline assembly and not GCC's AMX intrinsics: GCC 12's _tile_loadconfig declares its
// operand as an 8-byte object ("m"(*(const void**)p)), so the compiler may drop or delay the
// stores that fill the other 56 bytes of a configuration built just before it, and the first tile
// instruction then faults (measured on the target AMX machine); _tile_loadd declares no memory
// read at all, so stores to a buffer it loads could be dropped the same way. Here LDTILECFG's
// operand is the whole 64-byte struct, and every tile load and store clobbers "memory". The tile
// number goes into the mnemonic through an "i" operand printed bare (%c), so the ops can be
// templates.
#define QPARITY_GEMM_ISA_NS gemm_amx

#include <cstddef>
#include <cstdint>

#include <immintrin.h>

#include "kernels/gemm/gemm_ukernel.h"
#include "kernels/gemm/ukernel_amx_body.h"

// GCC spells the feature macros __AMX_TILE__ / __AMX_INT8__, clang __AMXTILE__ / __AMXINT8__.
#if !((defined(__AMX_TILE__) || defined(__AMXTILE__)) && (defined(__AMX_INT8__) || defined(__AMXINT8__)) && \
      defined(__x86_64__))
#error "ukernel_amx.cc must be compiled for x86-64 with -mamx-tile -mamx-int8"
#endif

namespace qparity {
namespace internal {
namespace gemm_amx {
namespace {

// Operand syntax: {AT&T|Intel} alternatives, as in GCC's own AMX headers.
struct AmxOps {
  static void load_config(const AmxTileConfig& config) {
#if defined(__clang__)
    // clang's inline assembler has no %X operand modifier; its intrinsic does the same load.
    _tile_loadconfig(&config);
#else
    __asm__ __volatile__("ldtilecfg\t%X0" : : "m"(config) : "memory");
#endif
  }
  static void release() { __asm__ __volatile__("tilerelease" : :); }
  template <int T>
  static void zero() {
    __asm__ __volatile__("tilezero\t%%tmm%c0" : : "i"(T));
  }
  template <int T>
  static void load(const void* base, std::size_t stride) {
    __asm__ __volatile__(
        "{tileloadd\t(%0,%1,1), %%tmm%c2|tileloadd\t%%tmm%c2, [%0+%1*1]}"
        : : "r"(base), "r"(stride), "i"(T) : "memory");
  }
  template <int T>
  static void store(void* base, std::size_t stride) {
    __asm__ __volatile__(
        "{tilestored\t%%tmm%c2, (%0,%1,1)|tilestored\t[%0+%1*1], %%tmm%c2}"
        : : "r"(base), "r"(stride), "i"(T) : "memory");
  }
  template <int C, int A, int B>
  static void dpbusd() {
    __asm__ __volatile__(
        "{tdpbusd\t%%tmm%c2, %%tmm%c1, %%tmm%c0|tdpbusd\t%%tmm%c0, %%tmm%c1, %%tmm%c2}"
        : : "i"(C), "i"(A), "i"(B));
  }
  template <int C, int A, int B>
  static void dpbssd() {
    __asm__ __volatile__(
        "{tdpbssd\t%%tmm%c2, %%tmm%c1, %%tmm%c0|tdpbssd\t%%tmm%c0, %%tmm%c1, %%tmm%c2}"
        : : "i"(C), "i"(A), "i"(B));
  }
};

void amx_u8(const UkernelArgs& p) { amx_rows64_kernel<AmxOps, false>(p); }
void amx_s8(const UkernelArgs& p) { amx_rows64_kernel<AmxOps, true>(p); }
void amx_begin() { amx_enter<AmxOps>(); }
void amx_end() { amx_leave<AmxOps>(); }

}  // namespace
}  // namespace gemm_amx

namespace {
UkernelSet ukernel_set() {
  using namespace gemm_amx;
  static_assert(kAmxMr == 32 && kAmxNr == 32, "update the kernel name");
  UkernelSet s;
  s.exact = Ukernel{"amx-rows64-32x32", PackFormat::kRows64, Arithmetic::kExact, kAmxMr, kAmxNr,
                    &amx_u8, &amx_s8};
  s.exact.enter = &amx_begin;
  s.exact.leave = &amx_end;
  s.exact.direct_a = true;  // a strided A, a convolution's input or its gathered rows in place
  s.exact.a_segment_bytes = kAmxTileRowBytes;
  s.exact.a_segment_tile_rows = kAmxTileRows;
  // The C tiles of a one-K-block call start from TILEZERO and the separate epilogue adds
  // col_init (one VPADDD per 16 outputs): a stride-0 TILELOADD of col_init into a C tile waits for
  // the previous call's TILESTORED of that tile, which waits for its TDPs. Measured on Xeon family
  // 6 model 207 (gemm_bench, one thread, interleaved rounds of both binaries, median GOPS, before
  // -> after). The machine has slow and fast periods; in a slow one (7 rounds) the load stalled:
  // 3136x64x64 DR-AZ 397 -> 489, F32 536 -> 637; 64^3 319 -> 357, 477 -> 559. In a fast one (9
  // rounds) it did not, and the extra VPADDD shows in F32's short epilogue: 3136x64x64 F32 657 ->
  // 640, 64^3 571 -> 560, MobileNet 1x1 GEMMs at K = 64-128 -2..-7 %; DR-AZ there -1..+6 %.
  // 3x3 convolutions (conv_bench, 5 rounds, best): DR-AZ +2..+7 %, F32 -2..+4 % (7x7 median -9 %).
  s.exact.col_init_in_epilogue = true;
  s.exact_min_k = 64;  // shorter K: AVX-512 VNNI's kernels (gemm_ukernel.h, exact_min_k)
  return s;  // pair_saturate absent: TDPB*D cannot saturate pairs (the driver uses AVX-512BW's)
}
}  // namespace

}  // namespace internal
}  // namespace qparity

QPARITY_DEFINE_KERNELS(qparity::internal::GemmUkernelFamily) { return qparity::internal::ukernel_set(); }
