// Gemm and MatMul on oneDNN's matmul: transposes as strides, a weight B reordered once into the
// layout the primitive chose, Gemm's C as the bias (a row of N) or an added operand (M x N, M x 1
// or a scalar), alpha as an output scale. Left to the reference kernels (OpenBLAS): integer
// products, 1-D operands, alpha with C, beta other than 1, and every product of a batch-invariant
// run (RunOptions::batch_invariant: the reference computes each row by itself).
#include <algorithm>

#include "dnnl_runtime.h"
#include "library_kernel.h"

// The library kernels live in their own namespace: unity builds compile them in one unit with
// the reference kernels, whose file-local names they would otherwise meet.
namespace weft::core::detail::library {
namespace {

using dnnl::memory;

class MatMulKernel final : public PrimitiveKernel {
 public:
  enum class CKind { None, Bias, Added };
  memory::desc m_a, m_y, m_c_desc;
  LibraryOperand m_b;
  CKind m_c = CKind::None;

 private:
  void bind_and_execute(const KernelContext& ctx, const View& y, std::uint8_t* scratch, const dnnl::stream& s,
                        std::unordered_map<int, memory>& args) const override {
    args.emplace(DNNL_ARG_SRC, dnnl_memory(m_a, ctx.in(0).data));
    args.emplace(DNNL_ARG_WEIGHTS, m_b.bind_input(ctx.in(1).data, scratch, s));
    if (m_c == CKind::Bias) args.emplace(DNNL_ARG_BIAS, dnnl_memory(m_c_desc, ctx.in(2).data));
    if (m_c == CKind::Added) args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, dnnl_memory(m_c_desc, ctx.in(2).data));
    args.emplace(DNNL_ARG_DST, dnnl_memory(m_y, y.data));
    m_primitive.execute(s, args);
  }
};

/// A row-major {rows, cols} matrix stored transposed ({cols, rows} in memory) when `transposed`.
memory::desc matrix(std::int64_t rows, std::int64_t cols, bool transposed) {
  return memory::desc({rows, cols}, memory::data_type::f32, transposed ? memory::dims{1, rows} : memory::dims{cols, 1});
}

/// Fills the primitive, its weight operand and scratch; null where oneDNN refuses.
std::unique_ptr<PreparedKernel> finish_matmul(const KernelContext& ctx, std::unique_ptr<MatMulKernel> k, const memory::desc& b_plain,
                                       const dnnl::primitive_attr& attr) {
  try {
    const memory::desc b_any(b_plain.dims(), memory::data_type::f32, memory::format_tag::any);
    // A weight B is packed once in the layout oneDNN prefers; a computed B is read as it is.
    const bool pack = ctx.input_is_weight(1);
    const memory::desc b_want = pack ? b_any : b_plain;
    const dnnl::matmul::desc desc = k->m_c == MatMulKernel::CKind::Bias ? dnnl::matmul::desc(k->m_a, b_want, k->m_c_desc, k->m_y)
                                                                        : dnnl::matmul::desc(k->m_a, b_want, k->m_y);
    const dnnl::matmul::primitive_desc pd(desc, attr, dnnl_engine());
    ScratchLayout layout;
    k->take<dnnl::matmul>(pd, layout);
    k->m_b.prepare_input(b_plain, pd.weights_desc(), layout, pack ? ctx.in(1).data : nullptr, *k);
    k->scratch_bytes = layout.size();
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return k;
}

std::unique_ptr<PreparedKernel> prepare_gemm(const KernelContext& ctx) {
  if (ctx.batch_invariant() || !ctx.has_input(0) || !ctx.has_input(1)) return nullptr;
  const View& a = ctx.in(0);
  const View& b = ctx.in(1);
  if (a.dtype != DType::Float32 || b.dtype != DType::Float32 || a.shape.size() != 2 || b.shape.size() != 2) return nullptr;
  const Node& node = ctx.node();
  const bool ta = node.attr_int("transA", 0) != 0, tb = node.attr_int("transB", 0) != 0;
  const std::int64_t m = ta ? a.shape[1] : a.shape[0], kk = ta ? a.shape[0] : a.shape[1];
  const std::int64_t n = tb ? b.shape[0] : b.shape[1];
  if ((tb ? b.shape[1] : b.shape[0]) != kk || m == 0 || n == 0 || kk == 0) return nullptr;
  const float alpha = node.attr_float("alpha", 1.0f), beta = node.attr_float("beta", 1.0f);
  auto k = std::make_unique<MatMulKernel>();
  k->m_shape = {m, n};
  k->m_a = matrix(m, kk, ta);
  k->m_y = plain_f32(k->m_shape);
  dnnl::primitive_attr attr = scratchpad_attr();
  if (ctx.has_input(2) && beta != 0.0f) {
    const View& c = ctx.in(2);
    if (c.dtype != DType::Float32 || beta != 1.0f || alpha != 1.0f || c.shape.size() > 2) return nullptr;
    const Shape c2 = c.shape.size() == 2 ? c.shape : c.shape.size() == 1 ? Shape{1, c.shape[0]} : Shape{1, 1};
    if ((c2[0] != 1 && c2[0] != m) || (c2[1] != 1 && c2[1] != n)) return nullptr;
    k->m_c_desc = plain_f32(c2);
    if (c2 == Shape{1, n}) {
      k->m_c = MatMulKernel::CKind::Bias;
    } else {
      k->m_c = MatMulKernel::CKind::Added;
      dnnl::post_ops ops;
      ops.append_binary(dnnl::algorithm::binary_add, k->m_c_desc);
      attr.set_post_ops(ops);
    }
  } else if (alpha != 1.0f) {
    attr.set_output_scales(0, {alpha});
  }
  return finish_matmul(ctx, std::move(k), matrix(kk, n, tb), attr);
}

std::unique_ptr<PreparedKernel> prepare_matmul(const KernelContext& ctx) {
  if (ctx.batch_invariant() || !ctx.has_input(0) || !ctx.has_input(1)) return nullptr;
  const View& a = ctx.in(0);
  const View& b = ctx.in(1);
  if (a.dtype != DType::Float32 || b.dtype != DType::Float32 || a.shape.size() < 2 || b.shape.size() < 2) return nullptr;
  if (a.elements() == 0 || b.elements() == 0) return nullptr;
  const std::size_t rank = std::max(a.shape.size(), b.shape.size());
  Shape as(rank - a.shape.size(), 1), bs(rank - b.shape.size(), 1);
  as.insert(as.end(), a.shape.begin(), a.shape.end());
  bs.insert(bs.end(), b.shape.begin(), b.shape.end());
  if (as[rank - 1] != bs[rank - 2]) return nullptr;
  Shape out(rank);
  for (std::size_t d = 0; d + 2 < rank; ++d) {
    if (as[d] != bs[d] && as[d] != 1 && bs[d] != 1) return nullptr;
    out[d] = std::max(as[d], bs[d]);
  }
  out[rank - 2] = as[rank - 2];
  out[rank - 1] = bs[rank - 1];
  auto k = std::make_unique<MatMulKernel>();
  // The output keeps ONNX's rank (the larger operand's); oneDNN sees both operands at that rank.
  k->m_shape = out;
  k->m_a = plain_f32(as);
  k->m_y = plain_f32(out);
  return finish_matmul(ctx, std::move(k), plain_f32(bs), scratchpad_attr());
}

}  // namespace

void register_matmul(LibraryRegistry& r) {
  r.add("Gemm", prepare_gemm);
  r.add("MatMul", prepare_matmul);
}

}  // namespace weft::core::detail::library
