// oneDNN int8 convolution peer (see onednn_conv.h).
#include "bench/peers/onednn_conv.h"

#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>
#include <stdexcept>
#include <unordered_map>

#include "kernels/support/aligned_buffer.h"

namespace qparity_peers {

using qparity::internal::AlignedBuffer;

namespace {

using dnnl::memory;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

bool in_range(std::int32_t v, bool is_unsigned) {
  return is_unsigned ? v >= 0 && v <= 255 : v >= -128 && v <= 127;
}

}  // namespace

struct OnednnConv::State {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::convolution_forward primitive;
  std::string implementation;
  float weights_scale_adjust = 1.0f;
  memory src, dst, packed_weights, bias, scratchpad, src_zp, dst_zp;
  AlignedBuffer<std::uint8_t> packed_weight_storage, scratchpad_storage;
  AlignedBuffer<float> bias_storage;
  std::int32_t src_zp_value = 0, dst_zp_value = 0;
  std::unordered_map<int, memory> args;
};

OnednnConv::OnednnConv(std::unique_ptr<State> state) : state_(std::move(state)) {}
OnednnConv::~OnednnConv() = default;

std::unique_ptr<OnednnConv> OnednnConv::create(const ConvShape& shape, const std::int8_t* filter,
                                               const OnednnConvQuantization& q,
                                               std::string* error) {
  const auto fail = [&](const std::string& why) -> std::unique_ptr<OnednnConv> {
    if (error != nullptr) *error = "oneDNN convolution " + to_string(shape) + ": " + why;
    return nullptr;
  };
  const std::size_t oc = shape.total_out_channels(), groups = shape.total_groups();
  if (shape.in_channels == 0 || oc == 0 || groups == 0 || shape.in_channels % groups != 0 ||
      oc % groups != 0) {
    return fail("channel counts must be non-zero multiples of groups");
  }
  if (q.wei_scales.size() != 1 && q.wei_scales.size() != oc)
    return fail("wei_scales must hold 1 or out_channels values");
  if (!q.bias.empty() && q.bias.size() != oc)
    return fail("bias must be empty or hold out_channels values");
  if (!in_range(q.src_zero_point, q.src_unsigned) || !in_range(q.dst_zero_point, q.dst_unsigned)) {
    return fail("zero points must be in their types' ranges");
  }
  if (q.model == OnednnScaleModel::kOutputScales && q.activation != OnednnActivation::kNone) {
    return fail("activations are only offered with the two-step scale model");
  }
  const ConvAxis ah = conv_axis_h(shape), aw = conv_axis_w(shape);
  if (ah.out == 0 || aw.out == 0) return fail("the kernel does not fit the padded input");
  try {
    auto state = std::make_unique<State>();
    using dim = memory::dim;
    const auto d = [](std::size_t v) { return static_cast<dim>(v); };
    const dim n = d(shape.batch), ic = d(shape.in_channels), oh = d(ah.out), ow = d(aw.out);
    const dim g = d(groups);
    const memory::desc src_md({n, ic, d(shape.in_h), d(shape.in_w)},
                              q.src_unsigned ? dt::u8 : dt::s8, tag::nhwc);
    const memory::desc dst_md({n, d(oc), oh, ow}, q.dst_unsigned ? dt::u8 : dt::s8, tag::nhwc);
    const bool grouped = groups > 1;
    const memory::dims wei_dims =
        grouped ? memory::dims{g, d(oc) / g, ic / g, d(shape.kernel_h), d(shape.kernel_w)}
                : memory::dims{d(oc), ic, d(shape.kernel_h), d(shape.kernel_w)};
    const memory::desc any_wei_md(wei_dims, dt::s8, tag::any);
    // TFLite's layouts: OHWI = [g][o][h][w][i] ("gohwi", or "ohwi" ungrouped); depthwise 1HWO =
    // [h][w][g][o] with i = 1 ("hwigo").
    const memory::desc user_wei_md(
        wei_dims, dt::s8, shape.depthwise ? tag::hwigo : (grouped ? tag::gohwi : tag::ohwi));
    const memory::desc bias_md({d(oc)}, dt::f32, tag::a);
    const memory::desc bias_post_md({1, d(oc), 1, 1}, dt::f32, tag::abcd);

    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    std::vector<float> output_scales(q.wei_scales.size());
    for (std::size_t j = 0; j < output_scales.size(); ++j) {
      const float src_x_wei = q.src_scale * q.wei_scales[j];  // one float rounding
      output_scales[j] =
          q.model == OnednnScaleModel::kOutputScales ? src_x_wei / q.dst_scale : src_x_wei;
    }
    // Mask bit 1: one scale per index of dimension 1 (output channels) of the destination.
    attr.set_output_scales(output_scales.size() > 1 ? (1 << 1) : 0, output_scales);
    // oneDNN 2.x convolutions take zero points only as run-time values (one per tensor).
    if (q.src_zero_point != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    if (q.dst_zero_point != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
    dnnl::post_ops post_ops;
    const bool bias_in_primitive = !q.bias.empty() && q.model == OnednnScaleModel::kOutputScales;
    const bool bias_as_post_op = !q.bias.empty() && q.model == OnednnScaleModel::kTwoStepScales;
    if (bias_as_post_op) post_ops.append_binary(dnnl::algorithm::binary_add, bias_post_md);
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

    // oneDNN's dilation counts the skipped pixels: TFLite's dilation - 1.
    const memory::dims strides{d(shape.stride_h), d(shape.stride_w)};
    const memory::dims dilates{d(shape.dilation_h) - 1, d(shape.dilation_w) - 1};
    const memory::dims pad_l{d(ah.before), d(aw.before)}, pad_r{d(ah.after), d(aw.after)};
    const auto desc =
        bias_in_primitive
            ? dnnl::convolution_forward::desc(
                  dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md,
                  any_wei_md, bias_md, dst_md, strides, dilates, pad_l, pad_r)
            : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                              dnnl::algorithm::convolution_direct, src_md,
                                              any_wei_md, dst_md, strides, dilates, pad_l, pad_r);
    const dnnl::convolution_forward::primitive_desc pd(desc, attr, state->engine);
    state->implementation = pd.impl_info_str();
    {
      const dnnl_memory_extra_desc_t& extra = pd.weights_desc().data.extra;
      if (extra.flags & dnnl_memory_extra_flag_scale_adjust)
        state->weights_scale_adjust = extra.scale_adjust;
    }
    state->primitive = dnnl::convolution_forward(pd);

    const std::size_t filter_bytes = user_wei_md.get_size();
    AlignedBuffer<std::int8_t> user_weights(filter_bytes);
    std::memcpy(user_weights.data(), filter, filter_bytes);
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
    const memory::desc zp_md({1}, dt::s32, tag::a);
    if (q.src_zero_point != 0) {
      state->src_zp_value = q.src_zero_point;
      state->src_zp = memory(zp_md, state->engine, &state->src_zp_value);
      state->args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = state->src_zp;
    }
    if (q.dst_zero_point != 0) {
      state->dst_zp_value = q.dst_zero_point;
      state->dst_zp = memory(zp_md, state->engine, &state->dst_zp_value);
      state->args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST] = state->dst_zp;
    }
    if (!q.bias.empty()) {
      state->bias_storage = AlignedBuffer<float>(q.bias);
      state->bias = memory(bias_in_primitive ? bias_md : bias_post_md, state->engine,
                           state->bias_storage.data());
      // The binary post-op is entry 0 of the chain whenever it is present.
      state->args[bias_in_primitive ? DNNL_ARG_BIAS
                                    : (DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1)] =
          state->bias;
    }
    return std::unique_ptr<OnednnConv>(new OnednnConv(std::move(state)));
  } catch (const dnnl::error& e) {
    return fail(std::string(e.what()) + " (status " + std::to_string(e.status) + ")");
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

void OnednnConv::run(const void* input, void* out) {
  try {
    state_->src.set_data_handle(const_cast<void*>(input));
    state_->dst.set_data_handle(out);
    state_->primitive.execute(state_->stream, state_->args);
    state_->stream.wait();
  } catch (const dnnl::error& e) {
    throw std::runtime_error(std::string("oneDNN convolution failed: ") + e.what());
  }
}

const std::string& OnednnConv::implementation() const { return state_->implementation; }

float OnednnConv::weights_scale_adjust() const { return state_->weights_scale_adjust; }

bool onednn_has_int8_vnni() {
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  // The ISA values are nested bit sets; every VNNI level has one of these two bits.
  constexpr unsigned kVnniBits = static_cast<unsigned>(dnnl_cpu_isa_avx512_core_vnni ^
                                                       dnnl_cpu_isa_avx512_core) |
                                 static_cast<unsigned>(dnnl_cpu_isa_avx2_vnni ^ dnnl_cpu_isa_avx2);
  return (isa & kVnniBits) != 0;
}

}  // namespace qparity_peers
