// Elementwise kernels: unary activations and math, broadcasting binary and variadic arithmetic,
// comparisons and logic, Where, Cast, Identity, Dropout (inference).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
#include <type_traits>

#include "half.h"
#include "kernel.h"

namespace weft::core::detail {
namespace {

/// a op b with ONNX's integer semantics: two's-complement wrap-around (computed in 64-bit unsigned,
/// where overflow is defined, and converted back, which C++20 defines as modular). Floats as they are.
template <class T, class Op>
T wrapping(T a, T b, Op op) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return static_cast<T>(op(static_cast<std::uint64_t>(a), static_cast<std::uint64_t>(b)));
  } else {
    return op(a, b);
  }
}


/// Calls f(T{}) for every plain element type Cast converts between.
template <class F>
bool dispatch_any(DType dtype, F&& f) {
  switch (dtype) {
    case DType::Float32: f(float{}); return true;
    case DType::Float64: f(double{}); return true;
    case DType::Int8: f(std::int8_t{}); return true;
    case DType::UInt8: f(std::uint8_t{}); return true;
    case DType::Int16: f(std::int16_t{}); return true;
    case DType::UInt16: f(std::uint16_t{}); return true;
    case DType::Int32: f(std::int32_t{}); return true;
    case DType::UInt32: f(std::uint32_t{}); return true;
    case DType::Int64: f(std::int64_t{}); return true;
    case DType::UInt64: f(std::uint64_t{}); return true;
    case DType::Bool: f(bool{}); return true;
    case DType::Float16: f(Float16{}); return true;
    case DType::BFloat16: f(BFloat16{}); return true;
    default: return false;
  }
}

template <class T>
constexpr bool kIsHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

// ---- unary ----

template <class Op>
KernelFn unary_float(Op op) {
  return [op](KernelContext& ctx) -> Status {
    const View& x = ctx.in(0);
    WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, x.shape));
    const Node& node = ctx.node();
    const bool ok = dispatch_float(x.dtype, [&](auto t) {
      using T = decltype(t);
      const T* in = x.as<const T>();
      T* out = y.as<T>();
      const std::int64_t n = x.elements();
      for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(op(in[i], node));
    });
    if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(x.dtype)));
    return {};
  };
}

template <class Op>
KernelFn unary_numeric(Op op) {
  return [op](KernelContext& ctx) -> Status {
    const View& x = ctx.in(0);
    WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, x.shape));
    const bool ok = dispatch_numeric(x.dtype, [&](auto t) {
      using T = decltype(t);
      const T* in = x.as<const T>();
      T* out = y.as<T>();
      const std::int64_t n = x.elements();
      for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(op(in[i]));
    });
    if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(x.dtype)));
    return {};
  };
}

Status copy_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, x.shape));
  if (x.bytes() > 0 && y.data != x.data) std::memcpy(y.data, x.data, x.bytes());
  return {};
}

/// Dropout's ratio input as a number (ONNX's default 0.5 when omitted; NaN for a dtype it cannot have).
double dropout_ratio(const KernelContext& ctx) {
  if (!ctx.has_input(1)) return 0.5;
  const View& r = ctx.in(1);
  if (r.elements() != 1) return std::nan("");
  switch (r.dtype) {
    case DType::Float32: return *r.as<const float>();
    case DType::Float64: return *r.as<const double>();
    case DType::Float16: return r.as<const detail::Float16>()->to_float();
    case DType::BFloat16: return r.as<const detail::BFloat16>()->to_float();
    default: return std::nan("");
  }
}

Status dropout_kernel(KernelContext& ctx) {
  // Inference, and training mode with ratio 0 (torchvision's Swin-T exports that: the exporter
  // passes no `training=`): the identity, the optional mask all true. Training mode with a ratio
  // above 0 is random by definition: refused, naming the node and the ratio.
  if (ctx.has_input(2)) {
    const View& train = ctx.in(2);
    if (train.dtype == DType::Bool && train.elements() == 1 && *train.as<const bool>()) {
      const double ratio = dropout_ratio(ctx);
      if (!(ratio == 0)) {
        std::ostringstream text;
        text << "training_mode=true with ratio " << ratio << ": its outputs are random (weft runs models for inference)";
        return unsupported(ctx, text.str());
      }
    }
  }
  WEFT_TRY(copy_kernel(ctx));
  if (ctx.wants_output(1)) {
    WEFT_KERNEL_OUTPUT(m, ctx.output(1, DType::Bool, ctx.in(0).shape));
    std::fill_n(m.as<bool>(), m.elements(), true);
  }
  return {};
}

template <class To, class From>
To convert(From v) {
  if constexpr (kIsHalf<From> && kIsHalf<To>) {
    return To::from(v.to_float());
  } else if constexpr (kIsHalf<From>) {
    return convert<To>(v.to_float());
  } else if constexpr (kIsHalf<To>) {
    // Rounded once, from the exact value (double holds every float and the common integers).
    return To::from(static_cast<double>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From{};
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if (std::isnan(v)) return To{};
    const double d = static_cast<double>(v);
    if (d <= static_cast<double>(std::numeric_limits<To>::lowest())) return std::numeric_limits<To>::lowest();
    if (d >= static_cast<double>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

Status cast_to(KernelContext& ctx, DType to) {
  const View& x = ctx.in(0);
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, to, x.shape));
  bool inner_ok = false;
  const bool ok = dispatch_any(x.dtype, [&](auto from_tag) {
    using From = decltype(from_tag);
    inner_ok = dispatch_any(to, [&](auto to_tag) {
      using To = decltype(to_tag);
      const From* in = x.as<const From>();
      To* out = y.as<To>();
      const std::int64_t n = x.elements();
      for (std::int64_t i = 0; i < n; ++i) out[i] = convert<To>(in[i]);
    });
  });
  if (!ok || !inner_ok)
    return unsupported(ctx, "cast " + std::string(dtype_name(x.dtype)) + " -> " + std::string(dtype_name(to)));
  return {};
}

Status cast_kernel(KernelContext& ctx) {
  return cast_to(ctx, static_cast<DType>(ctx.node().attr_int("to", 0)));
}

Status cast_like_kernel(KernelContext& ctx) { return cast_to(ctx, ctx.in(1).dtype); }

// ---- binary and variadic with broadcasting ----

/// out = op(a, b) over the broadcast shape; In and Out may differ (comparisons write bool).
template <class In, class Out, class Op>
Status binary_typed(KernelContext& ctx, const View& a, const View& b, DType out_dtype, Op op) {
  Shape out_shape;
  const std::array<Shape, 2> shapes{a.shape, b.shape};
  if (!broadcast_shapes(shapes, out_shape)) return kernel_error(ctx, "shapes do not broadcast");
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, out_dtype, out_shape));
  const In* pa = a.as<const In>();
  const In* pb = b.as<const In>();
  Out* out = y.as<Out>();
  if (a.shape == b.shape) {
    const std::int64_t n = a.elements();
    for (std::int64_t i = 0; i < n; ++i) out[i] = op(pa[i], pb[i]);
    return {};
  }
  if (b.elements() == 1 && a.shape == out_shape) {
    const In s = pb[0];
    const std::int64_t n = a.elements();
    for (std::int64_t i = 0; i < n; ++i) out[i] = op(pa[i], s);
    return {};
  }
  const std::array<Shape, 2> st{broadcast_strides(a.shape, out_shape), broadcast_strides(b.shape, out_shape)};
  for_each_broadcast<2>(out_shape, st, [&](std::int64_t o, const std::array<std::int64_t, 2>& off) {
    out[o] = op(pa[off[0]], pb[off[1]]);
  });
  return {};
}

template <class Op>
KernelFn binary_arith(Op op, bool allow_int = true) {
  return [op, allow_int](KernelContext& ctx) -> Status {
    const View& a = ctx.in(0);
    const View& b = ctx.in(1);
    if (a.dtype != b.dtype) return kernel_error(ctx, "operand dtypes differ");
    Status result;
    auto body = [&](auto t) {
      using T = decltype(t);
      result = binary_typed<T, T>(ctx, a, b, a.dtype, [&](T x, T y) { return static_cast<T>(op(x, y)); });
    };
    const bool ok = allow_int ? dispatch_numeric(a.dtype, body) : dispatch_float(a.dtype, body);
    if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(a.dtype)));
    return result;
  };
}

template <class Op>
KernelFn compare(Op op) {
  return [op](KernelContext& ctx) -> Status {
    const View& a = ctx.in(0);
    const View& b = ctx.in(1);
    if (a.dtype != b.dtype) return kernel_error(ctx, "operand dtypes differ");
    Status result;
    auto body = [&](auto t) {
      using T = decltype(t);
      result = binary_typed<T, bool>(ctx, a, b, DType::Bool, [&](T x, T y) { return op(x, y); });
    };
    bool ok = dispatch_numeric(a.dtype, body);
    if (!ok && a.dtype == DType::Bool) {
      body(bool{});
      ok = true;
    }
    if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(a.dtype)));
    return result;
  };
}

template <class Op>
KernelFn logic(Op op) {
  return [op](KernelContext& ctx) -> Status {
    const View& a = ctx.in(0);
    const View& b = ctx.in(1);
    if (a.dtype != DType::Bool || b.dtype != DType::Bool) return unsupported(ctx, "non-bool operands");
    return binary_typed<bool, bool>(ctx, a, b, DType::Bool, op);
  };
}

Status bit_shift_kernel(KernelContext& ctx) {
  const View& a = ctx.in(0);
  const View& b = ctx.in(1);
  if (a.dtype != b.dtype) return kernel_error(ctx, "operand dtypes differ");
  const std::string direction = ctx.node().attr_string("direction", "");
  if (direction != "LEFT" && direction != "RIGHT") return kernel_error(ctx, "direction must be LEFT or RIGHT");
  const bool left = direction == "LEFT";
  Status result;
  auto body = [&](auto t) {
    using T = decltype(t);
    // Shifting by the width or more gives zero (the C++ shift would be undefined).
    result = binary_typed<T, T>(ctx, a, b, a.dtype, [&](T x, T s) {
      if (s >= static_cast<T>(sizeof(T) * 8)) return T{0};
      return static_cast<T>(left ? x << s : x >> s);
    });
  };
  switch (a.dtype) {
    case DType::UInt8: body(std::uint8_t{}); break;
    case DType::UInt16: body(std::uint16_t{}); break;
    case DType::UInt32: body(std::uint32_t{}); break;
    case DType::UInt64: body(std::uint64_t{}); break;
    default: return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(a.dtype)));
  }
  return result;
}

Status pow_kernel(KernelContext& ctx) {
  const View& a = ctx.in(0);
  const View& b = ctx.in(1);
  Shape out_shape;
  const std::array<Shape, 2> shapes{a.shape, b.shape};
  if (!broadcast_shapes(shapes, out_shape)) return kernel_error(ctx, "shapes do not broadcast");
  Status result;
  bool inner_ok = false;
  const bool ok = dispatch_numeric(a.dtype, [&](auto ta) {
    using A = decltype(ta);
    inner_ok = dispatch_numeric(b.dtype, [&](auto tb) {
      using B = decltype(tb);
      auto y = ctx.output(0, a.dtype, out_shape);
      if (!y) {
        result = y.error();
        return;
      }
      const A* pa = a.as<const A>();
      const B* pb = b.as<const B>();
      A* out = y->template as<A>();
      const std::array<Shape, 2> st{broadcast_strides(a.shape, out_shape), broadcast_strides(b.shape, out_shape)};
      for_each_broadcast<2>(out_shape, st, [&](std::int64_t o, const std::array<std::int64_t, 2>& off) {
        const B e = pb[off[1]];
        if constexpr (std::is_same_v<A, float>) {
          // x*x is what every runtime computes for the common square; keep it exact.
          out[o] = e == B{2} ? pa[off[0]] * pa[off[0]] : std::pow(pa[off[0]], static_cast<float>(e));
        } else {
          out[o] = static_cast<A>(std::pow(static_cast<double>(pa[off[0]]), static_cast<double>(e)));
        }
      });
    });
  });
  if (!ok || !inner_ok) return unsupported(ctx, "dtype");
  return result;
}

/// Max/Min/Sum/Mean over any number of broadcasting inputs.
template <class Op>
KernelFn variadic(Op op, bool mean) {
  return [op, mean](KernelContext& ctx) -> Status {
    std::vector<Shape> shapes;
    for (std::size_t i = 0; i < ctx.input_count(); ++i)
      if (ctx.has_input(i)) shapes.push_back(ctx.in(i).shape);
    if (shapes.empty()) return kernel_error(ctx, "no inputs");
    Shape out_shape;
    if (!broadcast_shapes(shapes, out_shape)) return kernel_error(ctx, "shapes do not broadcast");
    const DType dtype = ctx.in(0).dtype;
    WEFT_KERNEL_OUTPUT(y, ctx.output(0, dtype, out_shape));
    const bool ok = dispatch_numeric(dtype, [&](auto t) {
      using T = decltype(t);
      T* out = y.as<T>();
      bool first = true;
      std::size_t count = 0;
      for (std::size_t i = 0; i < ctx.input_count(); ++i) {
        if (!ctx.has_input(i)) continue;
        const View& x = ctx.in(i);
        const T* px = x.as<const T>();
        const std::array<Shape, 1> st{broadcast_strides(x.shape, out_shape)};
        for_each_broadcast<1>(out_shape, st, [&](std::int64_t o, const std::array<std::int64_t, 1>& off) {
          out[o] = first ? px[off[0]] : static_cast<T>(op(out[o], px[off[0]]));
        });
        first = false;
        ++count;
      }
      if (mean) {
        const std::int64_t n = y.elements();
        for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(out[i] / static_cast<T>(count));
      }
    });
    if (!ok) return unsupported(ctx, std::string("dtype ") + std::string(dtype_name(dtype)));
    return {};
  };
}

Status where_kernel(KernelContext& ctx) {
  const View& c = ctx.in(0);
  const View& a = ctx.in(1);
  const View& b = ctx.in(2);
  if (c.dtype != DType::Bool) return kernel_error(ctx, "condition is not bool");
  Shape out_shape;
  const std::array<Shape, 3> shapes{c.shape, a.shape, b.shape};
  if (!broadcast_shapes(shapes, out_shape)) return kernel_error(ctx, "shapes do not broadcast");
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, a.dtype, out_shape));
  const bool ok = dispatch_size(a.dtype, [&](auto t) {
    using T = decltype(t);
    const bool* pc = c.as<const bool>();
    const T* pa = a.as<const T>();
    const T* pb = b.as<const T>();
    T* out = y.as<T>();
    const std::array<Shape, 3> st{broadcast_strides(c.shape, out_shape), broadcast_strides(a.shape, out_shape),
                                  broadcast_strides(b.shape, out_shape)};
    for_each_broadcast<3>(out_shape, st, [&](std::int64_t o, const std::array<std::int64_t, 3>& off) {
      out[o] = pc[off[0]] ? pa[off[1]] : pb[off[2]];
    });
  });
  if (!ok) return unsupported(ctx, "dtype");
  return {};
}

Status clip_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, x.shape));
  const Node& node = ctx.node();
  const bool ok = dispatch_numeric(x.dtype, [&](auto t) {
    using T = decltype(t);
    T lo = std::numeric_limits<T>::lowest();
    T hi = std::numeric_limits<T>::max();
    // Opset < 11 has min/max attributes; later opsets optional inputs 1 and 2.
    if (node.attribute("min")) lo = static_cast<T>(node.attr_float("min", 0));
    if (node.attribute("max")) hi = static_cast<T>(node.attr_float("max", 0));
    if (ctx.has_input(1) && ctx.in(1).elements() == 1) lo = *ctx.in(1).as<const T>();
    if (ctx.has_input(2) && ctx.in(2).elements() == 1) hi = *ctx.in(2).as<const T>();
    const T* in = x.as<const T>();
    T* out = y.as<T>();
    const std::int64_t n = x.elements();
    for (std::int64_t i = 0; i < n; ++i) out[i] = std::min(std::max(in[i], lo), hi);
  });
  if (!ok) return unsupported(ctx, "dtype");
  return {};
}

Status not_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  if (x.dtype != DType::Bool) return unsupported(ctx, "non-bool input");
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, DType::Bool, x.shape));
  for (std::int64_t i = 0; i < x.elements(); ++i) y.as<bool>()[i] = !x.as<const bool>()[i];
  return {};
}

template <class Pred>
KernelFn float_predicate(Pred pred) {
  return [pred](KernelContext& ctx) -> Status {
    const View& x = ctx.in(0);
    WEFT_KERNEL_OUTPUT(y, ctx.output(0, DType::Bool, x.shape));
    const Node& node = ctx.node();
    const bool ok = dispatch_float(x.dtype, [&](auto t) {
      using T = decltype(t);
      for (std::int64_t i = 0; i < x.elements(); ++i) y.as<bool>()[i] = pred(x.as<const T>()[i], node);
    });
    if (!ok) return unsupported(ctx, "dtype");
    return {};
  };
}

Status prelu_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  const View& slope = ctx.in(1);
  if (x.dtype != slope.dtype) return kernel_error(ctx, "operand dtypes differ");
  Status result;
  const bool ok = dispatch_numeric(x.dtype, [&](auto t) {
    using T = decltype(t);
    result = binary_typed<T, T>(ctx, x, slope, x.dtype, [](T v, T s) { return v < T{0} ? static_cast<T>(v * s) : v; });
  });
  if (!ok) return unsupported(ctx, "dtype");
  return result;
}

template <class T>
T fmod_like(T a, T b, bool fmod) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::fmod(a, b);
  } else {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
      if (b == T{-1}) return 0;  // also avoids the INT_MIN % -1 trap
    }
    T r = static_cast<T>(a % b);
    // Integer Mod follows Python (sign of the divisor) unless fmod=1.
    if (!fmod && r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  }
}

Status mod_kernel(KernelContext& ctx) {
  const bool fmod = ctx.node().attr_int("fmod", 0) != 0;
  const View& a = ctx.in(0);
  const View& b = ctx.in(1);
  if (a.dtype != b.dtype) return kernel_error(ctx, "operand dtypes differ");
  Status result;
  const bool ok = dispatch_numeric(a.dtype, [&](auto t) {
    using T = decltype(t);
    result = binary_typed<T, T>(ctx, a, b, a.dtype, [fmod](T x, T y) { return fmod_like(x, y, fmod); });
  });
  if (!ok) return unsupported(ctx, "dtype");
  return result;
}

template <class T>
T int_div(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0) return T{0};
    if constexpr (std::is_signed_v<T>) {
      // INT_MIN / -1 overflows (a hardware trap): negate with wrap-around instead.
      using U = std::make_unsigned_t<T>;
      if (b == T{-1}) return static_cast<T>(static_cast<U>(U{0} - static_cast<U>(a)));
    }
    return static_cast<T>(a / b);
  } else {
    return a / b;
  }
}

}  // namespace

void register_elementwise_kernels(KernelRegistry& r) {
  using N = const Node&;
  r.add("BitShift", bit_shift_kernel);
  r.add("Relu", unary_numeric([](auto v) { return v > decltype(v){0} ? v : decltype(v){0}; }));
  r.add("Neg", unary_numeric([](auto v) { return -v; }));
  r.add("Abs", unary_numeric([](auto v) {
          if constexpr (std::is_signed_v<decltype(v)>) return v < decltype(v){0} ? -v : v;
          else return v;
        }));
  r.add("Sign", unary_numeric([](auto v) {
          using T = decltype(v);
          if constexpr (std::is_signed_v<T>) return v > T{0} ? T{1} : (v < T{0} ? T{-1} : T{0});
          else return v > T{0} ? T{1} : T{0};
        }));
  r.add("LeakyRelu", unary_float([](auto v, N n) { return v >= 0 ? v : v * n.attr_float("alpha", 0.01f); }));
  r.add("Sigmoid", unary_float([](auto v, N) {
          using T = decltype(v);
          return v >= 0 ? T{1} / (T{1} + std::exp(-v)) : std::exp(v) / (T{1} + std::exp(v));
        }));
  r.add("Tanh", unary_float([](auto v, N) { return std::tanh(v); }));
  r.add("HardSigmoid", unary_float([](auto v, N n) {
          using T = decltype(v);
          const T a = static_cast<T>(n.attr_float("alpha", 0.2f));
          const T b = static_cast<T>(n.attr_float("beta", 0.5f));
          return std::max(T{0}, std::min(T{1}, a * v + b));
        }));
  r.add("HardSwish", unary_float([](auto v, N) {
          using T = decltype(v);
          return v * std::max(T{0}, std::min(T{1}, v / T{6} + T{0.5}));
        }));
  r.add("Erf", unary_float([](auto v, N) { return std::erf(v); }));
  r.add("Exp", unary_float([](auto v, N) { return std::exp(v); }));
  r.add("Log", unary_float([](auto v, N) { return std::log(v); }));
  r.add("Sqrt", unary_float([](auto v, N) { return std::sqrt(v); }));
  r.add("Reciprocal", unary_float([](auto v, N) { return decltype(v){1} / v; }));
  r.add("Floor", unary_float([](auto v, N) { return std::floor(v); }));
  r.add("Ceil", unary_float([](auto v, N) { return std::ceil(v); }));
  r.add("Round", unary_float([](auto v, N) { return std::nearbyint(v); }));  // half to even
  r.add("Sin", unary_float([](auto v, N) { return std::sin(v); }));
  r.add("Cos", unary_float([](auto v, N) { return std::cos(v); }));
  r.add("Tan", unary_float([](auto v, N) { return std::tan(v); }));
  r.add("Asin", unary_float([](auto v, N) { return std::asin(v); }));
  r.add("Acos", unary_float([](auto v, N) { return std::acos(v); }));
  r.add("Atan", unary_float([](auto v, N) { return std::atan(v); }));
  r.add("Sinh", unary_float([](auto v, N) { return std::sinh(v); }));
  r.add("Cosh", unary_float([](auto v, N) { return std::cosh(v); }));
  r.add("Asinh", unary_float([](auto v, N) { return std::asinh(v); }));
  r.add("Acosh", unary_float([](auto v, N) { return std::acosh(v); }));
  r.add("Atanh", unary_float([](auto v, N) { return std::atanh(v); }));
  r.add("Elu", unary_float([](auto v, N n) {
          using T = decltype(v);
          return v >= 0 ? v : static_cast<T>(n.attr_float("alpha", 1.0f)) * (std::exp(v) - T{1});
        }));
  r.add("Selu", unary_float([](auto v, N n) {
          using T = decltype(v);
          const T a = static_cast<T>(n.attr_float("alpha", 1.67326319217681884765625f));
          const T g = static_cast<T>(n.attr_float("gamma", 1.05070102214813232421875f));
          return v > 0 ? g * v : g * (a * std::exp(v) - a);
        }));
  r.add("Celu", unary_float([](auto v, N n) {
          using T = decltype(v);
          const T a = static_cast<T>(n.attr_float("alpha", 1.0f));
          return std::max(T{0}, v) + std::min(T{0}, a * (std::exp(v / a) - T{1}));
        }));
  r.add("ThresholdedRelu", unary_float([](auto v, N n) {
          using T = decltype(v);
          return v > static_cast<T>(n.attr_float("alpha", 1.0f)) ? v : T{0};
        }));
  r.add("Softplus", unary_float([](auto v, N) { return std::log1p(std::exp(v)); }));
  r.add("Softsign", unary_float([](auto v, N) { return v / (decltype(v){1} + std::abs(v)); }));
  r.add("Shrink", unary_float([](auto v, N n) {
          using T = decltype(v);
          const T l = static_cast<T>(n.attr_float("lambd", 0.5f));
          const T b = static_cast<T>(n.attr_float("bias", 0.0f));
          return v < -l ? v + b : (v > l ? v - b : T{0});
        }));
  r.add("Gelu", unary_float([](auto v, N n) {
          using T = decltype(v);
          if (n.attr_string("approximate", "none") == "tanh") {
            const T k = static_cast<T>(0.7978845608028654);  // sqrt(2/pi)
            return T{0.5} * v * (T{1} + std::tanh(k * (v + static_cast<T>(0.044715) * v * v * v)));
          }
          return T{0.5} * v * (T{1} + std::erf(v / static_cast<T>(1.4142135623730951)));
        }));
  r.add("IsNaN", float_predicate([](auto v, N) { return std::isnan(v); }));
  r.add("IsInf", float_predicate([](auto v, N n) {
          if (!std::isinf(v)) return false;
          return v > 0 ? n.attr_int("detect_positive", 1) != 0 : n.attr_int("detect_negative", 1) != 0;
        }));
  r.add("Clip", clip_kernel);
  r.add("Identity", copy_kernel);
  r.add("Dropout", dropout_kernel);
  r.add("Cast", cast_kernel);
  r.add("CastLike", cast_like_kernel);
  r.add("Not", not_kernel);
  r.add("Where", where_kernel);
  r.add("PRelu", prelu_kernel);
  r.add("Mod", mod_kernel);
  r.add("Pow", pow_kernel);

  r.add("Add", binary_arith([](auto a, auto b) { return wrapping(a, b, std::plus<>{}); }));
  r.add("Sub", binary_arith([](auto a, auto b) { return wrapping(a, b, std::minus<>{}); }));
  r.add("Mul", binary_arith([](auto a, auto b) { return wrapping(a, b, std::multiplies<>{}); }));
  r.add("Div", binary_arith([](auto a, auto b) { return int_div(a, b); }));
  r.add("Max", variadic([](auto a, auto b) { return std::isnan(static_cast<double>(b)) ? b : std::max(a, b); }, false));
  r.add("Min", variadic([](auto a, auto b) { return std::isnan(static_cast<double>(b)) ? b : std::min(a, b); }, false));
  r.add("Sum", variadic([](auto a, auto b) { return wrapping(a, b, std::plus<>{}); }, false));
  r.add("Mean", variadic([](auto a, auto b) { return a + b; }, true));

  r.add("Equal", compare([](auto a, auto b) { return a == b; }));
  r.add("Less", compare([](auto a, auto b) { return a < b; }));
  r.add("Greater", compare([](auto a, auto b) { return a > b; }));
  r.add("LessOrEqual", compare([](auto a, auto b) { return a <= b; }));
  r.add("GreaterOrEqual", compare([](auto a, auto b) { return a >= b; }));
  r.add("And", logic([](bool a, bool b) { return a && b; }));
  r.add("Or", logic([](bool a, bool b) { return a || b; }));
  r.add("Xor", logic([](bool a, bool b) { return a != b; }));
}

}  // namespace weft::core::detail
