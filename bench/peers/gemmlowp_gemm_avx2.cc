// gemmlowp GEMM runner built for AVX2 (compiled with -mavx2 and GEMMLOWP_ENABLE_AVX2: gemmlowp
// selects AVX2_64_Kernel24x8Depth2 and its AVX2 output stages; it takes AVX2 only when asked,
// internal/detect_platform.h).
#define QPARITY_GEMMLOWP_NS qparity_peers_gemmlowp_avx2
#define QPARITY_GEMMLOWP_FACTORY new_gemmlowp_runner_avx2
#define QPARITY_GEMMLOWP_PER_CHANNEL 1
#include "bench/peers/gemmlowp_gemm_runner_impl.h"

#if !defined(GEMMLOWP_AVX2_64)
#error "gemmlowp_gemm_avx2.cc must be compiled for x86-64 with -mavx2 and GEMMLOWP_ENABLE_AVX2"
#endif
