// Elementwise operators on oneDNN: activations (eltwise over the tensor as one flat row),
// two-input arithmetic with NumPy broadcasting (binary; the full-size operand first, swapped for
// commutative operators), and Sum / Mean / Max / Min (binary for two inputs, the sum primitive
// with scales for more of one shape). Float32 only; every other case stays on the reference kernels.
#include <algorithm>
#include <optional>

#include "dnnl_runtime.h"
#include "library_kernel.h"

// The library kernels live in their own namespace: unity builds compile them in one unit with
// the reference kernels, whose file-local names they would otherwise meet.
namespace weft::core::detail::library {
namespace {

using dnnl::algorithm;
using dnnl::memory;

bool float_input(const KernelContext& ctx, std::size_t i) {
  return ctx.has_input(i) && ctx.in(i).dtype == DType::Float32 && ctx.in(i).elements() > 0;
}

dnnl::primitive_attr user_scratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

// ---- activations ----

class EltwiseKernel final : public PreparedKernel {
 public:
  Status run(KernelContext& ctx, std::span<std::uint8_t> scratch) const override {
    WEFT_KERNEL_OUTPUT(y, ctx.output(0, DType::Float32, m_shape));
    return dnnl_try(ctx, [&] {
      m_primitive.execute(dnnl_thread_stream(), {{DNNL_ARG_SRC, dnnl_memory(m_flat, ctx.in(0).data)},
                                                 {DNNL_ARG_DST, dnnl_memory(m_flat, y.data)},
                                                 {DNNL_ARG_SCRATCHPAD, dnnl_memory(m_scratchpad, scratch.data())}});
    });
  }
  dnnl::eltwise_forward m_primitive;
  memory::desc m_flat, m_scratchpad;
  Shape m_shape;
};

struct EltwiseOp {
  algorithm alg;
  float alpha = 0, beta = 0;
};

std::unique_ptr<PreparedKernel> make_eltwise(const KernelContext& ctx, const EltwiseOp& a) {
  if (!float_input(ctx, 0)) return nullptr;
  auto k = std::make_unique<EltwiseKernel>();
  k->m_shape = ctx.in(0).shape;
  try {
    k->m_flat = plain_f32({ctx.in(0).elements()});
    const dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, a.alg, k->m_flat, a.alpha, a.beta);
    const dnnl::eltwise_forward::primitive_desc pd(desc, user_scratchpad(), dnnl_engine());
    k->m_primitive = dnnl::eltwise_forward(pd);
    k->m_scratchpad = pd.scratchpad_desc();
    k->scratch_bytes = ScratchLayout().add(k->m_scratchpad.get_size());
    k->implementation = dnnl_implementation(pd);
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return k;
}

/// Clip's bounds when they are known at preparation: attributes (opset < 11) or weight inputs.
std::optional<EltwiseOp> clip_bounds(const KernelContext& ctx) {
  float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  if (ctx.opset_before(11)) {
    lo = ctx.node().attr_float("min", lo);
    hi = ctx.node().attr_float("max", hi);
    return EltwiseOp{algorithm::eltwise_clip_v2, lo, hi};
  }
  for (std::size_t i : {std::size_t{1}, std::size_t{2}}) {
    if (!ctx.has_input(i)) continue;
    const View& v = ctx.in(i);
    if (!ctx.input_is_weight(i) || v.dtype != DType::Float32 || v.elements() != 1) return std::nullopt;
    (i == 1 ? lo : hi) = *v.as<const float>();
  }
  return EltwiseOp{algorithm::eltwise_clip_v2, lo, hi};
}

// ---- binary arithmetic ----

class BinaryKernel final : public PreparedKernel {
 public:
  Status run(KernelContext& ctx, std::span<std::uint8_t> scratch) const override {
    WEFT_KERNEL_OUTPUT(y, ctx.output(0, DType::Float32, m_shape));
    return dnnl_try(ctx, [&] {
      m_primitive.execute(dnnl_thread_stream(), {{DNNL_ARG_SRC_0, dnnl_memory(m_src0, ctx.in(m_first).data)},
                                                 {DNNL_ARG_SRC_1, dnnl_memory(m_src1, ctx.in(1 - m_first).data)},
                                                 {DNNL_ARG_DST, dnnl_memory(m_dst, y.data)},
                                                 {DNNL_ARG_SCRATCHPAD, dnnl_memory(m_scratchpad, scratch.data())}});
    });
  }
  dnnl::binary m_primitive;
  memory::desc m_src0, m_src1, m_dst, m_scratchpad;
  std::size_t m_first = 0;  ///< the input read as src0 (the full-size one)
  Shape m_shape;
};

/// `shape` left-padded with 1s to `rank`.
Shape left_padded(const Shape& shape, std::size_t rank) {
  Shape out(rank - shape.size(), 1);
  out.insert(out.end(), shape.begin(), shape.end());
  return out;
}

/// Two float inputs combined by `alg` (then scaled by `scale`, for Mean), broadcasting.
std::unique_ptr<PreparedKernel> make_binary(const KernelContext& ctx, algorithm alg, bool commutative, float scale = 1) {
  if (!float_input(ctx, 0) || !float_input(ctx, 1)) return nullptr;
  const Shape& a = ctx.in(0).shape;
  const Shape& b = ctx.in(1).shape;
  Shape out;
  if (!broadcast_shapes(std::vector<Shape>{a, b}, out)) return nullptr;
  auto k = std::make_unique<BinaryKernel>();
  k->m_shape = out;
  const std::size_t rank = std::max<std::size_t>(out.size(), 1);
  // oneDNN broadcasts its second operand only.
  if (left_padded(a, rank) == left_padded(out, rank)) k->m_first = 0;
  else if (commutative && left_padded(b, rank) == left_padded(out, rank)) k->m_first = 1;
  else return nullptr;
  try {
    k->m_src0 = plain_f32(left_padded(ctx.in(k->m_first).shape, rank));
    k->m_src1 = plain_f32(left_padded(ctx.in(1 - k->m_first).shape, rank));
    k->m_dst = plain_f32(left_padded(out, rank));
    dnnl::primitive_attr attr = user_scratchpad();
    if (scale != 1) {
      dnnl::post_ops ops;
      ops.append_eltwise(1.0f, algorithm::eltwise_linear, scale, 0.0f);
      attr.set_post_ops(ops);
    }
    const dnnl::binary::desc desc(alg, k->m_src0, k->m_src1, k->m_dst);
    const dnnl::binary::primitive_desc pd(desc, attr, dnnl_engine());
    k->m_primitive = dnnl::binary(pd);
    k->m_scratchpad = pd.scratchpad_desc();
    k->scratch_bytes = ScratchLayout().add(k->m_scratchpad.get_size());
    k->implementation = dnnl_implementation(pd);
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return k;
}

// ---- Sum and Mean of many inputs of one shape ----

class SumKernel final : public PreparedKernel {
 public:
  Status run(KernelContext& ctx, std::span<std::uint8_t> scratch) const override {
    WEFT_KERNEL_OUTPUT(y, ctx.output(0, DType::Float32, m_shape));
    return dnnl_try(ctx, [&] {
      std::unordered_map<int, memory> args;
      for (std::size_t i = 0; i < ctx.input_count(); ++i)
        args.emplace(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i), dnnl_memory(m_flat, ctx.in(i).data));
      args.emplace(DNNL_ARG_DST, dnnl_memory(m_flat, y.data));
      args.emplace(DNNL_ARG_SCRATCHPAD, dnnl_memory(m_scratchpad, scratch.data()));
      m_primitive.execute(dnnl_thread_stream(), args);
    });
  }
  dnnl::sum m_primitive;
  memory::desc m_flat, m_scratchpad;
  Shape m_shape;
};

std::unique_ptr<PreparedKernel> make_variadic(const KernelContext& ctx, algorithm alg, bool mean) {
  const std::size_t n = ctx.input_count();
  if (n < 2) return nullptr;  // one input is a copy: the reference kernel's memcpy
  for (std::size_t i = 0; i < n; ++i)
    if (!float_input(ctx, i)) return nullptr;
  if (n == 2) return make_binary(ctx, alg, true, mean ? 0.5f : 1.0f);
  if (alg != algorithm::binary_add) return nullptr;
  for (std::size_t i = 1; i < n; ++i)
    if (ctx.in(i).shape != ctx.in(0).shape) return nullptr;
  auto k = std::make_unique<SumKernel>();
  k->m_shape = ctx.in(0).shape;
  try {
    k->m_flat = plain_f32({ctx.in(0).elements()});
    const std::vector<float> scales(n, mean ? 1.0f / static_cast<float>(n) : 1.0f);
    const dnnl::sum::primitive_desc pd(k->m_flat, scales, std::vector<memory::desc>(n, k->m_flat), dnnl_engine(), user_scratchpad());
    k->m_primitive = dnnl::sum(pd);
    k->m_scratchpad = pd.scratchpad_desc();
    k->scratch_bytes = ScratchLayout().add(k->m_scratchpad.get_size());
    k->implementation = dnnl_implementation(pd);
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return k;
}

}  // namespace

void register_elementwise(LibraryRegistry& r) {
  r.add("Abs", [](const KernelContext& c) { return make_eltwise(c, {algorithm::eltwise_abs}); });
  r.add("Clip", [](const KernelContext& c) -> std::unique_ptr<PreparedKernel> {
    const auto bounds = clip_bounds(c);
    return bounds ? make_eltwise(c, *bounds) : nullptr;
  });
  r.add("Elu", [](const KernelContext& c) { return make_eltwise(c, {algorithm::eltwise_elu, c.node().attr_float("alpha", 1.0f)}); });
  r.add("Exp", [](const KernelContext& c) { return make_eltwise(c, {algorithm::eltwise_exp}); });
  r.add("HardSwish", [](const KernelContext& c) { return make_eltwise(c, {algorithm::eltwise_hardswish}); });
  r.add("LeakyRelu", [](const KernelContext& c) { return make_eltwise(c, {algorithm::eltwise_relu, c.node().attr_float("alpha", 0.01f)}); });
  r.add("Log", [](const KernelContext& c) { return make_eltwise(c, {algorithm::eltwise_log}); });
  r.add("Neg", [](const KernelContext& c) { return make_eltwise(c, {algorithm::eltwise_linear, -1.0f, 0.0f}); });
  r.add("Relu", [](const KernelContext& c) { return make_eltwise(c, {algorithm::eltwise_relu}); });
  r.add("Sigmoid", [](const KernelContext& c) { return make_eltwise(c, {algorithm::eltwise_logistic}); });
  r.add("Sqrt", [](const KernelContext& c) { return make_eltwise(c, {algorithm::eltwise_sqrt}); });
  r.add("Tanh", [](const KernelContext& c) { return make_eltwise(c, {algorithm::eltwise_tanh}); });

  r.add("Add", [](const KernelContext& c) { return make_binary(c, algorithm::binary_add, true); });
  r.add("Div", [](const KernelContext& c) { return make_binary(c, algorithm::binary_div, false); });
  r.add("Mul", [](const KernelContext& c) { return make_binary(c, algorithm::binary_mul, true); });
  r.add("Sub", [](const KernelContext& c) { return make_binary(c, algorithm::binary_sub, false); });

  r.add("Max", [](const KernelContext& c) { return make_variadic(c, algorithm::binary_max, false); });
  r.add("Mean", [](const KernelContext& c) { return make_variadic(c, algorithm::binary_add, true); });
  r.add("Min", [](const KernelContext& c) { return make_variadic(c, algorithm::binary_min, false); });
  r.add("Sum", [](const KernelContext& c) { return make_variadic(c, algorithm::binary_add, false); });
}

}  // namespace weft::core::detail::library
