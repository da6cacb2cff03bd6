// Pools: MaxPool (with optional indices), AveragePool (count_include_pad), GlobalAveragePool,
// GlobalMaxPool, for any number of spatial dimensions.
#include <algorithm>
#include <limits>

#include "kernel.h"

namespace weft::core::detail {
namespace {

/// Visits every output position of every (batch, channel) plane with the input offsets of its
/// window: f(plane, out_index, window offsets inside the plane, window size counting pads).
template <class F>
void for_each_window(const PoolGeometry& g, std::int64_t planes, F&& f) {
  const std::size_t rank = g.in.size();
  const std::int64_t O = shape_elements(g.out), K = shape_elements(g.kernel);
  std::vector<std::int64_t> oidx(rank), kidx(rank), offsets;
  offsets.reserve(static_cast<std::size_t>(K));
  for (std::int64_t o = 0; o < O; ++o) {
    std::int64_t rem = o;
    for (std::size_t d = rank; d-- > 0;) {
      oidx[d] = rem % g.out[d];
      rem /= g.out[d];
    }
    offsets.clear();
    std::int64_t padded = 1;  // window size clipped to the padded input (count_include_pad)
    for (std::size_t d = 0; d < rank; ++d) {
      const std::int64_t start = oidx[d] * g.stride[d] - g.pad_begin[d];
      const std::int64_t end = std::min(start + (g.kernel[d] - 1) * g.dilation[d] + 1, g.in[d] + g.pad_end[d]);
      padded *= (end - start + g.dilation[d] - 1) / g.dilation[d];
    }
    for (std::int64_t k = 0; k < K; ++k) {
      std::int64_t krem = k, offset = 0;
      bool inside = true;
      for (std::size_t d = rank; d-- > 0;) {
        kidx[d] = krem % g.kernel[d];
        krem /= g.kernel[d];
      }
      for (std::size_t d = 0; d < rank; ++d) {
        const std::int64_t pos = oidx[d] * g.stride[d] - g.pad_begin[d] + kidx[d] * g.dilation[d];
        if (pos < 0 || pos >= g.in[d]) inside = false;
        offset = offset * g.in[d] + pos;
      }
      if (inside) offsets.push_back(offset);
    }
    for (std::int64_t p = 0; p < planes; ++p) f(p, o, offsets, padded);
  }
}

Status max_pool_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  if (x.shape.size() < 3) return kernel_error(ctx, "input rank < 3");
  if (ctx.node().attr_int("storage_order", 0) != 0 && ctx.wants_output(1))
    return unsupported(ctx, "storage_order=1 indices");
  PoolGeometry g;
  WEFT_TRY(pool_geometry(ctx, x.shape, g));
  Shape out_shape{x.shape[0], x.shape[1]};
  out_shape.insert(out_shape.end(), g.out.begin(), g.out.end());
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, out_shape));
  std::int64_t* indices = nullptr;
  if (ctx.wants_output(1)) {
    WEFT_KERNEL_OUTPUT(iv, ctx.output(1, DType::Int64, out_shape));
    indices = iv.as<std::int64_t>();
  }
  const std::int64_t planes = x.shape[0] * x.shape[1], I = shape_elements(g.in), O = shape_elements(g.out);
  const bool ok = dispatch_numeric(x.dtype, [&](auto t) {
    using T = decltype(t);
    const T* px = x.as<const T>();
    T* py = y.as<T>();
    for_each_window(g, planes, [&](std::int64_t p, std::int64_t o, const std::vector<std::int64_t>& offs, std::int64_t) {
      const T* plane = px + p * I;
      T best = std::numeric_limits<T>::lowest();
      std::int64_t arg = offs.empty() ? 0 : offs[0];
      for (auto off : offs)
        if (plane[off] > best) {
          best = plane[off];
          arg = off;
        }
      py[p * O + o] = best;
      if (indices) indices[p * O + o] = p * I + arg;
    });
  });
  if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(x.dtype)));
  return {};
}

Status average_pool_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  if (x.shape.size() < 3) return kernel_error(ctx, "input rank < 3");
  PoolGeometry g;
  WEFT_TRY(pool_geometry(ctx, x.shape, g));
  const bool include_pad = ctx.node().attr_int("count_include_pad", 0) != 0;
  Shape out_shape{x.shape[0], x.shape[1]};
  out_shape.insert(out_shape.end(), g.out.begin(), g.out.end());
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, out_shape));
  const std::int64_t planes = x.shape[0] * x.shape[1], I = shape_elements(g.in), O = shape_elements(g.out);
  const bool ok = dispatch_float(x.dtype, [&](auto t) {
    using T = decltype(t);
    const T* px = x.as<const T>();
    T* py = y.as<T>();
    for_each_window(g, planes, [&](std::int64_t p, std::int64_t o, const std::vector<std::int64_t>& offs, std::int64_t padded) {
      const T* plane = px + p * I;
      T sum{0};
      for (auto off : offs) sum += plane[off];
      const std::int64_t count = include_pad ? padded : static_cast<std::int64_t>(offs.size());
      py[p * O + o] = count > 0 ? sum / static_cast<T>(count) : T{0};
    });
  });
  if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(x.dtype)));
  return {};
}

Status global_pool(KernelContext& ctx, bool is_max) {
  const View& x = ctx.in(0);
  if (x.shape.size() < 3) return kernel_error(ctx, "input rank < 3");
  Shape out_shape = x.shape;
  std::fill(out_shape.begin() + 2, out_shape.end(), 1);
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, out_shape));
  const std::int64_t planes = x.shape[0] * x.shape[1], I = x.elements() / std::max<std::int64_t>(planes, 1);
  const bool ok = dispatch_float(x.dtype, [&](auto t) {
    using T = decltype(t);
    const T* px = x.as<const T>();
    T* py = y.as<T>();
    for (std::int64_t p = 0; p < planes; ++p) {
      const T* plane = px + p * I;
      if (is_max) {
        T best = std::numeric_limits<T>::lowest();
        for (std::int64_t i = 0; i < I; ++i) best = std::max(best, plane[i]);
        py[p] = best;
      } else {
        T sum{0};
        for (std::int64_t i = 0; i < I; ++i) sum += plane[i];
        py[p] = sum / static_cast<T>(I);
      }
    }
  });
  if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(x.dtype)));
  return {};
}

}  // namespace

void register_pool_kernels(KernelRegistry& r) {
  r.add("AveragePool", average_pool_kernel);
  r.add("GlobalAveragePool", [](KernelContext& ctx) { return global_pool(ctx, false); });
  r.add("GlobalMaxPool", [](KernelContext& ctx) { return global_pool(ctx, true); });
  r.add("MaxPool", max_pool_kernel);
}

}  // namespace weft::core::detail
