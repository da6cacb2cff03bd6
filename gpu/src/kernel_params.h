#pragma once
// Private: what one launch of the executor's own kernels needs besides its pointers (shapes,
// strides, operator codes). Plain data without CUDA types: the host-side geometry that fills them
// (op_geometry.h) builds and is tested where no CUDA toolkit is installed.
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

enum class UnaryOp : int { Relu, Sigmoid, Tanh, HardSigmoid, HardSwish, Clip, LeakyRelu, Sqrt, Erf, DivideBy };
enum class BinaryOp : int { Add, Sub, Mul, Div, Pow };

struct Pool2d {
  std::int64_t planes = 0, h = 0, w = 0, oh = 0, ow = 0;
  int kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  bool max = true;
  bool count_include_pad = false;
};

/// One launch of the elementwise, strided-copy and row-wise kernels (one thread per output element,
/// or per row of Softmax/ReduceMean): what a node needs besides its pointers.
///  Unary: y[i] = op(x[i]); p0/p1: HardSigmoid alpha/beta, Clip min/max, LeakyRelu alpha, DivideBy's
///         divisor (Mean's count).
///  Binary: y = x op b with numpy broadcasting described by `shape` (y contiguous).
///  Copy: y = x broadcast to `shape` (a_stride only), from element `base`: any strides work
///        (Transpose permutes them, Slice scales them by its steps and starts at `base`).
///  Softmax: over the middle axis of [outer, dim, inner]. ReduceMean: its mean into [outer, inner].
struct MemberLaunch {
  enum class Family : int { Unary, Binary, Copy, Softmax, ReduceMean };
  Family family = Family::Unary;
  UnaryOp unary = UnaryOp::Relu;
  BinaryOp binary = BinaryOp::Add;
  float p0 = 0, p1 = 0;  ///< as launch_unary's
  Broadcast shape;       ///< Binary, Copy
  std::int64_t base = 0;   ///< Copy: element offset of the first element read (Slice)
  std::int64_t count = 0;  ///< output elements (Unary, Binary, Copy)
  std::int64_t outer = 0, dim = 0, inner = 0;  ///< Softmax, ReduceMean
};

/// Device pointer arrays of a merged group: member i reads x[i] (and b[i], a binary operator's
/// second operand) and writes y[i].
struct Members {
  int count = 0;
  const float* const* x = nullptr;
  const float* const* b = nullptr;
  float* const* y = nullptr;
};
inline constexpr int kMaxMembers = 65535;  ///< the grid's y extent

}  // namespace weft::gpu::detail
