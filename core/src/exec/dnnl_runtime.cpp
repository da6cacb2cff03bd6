#include "dnnl_runtime.h"

#include <algorithm>

// The executor sizes each stream's team through OpenMP (LibraryTeam): another threading runtime
// would ignore it and run every primitive on all the cores.
#if DNNL_CPU_THREADING_RUNTIME != DNNL_RUNTIME_OMP
#error "oneDNN must thread with OpenMP (Debian's libdnnl-dev does)"
#endif

namespace weft::core::detail {

const dnnl::engine& dnnl_engine() {
  // Thread-safe initialisation of a local static; an engine is immutable and shared.
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& dnnl_thread_stream() {
  thread_local dnnl::stream stream(dnnl_engine());
  return stream;
}

dnnl::memory::dims dnnl_dims(const Shape& shape) {
  if (shape.empty()) return {1};
  return dnnl::memory::dims(shape.begin(), shape.end());
}

dnnl::memory::desc plain_f32(const Shape& shape) {
  const dnnl::memory::dims dims = dnnl_dims(shape);
  // Row-major strides; oneDNN takes any dense strides, so no format tag per rank is needed.
  dnnl::memory::dims strides(dims.size(), 1);
  for (std::size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * std::max<dnnl::memory::dim>(dims[i], 1);
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

dnnl::memory::desc channels_last_f32(const Shape& shape) {
  const dnnl::memory::dims dims = dnnl_dims(shape);
  // Channels innermost, then the spatial dims in order, the batch outermost.
  dnnl::memory::dims strides(dims.size(), 1);
  dnnl::memory::dim step = std::max<dnnl::memory::dim>(dims[1], 1);
  for (std::size_t i = dims.size(); i-- > 2;) {
    strides[i] = step;
    step *= std::max<dnnl::memory::dim>(dims[i], 1);
  }
  strides[0] = step;
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

dnnl::memory::desc tensor_f32(const Shape& shape, bool channels_last) {
  return channels_last ? channels_last_f32(shape) : plain_f32(shape);
}

dnnl::primitive_attr scratchpad_attr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

Status PrimitiveKernel::run(KernelContext& ctx, std::span<std::uint8_t> scratch) const {
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, DType::Float32, m_shape));
  return dnnl_try(ctx, [&] {
    std::unordered_map<int, dnnl::memory> args;
    args.emplace(DNNL_ARG_SCRATCHPAD, dnnl_memory(m_scratchpad, scratch.data() + m_scratchpad_at));
    bind_and_execute(ctx, y, scratch.data(), dnnl_thread_stream(), args);
  });
}

std::string dnnl_implementation(const dnnl::primitive_desc_base& pd) { return std::string("oneDNN ") + pd.impl_info_str(); }

namespace {

// Both descriptors name the same bytes: equal, or a layout-free tensor (one channel or one
// position) described row-major and channels-last.
bool same_bytes(const dnnl::memory::desc& a, const dnnl::memory::desc& b) {
  if (a == b) return true;
  if (a.dims() != b.dims() || a.data_type() != b.data_type() || a.get_size() != b.get_size()) return false;
  const dnnl::memory::dims d = a.dims();
  if (!layout_free(Shape(d.begin(), d.end()))) return false;
  const Shape shape(d.begin(), d.end());
  const auto dense = [&](const dnnl::memory::desc& m) { return m == plain_f32(shape) || m == channels_last_f32(shape); };
  return dense(a) && dense(b);
}

}  // namespace

void LibraryOperand::prepare_input(const dnnl::memory::desc& plain, const dnnl::memory::desc& chosen, ScratchLayout& layout,
                                   const void* weight, PreparedKernel& k) {
  m_plain = plain;
  m_chosen = chosen;
  if (same_bytes(plain, chosen)) {
    m_plain = chosen;
    return;
  }
  dnnl::reorder reorder(dnnl::reorder::primitive_desc(dnnl_engine(), plain, dnnl_engine(), chosen));
  if (weight) {
    m_packed = std::make_shared<AlignedBytes>(chosen.get_size());
    k.packed_bytes += chosen.get_size();
    dnnl::memory from = dnnl_memory(plain, const_cast<void*>(weight));
    dnnl::memory to = dnnl_memory(chosen, m_packed->data());
    reorder.execute(dnnl_thread_stream(), {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
    return;
  }
  m_reorder = reorder;
  m_at = layout.add(chosen.get_size());
}

void LibraryOperand::prepare_output(const dnnl::memory::desc& plain, const dnnl::memory::desc& chosen, ScratchLayout& layout) {
  m_plain = plain;
  m_chosen = chosen;
  if (same_bytes(plain, chosen)) {
    m_plain = chosen;
    return;
  }
  m_reorder = dnnl::reorder(dnnl::reorder::primitive_desc(dnnl_engine(), chosen, dnnl_engine(), plain));
  m_at = layout.add(chosen.get_size());
}

dnnl::memory LibraryOperand::bind_input(const void* data, std::uint8_t* scratch, const dnnl::stream& s) const {
  if (m_packed) return dnnl_memory(m_chosen, m_packed->data());
  dnnl::memory own = dnnl_memory(m_plain, const_cast<void*>(data));
  if (!m_reorder) return own;
  dnnl::memory chosen = dnnl_memory(m_chosen, scratch + m_at);
  m_reorder.execute(s, {{DNNL_ARG_FROM, own}, {DNNL_ARG_TO, chosen}});
  return chosen;
}

dnnl::memory LibraryOperand::bind_output(void* data, std::uint8_t* scratch) const {
  return m_reorder ? dnnl_memory(m_chosen, scratch + m_at) : dnnl_memory(m_plain, data);
}

void LibraryOperand::finish_output(const dnnl::memory& written, void* data, const dnnl::stream& s) const {
  if (!m_reorder) return;
  dnnl::memory own = dnnl_memory(m_plain, data);
  m_reorder.execute(s, {{DNNL_ARG_FROM, written}, {DNNL_ARG_TO, own}});
}

}  // namespace weft::core::detail
