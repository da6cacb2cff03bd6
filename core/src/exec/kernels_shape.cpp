// Data movement and shape operators: Concat, Split, Slice, Gather, GatherElements, Transpose,
// Reshape, Flatten, Squeeze, Unsqueeze, Expand, Tile, Pad, Resize, Shape, Size, ConstantOfShape,
// Constant, Range, Trilu. Data movers work on element bytes, so they take every fixed-size dtype.
#include <algorithm>
#include <cmath>

#include "kernel.h"

namespace weft::core::detail {
namespace {

Status copy_as(KernelContext& ctx, const Shape& shape) {
  const View& x = ctx.in(0);
  if (shape_elements(shape) != x.elements()) return kernel_error(ctx, "element count changes");
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, shape));
  if (x.bytes() > 0 && y.data != x.data) std::memcpy(y.data, x.data, x.bytes());
  return {};
}

Status reshape_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  std::vector<std::int64_t> target;
  if (ctx.has_input(1)) {
    if (!read_ints(ctx.in(1), target)) return kernel_error(ctx, "shape must be int64");
  } else {
    target = ctx.node().attr_ints("shape");  // opset < 5
  }
  const bool allowzero = ctx.node().attr_int("allowzero", 0) != 0;
  std::int64_t known = 1;
  int infer = -1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (target[i] == 0 && !allowzero) {
      if (i >= x.shape.size()) return kernel_error(ctx, "0 in shape beyond the input rank");
      target[i] = x.shape[i];
    }
    if (target[i] == -1) {
      if (infer >= 0) return kernel_error(ctx, "two -1 in shape");
      infer = static_cast<int>(i);
    } else {
      known *= target[i];
    }
  }
  if (infer >= 0) target[static_cast<std::size_t>(infer)] = known == 0 ? 0 : x.elements() / known;
  return copy_as(ctx, target);
}

Status flatten_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  std::int64_t axis = ctx.node().attr_int("axis", 1);
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) return kernel_error(ctx, "axis out of range");
  const auto ax = static_cast<std::size_t>(axis);
  return copy_as(ctx, {shape_elements(std::span(x.shape).subspan(0, ax)), shape_elements(std::span(x.shape).subspan(ax))});
}

Status squeeze_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  std::vector<std::int64_t> axes;
  bool present = false;
  if (!ints_from_attr_or_input(ctx, "axes", 1, axes, present)) return kernel_error(ctx, "axes must be int64");
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  std::vector<bool> drop(x.shape.size(), false);
  if (axes.empty()) {
    for (std::size_t d = 0; d < x.shape.size(); ++d) drop[d] = x.shape[d] == 1;
  }
  for (auto a : axes) {
    if (!normalize_axis(a, rank) || x.shape[static_cast<std::size_t>(a)] != 1)
      return kernel_error(ctx, "cannot squeeze axis " + std::to_string(a));
    drop[static_cast<std::size_t>(a)] = true;
  }
  Shape out;
  for (std::size_t d = 0; d < x.shape.size(); ++d)
    if (!drop[d]) out.push_back(x.shape[d]);
  return copy_as(ctx, out);
}

Status unsqueeze_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  std::vector<std::int64_t> axes;
  bool present = false;
  if (!ints_from_attr_or_input(ctx, "axes", 1, axes, present)) return kernel_error(ctx, "axes must be int64");
  const auto rank = static_cast<std::int64_t>(x.shape.size() + axes.size());
  std::vector<bool> inserted(static_cast<std::size_t>(rank), false);
  for (auto a : axes) {
    if (!normalize_axis(a, rank) || inserted[static_cast<std::size_t>(a)]) return kernel_error(ctx, "bad axes");
    inserted[static_cast<std::size_t>(a)] = true;
  }
  Shape out;
  std::size_t src = 0;
  for (std::size_t d = 0; d < inserted.size(); ++d) out.push_back(inserted[d] ? 1 : x.shape[src++]);
  return copy_as(ctx, out);
}

/// y[i] = x[base + Σ index_d · x_strides[d]] for the i-th index of `iter_shape` (row-major): a
/// broadcast (stride 0), a permutation or a strided window of x. y takes `out_shape` (the same
/// element count) when given, else `iter_shape`.
Status strided_copy(KernelContext& ctx, const View& x, const Shape& iter_shape, const Shape& x_strides,
                    std::int64_t base = 0, const Shape* out_shape = nullptr) {
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, out_shape ? *out_shape : iter_shape));
  const bool ok = dispatch_size(x.dtype, [&](auto t) {
    using T = decltype(t);
    const T* px = x.as<const T>() + (shape_elements(iter_shape) > 0 ? base : 0);
    T* py = y.as<T>();
    const std::array<Shape, 1> st{x_strides};
    for_each_broadcast<1>(iter_shape, st, [&](std::int64_t o, const std::array<std::int64_t, 1>& off) { py[o] = px[off[0]]; });
  });
  if (!ok) return unsupported(ctx, "dtype");
  return {};
}

Status expand_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  std::vector<std::int64_t> shape;
  if (!read_ints(ctx.in(1), shape)) return kernel_error(ctx, "shape must be int64");
  Shape out;
  const std::array<Shape, 2> shapes{x.shape, shape};
  if (!broadcast_shapes(shapes, out)) return kernel_error(ctx, "shape does not broadcast");
  return strided_copy(ctx, x, out, broadcast_strides(x.shape, out));
}

Status transpose_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  const std::size_t rank = x.shape.size();
  std::vector<std::int64_t> perm = ctx.node().attr_ints("perm");
  if (perm.empty())
    for (std::size_t d = 0; d < rank; ++d) perm.push_back(static_cast<std::int64_t>(rank - 1 - d));
  if (perm.size() != rank) return kernel_error(ctx, "perm length differs from rank");
  const Shape in_strides = strides_of(x.shape);
  Shape out(rank), st(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    std::int64_t p = perm[d];
    if (!normalize_axis(p, static_cast<std::int64_t>(rank))) return kernel_error(ctx, "perm out of range");
    out[d] = x.shape[static_cast<std::size_t>(p)];
    st[d] = in_strides[static_cast<std::size_t>(p)];
  }
  return strided_copy(ctx, x, out, st);
}

Status tile_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  std::vector<std::int64_t> repeats;
  if (!read_ints(ctx.in(1), repeats) || repeats.size() != x.shape.size()) return kernel_error(ctx, "bad repeats");
  const std::size_t rank = x.shape.size();
  // View the output as [r0, d0, r1, d1, ...] with stride 0 on the repeat axes.
  Shape big, st;
  const Shape in_strides = strides_of(x.shape);
  Shape out(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    big.push_back(repeats[d]);
    st.push_back(0);
    big.push_back(x.shape[d]);
    st.push_back(in_strides[d]);
    out[d] = x.shape[d] * repeats[d];
  }
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, out));
  const bool ok = dispatch_size(x.dtype, [&](auto t) {
    using T = decltype(t);
    const T* px = x.as<const T>();
    T* py = y.as<T>();
    // Output index of [r0, d0, r1, d1, ...] is ((r0*D0 + d0) * R1*D1 + ...): strides of the tiled shape.
    const Shape ost = strides_of(out);
    Shape big_out_strides;
    for (std::size_t d = 0; d < rank; ++d) {
      big_out_strides.push_back(ost[d] * x.shape[d]);
      big_out_strides.push_back(ost[d]);
    }
    const std::array<Shape, 2> both{st, big_out_strides};
    for_each_broadcast<2>(big, both, [&](std::int64_t, const std::array<std::int64_t, 2>& off) { py[off[1]] = px[off[0]]; });
  });
  if (!ok) return unsupported(ctx, "dtype");
  return {};
}

Status concat_kernel(KernelContext& ctx) {
  std::vector<const View*> ins;
  for (std::size_t i = 0; i < ctx.input_count(); ++i)
    if (ctx.has_input(i)) ins.push_back(&ctx.in(i));
  if (ins.empty()) return kernel_error(ctx, "no inputs");
  const View& first = *ins[0];
  std::int64_t axis = ctx.node().attr_int("axis", 0);
  const auto rank = static_cast<std::int64_t>(first.shape.size());
  if (!normalize_axis(axis, rank)) return kernel_error(ctx, "axis out of range");
  const auto ax = static_cast<std::size_t>(axis);
  Shape out = first.shape;
  out[ax] = 0;
  for (const View* v : ins) {
    if (v->shape.size() != first.shape.size()) return kernel_error(ctx, "input ranks differ");
    out[ax] += v->shape[ax];
  }
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, first.dtype, out));
  const std::size_t es = dtype_size(first.dtype);
  const std::int64_t outer = shape_elements(std::span(out).subspan(0, ax));
  const std::int64_t inner = shape_elements(std::span(out).subspan(ax + 1));
  auto* dst = static_cast<std::uint8_t*>(y.data);
  const std::int64_t out_row = out[ax] * inner;
  std::int64_t at = 0;
  for (const View* v : ins) {
    const std::int64_t row = v->shape[ax] * inner;
    const auto* src = static_cast<const std::uint8_t*>(v->data);
    for (std::int64_t o = 0; o < outer; ++o)
      std::memcpy(dst + static_cast<std::size_t>(o * out_row + at) * es, src + static_cast<std::size_t>(o * row) * es,
                  static_cast<std::size_t>(row) * es);
    at += row;
  }
  return {};
}

Status split_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  std::int64_t axis = ctx.node().attr_int("axis", 0);
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  if (!normalize_axis(axis, rank)) return kernel_error(ctx, "axis out of range");
  const auto ax = static_cast<std::size_t>(axis);
  std::vector<std::int64_t> split;
  bool present = false;
  if (!ints_from_attr_or_input(ctx, "split", 1, split, present)) return kernel_error(ctx, "split must be int64");
  const auto n_out = static_cast<std::int64_t>(ctx.output_count());
  if (split.empty()) {
    // Equal parts; the last one smaller when it does not divide (opset 18 num_outputs).
    const std::int64_t parts = ctx.node().attr_int("num_outputs", n_out);
    const std::int64_t chunk = (x.shape[ax] + parts - 1) / parts;
    for (std::int64_t i = 0; i < parts; ++i) split.push_back(std::min(chunk, x.shape[ax] - i * chunk));
  }
  if (static_cast<std::int64_t>(split.size()) != n_out) return kernel_error(ctx, "split count differs from outputs");
  const std::size_t es = dtype_size(x.dtype);
  const std::int64_t outer = shape_elements(std::span(x.shape).subspan(0, ax));
  const std::int64_t inner = shape_elements(std::span(x.shape).subspan(ax + 1));
  const std::int64_t in_row = x.shape[ax] * inner;
  std::int64_t at = 0;
  const auto* src = static_cast<const std::uint8_t*>(x.data);
  for (std::size_t i = 0; i < split.size(); ++i) {
    Shape s = x.shape;
    s[ax] = split[i];
    WEFT_KERNEL_OUTPUT(y, ctx.output(i, x.dtype, s));
    const std::int64_t row = split[i] * inner;
    auto* dst = static_cast<std::uint8_t*>(y.data);
    for (std::int64_t o = 0; o < outer; ++o)
      std::memcpy(dst + static_cast<std::size_t>(o * row) * es, src + static_cast<std::size_t>(o * in_row + at) * es,
                  static_cast<std::size_t>(row) * es);
    at += row;
  }
  return {};
}

Status slice_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  std::vector<std::int64_t> starts, ends, axes, steps;
  const Node& node = ctx.node();
  if (node.attribute("starts")) {  // opset < 10
    starts = node.attr_ints("starts");
    ends = node.attr_ints("ends");
    axes = node.attr_ints("axes");
  } else {
    if (!read_ints(ctx.in(1), starts) || !read_ints(ctx.in(2), ends)) return kernel_error(ctx, "starts/ends must be ints");
    if (ctx.has_input(3) && !read_ints(ctx.in(3), axes)) return kernel_error(ctx, "axes must be ints");
    if (ctx.has_input(4) && !read_ints(ctx.in(4), steps)) return kernel_error(ctx, "steps must be ints");
  }
  if (axes.empty())
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return kernel_error(ctx, "starts/ends/axes/steps lengths differ");
  Shape out = x.shape, begin(x.shape.size(), 0), step(x.shape.size(), 1);
  for (std::size_t i = 0; i < starts.size(); ++i) {
    std::int64_t a = axes[i];
    if (!normalize_axis(a, rank)) return kernel_error(ctx, "axis out of range");
    const auto d = static_cast<std::size_t>(a);
    const std::int64_t dim = x.shape[d];
    if (steps[i] == 0) return kernel_error(ctx, "step 0");
    // A step of at least the dim takes one element whatever its size: clamping it keeps the
    // arithmetic below free of overflow on hostile steps.
    const std::int64_t span = std::max<std::int64_t>(dim, 1);
    const std::int64_t s = std::clamp<std::int64_t>(steps[i], -span, span);
    std::int64_t b = starts[i], e = ends[i];
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    if (s > 0) {
      b = std::clamp<std::int64_t>(b, 0, dim);
      e = std::clamp<std::int64_t>(e, 0, dim);
      out[d] = e > b ? 1 + (e - b - 1) / s : 0;
    } else {
      b = std::clamp<std::int64_t>(b, -1, dim - 1);
      e = std::clamp<std::int64_t>(e, -1, dim - 1);
      out[d] = b > e ? 1 + (b - e - 1) / -s : 0;
    }
    begin[d] = b;
    step[d] = s;
  }
  const Shape in_strides = strides_of(x.shape);
  Shape st(x.shape.size());
  std::int64_t base = 0;
  for (std::size_t d = 0; d < x.shape.size(); ++d) {
    st[d] = in_strides[d] * step[d];
    base += begin[d] * in_strides[d];
  }
  return strided_copy(ctx, x, out, st, base);
}

Status gather_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  const View& idx = ctx.in(1);
  std::int64_t axis = ctx.node().attr_int("axis", 0);
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  if (!normalize_axis(axis, rank)) return kernel_error(ctx, "axis out of range");
  const auto ax = static_cast<std::size_t>(axis);
  std::vector<std::int64_t> indices;
  if (!read_ints(idx, indices)) return kernel_error(ctx, "indices must be int32/int64");
  const std::int64_t dim = x.shape[ax];
  for (auto& i : indices) {
    if (i < 0) i += dim;
    if (i < 0 || i >= dim) return kernel_error(ctx, "index out of range");
  }
  Shape out(x.shape.begin(), x.shape.begin() + axis);
  out.insert(out.end(), idx.shape.begin(), idx.shape.end());
  out.insert(out.end(), x.shape.begin() + axis + 1, x.shape.end());
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, out));
  const std::size_t es = dtype_size(x.dtype);
  const std::int64_t outer = shape_elements(std::span(x.shape).subspan(0, ax));
  const std::int64_t inner = shape_elements(std::span(x.shape).subspan(ax + 1));
  const auto* src = static_cast<const std::uint8_t*>(x.data);
  auto* dst = static_cast<std::uint8_t*>(y.data);
  const auto n = static_cast<std::int64_t>(indices.size());
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < n; ++j)
      std::memcpy(dst + static_cast<std::size_t>((o * n + j) * inner) * es,
                  src + static_cast<std::size_t>((o * dim + indices[static_cast<std::size_t>(j)]) * inner) * es,
                  static_cast<std::size_t>(inner) * es);
  return {};
}

Status gather_elements_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  const View& idx = ctx.in(1);
  std::int64_t axis = ctx.node().attr_int("axis", 0);
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  if (!normalize_axis(axis, rank) || idx.shape.size() != x.shape.size()) return kernel_error(ctx, "bad axis or rank");
  const auto ax = static_cast<std::size_t>(axis);
  std::vector<std::int64_t> indices;
  if (!read_ints(idx, indices)) return kernel_error(ctx, "indices must be int32/int64");
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, idx.shape));
  const Shape xs = strides_of(x.shape);
  Shape st = xs;
  st[ax] = 0;
  const std::array<Shape, 1> s{st};
  Status result;
  const bool ok = dispatch_size(x.dtype, [&](auto t) {
    using T = decltype(t);
    const T* px = x.as<const T>();
    T* py = y.as<T>();
    for_each_broadcast<1>(idx.shape, s, [&](std::int64_t o, const std::array<std::int64_t, 1>& off) {
      std::int64_t i = indices[static_cast<std::size_t>(o)];
      if (i < 0) i += x.shape[ax];
      if (i < 0 || i >= x.shape[ax]) {
        result = kernel_error(ctx, "index out of range");
        return;
      }
      py[o] = px[off[0] + i * xs[ax]];
    });
  });
  if (!ok) return unsupported(ctx, "dtype");
  return result;
}

Status pad_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  const Node& node = ctx.node();
  const auto rank = x.shape.size();
  std::vector<std::int64_t> pads, axes;
  bool present = false;
  if (!ints_from_attr_or_input(ctx, "pads", 1, pads, present)) return kernel_error(ctx, "pads must be int64");
  if (ctx.has_input(3) && !read_ints(ctx.in(3), axes)) return kernel_error(ctx, "axes must be ints");
  if (axes.empty())
    for (std::size_t d = 0; d < rank; ++d) axes.push_back(static_cast<std::int64_t>(d));
  if (pads.size() != 2 * axes.size()) return kernel_error(ctx, "pads has the wrong length");
  Shape before(rank, 0), after(rank, 0);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    std::int64_t a = axes[i];
    if (!normalize_axis(a, static_cast<std::int64_t>(rank))) return kernel_error(ctx, "axis out of range");
    before[static_cast<std::size_t>(a)] = pads[i];
    after[static_cast<std::size_t>(a)] = pads[i + axes.size()];
  }
  const std::string mode = node.attr_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap") return unsupported(ctx, "mode " + mode);
  Shape out(rank);
  for (std::size_t d = 0; d < rank; ++d) out[d] = x.shape[d] + before[d] + after[d];
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, out));
  const Shape xs = strides_of(x.shape);
  const Shape os = strides_of(out);
  const std::int64_t total = shape_elements(out);
  const bool ok = dispatch_numeric(x.dtype, [&](auto t) {
    using T = decltype(t);
    T value{0};
    if (ctx.has_input(2) && ctx.in(2).elements() == 1) value = *ctx.in(2).as<const T>();
    else if (node.attribute("value")) value = static_cast<T>(node.attr_float("value", 0));  // opset < 11
    const T* px = x.as<const T>();
    T* py = y.as<T>();
    for (std::int64_t o = 0; o < total; ++o) {
      std::int64_t rem = o, src = 0;
      bool inside = true;
      for (std::size_t d = 0; d < rank; ++d) {
        std::int64_t i = rem / os[d] - before[d];
        rem %= os[d];
        const std::int64_t n = x.shape[d];
        if (i < 0 || i >= n) {
          if (mode == "constant" || n == 0) {
            inside = false;
            break;
          }
          if (mode == "edge") {
            i = std::clamp<std::int64_t>(i, 0, n - 1);
          } else if (mode == "wrap") {
            i = ((i % n) + n) % n;
          } else {  // reflect, without repeating the edge
            const std::int64_t period = 2 * (n - 1);
            if (period == 0) {
              i = 0;
            } else {
              i = ((i % period) + period) % period;
              if (i >= n) i = period - i;
            }
          }
        }
        src += i * xs[d];
      }
      py[o] = inside ? px[src] : value;
    }
  });
  if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(x.dtype)));
  return {};
}

Status resize_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  const Node& node = ctx.node();
  const std::size_t rank = x.shape.size();
  if (node.attr_int("antialias", 0) != 0) return unsupported(ctx, "antialias");
  if (!node.attr_ints("axes").empty()) return unsupported(ctx, "axes");
  if (node.attr_string("keep_aspect_ratio_policy", "stretch") != "stretch") return unsupported(ctx, "keep_aspect_ratio_policy");
  const std::string mode = node.attr_string("mode", "nearest");
  if (mode != "nearest" && mode != "linear") return unsupported(ctx, "mode " + mode);
  const std::string ctm = node.attr_string("coordinate_transformation_mode", "half_pixel");
  if (ctm == "tf_crop_and_resize") return unsupported(ctx, "coordinate_transformation_mode " + ctm);
  const std::string nearest_mode = node.attr_string("nearest_mode", "round_prefer_floor");
  // Opset 10: (X, scales); opset 11+: (X, roi, scales, sizes).
  const bool v10 = ctx.input_count() == 2 && ctx.opset_before(11);
  std::vector<double> scales;
  std::vector<std::int64_t> sizes;
  const std::size_t scales_at = v10 ? 1 : 2;
  if (ctx.has_input(scales_at) && ctx.in(scales_at).elements() > 0 && !read_floats(ctx.in(scales_at), scales))
    return kernel_error(ctx, "scales must be float");
  if (!v10 && ctx.has_input(3) && ctx.in(3).elements() > 0 && !read_ints(ctx.in(3), sizes))
    return kernel_error(ctx, "sizes must be int64");
  Shape out(rank);
  std::vector<double> scale(rank, 1.0);
  if (!sizes.empty()) {
    if (sizes.size() != rank) return kernel_error(ctx, "sizes length differs from rank");
    for (std::size_t d = 0; d < rank; ++d) {
      out[d] = sizes[d];
      scale[d] = x.shape[d] > 0 ? static_cast<double>(sizes[d]) / static_cast<double>(x.shape[d]) : 1.0;
    }
  } else {
    if (scales.size() != rank) return kernel_error(ctx, "scales length differs from rank");
    for (std::size_t d = 0; d < rank; ++d) {
      scale[d] = scales[d];
      out[d] = static_cast<std::int64_t>(std::floor(static_cast<double>(x.shape[d]) * scales[d]));
    }
  }
  // Per dimension and output coordinate: the source coordinate in the input.
  std::vector<std::vector<double>> coord(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    // The ONNX reference uses the unrounded resized length (in * scale) in the transforms.
    const double in_len = static_cast<double>(x.shape[d]), out_len = in_len * scale[d];
    for (std::int64_t i = 0; i < out[d]; ++i) {
      const double xi = static_cast<double>(i);
      double c;
      if (ctm == "half_pixel") c = (xi + 0.5) / scale[d] - 0.5;
      else if (ctm == "pytorch_half_pixel") c = out_len > 1 ? (xi + 0.5) / scale[d] - 0.5 : 0.0;
      else if (ctm == "align_corners") c = out_len == 1 ? 0.0 : xi * (in_len - 1) / (out_len - 1);
      else if (ctm == "asymmetric") c = xi / scale[d];
      else if (ctm == "half_pixel_symmetric") {
        const double adjustment = out_len / (scale[d] * in_len);
        const double center = in_len / 2;
        c = center * (1 - adjustment) + (xi + 0.5) / scale[d] - 0.5;
      } else {
        return unsupported(ctx, "coordinate_transformation_mode " + ctm);
      }
      coord[d].push_back(c);
    }
  }
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, out));
  const Shape xs = strides_of(x.shape);
  const std::int64_t total = shape_elements(out);
  const Shape os = strides_of(out);
  if (mode == "nearest") {
    std::vector<std::vector<std::int64_t>> src(rank);
    for (std::size_t d = 0; d < rank; ++d)
      for (double c : coord[d]) {
        std::int64_t i;
        const double fl = std::floor(c);
        if (nearest_mode == "floor") i = static_cast<std::int64_t>(fl);
        else if (nearest_mode == "ceil") i = static_cast<std::int64_t>(std::ceil(c));
        else if (nearest_mode == "round_prefer_ceil") i = static_cast<std::int64_t>(c - fl == 0.5 ? fl + 1 : std::round(c));
        else i = static_cast<std::int64_t>(c - fl == 0.5 ? fl : std::round(c));  // round_prefer_floor
        src[d].push_back(std::clamp<std::int64_t>(i, 0, x.shape[d] - 1) * xs[d]);
      }
    const bool ok = dispatch_size(x.dtype, [&](auto t) {
      using T = decltype(t);
      const T* px = x.as<const T>();
      T* py = y.as<T>();
      for (std::int64_t o = 0; o < total; ++o) {
        std::int64_t rem = o, off = 0;
        for (std::size_t d = 0; d < rank; ++d) {
          off += src[d][static_cast<std::size_t>(rem / os[d])];
          rem %= os[d];
        }
        py[o] = px[off];
      }
    });
    if (!ok) return unsupported(ctx, "dtype");
    return {};
  }
  // n-linear: each output is a weighted sum over the 2^r corners around its source coordinate.
  std::vector<std::vector<std::int64_t>> lo(rank), hi(rank);
  std::vector<std::vector<double>> w(rank);
  std::vector<std::size_t> active;
  std::vector<bool> is_active(rank, false);
  for (std::size_t d = 0; d < rank; ++d) {
    bool moves = false;
    for (double c : coord[d]) {
      const double fl = std::floor(c);
      const auto i0 = static_cast<std::int64_t>(fl);
      lo[d].push_back(std::clamp<std::int64_t>(i0, 0, x.shape[d] - 1) * xs[d]);
      hi[d].push_back(std::clamp<std::int64_t>(i0 + 1, 0, x.shape[d] - 1) * xs[d]);
      w[d].push_back(c - fl);
      if (c - fl != 0.0 || out[d] != x.shape[d]) moves = true;
    }
    if (moves) {
      active.push_back(d);
      is_active[d] = true;
    }
  }
  const bool ok = dispatch_float(x.dtype, [&](auto t) {
    using T = decltype(t);
    const T* px = x.as<const T>();
    T* py = y.as<T>();
    std::vector<std::size_t> pos(rank);
    for (std::int64_t o = 0; o < total; ++o) {
      std::int64_t rem = o, base = 0;
      for (std::size_t d = 0; d < rank; ++d) {
        pos[d] = static_cast<std::size_t>(rem / os[d]);
        rem %= os[d];
      }
      for (std::size_t d = 0; d < rank; ++d)
        if (!is_active[d]) base += static_cast<std::int64_t>(pos[d]) * xs[d];
      double sum = 0;
      const std::size_t corners = std::size_t{1} << active.size();
      for (std::size_t m = 0; m < corners; ++m) {
        double weight = 1;
        std::int64_t off = base;
        for (std::size_t a = 0; a < active.size(); ++a) {
          const std::size_t d = active[a];
          const double wd = w[d][pos[d]];
          if (m & (std::size_t{1} << a)) {
            weight *= wd;
            off += hi[d][pos[d]];
          } else {
            weight *= 1 - wd;
            off += lo[d][pos[d]];
          }
        }
        if (weight != 0) sum += weight * static_cast<double>(px[off]);
      }
      py[o] = static_cast<T>(sum);
    }
  });
  if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(x.dtype)));
  return {};
}

Status shape_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  std::int64_t start = ctx.node().attr_int("start", 0), end = ctx.node().attr_int("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<std::int64_t>(start, 0, rank);
  end = std::clamp<std::int64_t>(end, 0, rank);
  const std::int64_t n = std::max<std::int64_t>(end - start, 0);
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, DType::Int64, {n}));
  for (std::int64_t i = 0; i < n; ++i) y.as<std::int64_t>()[i] = x.shape[static_cast<std::size_t>(start + i)];
  return {};
}

Status size_kernel(KernelContext& ctx) {
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, DType::Int64, {}));
  *y.as<std::int64_t>() = ctx.in(0).elements();
  return {};
}

/// Writes a tensor-valued attribute (or value_float/value_int...) to output 0.
Status write_attribute_tensor(KernelContext& ctx, const Attribute* a, const Shape& shape, bool fill) {
  DType dtype = DType::Float32;
  std::vector<std::uint8_t> one(4, 0);
  if (a) {
    dtype = a->tensor_dtype;
    one = a->tensor_bytes;
  }
  if (fill && !one.empty() && one.size() != dtype_size(dtype)) return kernel_error(ctx, "value must have one element");
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, dtype, shape));
  const std::size_t es = dtype_size(dtype);
  if (es == 0) return unsupported(ctx, "dtype");
  auto* dst = static_cast<std::uint8_t*>(y.data);
  if (fill) {
    for (std::int64_t i = 0; i < y.elements(); ++i) std::memcpy(dst + static_cast<std::size_t>(i) * es, one.data(), es);
  } else {
    if (one.size() != y.bytes()) return kernel_error(ctx, "value has the wrong size");
    if (!one.empty()) std::memcpy(dst, one.data(), one.size());
  }
  return {};
}

Status constant_of_shape_kernel(KernelContext& ctx) {
  std::vector<std::int64_t> shape;
  if (!read_ints(ctx.in(0), shape)) return kernel_error(ctx, "shape must be int64");
  return write_attribute_tensor(ctx, ctx.node().attribute("value"), shape, true);
}

Status constant_kernel(KernelContext& ctx) {
  const Node& node = ctx.node();
  if (const Attribute* a = node.attribute("value")) return write_attribute_tensor(ctx, a, a->tensor_dims, false);
  if (const Attribute* a = node.attribute("value_float")) {
    WEFT_KERNEL_OUTPUT(y, ctx.output(0, DType::Float32, {}));
    *y.as<float>() = a->f;
    return {};
  }
  if (const Attribute* a = node.attribute("value_floats")) {
    WEFT_KERNEL_OUTPUT(y, ctx.output(0, DType::Float32, {static_cast<std::int64_t>(a->floats.size())}));
    std::copy(a->floats.begin(), a->floats.end(), y.as<float>());
    return {};
  }
  if (const Attribute* a = node.attribute("value_int")) {
    WEFT_KERNEL_OUTPUT(y, ctx.output(0, DType::Int64, {}));
    *y.as<std::int64_t>() = a->i;
    return {};
  }
  if (const Attribute* a = node.attribute("value_ints")) {
    WEFT_KERNEL_OUTPUT(y, ctx.output(0, DType::Int64, {static_cast<std::int64_t>(a->ints.size())}));
    std::copy(a->ints.begin(), a->ints.end(), y.as<std::int64_t>());
    return {};
  }
  return unsupported(ctx, "constant kind");
}

Status range_kernel(KernelContext& ctx) {
  const View& s = ctx.in(0);
  Status result;
  const bool ok = dispatch_numeric(s.dtype, [&](auto t) {
    using T = decltype(t);
    const T start = *ctx.in(0).as<const T>(), limit = *ctx.in(1).as<const T>(), delta = *ctx.in(2).as<const T>();
    if (delta == T{0}) {
      result = kernel_error(ctx, "delta is 0");
      return;
    }
    const auto n = std::max<std::int64_t>(
        static_cast<std::int64_t>(std::ceil(static_cast<double>(limit - start) / static_cast<double>(delta))), 0);
    auto y = ctx.output(0, s.dtype, {n});
    if (!y) {
      result = y.error();
      return;
    }
    T* out = y->template as<T>();
    for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(start + static_cast<T>(i) * delta);
  });
  if (!ok) return unsupported(ctx, "dtype");
  return result;
}

Status trilu_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  if (x.shape.size() < 2) return kernel_error(ctx, "input rank < 2");
  std::int64_t k = 0;
  if (ctx.has_input(1)) {
    std::vector<std::int64_t> kv;
    if (!read_ints(ctx.in(1), kv) || kv.size() != 1) return kernel_error(ctx, "k must be one int64");
    k = kv[0];
  }
  const bool upper = ctx.node().attr_int("upper", 1) != 0;
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, x.shape));
  const std::int64_t rows = x.shape[x.shape.size() - 2], cols = x.shape.back();
  const std::int64_t mats = rows * cols == 0 ? 0 : x.elements() / (rows * cols);
  const bool ok = dispatch_size(x.dtype, [&](auto t) {
    using T = decltype(t);
    const T* px = x.as<const T>();
    T* py = y.as<T>();
    for (std::int64_t m = 0; m < mats; ++m)
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) {
          const std::int64_t o = (m * rows + i) * cols + j;
          const bool keep = upper ? j - i >= k : j - i <= k;
          py[o] = keep ? px[o] : T{0};
        }
  });
  if (!ok) return unsupported(ctx, "dtype");
  return {};
}

/// DepthToSpace (DCR / CRD) and SpaceToDepth as one 6-D transpose each.
Status depth_space_kernel(KernelContext& ctx, bool to_space) {
  const View& x = ctx.in(0);
  if (x.shape.size() != 4) return kernel_error(ctx, "input must be 4-D");
  const std::int64_t bs = ctx.node().attr_int("blocksize", 0);
  if (bs <= 0) return kernel_error(ctx, "blocksize must be positive");
  const std::int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  Shape view, perm, out;
  if (to_space) {
    if (c % (bs * bs) != 0) return kernel_error(ctx, "channels not divisible by blocksize^2");
    const bool crd = ctx.node().attr_string("mode", "DCR") == "CRD";
    view = crd ? Shape{n, c / (bs * bs), bs, bs, h, w} : Shape{n, bs, bs, c / (bs * bs), h, w};
    perm = crd ? Shape{0, 1, 4, 2, 5, 3} : Shape{0, 3, 4, 1, 5, 2};
    out = {n, c / (bs * bs), h * bs, w * bs};
  } else {
    if (h % bs != 0 || w % bs != 0) return kernel_error(ctx, "spatial dims not divisible by blocksize");
    view = {n, c, h / bs, bs, w / bs, bs};
    perm = {0, 3, 5, 1, 2, 4};
    out = {n, c * bs * bs, h / bs, w / bs};
  }
  const Shape vs = strides_of(view);
  Shape tshape(6), st(6);
  for (std::size_t d = 0; d < 6; ++d) {
    tshape[d] = view[static_cast<std::size_t>(perm[d])];
    st[d] = vs[static_cast<std::size_t>(perm[d])];
  }
  return strided_copy(ctx, x, tshape, st, 0, &out);
}

}  // namespace

void register_shape_kernels(KernelRegistry& r) {
  r.add("Concat", concat_kernel);
  r.add("Constant", constant_kernel);
  r.add("DepthToSpace", [](KernelContext& ctx) { return depth_space_kernel(ctx, true); });
  r.add("SpaceToDepth", [](KernelContext& ctx) { return depth_space_kernel(ctx, false); });
  r.add("ConstantOfShape", constant_of_shape_kernel);
  r.add("Expand", expand_kernel);
  r.add("Flatten", flatten_kernel);
  r.add("Gather", gather_kernel);
  r.add("GatherElements", gather_elements_kernel);
  r.add("Pad", pad_kernel);
  r.add("Range", range_kernel);
  r.add("Reshape", reshape_kernel);
  r.add("Resize", resize_kernel);
  r.add("Shape", shape_kernel);
  r.add("Size", size_kernel);
  r.add("Slice", slice_kernel);
  r.add("Split", split_kernel);
  r.add("Squeeze", squeeze_kernel);
  r.add("Tile", tile_kernel);
  r.add("Transpose", transpose_kernel);
  r.add("Trilu", trilu_kernel);
  r.add("Unsqueeze", unsqueeze_kernel);
}

}  // namespace weft::core::detail
