// Indexing kernels: scatters and gathers by index tuples, TopK, OneHot, Compress, NonZero,
// Unique, EyeLike, ReverseSequence, MaxUnpool, Einsum. Data moves as bytes (any fixed-size
// dtype); arithmetic (scatter reductions, Einsum) goes through doubles.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>

#include "kernel.h"

namespace weft::core::detail {
namespace {

std::uint8_t* bytes_of(const View& v) { return static_cast<std::uint8_t*>(v.data); }

/// Index i of an index tensor (int32/int64, or any numeric for OneHot), made non-negative against dim.
bool fix_index(std::int64_t& i, std::int64_t dim) {
  if (i < 0) i += dim;
  return i >= 0 && i < dim;
}

enum class Reduction { None, Add, Mul, Max, Min };

bool parse_reduction(const std::string& s, Reduction& r) {
  if (s == "none") r = Reduction::None;
  else if (s == "add") r = Reduction::Add;
  else if (s == "mul") r = Reduction::Mul;
  else if (s == "max") r = Reduction::Max;
  else if (s == "min") r = Reduction::Min;
  else return false;
  return true;
}

/// out[o] = reduce(out[o], upd[u]) for one element.
void scatter_one(const View& out, std::int64_t o, const View& upd, std::int64_t u, Reduction r, std::size_t es) {
  if (r == Reduction::None) {
    std::memcpy(bytes_of(out) + o * static_cast<std::int64_t>(es), bytes_of(upd) + u * static_cast<std::int64_t>(es), es);
    return;
  }
  const double a = load_double(out, o), b = load_double(upd, u);
  double v = a;
  switch (r) {
    case Reduction::Add: v = a + b; break;
    case Reduction::Mul: v = a * b; break;
    case Reduction::Max: v = std::max(a, b); break;
    case Reduction::Min: v = std::min(a, b); break;
    case Reduction::None: break;
  }
  store_double(out, o, v);
}

/// The scatter kernels' `reduction` attribute; unsupported for an unknown name, or a reduction
/// on a non-numeric tensor.
Status read_reduction(KernelContext& ctx, const View& data, Reduction& red) {
  if (!parse_reduction(ctx.node().attr_string("reduction", "none"), red)) return unsupported(ctx, "reduction");
  if (red != Reduction::None && !is_numeric(data.dtype)) return unsupported(ctx, "reduction on a non-numeric dtype");
  return {};
}

Status scatter_nd_kernel(KernelContext& ctx) {
  const View& data = ctx.in(0);
  const View& idx = ctx.in(1);
  const View& upd = ctx.in(2);
  Reduction red;
  WEFT_TRY(read_reduction(ctx, data, red));
  std::vector<std::int64_t> indices;
  if (!read_ints(idx, indices) || idx.shape.empty()) return kernel_error(ctx, "indices must be int64 of rank >= 1");
  const auto k = static_cast<std::size_t>(idx.shape.back());
  if (k > data.shape.size()) return kernel_error(ctx, "index tuples longer than the data's rank");
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, data.dtype, data.shape));
  if (y.data != data.data && data.bytes() > 0) std::memcpy(y.data, data.data, data.bytes());
  const Shape st = strides_of(data.shape);
  const std::int64_t slice_elems = shape_elements(std::span(data.shape).subspan(k));
  const std::int64_t tuples = k ? static_cast<std::int64_t>(indices.size() / k) : 0;
  const std::size_t es = dtype_size(data.dtype);
  for (std::int64_t t = 0; t < tuples; ++t) {
    std::int64_t base = 0;
    for (std::size_t d = 0; d < k; ++d) {
      std::int64_t i = indices[static_cast<std::size_t>(t) * k + d];
      if (!fix_index(i, data.shape[d])) return kernel_error(ctx, "index out of range");
      base += i * st[d];
    }
    for (std::int64_t e = 0; e < slice_elems; ++e) scatter_one(y, base + e, upd, t * slice_elems + e, red, es);
  }
  return {};
}

Status scatter_elements_kernel(KernelContext& ctx) {
  const View& data = ctx.in(0);
  const View& idx = ctx.in(1);
  const View& upd = ctx.in(2);
  Reduction red;
  WEFT_TRY(read_reduction(ctx, data, red));
  std::int64_t axis = ctx.node().attr_int("axis", 0);
  const auto rank = static_cast<std::int64_t>(data.shape.size());
  if (!normalize_axis(axis, rank)) return kernel_error(ctx, "axis out of range");
  std::vector<std::int64_t> indices;
  if (!read_ints(idx, indices)) return kernel_error(ctx, "indices must be int32 or int64");
  if (idx.shape != upd.shape || idx.shape.size() != data.shape.size()) return kernel_error(ctx, "indices and updates must match in shape and rank");
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, data.dtype, data.shape));
  if (y.data != data.data && data.bytes() > 0) std::memcpy(y.data, data.data, data.bytes());
  const Shape st = strides_of(data.shape);
  const std::size_t es = dtype_size(data.dtype);
  Shape pos(idx.shape.size(), 0);
  for (std::int64_t u = 0; u < upd.elements(); ++u) {
    std::int64_t o = 0;
    for (std::size_t d = 0; d < pos.size(); ++d) {
      std::int64_t c = pos[d];
      if (static_cast<std::int64_t>(d) == axis) {
        c = indices[static_cast<std::size_t>(u)];
        if (!fix_index(c, data.shape[d])) return kernel_error(ctx, "index out of range");
      }
      o += c * st[d];
    }
    scatter_one(y, o, upd, u, red, es);
    for (std::size_t d = pos.size(); d-- > 0;) {
      if (++pos[d] < idx.shape[d]) break;
      pos[d] = 0;
    }
  }
  return {};
}

Status gather_nd_kernel(KernelContext& ctx) {
  const View& data = ctx.in(0);
  const View& idx = ctx.in(1);
  const auto b = static_cast<std::size_t>(ctx.node().attr_int("batch_dims", 0));
  std::vector<std::int64_t> indices;
  if (!read_ints(idx, indices) || idx.shape.empty()) return kernel_error(ctx, "indices must be int64 of rank >= 1");
  const auto k = static_cast<std::size_t>(idx.shape.back());
  if (b >= idx.shape.size() || b + k > data.shape.size()) return kernel_error(ctx, "batch_dims and index tuples do not fit the data");
  Shape out(idx.shape.begin(), idx.shape.end() - 1);
  out.insert(out.end(), data.shape.begin() + static_cast<std::ptrdiff_t>(b + k), data.shape.end());
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, data.dtype, out));
  const std::int64_t batches = shape_elements(std::span(data.shape).first(b));
  const std::int64_t per_batch = shape_elements(std::span(data.shape).subspan(b));
  const std::int64_t slice = shape_elements(std::span(data.shape).subspan(b + k));
  const std::int64_t tuples_per_batch = batches ? static_cast<std::int64_t>(indices.size() / std::max<std::size_t>(k, 1)) / batches : 0;
  const Shape st = strides_of(std::span(data.shape).subspan(b));
  const std::size_t es = dtype_size(data.dtype);
  std::int64_t o = 0;
  for (std::int64_t bi = 0; bi < batches; ++bi)
    for (std::int64_t t = 0; t < tuples_per_batch; ++t) {
      std::int64_t base = bi * per_batch;
      for (std::size_t d = 0; d < k; ++d) {
        std::int64_t i = indices[static_cast<std::size_t>((bi * tuples_per_batch + t)) * k + d];
        if (!fix_index(i, data.shape[b + d])) return kernel_error(ctx, "index out of range");
        base += i * st[d];
      }
      std::memcpy(bytes_of(y) + o * static_cast<std::int64_t>(es), bytes_of(data) + base * static_cast<std::int64_t>(es),
                  static_cast<std::size_t>(slice) * es);
      o += slice;
    }
  return {};
}

Status topk_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  std::vector<std::int64_t> kv;
  std::int64_t k = ctx.node().attr_int("k", -1);
  if (ctx.has_input(1)) {
    if (!read_ints(ctx.in(1), kv) || kv.size() != 1) return kernel_error(ctx, "K must be one int64");
    k = kv[0];
  }
  std::int64_t axis = ctx.node().attr_int("axis", -1);
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  if (!normalize_axis(axis, rank) || rank == 0) return kernel_error(ctx, "axis out of range");
  const std::int64_t n = x.shape[static_cast<std::size_t>(axis)];
  if (k < 0 || k > n) return kernel_error(ctx, "K out of range");
  const bool largest = ctx.node().attr_int("largest", 1) != 0;
  Shape out = x.shape;
  out[static_cast<std::size_t>(axis)] = k;
  WEFT_KERNEL_OUTPUT(values, ctx.output(0, x.dtype, out));
  WEFT_KERNEL_OUTPUT(indices, ctx.output(1, DType::Int64, out));
  if (!is_numeric(x.dtype)) return unsupported(ctx, "dtype");
  const std::int64_t inner = shape_elements(std::span(x.shape).subspan(static_cast<std::size_t>(axis) + 1));
  const std::int64_t outer = x.elements() / std::max<std::int64_t>(n * inner, 1);
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::vector<double> vals(static_cast<std::size_t>(n));
  const std::size_t es = dtype_size(x.dtype);
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t in = 0; in < inner; ++in) {
      const std::int64_t base = o * n * inner + in;
      for (std::int64_t j = 0; j < n; ++j) vals[static_cast<std::size_t>(j)] = load_double(x, base + j * inner);
      std::iota(order.begin(), order.end(), std::int64_t{0});
      // Ties keep the lower index first (ONNX); NaN sorts as the largest value.
      std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
        const double va = vals[static_cast<std::size_t>(a)], vb = vals[static_cast<std::size_t>(b)];
        if (std::isnan(va) || std::isnan(vb)) return largest ? (std::isnan(va) && !std::isnan(vb)) : (!std::isnan(va) && std::isnan(vb));
        return largest ? va > vb : va < vb;
      });
      const std::int64_t obase = o * k * inner + in;
      for (std::int64_t j = 0; j < k; ++j) {
        const std::int64_t src = order[static_cast<std::size_t>(j)];
        std::memcpy(bytes_of(values) + (obase + j * inner) * static_cast<std::int64_t>(es),
                    bytes_of(x) + (base + src * inner) * static_cast<std::int64_t>(es), es);
        indices.as<std::int64_t>()[obase + j * inner] = src;
      }
    }
  return {};
}

Status one_hot_kernel(KernelContext& ctx) {
  const View& idx = ctx.in(0);
  const View& values = ctx.in(2);
  if (!is_numeric(idx.dtype) || !is_numeric(ctx.in(1).dtype) || ctx.in(1).elements() != 1) return kernel_error(ctx, "indices and depth must be numeric");
  if (values.elements() != 2) return kernel_error(ctx, "values must hold [off, on]");
  const auto depth = static_cast<std::int64_t>(load_double(ctx.in(1), 0));
  if (depth < 0) return kernel_error(ctx, "depth must be non-negative");
  std::int64_t axis = ctx.node().attr_int("axis", -1);
  const auto rank = static_cast<std::int64_t>(idx.shape.size()) + 1;
  if (!normalize_axis(axis, rank)) return kernel_error(ctx, "axis out of range");
  Shape out = idx.shape;
  out.insert(out.begin() + axis, depth);
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, values.dtype, out));
  const std::int64_t inner = shape_elements(std::span(idx.shape).subspan(static_cast<std::size_t>(axis)));
  const std::int64_t outer = idx.elements() / std::max<std::int64_t>(inner, 1);
  const std::size_t es = dtype_size(values.dtype);
  const std::uint8_t* off = bytes_of(values);
  const std::uint8_t* on = off + es;
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t d = 0; d < depth; ++d)
      for (std::int64_t i = 0; i < inner; ++i) {
        auto c = static_cast<std::int64_t>(load_double(idx, o * inner + i));
        if (c < 0) c += depth;
        std::memcpy(bytes_of(y) + ((o * depth + d) * inner + i) * static_cast<std::int64_t>(es), c == d ? on : off, es);
      }
  return {};
}

Status compress_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  const View& cond = ctx.in(1);
  if (!is_numeric(cond.dtype)) return kernel_error(ctx, "condition must be bool");
  const std::size_t es = dtype_size(x.dtype);
  std::vector<std::int64_t> keep;
  const Attribute* axis_attr = ctx.node().attribute("axis");
  const std::int64_t len = axis_attr ? 0 : x.elements();
  std::int64_t axis = axis_attr ? axis_attr->i : 0;
  const std::int64_t dim = axis_attr ? (normalize_axis(axis, static_cast<std::int64_t>(x.shape.size())) ? x.shape[static_cast<std::size_t>(axis)] : -1) : len;
  if (dim < 0) return kernel_error(ctx, "axis out of range");
  for (std::int64_t i = 0; i < std::min(dim, cond.elements()); ++i)
    if (load_double(cond, i) != 0) keep.push_back(i);
  if (!axis_attr) {
    WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, {static_cast<std::int64_t>(keep.size())}));
    for (std::size_t j = 0; j < keep.size(); ++j)
      std::memcpy(bytes_of(y) + j * es, bytes_of(x) + static_cast<std::size_t>(keep[j]) * es, es);
    return {};
  }
  Shape out = x.shape;
  out[static_cast<std::size_t>(axis)] = static_cast<std::int64_t>(keep.size());
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, out));
  const std::int64_t inner = shape_elements(std::span(x.shape).subspan(static_cast<std::size_t>(axis) + 1));
  const std::int64_t outer = x.elements() / std::max<std::int64_t>(dim * inner, 1);
  const auto row = static_cast<std::size_t>(inner) * es;
  std::uint8_t* dst = bytes_of(y);
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j : keep) {
      std::memcpy(dst, bytes_of(x) + static_cast<std::size_t>((o * dim + j) * inner) * es, row);
      dst += row;
    }
  return {};
}

Status non_zero_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  if (!is_numeric(x.dtype)) return unsupported(ctx, "dtype");
  const std::size_t rank = x.shape.size();
  std::vector<std::int64_t> hits;
  for (std::int64_t i = 0; i < x.elements(); ++i)
    if (load_double(x, i) != 0) hits.push_back(i);
  // A scalar reports as rank 1 (as ONNX Runtime does).
  const std::size_t rows = std::max<std::size_t>(rank, 1);
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, DType::Int64, {static_cast<std::int64_t>(rows), static_cast<std::int64_t>(hits.size())}));
  const Shape st = strides_of(x.shape);
  for (std::size_t j = 0; j < hits.size(); ++j)
    for (std::size_t d = 0; d < rows; ++d)
      y.as<std::int64_t>()[d * hits.size() + j] = rank == 0 ? 0 : (hits[j] / st[d]) % x.shape[d];
  return {};
}

Status unique_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  if (!is_numeric(x.dtype)) return unsupported(ctx, "dtype");
  const bool sorted = ctx.node().attr_int("sorted", 1) != 0;
  const Attribute* axis_attr = ctx.node().attribute("axis");
  std::int64_t axis = axis_attr ? axis_attr->i : 0;
  Shape shape = axis_attr ? x.shape : Shape{x.elements()};
  if (!normalize_axis(axis, static_cast<std::int64_t>(shape.size()))) return kernel_error(ctx, "axis out of range");
  const std::int64_t n = shape[static_cast<std::size_t>(axis)];
  const std::int64_t inner = shape_elements(std::span(shape).subspan(static_cast<std::size_t>(axis) + 1));
  const std::int64_t outer = shape_elements(std::span(shape).first(static_cast<std::size_t>(axis)));
  // Slice j along the axis, as a vector of doubles (compared lexicographically).
  std::vector<std::vector<double>> slices(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i) slices[static_cast<std::size_t>(j)].push_back(load_double(x, (o * n + j) * inner + i));
  std::vector<std::int64_t> first;                  // unique slices by first occurrence
  std::vector<std::int64_t> inverse(static_cast<std::size_t>(n));
  std::map<std::vector<double>, std::int64_t> seen;  // slice -> position in `first`
  for (std::int64_t j = 0; j < n; ++j) {
    auto [it, inserted] = seen.emplace(slices[static_cast<std::size_t>(j)], static_cast<std::int64_t>(first.size()));
    if (inserted) first.push_back(j);
    inverse[static_cast<std::size_t>(j)] = it->second;
  }
  std::vector<std::int64_t> order(first.size());  // output position -> index into `first`
  std::iota(order.begin(), order.end(), std::int64_t{0});
  if (sorted)
    std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
      return slices[static_cast<std::size_t>(first[static_cast<std::size_t>(a)])] <
             slices[static_cast<std::size_t>(first[static_cast<std::size_t>(b)])];
    });
  std::vector<std::int64_t> rank_of(first.size());
  for (std::size_t p = 0; p < order.size(); ++p) rank_of[static_cast<std::size_t>(order[p])] = static_cast<std::int64_t>(p);
  const auto u = static_cast<std::int64_t>(first.size());
  Shape yshape = shape;
  yshape[static_cast<std::size_t>(axis)] = u;
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, yshape));
  const std::size_t es = dtype_size(x.dtype);
  for (std::int64_t p = 0; p < u; ++p) {
    const std::int64_t j = first[static_cast<std::size_t>(order[static_cast<std::size_t>(p)])];
    for (std::int64_t o = 0; o < outer; ++o)
      std::memcpy(bytes_of(y) + static_cast<std::size_t>((o * u + p) * inner) * es,
                  bytes_of(x) + static_cast<std::size_t>((o * n + j) * inner) * es, static_cast<std::size_t>(inner) * es);
  }
  if (ctx.wants_output(1)) {
    WEFT_KERNEL_OUTPUT(ind, ctx.output(1, DType::Int64, {u}));
    for (std::int64_t p = 0; p < u; ++p) ind.as<std::int64_t>()[p] = first[static_cast<std::size_t>(order[static_cast<std::size_t>(p)])];
  }
  if (ctx.wants_output(2)) {
    WEFT_KERNEL_OUTPUT(inv, ctx.output(2, DType::Int64, {n}));
    for (std::int64_t j = 0; j < n; ++j) inv.as<std::int64_t>()[j] = rank_of[static_cast<std::size_t>(inverse[static_cast<std::size_t>(j)])];
  }
  if (ctx.wants_output(3)) {
    WEFT_KERNEL_OUTPUT(cnt, ctx.output(3, DType::Int64, {u}));
    std::fill_n(cnt.as<std::int64_t>(), u, 0);
    for (std::int64_t j = 0; j < n; ++j) ++cnt.as<std::int64_t>()[rank_of[static_cast<std::size_t>(inverse[static_cast<std::size_t>(j)])]];
  }
  return {};
}

Status eye_like_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  if (x.shape.size() != 2) return kernel_error(ctx, "input must be 2-D");
  const Attribute* dt = ctx.node().attribute("dtype");
  const DType dtype = dt ? static_cast<DType>(dt->i) : x.dtype;
  if (!is_numeric(dtype)) return unsupported(ctx, "dtype");
  const std::int64_t k = ctx.node().attr_int("k", 0);
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, dtype, x.shape));
  for (std::int64_t r = 0; r < x.shape[0]; ++r)
    for (std::int64_t c = 0; c < x.shape[1]; ++c) store_double(y, r * x.shape[1] + c, c - r == k ? 1.0 : 0.0);
  return {};
}

Status reverse_sequence_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  std::vector<std::int64_t> lens;
  if (!read_ints(ctx.in(1), lens)) return kernel_error(ctx, "sequence_lens must be int64");
  const auto batch_axis = static_cast<std::size_t>(ctx.node().attr_int("batch_axis", 1));
  const auto time_axis = static_cast<std::size_t>(ctx.node().attr_int("time_axis", 0));
  if (x.shape.size() < 2 || batch_axis > 1 || time_axis > 1 || batch_axis == time_axis) return kernel_error(ctx, "batch_axis and time_axis must be 0 and 1");
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, x.shape));
  const std::int64_t inner = shape_elements(std::span(x.shape).subspan(2));
  const std::size_t es = dtype_size(x.dtype);
  const Shape st = strides_of(x.shape);
  for (std::int64_t b = 0; b < x.shape[batch_axis]; ++b) {
    const std::int64_t len = std::clamp<std::int64_t>(lens[static_cast<std::size_t>(b)], 0, x.shape[time_axis]);
    for (std::int64_t t = 0; t < x.shape[time_axis]; ++t) {
      const std::int64_t src_t = t < len ? len - 1 - t : t;
      const std::int64_t dst = b * st[batch_axis] + t * st[time_axis];
      const std::int64_t src = b * st[batch_axis] + src_t * st[time_axis];
      std::memcpy(bytes_of(y) + static_cast<std::size_t>(dst) * es, bytes_of(x) + static_cast<std::size_t>(src) * es,
                  static_cast<std::size_t>(inner) * es);
    }
  }
  return {};
}

Status max_unpool_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  std::vector<std::int64_t> indices;
  if (!read_ints(ctx.in(1), indices) || ctx.in(1).shape != x.shape) return kernel_error(ctx, "indices must be int64 shaped as X");
  const Node& node = ctx.node();
  const std::size_t spatial = x.shape.size() >= 2 ? x.shape.size() - 2 : 0;
  // Indices address the unpooled shape the kernel geometry implies; an explicit output_shape
  // (at least as large) keeps each value at the same coordinates, the extra border zero.
  Shape inferred = x.shape;
  const auto kernel = node.attr_ints("kernel_shape");
  auto strides = node.attr_ints("strides");
  auto pads = node.attr_ints("pads");
  if (kernel.size() != spatial) return kernel_error(ctx, "kernel_shape must give every spatial dim");
  strides.resize(spatial, 1);
  pads.resize(2 * spatial, 0);
  for (std::size_t d = 0; d < spatial; ++d)
    inferred[2 + d] = (x.shape[2 + d] - 1) * strides[d] + kernel[d] - pads[d] - pads[spatial + d];
  Shape out = inferred;
  if (ctx.has_input(2)) {
    if (!read_ints(ctx.in(2), out) || out.size() != x.shape.size()) return kernel_error(ctx, "output_shape must list every dim");
    for (std::size_t d = 0; d < out.size(); ++d)
      if (out[d] < inferred[d]) return kernel_error(ctx, "output_shape is smaller than the unpooled shape");
  }
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, out));
  if (y.bytes() > 0) std::memset(y.data, 0, y.bytes());
  const std::size_t es = dtype_size(x.dtype);
  const Shape in_st = strides_of(inferred), out_st = strides_of(out);
  const std::int64_t total = shape_elements(inferred);
  for (std::size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] < 0 || indices[i] >= total) return kernel_error(ctx, "index out of range");
    std::int64_t o = 0;
    for (std::size_t d = 0; d < out.size(); ++d) o += (indices[i] / in_st[d]) % inferred[d] * out_st[d];
    std::memcpy(bytes_of(y) + static_cast<std::size_t>(o) * es, bytes_of(x) + i * es, es);
  }
  return {};
}

// ---- Einsum: a direct sum over every label's range (reference semantics, not speed) ----

struct EinsumSpec {
  std::vector<std::string> inputs;  // labels per operand, ellipsis expanded to upper-case letters
  std::string output;
};

bool parse_einsum(std::string eq, std::span<const View> operands, EinsumSpec& spec, std::string& why) {
  std::erase(eq, ' ');
  const auto arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (std::size_t p = 0;;) {
    const auto q = lhs.find(',', p);
    terms.push_back(lhs.substr(p, q == std::string::npos ? std::string::npos : q - p));
    if (q == std::string::npos) break;
    p = q + 1;
  }
  if (terms.size() != operands.size()) {
    why = "equation has " + std::to_string(terms.size()) + " operands, the node " + std::to_string(operands.size());
    return false;
  }
  // Ellipsis dims become '0', '1', ... (not valid labels, so no clash), right-aligned across
  // operands (broadcast).
  std::size_t ell_rank = 0;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const auto e = terms[i].find("...");
    if (e == std::string::npos) continue;
    const std::size_t named = terms[i].size() - 3;
    if (operands[i].shape.size() < named) {
      why = "operand rank below its labels";
      return false;
    }
    ell_rank = std::max(ell_rank, operands[i].shape.size() - named);
  }
  auto ell_labels = [&](std::size_t r) {
    std::string s;
    for (std::size_t k = ell_rank - r; k < ell_rank; ++k) s += static_cast<char>('0' + k);
    return s;
  };
  for (std::size_t i = 0; i < terms.size(); ++i) {
    std::string t = terms[i];
    if (const auto e = t.find("..."); e != std::string::npos)
      t = t.substr(0, e) + ell_labels(operands[i].shape.size() - (t.size() - 3)) + t.substr(e + 3);
    if (t.size() != operands[i].shape.size()) {
      why = "operand " + std::to_string(i) + " has rank " + std::to_string(operands[i].shape.size()) + ", its labels " + std::to_string(t.size());
      return false;
    }
    spec.inputs.push_back(std::move(t));
  }
  if (arrow != std::string::npos) {
    std::string out = eq.substr(arrow + 2);
    if (const auto e = out.find("..."); e != std::string::npos) out = out.substr(0, e) + ell_labels(ell_rank) + out.substr(e + 3);
    spec.output = std::move(out);
  } else {
    // Implicit output: the ellipsis dims, then labels used once, alphabetically.
    std::map<char, int> count;
    for (const auto& t : spec.inputs)
      for (char c : t) ++count[c];
    spec.output = ell_labels(ell_rank);
    for (auto [c, n] : count)
      if (n == 1 && std::isalpha(static_cast<unsigned char>(c))) spec.output += c;
  }
  return true;
}

Status einsum_kernel(KernelContext& ctx) {
  std::vector<View> ops;
  for (std::size_t i = 0; i < ctx.input_count(); ++i) ops.push_back(ctx.in(i));
  if (ops.empty()) return kernel_error(ctx, "no operands");
  for (const View& v : ops)
    if (!is_numeric(v.dtype) || v.dtype != ops[0].dtype) return unsupported(ctx, "dtype");
  EinsumSpec spec;
  std::string why;
  if (!parse_einsum(ctx.node().attr_string("equation", ""), ops, spec, why)) return kernel_error(ctx, why);
  std::map<char, std::int64_t> extent;
  for (std::size_t i = 0; i < ops.size(); ++i)
    for (std::size_t d = 0; d < spec.inputs[i].size(); ++d) {
      const char c = spec.inputs[i][d];
      const std::int64_t n = ops[i].shape[d];
      auto [it, inserted] = extent.emplace(c, n);
      if (!inserted && it->second != n) {
        if (it->second == 1) it->second = n;
        else if (n != 1) return kernel_error(ctx, std::string("label '") + c + "' has two sizes");
      }
    }
  std::string labels;
  for (char c : spec.output) labels += c;
  for (auto [c, n] : extent)
    if (spec.output.find(c) == std::string::npos) labels += c;  // summed labels after the output's
  Shape out;
  for (char c : spec.output) {
    if (!extent.count(c)) return kernel_error(ctx, std::string("output label '") + c + "' is on no operand");
    out.push_back(extent.at(c));
  }
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, ops[0].dtype, out));
  // Per operand and label: the operand's stride for that label (0 when absent or broadcast).
  std::vector<std::vector<std::int64_t>> stride(ops.size(), std::vector<std::int64_t>(labels.size(), 0));
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Shape st = strides_of(ops[i].shape);
    for (std::size_t d = 0; d < spec.inputs[i].size(); ++d)
      if (ops[i].shape[d] != 1) stride[i][labels.find(spec.inputs[i][d])] += st[d];
  }
  std::vector<std::int64_t> range(labels.size());
  for (std::size_t l = 0; l < labels.size(); ++l) range[l] = extent.at(labels[l]);
  const std::int64_t out_n = y.elements();
  const std::int64_t sum_n = shape_elements(std::span(range).subspan(spec.output.size()));
  std::vector<std::int64_t> pos(labels.size(), 0);
  for (std::int64_t o = 0; o < out_n; ++o) {
    double acc = 0;
    for (std::int64_t s = 0; s < sum_n; ++s) {
      double prod = 1;
      for (std::size_t i = 0; i < ops.size(); ++i) {
        std::int64_t off = 0;
        for (std::size_t l = 0; l < labels.size(); ++l) off += pos[l] * stride[i][l];
        prod *= load_double(ops[i], off);
      }
      acc += prod;
      for (std::size_t l = labels.size(); l-- > spec.output.size();) {
        if (++pos[l] < range[l]) break;
        pos[l] = 0;
      }
    }
    store_double(y, o, acc);
    for (std::size_t l = spec.output.size(); l-- > 0;) {
      if (++pos[l] < range[l]) break;
      pos[l] = 0;
    }
  }
  return {};
}

}  // namespace

void register_index_kernels(KernelRegistry& r) {
  r.add("Compress", compress_kernel);
  r.add("Einsum", einsum_kernel);
  r.add("EyeLike", eye_like_kernel);
  r.add("GatherND", gather_nd_kernel);
  r.add("MaxUnpool", max_unpool_kernel);
  r.add("NonZero", non_zero_kernel);
  r.add("OneHot", one_hot_kernel);
  r.add("ReverseSequence", reverse_sequence_kernel);
  r.add("Scatter", scatter_elements_kernel);
  r.add("ScatterElements", scatter_elements_kernel);
  r.add("ScatterND", scatter_nd_kernel);
  r.add("TopK", topk_kernel);
  r.add("Unique", unique_kernel);
}

}  // namespace weft::core::detail
