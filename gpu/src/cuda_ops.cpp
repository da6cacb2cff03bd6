// Per-node preparation for the CUDA executor: attribute and shape checks shared by
// cuda_check_supported and prepare_node, then the launch function of each operator family
// (cuDNN convolution, cuBLAS GEMM, the executor's own kernels, device copies for views).
#include "cuda_ops.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <set>

#include "weft/core/merge_graph.h"

#include "cuda_check.h"
#include "cuda_kernels.h"
#include "cuda_resources.h"

namespace weft::gpu::detail {
namespace {

using core::Graph;
using core::Node;
using core::NodeId;
using core::Status;
using core::TensorId;
using Shape = std::vector<std::int64_t>;

const std::set<std::string, std::less<>>& op_set() {
  static const std::set<std::string, std::less<>> ops = {
      "Add",       "AveragePool", "BatchNormalization", "Clip",          "Concat",      "Conv",      "Div",      "Dropout",
      "Erf",       "Flatten",     "Gather",             "Gemm",          "GlobalAveragePool", "GlobalMaxPool", "HardSigmoid",
      "HardSwish", "Identity",    "LRN",                "LeakyRelu",     "MatMul",      "MaxPool",   "Mean",     "Mul",
      "Pow",       "ReduceMean",  "Relu",               "Reshape",       "Sigmoid",     "Slice",     "Softmax",  "Sqrt",
      "Squeeze",   "Sub",         "Sum",                "Tanh",          "Transpose",   "Unsqueeze"};
  return ops;
}

bool is_copy_op(std::string_view op) {
  return op == "Flatten" || op == "Reshape" || op == "Squeeze" || op == "Unsqueeze" || op == "Identity" || op == "Dropout";
}

core::Error unsupported(const Graph& g, NodeId n, const std::string& what) {
  const Node& node = g.node(n);
  return core::make_error(core::ErrorKind::InvalidInput,
                          "unsupported: operator " + node.op_type + " at node '" + g.key(n) + "' on CUDA: " + what);
}

std::int64_t product(const Shape& s, std::size_t begin, std::size_t end) {
  std::int64_t p = 1;
  for (std::size_t i = begin; i < end && i < s.size(); ++i) p *= s[i];
  return p;
}

Shape shape_of(const Graph& g, TensorId t) { return g.tensor(t).shape(); }

TensorId input(const Node& node, std::size_t i) { return i < node.inputs.size() ? node.inputs[i] : core::kNoTensor; }

/// Indices of inputs that hold integer metadata (shapes, axes) or scalars read on the host,
/// not float data the kernels touch.
bool is_meta_input(const Node& node, std::size_t i) {
  const std::string& op = node.op_type;
  if (i == 0) return false;
  return op == "Reshape" || op == "Squeeze" || op == "Unsqueeze" || op == "ReduceMean" || op == "Dropout" || op == "Clip" ||
         op == "Slice" || op == "Gather";
}

/// Spatial pads (top, left, bottom, right) from pads / auto_pad, given in, out, kernel, stride, dilation.
Status pads_2d(const Graph& g, NodeId n, const Shape& in_hw, const Shape& out_hw, const Shape& k, const Shape& stride, const Shape& dil,
               std::int64_t pads[4]) {
  const Node& node = g.node(n);
  const std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    const auto p = node.attr_ints("pads");
    if (!p.empty() && p.size() != 4) return unsupported(g, n, "pads must have 4 values for 2-D");
    for (int i = 0; i < 4; ++i) pads[i] = p.empty() ? 0 : p[static_cast<std::size_t>(i)];
  } else if (auto_pad == "VALID") {
    std::fill(pads, pads + 4, 0);
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (std::size_t d = 0; d < 2; ++d) {
      const std::int64_t total = std::max<std::int64_t>((out_hw[d] - 1) * stride[d] + (k[d] - 1) * dil[d] + 1 - in_hw[d], 0);
      const std::int64_t small = total / 2;
      pads[d] = auto_pad == "SAME_UPPER" ? small : total - small;
      pads[d + 2] = total - pads[d];
    }
  } else {
    return unsupported(g, n, "auto_pad " + auto_pad);
  }
  for (int i = 0; i < 4; ++i)
    if (pads[i] < 0) return unsupported(g, n, "negative pads");
  return {};
}

Shape attr_or(const Node& node, std::string_view name, Shape fallback) {
  auto v = node.attr_ints(name);
  return v.empty() ? fallback : v;
}

struct ConvGeometry {
  Shape x, w, y;
  std::int64_t group = 1;
  std::int64_t pads[4] = {};
  Shape stride, dilation;
  bool bias = false;
};

core::Expected<ConvGeometry> conv_geometry(const Graph& g, NodeId n) {
  const Node& node = g.node(n);
  ConvGeometry c;
  c.x = shape_of(g, input(node, 0));
  c.w = shape_of(g, input(node, 1));
  c.y = shape_of(g, node.outputs[0]);
  if (c.x.size() != 4 || c.w.size() != 4 || c.y.size() != 4) return unsupported(g, n, "only 2-D convolution (rank-4 NCHW) is supported");
  c.group = node.attr_int("group", 1);
  c.stride = attr_or(node, "strides", {1, 1});
  c.dilation = attr_or(node, "dilations", {1, 1});
  if (c.stride.size() != 2 || c.dilation.size() != 2) return unsupported(g, n, "strides/dilations must have 2 values");
  WEFT_TRY(pads_2d(g, n, {c.x[2], c.x[3]}, {c.y[2], c.y[3]}, {c.w[2], c.w[3]}, c.stride, c.dilation, c.pads));
  if (c.pads[0] != c.pads[2] || c.pads[1] != c.pads[3]) return unsupported(g, n, "asymmetric pads (cuDNN pads both sides alike)");
  if (c.group < 1 || c.x[1] != c.w[1] * c.group) return unsupported(g, n, "input channels do not match weight channels x group");
  c.bias = input(node, 2) != core::kNoTensor;
  if (c.bias && shape_of(g, input(node, 2)) != Shape{c.w[0]}) return unsupported(g, n, "bias is not of shape [M]");
  return c;
}

core::Expected<Pool2d> pool_geometry(const Graph& g, NodeId n) {
  const Node& node = g.node(n);
  const Shape x = shape_of(g, input(node, 0)), y = shape_of(g, node.outputs[0]);
  if (x.size() != 4 || y.size() != 4) return unsupported(g, n, "only 2-D pooling (rank-4 NCHW) is supported");
  Pool2d p;
  p.planes = x[0] * x[1];
  p.h = x[2];
  p.w = x[3];
  p.oh = y[2];
  p.ow = y[3];
  p.max = node.op_type == "MaxPool" || node.op_type == "GlobalMaxPool";
  if (node.op_type == "GlobalAveragePool" || node.op_type == "GlobalMaxPool") {
    p.kh = static_cast<int>(x[2]);
    p.kw = static_cast<int>(x[3]);
    return p;
  }
  if (node.outputs.size() > 1 && node.outputs[1] != core::kNoTensor) return unsupported(g, n, "MaxPool indices output");
  const Shape k = node.attr_ints("kernel_shape");
  if (k.size() != 2) return unsupported(g, n, "kernel_shape must have 2 values");
  const Shape stride = attr_or(node, "strides", {1, 1}), dil = attr_or(node, "dilations", {1, 1});
  if (stride.size() != 2 || dil.size() != 2) return unsupported(g, n, "strides/dilations must have 2 values");
  std::int64_t pads[4];
  WEFT_TRY(pads_2d(g, n, {x[2], x[3]}, {y[2], y[3]}, k, stride, dil, pads));
  p.kh = static_cast<int>(k[0]);
  p.kw = static_cast<int>(k[1]);
  p.sh = static_cast<int>(stride[0]);
  p.sw = static_cast<int>(stride[1]);
  p.dh = static_cast<int>(dil[0]);
  p.dw = static_cast<int>(dil[1]);
  p.pad_top = static_cast<int>(pads[0]);
  p.pad_left = static_cast<int>(pads[1]);
  p.pad_bottom = static_cast<int>(pads[2]);
  p.pad_right = static_cast<int>(pads[3]);
  p.count_include_pad = node.attr_int("count_include_pad", 0) != 0;
  return p;
}

std::int64_t normalise_axis(std::int64_t axis, std::size_t rank) { return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis; }

/// [outer, dim, inner] of Softmax (opset >= 13: one axis; before: everything from axis on).
core::Expected<std::array<std::int64_t, 3>> softmax_geometry(const Graph& g, NodeId n) {
  const Node& node = g.node(n);
  const Shape x = shape_of(g, input(node, 0));
  const std::int64_t opset = g.info().opset;
  const bool legacy = opset > 0 && opset < 13;
  const std::int64_t axis = normalise_axis(node.attr_int("axis", legacy ? 1 : -1), x.size());
  if (axis < 0 || axis >= static_cast<std::int64_t>(x.size())) return unsupported(g, n, "axis out of range");
  const auto a = static_cast<std::size_t>(axis);
  if (legacy) return std::array<std::int64_t, 3>{product(x, 0, a), product(x, a, x.size()), 1};
  return std::array<std::int64_t, 3>{product(x, 0, a), x[a], product(x, a + 1, x.size())};
}

/// Integer values of a weight known on the host (axes of opset-18 reductions).
std::optional<Shape> host_ints(const std::map<TensorId, core::HostTensor>* host, TensorId t) {
  if (!host) return std::nullopt;
  auto it = host->find(t);
  if (it == host->end() || it->second.dtype != core::DType::Int64) return std::nullopt;
  Shape v(it->second.bytes.size() / sizeof(std::int64_t));
  if (!v.empty()) std::memcpy(v.data(), it->second.bytes.data(), v.size() * sizeof(std::int64_t));
  return v;
}

/// [outer, dim, inner] of ReduceMean over contiguous axes. `host` may be null (check only: an
/// axes input is then accepted when it is a weight).
core::Expected<std::array<std::int64_t, 3>> reduce_geometry(const Graph& g, NodeId n, const std::map<TensorId, core::HostTensor>* host) {
  const Node& node = g.node(n);
  const Shape x = shape_of(g, input(node, 0));
  Shape axes = node.attr_ints("axes");
  const TensorId axes_input = input(node, 1);
  if (axes_input != core::kNoTensor) {
    if (g.tensor(axes_input).producer != core::kNoNode) return unsupported(g, n, "axes computed at run time");
    if (host) {
      auto v = host_ints(host, axes_input);
      if (!v) return unsupported(g, n, "axes input is not int64");
      axes = *v;
    } else {
      axes.clear();
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(x.size()); ++i) axes.push_back(i);  // layout checked at prepare
      return std::array<std::int64_t, 3>{1, product(x, 0, x.size()), 1};
    }
  }
  if (axes.empty()) {
    if (node.attr_int("noop_with_empty_axes", 0) != 0) return unsupported(g, n, "noop_with_empty_axes");
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(x.size()); ++i) axes.push_back(i);
  }
  for (auto& a : axes) a = normalise_axis(a, x.size());
  std::sort(axes.begin(), axes.end());
  for (std::size_t i = 1; i < axes.size(); ++i)
    if (axes[i] != axes[i - 1] + 1) return unsupported(g, n, "non-contiguous reduction axes");
  if (axes.front() < 0 || axes.back() >= static_cast<std::int64_t>(x.size())) return unsupported(g, n, "axis out of range");
  const auto lo = static_cast<std::size_t>(axes.front()), hi = static_cast<std::size_t>(axes.back()) + 1;
  return std::array<std::int64_t, 3>{product(x, 0, lo), product(x, lo, hi), product(x, hi, x.size())};
}

/// Element strides of `in` broadcast (numpy rules) to `out`, right-aligned; 0 where broadcast.
bool broadcast_strides(const Shape& in, const Shape& out, std::int64_t* strides) {
  if (in.size() > out.size()) return false;
  const std::size_t offset = out.size() - in.size();
  std::int64_t stride = 1;
  for (std::size_t d = out.size(); d-- > 0;) {
    if (d < offset) {
      strides[d] = 0;
      continue;
    }
    const std::int64_t dim = in[d - offset];
    if (dim != out[d] && dim != 1) return false;
    strides[d] = dim == 1 ? 0 : stride;
    stride *= dim;
  }
  return true;
}

core::Expected<Broadcast> broadcast_geometry(const Graph& g, NodeId n, const Shape& a, const Shape* b, const Shape& out) {
  if (out.size() > static_cast<std::size_t>(kMaxRank)) return unsupported(g, n, "rank above " + std::to_string(kMaxRank));
  Broadcast bc;
  bc.rank = static_cast<int>(out.size());
  for (std::size_t d = 0; d < out.size(); ++d) bc.dims[d] = out[d];
  if (!broadcast_strides(a, out, bc.a_stride) || (b && !broadcast_strides(*b, out, bc.b_stride)))
    return unsupported(g, n, "shapes do not broadcast to the output");
  if (out.empty()) {  // a scalar: one element of rank 1
    bc.rank = 1;
    bc.dims[0] = 1;
  }
  return bc;
}

struct GemmGeometry {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  bool trans_a = false, trans_b = false;
  std::int64_t stride_a = 0, stride_b = 0;  ///< between batches (elements); b 0: shared
  float alpha = 1, beta = 0;
  bool has_c = false;

  /// The cuBLAS call's arguments: row-major Y[M,N] = op(A) op(B) is column-major
  /// Y^T = op(B)^T op(A)^T, so cuBLAS gets B first, with N rows of the result and M columns.
  struct Blas {
    cublasOperation_t op_a, op_b;
    int m, n, k, lda, ldb;
  };
  Blas blas() const {
    const int mm = static_cast<int>(m), nn = static_cast<int>(n), kk = static_cast<int>(k);
    return {trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, mm, nn, kk, trans_a ? mm : kk, trans_b ? kk : nn};
  }
};

core::Expected<GemmGeometry> gemm_geometry(const Graph& g, NodeId n) {
  const Node& node = g.node(n);
  const Shape a = shape_of(g, input(node, 0)), b = shape_of(g, input(node, 1)), y = shape_of(g, node.outputs[0]);
  GemmGeometry m;
  if (node.op_type == "Gemm") {
    if (a.size() != 2 || b.size() != 2) return unsupported(g, n, "Gemm inputs must be 2-D");
    m.trans_a = node.attr_int("transA", 0) != 0;
    m.trans_b = node.attr_int("transB", 0) != 0;
    m.m = m.trans_a ? a[1] : a[0];
    m.k = m.trans_a ? a[0] : a[1];
    m.n = m.trans_b ? b[0] : b[1];
    if ((m.trans_b ? b[1] : b[0]) != m.k) return unsupported(g, n, "inner dimensions differ");
    m.alpha = node.attr_float("alpha", 1.0f);
    m.beta = node.attr_float("beta", 1.0f);
    m.has_c = input(node, 2) != core::kNoTensor;
    if (!m.has_c) m.beta = 0;
  } else {
    if (a.size() < 2 || b.size() < 2) return unsupported(g, n, "1-D MatMul operands");
    m.m = a[a.size() - 2];
    m.k = a.back();
    m.n = b.back();
    if (b[b.size() - 2] != m.k) return unsupported(g, n, "inner dimensions differ");
    if (b.size() == 2) {
      m.m = product(a, 0, a.size() - 1);  // fold A's batch into rows: one GEMM
    } else if (a.size() == b.size() && std::equal(a.begin(), a.end() - 2, b.begin())) {
      m.batch = product(a, 0, a.size() - 2);
      m.stride_a = m.m * m.k;
      m.stride_b = m.k * m.n;
    } else {
      return unsupported(g, n, "batched MatMul with broadcast batch dimensions");
    }
  }
  if (product(y, 0, y.size()) != m.batch * m.m * m.n) return unsupported(g, n, "output size does not match the product");
  if (std::max({m.m, m.n, m.k}) > std::numeric_limits<int>::max()) return unsupported(g, n, "dimension above INT_MAX");
  return m;
}

/// Row-major element strides of `shape`.
Shape strides_of(const Shape& shape) {
  Shape st(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) st[d - 1] = st[d] * shape[d];
  return st;
}

/// Transpose as a strided copy: output dim d reads input dim perm[d].
core::Expected<Broadcast> transpose_geometry(const Graph& g, NodeId n) {
  const Node& node = g.node(n);
  const Shape x = shape_of(g, input(node, 0)), y = shape_of(g, node.outputs[0]);
  if (x.size() > static_cast<std::size_t>(kMaxRank)) return unsupported(g, n, "rank above " + std::to_string(kMaxRank));
  Shape perm = node.attr_ints("perm");
  if (perm.empty())
    for (std::size_t d = x.size(); d-- > 0;) perm.push_back(static_cast<std::int64_t>(d));
  if (perm.size() != x.size() || y.size() != x.size()) return unsupported(g, n, "perm does not match the rank");
  const Shape in_strides = strides_of(x);
  Broadcast bc;
  bc.rank = static_cast<int>(x.size());
  std::vector<char> seen(x.size(), 0);
  for (std::size_t d = 0; d < perm.size(); ++d) {
    const std::int64_t p = normalise_axis(perm[d], x.size());
    if (p < 0 || p >= static_cast<std::int64_t>(x.size()) || seen[static_cast<std::size_t>(p)]) return unsupported(g, n, "perm is not a permutation");
    seen[static_cast<std::size_t>(p)] = 1;
    if (y[d] != x[static_cast<std::size_t>(p)]) return unsupported(g, n, "output shape is not the permuted input's");
    bc.dims[d] = y[d];
    bc.a_stride[d] = in_strides[static_cast<std::size_t>(p)];
  }
  if (x.empty()) {
    bc.rank = 1;
    bc.dims[0] = 1;
  }
  return bc;
}

/// Slice as a strided copy from an offset (ONNX clamping, as the CPU reference computes it):
/// the element offset of the first element read, and the strides. Needs the starts/ends/axes/
/// steps on the host (attributes before opset 10, int64 weights after).
core::Expected<std::pair<Broadcast, std::int64_t>> slice_geometry(const Graph& g, NodeId n, const std::map<TensorId, core::HostTensor>* host) {
  const Node& node = g.node(n);
  const Shape x = shape_of(g, input(node, 0)), y = shape_of(g, node.outputs[0]);
  if (x.size() > static_cast<std::size_t>(kMaxRank) || y.size() != x.size()) return unsupported(g, n, "rank above " + std::to_string(kMaxRank));
  Shape starts, ends, axes, steps;
  if (node.attribute("starts")) {
    starts = node.attr_ints("starts");
    ends = node.attr_ints("ends");
    axes = node.attr_ints("axes");
  } else {
    auto read = [&](std::size_t i, Shape& v) -> bool {
      const TensorId t = input(node, i);
      if (t == core::kNoTensor) return true;
      auto ints = host_ints(host, t);
      if (!ints) return false;
      v = *ints;
      return true;
    };
    if (!read(1, starts) || !read(2, ends) || !read(3, axes) || !read(4, steps)) return unsupported(g, n, "starts/ends/axes/steps must be int64 weights");
  }
  if (axes.empty())
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return unsupported(g, n, "starts/ends/axes/steps lengths differ");
  Shape out = x, begin(x.size(), 0), step(x.size(), 1);
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const std::int64_t a = normalise_axis(axes[i], x.size());
    if (a < 0 || a >= static_cast<std::int64_t>(x.size())) return unsupported(g, n, "axis out of range");
    const auto d = static_cast<std::size_t>(a);
    const std::int64_t dim = x[d], st = steps[i];
    if (st == 0) return unsupported(g, n, "step 0");
    std::int64_t b = starts[i], e = ends[i];
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    if (st > 0) {
      b = std::clamp<std::int64_t>(b, 0, dim);
      e = std::clamp<std::int64_t>(e, 0, dim);
      out[d] = e > b ? (e - b + st - 1) / st : 0;
    } else {
      b = std::clamp<std::int64_t>(b, -1, dim - 1);
      e = std::clamp<std::int64_t>(e, -1, dim - 1);
      out[d] = b > e ? (b - e - st - 1) / -st : 0;
    }
    begin[d] = b;
    step[d] = st;
  }
  if (out != y) return unsupported(g, n, "the slice's shape differs from the graph's output shape");
  const Shape in_strides = strides_of(x);
  Broadcast bc;
  bc.rank = static_cast<int>(x.size());
  std::int64_t base = 0;
  for (std::size_t d = 0; d < x.size(); ++d) {
    bc.dims[d] = out[d];
    bc.a_stride[d] = in_strides[d] * step[d];
    base += begin[d] * in_strides[d];
  }
  if (x.empty()) {
    bc.rank = 1;
    bc.dims[0] = 1;
  }
  return std::pair<Broadcast, std::int64_t>{bc, base};
}

/// The launch of an elementwise, strided-copy or row-wise node (MemberLaunch's families), or empty
/// for any other operator. `host` holds the weights read on the host (Clip's bounds, Slice's
/// starts, opset-18 reduction axes).
core::Expected<std::optional<MemberLaunch>> member_launch(const Graph& g, NodeId n, const std::map<TensorId, core::HostTensor>* host) {
  const Node& node = g.node(n);
  const std::string& op = node.op_type;
  const Shape out = shape_of(g, node.outputs[0]);
  MemberLaunch l;
  l.count = product(out, 0, out.size());
  std::optional<UnaryOp> unary;
  if (op == "Relu") unary = UnaryOp::Relu;
  if (op == "Sigmoid") unary = UnaryOp::Sigmoid;
  if (op == "Tanh") unary = UnaryOp::Tanh;
  if (op == "HardSwish") unary = UnaryOp::HardSwish;
  if (op == "HardSigmoid") {
    unary = UnaryOp::HardSigmoid;
    l.p0 = node.attr_float("alpha", 0.2f);
    l.p1 = node.attr_float("beta", 0.5f);
  }
  if (op == "LeakyRelu") {
    unary = UnaryOp::LeakyRelu;
    l.p0 = node.attr_float("alpha", 0.01f);
  }
  if (op == "Sqrt") unary = UnaryOp::Sqrt;
  if (op == "Erf") unary = UnaryOp::Erf;
  if (op == "Clip") {
    unary = UnaryOp::Clip;
    l.p0 = node.attr_float("min", -std::numeric_limits<float>::infinity());
    l.p1 = node.attr_float("max", std::numeric_limits<float>::infinity());
    for (std::size_t i = 1; i <= 2; ++i) {
      const TensorId t = input(node, i);
      if (t == core::kNoTensor) continue;
      const auto it = host ? host->find(t) : std::map<TensorId, core::HostTensor>::const_iterator{};
      if (!host || it == host->end() || it->second.dtype != core::DType::Float32 || it->second.bytes.size() != sizeof(float))
        return unsupported(g, n, "min/max must be float32 scalar weights");
      std::memcpy(i == 1 ? &l.p0 : &l.p1, it->second.bytes.data(), sizeof(float));
    }
  }
  if (unary) {
    l.family = MemberLaunch::Family::Unary;
    l.unary = *unary;
    return std::optional<MemberLaunch>(l);
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow") {
    const Shape a = shape_of(g, input(node, 0)), b = shape_of(g, input(node, 1));
    WEFT_TRY_ASSIGN(l.shape, broadcast_geometry(g, n, a, &b, out));
    l.family = MemberLaunch::Family::Binary;
    l.binary = op == "Add"   ? BinaryOp::Add
               : op == "Sub" ? BinaryOp::Sub
               : op == "Mul" ? BinaryOp::Mul
               : op == "Div" ? BinaryOp::Div
                             : BinaryOp::Pow;
    return std::optional<MemberLaunch>(l);
  }
  if (op == "Transpose" || op == "Slice") {
    l.family = MemberLaunch::Family::Copy;
    if (op == "Transpose") {
      WEFT_TRY_ASSIGN(l.shape, transpose_geometry(g, n));
    } else {
      WEFT_TRY_ASSIGN(auto sl, slice_geometry(g, n, host));
      l.shape = sl.first;
      l.base = sl.second;
    }
    return std::optional<MemberLaunch>(l);
  }
  if (op == "Softmax" || op == "ReduceMean") {
    WEFT_TRY_ASSIGN(const auto geo, op == "Softmax" ? softmax_geometry(g, n) : reduce_geometry(g, n, host));
    l.family = op == "Softmax" ? MemberLaunch::Family::Softmax : MemberLaunch::Family::ReduceMean;
    l.outer = geo[0];
    l.dim = geo[1];
    l.inner = geo[2];
    return std::optional<MemberLaunch>(l);
  }
  return std::optional<MemberLaunch>();
}

bool same_shape(const Broadcast& a, const Broadcast& b) {
  if (a.rank != b.rank) return false;
  for (int d = 0; d < a.rank; ++d)
    if (a.dims[d] != b.dims[d] || a.a_stride[d] != b.a_stride[d] || a.b_stride[d] != b.b_stride[d]) return false;
  return true;
}

/// True when two nodes' launches differ only in their pointers.
bool same_launch(const MemberLaunch& a, const MemberLaunch& b) {
  return a.family == b.family && a.unary == b.unary && a.binary == b.binary && a.p0 == b.p0 && a.p1 == b.p1 && a.base == b.base &&
         a.count == b.count && a.outer == b.outer && a.dim == b.dim && a.inner == b.inner && same_shape(a.shape, b.shape);
}

/// Copies a merged group's pointer arrays to the device (kernels and cuBLAS read them there, graph
/// replays too); the buffer lives as long as the launch that holds it.
core::Expected<std::shared_ptr<DeviceBuffer>> device_pointer_arrays(const std::vector<const void*>& pointers, const char* what) {
  auto arrays = std::make_shared<DeviceBuffer>();
  WEFT_TRY(arrays->allocate(pointers.size() * sizeof(void*), what));
  WEFT_CUDA_CHECK(cudaMemcpy(arrays->get(), pointers.data(), pointers.size() * sizeof(void*), cudaMemcpyHostToDevice));
  return arrays;
}

/// One launch for a merged group of equal elementwise, strided-copy or row-wise operators (the
/// transformer's heads: their Relus, Adds, Transposes, Softmaxes): the members' kernel once, with
/// a grid row per member over pointer arrays. Empty when the members' launches differ in more
/// than their pointers: they then run one after another.
core::Expected<std::optional<PreparedNode>> batched_members(const PrepareContext& ctx) {
  const std::optional<PreparedNode> kNone;
  const Graph& body = *ctx.graph;
  const std::size_t count = body.node_count();
  if (count < 2 || count > static_cast<std::size_t>(kMaxMembers)) return kNone;
  const auto dev = [&](TensorId t) -> const void* { return t == core::kNoTensor ? nullptr : (*ctx.device)[static_cast<std::size_t>(t)]; };
  std::optional<MemberLaunch> launch;
  std::vector<const void*> xs, bs, ys;
  for (std::size_t i = 0; i < count; ++i) {
    const auto m = static_cast<NodeId>(i);
    const Node& node = body.node(m);
    if (node.op_type != body.node(0).op_type || node.outputs.size() != 1) return kNone;
    auto l = member_launch(body, m, ctx.host);
    if (!l || !*l) return kNone;  // a member the executor refuses is named when the members are prepared one by one
    if (launch && !same_launch(*launch, **l)) return kNone;
    launch = **l;
    xs.push_back(dev(input(node, 0)));
    bs.push_back(launch->family == MemberLaunch::Family::Binary ? dev(input(node, 1)) : xs.back());
    ys.push_back(dev(node.outputs[0]));
  }
  std::vector<const void*> pointers;
  for (const auto* list : {&xs, &bs, &ys}) pointers.insert(pointers.end(), list->begin(), list->end());
  if (std::find(pointers.begin(), pointers.end(), nullptr) != pointers.end()) return kNone;
  WEFT_TRY_ASSIGN(auto arrays, device_pointer_arrays(pointers, "a merged launch's operand pointers"));
  const auto* base = static_cast<void* const*>(arrays->get());
  Members members;
  members.count = static_cast<int>(count);
  members.x = reinterpret_cast<const float* const*>(base);
  members.b = reinterpret_cast<const float* const*>(base + count);
  members.y = reinterpret_cast<float* const*>(base + 2 * count);
  PreparedNode p;
  p.merged_path = "one kernel over pointer arrays";
  p.launch = [l = *launch, members, arrays](const StreamContext& s) -> Status {
    WEFT_CUDA_CHECK(launch_members(s.stream, l, members));
    return {};
  };
  return std::optional<PreparedNode>(std::move(p));
}

/// cuBLASLt's largest workspace a merged GEMM may ask for (each stream holds its largest).
constexpr std::size_t kLtWorkspace = std::size_t{32} << 20;

/// Equal spacing of `pointers` in floats (0: all the same), or empty when they are not equally
/// spaced or go backwards.
std::optional<std::int64_t> float_stride(const std::vector<const void*>& pointers) {
  if (pointers.size() < 2) return std::int64_t{0};
  const auto at = [&](std::size_t i) { return reinterpret_cast<std::uintptr_t>(pointers[i]); };
  if (at(1) < at(0) || (at(1) - at(0)) % sizeof(float) != 0) return std::nullopt;
  const std::uintptr_t step = at(1) - at(0);
  for (std::size_t i = 2; i < pointers.size(); ++i)
    if (at(i) < at(i - 1) || at(i) - at(i - 1) != step) return std::nullopt;
  return static_cast<std::int64_t>(step / sizeof(float));
}

/// `t`'s starting value on the host when it is `elements` float32 values (a weight's, to copy or
/// concatenate at prepare time), else null.
const core::HostTensor* host_floats(const PrepareContext& ctx, TensorId t, std::int64_t elements) {
  auto it = ctx.host->find(t);
  if (it == ctx.host->end() || it->second.dtype != core::DType::Float32 ||
      it->second.bytes.size() != static_cast<std::size_t>(elements) * sizeof(float))
    return nullptr;
  return &it->second;
}

/// The largest power of two up to 256 (cuBLASLt's default assumption) dividing every address of
/// `pointers` and `extra`: the alignment the heuristic may count on.
std::uint32_t common_alignment(const std::vector<const void*>& pointers, std::uintptr_t extra = 0) {
  std::uintptr_t bits = extra;
  for (const void* p : pointers) bits |= reinterpret_cast<std::uintptr_t>(p);
  std::uint32_t alignment = 256;
  while (alignment > 1 && bits % alignment != 0) alignment /= 2;
  return alignment;
}

/// One cuBLASLt launch for a merged group of equal Gemms with a bias row and beta 1 (the grouped
/// MLP's layers): the batched product with the bias epilogue, over every member's bias
/// concatenated into one device copy (made here from the host values; batch stride N rounded up to
/// 64 floats). The members' operands strided where their inputs and outputs are equally spaced
/// (merge_graph places a merged layer's outputs side by side), over a device copy of their
/// weights concatenated; else by pointer arrays where this cuBLASLt runs that batch mode with the
/// epilogue. The heuristic is told
/// how aligned the operands really are (common_alignment). Empty (the caller's bias kernel and
/// batched GEMM then run) when a bias or weight has no host value, the spacing does not allow it,
/// or cuBLASLt offers no algorithm.
core::Expected<std::optional<PreparedNode>> lt_bias_gemm(const PrepareContext& ctx, const GemmGeometry& m,
                                                         const std::vector<const void*>& xs, const std::vector<const void*>& ws,
                                                         const std::vector<const void*>& ys, const std::vector<TensorId>& weights,
                                                         const std::vector<TensorId>& biases) {
  const std::optional<PreparedNode> kNone;
  const std::size_t count = ys.size();
  if (!ctx.cublaslt || count < 2 || m.batch != 1 || !m.has_c || m.beta != 1.0f || biases.size() != count || weights.size() != count)
    return kNone;
  // Each member's bias starts on 256 bytes (its batch stride rounded up to 64 floats): no bias
  // row is less aligned than the first.
  const std::int64_t bias_stride = (m.n + 63) / 64 * 64;
  std::vector<std::uint8_t> bias_bytes(static_cast<std::size_t>(bias_stride) * sizeof(float) * count, 0);
  for (std::size_t i = 0; i < count; ++i) {
    const auto* h = host_floats(ctx, biases[i], m.n);
    if (!h) return kNone;
    std::copy(h->bytes.begin(), h->bytes.end(), bias_bytes.begin() + static_cast<std::ptrdiff_t>(i * bias_stride * sizeof(float)));
  }
  const GemmGeometry::Blas call = m.blas();
  if (call.m == 0 || call.n == 0) return kNone;
  // Column-major, as cublasSgemm is called: D (N x M) = op_b(W) (N x K) * op_a(X) (K x M).
  const auto rows = [](cublasOperation_t op, std::int64_t r, std::int64_t c) { return op == CUBLAS_OP_N ? r : c; };
  const auto cols = [](cublasOperation_t op, std::int64_t r, std::int64_t c) { return op == CUBLAS_OP_N ? c : r; };
  const cublasComputeType_t compute = ctx.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  const auto batch = static_cast<std::int32_t>(count);

  struct Plan {
    std::shared_ptr<LtMatmulDesc> desc;
    std::shared_ptr<LtLayout> a, b, d;
    cublasLtMatmulAlgo_t algo{};
    std::size_t workspace = 0;
  };
  auto bias = std::make_shared<DeviceBuffer>();
  WEFT_TRY(bias->allocate(bias_bytes.size(), "a merged GEMM's concatenated bias"));
  WEFT_CUDA_CHECK(cudaMemcpy(bias->get(), bias_bytes.data(), bias_bytes.size(), cudaMemcpyHostToDevice));
  const void* bias_ptr = bias->get();
  // The descriptors for one batch mode (strides in floats for the strided one); empty when
  // cuBLASLt has no algorithm for them.
  // `align_*`: what the operands' addresses guarantee (common_alignment), told to the heuristic.
  const auto plan_for = [&](bool pointer_array, std::int64_t stride_w, std::int64_t stride_x, std::int64_t stride_y,
                            std::uint32_t align_w, std::uint32_t align_x, std::uint32_t align_y) -> core::Expected<std::optional<Plan>> {
    Plan plan;
    plan.desc = std::make_shared<LtMatmulDesc>();
    WEFT_CUDA_CHECK(cublasLtMatmulDescCreate(plan.desc->out(), compute, CUDA_R_32F));
    const cublasLtMatmulDesc_t desc = plan.desc->get();
    const cublasOperation_t op_w = call.op_b, op_x = call.op_a;
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    WEFT_CUDA_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_w, sizeof(op_w)));
    WEFT_CUDA_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_x, sizeof(op_x)));
    WEFT_CUDA_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)));
    WEFT_CUDA_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias_ptr, sizeof(bias_ptr)));
    WEFT_CUDA_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &bias_stride, sizeof(bias_stride)));
    // False: this cuBLASLt does not know the pointer-array batch mode (an older library than the
    // headers built against), which is an answer like a missing algorithm.
    const auto layout = [&](std::shared_ptr<LtLayout>& out, std::int64_t r, std::int64_t c, std::int64_t ld,
                            std::int64_t stride) -> core::Expected<bool> {
      out = std::make_shared<LtLayout>();
      WEFT_CUDA_CHECK(cublasLtMatrixLayoutCreate(out->out(), CUDA_R_32F, static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(c), ld));
      const cublasLtMatrixLayout_t l = out->get();
      WEFT_CUDA_CHECK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof(batch)));
      if (pointer_array) {
        const auto mode = static_cast<std::uint32_t>(CUBLASLT_BATCH_MODE_POINTER_ARRAY);
        return cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, &mode, sizeof(mode)) == CUBLAS_STATUS_SUCCESS;
      }
      WEFT_CUDA_CHECK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)));
      return true;
    };
    for (auto [out, r, c, ld, stride] : {std::tuple{&plan.a, rows(op_w, call.n, call.k), cols(op_w, call.n, call.k), std::int64_t{call.ldb}, stride_w},
                                         std::tuple{&plan.b, rows(op_x, call.k, call.m), cols(op_x, call.k, call.m), std::int64_t{call.lda}, stride_x},
                                         std::tuple{&plan.d, std::int64_t{call.n}, std::int64_t{call.m}, std::int64_t{call.n}, stride_y}}) {
      WEFT_TRY_ASSIGN(const bool known, layout(*out, r, c, ld, stride));
      if (!known) return std::optional<Plan>();
    }
    LtPreference pref;
    WEFT_CUDA_CHECK(cublasLtMatmulPreferenceCreate(pref.out()));
    const std::size_t max_workspace = kLtWorkspace;
    WEFT_CUDA_CHECK(cublasLtMatmulPreferenceSetAttribute(pref.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_workspace,
                                                         sizeof(max_workspace)));
    for (const auto& [attribute, alignment] : {std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, align_w},
                                               std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, align_x},
                                               std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, align_y},
                                               std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, align_y}})
      WEFT_CUDA_CHECK(cublasLtMatmulPreferenceSetAttribute(pref.get(), attribute, &alignment, sizeof(alignment)));
    cublasLtMatmulHeuristicResult_t found{};
    int returned = 0;
    // Not supported (this batch mode with the epilogue, on this device) is an answer, not an error.
    const cublasStatus_t asked = cublasLtMatmulAlgoGetHeuristic(ctx.cublaslt, desc, plan.a->get(), plan.b->get(), plan.d->get(),
                                                                plan.d->get(), pref.get(), 1, &found, &returned);
    if (asked != CUBLAS_STATUS_SUCCESS || returned < 1 || found.state != CUBLAS_STATUS_SUCCESS) return std::optional<Plan>();
    plan.algo = found.algo;
    plan.workspace = found.workspaceSize;
    return std::optional<Plan>(std::move(plan));
  };

  std::shared_ptr<DeviceBuffer> keep;  // the concatenated weights, or the pointer arrays
  const void *a = nullptr, *b = nullptr;
  void* d = nullptr;
  std::string path;
  std::optional<Plan> plan;
  // Strided first (the batch mode the bias batch stride was made for): the inputs (or one shared
  // input) and outputs equally spaced, outputs apart by at least a product each; the weights
  // concatenated into one copy.
  const auto stride_x = float_stride(xs), stride_y = float_stride(ys);
  std::vector<std::uint8_t> weight_bytes;
  bool strided = stride_x && stride_y && *stride_y >= m.m * m.n;
  for (std::size_t i = 0; strided && i < count; ++i) {
    const auto* h = host_floats(ctx, weights[i], m.k * m.n);
    if (!h) strided = false;
    else weight_bytes.insert(weight_bytes.end(), h->bytes.begin(), h->bytes.end());
  }
  if (strided) {
    // The concatenated weights start where cudaMalloc puts them (256 bytes); each member's a
    // stride further.
    const auto stride_bytes = static_cast<std::uintptr_t>(m.k * m.n) * sizeof(float);
    WEFT_TRY_ASSIGN(plan, plan_for(false, m.k * m.n, *stride_x, *stride_y, common_alignment({}, stride_bytes),
                                   common_alignment(xs), common_alignment(ys)));
  }
  if (plan) {
    keep = std::make_shared<DeviceBuffer>();
    WEFT_TRY(keep->allocate(weight_bytes.size(), "a merged GEMM's concatenated weights"));
    WEFT_CUDA_CHECK(cudaMemcpy(keep->get(), weight_bytes.data(), weight_bytes.size(), cudaMemcpyHostToDevice));
    a = keep->get();
    b = xs[0];
    d = const_cast<void*>(ys[0]);
    path = "cuBLASLt bias-epilogue GEMM, strided";
  } else {
    // Else each member's operands through pointer arrays, where this cuBLASLt runs that batch
    // mode with the epilogue.
    WEFT_TRY_ASSIGN(plan, plan_for(true, 0, 0, 0, common_alignment(ws), common_alignment(xs), common_alignment(ys)));
    if (!plan) return kNone;
    std::vector<const void*> pointers;
    for (const auto* list : {&ws, &xs, &ys}) pointers.insert(pointers.end(), list->begin(), list->end());
    WEFT_TRY_ASSIGN(keep, device_pointer_arrays(pointers, "a merged GEMM's operand pointers"));
    const auto* base = static_cast<void* const*>(keep->get());
    a = base;
    b = base + count;
    d = const_cast<void**>(base + 2 * count);
    path = "cuBLASLt bias-epilogue GEMM, pointer arrays";
  }
  PreparedNode p;
  p.workspace_bytes = plan->workspace;
  p.merged_path = std::move(path);
  p.launch = [plan = *plan, keep, bias, a, b, d, alpha = m.alpha](const StreamContext& s) -> Status {
    const float beta = 0.0f;  // the epilogue adds the bias: C is not read
    if (s.workspace_bytes < plan.workspace) return core::make_error(core::ErrorKind::Runtime, "cuBLASLt workspace smaller than planned");
    WEFT_CUDA_CHECK(cublasLtMatmul(s.cublaslt, plan.desc->get(), &alpha, a, plan.a->get(), b, plan.b->get(), &beta, d, plan.d->get(), d,
                                   plan.d->get(), &plan.algo, s.workspace, plan.workspace, s.stream));
    return {};
  };
  return std::optional<PreparedNode>(std::move(p));
}

/// One launch for a merged group of equal GEMMs (the grouped MLP's layers, the transformer's
/// per-head projections and batched attention products; IOS-style merges of convolutions aside):
/// cuBLAS's batched GEMM over the pointers of every member's products (a batched MatMul gives one
/// per batch index), after one kernel that writes each member's bias rows into its output (a
/// Gemm's C of shape [N] or [1, N]). Empty when the members differ in operator or geometry, or a
/// C broadcasts otherwise: they then run one after another.
core::Expected<std::optional<PreparedNode>> batched_gemm(const PrepareContext& ctx) {
  const std::optional<PreparedNode> kNone;  // the members run one after another
  const Graph& body = *ctx.graph;
  const std::size_t count = body.node_count();
  if (count < 2) return kNone;
  const std::string& op = body.node(0).op_type;
  if (op != "Gemm" && op != "MatMul") return kNone;
  const auto dev = [&](TensorId t) { return t == core::kNoTensor ? nullptr : (*ctx.device)[static_cast<std::size_t>(t)]; };
  std::optional<GemmGeometry> geo;
  std::vector<const void*> xs, bs, ys, cs;
  std::vector<TensorId> weights, biases;
  for (std::size_t i = 0; i < count; ++i) {
    const auto m = static_cast<NodeId>(i);
    const Node& node = body.node(m);
    if (node.op_type != op) return kNone;
    weights.push_back(input(node, 1));
    if (input(node, 2) != core::kNoTensor) biases.push_back(input(node, 2));
    WEFT_TRY_ASSIGN(const GemmGeometry gm, gemm_geometry(body, m));
    if (gm.k == 0 || (gm.batch != 1 && gm.has_c)) return kNone;
    if (geo && (gm.m != geo->m || gm.n != geo->n || gm.k != geo->k || gm.batch != geo->batch || gm.trans_a != geo->trans_a ||
                gm.trans_b != geo->trans_b || gm.alpha != geo->alpha || gm.beta != geo->beta || gm.has_c != geo->has_c))
      return kNone;
    geo = gm;
    if (gm.has_c) {
      const Shape c = shape_of(body, input(node, 2));
      if (c != Shape{gm.n} && c != Shape{1, gm.n}) return kNone;
      cs.push_back(dev(input(node, 2)));
    }
    // A batched MatMul (attention's per-head scores and context) adds a pointer per product.
    const auto* x = static_cast<const float*>(dev(input(node, 0)));
    const auto* b = static_cast<const float*>(dev(input(node, 1)));
    const auto* y = static_cast<const float*>(dev(node.outputs[0]));
    if (!x || !b || !y) return kNone;
    for (std::int64_t j = 0; j < gm.batch; ++j) {
      xs.push_back(x + j * gm.stride_a);
      bs.push_back(b + j * gm.stride_b);
      ys.push_back(y + j * gm.m * gm.n);
    }
  }
  const std::size_t products = xs.size();
  if (products > static_cast<std::size_t>(std::numeric_limits<int>::max())) return kNone;
  // With a bias row each: one cuBLASLt launch with the bias epilogue where it can.
  WEFT_TRY_ASSIGN(auto fused, lt_bias_gemm(ctx, *geo, xs, bs, ys, weights, biases));
  if (fused) return fused;
  std::vector<const void*> pointers;
  for (const auto* list : {&xs, &bs, &ys, &cs}) pointers.insert(pointers.end(), list->begin(), list->end());
  if (std::find(pointers.begin(), pointers.end(), nullptr) != pointers.end()) return kNone;
  WEFT_TRY_ASSIGN(auto arrays, device_pointer_arrays(pointers, "a merged GEMM's operand pointers"));
  const auto* base = static_cast<void* const*>(arrays->get());
  const auto* dx = reinterpret_cast<const float* const*>(base);
  const auto* db = reinterpret_cast<const float* const*>(base + products);
  auto* dy = reinterpret_cast<float* const*>(base + 2 * products);
  const auto* dc = reinterpret_cast<const float* const*>(base + 3 * products);
  PreparedNode p;
  const GemmGeometry m = *geo;
  const int batch = static_cast<int>(products);  // members x each member's batch
  p.merged_path = m.has_c ? "bias kernel + batched GEMM" : "batched GEMM";
  p.launch = [m, batch, arrays, dx, db, dy, dc](const StreamContext& s) -> Status {
    // As one member's GEMM, batched (with C, each member's batch is 1).
    if (m.has_c) WEFT_CUDA_CHECK(launch_bias_rows(s.stream, batch, m.m, m.n, dc, dy));
    const GemmGeometry::Blas call = m.blas();
    if (call.m == 0 || call.n == 0) return {};
    WEFT_CUDA_CHECK(cublasSgemmBatched(s.cublas, call.op_b, call.op_a, call.n, call.m, call.k, &m.alpha, db, call.ldb, dx, call.lda,
                                       &m.beta, dy, call.n, batch));
    return {};
  };
  return std::optional<PreparedNode>(std::move(p));
}

/// A convolution's cuDNN launch (the forward algorithm cuDNN's heuristics rank first among those
/// usable with the chosen maths), then its bias. `keep` (may be null) holds device memory the
/// launch reads (a merged convolution's concatenated filters).
core::Expected<PreparedNode> conv_launch(const PrepareContext& ctx, const Graph& g, NodeId n, const ConvGeometry& cg, const float* x,
                                         const float* w, const float* bias, float* y, std::shared_ptr<DeviceBuffer> keep) {
  PreparedNode p;
  auto to_int = [](std::int64_t v) { return static_cast<int>(v); };
  auto x_desc = std::make_shared<TensorDesc>(), y_desc = std::make_shared<TensorDesc>(), b_desc = std::make_shared<TensorDesc>();
  auto w_desc = std::make_shared<FilterDesc>();
  auto conv = std::make_shared<ConvDesc>();
  WEFT_CUDA_CHECK(cudnnCreateTensorDescriptor(x_desc->out()));
  WEFT_CUDA_CHECK(cudnnCreateTensorDescriptor(y_desc->out()));
  WEFT_CUDA_CHECK(cudnnCreateTensorDescriptor(b_desc->out()));
  WEFT_CUDA_CHECK(cudnnCreateFilterDescriptor(w_desc->out()));
  WEFT_CUDA_CHECK(cudnnCreateConvolutionDescriptor(conv->out()));
  WEFT_CUDA_CHECK(cudnnSetTensor4dDescriptor(x_desc->get(), CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, to_int(cg.x[0]), to_int(cg.x[1]),
                                             to_int(cg.x[2]), to_int(cg.x[3])));
  WEFT_CUDA_CHECK(cudnnSetTensor4dDescriptor(y_desc->get(), CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, to_int(cg.y[0]), to_int(cg.y[1]),
                                             to_int(cg.y[2]), to_int(cg.y[3])));
  WEFT_CUDA_CHECK(cudnnSetTensor4dDescriptor(b_desc->get(), CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, to_int(cg.w[0]), 1, 1));
  WEFT_CUDA_CHECK(cudnnSetFilter4dDescriptor(w_desc->get(), CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, to_int(cg.w[0]), to_int(cg.w[1]),
                                             to_int(cg.w[2]), to_int(cg.w[3])));
  WEFT_CUDA_CHECK(cudnnSetConvolution2dDescriptor(conv->get(), to_int(cg.pads[0]), to_int(cg.pads[1]), to_int(cg.stride[0]),
                                                  to_int(cg.stride[1]), to_int(cg.dilation[0]), to_int(cg.dilation[1]),
                                                  CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  WEFT_CUDA_CHECK(cudnnSetConvolutionGroupCount(conv->get(), to_int(cg.group)));
  // FMA-only maths unless TF32 is asked for: outputs then compare with the CPU reference
  // (CUDNN_DEFAULT_MATH would let cuDNN use TF32 on Ampere and later).
  WEFT_CUDA_CHECK(cudnnSetConvolutionMathType(conv->get(), ctx.tf32 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH));
  int on = 0, oc = 0, oh = 0, ow = 0;
  WEFT_CUDA_CHECK(cudnnGetConvolution2dForwardOutputDim(conv->get(), x_desc->get(), w_desc->get(), &on, &oc, &oh, &ow));
  if (Shape{on, oc, oh, ow} != cg.y) return unsupported(g, n, "cuDNN's output shape differs from the graph's");
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  WEFT_CUDA_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(ctx.cudnn, x_desc->get(), w_desc->get(), conv->get(), y_desc->get(),
                                                         CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf));
  // Heuristic order is expected speed; take the first that works with the chosen maths and
  // whose workspace stays reasonable (each stream holds its largest).
  constexpr std::size_t kMaxWorkspace = std::size_t{512} << 20;
  // Never ALLOW_CONVERSION (it may compute in half precision); without TF32 an algorithm that
  // reports FMA maths first, one that reports the default maths (run as FMA here) after.
  const auto usable = [&](const cudnnConvolutionFwdAlgoPerf_t& a, bool strict) {
    if (a.status != CUDNN_STATUS_SUCCESS || a.memory > kMaxWorkspace || a.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) return false;
    if (ctx.tf32) return true;
    return a.mathType == CUDNN_FMA_MATH || (!strict && a.mathType == CUDNN_DEFAULT_MATH);
  };
  const cudnnConvolutionFwdAlgoPerf_t* chosen = nullptr;
  for (const bool strict : {true, false})
    for (int i = 0; i < returned && !chosen; ++i)
      if (usable(perf[i], strict)) chosen = &perf[i];
  if (!chosen) return unsupported(g, n, "cuDNN offers no forward algorithm for this convolution");
  const cudnnConvolutionFwdAlgo_t algo = chosen->algo;
  // With TF32 allowed the algorithm may be one that runs on tensor cores or one that does not:
  // the descriptor must carry the math type cuDNN chose it for. Without TF32 it stays FMA.
  if (ctx.tf32) WEFT_CUDA_CHECK(cudnnSetConvolutionMathType(conv->get(), chosen->mathType));
  std::size_t ws = 0;
  WEFT_CUDA_CHECK(cudnnGetConvolutionForwardWorkspaceSize(ctx.cudnn, x_desc->get(), w_desc->get(), conv->get(), y_desc->get(), algo, &ws));
  p.workspace_bytes = ws;
  p.launch = [=, keep = std::move(keep)](const StreamContext& s) -> Status {
    const float one = 1.0f, zero = 0.0f;
    WEFT_CUDA_CHECK(cudnnConvolutionForward(s.cudnn, &one, x_desc->get(), x, w_desc->get(), w, conv->get(), algo, s.workspace,
                                            s.workspace_bytes, &zero, y_desc->get(), y));
    if (bias) WEFT_CUDA_CHECK(cudnnAddTensor(s.cudnn, &one, b_desc->get(), bias, &one, y_desc->get(), y));
    return {};
  };
  return p;
}

/// One launch for a merged group of convolutions reading one input (IOS's operator merge: a
/// GoogLeNet module's 1x1 convolutions) whose outputs lie side by side at batch 1 (the block
/// merge_graph places them in): one cuDNN convolution over the members' filters concatenated along
/// the output channels, then the concatenated bias, writing every member's output in place. The
/// concatenated filters are one device copy made here from the weights' host values. Empty when
/// the members differ in more than their output channels, the batch is not 1, or the outputs are
/// not adjacent: they then run one after another.
core::Expected<std::optional<PreparedNode>> concat_conv(const PrepareContext& ctx) {
  const std::optional<PreparedNode> kNone;
  const Graph& body = *ctx.graph;
  const std::size_t count = body.node_count();
  if (count < 2) return kNone;
  const auto dev = [&](TensorId t) { return t == core::kNoTensor ? nullptr : static_cast<float*>((*ctx.device)[static_cast<std::size_t>(t)]); };
  std::optional<ConvGeometry> first;
  std::vector<std::uint8_t> filters, biases;
  std::int64_t channels = 0;
  float* next = nullptr;  // where the next member's output must start
  for (std::size_t i = 0; i < count; ++i) {
    const auto m = static_cast<NodeId>(i);
    const Node& node = body.node(m);
    if (node.op_type != "Conv" || input(node, 0) != input(body.node(0), 0)) return kNone;
    auto geo = conv_geometry(body, m);
    if (!geo) return kNone;  // named when the members are prepared one by one
    const ConvGeometry& cg = *geo;
    if (cg.group != 1 || cg.y[0] != 1) return kNone;
    if (first && (cg.x != first->x || cg.bias != first->bias || cg.stride != first->stride || cg.dilation != first->dilation ||
                  !std::equal(cg.pads, cg.pads + 4, first->pads) || !std::equal(cg.w.begin() + 1, cg.w.end(), first->w.begin() + 1) ||
                  cg.y[2] != first->y[2] || cg.y[3] != first->y[3]))
      return kNone;
    if (!first) first = cg;
    float* y = dev(node.outputs[0]);
    if (!y || (next && y != next)) return kNone;
    next = y + product(cg.y, 0, cg.y.size());
    const auto* w = host_floats(ctx, input(node, 1), product(cg.w, 0, cg.w.size()));
    if (!w) return kNone;
    filters.insert(filters.end(), w->bytes.begin(), w->bytes.end());
    if (cg.bias) {
      const auto* b = host_floats(ctx, input(node, 2), cg.w[0]);
      if (!b) return kNone;
      biases.insert(biases.end(), b->bytes.begin(), b->bytes.end());
    }
    channels += cg.w[0];
  }
  ConvGeometry merged = *first;
  merged.w[0] = channels;
  merged.y[1] = channels;
  auto weights = std::make_shared<DeviceBuffer>();
  WEFT_TRY(weights->allocate(filters.size() + biases.size(), "a merged convolution's concatenated filters"));
  auto* base = static_cast<std::uint8_t*>(weights->get());
  WEFT_CUDA_CHECK(cudaMemcpy(base, filters.data(), filters.size(), cudaMemcpyHostToDevice));
  if (!biases.empty()) WEFT_CUDA_CHECK(cudaMemcpy(base + filters.size(), biases.data(), biases.size(), cudaMemcpyHostToDevice));
  const auto* w = reinterpret_cast<const float*>(base);
  const auto* bias = biases.empty() ? nullptr : reinterpret_cast<const float*>(base + filters.size());
  auto p = conv_launch(ctx, body, 0, merged, dev(input(body.node(0), 0)), w, bias, dev(body.node(0).outputs[0]), std::move(weights));
  if (!p) return kNone;  // cuDNN refuses the concatenated convolution: the members run one by one
  p->merged_path = "concatenated convolution";
  return std::optional<PreparedNode>(std::move(*p));
}

/// A merged node's body (core::merge_graph): its members, reading the body's inputs (the node's,
/// in order) and writing its outputs (the node's). Null when the node has none or they do not
/// match the node's inputs and outputs.
const Graph* merged_body(const Node& node) {
  const core::Attribute* a = node.attribute("body");
  const Graph* body = a ? a->graph.get() : nullptr;
  if (!body || body->inputs().size() != node.inputs.size() || body->outputs().size() != node.outputs.size()) return nullptr;
  return body;
}

}  // namespace

std::vector<std::string> supported_op_names() { return {op_set().begin(), op_set().end()}; }

Status check_node(const Graph& g, NodeId n) {
  const Node& node = g.node(n);
  if (core::is_merged_node(node)) {
    // A horizontal merge runs its members one after another on the node's stream, each writing
    // its output in place (as the CPU executor's weft.Merged): each member must be one the
    // executor runs, and write only outputs of the merge.
    const Graph* body = merged_body(node);
    if (!body) return unsupported(g, n, "a merged node without a matching body");
    std::vector<char> is_output(body->tensor_count(), 0);
    for (TensorId t : body->outputs()) is_output[static_cast<std::size_t>(t)] = 1;
    for (std::size_t m = 0; m < body->node_count(); ++m) {
      if (const Status s = check_node(*body, static_cast<NodeId>(m)); !s)
        return core::make_error(core::ErrorKind::InvalidInput, "in merged node '" + g.key(n) + "': " + s.error().message);
      for (TensorId t : body->node(static_cast<NodeId>(m)).outputs)
        if (t != core::kNoTensor && !is_output[static_cast<std::size_t>(t)])
          return unsupported(g, n, "member '" + body->key(static_cast<NodeId>(m)) + "' writes '" + body->tensor(t).name +
                                       "', which the merge does not");
    }
    return {};
  }
  if ((!node.domain.empty() && node.domain != "ai.onnx") || !op_set().contains(node.op_type))
    return unsupported(g, n, "no CUDA kernel for this operator");
  if (node.outputs.empty() || node.outputs[0] == core::kNoTensor) return unsupported(g, n, "no output");
  for (std::size_t i = 0; i < node.inputs.size(); ++i) {
    const TensorId t = node.inputs[i];
    if (t == core::kNoTensor) continue;
    const core::Tensor& tensor = g.tensor(t);
    if (!tensor.shape_known()) return unsupported(g, n, "input '" + tensor.name + "' has no static shape");
    if (is_meta_input(node, i)) {
      if (tensor.producer != core::kNoNode) return unsupported(g, n, "input '" + tensor.name + "' is computed at run time, not a weight");
      continue;
    }
    if (tensor.dtype != core::DType::Float32)
      return unsupported(g, n, "input '" + tensor.name + "' is " + std::string(core::dtype_name(tensor.dtype)) + " (float32 only)");
  }
  const core::Tensor& out = g.tensor(node.outputs[0]);
  if (!out.shape_known() || out.dtype != core::DType::Float32) return unsupported(g, n, "output '" + out.name + "' is not static float32");
  for (std::size_t i = 1; i < node.outputs.size(); ++i) {
    if (node.outputs[i] == core::kNoTensor) continue;
    // Dropout's mask is never written (inference: all true); only an unread mask is accepted.
    const core::Tensor& extra = g.tensor(node.outputs[i]);
    if (node.op_type != "Dropout" || !extra.consumers.empty() || extra.kind == core::TensorKind::Output)
      return unsupported(g, n, "optional output " + std::to_string(i) + (node.op_type == "Dropout" ? " (the mask) is read" : ""));
  }

  const std::string& op = node.op_type;
  if (op == "Conv") {
    WEFT_TRY(conv_geometry(g, n));
    return {};
  }
  if (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" || op == "GlobalMaxPool") {
    WEFT_TRY(pool_geometry(g, n));
    return {};
  }
  if (op == "Gemm" || op == "MatMul") {
    WEFT_TRY_ASSIGN(auto m, gemm_geometry(g, n));
    if (op == "Gemm" && m.has_c) {
      std::int64_t strides[kMaxRank];
      if (!broadcast_strides(shape_of(g, input(node, 2)), {m.m, m.n}, strides)) return unsupported(g, n, "C does not broadcast to [M, N]");
    }
    return {};
  }
  if (op == "Softmax") {
    WEFT_TRY(softmax_geometry(g, n));
    return {};
  }
  if (op == "ReduceMean") {
    WEFT_TRY(reduce_geometry(g, n, nullptr));
    return {};
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow") {
    const Shape a = shape_of(g, input(node, 0)), b = shape_of(g, input(node, 1));
    WEFT_TRY(broadcast_geometry(g, n, a, &b, out.shape()));
    return {};
  }
  if (op == "Sum" || op == "Mean") {
    if (node.inputs.empty() || input(node, 0) == core::kNoTensor) return unsupported(g, n, "no inputs");
    for (const TensorId t : node.inputs)
      if (t != core::kNoTensor) WEFT_TRY(broadcast_geometry(g, n, shape_of(g, t), nullptr, out.shape()));
    return {};
  }
  if (op == "Transpose") {
    WEFT_TRY(transpose_geometry(g, n));
    return {};
  }
  if (op == "Slice") {
    // The bounds are read at prepare time (weights); here: rank and the attribute form.
    if (shape_of(g, input(node, 0)).size() > static_cast<std::size_t>(kMaxRank)) return unsupported(g, n, "rank above " + std::to_string(kMaxRank));
    if (!node.attribute("starts") && node.inputs.size() < 3) return unsupported(g, n, "needs starts and ends");
  }
  if (op == "Gather") {
    const Shape x = shape_of(g, input(node, 0));
    const std::int64_t axis = normalise_axis(node.attr_int("axis", 0), x.size());
    if (axis < 0 || axis >= static_cast<std::int64_t>(x.size())) return unsupported(g, n, "axis out of range");
    const core::Tensor& idx = g.tensor(input(node, 1));
    if (idx.dtype != core::DType::Int64) return unsupported(g, n, "indices must be int64");
  }
  if (op == "BatchNormalization") {
    if (node.attr_int("training_mode", 0) != 0) return unsupported(g, n, "training_mode");
    if (shape_of(g, input(node, 0)).size() < 2 || node.inputs.size() < 5) return unsupported(g, n, "needs X of rank >= 2 and 5 inputs");
  }
  if (op == "LRN" && shape_of(g, input(node, 0)).size() < 2) return unsupported(g, n, "input rank < 2");
  if (op == "Concat") {
    const std::int64_t axis = normalise_axis(node.attr_int("axis", 0), out.shape().size());
    if (axis < 0 || axis >= static_cast<std::int64_t>(out.shape().size())) return unsupported(g, n, "axis out of range");
  }
  if (is_copy_op(op) && g.tensor(input(node, 0)).bytes() != out.bytes()) return unsupported(g, n, "view changes the byte size");
  return {};
}

Status check_graph(const Graph& g) {
  for (std::size_t v = 0; v < g.node_count(); ++v)
    WEFT_TRY(check_node(g, static_cast<NodeId>(v)));
  return {};
}

/// Sum and Mean over any number of broadcasting inputs, as the CPU reference computes them: the
/// first two added into the output, each further input added to it in place (one thread reads and
/// writes the same element), Mean's total then divided by the count. One launch per input.
template <class Dev>
core::Expected<PreparedNode> variadic_sum(const Graph& g, NodeId n, const Dev& dev) {
  const Node& node = g.node(n);
  const Shape out = shape_of(g, node.outputs[0]);
  const std::int64_t count = product(out, 0, out.size());
  float* y = dev(node.outputs[0]);
  std::vector<TensorId> ins;
  for (const TensorId t : node.inputs)
    if (t != core::kNoTensor) ins.push_back(t);
  if (ins.empty()) return unsupported(g, n, "no inputs");
  struct Step {
    MemberLaunch l;
    const float *a, *b;
  };
  std::vector<Step> steps;
  MemberLaunch first;
  first.count = count;
  if (ins.size() == 1) {
    first.family = MemberLaunch::Family::Copy;
    WEFT_TRY_ASSIGN(first.shape, broadcast_geometry(g, n, shape_of(g, ins[0]), nullptr, out));
    steps.push_back({first, dev(ins[0]), nullptr});
  } else {
    first.family = MemberLaunch::Family::Binary;
    first.binary = BinaryOp::Add;
    const Shape b = shape_of(g, ins[1]);
    WEFT_TRY_ASSIGN(first.shape, broadcast_geometry(g, n, shape_of(g, ins[0]), &b, out));
    steps.push_back({first, dev(ins[0]), dev(ins[1])});
  }
  for (std::size_t i = 2; i < ins.size(); ++i) {
    MemberLaunch more = first;
    const Shape b = shape_of(g, ins[i]);
    WEFT_TRY_ASSIGN(more.shape, broadcast_geometry(g, n, out, &b, out));  // y = y + input i
    steps.push_back({more, y, dev(ins[i])});
  }
  if (node.op_type == "Mean" && ins.size() > 1) {
    MemberLaunch divide;
    divide.family = MemberLaunch::Family::Unary;
    divide.unary = UnaryOp::DivideBy;
    divide.p0 = static_cast<float>(ins.size());
    divide.count = count;
    steps.push_back({divide, y, nullptr});
  }
  PreparedNode p;
  p.launch = [steps = std::move(steps), y](const StreamContext& s) -> Status {
    for (const Step& step : steps) WEFT_CUDA_CHECK(launch_one(s.stream, step.l, step.a, step.b, y));
    return {};
  };
  return p;
}

core::Expected<PreparedNode> prepare_node(const PrepareContext& ctx, NodeId n) {
  const Graph& g = *ctx.graph;
  const Node& node = g.node(n);
  const std::string& op = node.op_type;
  if (core::is_merged_node(node)) {
    // The members prepared over the body graph, whose inputs and outputs are the node's tensors:
    // their device pointers, and the host values of the weights among them.
    const Graph* body = merged_body(node);
    if (!body) return unsupported(g, n, "a merged node without a matching body");
    auto body_device = std::make_shared<std::vector<void*>>(body->tensor_count(), nullptr);
    std::map<TensorId, core::HostTensor> body_host;
    const auto map = [&](TensorId inner, TensorId outer) {
      if (inner == core::kNoTensor || outer == core::kNoTensor) return;
      (*body_device)[static_cast<std::size_t>(inner)] = (*ctx.device)[static_cast<std::size_t>(outer)];
      if (auto it = ctx.host->find(outer); it != ctx.host->end()) body_host.emplace(inner, it->second);
    };
    for (std::size_t i = 0; i < node.inputs.size(); ++i) map(body->inputs()[i], node.inputs[i]);
    for (std::size_t i = 0; i < node.outputs.size(); ++i) map(body->outputs()[i], node.outputs[i]);
    const PrepareContext inner{body, body_device.get(), &body_host, ctx.cudnn, ctx.tf32, ctx.cublaslt};
    WEFT_TRY_ASSIGN(auto batched, batched_gemm(inner));
    if (batched) return std::move(*batched);
    WEFT_TRY_ASSIGN(auto grouped, batched_members(inner));
    if (grouped) return std::move(*grouped);
    WEFT_TRY_ASSIGN(auto concatenated, concat_conv(inner));
    if (concatenated) return std::move(*concatenated);
    std::vector<LaunchFn> members;
    PreparedNode p;
    p.merged_path = "members in turn";
    for (std::size_t m = 0; m < body->node_count(); ++m) {
      auto member = prepare_node(inner, static_cast<NodeId>(m));
      if (!member)
        return core::make_error(member.error().kind, "in merged node '" + g.key(n) + "': " + member.error().message);
      p.workspace_bytes = std::max(p.workspace_bytes, member->workspace_bytes);  // one after another: the largest
      members.push_back(std::move(member->launch));
    }
    p.launch = [members = std::move(members), body_device](const StreamContext& s) -> Status {
      for (const LaunchFn& launch : members) WEFT_TRY(launch(s));
      return {};
    };
    return p;
  }
  auto dev = [&](TensorId t) -> float* { return t == core::kNoTensor ? nullptr : static_cast<float*>((*ctx.device)[static_cast<std::size_t>(t)]); };
  float* y = dev(node.outputs[0]);
  const float* x = dev(input(node, 0));
  const Shape out = shape_of(g, node.outputs[0]);
  const std::int64_t count = product(out, 0, out.size());
  PreparedNode p;

  if (is_copy_op(op)) {
    const auto bytes = static_cast<std::size_t>(g.tensor(node.outputs[0]).bytes());
    p.launch = [x, y, bytes](const StreamContext& s) -> Status {
      if (x != y && bytes > 0) WEFT_CUDA_CHECK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice, s.stream));
      return {};
    };
    return p;
  }

  WEFT_TRY_ASSIGN(const auto elementwise, member_launch(g, n, ctx.host));
  if (elementwise) {
    const float* xb = elementwise->family == MemberLaunch::Family::Binary ? dev(input(node, 1)) : nullptr;
    p.launch = [l = *elementwise, x, xb, y](const StreamContext& s) -> Status {
      WEFT_CUDA_CHECK(launch_one(s.stream, l, x, xb, y));
      return {};
    };
    return p;
  }

  if (op == "Sum" || op == "Mean") return variadic_sum(g, n, dev);

  if (op == "Gather") {
    const Shape xs = shape_of(g, input(node, 0));
    const auto axis = static_cast<std::size_t>(normalise_axis(node.attr_int("axis", 0), xs.size()));
    auto indices = host_ints(ctx.host, input(node, 1));
    if (!indices) return unsupported(g, n, "indices must be an int64 weight");
    const std::int64_t dim = xs[axis];
    for (const std::int64_t k : *indices)
      if (k < -dim || k >= dim) return unsupported(g, n, "index " + std::to_string(k) + " out of range");
    const std::int64_t outer = product(xs, 0, axis), inner = product(xs, axis + 1, xs.size());
    const auto nidx = static_cast<std::int64_t>(indices->size());
    if (outer * nidx * inner != count) return unsupported(g, n, "output size differs from the gathered size");
    const auto* idx = static_cast<const std::int64_t*>((*ctx.device)[static_cast<std::size_t>(input(node, 1))]);
    p.launch = [=](const StreamContext& s) -> Status {
      WEFT_CUDA_CHECK(launch_gather(s.stream, outer, dim, nidx, inner, x, idx, y));
      return {};
    };
    return p;
  }

  if (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" || op == "GlobalMaxPool") {
    WEFT_TRY_ASSIGN(auto geo, pool_geometry(g, n));
    p.launch = [geo, x, y](const StreamContext& s) -> Status {
      WEFT_CUDA_CHECK(launch_pool2d(s.stream, geo, x, y));
      return {};
    };
    return p;
  }

  if (op == "LRN") {
    const Shape xs = shape_of(g, input(node, 0));
    const int size = static_cast<int>(node.attr_int("size", 1));
    const float alpha = node.attr_float("alpha", 1e-4f), beta = node.attr_float("beta", 0.75f), bias = node.attr_float("bias", 1.0f);
    const std::int64_t nn = xs[0], c = xs[1], hw = product(xs, 2, xs.size());
    p.launch = [=](const StreamContext& s) -> Status {
      WEFT_CUDA_CHECK(launch_lrn(s.stream, nn, c, hw, size, alpha, beta, bias, x, y));
      return {};
    };
    return p;
  }

  if (op == "BatchNormalization") {
    const Shape xs = shape_of(g, input(node, 0));
    const std::int64_t nn = xs[0], c = xs[1], hw = product(xs, 2, xs.size());
    const float eps = node.attr_float("epsilon", 1e-5f);
    const float *scale = dev(input(node, 1)), *bias = dev(input(node, 2)), *mean = dev(input(node, 3)), *var = dev(input(node, 4));
    p.launch = [=](const StreamContext& s) -> Status {
      WEFT_CUDA_CHECK(launch_batchnorm(s.stream, nn, c, hw, x, scale, bias, mean, var, eps, y));
      return {};
    };
    return p;
  }

  if (op == "Concat") {
    const auto axis = static_cast<std::size_t>(normalise_axis(node.attr_int("axis", 0), out.size()));
    struct Part {
      const float* x;
      std::int64_t size, offset;
    };
    std::vector<Part> parts;
    std::int64_t offset = 0;
    for (TensorId t : node.inputs) {
      if (t == core::kNoTensor) continue;
      const std::int64_t size = shape_of(g, t)[axis];
      parts.push_back({dev(t), size, offset});
      offset += size;
    }
    if (offset != out[axis]) return unsupported(g, n, "input sizes along the axis do not add up to the output's");
    const std::int64_t outer = product(out, 0, axis), inner = product(out, axis + 1, out.size()), total = out[axis];
    p.launch = [parts, outer, inner, total, y](const StreamContext& s) -> Status {
      for (const Part& part : parts) WEFT_CUDA_CHECK(launch_concat_part(s.stream, outer, part.size, total, part.offset, inner, part.x, y));
      return {};
    };
    return p;
  }

  if (op == "Gemm" || op == "MatMul") {
    WEFT_TRY_ASSIGN(const GemmGeometry m, gemm_geometry(g, n));
    const float* b = dev(input(node, 1));
    std::optional<Broadcast> c_bc;
    const float* c = nullptr;
    if (m.has_c) {
      WEFT_TRY_ASSIGN(c_bc, broadcast_geometry(g, n, shape_of(g, input(node, 2)), nullptr, {m.m, m.n}));
      c = dev(input(node, 2));
    }
    p.launch = [m, x, b, c, c_bc, y](const StreamContext& s) -> Status {
      if (c_bc) WEFT_CUDA_CHECK(launch_broadcast_copy(s.stream, *c_bc, c, y, m.m * m.n));
      const GemmGeometry::Blas call = m.blas();
      if (call.m == 0 || call.n == 0) return {};
      if (call.k == 0) {
        // An empty sum: Y = beta C (C already copied into Y), or zeros. cuBLAS refuses lda = 0.
        const int elements = call.m * call.n * static_cast<int>(m.batch);
        if (c_bc) WEFT_CUDA_CHECK(cublasSscal(s.cublas, elements, &m.beta, y, 1));
        else WEFT_CUDA_CHECK(cudaMemsetAsync(y, 0, static_cast<std::size_t>(elements) * sizeof(float), s.stream));
        return {};
      }
      if (m.batch == 1) {
        WEFT_CUDA_CHECK(cublasSgemm(s.cublas, call.op_b, call.op_a, call.n, call.m, call.k, &m.alpha, b, call.ldb, x, call.lda, &m.beta,
                                    y, call.n));
      } else {
        WEFT_CUDA_CHECK(cublasSgemmStridedBatched(s.cublas, call.op_b, call.op_a, call.n, call.m, call.k, &m.alpha, b, call.ldb, m.stride_b,
                                                  x, call.lda, m.stride_a, &m.beta, y, call.n, m.m * m.n, static_cast<int>(m.batch)));
      }
      return {};
    };
    return p;
  }

  if (op == "Conv") {
    WEFT_TRY_ASSIGN(const ConvGeometry cg, conv_geometry(g, n));
    return conv_launch(ctx, g, n, cg, x, dev(input(node, 1)), cg.bias ? dev(input(node, 2)) : nullptr, y, nullptr);
  }
  return unsupported(g, n, "no CUDA kernel for this operator");
}

}  // namespace weft::gpu::detail
