// Pad in constant mode as row copies: every output element written once, the input's rows by
// memcpy and the border by fills, where the reference kernel maps each output element back to
// its source through every dimension. oneDNN has no padding primitive; this is a copy, not a
// computation. Pads must be known at preparation (an attribute or a weight) and non-negative;
// other modes, negative pads and an axes input stay on the reference kernel.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "library_kernel.h"

// The library kernels live in their own namespace: unity builds compile them in one unit with
// the reference kernels, whose file-local names they would otherwise meet.
namespace weft::core::detail::library {
namespace {

class PadKernel final : public PreparedKernel {
 public:
  Status run(KernelContext& ctx, std::span<std::uint8_t>) const override {
    WEFT_KERNEL_OUTPUT(y, ctx.output(0, DType::Float32, m_out));
    copy(0, ctx.in(0).as<const float>(), y.as<float>());
    return {};
  }

  Shape m_in, m_out, m_before, m_after, m_in_strides, m_out_strides;
  float m_value = 0;

 private:
  void fill(float* at, std::int64_t n) const {
    if (n <= 0) return;
    if (m_value == 0.0f && !std::signbit(m_value)) std::memset(at, 0, static_cast<std::size_t>(n) * sizeof(float));
    else std::fill_n(at, n, m_value);
  }
  // Dimension d of one block: the leading border, each input slice (recursively), the trailing border.
  void copy(std::size_t d, const float* from, float* to) const {
    const std::int64_t block = m_out_strides[d];
    fill(to, m_before[d] * block);
    to += m_before[d] * block;
    if (d + 1 == m_in.size()) {
      std::memcpy(to, from, static_cast<std::size_t>(m_in[d]) * sizeof(float));
      to += m_in[d];
    } else {
      for (std::int64_t i = 0; i < m_in[d]; ++i, from += m_in_strides[d], to += block) copy(d + 1, from, to);
    }
    fill(to, m_after[d] * block);
  }
};

std::unique_ptr<PreparedKernel> prepare_pad(const KernelContext& ctx) {
  if (!ctx.has_input(0) || ctx.in(0).dtype != DType::Float32 || ctx.has_input(3) || ctx.in(0).channels_last) return nullptr;
  if (ctx.node().attr_string("mode", "constant") != "constant") return nullptr;
  const View& x = ctx.in(0);
  const std::size_t rank = x.shape.size();
  if (rank == 0 || x.elements() == 0) return nullptr;
  std::vector<std::int64_t> pads;
  if (const Attribute* a = ctx.node().attribute("pads")) {
    pads = a->ints;
  } else {
    if (!ctx.has_input(1) || !ctx.input_is_weight(1) || !read_ints(ctx.in(1), pads)) return nullptr;
  }
  if (pads.size() != 2 * rank) return nullptr;
  auto k = std::make_unique<PadKernel>();
  if (ctx.has_input(2)) {
    const View& v = ctx.in(2);
    if (!ctx.input_is_weight(2) || v.dtype != DType::Float32 || v.elements() != 1) return nullptr;
    k->m_value = *v.as<const float>();
  } else if (ctx.node().attribute("value")) {
    k->m_value = ctx.node().attr_float("value", 0);  // opset < 11
  }
  k->m_in = x.shape;
  k->m_out.resize(rank);
  k->m_before.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(rank));
  k->m_after.assign(pads.begin() + static_cast<std::ptrdiff_t>(rank), pads.end());
  for (std::size_t d = 0; d < rank; ++d) {
    if (k->m_before[d] < 0 || k->m_after[d] < 0) return nullptr;
    k->m_out[d] = x.shape[d] + k->m_before[d] + k->m_after[d];
  }
  k->m_in_strides = strides_of(k->m_in);
  k->m_out_strides = strides_of(k->m_out);
  k->implementation = "weft pad copy";
  return k;
}

}  // namespace

void register_copy(LibraryRegistry& r) { r.add("Pad", prepare_pad); }

}  // namespace weft::core::detail::library
