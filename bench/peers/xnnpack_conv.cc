// XNNPACK convolution peer (see xnnpack_conv.h).
#include "bench/peers/xnnpack_conv.h"

#include <xnnpack.h>

#include <stdexcept>

#include "bench/peers/xnnpack_fc.h"
#include "bench/peers/xnnpack_thread_pool.h"

namespace qparity_peers {

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

bool in_int8(std::int32_t v) { return v >= -128 && v <= 127; }

}  // namespace

struct XnnpackConv::State {
  xnn_operator_t op = nullptr;
  ConvShape shape;
  bool per_channel = false;
  const std::int8_t* set_up_input = nullptr;
  std::int8_t* set_up_out = nullptr;
  XnnpackThreadPool pool;
  ~State() {
    if (op != nullptr) xnn_delete_operator(op);
  }
};

XnnpackConv::XnnpackConv(std::unique_ptr<State> state) : state_(std::move(state)) {}
XnnpackConv::~XnnpackConv() = default;

std::unique_ptr<XnnpackConv> XnnpackConv::create(const ConvShape& shape, const std::int8_t* filter,
                                                 const XnnpackConvQuantization& q,
                                                 std::string* error) {
  const auto fail = [&](const std::string& why) -> std::unique_ptr<XnnpackConv> {
    if (error != nullptr) *error = "XNNPACK convolution " + to_string(shape) + ": " + why;
    return nullptr;
  };
  const std::size_t oc = shape.total_out_channels(), groups = shape.total_groups();
  if (shape.in_channels == 0 || oc == 0 || groups == 0 || shape.in_channels % groups != 0 ||
      oc % groups != 0) {
    return fail("channel counts must be non-zero multiples of groups");
  }
  if (q.kernel_scales.size() != 1 && q.kernel_scales.size() != oc) {
    return fail("kernel_scales must hold 1 or out_channels values");
  }
  if (!q.bias.empty() && q.bias.size() != oc)
    return fail("bias must be empty or hold out_channels values");
  if (!in_int8(q.input_zero_point) || !in_int8(q.output_zero_point) || !in_int8(q.output_min) ||
      !in_int8(q.output_max)) {
    return fail("zero points and output bounds must be in the int8 range");
  }
  // xnnpack_fc.h owns XNNPACK's once-per-process initialisation (and its allocator).
  std::string why;
  if (!xnnpack_available(&why)) return fail(why);

  auto state = std::make_unique<State>();
  state->shape = shape;
  state->per_channel = q.kernel_scales.size() > 1;
  const std::int32_t* bias = q.bias.empty() ? nullptr : q.bias.data();
  std::uint32_t flags = 0;
  if (shape.depthwise) flags |= XNN_FLAG_DEPTHWISE_CONVOLUTION;
  // XNNPACK computes TensorFlow SAME padding itself (the explicit paddings must then be 0).
  if (shape.tf_same) flags |= XNN_FLAG_TENSORFLOW_SAME_PADDING;
  const auto pad = [&](std::size_t v) {
    return shape.tf_same ? 0u : static_cast<std::uint32_t>(v);
  };
  const auto u32 = [](std::size_t v) { return static_cast<std::uint32_t>(v); };
  const std::size_t group_in = shape.in_channels / groups, group_out = oc / groups;
  xnn_status s;
  if (state->per_channel) {
    s = xnn_create_convolution2d_nhwc_qc8(
        pad(shape.pad_top), pad(shape.pad_right), pad(shape.pad_bottom), pad(shape.pad_left),
        u32(shape.kernel_h), u32(shape.kernel_w), u32(shape.stride_h), u32(shape.stride_w),
        u32(shape.dilation_h), u32(shape.dilation_w), u32(groups), group_in, group_out,
        /*input_channel_stride=*/shape.in_channels,
        /*output_channel_stride=*/oc, static_cast<std::int8_t>(q.input_zero_point), q.input_scale,
        q.kernel_scales.data(), filter, bias, static_cast<std::int8_t>(q.output_zero_point),
        q.output_scale, static_cast<std::int8_t>(q.output_min),
        static_cast<std::int8_t>(q.output_max), flags, &state->op);
  } else {
    s = xnn_create_convolution2d_nhwc_qs8(
        pad(shape.pad_top), pad(shape.pad_right), pad(shape.pad_bottom), pad(shape.pad_left),
        u32(shape.kernel_h), u32(shape.kernel_w), u32(shape.stride_h), u32(shape.stride_w),
        u32(shape.dilation_h), u32(shape.dilation_w), u32(groups), group_in, group_out,
        shape.in_channels, oc, static_cast<std::int8_t>(q.input_zero_point), q.input_scale,
        q.kernel_scales[0], filter, bias, static_cast<std::int8_t>(q.output_zero_point),
        q.output_scale, static_cast<std::int8_t>(q.output_min),
        static_cast<std::int8_t>(q.output_max), flags, &state->op);
  }
  if (s != xnn_status_success) {
    return fail(std::string("xnn_create_convolution2d_nhwc_") +
                (state->per_channel ? "qc8" : "qs8") + ": " + status_name(s));
  }
  return std::unique_ptr<XnnpackConv>(new XnnpackConv(std::move(state)));
}

void XnnpackConv::set_threads(std::size_t threads) {
  State& st = *state_;
  st.pool.set_threads(threads);
  // Setup splits the work for the pool's thread count: force it again on the next run.
  st.set_up_input = nullptr;
  st.set_up_out = nullptr;
}

void XnnpackConv::run(const std::int8_t* input, std::int8_t* out) {
  State& st = *state_;
  if (input != st.set_up_input || out != st.set_up_out) {
    // Setup builds the indirection buffer for these pointers; an engine does it once per buffers.
    const xnn_status s =
        st.per_channel
            ? xnn_setup_convolution2d_nhwc_qc8(st.op, st.shape.batch, st.shape.in_h, st.shape.in_w,
                                               input, out, st.pool.get())
            : xnn_setup_convolution2d_nhwc_qs8(st.op, st.shape.batch, st.shape.in_h, st.shape.in_w,
                                               input, out, st.pool.get());
    if (s != xnn_status_success) {
      throw std::runtime_error(std::string("XNNPACK convolution setup failed: ") + status_name(s));
    }
    st.set_up_input = input;
    st.set_up_out = out;
  }
  const xnn_status s = xnn_run_operator(st.op, st.pool.get());
  if (s != xnn_status_success) {
    throw std::runtime_error(std::string("xnn_run_operator failed: ") + status_name(s));
  }
}

std::string XnnpackConv::operator_name() const {
  return std::string("convolution2d_nhwc_") + (state_->per_channel ? "qc8" : "qs8") +
         (state_->shape.depthwise ? " (depthwise)" : "");
}

}  // namespace qparity_peers
