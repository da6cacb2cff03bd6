// Loss kernels: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (log-softmax over axis 1,
// then the same gather), with class weights, ignore_index and none/sum/mean reduction, as ONNX
// defines them. Computed in double.
#include <algorithm>
#include <cmath>

#include "kernel.h"

namespace weft::core::detail {
namespace {

/// loss[n, d] = -w[t] · logp[n, t, d] with t = target[n, d] (w = 0 where t == ignore_index),
/// then reduced. logp is [N, C, D] (D = product of the trailing dims).
Status nll(KernelContext& ctx, const std::vector<double>& logp, const Shape& input_shape, DType dtype) {
  const View& target = ctx.in(1);
  std::vector<std::int64_t> t;
  if (!read_ints(target, t)) return kernel_error(ctx, "target must be int32 or int64");
  if (input_shape.size() < 2) return kernel_error(ctx, "input must be [N, C, ...]");
  const std::int64_t N = input_shape[0], C = input_shape[1];
  const std::int64_t D = N != 0 && C != 0 ? static_cast<std::int64_t>(logp.size()) / (N * C) : 0;
  if (static_cast<std::int64_t>(t.size()) != N * D) return kernel_error(ctx, "target must be [N, ...] matching the input");
  std::vector<double> weight;
  if (ctx.has_input(2) && (!read_doubles(ctx.in(2), weight) || static_cast<std::int64_t>(weight.size()) != C))
    return kernel_error(ctx, "weight must hold one value per class");
  const Attribute* ignore_attr = ctx.node().attribute("ignore_index");
  const std::string reduction = ctx.node().attr_string("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") return kernel_error(ctx, "reduction must be none, sum or mean");
  std::vector<double> loss(static_cast<std::size_t>(N * D));
  double weight_sum = 0;
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t d = 0; d < D; ++d) {
      const std::int64_t c = t[static_cast<std::size_t>(n * D + d)];
      double w = 1;
      if (ignore_attr && c == ignore_attr->i) {
        w = 0;
      } else {
        if (c < 0 || c >= C) return kernel_error(ctx, "target class out of range");
        if (!weight.empty()) w = weight[static_cast<std::size_t>(c)];
      }
      const double v = w == 0 ? 0.0 : -logp[static_cast<std::size_t>((n * C + c) * D + d)] * w;
      loss[static_cast<std::size_t>(n * D + d)] = v;
      weight_sum += w;
    }
  if (reduction == "none") {
    WEFT_KERNEL_OUTPUT(y, ctx.output(0, dtype, target.shape));
    for (std::size_t i = 0; i < loss.size(); ++i) store_double(y, static_cast<std::int64_t>(i), loss[i]);
    return {};
  }
  double total = 0;
  for (double v : loss) total += v;
  if (reduction == "mean") {
    // Weighted (or with ignored entries): divide by the weights that took part, else by the count.
    const bool weighted = !weight.empty() || ignore_attr;
    total /= weighted ? weight_sum : static_cast<double>(loss.size());
  }
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, dtype, {}));
  store_double(y, 0, total);
  return {};
}

Status nll_loss_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  std::vector<double> v;
  if (!read_doubles(x, v) || !is_numeric(x.dtype)) return unsupported(ctx, "dtype");
  return nll(ctx, v, x.shape, x.dtype);
}

Status softmax_cross_entropy_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  std::vector<double> v;
  if (!read_doubles(x, v)) return unsupported(ctx, "dtype");
  if (x.shape.size() < 2) return kernel_error(ctx, "scores must be [N, C, ...]");
  const std::int64_t N = x.shape[0], C = x.shape[1];
  const std::int64_t D = N != 0 && C != 0 ? x.elements() / (N * C) : 0;
  // Log-softmax over the class axis, in the input's precision as the reference computes it.
  const bool f32 = x.dtype != DType::Float64;
  auto round = [&](double a) { return f32 ? static_cast<double>(static_cast<float>(a)) : a; };
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t d = 0; d < D; ++d) {
      double m = -INFINITY;
      for (std::int64_t c = 0; c < C; ++c) m = std::max(m, v[static_cast<std::size_t>((n * C + c) * D + d)]);
      double sum = 0;
      for (std::int64_t c = 0; c < C; ++c) sum += std::exp(v[static_cast<std::size_t>((n * C + c) * D + d)] - m);
      for (std::int64_t c = 0; c < C; ++c) {
        double& e = v[static_cast<std::size_t>((n * C + c) * D + d)];
        e = round(std::log(std::exp(e - m) / sum));
      }
    }
  if (ctx.wants_output(1)) {
    WEFT_KERNEL_OUTPUT(lp, ctx.output(1, x.dtype, x.shape));
    for (std::size_t i = 0; i < v.size(); ++i) store_double(lp, static_cast<std::int64_t>(i), v[i]);
  }
  return nll(ctx, v, x.shape, x.dtype);
}

}  // namespace

void register_loss_kernels(KernelRegistry& r) {
  r.add("NegativeLogLikelihoodLoss", nll_loss_kernel);
  r.add("SoftmaxCrossEntropyLoss", softmax_cross_entropy_kernel);
}

}  // namespace weft::core::detail
