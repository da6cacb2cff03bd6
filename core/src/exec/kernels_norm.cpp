// Normalisations: BatchNormalization (inference), LayerNormalization, InstanceNormalization,
// and the softmax family (Softmax, LogSoftmax, Hardmax).
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernel.h"

namespace weft::core::detail {
namespace {

Status batch_norm_kernel(KernelContext& ctx) {
  const Node& node = ctx.node();
  if (node.attr_int("training_mode", 0) != 0 || ctx.wants_output(1) || ctx.wants_output(2))
    return unsupported(ctx, "training mode");
  const View& x = ctx.in(0);
  if (x.shape.size() < 2) return kernel_error(ctx, "input rank < 2");
  const std::int64_t n = x.shape[0], c = x.shape[1], inner = x.elements() / std::max<std::int64_t>(n * c, 1);
  for (std::size_t i = 1; i <= 4; ++i)
    if (!ctx.has_input(i) || ctx.in(i).elements() != c) return kernel_error(ctx, "scale/B/mean/var must have C elements");
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, x.shape));
  const float eps = node.attr_float("epsilon", 1e-5f);
  const bool ok = dispatch_float(x.dtype, [&](auto t) {
    using T = decltype(t);
    if (ctx.in(1).dtype != x.dtype || ctx.in(3).dtype != x.dtype) return;
    const T *scale = ctx.in(1).as<const T>(), *bias = ctx.in(2).as<const T>();
    const T *mean = ctx.in(3).as<const T>(), *var = ctx.in(4).as<const T>();
    const T* px = x.as<const T>();
    T* py = y.as<T>();
    for (std::int64_t ch = 0; ch < c; ++ch) {
      const T a = scale[ch] / std::sqrt(var[ch] + static_cast<T>(eps));
      const T b = bias[ch] - mean[ch] * a;
      for (std::int64_t b0 = 0; b0 < n; ++b0) {
        const T* in = px + (b0 * c + ch) * inner;
        T* out = py + (b0 * c + ch) * inner;
        for (std::int64_t i = 0; i < inner; ++i) out[i] = in[i] * a + b;
      }
    }
  });
  if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(x.dtype)));
  if (ctx.in(1).dtype != x.dtype || ctx.in(3).dtype != x.dtype) return unsupported(ctx, "mixed dtypes");
  return {};
}

Status layer_norm_kernel(KernelContext& ctx) {
  const Node& node = ctx.node();
  const View& x = ctx.in(0);
  std::int64_t axis = node.attr_int("axis", -1);
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  if (!normalize_axis(axis, rank)) return kernel_error(ctx, "axis out of range");
  const std::int64_t outer = shape_elements(std::span(x.shape).subspan(0, static_cast<std::size_t>(axis)));
  const std::int64_t inner = shape_elements(std::span(x.shape).subspan(static_cast<std::size_t>(axis)));
  const float eps = node.attr_float("epsilon", 1e-5f);
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, x.shape));
  Shape stat_shape = x.shape;
  for (std::size_t d = static_cast<std::size_t>(axis); d < stat_shape.size(); ++d) stat_shape[d] = 1;
  const DType stat_dtype = static_cast<DType>(node.attr_int("stash_type", 1));
  if (stat_dtype != DType::Float32) return unsupported(ctx, "stash_type other than float");
  float* mean_out = nullptr;
  float* inv_out = nullptr;
  if (ctx.wants_output(1)) {
    WEFT_KERNEL_OUTPUT(m, ctx.output(1, DType::Float32, stat_shape));
    mean_out = m.as<float>();
  }
  if (ctx.wants_output(2)) {
    WEFT_KERNEL_OUTPUT(m, ctx.output(2, DType::Float32, stat_shape));
    inv_out = m.as<float>();
  }
  const View& scale = ctx.in(1);
  const bool has_bias = ctx.has_input(2);
  Shape inner_shape(x.shape.begin() + axis, x.shape.end());
  const std::array<Shape, 1> sst{broadcast_strides(scale.shape, inner_shape)};
  Shape bst;
  if (has_bias) bst = broadcast_strides(ctx.in(2).shape, inner_shape);
  const bool ok = dispatch_float(x.dtype, [&](auto t) {
    using T = decltype(t);
    const T* px = x.as<const T>();
    T* py = y.as<T>();
    // Expand scale and bias to the normalised shape once.
    std::vector<T> s(static_cast<std::size_t>(inner)), b(static_cast<std::size_t>(inner), T{0});
    for_each_broadcast<1>(inner_shape, sst, [&](std::int64_t o, const std::array<std::int64_t, 1>& off) {
      s[static_cast<std::size_t>(o)] = scale.as<const T>()[off[0]];
    });
    if (has_bias) {
      const std::array<Shape, 1> bs{bst};
      for_each_broadcast<1>(inner_shape, bs, [&](std::int64_t o, const std::array<std::int64_t, 1>& off) {
        b[static_cast<std::size_t>(o)] = ctx.in(2).as<const T>()[off[0]];
      });
    }
    for (std::int64_t r = 0; r < outer; ++r) {
      const T* in = px + r * inner;
      T* out = py + r * inner;
      // Statistics in float (stash_type 1), like the ONNX reference.
      double sum = 0;
      for (std::int64_t i = 0; i < inner; ++i) sum += static_cast<double>(in[i]);
      const double mean = sum / static_cast<double>(inner);
      double sq = 0;
      for (std::int64_t i = 0; i < inner; ++i) sq += (static_cast<double>(in[i]) - mean) * (static_cast<double>(in[i]) - mean);
      const double inv = 1.0 / std::sqrt(sq / static_cast<double>(inner) + static_cast<double>(eps));
      for (std::int64_t i = 0; i < inner; ++i)
        out[i] = static_cast<T>((static_cast<double>(in[i]) - mean) * inv) * s[static_cast<std::size_t>(i)] +
                 b[static_cast<std::size_t>(i)];
      if (mean_out) mean_out[r] = static_cast<float>(mean);
      if (inv_out) inv_out[r] = static_cast<float>(inv);
    }
  });
  if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(x.dtype)));
  return {};
}

Status instance_norm_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  if (x.shape.size() < 3) return kernel_error(ctx, "input rank < 3");
  const std::int64_t n = x.shape[0], c = x.shape[1], inner = x.elements() / std::max<std::int64_t>(n * c, 1);
  const float eps = ctx.node().attr_float("epsilon", 1e-5f);
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, x.shape));
  const bool ok = dispatch_float(x.dtype, [&](auto t) {
    using T = decltype(t);
    const T *scale = ctx.in(1).as<const T>(), *bias = ctx.in(2).as<const T>(), *px = x.as<const T>();
    T* py = y.as<T>();
    for (std::int64_t b0 = 0; b0 < n; ++b0)
      for (std::int64_t ch = 0; ch < c; ++ch) {
        const T* in = px + (b0 * c + ch) * inner;
        T* out = py + (b0 * c + ch) * inner;
        double sum = 0, sq = 0;
        for (std::int64_t i = 0; i < inner; ++i) sum += static_cast<double>(in[i]);
        const double mean = sum / static_cast<double>(inner);
        for (std::int64_t i = 0; i < inner; ++i) sq += (static_cast<double>(in[i]) - mean) * (static_cast<double>(in[i]) - mean);
        const double inv = 1.0 / std::sqrt(sq / static_cast<double>(inner) + static_cast<double>(eps));
        for (std::int64_t i = 0; i < inner; ++i)
          out[i] = static_cast<T>((static_cast<double>(in[i]) - mean) * inv * static_cast<double>(scale[ch]) +
                                  static_cast<double>(bias[ch]));
      }
  });
  if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(x.dtype)));
  return {};
}

enum class SoftKind { Softmax, LogSoftmax, Hardmax };

Status softmax_family(KernelContext& ctx, SoftKind kind) {
  const View& x = ctx.in(0);
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  // Before opset 13 the input is coerced to 2-D at axis (default 1); from 13 on, one axis (default -1).
  const bool legacy = ctx.opset_before(13);
  std::int64_t axis = ctx.node().attr_int("axis", legacy ? 1 : -1);
  if (!normalize_axis(axis, rank)) return kernel_error(ctx, "axis out of range");
  const auto ax = static_cast<std::size_t>(axis);
  std::int64_t outer, len, inner;
  if (legacy) {
    outer = shape_elements(std::span(x.shape).subspan(0, ax));
    len = shape_elements(std::span(x.shape).subspan(ax));
    inner = 1;
  } else {
    outer = shape_elements(std::span(x.shape).subspan(0, ax));
    len = x.shape.empty() ? 1 : x.shape[ax];
    inner = shape_elements(std::span(x.shape).subspan(std::min(ax + 1, x.shape.size())));
  }
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, x.shape));
  const bool ok = dispatch_float(x.dtype, [&](auto t) {
    using T = decltype(t);
    const T* px = x.as<const T>();
    T* py = y.as<T>();
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i) {
        const T* in = px + o * len * inner + i;
        T* out = py + o * len * inner + i;
        T mx = -std::numeric_limits<T>::infinity();
        std::int64_t arg = 0;
        for (std::int64_t k = 0; k < len; ++k)
          if (in[k * inner] > mx) {
            mx = in[k * inner];
            arg = k;
          }
        if (kind == SoftKind::Hardmax) {
          for (std::int64_t k = 0; k < len; ++k) out[k * inner] = k == arg ? T{1} : T{0};
          continue;
        }
        T sum{0};
        for (std::int64_t k = 0; k < len; ++k) sum += std::exp(in[k * inner] - mx);
        if (kind == SoftKind::Softmax) {
          for (std::int64_t k = 0; k < len; ++k) out[k * inner] = std::exp(in[k * inner] - mx) / sum;
        } else {
          const T lse = std::log(sum);
          for (std::int64_t k = 0; k < len; ++k) out[k * inner] = in[k * inner] - mx - lse;
        }
      }
  });
  if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(x.dtype)));
  return {};
}

}  // namespace

void register_norm_kernels(KernelRegistry& r) {
  r.add("BatchNormalization", batch_norm_kernel);
  r.add("Hardmax", [](KernelContext& ctx) { return softmax_family(ctx, SoftKind::Hardmax); });
  r.add("InstanceNormalization", instance_norm_kernel);
  r.add("LayerNormalization", layer_norm_kernel);
  r.add("LogSoftmax", [](KernelContext& ctx) { return softmax_family(ctx, SoftKind::LogSoftmax); });
  r.add("Softmax", [](KernelContext& ctx) { return softmax_family(ctx, SoftKind::Softmax); });
}

}  // namespace weft::core::detail
