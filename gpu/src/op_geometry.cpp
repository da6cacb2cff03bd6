// The CUDA executor's host-side checks and launch geometry (op_geometry.h): no CUDA types, so the
// CPU build compiles and tests it too.
#include "op_geometry.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>

#include "weft/core/transform/merge_graph.h"

namespace weft::gpu::detail {

using core::Graph;
using core::Node;
using core::NodeId;
using core::Status;
using core::TensorId;

namespace {

const std::set<std::string, std::less<>>& op_set() {
  static const std::set<std::string, std::less<>> ops = {
      "Add",       "AveragePool", "BatchNormalization", "Clip",          "Concat",      "Conv",      "Div",      "Dropout",
      "Erf",       "Flatten",     "Gather",             "Gemm",          "GlobalAveragePool", "GlobalMaxPool", "HardSigmoid",
      "HardSwish", "Identity",    "LRN",                "LeakyRelu",     "MatMul",      "MaxPool",   "Mean",     "Mul",
      "Pow",       "ReduceMean",  "Relu",               "Reshape",       "Sigmoid",     "Slice",     "Softmax",  "Sqrt",
      "Squeeze",   "Sub",         "Sum",                "Tanh",          "Transpose",   "Unsqueeze"};
  return ops;
}

}  // namespace

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

namespace {

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

}  // namespace


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
std::optional<Shape> host_ints(const HostValues* host, TensorId t) {
  if (!host) return std::nullopt;
  auto it = host->find(t);
  if (it == host->end() || it->second.dtype != core::DType::Int64) return std::nullopt;
  Shape v(it->second.bytes.size() / sizeof(std::int64_t));
  if (!v.empty()) std::memcpy(v.data(), it->second.bytes.data(), v.size() * sizeof(std::int64_t));
  return v;
}

/// [outer, dim, inner] of ReduceMean over contiguous axes. `host` may be null (check only: an
/// axes input is then accepted when it is a weight).
core::Expected<std::array<std::int64_t, 3>> reduce_geometry(const Graph& g, NodeId n, const HostValues* host) {
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
core::Expected<std::pair<Broadcast, std::int64_t>> slice_geometry(const Graph& g, NodeId n, const HostValues* host) {
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
core::Expected<std::optional<MemberLaunch>> member_launch(const Graph& g, NodeId n, const HostValues* host) {
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

namespace {

bool same_shape(const Broadcast& a, const Broadcast& b) {
  if (a.rank != b.rank) return false;
  for (int d = 0; d < a.rank; ++d)
    if (a.dims[d] != b.dims[d] || a.a_stride[d] != b.a_stride[d] || a.b_stride[d] != b.b_stride[d]) return false;
  return true;
}

}  // namespace

/// True when two nodes' launches differ only in their pointers.
bool same_launch(const MemberLaunch& a, const MemberLaunch& b) {
  return a.family == b.family && a.unary == b.unary && a.binary == b.binary && a.p0 == b.p0 && a.p1 == b.p1 && a.base == b.base &&
         a.count == b.count && a.outer == b.outer && a.dim == b.dim && a.inner == b.inner && same_shape(a.shape, b.shape);
}

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

/// A merged node's body (core::merge_graph): its members, reading the body's inputs (the node's,
/// in order) and writing its outputs (the node's). Null when the node has none or they do not
/// match the node's inputs and outputs.
const Graph* merged_body(const Node& node) {
  const core::Attribute* a = node.attribute("body");
  const Graph* body = a ? a->graph.get() : nullptr;
  if (!body || body->inputs().size() != node.inputs.size() || body->outputs().size() != node.outputs.size()) return nullptr;
  return body;
}

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

}  // namespace weft::gpu::detail
