// The AVX-512F + FMA path of qdq_fma_kernel.h (compiled with -mavx512f -mfma, tools/model/CMakeLists.txt).
#define QPARITY_QDQ_FMA_NS avx512
#include "model/onnx/qdq_fma_kernel_body.h"

namespace qparity::model::qdq_fma {
void run_avx512(const Block& block) { avx512::run_block(block); }
}  // namespace qparity::model::qdq_fma
