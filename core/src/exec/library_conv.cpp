// Conv on oneDNN: 1-D, 2-D and 3-D, groups (depthwise included), dilations, asymmetric and
// automatic pads, bias. The primitive is fixed by the node's geometry, so a node runs the same
// one on any stream and whatever its neighbours: it computes channels-last (NHWC), or, for the
// geometries oneDNN has no channels-last kernel for, in the blocked layout oneDNN chooses. A
// tensor in another layout than the primitive's is reordered into scratch before (the input) or
// out of it after (the output); between library kernels tensors stay channels-last (the run's
// layout plan), so most convolutions reorder nothing. Weights are reordered once when they are
// weights. In a batch-invariant run (RunOptions::batch_invariant) the primitive is made for one
// image and runs once per image, so that an image's bits do not depend on the batch it came in.
#include <algorithm>
#include <cstring>

#include "dnnl_runtime.h"
#include "library_kernel.h"
#include "library_post_ops.h"

// The library kernels live in their own namespace: unity builds compile them in one unit with
// the reference kernels, whose file-local names they would otherwise meet.
namespace weft::core::detail::library {
namespace {

using dnnl::memory;

class ConvKernel final : public PrimitiveKernel {
 public:
  LibraryOperand m_x, m_w, m_y;
  memory::desc m_y_chosen;  ///< the layout the primitive writes
  memory::desc m_bias_desc;
  bool m_bias = false;
  std::int64_t m_calls = 1;  ///< the batch when the primitive is made for one image, else 1
  std::int64_t m_x_call_bytes = 0, m_y_call_bytes = 0;
  int m_residual_input = -1;  ///< a fused Add's tensor, copied into the output for the sum post-op (-1: none)
  memory::desc m_residual_desc;  ///< its layout, where the primitive's output has another
  dnnl::reorder m_residual_reorder;

 private:
  void bind_and_execute(const KernelContext& ctx, const View& y, std::uint8_t* scratch, const dnnl::stream& s,
                        std::unordered_map<int, memory>& args) const override {
    args.emplace(DNNL_ARG_WEIGHTS, m_w.bind_input(ctx.in(1).data, scratch, s));
    if (m_bias) args.emplace(DNNL_ARG_BIAS, dnnl_memory(m_bias_desc, ctx.in(2).data));
    for (std::int64_t i = 0; i < m_calls; ++i) {
      const auto* x = static_cast<const std::uint8_t*>(ctx.in(0).data) + i * m_x_call_bytes;
      auto* out_bytes = static_cast<std::uint8_t*>(y.data) + i * m_y_call_bytes;
      args.insert_or_assign(DNNL_ARG_SRC, m_x.bind_input(x, scratch, s));
      const memory out = m_y.bind_output(out_bytes, scratch);
      args.insert_or_assign(DNNL_ARG_DST, out);
      if (m_residual_input >= 0) {
        const auto* r = static_cast<const std::uint8_t*>(ctx.in(static_cast<std::size_t>(m_residual_input)).data) + i * m_y_call_bytes;
        if (m_residual_reorder)
          m_residual_reorder.execute(s, {{DNNL_ARG_FROM, dnnl_memory(m_residual_desc, const_cast<std::uint8_t*>(r))}, {DNNL_ARG_TO, out}});
        else if (r != out_bytes)
          std::memcpy(out_bytes, r, static_cast<std::size_t>(m_y_call_bytes));
      }
      m_primitive.execute(s, args);
      m_y.finish_output(out, out_bytes, s);
    }
  }
};

}  // namespace

std::unique_ptr<PreparedKernel> prepare_conv_with(const KernelContext& ctx, const ConvPostOps& post) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return nullptr;
  const View& x = ctx.in(0);
  const View& w = ctx.in(1);
  const bool bias = ctx.has_input(2);
  if (x.dtype != DType::Float32 || w.dtype != DType::Float32 || (bias && ctx.in(2).dtype != DType::Float32)) return nullptr;
  const std::size_t rank = x.shape.size();
  if (rank < 3 || rank > 5 || w.shape.size() != rank || x.elements() == 0 || w.elements() == 0) return nullptr;
  PoolGeometry g;
  if (!conv_geometry(ctx, x.shape, w.shape, g)) return nullptr;
  const std::int64_t batch = x.shape[0], c_in = x.shape[1], m = w.shape[0];
  const std::int64_t group = ctx.node().attr_int("group", 1);
  if (group <= 0 || c_in % group != 0 || m % group != 0 || w.shape[1] != c_in / group) return nullptr;
  if (!std::equal(g.kernel.begin(), g.kernel.end(), w.shape.begin() + 2)) return nullptr;
  if (bias && (ctx.in(2).shape != Shape{m})) return nullptr;
  for (std::int64_t d : g.out)
    if (d <= 0) return nullptr;

  auto k = std::make_unique<ConvKernel>();
  k->m_shape = {batch, m};
  k->m_shape.insert(k->m_shape.end(), g.out.begin(), g.out.end());
  k->m_bias = bias;
  // The primitive's batch: the whole batch, or one image at a time.
  Shape x_call = x.shape, y_call = k->m_shape;
  if (ctx.batch_invariant()) {
    k->m_calls = batch;
    x_call[0] = y_call[0] = 1;
  }
  k->m_x_call_bytes = shape_elements(x_call) * static_cast<std::int64_t>(sizeof(float));
  k->m_y_call_bytes = shape_elements(y_call) * static_cast<std::int64_t>(sizeof(float));
  // The tensors as the run lays them out (channels-last between library kernels).
  const memory::desc x_plain = tensor_f32(x_call, x.channels_last), y_plain = tensor_f32(y_call, ctx.output_channels_last(0));
  // Grouped weights as oneDNN wants them: {G, M/G, C/G, k...}, the same bytes as ONNX's {M, C/G, k...}.
  Shape w_dims = w.shape;
  if (group > 1) {
    w_dims = {group, m / group};
    w_dims.insert(w_dims.end(), w.shape.begin() + 1, w.shape.end());
  }
  const memory::desc w_plain = plain_f32(w_dims);
  const auto any = [](const Shape& s) { return memory::desc(dnnl_dims(s), memory::data_type::f32, memory::format_tag::any); };
  memory::dims dilation(g.dilation.begin(), g.dilation.end());
  for (auto& d : dilation) d -= 1;  // oneDNN counts the gaps between taps
  ScratchLayout layout;
  try {
    if (bias) k->m_bias_desc = plain_f32(ctx.in(2).shape);
    using fwd = dnnl::convolution_forward;
    dnnl::primitive_attr attr = scratchpad_attr();
    if (!post.steps.empty()) {
      // The result passes through the chain in registers: an activation, or the residual added
      // (a sum post-op: the output's bytes, filled with the residual before the primitive, added
      // to the accumulator). A binary post-op would read the residual in place but moves oneDNN
      // 2.6 off its brgemm 1x1 kernels onto others that sum in another order; the sum keeps the
      // unfused kernel, so the fused run equals the unfused one bit for bit.
      dnnl::post_ops ops;
      for (const PostOp& step : post.steps) {
        if (!step.add) {
          ops.append_eltwise(1.0f, step.eltwise.alg, step.eltwise.alpha, step.eltwise.beta);
          continue;
        }
        if (post.residual_input < 0) return nullptr;
        k->m_residual_input = post.residual_input;
        ops.append_sum(1.0f);
      }
      attr.set_post_ops(ops);
    }
    const auto make = [&](const memory::desc& x_want, const memory::desc& y_want) {
      const fwd::desc desc = bias ? fwd::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, x_want,
                                              any(w_dims), k->m_bias_desc, y_want, dnnl_dims(g.stride), dilation,
                                              dnnl_dims(g.pad_begin), dnnl_dims(g.pad_end))
                                  : fwd::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, x_want,
                                              any(w_dims), y_want, dnnl_dims(g.stride), dilation, dnnl_dims(g.pad_begin),
                                              dnnl_dims(g.pad_end));
      return fwd::primitive_desc(desc, attr, dnnl_engine());
    };
    // Channels-last where oneDNN computes it (all but a few grouped geometries), else its choice.
    fwd::primitive_desc pd;
    try {
      pd = make(channels_last_f32(x_call), channels_last_f32(y_call));
    } catch (const dnnl::error&) {
      pd = make(any(x_call), any(y_call));
    }
    k->take<fwd>(pd, layout);
    k->m_x.prepare_input(x_plain, pd.src_desc(), layout, nullptr, *k);
    k->m_w.prepare_input(w_plain, pd.weights_desc(), layout, ctx.input_is_weight(1) ? w.data : nullptr, *k);
    k->m_y.prepare_output(y_plain, pd.dst_desc(), layout);
    k->m_y_chosen = pd.dst_desc();
  } catch (const dnnl::error&) {
    return nullptr;  // a geometry this oneDNN does not implement: the reference kernel runs it
  }
  k->scratch_bytes = layout.size();
  // The residual is copied into the bytes the primitive writes, reordered where the primitive
  // computes in another layout than the tensors'.
  if (k->m_residual_input >= 0 && (!k->m_y.direct() || post.residual_channels_last != ctx.output_channels_last(0))) {
    try {
      k->m_residual_desc = tensor_f32(y_call, post.residual_channels_last);
      k->m_residual_reorder = dnnl::reorder(dnnl::reorder::primitive_desc(dnnl_engine(), k->m_residual_desc, dnnl_engine(), k->m_y_chosen));
    } catch (const dnnl::error&) {
      return nullptr;
    }
  }
  if (!post.steps.empty()) k->implementation += " with post-ops";
  return k;
}

void register_conv(LibraryRegistry& r) {
  r.add("Conv", [](const KernelContext& ctx) { return prepare_conv_with(ctx, ConvPostOps{}); });
}

}  // namespace weft::core::detail::library
