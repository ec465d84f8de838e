// peak_bench: the throughput limit of the int8 dot-product instructions qparity's GEMM and
// convolution kernels are built on, measured on this CPU, so that a kernel's GOPS can be read as a
// fraction of what the instruction allows (issue 19, item 4); and of the float32 FMA that the
// unfused-QDQ sums of ort-cpu run on (issue 16).
//
//   ./bench/peak_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
//
// Each row runs a loop of independent accumulator chains in inline assembly (so that neither the
// compiler nor a dependency limits it: every chain has enough instructions in flight to cover the
// instruction's latency) and reports OPS = 2 x multiply-accumulates per second of CPU time, as
// gemm_bench and conv_bench do. The rows, per vector width, and the qparity path each one limits:
//
//   peak/vpdpbusd/<zmm|ymm>       VPDPBUSD: 4 u8 x s8 products summed into each int32 lane
//                                 (AVX512-VNNI; ymm with AVX512VL): the avx512vnni GEMM / conv
//                                 kernels (kDot4 packing, zmm).
//   peak/vpdpbusd_vex/ymm         {vex} VPDPBUSD (AVX-VNNI): the avxvnni kernels.
//   peak/vpmaddwd_vpaddd/<w>      VPMADDWD + VPADDD: 2 int16 x int16 products per int32 lane, then
//                                 added: the exact int16 path (kPairs16) of the avx512 (zmm) and
//                                 avx2 (ymm) kernels, i.e. every CPU without VNNI.
//   peak/vpmaddubsw_pair/<w>      VPMADDUBSW + VPMADDWD(ones) + VPADDD: u8 x s8 pairs saturated to
//                                 int16, then summed into int32: the pair-saturating accumulator
//                                 model (XNNPACK / ONNX Runtime's AVX2 arithmetic) on avx512 and
//                                 avx512vnni (zmm; VNNI has no pair-saturating form) and avx2
//                                 (ymm).
//   peak/tdpbusd/tile             TDPBUSD (AMX-INT8): a 16 x 16 int32 tile += 16 x 64 u8 times 64 x 16
//                                 s8 (16,384 multiply-accumulates per instruction): the amx GEMM
//                                 kernel (kRows64). Four independent accumulator tiles, sources
//                                 never reloaded (no TILELOADD in the loop: that is the kernel's
//                                 business, and loads only lower the figure).
//   peak/vfmadd231ps/<zmm|ymm>    VFMADD231PS: one float32 FMA per lane (AVX-512F / AVX2 + FMA):
//                                 the unfused-QDQ float32 sums under ort-cpu
//                                 (kernels/qdq_fma/qdq_fma_kernel.h) and MLAS's SGEMM that ONNX
//                                 Runtime runs them with (OPS = 2 x FMAs, as for the integer rows).
//
// A row whose instruction the CPU lacks is skipped with the reason. The loop's operand values do
// not matter (the instructions' timing does not depend on them); the accumulators are never read.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "kernels/gemm/amx_tile_config.h"
#include "qparity/isa.h"

namespace {

/// Loop iterations per benchmark iteration: long enough that the loop overhead and the timer's
/// resolution are negligible, short enough for Google Benchmark to adapt the iteration count.
constexpr std::int64_t kLoops = 1 << 14;

// One instruction group per macro, registers by number; "%%" is a literal '%' in extended asm.
#define QP_STR(x) #x
#define QP_REG(w, n) "%%" QP_STR(w) "mm" QP_STR(n)
/// acc += dot4(u8 src1, s8 src2) per int32 lane.
#define QP_DPBUSD(pfx, w, acc, u, s) pfx "vpdpbusd " QP_REG(w, s) ", " QP_REG(w, u) ", " QP_REG(w, acc) "\n\t"
/// tmp = pairs of int16 products; acc += tmp.
#define QP_MADDWD(w, acc, tmp, x, y)                                                  \
  "vpmaddwd " QP_REG(w, y) ", " QP_REG(w, x) ", " QP_REG(w, tmp) "\n\t"                 \
  "vpaddd " QP_REG(w, tmp) ", " QP_REG(w, acc) ", " QP_REG(w, acc) "\n\t"
/// tmp = sat16 pairs of u8 x s8 products; tmp = pairs of tmp x 1; acc += tmp.
#define QP_MADDUBSW(w, acc, tmp, u, s, ones)                                          \
  "vpmaddubsw " QP_REG(w, s) ", " QP_REG(w, u) ", " QP_REG(w, tmp) "\n\t"               \
  "vpmaddwd " QP_REG(w, ones) ", " QP_REG(w, tmp) ", " QP_REG(w, tmp) "\n\t"            \
  "vpaddd " QP_REG(w, tmp) ", " QP_REG(w, acc) ", " QP_REG(w, acc) "\n\t"

#define QP_LOOP_BEGIN "1:\n\t"
#define QP_LOOP_END "dec %0\n\t" "jnz 1b\n\t" "vzeroupper\n\t"
#define QP_CLOBBER_16                                                                      \
  "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", \
      "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"
#define QP_CLOBBER_32                                                                       \
  QP_CLOBBER_16, "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", \
      "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31"

// VPDPBUSD, EVEX (AVX512-VNNI; ymm needs AVX512VL): 16 chains, accumulators 0..15, sources 30, 31.
#define QP_DPBUSD_16(pfx, w)                                                                  \
  QP_DPBUSD(pfx, w, 0, 30, 31) QP_DPBUSD(pfx, w, 1, 30, 31) QP_DPBUSD(pfx, w, 2, 30, 31)      \
  QP_DPBUSD(pfx, w, 3, 30, 31) QP_DPBUSD(pfx, w, 4, 30, 31) QP_DPBUSD(pfx, w, 5, 30, 31)      \
  QP_DPBUSD(pfx, w, 6, 30, 31) QP_DPBUSD(pfx, w, 7, 30, 31) QP_DPBUSD(pfx, w, 8, 30, 31)      \
  QP_DPBUSD(pfx, w, 9, 30, 31) QP_DPBUSD(pfx, w, 10, 30, 31) QP_DPBUSD(pfx, w, 11, 30, 31)    \
  QP_DPBUSD(pfx, w, 12, 30, 31) QP_DPBUSD(pfx, w, 13, 30, 31) QP_DPBUSD(pfx, w, 14, 30, 31)   \
  QP_DPBUSD(pfx, w, 15, 30, 31)

// Registers 16..31 exist (and can be named as clobbered) only with AVX-512.
__attribute__((noinline, target("avx512f"))) void vpdpbusd_zmm(std::int64_t loops) {
  asm volatile(QP_LOOP_BEGIN QP_DPBUSD_16("", z) QP_LOOP_END : "+r"(loops) : : QP_CLOBBER_32);
}
__attribute__((noinline, target("avx512f"))) void vpdpbusd_ymm(std::int64_t loops) {
  asm volatile(QP_LOOP_BEGIN QP_DPBUSD_16("", y) QP_LOOP_END : "+r"(loops) : : QP_CLOBBER_32);
}
// {vex} VPDPBUSD (AVX-VNNI; braces are escaped in extended asm) reaches ymm15 at most: 12 chains, sources 14, 15.
__attribute__((noinline)) void vpdpbusd_vex_ymm(std::int64_t loops) {
  asm volatile(QP_LOOP_BEGIN
               QP_DPBUSD("%{vex%} ", y, 0, 14, 15) QP_DPBUSD("%{vex%} ", y, 1, 14, 15)
               QP_DPBUSD("%{vex%} ", y, 2, 14, 15) QP_DPBUSD("%{vex%} ", y, 3, 14, 15)
               QP_DPBUSD("%{vex%} ", y, 4, 14, 15) QP_DPBUSD("%{vex%} ", y, 5, 14, 15)
               QP_DPBUSD("%{vex%} ", y, 6, 14, 15) QP_DPBUSD("%{vex%} ", y, 7, 14, 15)
               QP_DPBUSD("%{vex%} ", y, 8, 14, 15) QP_DPBUSD("%{vex%} ", y, 9, 14, 15)
               QP_DPBUSD("%{vex%} ", y, 10, 14, 15) QP_DPBUSD("%{vex%} ", y, 11, 14, 15)
               QP_LOOP_END
               : "+r"(loops) : : QP_CLOBBER_16);
}

// VPMADDWD + VPADDD: 6 chains (accumulators 0..5, products 6..11), sources 14, 15; only registers
// below 16, so the same sequence serves AVX2 (ymm) and AVX-512 (zmm).
#define QP_MADDWD_6(w)                                                                        \
  QP_MADDWD(w, 0, 6, 14, 15) QP_MADDWD(w, 1, 7, 14, 15) QP_MADDWD(w, 2, 8, 14, 15)            \
  QP_MADDWD(w, 3, 9, 14, 15) QP_MADDWD(w, 4, 10, 14, 15) QP_MADDWD(w, 5, 11, 14, 15)
__attribute__((noinline)) void vpmaddwd_zmm(std::int64_t loops) {
  asm volatile(QP_LOOP_BEGIN QP_MADDWD_6(z) QP_LOOP_END : "+r"(loops) : : QP_CLOBBER_16);
}
__attribute__((noinline)) void vpmaddwd_ymm(std::int64_t loops) {
  asm volatile(QP_LOOP_BEGIN QP_MADDWD_6(y) QP_LOOP_END : "+r"(loops) : : QP_CLOBBER_16);
}

// VPMADDUBSW + VPMADDWD(ones) + VPADDD: 6 chains (accumulators 0..5, products 6..11), u8 source 13,
// s8 source 14, ones 15.
#define QP_MADDUBSW_6(w)                                                                           \
  QP_MADDUBSW(w, 0, 6, 13, 14, 15) QP_MADDUBSW(w, 1, 7, 13, 14, 15)                                \
  QP_MADDUBSW(w, 2, 8, 13, 14, 15) QP_MADDUBSW(w, 3, 9, 13, 14, 15)                                \
  QP_MADDUBSW(w, 4, 10, 13, 14, 15) QP_MADDUBSW(w, 5, 11, 13, 14, 15)
__attribute__((noinline)) void vpmaddubsw_pair_zmm(std::int64_t loops) {
  asm volatile(QP_LOOP_BEGIN QP_MADDUBSW_6(z) QP_LOOP_END : "+r"(loops) : : QP_CLOBBER_16);
}
__attribute__((noinline)) void vpmaddubsw_pair_ymm(std::int64_t loops) {
  asm volatile(QP_LOOP_BEGIN QP_MADDUBSW_6(y) QP_LOOP_END : "+r"(loops) : : QP_CLOBBER_16);
}

// VFMADD231PS: 16 chains (accumulators 0..15, sources 30, 31 with AVX-512; 12 chains, sources
// 14, 15 for ymm without AVX-512), enough to cover the FMA latency (4 cycles) at two per cycle.
#define QP_FMA(w, acc, x, y) "vfmadd231ps " QP_REG(w, y) ", " QP_REG(w, x) ", " QP_REG(w, acc) "\n\t"
__attribute__((noinline, target("avx512f"))) void vfmadd_zmm(std::int64_t loops) {
  asm volatile(QP_LOOP_BEGIN
               QP_FMA(z, 0, 30, 31) QP_FMA(z, 1, 30, 31) QP_FMA(z, 2, 30, 31) QP_FMA(z, 3, 30, 31)
               QP_FMA(z, 4, 30, 31) QP_FMA(z, 5, 30, 31) QP_FMA(z, 6, 30, 31) QP_FMA(z, 7, 30, 31)
               QP_FMA(z, 8, 30, 31) QP_FMA(z, 9, 30, 31) QP_FMA(z, 10, 30, 31) QP_FMA(z, 11, 30, 31)
               QP_FMA(z, 12, 30, 31) QP_FMA(z, 13, 30, 31) QP_FMA(z, 14, 30, 31) QP_FMA(z, 15, 30, 31)
               QP_LOOP_END
               : "+r"(loops) : : QP_CLOBBER_32);
}
__attribute__((noinline, target("avx2,fma"))) void vfmadd_ymm(std::int64_t loops) {
  asm volatile(QP_LOOP_BEGIN
               QP_FMA(y, 0, 14, 15) QP_FMA(y, 1, 14, 15) QP_FMA(y, 2, 14, 15) QP_FMA(y, 3, 14, 15)
               QP_FMA(y, 4, 14, 15) QP_FMA(y, 5, 14, 15) QP_FMA(y, 6, 14, 15) QP_FMA(y, 7, 14, 15)
               QP_FMA(y, 8, 14, 15) QP_FMA(y, 9, 14, 15) QP_FMA(y, 10, 14, 15) QP_FMA(y, 11, 14, 15)
               QP_LOOP_END
               : "+r"(loops) : : QP_CLOBBER_16);
}

// TDPBUSD: tiles 0..3 accumulate (16 rows x 64 bytes each), 4 and 5 are the u8 sources, 6 and 7 the
// s8 ones; every tile configured 16 x 64 (palette 1), as qparity's kernel configures them, from the
// same definition of LDTILECFG's operand (kernels/gemm/amx_tile_config.h).
#define QP_TDPBUSD(c, a, b) "tdpbusd %%tmm" QP_STR(b) ", %%tmm" QP_STR(a) ", %%tmm" QP_STR(c) "\n\t"
void tdpbusd_tile(std::int64_t loops) {
#if defined(__x86_64__)
  static constexpr qparity::internal::AmxTileConfig config =
      qparity::internal::uniform_amx_tile_config(16, 64);
  asm volatile("ldtilecfg %0\n\t"
               "tilezero %%tmm4\n\t" "tilezero %%tmm5\n\t" "tilezero %%tmm6\n\t" "tilezero %%tmm7\n\t"
               : : "m"(config) : "memory");
  asm volatile(QP_LOOP_BEGIN
               QP_TDPBUSD(0, 4, 6) QP_TDPBUSD(1, 4, 7) QP_TDPBUSD(2, 5, 6) QP_TDPBUSD(3, 5, 7)
               "dec %0\n\t" "jnz 1b\n\t"
               : "+r"(loops) : : "cc");
  asm volatile("tilerelease" : :);
#else
  (void)loops;
#endif
}

// __builtin_cpu_supports also checks that the OS saves the vector state (XGETBV).
bool has_avx2() { return __builtin_cpu_supports("avx2"); }
bool has_avx512bw() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
}
bool has_avx512vnni() { return has_avx512bw() && __builtin_cpu_supports("avx512vnni"); }
bool has_avx512vnni_vl() { return has_avx512vnni() && __builtin_cpu_supports("avx512vl"); }
bool has_avxvnni() { return __builtin_cpu_supports("avxvnni"); }
bool has_avx512f() { return __builtin_cpu_supports("avx512f"); }
bool has_avx2_fma() { return has_avx2() && __builtin_cpu_supports("fma"); }
/// AMX in qparity's own dispatch's sense: CPUID, the tile state in XCR0 and Linux's per-process
/// permission, which supported_isas() requests (kernels/dispatch/amx_permission.h).
bool has_amx_int8() {
  return (qparity::supported_isas() & qparity::mask_of(qparity::Isa::kAmx)) != 0;
}

struct Peak {
  const char* name;
  const char* limits;    ///< the qparity paths this sequence limits (the row's label)
  const char* requires;  ///< what `available` checks, for the skip message
  bool (*available)();
  void (*loop)(std::int64_t loops);
  double macs_per_loop;  ///< multiply-accumulates of one loop iteration
};

// MACs per instruction group: 16 x 16 x 64 per TDPBUSD, 4 per int32 lane for VPDPBUSD and the
// VPMADDUBSW triple (16 lanes in zmm, 8 in ymm), 2 per lane for VPMADDWD, 1 per float32 lane for
// VFMADD231PS.
const Peak kPeaks[] = {
    {"peak/vpdpbusd/zmm", "limit of qparity avx512vnni (exact, kDot4)", "AVX512-VNNI",
     has_avx512vnni, vpdpbusd_zmm, 16 * 64.0},
    {"peak/vpdpbusd/ymm", "EVEX ymm form; qparity's avx512vnni kernels use zmm", "AVX512-VNNI + VL",
     has_avx512vnni_vl, vpdpbusd_ymm, 16 * 32.0},
    {"peak/vpdpbusd_vex/ymm", "limit of qparity avxvnni (exact, kDot4)", "AVX-VNNI", has_avxvnni,
     vpdpbusd_vex_ymm, 12 * 32.0},
    {"peak/vpmaddwd_vpaddd/zmm", "limit of qparity avx512 (exact int16 pairs, kPairs16)",
     "AVX-512BW", has_avx512bw, vpmaddwd_zmm, 6 * 32.0},
    {"peak/vpmaddwd_vpaddd/ymm", "limit of qparity avx2 (exact int16 pairs, kPairs16)", "AVX2",
     has_avx2, vpmaddwd_ymm, 6 * 16.0},
    {"peak/vpmaddubsw_pair/zmm",
     "limit of qparity avx512 and avx512vnni pair-saturating model (u8 x s8)", "AVX-512BW",
     has_avx512bw, vpmaddubsw_pair_zmm, 6 * 64.0},
    {"peak/vpmaddubsw_pair/ymm", "limit of qparity avx2 pair-saturating model (u8 x s8)", "AVX2",
     has_avx2, vpmaddubsw_pair_ymm, 6 * 32.0},
    {"peak/tdpbusd/tile", "limit of qparity amx (exact, kRows64)", "AMX-INT8 (and the OS's permission)",
     has_amx_int8, tdpbusd_tile, 4 * 16.0 * 16.0 * 64.0},
    {"peak/vfmadd231ps/zmm", "limit of the unfused-QDQ float32 sums (qdq_fma avx512) and of MLAS SGEMM",
     "AVX-512F", has_avx512f, vfmadd_zmm, 16 * 16.0},
    {"peak/vfmadd231ps/ymm", "limit of the unfused-QDQ float32 sums (qdq_fma avx2)", "AVX2 + FMA", has_avx2_fma,
     vfmadd_ymm, 12 * 8.0},
};

void peak_row(benchmark::State& state, const Peak* p) {
  if (!p->available()) {
    state.SkipWithError((std::string("this CPU lacks ") + p->requires).c_str());
    return;
  }
  for (auto _ : state) p->loop(kLoops);
  state.counters["OPS"] = benchmark::Counter(
      2.0 * p->macs_per_loop * static_cast<double>(kLoops) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
  state.SetLabel(p->limits);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  for (const Peak& p : kPeaks) benchmark::RegisterBenchmark(p.name, peak_row, &p);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
