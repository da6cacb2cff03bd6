// MaxPool (without the indices output), AveragePool (either count_include_pad), GlobalAveragePool
// and GlobalMaxPool on oneDNN's pooling (1-D to 3-D windows, dilations, ceil_mode as extra end
// padding), computed channels-last whatever the tensors' layout (fixed per node, as convolutions
// are; tensors in Weft's layout reordered, those of the run's layout plan read as they are).
// Left to the reference kernel: the indices output, and an average counting pads whose
// ceil_mode windows reach past the declared pads (ONNX counts only the declared pads there,
// oneDNN the whole window).
#include <algorithm>

#include "dnnl_runtime.h"
#include "library_kernel.h"

// The library kernels live in their own namespace: unity builds compile them in one unit with
// the reference kernels, whose file-local names they would otherwise meet.
namespace weft::core::detail::library {
namespace {

using dnnl::memory;

class PoolKernel final : public PrimitiveKernel {
 public:
  LibraryOperand m_x, m_y;

 private:
  void bind_and_execute(const KernelContext& ctx, const View& y, std::uint8_t* scratch, const dnnl::stream& s,
                        std::unordered_map<int, memory>& args) const override {
    const memory out = m_y.bind_output(y.data, scratch);
    args.emplace(DNNL_ARG_SRC, m_x.bind_input(ctx.in(0).data, scratch, s));
    args.emplace(DNNL_ARG_DST, out);
    m_primitive.execute(s, args);
    m_y.finish_output(out, y.data, s);
  }
};

/// A pooling primitive over x's spatial dims, channels-last (oneDNN's row-major pooling falls
/// back to its reference implementation on some shapes: a 147x147 max pool of Inception-v3 took
/// 18 ms, under 1 ms channels-last), `x_cl` and `y_cl` the tensors' own layouts. Null where
/// oneDNN refuses the geometry.
std::unique_ptr<PreparedKernel> make_pool(const Shape& x_shape, bool x_cl, bool y_cl, const PoolGeometry& g, dnnl::algorithm algorithm) {
  auto k = std::make_unique<PoolKernel>();
  k->m_shape = {x_shape[0], x_shape[1]};
  k->m_shape.insert(k->m_shape.end(), g.out.begin(), g.out.end());
  // The end padding that gives exactly g.out windows (ceil_mode adds to it; pads past the last
  // window are dropped), in oneDNN's floor arithmetic.
  memory::dims pad_end(g.in.size()), dilation(g.in.size());
  for (std::size_t d = 0; d < g.in.size(); ++d) {
    const std::int64_t extent = (g.kernel[d] - 1) * g.dilation[d] + 1;
    pad_end[d] = (g.out[d] - 1) * g.stride[d] + extent - g.in[d] - g.pad_begin[d];
    if (pad_end[d] < 0) pad_end[d] = 0;
    dilation[d] = g.dilation[d] - 1;
  }
  try {
    const memory::desc x_plain = tensor_f32(x_shape, x_cl), y_plain = tensor_f32(k->m_shape, y_cl);
    const dnnl::primitive_attr attr = scratchpad_attr();
    const auto make = [&](const memory::desc& x, const memory::desc& y) {
      const dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm, x, y, dnnl_dims(g.stride),
                                                dnnl_dims(g.kernel), dilation, dnnl_dims(g.pad_begin), pad_end);
      return dnnl::pooling_v2_forward::primitive_desc(desc, attr, dnnl_engine());
    };
    const dnnl::pooling_v2_forward::primitive_desc pd = make(channels_last_f32(x_shape), channels_last_f32(k->m_shape));
    ScratchLayout layout;
    k->take<dnnl::pooling_v2_forward>(pd, layout);
    k->m_x.prepare_input(x_plain, pd.src_desc(), layout, nullptr, *k);
    k->m_y.prepare_output(y_plain, pd.dst_desc(), layout);
    k->scratch_bytes = layout.size();
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return k;
}

bool poolable(const KernelContext& ctx) {
  if (!ctx.has_input(0) || ctx.in(0).dtype != DType::Float32) return false;
  const Shape& s = ctx.in(0).shape;
  return s.size() >= 3 && s.size() <= 5 && ctx.in(0).elements() > 0;
}

std::unique_ptr<PreparedKernel> prepare_window_pool(const KernelContext& ctx, bool is_max) {
  if (!poolable(ctx)) return nullptr;
  if (is_max && ctx.wants_output(1)) return nullptr;  // indices
  PoolGeometry g;
  if (!pool_geometry(ctx, ctx.in(0).shape, g)) return nullptr;
  for (std::size_t d = 0; d < g.out.size(); ++d)
    if (g.out[d] <= 0) return nullptr;
  dnnl::algorithm algorithm = dnnl::algorithm::pooling_max;
  if (!is_max) {
    const bool include_pad = ctx.node().attr_int("count_include_pad", 0) != 0;
    algorithm = include_pad ? dnnl::algorithm::pooling_avg_include_padding : dnnl::algorithm::pooling_avg_exclude_padding;
    for (std::size_t d = 0; d < g.out.size() && include_pad; ++d) {
      const std::int64_t extent = (g.kernel[d] - 1) * g.dilation[d] + 1;
      if ((g.out[d] - 1) * g.stride[d] + extent > g.in[d] + g.pad_begin[d] + g.pad_end[d]) return nullptr;
    }
  }
  return make_pool(ctx.in(0).shape, ctx.in(0).channels_last, ctx.output_channels_last(0), g, algorithm);
}

std::unique_ptr<PreparedKernel> prepare_global_pool(const KernelContext& ctx, bool is_max) {
  if (!poolable(ctx)) return nullptr;
  const Shape& s = ctx.in(0).shape;
  PoolGeometry g;
  g.in.assign(s.begin() + 2, s.end());
  g.kernel = g.in;
  g.out.assign(g.in.size(), 1);
  g.stride.assign(g.in.size(), 1);
  g.dilation.assign(g.in.size(), 1);
  g.pad_begin.assign(g.in.size(), 0);
  g.pad_end.assign(g.in.size(), 0);
  return make_pool(s, ctx.in(0).channels_last, ctx.output_channels_last(0), g,
                   is_max ? dnnl::algorithm::pooling_max : dnnl::algorithm::pooling_avg_exclude_padding);
}

}  // namespace

void register_pool(LibraryRegistry& r) {
  r.add("AveragePool", [](const KernelContext& ctx) { return prepare_window_pool(ctx, false); });
  r.add("GlobalAveragePool", [](const KernelContext& ctx) { return prepare_global_pool(ctx, false); });
  r.add("GlobalMaxPool", [](const KernelContext& ctx) { return prepare_global_pool(ctx, true); });
  r.add("MaxPool", [](const KernelContext& ctx) { return prepare_window_pool(ctx, true); });
}

}  // namespace weft::core::detail::library
