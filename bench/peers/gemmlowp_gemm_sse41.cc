// gemmlowp GEMM runner built for SSE4.1 (compiled with -msse4.1, without GEMMLOWP_ENABLE_AVX2:
// gemmlowp selects SSE4_64_Kernel12x4Depth2 and its SSE output stages).
//
// No per-channel output stage: gemmlowp's SSE RoundingDivideByPOT takes one exponent for a whole
// register (SSE4.1 has no per-lane variable shift), so ...ExponentPC does not compile here.
#define QPARITY_GEMMLOWP_NS qparity_peers_gemmlowp_sse41
#define QPARITY_GEMMLOWP_FACTORY new_gemmlowp_runner_sse41
#define QPARITY_GEMMLOWP_PER_CHANNEL 0
#include "bench/peers/gemmlowp_gemm_runner_impl.h"

#if !defined(GEMMLOWP_SSE4_64) || defined(GEMMLOWP_AVX2)
#error "gemmlowp_gemm_sse41.cc needs x86-64, -msse4.1 and no GEMMLOWP_ENABLE_AVX2"
#endif
