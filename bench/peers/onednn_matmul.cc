// oneDNN int8 matmul peer (see onednn_matmul.h for the two quantization models).
#include "bench/peers/onednn_matmul.h"

#include <cctype>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>

#if defined(QPARITY_PEER_HAVE_OPENMP)
#include <omp.h>
#endif

#include "kernels/support/aligned_buffer.h"

namespace qparity_peers {

using qparity::internal::AlignedBuffer;

namespace {

using dnnl::memory;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

// Names as in ONEDNN_MAX_CPU_ISA, lowercase (oneDNN 2.6's dnnl_cpu_isa_t values).
const std::vector<std::pair<dnnl::cpu_isa, const char*>>& isa_names() {
  static const std::vector<std::pair<dnnl::cpu_isa, const char*>> names = {
      {dnnl::cpu_isa::all, "all"},
      {dnnl::cpu_isa::sse41, "sse41"},
      {dnnl::cpu_isa::avx, "avx"},
      {dnnl::cpu_isa::avx2, "avx2"},
      {dnnl::cpu_isa::avx2_vnni, "avx2_vnni"},
      {dnnl::cpu_isa::avx512_mic, "avx512_mic"},
      {dnnl::cpu_isa::avx512_mic_4ops, "avx512_mic_4ops"},
      {dnnl::cpu_isa::avx512_core, "avx512_core"},
      {dnnl::cpu_isa::avx512_core_vnni, "avx512_core_vnni"},
      {dnnl::cpu_isa::avx512_core_bf16, "avx512_core_bf16"},
      {dnnl::cpu_isa::avx512_core_amx, "avx512_core_amx"},
  };
  return names;
}

bool in_int8(std::int32_t v) { return v >= -128 && v <= 127; }

}  // namespace

struct OnednnMatmul::State {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::matmul primitive;
  std::string implementation;
  memory src, dst, packed_weights, bias, scratchpad;
  AlignedBuffer<std::uint8_t> packed_weight_storage, scratchpad_storage;
  AlignedBuffer<float> bias_storage;
  std::unordered_map<int, memory> args;
};

OnednnMatmul::OnednnMatmul(std::unique_ptr<State> state) : state_(std::move(state)) {}
OnednnMatmul::~OnednnMatmul() = default;

std::unique_ptr<OnednnMatmul> OnednnMatmul::create(const GemmShape& shape,
                                                   const std::int8_t* weights,
                                                   const OnednnMatmulQuantization& q,
                                                   std::string* error) {
  const auto fail = [&](const std::string& why) -> std::unique_ptr<OnednnMatmul> {
    if (error != nullptr) *error = "oneDNN matmul " + to_string(shape) + ": " + why;
    return nullptr;
  };
  if (shape.m == 0 || shape.n == 0 || shape.k == 0) return fail("empty shape");
  if (q.wei_scales.size() != 1 && q.wei_scales.size() != shape.n) {
    return fail("wei_scales must hold 1 or N values");
  }
  if (!q.bias.empty() && q.bias.size() != shape.n) {
    return fail("bias must be empty or hold N values");
  }
  if (!in_int8(q.src_zero_point) || !in_int8(q.wei_zero_point) || !in_int8(q.dst_zero_point)) {
    return fail("zero points must be in the int8 range");
  }
  if (q.model == OnednnScaleModel::kOutputScales && q.activation != OnednnActivation::kNone) {
    // In the 2.x model a post-op sees output units, where a real-valued bound is not exact.
    return fail("activations are only offered with the two-step scale model");
  }
  try {
    auto state = std::make_unique<State>();
    const auto m = static_cast<memory::dim>(shape.m), n = static_cast<memory::dim>(shape.n),
               k = static_cast<memory::dim>(shape.k);
    const bool per_channel = q.wei_scales.size() == shape.n && shape.n > 1;
    const memory::desc src_md({m, k}, dt::s8, tag::ab);
    const memory::desc any_wei_md({k, n}, dt::s8, tag::any);
    const memory::desc dst_md({m, n}, dt::s8, tag::ab);
    const memory::desc bias_md({1, n}, dt::f32, tag::ab);

    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    std::vector<float> output_scales(q.wei_scales.size());
    dnnl::post_ops post_ops;
    for (std::size_t j = 0; j < output_scales.size(); ++j) {
      const float src_x_wei = q.src_scale * q.wei_scales[j];  // one float rounding
      output_scales[j] =
          q.model == OnednnScaleModel::kOutputScales ? src_x_wei / q.dst_scale : src_x_wei;
    }
    // Mask bit 1: one scale per index of dimension 1 (N) of the 2D destination.
    attr.set_output_scales(per_channel ? (1 << 1) : 0, output_scales);
    if (q.src_zero_point != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {q.src_zero_point});
    if (q.wei_zero_point != 0) attr.set_zero_points(DNNL_ARG_WEIGHTS, 0, {q.wei_zero_point});
    if (q.dst_zero_point != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {q.dst_zero_point});
    const bool bias_in_primitive = !q.bias.empty() && q.model == OnednnScaleModel::kOutputScales;
    const bool bias_as_post_op = !q.bias.empty() && q.model == OnednnScaleModel::kTwoStepScales;
    if (bias_as_post_op) post_ops.append_binary(dnnl::algorithm::binary_add, bias_md);
    switch (q.activation) {
      case OnednnActivation::kNone:
        break;
      case OnednnActivation::kRelu:
        post_ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
        break;
      case OnednnActivation::kRelu6:
        post_ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, 0.0f, 6.0f);
        break;
    }
    if (q.model == OnednnScaleModel::kTwoStepScales) {
      // oneDNN 3.x loads the dst scale as its inverse (1.f / s) and multiplies.
      post_ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, 1.0f / q.dst_scale, 0.0f);
    }
    attr.set_post_ops(post_ops);

    const dnnl::matmul::desc desc = bias_in_primitive
                                        ? dnnl::matmul::desc(src_md, any_wei_md, bias_md, dst_md)
                                        : dnnl::matmul::desc(src_md, any_wei_md, dst_md);
    const dnnl::matmul::primitive_desc pd(desc, attr, state->engine);
    state->implementation = pd.impl_info_str();
    state->primitive = dnnl::matmul(pd);

    // Weights: the caller's N x K row-major matrix is dims {K, N} in "ba" order; reorder it into
    // the layout the kernel chose (this also computes oneDNN's s8 compensation, if any).
    const memory::desc user_wei_md({k, n}, dt::s8, tag::ba);
    AlignedBuffer<std::int8_t> user_weights(shape.n * shape.k);
    std::memcpy(user_weights.data(), weights, shape.n * shape.k);
    memory user_wei(user_wei_md, state->engine, user_weights.data());
    state->packed_weight_storage = AlignedBuffer<std::uint8_t>(pd.weights_desc().get_size());
    state->packed_weights =
        memory(pd.weights_desc(), state->engine, state->packed_weight_storage.data());
    dnnl::reorder(user_wei, state->packed_weights)
        .execute(state->stream, user_wei, state->packed_weights);
    state->stream.wait();

    state->scratchpad_storage = AlignedBuffer<std::uint8_t>(pd.scratchpad_desc().get_size());
    state->scratchpad =
        memory(pd.scratchpad_desc(), state->engine, state->scratchpad_storage.data());
    state->src = memory(src_md, state->engine, nullptr);
    state->dst = memory(dst_md, state->engine, nullptr);
    state->args = {{DNNL_ARG_SRC, state->src},
                   {DNNL_ARG_WEIGHTS, state->packed_weights},
                   {DNNL_ARG_DST, state->dst},
                   {DNNL_ARG_SCRATCHPAD, state->scratchpad}};
    if (!q.bias.empty()) {
      state->bias_storage = AlignedBuffer<float>(q.bias);
      state->bias = memory(bias_md, state->engine, state->bias_storage.data());
      // The binary post-op is entry 0 of the chain whenever it is present.
      state->args[bias_in_primitive ? DNNL_ARG_BIAS
                                    : (DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1)] =
          state->bias;
    }
    return std::unique_ptr<OnednnMatmul>(new OnednnMatmul(std::move(state)));
  } catch (const dnnl::error& e) {
    return fail(std::string(e.what()) + " (status " + std::to_string(e.status) + ")");
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

void OnednnMatmul::run(const std::int8_t* a, std::int8_t* c) {
  try {
    state_->src.set_data_handle(const_cast<std::int8_t*>(a));
    state_->dst.set_data_handle(c);
    state_->primitive.execute(state_->stream, state_->args);
    state_->stream.wait();
  } catch (const dnnl::error& e) {
    throw std::runtime_error(std::string("oneDNN matmul failed: ") + e.what());
  }
}

const std::string& OnednnMatmul::implementation() const { return state_->implementation; }

std::size_t OnednnMatmul::packed_weight_bytes() const {
  return state_->packed_weight_storage.size();
}

bool onednn_available(std::string* why) {
  try {
    if (dnnl::engine::get_count(dnnl::engine::kind::cpu) == 0) {
      if (why != nullptr) *why = "oneDNN reports no CPU engine";
      return false;
    }
    const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return true;
  } catch (const dnnl::error& e) {
    if (why != nullptr) *why = std::string("oneDNN CPU engine: ") + e.what();
    return false;
  }
}

std::string onednn_version() {
  const dnnl_version_t* v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

std::string onednn_effective_isa() {
  const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
  for (const auto& entry : isa_names()) {
    if (entry.first == isa) return entry.second;
  }
  return "unknown(" + std::to_string(static_cast<int>(isa)) + ")";
}

bool onednn_cap_isa(const std::string& isa, std::string* error) {
  std::string lower = isa;
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const auto& entry : isa_names()) {
    if (lower != entry.second) continue;
    // oneDNN refuses once the ISA has been queried or any kernel generated.
    const dnnl::status status = dnnl::set_max_cpu_isa(entry.first);
    if (status == dnnl::status::success) return true;
    if (error != nullptr) {
      *error = std::string("dnnl::set_max_cpu_isa(") + entry.second + ") returned status " +
               std::to_string(static_cast<int>(status));
    }
    return false;
  }
  if (error != nullptr) *error = "unknown oneDNN ISA name '" + isa + "'";
  return false;
}

bool onednn_set_max_threads(int threads) {
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP && defined(QPARITY_PEER_HAVE_OPENMP)
  omp_set_num_threads(threads);
  return true;
#else
  (void)threads;
  return false;
#endif
}

int onednn_set_primitive_cache_capacity(int capacity) {
  const int previous = dnnl::get_primitive_cache_capacity();
  dnnl::set_primitive_cache_capacity(capacity);
  return previous;
}

}  // namespace qparity_peers
