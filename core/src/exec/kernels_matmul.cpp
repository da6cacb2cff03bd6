// MatMul (numpy semantics, batched with broadcasting) and Gemm through OpenBLAS.
#include <cblas.h>

#include <algorithm>

#include "kernel.h"

namespace weft::core::detail {
namespace {

template <class T>
void gemm_call(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a, std::int64_t lda,
               const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc) {
  const auto ca = ta ? CblasTrans : CblasNoTrans;
  const auto cb = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, ca, cb, static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k),
                alpha, a, static_cast<blasint>(lda), b, static_cast<blasint>(ldb), beta, c, static_cast<blasint>(ldc));
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(CblasRowMajor, ca, cb, static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k),
                alpha, a, static_cast<blasint>(lda), b, static_cast<blasint>(ldb), beta, c, static_cast<blasint>(ldc));
  } else {
    // Integer matmul (rare: shape arithmetic); plain loops are exact.
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        T acc{0};
        for (std::int64_t p = 0; p < k; ++p) {
          const T av = ta ? a[p * lda + i] : a[i * lda + p];
          const T bv = tb ? b[j * ldb + p] : b[p * ldb + j];
          acc = static_cast<T>(acc + av * bv);
        }
        c[i * ldc + j] = static_cast<T>(alpha * acc + (beta == T{0} ? T{0} : beta * c[i * ldc + j]));
      }
  }
}

// C = alpha·op(A)·op(B) + beta·C. Batch-invariant: one call per row of C (row i of op(A) starts at
// a + i·lda, or at a + i when A is transposed), so every row is computed by the same M = 1 call
// whatever M is.
template <class T>
void gemm(bool batch_invariant, bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a,
          std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc) {
  if (!batch_invariant || m <= 1) {
    gemm_call<T>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  for (std::int64_t i = 0; i < m; ++i)
    gemm_call<T>(ta, tb, 1, n, k, alpha, ta ? a + i : a + i * lda, lda, b, ldb, beta, c + i * ldc, ldc);
}

Status matmul_kernel(KernelContext& ctx) {
  const View& a = ctx.in(0);
  const View& b = ctx.in(1);
  if (a.dtype != b.dtype) return kernel_error(ctx, "operand dtypes differ");
  if (a.shape.empty() || b.shape.empty()) return kernel_error(ctx, "scalar operand");
  Shape as = a.shape, bs = b.shape;
  const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as.insert(as.begin(), 1);
  if (b_vec) bs.push_back(1);
  const std::int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  if (bs[bs.size() - 2] != k) return kernel_error(ctx, "inner dimensions differ");
  const Shape abatch(as.begin(), as.end() - 2), bbatch(bs.begin(), bs.end() - 2);
  Shape batch;
  const std::array<Shape, 2> bshapes{abatch, bbatch};
  if (!broadcast_shapes(bshapes, batch)) return kernel_error(ctx, "batch dimensions do not broadcast");
  Shape out_shape = batch;
  if (!a_vec) out_shape.push_back(m);
  if (!b_vec) out_shape.push_back(n);
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, a.dtype, out_shape));
  const std::array<Shape, 2> st{broadcast_strides(abatch, batch), broadcast_strides(bbatch, batch)};
  const bool ok = dispatch_numeric(a.dtype, [&](auto t) {
    using T = decltype(t);
    const T* pa = a.as<const T>();
    const T* pb = b.as<const T>();
    T* out = y.as<T>();
    if (k == 0) std::fill_n(out, y.elements(), T{0});
    if (k == 0) return;
    for_each_broadcast<2>(batch, st, [&](std::int64_t o, const std::array<std::int64_t, 2>& off) {
      gemm<T>(ctx.batch_invariant(), false, false, m, n, k, T{1}, pa + off[0] * m * k, k, pb + off[1] * k * n, n, T{0}, out + o * m * n, n);
    });
  });
  if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(a.dtype)));
  return {};
}

Status gemm_kernel(KernelContext& ctx) {
  const View& a = ctx.in(0);
  const View& b = ctx.in(1);
  if (a.shape.size() != 2 || b.shape.size() != 2) return kernel_error(ctx, "A and B must be 2-D");
  const Node& node = ctx.node();
  const bool ta = node.attr_int("transA", 0) != 0, tb = node.attr_int("transB", 0) != 0;
  const std::int64_t m = ta ? a.shape[1] : a.shape[0], k = ta ? a.shape[0] : a.shape[1];
  const std::int64_t n = tb ? b.shape[0] : b.shape[1];
  if ((tb ? b.shape[1] : b.shape[0]) != k) return kernel_error(ctx, "inner dimensions differ");
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, a.dtype, {m, n}));
  const float alpha = node.attr_float("alpha", 1.0f), beta = node.attr_float("beta", 1.0f);
  Status result;
  const bool ok = dispatch_numeric(a.dtype, [&](auto t) {
    using T = decltype(t);
    T* out = y.as<T>();
    T use_beta{0};
    if (ctx.has_input(2) && beta != 0.0f) {
      const View& c = ctx.in(2);
      const Shape out_shape{m, n};
      Shape bc;
      const std::array<Shape, 2> shapes{c.shape, out_shape};
      if (!broadcast_shapes(shapes, bc) || bc != out_shape) {
        result = kernel_error(ctx, "C does not broadcast to (M, N)");
        return;
      }
      const std::array<Shape, 1> st{broadcast_strides(c.shape, out_shape)};
      const T* pc = c.as<const T>();
      for_each_broadcast<1>(out_shape, st, [&](std::int64_t o, const std::array<std::int64_t, 1>& off) { out[o] = pc[off[0]]; });
      use_beta = static_cast<T>(beta);
    }
    if (k == 0) {
      for (std::int64_t i = 0; i < m * n; ++i) out[i] = static_cast<T>(use_beta * out[i]);
      return;
    }
    gemm<T>(ctx.batch_invariant(), ta, tb, m, n, k, static_cast<T>(alpha), a.as<const T>(), a.shape[1], b.as<const T>(), b.shape[1], use_beta,
            out, n);
  });
  if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(a.dtype)));
  return result;
}

}  // namespace

void register_matmul_kernels(KernelRegistry& r) {
  r.add("Gemm", gemm_kernel);
  r.add("MatMul", matmul_kernel);
}

}  // namespace weft::core::detail
