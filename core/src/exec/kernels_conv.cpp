// Conv (groups, dilations, pads, auto_pad; im2col + sgemm, direct loop for depthwise) and
// ConvTranspose (sgemm + col2im), for any number of spatial dimensions.
#include <cblas.h>

#include <algorithm>

#include "kernel.h"

namespace weft::core::detail {
namespace {

/// Spatial geometry of one convolution: sizes, kernel, strides, dilations, pads.
struct Geometry {
  std::size_t rank = 0;
  Shape in, out, kernel, stride, dilation, pad_begin, pad_end;
  std::int64_t in_size() const { return shape_elements(in); }
  std::int64_t out_size() const { return shape_elements(out); }
  std::int64_t kernel_size() const { return shape_elements(kernel); }
};

Status read_common(const KernelContext& ctx, Geometry& g, const Shape& x_shape, const Shape& w_shape) {
  const Node& node = ctx.node();
  g.rank = x_shape.size() - 2;
  g.in.assign(x_shape.begin() + 2, x_shape.end());
  g.kernel = node.attr_ints("kernel_shape");
  if (g.kernel.empty()) g.kernel.assign(w_shape.begin() + 2, w_shape.end());
  g.stride = node.attr_ints("strides");
  if (g.stride.empty()) g.stride.assign(g.rank, 1);
  g.dilation = node.attr_ints("dilations");
  if (g.dilation.empty()) g.dilation.assign(g.rank, 1);
  if (g.kernel.size() != g.rank || g.stride.size() != g.rank || g.dilation.size() != g.rank)
    return kernel_error(ctx, "kernel_shape/strides/dilations rank does not match the input");
  g.pad_begin.assign(g.rank, 0);
  g.pad_end.assign(g.rank, 0);
  const auto pads = node.attr_ints("pads");
  if (!pads.empty()) {
    if (pads.size() != 2 * g.rank) return kernel_error(ctx, "pads has the wrong length");
    for (std::size_t i = 0; i < g.rank; ++i) {
      g.pad_begin[i] = pads[i];
      g.pad_end[i] = pads[i + g.rank];
    }
  }
  return {};
}

/// Output size and auto_pad for forward convolutions and pools (ceil_mode for pools).
Status forward_geometry(const KernelContext& ctx, Geometry& g, bool ceil_mode) {
  const std::string auto_pad = ctx.node().attr_string("auto_pad", "NOTSET");
  g.out.assign(g.rank, 0);
  for (std::size_t i = 0; i < g.rank; ++i) {
    const std::int64_t ek = (g.kernel[i] - 1) * g.dilation[i] + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      g.out[i] = (g.in[i] + g.stride[i] - 1) / g.stride[i];
      const std::int64_t total = std::max<std::int64_t>(0, (g.out[i] - 1) * g.stride[i] + ek - g.in[i]);
      g.pad_begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      g.pad_end[i] = total - g.pad_begin[i];
    } else {
      if (auto_pad == "VALID") g.pad_begin[i] = g.pad_end[i] = 0;
      else if (auto_pad != "NOTSET") return kernel_error(ctx, "unknown auto_pad " + auto_pad);
      const std::int64_t span = g.in[i] + g.pad_begin[i] + g.pad_end[i] - ek;
      if (span < 0) return kernel_error(ctx, "kernel larger than the padded input");
      g.out[i] = (ceil_mode ? (span + g.stride[i] - 1) / g.stride[i] : span / g.stride[i]) + 1;
      // A window starting entirely in the end padding is dropped (PyTorch / ONNX reference).
      if (ceil_mode && (g.out[i] - 1) * g.stride[i] >= g.in[i] + g.pad_begin[i]) --g.out[i];
    }
  }
  return {};
}

/// col[(c * K + k) * O + o] = x[c][input position of kernel offset k at output o], 0 in padding.
/// Visits every (channel, kernel tap, output position) of the geometry, any rank: visit(row, o, i)
/// with row = channel * kernel_size + tap, o the output position and i = channel * in_size + the
/// image position the tap reads, or -1 where it falls in the padding.
template <class Visit>
void for_each_tap(std::int64_t channels, const Geometry& g, Visit&& visit) {
  const std::int64_t K = g.kernel_size(), O = g.out_size(), I = g.in_size();
  std::vector<std::int64_t> kidx(g.rank), oidx(g.rank);
  for (std::int64_t c = 0; c < channels; ++c)
    for (std::int64_t k = 0; k < K; ++k) {
      std::int64_t rem = k;
      for (std::size_t d = g.rank; d-- > 0;) {
        kidx[d] = rem % g.kernel[d];
        rem /= g.kernel[d];
      }
      for (std::int64_t o = 0; o < O; ++o) {
        std::int64_t orem = o, offset = 0;
        bool inside = true;
        for (std::size_t d = g.rank; d-- > 0;) {
          oidx[d] = orem % g.out[d];
          orem /= g.out[d];
        }
        for (std::size_t d = 0; d < g.rank; ++d) {
          const std::int64_t pos = oidx[d] * g.stride[d] - g.pad_begin[d] + kidx[d] * g.dilation[d];
          if (pos < 0 || pos >= g.in[d]) inside = false;
          offset = offset * g.in[d] + pos;
        }
        visit(c * K + k, o, inside ? c * I + offset : -1);
      }
    }
}

template <class T>
void im2col(const T* x, std::int64_t channels, const Geometry& g, T* col) {
  const std::int64_t O = g.out_size(), I = g.in_size();
  if (g.rank == 2) {
    const std::int64_t ih = g.in[0], iw = g.in[1], oh = g.out[0], ow = g.out[1];
    for (std::int64_t c = 0; c < channels; ++c)
      for (std::int64_t ky = 0; ky < g.kernel[0]; ++ky)
        for (std::int64_t kx = 0; kx < g.kernel[1]; ++kx) {
          T* row = col + ((c * g.kernel[0] + ky) * g.kernel[1] + kx) * O;
          const T* plane = x + c * I;
          for (std::int64_t oy = 0; oy < oh; ++oy) {
            const std::int64_t iy = oy * g.stride[0] - g.pad_begin[0] + ky * g.dilation[0];
            T* r = row + oy * ow;
            if (iy < 0 || iy >= ih) {
              std::fill_n(r, ow, T{0});
              continue;
            }
            const T* src = plane + iy * iw;
            for (std::int64_t ox = 0; ox < ow; ++ox) {
              const std::int64_t ix = ox * g.stride[1] - g.pad_begin[1] + kx * g.dilation[1];
              r[ox] = ix >= 0 && ix < iw ? src[ix] : T{0};
            }
          }
        }
    return;
  }
  // Any rank.
  for_each_tap(channels, g, [&](std::int64_t row, std::int64_t o, std::int64_t i) { col[row * O + o] = i >= 0 ? x[i] : T{0}; });
}

/// The adjoint of im2col: y[c][position] += col[(c * K + k) * O + o] (for ConvTranspose).
template <class T>
void col2im(const T* col, std::int64_t channels, const Geometry& g, T* y) {
  // Here g.in is the transposed conv's output (the image) and g.out its input (the columns).
  const std::int64_t O = g.out_size();
  for_each_tap(channels, g, [&](std::int64_t row, std::int64_t o, std::int64_t i) {
    if (i >= 0) y[i] += col[row * O + o];
  });
}

template <class T>
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, bool ta, const T* b, T* c) {
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, CblasNoTrans, static_cast<blasint>(m),
                static_cast<blasint>(n), static_cast<blasint>(k), 1.0f, a, static_cast<blasint>(ta ? m : k), b,
                static_cast<blasint>(n), 0.0f, c, static_cast<blasint>(n));
  } else {
    cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, CblasNoTrans, static_cast<blasint>(m),
                static_cast<blasint>(n), static_cast<blasint>(k), 1.0, a, static_cast<blasint>(ta ? m : k), b,
                static_cast<blasint>(n), 0.0, c, static_cast<blasint>(n));
  }
}

template <class T>
std::vector<T>& scratch() {
  // One column buffer per worker thread: kernels never share scratch across streams.
  thread_local std::vector<T> buffer;
  return buffer;
}

Status conv_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  const View& w = ctx.in(1);
  if (x.shape.size() < 3 || w.shape.size() != x.shape.size()) return kernel_error(ctx, "X and W ranks do not match");
  Geometry g;
  WEFT_TRY(read_common(ctx, g, x.shape, w.shape));
  WEFT_TRY(forward_geometry(ctx, g, false));
  const std::int64_t batch = x.shape[0], c_in = x.shape[1], m = w.shape[0];
  const std::int64_t group = ctx.node().attr_int("group", 1);
  if (group <= 0 || c_in % group != 0 || m % group != 0 || w.shape[1] != c_in / group)
    return kernel_error(ctx, "channels do not match group and W");
  Shape out_shape{batch, m};
  out_shape.insert(out_shape.end(), g.out.begin(), g.out.end());
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, out_shape));
  const bool ok = dispatch_float(x.dtype, [&](auto t) {
    using T = decltype(t);
    const T* px = x.as<const T>();
    const T* pw = w.as<const T>();
    const T* pb = ctx.has_input(2) ? ctx.in(2).as<const T>() : nullptr;
    T* py = y.as<T>();
    const std::int64_t cg = c_in / group, mg = m / group, K = g.kernel_size(), O = g.out_size(), I = g.in_size();
    const bool depthwise = group == c_in && mg == 1 && g.rank == 2;
    if (depthwise) {
      // Direct loop: one tiny GEMM per channel would cost more than it computes.
      const std::int64_t oh = g.out[0], ow = g.out[1], ih = g.in[0], iw = g.in[1];
      for (std::int64_t b = 0; b < batch; ++b)
        for (std::int64_t c = 0; c < c_in; ++c) {
          const T* plane = px + (b * c_in + c) * I;
          const T* kw = pw + c * K;
          T* out = py + (b * m + c) * O;
          const T bias = pb ? pb[c] : T{0};
          for (std::int64_t oy = 0; oy < oh; ++oy)
            for (std::int64_t ox = 0; ox < ow; ++ox) {
              T acc{0};
              for (std::int64_t ky = 0; ky < g.kernel[0]; ++ky) {
                const std::int64_t iy = oy * g.stride[0] - g.pad_begin[0] + ky * g.dilation[0];
                if (iy < 0 || iy >= ih) continue;
                for (std::int64_t kx = 0; kx < g.kernel[1]; ++kx) {
                  const std::int64_t ix = ox * g.stride[1] - g.pad_begin[1] + kx * g.dilation[1];
                  if (ix < 0 || ix >= iw) continue;
                  acc += plane[iy * iw + ix] * kw[ky * g.kernel[1] + kx];
                }
              }
              out[oy * ow + ox] = acc + bias;
            }
        }
      return;
    }
    const bool pointwise = K == 1 && g.stride == Shape(g.rank, 1) && g.pad_begin == Shape(g.rank, 0) &&
                           g.pad_end == Shape(g.rank, 0);
    std::vector<T>& col = scratch<T>();
    if (!pointwise) col.resize(static_cast<std::size_t>(cg * K * O));
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t gi = 0; gi < group; ++gi) {
        const T* xg = px + (b * c_in + gi * cg) * I;
        const T* src = xg;
        if (!pointwise) {
          im2col(xg, cg, g, col.data());
          src = col.data();
        }
        T* yg = py + (b * m + gi * mg) * O;
        gemm<T>(mg, O, cg * K, pw + gi * mg * cg * K, false, src, yg);
        if (pb)
          for (std::int64_t oc = 0; oc < mg; ++oc) {
            const T bias = pb[gi * mg + oc];
            T* row = yg + oc * O;
            for (std::int64_t o = 0; o < O; ++o) row[o] += bias;
          }
      }
  });
  if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(x.dtype)));
  return {};
}

Status conv_transpose_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  const View& w = ctx.in(1);
  if (x.shape.size() < 3 || w.shape.size() != x.shape.size()) return kernel_error(ctx, "X and W ranks do not match");
  const Node& node = ctx.node();
  Geometry g;  // g.in: the image (this op's output); g.out: the columns (this op's input)
  WEFT_TRY(read_common(ctx, g, x.shape, w.shape));
  const std::int64_t batch = x.shape[0], c_in = x.shape[1];
  const std::int64_t group = node.attr_int("group", 1);
  if (group <= 0 || c_in % group != 0 || w.shape[0] != c_in) return kernel_error(ctx, "channels do not match group and W");
  const std::int64_t mg = w.shape[1], m = mg * group;
  Shape out_pad = node.attr_ints("output_padding");
  if (out_pad.empty()) out_pad.assign(g.rank, 0);
  const Shape out_shape_attr = node.attr_ints("output_shape");
  const std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  const Shape x_spatial(x.shape.begin() + 2, x.shape.end());
  Shape image(g.rank);
  for (std::size_t i = 0; i < g.rank; ++i) {
    const std::int64_t ek = (g.kernel[i] - 1) * g.dilation[i] + 1;
    const std::int64_t full = g.stride[i] * (x_spatial[i] - 1) + out_pad[i] + ek;
    if (!out_shape_attr.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const std::int64_t target = !out_shape_attr.empty()
                                      ? out_shape_attr[out_shape_attr.size() - g.rank + i]
                                      : x_spatial[i] * g.stride[i];
      const std::int64_t total = std::max<std::int64_t>(0, full - target);
      g.pad_begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      g.pad_end[i] = total - g.pad_begin[i];
      image[i] = target;
    } else {
      if (auto_pad == "VALID") g.pad_begin[i] = g.pad_end[i] = 0;
      image[i] = full - g.pad_begin[i] - g.pad_end[i];
    }
  }
  g.in = image;
  g.out = x_spatial;
  Shape out_shape{batch, m};
  out_shape.insert(out_shape.end(), image.begin(), image.end());
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, out_shape));
  const bool ok = dispatch_float(x.dtype, [&](auto t) {
    using T = decltype(t);
    const T* px = x.as<const T>();
    const T* pw = w.as<const T>();
    const T* pb = ctx.has_input(2) ? ctx.in(2).as<const T>() : nullptr;
    T* py = y.as<T>();
    const std::int64_t cg = c_in / group, K = g.kernel_size(), O = g.out_size(), I = g.in_size();
    std::vector<T>& col = scratch<T>();
    col.resize(static_cast<std::size_t>(mg * K * O));
    std::fill_n(py, y.elements(), T{0});
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t gi = 0; gi < group; ++gi) {
        // col (mg*K x O) = W_g^T (mg*K x cg) * X_g (cg x O)
        gemm<T>(mg * K, O, cg, pw + gi * cg * mg * K, true, px + (b * c_in + gi * cg) * O, col.data());
        T* yg = py + (b * m + gi * mg) * I;
        col2im(col.data(), mg, g, yg);
      }
    if (pb)
      for (std::int64_t b = 0; b < batch; ++b)
        for (std::int64_t c = 0; c < m; ++c) {
          T* plane = py + (b * m + c) * I;
          for (std::int64_t i = 0; i < I; ++i) plane[i] += pb[c];
        }
  });
  if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(x.dtype)));
  return {};
}

}  // namespace

namespace {

PoolGeometry geometry_of(const Geometry& g) {
  PoolGeometry out;
  out.kernel = g.kernel;
  out.stride = g.stride;
  out.dilation = g.dilation;
  out.pad_begin = g.pad_begin;
  out.pad_end = g.pad_end;
  out.in = g.in;
  out.out = g.out;
  return out;
}

}  // namespace

Status pool_geometry(const KernelContext& ctx, const Shape& x_shape, PoolGeometry& out) {
  Geometry g;
  Shape w_shape = x_shape;  // only kernel_shape matters for pools
  WEFT_TRY(read_common(ctx, g, x_shape, w_shape));
  WEFT_TRY(forward_geometry(ctx, g, ctx.node().attr_int("ceil_mode", 0) != 0));
  out = geometry_of(g);
  return {};
}

Status conv_geometry(const KernelContext& ctx, const Shape& x_shape, const Shape& w_shape, PoolGeometry& out) {
  if (x_shape.size() < 3 || w_shape.size() != x_shape.size()) return kernel_error(ctx, "X and W ranks do not match");
  Geometry g;
  WEFT_TRY(read_common(ctx, g, x_shape, w_shape));
  WEFT_TRY(forward_geometry(ctx, g, false));
  out = geometry_of(g);
  return {};
}

void register_conv_kernels(KernelRegistry& r) {
  r.add("Conv", conv_kernel);
  r.add("ConvTranspose", conv_transpose_kernel);
}

}  // namespace weft::core::detail
