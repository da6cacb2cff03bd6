// The executor's own kernels: elementwise with broadcasting, pooling, LRN, batch norm, softmax,
// mean, concat. One thread per output element (grid-stride); float32 with the CPU reference's
// formulas so outputs compare within rounding.
#include "cuda_kernels.h"

#include <algorithm>
#include <cfloat>

namespace weft::gpu::detail {
namespace {

constexpr int kBlock = 256;

unsigned grid_for(std::int64_t n) {
  // Grid-stride loops cover the rest; 65535 * 8 blocks is plenty to fill any current GPU.
  return static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>((n + kBlock - 1) / kBlock, 65535 * 8)));
}

#define WEFT_GRID_STRIDE(i, n) \
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < (n); i += static_cast<std::int64_t>(blockDim.x) * gridDim.x)

__device__ float apply_unary(UnaryOp op, float x, float p0, float p1) {
  switch (op) {
    case UnaryOp::Relu: return x > 0.0f ? x : 0.0f;
    case UnaryOp::Sigmoid: return 1.0f / (1.0f + expf(-x));
    case UnaryOp::Tanh: return tanhf(x);
    case UnaryOp::HardSigmoid: return fmaxf(0.0f, fminf(1.0f, p0 * x + p1));
    case UnaryOp::HardSwish: return x * fmaxf(0.0f, fminf(1.0f, x / 6.0f + 0.5f));
    case UnaryOp::Clip: return fminf(fmaxf(x, p0), p1);
    case UnaryOp::LeakyRelu: return x >= 0.0f ? x : p0 * x;
    case UnaryOp::Sqrt: return sqrtf(x);
    case UnaryOp::Erf: return erff(x);
    case UnaryOp::DivideBy: return x / p0;
  }
  return x;
}

__device__ float apply_binary(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::Add: return a + b;
    case BinaryOp::Sub: return a - b;
    case BinaryOp::Mul: return a * b;
    case BinaryOp::Div: return a / b;
    case BinaryOp::Pow: return powf(a, b);
  }
  return a;
}

// Where a kernel's operands are: one node's pointers, or a merged group's pointer arrays in device
// memory (member = blockIdx.y). One kernel body serves both.
struct Single {
  const float* x;
  const float* b;
  float* y;
  __device__ const float* in(unsigned) const { return x; }
  __device__ const float* in_b(unsigned) const { return b; }
  __device__ float* out(unsigned) const { return y; }
};
struct Group {
  const float* const* x;
  const float* const* b;
  float* const* y;
  __device__ const float* in(unsigned m) const { return x[m]; }
  __device__ const float* in_b(unsigned m) const { return b[m]; }
  __device__ float* out(unsigned m) const { return y[m]; }
};

template <class P>
__global__ void unary_kernel(UnaryOp op, float p0, float p1, P p, std::int64_t n) {
  const float* x = p.in(blockIdx.y);
  float* y = p.out(blockIdx.y);
  WEFT_GRID_STRIDE(i, n) { y[i] = apply_unary(op, x[i], p0, p1); }
}

template <class P>
__global__ void binary_kernel(BinaryOp op, Broadcast shape, P p, std::int64_t n) {
  const float* a = p.in(blockIdx.y);
  const float* b = p.in_b(blockIdx.y);
  float* y = p.out(blockIdx.y);
  WEFT_GRID_STRIDE(i, n) {
    std::int64_t rem = i, ia = 0, ib = 0;
    for (int d = shape.rank - 1; d >= 0; --d) {
      const std::int64_t c = rem % shape.dims[d];
      rem /= shape.dims[d];
      ia += c * shape.a_stride[d];
      ib += c * shape.b_stride[d];
    }
    y[i] = apply_binary(op, a[ia], b[ib]);
  }
}

template <class P>
__global__ void broadcast_copy_kernel(Broadcast shape, std::int64_t base, P p, std::int64_t n) {
  const float* a = p.in(blockIdx.y) + base;
  float* y = p.out(blockIdx.y);
  WEFT_GRID_STRIDE(i, n) {
    std::int64_t rem = i, ia = 0;
    for (int d = shape.rank - 1; d >= 0; --d) {
      ia += (rem % shape.dims[d]) * shape.a_stride[d];
      rem /= shape.dims[d];
    }
    y[i] = a[ia];
  }
}

__global__ void gather_kernel(std::int64_t outer, std::int64_t dim, std::int64_t n, std::int64_t inner, const float* x,
                              const std::int64_t* idx, float* y) {
  WEFT_GRID_STRIDE(i, outer * n * inner) {
    const std::int64_t in = i % inner, j = (i / inner) % n, o = i / (inner * n);
    std::int64_t k = idx[j];
    if (k < 0) k += dim;
    y[i] = x[(o * dim + k) * inner + in];
  }
}

__global__ void pool2d_kernel(Pool2d p, const float* x, float* y) {
  const std::int64_t n = p.planes * p.oh * p.ow;
  WEFT_GRID_STRIDE(i, n) {
    const std::int64_t ox = i % p.ow, oy = (i / p.ow) % p.oh, plane = i / (p.ow * p.oh);
    const float* in = x + plane * p.h * p.w;
    const std::int64_t y0 = oy * p.sh - p.pad_top, x0 = ox * p.sw - p.pad_left;
    float best = -FLT_MAX, sum = 0.0f;
    int count = 0;
    // Visit taps in the CPU reference's order (row-major over the window) so sums round alike.
    for (int ky = 0; ky < p.kh; ++ky) {
      const std::int64_t yy = y0 + static_cast<std::int64_t>(ky) * p.dh;
      if (yy < 0 || yy >= p.h) continue;
      for (int kx = 0; kx < p.kw; ++kx) {
        const std::int64_t xx = x0 + static_cast<std::int64_t>(kx) * p.dw;
        if (xx < 0 || xx >= p.w) continue;
        const float v = in[yy * p.w + xx];
        best = fmaxf(best, v);
        sum += v;
        ++count;
      }
    }
    if (p.max) {
      y[i] = best;
    } else {
      std::int64_t divisor = count;
      if (p.count_include_pad) {
        // Window clipped to the padded input, as ONNX (and the CPU reference) count it.
        const std::int64_t ey = min(y0 + static_cast<std::int64_t>(p.kh - 1) * p.dh + 1, p.h + p.pad_bottom);
        const std::int64_t ex = min(x0 + static_cast<std::int64_t>(p.kw - 1) * p.dw + 1, p.w + p.pad_right);
        divisor = ((ey - y0 + p.dh - 1) / p.dh) * ((ex - x0 + p.dw - 1) / p.dw);
      }
      y[i] = divisor > 0 ? sum / static_cast<float>(divisor) : 0.0f;
    }
  }
}

__global__ void lrn_kernel(std::int64_t n, std::int64_t c, std::int64_t hw, int size, float alpha, float beta, float bias,
                           const float* x, float* y) {
  WEFT_GRID_STRIDE(i, n * c * hw) {
    const std::int64_t pos = i % hw, ch = (i / hw) % c, batch = i / (hw * c);
    const std::int64_t lo = max(std::int64_t{0}, ch - (size - 1) / 2), hi = min(c - 1, ch + size / 2);
    float sq = 0.0f;
    for (std::int64_t k = lo; k <= hi; ++k) {
      const float v = x[(batch * c + k) * hw + pos];
      sq += v * v;
    }
    y[i] = x[i] / powf(bias + alpha / static_cast<float>(size) * sq, beta);
  }
}

__global__ void batchnorm_kernel(std::int64_t n, std::int64_t c, std::int64_t hw, const float* x, const float* scale, const float* bias,
                                 const float* mean, const float* var, float epsilon, float* y) {
  WEFT_GRID_STRIDE(i, n * c * hw) {
    const std::int64_t ch = (i / hw) % c;
    y[i] = (x[i] - mean[ch]) / sqrtf(var[ch] + epsilon) * scale[ch] + bias[ch];
  }
}

template <class P>
__global__ void softmax_kernel(std::int64_t outer, std::int64_t dim, std::int64_t inner, P p) {
  const float* x = p.in(blockIdx.y);
  float* y = p.out(blockIdx.y);
  WEFT_GRID_STRIDE(i, outer * inner) {
    const std::int64_t o = i / inner, in = i % inner;
    const float* px = x + o * dim * inner + in;
    float* py = y + o * dim * inner + in;
    float m = -FLT_MAX;
    for (std::int64_t k = 0; k < dim; ++k) m = fmaxf(m, px[k * inner]);
    float sum = 0.0f;
    for (std::int64_t k = 0; k < dim; ++k) {
      const float e = expf(px[k * inner] - m);
      py[k * inner] = e;
      sum += e;
    }
    for (std::int64_t k = 0; k < dim; ++k) py[k * inner] /= sum;
  }
}

template <class P>
__global__ void reduce_mean_kernel(std::int64_t outer, std::int64_t dim, std::int64_t inner, P p) {
  const float* x = p.in(blockIdx.y);
  float* y = p.out(blockIdx.y);
  WEFT_GRID_STRIDE(i, outer * inner) {
    const std::int64_t o = i / inner, in = i % inner;
    float sum = 0.0f;
    for (std::int64_t k = 0; k < dim; ++k) sum += x[(o * dim + k) * inner + in];
    y[i] = sum / static_cast<float>(dim);
  }
}

__global__ void concat_part_kernel(std::int64_t outer, std::int64_t part, std::int64_t total, std::int64_t offset, std::int64_t inner,
                                   const float* x, float* y) {
  WEFT_GRID_STRIDE(i, outer * part * inner) {
    const std::int64_t in = i % inner, k = (i / inner) % part, o = i / (inner * part);
    y[(o * total + offset + k) * inner + in] = x[i];
  }
}

}  // namespace

cudaError_t launch_broadcast_copy(cudaStream_t s, const Broadcast& shape, const float* a, float* y, std::int64_t n) {
  if (n > 0) broadcast_copy_kernel<<<grid_for(n), kBlock, 0, s>>>(shape, 0, Single{a, nullptr, y}, n);
  return cudaGetLastError();
}

cudaError_t launch_gather(cudaStream_t s, std::int64_t outer, std::int64_t dim, std::int64_t n, std::int64_t inner, const float* x,
                          const std::int64_t* idx, float* y) {
  if (outer * n * inner > 0) gather_kernel<<<grid_for(outer * n * inner), kBlock, 0, s>>>(outer, dim, n, inner, x, idx, y);
  return cudaGetLastError();
}

cudaError_t launch_pool2d(cudaStream_t s, const Pool2d& p, const float* x, float* y) {
  const std::int64_t n = p.planes * p.oh * p.ow;
  if (n > 0) pool2d_kernel<<<grid_for(n), kBlock, 0, s>>>(p, x, y);
  return cudaGetLastError();
}

cudaError_t launch_lrn(cudaStream_t s, std::int64_t n, std::int64_t c, std::int64_t hw, int size, float alpha, float beta, float bias,
                       const float* x, float* y) {
  if (n * c * hw > 0) lrn_kernel<<<grid_for(n * c * hw), kBlock, 0, s>>>(n, c, hw, size, alpha, beta, bias, x, y);
  return cudaGetLastError();
}

cudaError_t launch_batchnorm(cudaStream_t s, std::int64_t n, std::int64_t c, std::int64_t hw, const float* x, const float* scale,
                             const float* bias, const float* mean, const float* var, float epsilon, float* y) {
  if (n * c * hw > 0) batchnorm_kernel<<<grid_for(n * c * hw), kBlock, 0, s>>>(n, c, hw, x, scale, bias, mean, var, epsilon, y);
  return cudaGetLastError();
}

cudaError_t launch_concat_part(cudaStream_t s, std::int64_t outer, std::int64_t part, std::int64_t total, std::int64_t offset,
                               std::int64_t inner, const float* x, float* y) {
  const std::int64_t n = outer * part * inner;
  if (n > 0) concat_part_kernel<<<grid_for(n), kBlock, 0, s>>>(outer, part, total, offset, inner, x, y);
  return cudaGetLastError();
}

namespace {
template <class P>
cudaError_t dispatch(cudaStream_t s, const MemberLaunch& l, const P& p, unsigned members) {
  const auto grid = [&](std::int64_t n) { return dim3(grid_for(n), members); };
  switch (l.family) {
    case MemberLaunch::Family::Unary:
      if (l.count > 0) unary_kernel<<<grid(l.count), kBlock, 0, s>>>(l.unary, l.p0, l.p1, p, l.count);
      break;
    case MemberLaunch::Family::Binary:
      if (l.count > 0) binary_kernel<<<grid(l.count), kBlock, 0, s>>>(l.binary, l.shape, p, l.count);
      break;
    case MemberLaunch::Family::Copy:
      if (l.count > 0) broadcast_copy_kernel<<<grid(l.count), kBlock, 0, s>>>(l.shape, l.base, p, l.count);
      break;
    case MemberLaunch::Family::Softmax:
      if (l.outer * l.inner > 0) softmax_kernel<<<grid(l.outer * l.inner), kBlock, 0, s>>>(l.outer, l.dim, l.inner, p);
      break;
    case MemberLaunch::Family::ReduceMean:
      if (l.outer * l.inner > 0) reduce_mean_kernel<<<grid(l.outer * l.inner), kBlock, 0, s>>>(l.outer, l.dim, l.inner, p);
      break;
  }
  return cudaGetLastError();
}
}  // namespace

cudaError_t launch_one(cudaStream_t s, const MemberLaunch& l, const float* x, const float* b, float* y) {
  return dispatch(s, l, Single{x, b, y}, 1);
}

cudaError_t launch_members(cudaStream_t s, const MemberLaunch& l, const Members& m) {
  if (m.count < 1 || m.count > kMaxMembers) return cudaErrorInvalidValue;
  return dispatch(s, l, Group{m.x, m.b, m.y}, static_cast<unsigned>(m.count));
}

namespace {
__global__ void bias_rows_kernel(int count, std::int64_t rows, std::int64_t cols, const float* const* bias, float* const* y) {
  const std::int64_t per = rows * cols, total = per * count;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
    const std::int64_t member = i / per, at = i % per;
    y[member][at] = bias[member][at % cols];
  }
}
}  // namespace

cudaError_t launch_bias_rows(cudaStream_t s, int count, std::int64_t rows, std::int64_t cols, const float* const* bias,
                             float* const* y) {
  const std::int64_t total = rows * cols * count;
  if (total > 0) bias_rows_kernel<<<grid_for(total), kBlock, 0, s>>>(count, rows, cols, bias, y);
  return cudaGetLastError();
}

namespace {
__global__ void empty_kernel() {}
}  // namespace

cudaError_t launch_empty(cudaStream_t s) {
  empty_kernel<<<1, 1, 0, s>>>();
  return cudaGetLastError();
}

cudaError_t add_empty_node(cudaGraph_t graph, const cudaGraphNode_t* deps, std::size_t deps_count, cudaGraphNode_t* node) {
  cudaKernelNodeParams p{};
  p.func = reinterpret_cast<void*>(&empty_kernel);
  p.gridDim = dim3(1, 1, 1);
  p.blockDim = dim3(1, 1, 1);
  p.sharedMemBytes = 0;
  p.kernelParams = nullptr;  // the kernel takes no parameters
  p.extra = nullptr;
  return cudaGraphAddKernelNode(node, graph, deps, deps_count, &p);
}

}  // namespace weft::gpu::detail
