// Reductions: ReduceMean/Sum/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare (axes as attribute
// or input, keepdims, noop_with_empty_axes) and ArgMax/ArgMin.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernel.h"

namespace weft::core::detail {
namespace {

enum class Reduce { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

Status reduce_kernel(KernelContext& ctx, Reduce kind) {
  const View& x = ctx.in(0);
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  std::vector<std::int64_t> axes;
  bool present = false;
  if (!ints_from_attr_or_input(ctx, "axes", 1, axes, present)) return kernel_error(ctx, "axes must be integers");
  const bool keepdims = ctx.node().attr_int("keepdims", 1) != 0;
  const bool noop = ctx.node().attr_int("noop_with_empty_axes", 0) != 0;
  std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
  if (axes.empty()) {
    if (noop) {
      // Identity (the reduction of nothing).
      WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, x.shape));
      if (x.bytes() > 0) std::memcpy(y.data, x.data, x.bytes());
      return {};
    }
    reduced.assign(static_cast<std::size_t>(rank), true);
  }
  for (auto a : axes) {
    if (!normalize_axis(a, rank)) return kernel_error(ctx, "axis out of range");
    reduced[static_cast<std::size_t>(a)] = true;
  }
  Shape out_shape, kept_shape;
  std::int64_t count = 1;
  for (std::size_t d = 0; d < x.shape.size(); ++d) {
    if (reduced[d]) {
      count *= x.shape[d];
      kept_shape.push_back(1);
      if (keepdims) out_shape.push_back(1);
    } else {
      kept_shape.push_back(x.shape[d]);
      out_shape.push_back(x.shape[d]);
    }
  }
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, out_shape));
  const bool ok = dispatch_numeric(x.dtype, [&](auto t) {
    using T = decltype(t);
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
    const auto n_out = static_cast<std::size_t>(shape_elements(kept_shape));
    Acc init{0};
    if (kind == Reduce::Prod) init = Acc{1};
    if (kind == Reduce::Max) init = std::numeric_limits<T>::has_infinity ? -static_cast<Acc>(std::numeric_limits<T>::infinity())
                                                                          : static_cast<Acc>(std::numeric_limits<T>::lowest());
    if (kind == Reduce::Min) init = std::numeric_limits<T>::has_infinity ? static_cast<Acc>(std::numeric_limits<T>::infinity())
                                                                          : static_cast<Acc>(std::numeric_limits<T>::max());
    std::vector<Acc> acc(n_out, init);
    std::vector<Acc> mx;
    const T* px = x.as<const T>();
    // Output offsets of each input element: the kept shape's strides with 0 on reduced axes.
    const std::array<Shape, 1> st{broadcast_strides(kept_shape, x.shape)};
    if (kind == Reduce::LogSumExp) {
      mx.assign(n_out, -std::numeric_limits<Acc>::infinity());
      for_each_broadcast<1>(x.shape, st, [&](std::int64_t i, const std::array<std::int64_t, 1>& off) {
        auto& m = mx[static_cast<std::size_t>(off[0])];
        m = std::max(m, static_cast<Acc>(px[i]));
      });
    }
    for_each_broadcast<1>(x.shape, st, [&](std::int64_t i, const std::array<std::int64_t, 1>& off) {
      const auto v = static_cast<Acc>(px[i]);
      Acc& a = acc[static_cast<std::size_t>(off[0])];
      switch (kind) {
        case Reduce::Sum: case Reduce::Mean: case Reduce::LogSum: a += v; break;
        case Reduce::Max: a = std::max(a, v); break;
        case Reduce::Min: a = std::min(a, v); break;
        case Reduce::Prod: a *= v; break;
        case Reduce::L1: a += v < Acc{0} ? -v : v; break;
        case Reduce::L2: case Reduce::SumSquare: a += v * v; break;
        case Reduce::LogSumExp:
          if constexpr (std::is_floating_point_v<Acc>) a += std::exp(v - mx[static_cast<std::size_t>(off[0])]);
          break;
      }
    });
    T* out = y.as<T>();
    for (std::size_t o = 0; o < n_out; ++o) {
      Acc v = acc[o];
      switch (kind) {
        case Reduce::Mean: v = count > 0 ? static_cast<Acc>(v / static_cast<Acc>(count)) : v; break;
        case Reduce::L2: v = static_cast<Acc>(std::sqrt(static_cast<double>(v))); break;
        case Reduce::LogSum: v = static_cast<Acc>(std::log(static_cast<double>(v))); break;
        case Reduce::LogSumExp: v = static_cast<Acc>(std::log(static_cast<double>(v)) + static_cast<double>(mx[o])); break;
        default: break;
      }
      out[o] = static_cast<T>(v);
    }
  });
  if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(x.dtype)));
  return {};
}

Status arg_kernel(KernelContext& ctx, bool is_max) {
  const View& x = ctx.in(0);
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  std::int64_t axis = ctx.node().attr_int("axis", 0);
  if (!normalize_axis(axis, rank)) return kernel_error(ctx, "axis out of range");
  const bool keepdims = ctx.node().attr_int("keepdims", 1) != 0;
  const bool last = ctx.node().attr_int("select_last_index", 0) != 0;
  const auto ax = static_cast<std::size_t>(axis);
  const std::int64_t outer = shape_elements(std::span(x.shape).subspan(0, ax)), len = x.shape[ax];
  const std::int64_t inner = shape_elements(std::span(x.shape).subspan(ax + 1));
  Shape out_shape = x.shape;
  if (keepdims) out_shape[ax] = 1;
  else out_shape.erase(out_shape.begin() + axis);
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, DType::Int64, out_shape));
  const bool ok = dispatch_numeric(x.dtype, [&](auto t) {
    using T = decltype(t);
    const T* px = x.as<const T>();
    auto* out = y.as<std::int64_t>();
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i) {
        std::int64_t arg = 0;
        T best = px[o * len * inner + i];
        for (std::int64_t k = 1; k < len; ++k) {
          const T v = px[(o * len + k) * inner + i];
          const bool better = is_max ? (last ? v >= best : v > best) : (last ? v <= best : v < best);
          if (better) {
            best = v;
            arg = k;
          }
        }
        out[o * inner + i] = arg;
      }
  });
  if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(x.dtype)));
  return {};
}

Status cumsum_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  std::vector<std::int64_t> axis_v;
  if (!read_ints(ctx.in(1), axis_v) || axis_v.size() != 1) return kernel_error(ctx, "axis must be one integer");
  std::int64_t axis = axis_v[0];
  if (!normalize_axis(axis, static_cast<std::int64_t>(x.shape.size()))) return kernel_error(ctx, "axis out of range");
  const bool exclusive = ctx.node().attr_int("exclusive", 0) != 0, reverse = ctx.node().attr_int("reverse", 0) != 0;
  const auto ax = static_cast<std::size_t>(axis);
  const std::int64_t outer = shape_elements(std::span(x.shape).subspan(0, ax)), len = x.shape[ax];
  const std::int64_t inner = shape_elements(std::span(x.shape).subspan(ax + 1));
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, x.shape));
  const bool ok = dispatch_numeric(x.dtype, [&](auto t) {
    using T = decltype(t);
    const T* px = x.as<const T>();
    T* py = y.as<T>();
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i) {
        T acc{0};
        for (std::int64_t s = 0; s < len; ++s) {
          const std::int64_t k = reverse ? len - 1 - s : s;
          const std::int64_t at = (o * len + k) * inner + i;
          if (exclusive) {
            py[at] = acc;
            acc = static_cast<T>(acc + px[at]);
          } else {
            acc = static_cast<T>(acc + px[at]);
            py[at] = acc;
          }
        }
      }
  });
  if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(x.dtype)));
  return {};
}

}  // namespace

void register_reduce_kernels(KernelRegistry& r) {
  const std::pair<const char*, Reduce> ops[] = {
      {"ReduceSum", Reduce::Sum},       {"ReduceMean", Reduce::Mean},     {"ReduceMax", Reduce::Max},
      {"ReduceMin", Reduce::Min},       {"ReduceProd", Reduce::Prod},     {"ReduceL1", Reduce::L1},
      {"ReduceL2", Reduce::L2},         {"ReduceLogSum", Reduce::LogSum}, {"ReduceLogSumExp", Reduce::LogSumExp},
      {"ReduceSumSquare", Reduce::SumSquare}};
  // A copy, not a structured binding, in the capture: clang 14 (the fuzz preset) cannot capture those.
  for (const auto& op : ops) r.add(op.first, [kind = op.second](KernelContext& ctx) { return reduce_kernel(ctx, kind); });
  r.add("ArgMax", [](KernelContext& ctx) { return arg_kernel(ctx, true); });
  r.add("ArgMin", [](KernelContext& ctx) { return arg_kernel(ctx, false); });
  r.add("CumSum", cumsum_kernel);
}

}  // namespace weft::core::detail
