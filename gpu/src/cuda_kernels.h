#pragma once
// Private: the executor's own CUDA kernels (float32), as host launchers. Each returns the launch
// error (cudaGetLastError) so that the caller can name the node; no other CUDA call is made.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernel_params.h"

namespace weft::gpu::detail {

/// y = a broadcast to shape (a_stride only), n = product of dims. Any strides work (a strided
/// copy: Transpose permutes them, Slice scales them by its steps and offsets `a`).
cudaError_t launch_broadcast_copy(cudaStream_t s, const Broadcast& shape, const float* a, float* y, std::int64_t n);
/// y[o, j, i] = x[o, idx[j], i] over x viewed as [outer, dim, inner] (negative indices count from
/// the end; the caller checked the range).
cudaError_t launch_gather(cudaStream_t s, std::int64_t outer, std::int64_t dim, std::int64_t n, std::int64_t inner, const float* x,
                          const std::int64_t* idx, float* y);

/// Max or average pooling over NCHW planes (ONNX semantics, windows clipped as the CPU reference does).
cudaError_t launch_pool2d(cudaStream_t s, const Pool2d& p, const float* x, float* y);

/// ONNX LRN across channels of NC(HW): y = x / (bias + alpha/size * sum of squares)^beta.
cudaError_t launch_lrn(cudaStream_t s, std::int64_t n, std::int64_t c, std::int64_t hw, int size, float alpha, float beta,
                       float bias, const float* x, float* y);
/// Inference batch normalization over NC(HW).
cudaError_t launch_batchnorm(cudaStream_t s, std::int64_t n, std::int64_t c, std::int64_t hw, const float* x, const float* scale,
                             const float* bias, const float* mean, const float* var, float epsilon, float* y);
/// Copies x viewed as [outer, part, inner] into y viewed as [outer, total, inner] at `offset` on the middle axis.
cudaError_t launch_concat_part(cudaStream_t s, std::int64_t outer, std::int64_t part, std::int64_t total, std::int64_t offset,
                               std::int64_t inner, const float* x, float* y);

/// One node's launch.
cudaError_t launch_one(cudaStream_t s, const MemberLaunch& l, const float* x, const float* b, float* y);
/// Every member of a merged group in one launch (the grid's y index is the member): the same
/// kernels and formulas as the single launchers above.
cudaError_t launch_members(cudaStream_t s, const MemberLaunch& l, const Members& m);

/// y[i][r * cols + c] = bias[i][c] for `count` outputs of rows x cols (pointer arrays in device
/// memory): the bias rows of a merged group of GEMMs, one launch for the group.
cudaError_t launch_bias_rows(cudaStream_t s, int count, std::int64_t rows, std::int64_t cols, const float* const* bias,
                             float* const* y);

/// One empty kernel (one thread that does nothing) on `s`: what launch and graph costs are timed with.
cudaError_t launch_empty(cudaStream_t s);
/// Adds an empty kernel node to `graph` after the given dependencies (none: a root).
cudaError_t add_empty_node(cudaGraph_t graph, const cudaGraphNode_t* deps, std::size_t deps_count, cudaGraphNode_t* node);

}  // namespace weft::gpu::detail
