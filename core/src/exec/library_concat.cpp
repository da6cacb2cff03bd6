// Concat on oneDNN where a tensor it joins or writes is channels-last (the run's layout plan): a
// channel concatenation of NHWC tensors interleaves them per position, which oneDNN's concat
// does in one pass. Row-major on every side, the reference kernel's block copies are already the
// fastest way, and it keeps those nodes.
#include "dnnl_runtime.h"
#include "library_kernel.h"

// The library kernels live in their own namespace: unity builds compile them in one unit with
// the reference kernels, whose file-local names they would otherwise meet.
namespace weft::core::detail::library {
namespace {

using dnnl::memory;

class ConcatKernel final : public PrimitiveKernel {
 public:
  std::vector<memory::desc> m_src;
  memory::desc m_dst;

 private:
  void bind_and_execute(const KernelContext& ctx, const View& y, std::uint8_t*, const dnnl::stream& s,
                        std::unordered_map<int, memory>& args) const override {
    for (std::size_t i = 0; i < m_src.size(); ++i) args.emplace(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i), dnnl_memory(m_src[i], ctx.in(i).data));
    args.emplace(DNNL_ARG_DST, dnnl_memory(m_dst, y.data));
    m_primitive.execute(s, args);
  }
};

std::unique_ptr<PreparedKernel> prepare_concat(const KernelContext& ctx) {
  const std::size_t n = ctx.input_count();
  if (n < 1) return nullptr;
  bool any_channels_last = ctx.output_channels_last(0);
  for (std::size_t i = 0; i < n; ++i) {
    if (!ctx.has_input(i) || ctx.in(i).dtype != DType::Float32 || ctx.in(i).elements() == 0) return nullptr;
    any_channels_last = any_channels_last || ctx.in(i).channels_last;
  }
  if (!any_channels_last) return nullptr;
  const Shape& first = ctx.in(0).shape;
  std::int64_t axis = ctx.node().attr_int("axis", 0);
  if (!normalize_axis(axis, static_cast<std::int64_t>(first.size()))) return nullptr;
  auto k = std::make_unique<ConcatKernel>();
  k->m_shape = first;
  k->m_shape[static_cast<std::size_t>(axis)] = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Shape& s = ctx.in(i).shape;
    if (s.size() != first.size()) return nullptr;
    for (std::size_t d = 0; d < s.size(); ++d)
      if (d != static_cast<std::size_t>(axis) && s[d] != first[d]) return nullptr;
    k->m_shape[static_cast<std::size_t>(axis)] += s[static_cast<std::size_t>(axis)];
  }
  try {
    for (std::size_t i = 0; i < n; ++i) k->m_src.push_back(tensor_f32(ctx.in(i).shape, ctx.in(i).channels_last));
    k->m_dst = tensor_f32(k->m_shape, ctx.output_channels_last(0));
    k->take<dnnl::concat>(dnnl::concat::primitive_desc(k->m_dst, static_cast<int>(axis), k->m_src, dnnl_engine(), scratchpad_attr()));
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return k;
}

}  // namespace

void register_concat(LibraryRegistry& r) { r.add("Concat", prepare_concat); }

}  // namespace weft::core::detail::library
