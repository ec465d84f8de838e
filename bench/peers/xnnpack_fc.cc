// XNNPACK fully-connected peer (see xnnpack_fc.h).
#include "bench/peers/xnnpack_fc.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

#include <xnnpack.h>

#include "kernels/support/aligned_buffer.h"
#include "bench/peers/xnnpack_thread_pool.h"

namespace qparity_peers {

using qparity::internal::kBufferAlignment;

namespace {

const char* status_name(xnn_status s) {
  switch (s) {
    case xnn_status_success:
      return "success";
    case xnn_status_uninitialized:
      return "uninitialized";
    case xnn_status_invalid_parameter:
      return "invalid_parameter";
    case xnn_status_invalid_state:
      return "invalid_state";
    case xnn_status_unsupported_parameter:
      return "unsupported_parameter";
    case xnn_status_unsupported_hardware:
      return "unsupported_hardware";
    case xnn_status_out_of_memory:
      return "out_of_memory";
  }
  return "unknown";
}

// XNNPACK's SIMD buffers (packed weights, the packed bias and scales) come from
// aligned_allocate; rounding every request up to 64 bytes keeps them on cache-line boundaries
// whatever alignment this snapshot asks for.
// (std::aligned_alloc wants a non-zero multiple of the alignment.) Reallocation is only used for
// XNNPACK's bookkeeping arrays, which no kernel reads with vector loads.
void* aligned_allocate64(void*, size_t alignment, size_t size) {
  const size_t a = alignment > kBufferAlignment ? alignment : kBufferAlignment;
  const size_t bytes = size == 0 ? a : (size + a - 1) / a * a;
  return std::aligned_alloc(a, bytes);
}
void* allocate64(void* context, size_t size) {
  return aligned_allocate64(context, kBufferAlignment, size);
}
void* reallocate(void*, void* p, size_t size) { return std::realloc(p, size); }
void deallocate(void*, void* p) { std::free(p); }

const xnn_allocator kAllocator = {nullptr,    allocate64,         reallocate,
                                  deallocate, aligned_allocate64, deallocate};

/// xnn_initialize once per process; its status, for every later caller.
xnn_status initialize_once() {
  static const xnn_status status = xnn_initialize(&kAllocator);
  return status;
}

bool in_int8(std::int32_t v) { return v >= -128 && v <= 127; }

}  // namespace

struct XnnpackFullyConnected::State {
  xnn_operator_t op = nullptr;
  GemmShape shape;
  bool per_channel = false;
  const std::int8_t* set_up_a = nullptr;
  std::int8_t* set_up_c = nullptr;
  XnnpackThreadPool pool;
  ~State() {
    if (op != nullptr) xnn_delete_operator(op);
  }
};

XnnpackFullyConnected::XnnpackFullyConnected(std::unique_ptr<State> state)
    : state_(std::move(state)) {}
XnnpackFullyConnected::~XnnpackFullyConnected() = default;

std::unique_ptr<XnnpackFullyConnected> XnnpackFullyConnected::create(const GemmShape& shape,
                                                                     const std::int8_t* weights,
                                                                     const XnnpackFcQuantization& q,
                                                                     std::string* error) {
  const auto fail = [&](const std::string& why) -> std::unique_ptr<XnnpackFullyConnected> {
    if (error != nullptr) *error = "XNNPACK fully-connected " + to_string(shape) + ": " + why;
    return nullptr;
  };
  if (shape.m == 0 || shape.n == 0 || shape.k == 0) return fail("empty shape");
  if (q.kernel_scales.size() != 1 && q.kernel_scales.size() != shape.n) {
    return fail("kernel_scales must hold 1 or N values");
  }
  if (!q.bias.empty() && q.bias.size() != shape.n) {
    return fail("bias must be empty or hold N values");
  }
  if (!in_int8(q.input_zero_point) || !in_int8(q.output_zero_point) || !in_int8(q.output_min) ||
      !in_int8(q.output_max)) {
    return fail("zero points and output bounds must be in the int8 range");
  }
  const xnn_status init = initialize_once();
  if (init != xnn_status_success) return fail(std::string("xnn_initialize: ") + status_name(init));

  auto state = std::make_unique<State>();
  state->shape = shape;
  state->per_channel = q.kernel_scales.size() > 1;
  const std::int32_t* bias = q.bias.empty() ? nullptr : q.bias.data();
  xnn_status s;
  if (state->per_channel) {
    s = xnn_create_convolution2d_nhwc_qc8(
        /*padding top, right, bottom, left=*/0, 0, 0, 0, /*kernel h, w=*/1, 1,
        /*subsampling h, w=*/1, 1, /*dilation h, w=*/1, 1, /*groups=*/1,
        /*group_input_channels=*/shape.k, /*group_output_channels=*/shape.n,
        /*input_channel_stride=*/shape.k, /*output_channel_stride=*/shape.n,
        static_cast<std::int8_t>(q.input_zero_point), q.input_scale, q.kernel_scales.data(),
        weights, bias, static_cast<std::int8_t>(q.output_zero_point), q.output_scale,
        static_cast<std::int8_t>(q.output_min), static_cast<std::int8_t>(q.output_max),
        /*flags=*/0, &state->op);
  } else {
    s = xnn_create_fully_connected_nc_qs8(
        /*input_channels=*/shape.k, /*output_channels=*/shape.n, /*input_stride=*/shape.k,
        /*output_stride=*/shape.n, static_cast<std::int8_t>(q.input_zero_point), q.input_scale,
        q.kernel_scales[0], weights, bias, static_cast<std::int8_t>(q.output_zero_point),
        q.output_scale, static_cast<std::int8_t>(q.output_min),
        static_cast<std::int8_t>(q.output_max), /*flags=*/0, &state->op);
  }
  if (s != xnn_status_success) {
    return fail(std::string("xnn_create_") +
                (state->per_channel ? "convolution2d_nhwc_qc8" : "fully_connected_nc_qs8") + ": " +
                status_name(s));
  }
  return std::unique_ptr<XnnpackFullyConnected>(new XnnpackFullyConnected(std::move(state)));
}

void XnnpackFullyConnected::set_threads(std::size_t threads) {
  State& st = *state_;
  st.pool.set_threads(threads);
  // Setup splits the work for the pool's thread count: force it again on the next run.
  st.set_up_a = nullptr;
  st.set_up_c = nullptr;
}

void XnnpackFullyConnected::run(const std::int8_t* a, std::int8_t* c) {
  State& st = *state_;
  if (a != st.set_up_a || c != st.set_up_c) {
    // Setup binds the pointers and computes the tiling; done again only when they change, as an
    // inference engine does between runs on the same buffers.
    const xnn_status s =
        st.per_channel
            ? xnn_setup_convolution2d_nhwc_qc8(st.op, /*batch_size=*/st.shape.m,
                                               /*input_height=*/1, /*input_width=*/1, a, c,
                                               st.pool.get())
            : xnn_setup_fully_connected_nc_qs8(st.op, /*batch_size=*/st.shape.m, a, c,
                                               st.pool.get());
    if (s != xnn_status_success) {
      throw std::runtime_error(std::string("XNNPACK setup failed: ") + status_name(s));
    }
    st.set_up_a = a;
    st.set_up_c = c;
  }
  const xnn_status s = xnn_run_operator(st.op, st.pool.get());
  if (s != xnn_status_success) {
    throw std::runtime_error(std::string("xnn_run_operator failed: ") + status_name(s));
  }
}

const char* XnnpackFullyConnected::operator_name() const {
  return state_->per_channel ? "convolution2d_nhwc_qc8 (1x1)" : "fully_connected_nc_qs8";
}

bool xnnpack_available(std::string* why) {
  const xnn_status init = initialize_once();
  if (init == xnn_status_success) return true;
  if (why != nullptr) *why = std::string("xnn_initialize failed: ") + status_name(init);
  return false;
}

std::string xnnpack_gemm_isa() {
#if defined(__x86_64__) || defined(__i386__)
  // XNNPACK's x86 order: avx512skx (F+BW+DQ+VL), then xop, avx2, avx, sse4.1, sse2.
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")) {
    return "avx512skx";
  }
  if (__builtin_cpu_supports("xop")) return "xop";
  if (__builtin_cpu_supports("avx2")) return "avx2";
  if (__builtin_cpu_supports("avx")) return "avx";
  if (__builtin_cpu_supports("sse4.1")) return "sse41";
  return "sse2";
#else
  return "non-x86";
#endif
}

}  // namespace qparity_peers
