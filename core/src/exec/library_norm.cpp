// BatchNormalization in inference mode on oneDNN (the given mean and variance, scale and shift),
// in Weft's NCHW layout. Training mode, spatial=0 (opset < 9) and other dtypes stay on the
// reference kernel.
#include "dnnl_runtime.h"
#include "library_kernel.h"

// The library kernels live in their own namespace: unity builds compile them in one unit with
// the reference kernels, whose file-local names they would otherwise meet.
namespace weft::core::detail::library {
namespace {

using dnnl::memory;

class BatchNormKernel final : public PreparedKernel {
 public:
  Status run(KernelContext& ctx, std::span<std::uint8_t> scratch) const override {
    WEFT_KERNEL_OUTPUT(y, ctx.output(0, DType::Float32, m_shape));
    return dnnl_try(ctx, [&] {
      m_primitive.execute(dnnl_thread_stream(), {{DNNL_ARG_SRC, dnnl_memory(m_data, ctx.in(0).data)},
                                                 {DNNL_ARG_SCALE, dnnl_memory(m_channel, ctx.in(1).data)},
                                                 {DNNL_ARG_SHIFT, dnnl_memory(m_channel, ctx.in(2).data)},
                                                 {DNNL_ARG_MEAN, dnnl_memory(m_channel, ctx.in(3).data)},
                                                 {DNNL_ARG_VARIANCE, dnnl_memory(m_channel, ctx.in(4).data)},
                                                 {DNNL_ARG_DST, dnnl_memory(m_data, y.data)},
                                                 {DNNL_ARG_SCRATCHPAD, dnnl_memory(m_scratchpad, scratch.data())}});
    });
  }
  dnnl::batch_normalization_forward m_primitive;
  memory::desc m_data, m_channel, m_scratchpad;
  Shape m_shape;
};

std::unique_ptr<PreparedKernel> prepare_batch_norm(const KernelContext& ctx) {
  if (ctx.input_count() != 5 || ctx.output_count() > 1) return nullptr;
  if (ctx.node().attr_int("training_mode", 0) != 0 || ctx.node().attr_int("spatial", 1) == 0) return nullptr;
  for (std::size_t i = 0; i < 5; ++i)
    if (!ctx.has_input(i) || ctx.in(i).dtype != DType::Float32) return nullptr;
  const Shape& x = ctx.in(0).shape;
  if (x.size() < 2 || x.size() > 5 || ctx.in(0).elements() == 0) return nullptr;
  for (std::size_t i = 1; i < 5; ++i)
    if (ctx.in(i).shape != Shape{x[1]}) return nullptr;
  auto k = std::make_unique<BatchNormKernel>();
  k->m_shape = x;
  try {
    k->m_data = plain_f32(x);
    k->m_channel = plain_f32({x[1]});
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    using flags = dnnl::normalization_flags;
    const dnnl::batch_normalization_forward::desc desc(dnnl::prop_kind::forward_inference, k->m_data,
                                                       ctx.node().attr_float("epsilon", 1e-5f),
                                                       flags::use_global_stats | flags::use_scale | flags::use_shift);
    const dnnl::batch_normalization_forward::primitive_desc pd(desc, attr, dnnl_engine());
    k->m_primitive = dnnl::batch_normalization_forward(pd);
    k->m_scratchpad = pd.scratchpad_desc();
    k->scratch_bytes = ScratchLayout().add(k->m_scratchpad.get_size());
    k->implementation = dnnl_implementation(pd);
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return k;
}

}  // namespace

void register_norm(LibraryRegistry& r) { r.add("BatchNormalization", prepare_batch_norm); }

}  // namespace weft::core::detail::library
