// Quantized kernels (ONNX's linear quantization, uint8/int8 with per-tensor or per-axis scale and
// zero point): QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, and the integer products
// MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv. The products run the float MatMul and
// Conv kernels on the zero-point-shifted values in double, which holds every int32 accumulation
// exactly; requantization rounds half to even and saturates.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "kernel.h"

namespace weft::core::detail {
namespace {

/// Runs another kernel (Conv, MatMul) on given float64 inputs, keeping its output 0 here.
class ProxyContext final : public KernelContext {
 public:
  ProxyContext(const KernelContext& outer, std::span<const View> inputs)
      : KernelContext(outer.node(), inputs, outer.opset()) {
    set_batch_invariant(outer.batch_invariant());
  }
  Expected<View> output(std::size_t i, DType dtype, Shape shape) override {
    View v{dtype, std::move(shape), nullptr};
    auto& buf = m_buffers.emplace_back(std::make_unique<double[]>(static_cast<std::size_t>(std::max<std::int64_t>(v.elements(), 1))));
    v.data = buf.get();
    if (i == 0) m_result = v;
    return v;
  }
  const View& result() const { return m_result; }

 private:
  std::vector<std::unique_ptr<double[]>> m_buffers;
  View m_result;
};

/// A float64 copy of a numeric view minus a zero point (per tensor, or per index along `axis`).
struct Shifted {
  std::vector<double> values;
  View view;
};

Shifted shifted(const View& x, const View* zero_point, std::int64_t axis) {
  Shifted s;
  s.values.resize(static_cast<std::size_t>(x.elements()));
  const std::int64_t per_axis = zero_point && zero_point->present() && zero_point->elements() > 1 ? zero_point->elements() : 0;
  const std::int64_t inner = per_axis ? shape_elements(std::span(x.shape).subspan(static_cast<std::size_t>(axis) + 1)) : 1;
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    double zp = 0;
    if (zero_point && zero_point->present()) zp = load_double(*zero_point, per_axis ? (i / inner) % per_axis : 0);
    s.values[static_cast<std::size_t>(i)] = load_double(x, i) - zp;
  }
  s.view = View{DType::Float64, x.shape, s.values.data()};
  return s;
}

/// Saturating round-half-to-even into an 8-bit (or other integer) dtype.
double saturate_to(DType dtype, double v) {
  v = std::nearbyint(v);
  switch (dtype) {
    case DType::UInt8: return std::clamp(v, 0.0, 255.0);
    case DType::Int8: return std::clamp(v, -128.0, 127.0);
    case DType::UInt16: return std::clamp(v, 0.0, 65535.0);
    case DType::Int16: return std::clamp(v, -32768.0, 32767.0);
    case DType::Int32: return std::clamp(v, -2147483648.0, 2147483647.0);
    default: return v;
  }
}

bool quantized_type(DType d) { return d == DType::UInt8 || d == DType::Int8 || d == DType::Int32 || d == DType::UInt16 || d == DType::Int16; }

/// The scale/zero-point index of element i of x: per tensor, or along `axis`.
struct Axis {
  std::int64_t count = 1, inner = 1;
  std::int64_t of(std::int64_t i) const { return count > 1 ? (i / inner) % count : 0; }
};

Expected<Axis> quant_axis(const KernelContext& ctx, const View& x, const View& scale) {
  Axis a;
  if (scale.elements() <= 1) return a;
  std::int64_t axis = ctx.node().attr_int("axis", 1);
  if (!normalize_axis(axis, static_cast<std::int64_t>(x.shape.size())) || x.shape[static_cast<std::size_t>(axis)] != scale.elements())
    return kernel_error(ctx, "per-axis scale does not match the axis");
  a.count = scale.elements();
  a.inner = shape_elements(std::span(x.shape).subspan(static_cast<std::size_t>(axis) + 1));
  return a;
}

Status quantize_linear_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  const View& scale = ctx.in(1);
  const bool has_zp = ctx.has_input(2);
  const DType out = has_zp ? ctx.in(2).dtype : DType::UInt8;
  if (!quantized_type(out) || !is_numeric(x.dtype)) return unsupported(ctx, "dtype");
  WEFT_TRY_ASSIGN(auto axis, quant_axis(ctx, x, scale));
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, out, x.shape));
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    const std::int64_t k = axis.of(i);
    const double zp = has_zp ? load_double(ctx.in(2), k) : 0.0;
    // Divide in float32 as the operator's float inputs do, then round half to even.
    const float q = static_cast<float>(load_double(x, i)) / static_cast<float>(load_double(scale, k));
    store_double(y, i, saturate_to(out, std::nearbyint(static_cast<double>(q)) + zp));
  }
  return {};
}

Status dequantize_linear_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  const View& scale = ctx.in(1);
  if (!is_numeric(x.dtype) || !is_numeric(scale.dtype)) return unsupported(ctx, "dtype");
  WEFT_TRY_ASSIGN(auto axis, quant_axis(ctx, x, scale));
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, scale.dtype, x.shape));
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    const std::int64_t k = axis.of(i);
    const double zp = ctx.has_input(2) ? load_double(ctx.in(2), k) : 0.0;
    store_double(y, i, static_cast<double>(static_cast<float>(load_double(x, i) - zp) * static_cast<float>(load_double(scale, k))));
  }
  return {};
}

Status dynamic_quantize_linear_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  if (!is_numeric(x.dtype)) return unsupported(ctx, "dtype");
  // The range always includes 0 so that 0 is exact; uint8 [0, 255].
  float lo = 0, hi = 0;
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    const auto v = static_cast<float>(load_double(x, i));
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const float scale = (hi - lo) / 255.0f;
  const double zp = scale != 0 ? saturate_to(DType::UInt8, static_cast<double>(0.0f - lo / scale)) : 0.0;
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, DType::UInt8, x.shape));
  WEFT_KERNEL_OUTPUT(ys, ctx.output(1, DType::Float32, {}));
  WEFT_KERNEL_OUTPUT(yzp, ctx.output(2, DType::UInt8, {}));
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    const double q = scale != 0 ? std::nearbyint(static_cast<double>(static_cast<float>(load_double(x, i)) / scale)) : 0.0;
    store_double(y, i, saturate_to(DType::UInt8, q + zp));
  }
  *ys.as<float>() = scale;
  store_double(yzp, 0, zp);
  return {};
}

/// Runs `op` ("MatMul" or "Conv") on zero-point-shifted a and b (plus an optional float64 bias).
Expected<std::pair<std::unique_ptr<ProxyContext>, std::vector<Shifted>>> integer_product(
    KernelContext& ctx, std::string_view op, const View& a, const View* a_zp, std::int64_t a_axis, const View& b,
    const View* b_zp, std::int64_t b_axis, const View* bias) {
  std::vector<Shifted> shifted_inputs;
  shifted_inputs.push_back(shifted(a, a_zp, a_axis));
  shifted_inputs.push_back(shifted(b, b_zp, b_axis));
  if (bias && bias->present()) shifted_inputs.push_back(shifted(*bias, nullptr, 0));
  std::vector<View> views;
  for (const Shifted& s : shifted_inputs) views.push_back(s.view);
  const KernelFn* fn = kernel_registry().find(op);
  if (!fn) return kernel_error(ctx, std::string(op) + " kernel missing");
  auto proxy = std::make_unique<ProxyContext>(ctx, views);
  WEFT_TRY((*fn)(*proxy));
  return std::make_pair(std::move(proxy), std::move(shifted_inputs));
}

const View* optional_input(const KernelContext& ctx, std::size_t i) { return ctx.has_input(i) ? &ctx.in(i) : nullptr; }

Status matmul_integer_kernel(KernelContext& ctx) {
  const View& a = ctx.in(0);
  const View& b = ctx.in(1);
  if (!is_numeric(a.dtype) || !is_numeric(b.dtype)) return unsupported(ctx, "dtype");
  // a's zero point runs along its rows (second-last axis), b's along its columns (last axis).
  WEFT_TRY_ASSIGN(auto r, integer_product(ctx, "MatMul", a, optional_input(ctx, 2), static_cast<std::int64_t>(a.shape.size()) - 2,
                                          b, optional_input(ctx, 3), static_cast<std::int64_t>(b.shape.size()) - 1, nullptr));
  const View& p = r.first->result();
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, DType::Int32, p.shape));
  for (std::int64_t i = 0; i < p.elements(); ++i) y.as<std::int32_t>()[i] = static_cast<std::int32_t>(p.as<const double>()[i]);
  return {};
}

Status conv_integer_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  const View& w = ctx.in(1);
  if (!is_numeric(x.dtype) || !is_numeric(w.dtype)) return unsupported(ctx, "dtype");
  WEFT_TRY_ASSIGN(auto r, integer_product(ctx, "Conv", x, optional_input(ctx, 2), 1, w, optional_input(ctx, 3), 0, nullptr));
  const View& p = r.first->result();
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, DType::Int32, p.shape));
  for (std::int64_t i = 0; i < p.elements(); ++i) y.as<std::int32_t>()[i] = static_cast<std::int32_t>(p.as<const double>()[i]);
  return {};
}

/// Requantizes an accumulation: y = saturate(round(acc · a_scale · b_scale[k] / y_scale) + y_zp).
Status requantize(KernelContext& ctx, const View& acc, const View& a_scale, const View& b_scale, std::int64_t b_inner,
                  const View& y_scale, const View& y_zp) {
  if (!quantized_type(y_zp.dtype)) return unsupported(ctx, "dtype");
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, y_zp.dtype, acc.shape));
  const std::int64_t nb = b_scale.elements();
  for (std::int64_t i = 0; i < acc.elements(); ++i) {
    const double bs = load_double(b_scale, nb > 1 ? (i / b_inner) % nb : 0);
    const auto m = static_cast<float>(load_double(a_scale, 0) * bs / load_double(y_scale, 0));
    const double v = static_cast<double>(static_cast<float>(acc.as<const double>()[i]) * m);
    store_double(y, i, saturate_to(y_zp.dtype, std::nearbyint(v) + load_double(y_zp, 0)));
  }
  return {};
}

Status qlinear_matmul_kernel(KernelContext& ctx) {
  const View& a = ctx.in(0);
  const View& b = ctx.in(3);
  if (!is_numeric(a.dtype) || !is_numeric(b.dtype)) return unsupported(ctx, "dtype");
  WEFT_TRY_ASSIGN(auto r, integer_product(ctx, "MatMul", a, &ctx.in(2), static_cast<std::int64_t>(a.shape.size()) - 2, b,
                                          &ctx.in(5), static_cast<std::int64_t>(b.shape.size()) - 1, nullptr));
  return requantize(ctx, r.first->result(), ctx.in(1), ctx.in(4), 1, ctx.in(6), ctx.in(7));
}

Status qlinear_conv_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  const View& w = ctx.in(3);
  if (!is_numeric(x.dtype) || !is_numeric(w.dtype)) return unsupported(ctx, "dtype");
  WEFT_TRY_ASSIGN(auto r, integer_product(ctx, "Conv", x, &ctx.in(2), 1, w, &ctx.in(5), 0, optional_input(ctx, 8)));
  const View& acc = r.first->result();
  const std::int64_t per_channel = acc.shape.size() >= 2 ? shape_elements(std::span(acc.shape).subspan(2)) : 1;
  return requantize(ctx, acc, ctx.in(1), ctx.in(4), per_channel, ctx.in(6), ctx.in(7));
}

}  // namespace

void register_quant_kernels(KernelRegistry& r) {
  r.add("ConvInteger", conv_integer_kernel);
  r.add("DequantizeLinear", dequantize_linear_kernel);
  r.add("DynamicQuantizeLinear", dynamic_quantize_linear_kernel);
  r.add("MatMulInteger", matmul_integer_kernel);
  r.add("QLinearConv", qlinear_conv_kernel);
  r.add("QLinearMatMul", qlinear_matmul_kernel);
  r.add("QuantizeLinear", quantize_linear_kernel);
}

}  // namespace weft::core::detail
