#pragma once
// Private: the executor's own CUDA kernels (float32), as host launchers. Each returns the launch
// error (cudaGetLastError) so that the caller can name the node; no other CUDA call is made.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace weft::gpu::detail {

inline constexpr int kMaxRank = 6;

/// An output shape with, per input, element strides into it (0 on broadcast dimensions).
struct Broadcast {
  int rank = 0;
  std::int64_t dims[kMaxRank] = {};
  std::int64_t a_stride[kMaxRank] = {};
  std::int64_t b_stride[kMaxRank] = {};
};

enum class UnaryOp : int { Relu, Sigmoid, Tanh, HardSigmoid, HardSwish, Clip, LeakyRelu, Sqrt, Erf };
enum class BinaryOp : int { Add, Sub, Mul, Div, Pow };

/// y[i] = op(x[i]); p0/p1: HardSigmoid alpha/beta, Clip min/max, LeakyRelu alpha.
cudaError_t launch_unary(cudaStream_t s, UnaryOp op, float p0, float p1, const float* x, float* y, std::int64_t n);
/// y = a op b with numpy broadcasting described by `b` (y contiguous, n = product of dims).
cudaError_t launch_binary(cudaStream_t s, BinaryOp op, const Broadcast& shape, const float* a, const float* b, float* y, std::int64_t n);
/// y = a broadcast to shape (a_stride only), n = product of dims. Any strides work (a strided
/// copy: Transpose permutes them, Slice scales them by its steps and offsets `a`).
cudaError_t launch_broadcast_copy(cudaStream_t s, const Broadcast& shape, const float* a, float* y, std::int64_t n);
/// y[o, j, i] = x[o, idx[j], i] over x viewed as [outer, dim, inner] (negative indices count from
/// the end; the caller checked the range).
cudaError_t launch_gather(cudaStream_t s, std::int64_t outer, std::int64_t dim, std::int64_t n, std::int64_t inner, const float* x,
                          const std::int64_t* idx, float* y);

struct Pool2d {
  std::int64_t planes = 0, h = 0, w = 0, oh = 0, ow = 0;
  int kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  bool max = true;
  bool count_include_pad = false;
};
/// Max or average pooling over NCHW planes (ONNX semantics, windows clipped as the CPU reference does).
cudaError_t launch_pool2d(cudaStream_t s, const Pool2d& p, const float* x, float* y);

/// ONNX LRN across channels of NC(HW): y = x / (bias + alpha/size * sum of squares)^beta.
cudaError_t launch_lrn(cudaStream_t s, std::int64_t n, std::int64_t c, std::int64_t hw, int size, float alpha, float beta,
                       float bias, const float* x, float* y);
/// Inference batch normalization over NC(HW).
cudaError_t launch_batchnorm(cudaStream_t s, std::int64_t n, std::int64_t c, std::int64_t hw, const float* x, const float* scale,
                             const float* bias, const float* mean, const float* var, float epsilon, float* y);
/// Softmax over the middle axis of [outer, dim, inner].
cudaError_t launch_softmax(cudaStream_t s, std::int64_t outer, std::int64_t dim, std::int64_t inner, const float* x, float* y);
/// Mean over the middle axis of [outer, dim, inner] into [outer, inner].
cudaError_t launch_reduce_mean(cudaStream_t s, std::int64_t outer, std::int64_t dim, std::int64_t inner, const float* x, float* y);
/// Copies x viewed as [outer, part, inner] into y viewed as [outer, total, inner] at `offset` on the middle axis.
cudaError_t launch_concat_part(cudaStream_t s, std::int64_t outer, std::int64_t part, std::int64_t total, std::int64_t offset,
                               std::int64_t inner, const float* x, float* y);

/// y[i][r * cols + c] = bias[i][c] for `count` outputs of rows x cols (pointer arrays in device
/// memory): the bias rows of a merged group of GEMMs, one launch for the group.
cudaError_t launch_bias_rows(cudaStream_t s, int count, std::int64_t rows, std::int64_t cols, const float* const* bias,
                             float* const* y);

/// One empty kernel (one thread that does nothing) on `s`: what launch and graph costs are timed with.
cudaError_t launch_empty(cudaStream_t s);
/// Adds an empty kernel node to `graph` after the given dependencies (none: a root).
cudaError_t add_empty_node(cudaGraph_t graph, const cudaGraphNode_t* deps, std::size_t deps_count, cudaGraphNode_t* node);

}  // namespace weft::gpu::detail
