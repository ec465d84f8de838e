// The AVX2 + FMA path of qdq_fma_kernel.h (compiled with -mavx2 -mfma, tools/model/CMakeLists.txt).
#define QPARITY_QDQ_FMA_NS avx2
#include "model/onnx/qdq_fma_kernel_body.h"

namespace qparity::model::qdq_fma {
void run_avx2(const Block& block) { avx2::run_block(block); }
}  // namespace qparity::model::qdq_fma
