// Elementwise operators on oneDNN, in either layout (the run's plan gives a node's full-size
// operands and its output one layout): activations (eltwise over the tensor as one flat row),
// two-input arithmetic with NumPy broadcasting (binary; the full-size operand first, swapped for
// commutative operators), and Sum / Mean / Max / Min (binary, a further input per binary
// post-op, Mean's division an eltwise post-op). Float32 only; every other case stays on the
// reference kernels.
#include <algorithm>
#include <limits>
#include <optional>

#include "dnnl_runtime.h"
#include "library_kernel.h"
#include "library_post_ops.h"

// The library kernels live in their own namespace: unity builds compile them in one unit with
// the reference kernels, whose file-local names they would otherwise meet.
namespace weft::core::detail::library {
namespace {

using dnnl::algorithm;
using dnnl::memory;

bool float_input(const KernelContext& ctx, std::size_t i) {
  return ctx.has_input(i) && ctx.in(i).dtype == DType::Float32 && ctx.in(i).elements() > 0;
}

// ---- activations ----

class EltwiseKernel final : public PrimitiveKernel {
 public:
  memory::desc m_flat;

 private:
  void bind_and_execute(const KernelContext& ctx, const View& y, std::uint8_t*, const dnnl::stream& s,
                        std::unordered_map<int, memory>& args) const override {
    args.emplace(DNNL_ARG_SRC, dnnl_memory(m_flat, ctx.in(0).data));
    args.emplace(DNNL_ARG_DST, dnnl_memory(m_flat, y.data));
    m_primitive.execute(s, args);
  }
};

std::unique_ptr<PreparedKernel> make_eltwise(const KernelContext& ctx, const EltwiseOp& a) {
  // One flat row: input and output must share a layout.
  if (!float_input(ctx, 0) || ctx.in(0).channels_last != ctx.output_channels_last(0)) return nullptr;
  auto k = std::make_unique<EltwiseKernel>();
  k->m_shape = ctx.in(0).shape;
  try {
    k->m_flat = plain_f32({ctx.in(0).elements()});
    const dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, a.alg, k->m_flat, a.alpha, a.beta);
    k->take<dnnl::eltwise_forward>(dnnl::eltwise_forward::primitive_desc(desc, scratchpad_attr(), dnnl_engine()));
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return k;
}

// ---- arithmetic: binary, with any further inputs as binary post-ops ----

class BinaryKernel final : public PrimitiveKernel {
 public:
  std::vector<memory::desc> m_src;   ///< per operand, in the order oneDNN reads them
  std::vector<std::size_t> m_order;  ///< the node's input each operand is
  memory::desc m_dst;

 private:
  void bind_and_execute(const KernelContext& ctx, const View& y, std::uint8_t*, const dnnl::stream& s,
                        std::unordered_map<int, memory>& args) const override {
    args.emplace(DNNL_ARG_SRC_0, dnnl_memory(m_src[0], ctx.in(m_order[0]).data));
    args.emplace(DNNL_ARG_SRC_1, dnnl_memory(m_src[1], ctx.in(m_order[1]).data));
    for (std::size_t i = 2; i < m_src.size(); ++i)
      args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(static_cast<int>(i - 2)) | DNNL_ARG_SRC_1, dnnl_memory(m_src[i], ctx.in(m_order[i]).data));
    args.emplace(DNNL_ARG_DST, dnnl_memory(m_dst, y.data));
    m_primitive.execute(s, args);
  }
};

/// `shape` left-padded with 1s to `rank`.
Shape left_padded(const Shape& shape, std::size_t rank) {
  Shape out(rank - shape.size(), 1);
  out.insert(out.end(), shape.begin(), shape.end());
  return out;
}

/// The node's float inputs combined by `alg` in order (then scaled by `scale`, for Mean), with
/// NumPy broadcasting. oneDNN broadcasts every operand but the first: the first must be full-size
/// (swapped with another for commutative operators).
std::unique_ptr<PreparedKernel> make_binary(const KernelContext& ctx, algorithm alg, bool commutative, float scale = 1) {
  const std::size_t n = ctx.input_count();
  if (n < 2) return nullptr;
  std::vector<Shape> shapes;
  for (std::size_t i = 0; i < n; ++i) {
    if (!float_input(ctx, i)) return nullptr;
    shapes.push_back(ctx.in(i).shape);
  }
  Shape out;
  if (!broadcast_shapes(shapes, out)) return nullptr;
  auto k = std::make_unique<BinaryKernel>();
  k->m_shape = out;
  const std::size_t rank = std::max<std::size_t>(out.size(), 1);
  for (std::size_t i = 0; i < n; ++i) k->m_order.push_back(i);
  if (left_padded(shapes[0], rank) != left_padded(out, rank)) {
    if (!commutative) return nullptr;
    const auto full = std::find_if(k->m_order.begin(), k->m_order.end(),
                                   [&](std::size_t i) { return left_padded(shapes[i], rank) == left_padded(out, rank); });
    if (full == k->m_order.end()) return nullptr;
    std::swap(k->m_order[0], *full);
  }
  try {
    for (std::size_t i : k->m_order) k->m_src.push_back(tensor_f32(left_padded(shapes[i], rank), ctx.in(i).channels_last));
    k->m_dst = tensor_f32(left_padded(out, rank), ctx.output_channels_last(0));
    dnnl::primitive_attr attr = scratchpad_attr();
    dnnl::post_ops ops;
    for (std::size_t i = 2; i < n; ++i) ops.append_binary(alg, k->m_src[i]);
    if (scale != 1) ops.append_eltwise(1.0f, algorithm::eltwise_linear, scale, 0.0f);
    attr.set_post_ops(ops);
    const dnnl::binary::desc desc(alg, k->m_src[0], k->m_src[1], k->m_dst);
    k->take<dnnl::binary>(dnnl::binary::primitive_desc(desc, attr, dnnl_engine()));
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return k;
}

/// Sum, Mean, Max, Min: one input is a copy (the reference kernel's memcpy); two or more, binary.
std::unique_ptr<PreparedKernel> make_variadic(const KernelContext& ctx, algorithm alg, bool mean) {
  const std::size_t n = ctx.input_count();
  if (n < 2) return nullptr;
  return make_binary(ctx, alg, true, mean ? 1.0f / static_cast<float>(n) : 1.0f);
}

}  // namespace

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

std::optional<EltwiseOp> activation_op(const KernelContext& ctx) {
  const std::string& op = ctx.node().op_type;
  if (op == "Relu") return EltwiseOp{algorithm::eltwise_relu};
  if (op == "LeakyRelu") return EltwiseOp{algorithm::eltwise_relu, ctx.node().attr_float("alpha", 0.01f)};
  if (op == "Clip") return clip_bounds(ctx);
  return std::nullopt;
}

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
