#pragma once
// Private to the CUDA executor's node preparation: what cuda_ops.cpp (one node's launch) and
// cuda_merged_ops.cpp (one launch for a merged group) share.
#include <cublas_v2.h>

#include <cstddef>
#include <memory>
#include <optional>

#include "cuda_ops.h"
#include "cuda_resources.h"
#include "op_geometry.h"

namespace weft::gpu::detail {

/// The cuBLAS call's arguments for a GEMM: row-major Y[M,N] = op(A) op(B) is column-major
/// Y^T = op(B)^T op(A)^T, so cuBLAS gets B first, with N rows of the result and M columns.
struct GemmBlas {
  cublasOperation_t op_a, op_b;
  int m, n, k, lda, ldb;
};
GemmBlas gemm_blas(const GemmGeometry& g);

/// A convolution's cuDNN launch (the forward algorithm cuDNN's heuristics rank first among those
/// usable with the chosen maths), then its bias. `keep` (may be null) holds device memory the
/// launch reads (a merged convolution's concatenated filters).
core::Expected<PreparedNode> conv_launch(const PrepareContext& ctx, const core::Graph& g, core::NodeId n, const ConvGeometry& cg,
                                         const float* x, const float* w, const float* bias, float* y, std::shared_ptr<DeviceBuffer> keep);

/// One launch for a merged node's members where their launches differ only in their pointers,
/// tried in this order by prepare_node; each empty where its kind of group does not apply (the
/// members then run one after another). `ctx` is the body's (its graph, device pointers, host
/// values).
/// Equal GEMMs: cuBLASLt with the bias epilogue, else the bias kernel and a batched GEMM.
core::Expected<std::optional<PreparedNode>> batched_gemm(const PrepareContext& ctx);
/// Equal elementwise, strided-copy or row-wise operators: one kernel over pointer arrays.
core::Expected<std::optional<PreparedNode>> batched_members(const PrepareContext& ctx);
/// Same-input convolutions at batch 1 with adjacent outputs: one convolution over concatenated filters.
core::Expected<std::optional<PreparedNode>> concat_conv(const PrepareContext& ctx);

}  // namespace weft::gpu::detail
