// Recurrent kernels: RNN, GRU and LSTM as ONNX defines them (gate orders z-r-h and i-o-f-c,
// forward / reverse / bidirectional, sequence_lens, initial states, peepholes, clip, custom
// activations with their alpha/beta, layout 0 and 1, GRU's linear_before_reset). One time step
// at a time in double; a reference, not a fused cell.
#include <algorithm>
#include <cmath>

#include "kernel.h"

namespace weft::core::detail {
namespace {

struct Activation {
  std::string name;
  double alpha = 0, beta = 0;
  double operator()(double x) const {
    if (name == "Sigmoid") return 1 / (1 + std::exp(-x));
    if (name == "Tanh") return std::tanh(x);
    if (name == "Relu") return std::max(x, 0.0);
    if (name == "Affine") return alpha * x + beta;
    if (name == "LeakyRelu") return x >= 0 ? x : alpha * x;
    if (name == "ThresholdedRelu") return x > alpha ? x : 0;
    if (name == "ScaledTanh") return alpha * std::tanh(beta * x);
    if (name == "HardSigmoid") return std::clamp(alpha * x + beta, 0.0, 1.0);
    if (name == "Elu") return x >= 0 ? x : alpha * (std::exp(x) - 1);
    if (name == "Softsign") return x / (1 + std::fabs(x));
    if (name == "Softplus") return std::log1p(std::exp(x));
    return x;
  }
};

bool known_activation(const std::string& n) {
  for (const char* k : {"Sigmoid", "Tanh", "Relu", "Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh", "HardSigmoid", "Elu",
                        "Softsign", "Softplus"})
    if (n == k) return true;
  return false;
}

/// The per-direction activations (count per direction), with defaults and alpha/beta consumed
/// in order by the activations that take them.
Status activations(const KernelContext& ctx, std::size_t per_dir, std::size_t dirs, const std::vector<std::string>& defaults,
                   std::vector<Activation>& out) {
  const Attribute* names = ctx.node().attribute("activations");
  const Attribute* alphas = ctx.node().attribute("activation_alpha");
  const Attribute* betas = ctx.node().attribute("activation_beta");
  std::size_t ai = 0, bi = 0;
  for (std::size_t k = 0; k < per_dir * dirs; ++k) {
    Activation a;
    a.name = names && k < names->strings.size() ? names->strings[k] : defaults[k % per_dir];
    if (!known_activation(a.name)) return unsupported(ctx, "activation " + a.name);
    const bool takes_alpha = a.name == "Affine" || a.name == "LeakyRelu" || a.name == "ThresholdedRelu" || a.name == "ScaledTanh" ||
                             a.name == "HardSigmoid" || a.name == "Elu";
    const bool takes_beta = a.name == "Affine" || a.name == "ScaledTanh" || a.name == "HardSigmoid";
    a.alpha = a.name == "LeakyRelu" ? 0.01 : a.name == "HardSigmoid" ? 0.2 : 1.0;
    a.beta = a.name == "HardSigmoid" ? 0.5 : a.name == "Affine" ? 0.0 : 1.0;
    if (takes_alpha && alphas && ai < alphas->floats.size()) a.alpha = alphas->floats[ai++];
    if (takes_beta && betas && bi < betas->floats.size()) a.beta = betas->floats[bi++];
    out.push_back(a);
  }
  return {};
}

enum class Cell { Rnn, Gru, Lstm };

Status recurrent_kernel(KernelContext& ctx, Cell cell) {
  const Node& node = ctx.node();
  const View& X = ctx.in(0);
  const View& W = ctx.in(1);
  const View& R = ctx.in(2);
  for (const View* v : {&X, &W, &R})
    if (!is_numeric(v->dtype)) return unsupported(ctx, "dtype");
  if (X.shape.size() != 3 || W.shape.size() != 3 || R.shape.size() != 3) return kernel_error(ctx, "X, W and R must be 3-D");
  const std::int64_t layout = node.attr_int("layout", 0);
  const std::int64_t T = layout ? X.shape[1] : X.shape[0], B = layout ? X.shape[0] : X.shape[1], I = X.shape[2];
  const std::string direction = node.attr_string("direction", "forward");
  const std::int64_t dirs = direction == "bidirectional" ? 2 : 1;
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional") return kernel_error(ctx, "unknown direction");
  const std::int64_t G = cell == Cell::Rnn ? 1 : cell == Cell::Gru ? 3 : 4;
  const std::int64_t H = node.attr_int("hidden_size", R.shape[2]);
  if (W.shape[0] != dirs || W.shape[1] != G * H || W.shape[2] != I || R.shape[1] != G * H || R.shape[2] != H)
    return kernel_error(ctx, "W or R does not match hidden_size, the input size or the direction");
  const Attribute* clip_attr = node.attribute("clip");
  const double clip = clip_attr ? clip_attr->f : 0.0;
  const bool linear_before_reset = node.attr_int("linear_before_reset", 0) != 0;
  const bool input_forget = node.attr_int("input_forget", 0) != 0;

  std::vector<Activation> act;
  const std::vector<std::string> defaults = cell == Cell::Rnn   ? std::vector<std::string>{"Tanh"}
                                            : cell == Cell::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                                : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  WEFT_TRY(activations(ctx, defaults.size(), static_cast<std::size_t>(dirs), defaults, act));

  std::vector<double> x, w, r, bias, h0, c0, peep;
  read_doubles(X, x);
  read_doubles(W, w);
  read_doubles(R, r);
  if (ctx.has_input(3) && !read_doubles(ctx.in(3), bias)) return unsupported(ctx, "dtype");
  std::vector<std::int64_t> lens;
  if (ctx.has_input(4) && !read_ints(ctx.in(4), lens)) return kernel_error(ctx, "sequence_lens must be int32");
  if (ctx.has_input(5) && !read_doubles(ctx.in(5), h0)) return unsupported(ctx, "dtype");
  if (cell == Cell::Lstm && ctx.has_input(6) && !read_doubles(ctx.in(6), c0)) return unsupported(ctx, "dtype");
  if (cell == Cell::Lstm && ctx.has_input(7) && !read_doubles(ctx.in(7), peep)) return unsupported(ctx, "dtype");
  if (!bias.empty() && static_cast<std::int64_t>(bias.size()) != dirs * 2 * G * H) return kernel_error(ctx, "B must be [dirs, 2·gates·hidden]");
  if (!h0.empty() && static_cast<std::int64_t>(h0.size()) != dirs * B * H) return kernel_error(ctx, "initial_h must be [dirs, batch, hidden]");
  if (!c0.empty() && static_cast<std::int64_t>(c0.size()) != dirs * B * H) return kernel_error(ctx, "initial_c must be [dirs, batch, hidden]");
  if (!peep.empty() && static_cast<std::int64_t>(peep.size()) != dirs * 3 * H) return kernel_error(ctx, "P must be [dirs, 3·hidden]");
  if (!lens.empty() && static_cast<std::int64_t>(lens.size()) != B) return kernel_error(ctx, "sequence_lens must be [batch]");

  // Y: [T, dirs, B, H] (layout 0) or [B, T, dirs, H]; Y_h / Y_c: [dirs, B, H] or [B, dirs, H].
  std::vector<double> y(static_cast<std::size_t>(T * dirs * B * H), 0.0), yh(static_cast<std::size_t>(dirs * B * H)), yc(yh.size());
  auto y_at = [&](std::int64_t t, std::int64_t d, std::int64_t b) -> double* {
    return &y[static_cast<std::size_t>((layout ? ((b * T + t) * dirs + d) : ((t * dirs + d) * B + b)) * H)];
  };
  auto x_at = [&](std::int64_t t, std::int64_t b) { return &x[static_cast<std::size_t>((layout ? b * T + t : t * B + b) * I)]; };
  auto state_index = [&](std::int64_t d, std::int64_t b) { return static_cast<std::size_t>((layout ? b * dirs + d : d * B + b) * H); };

  std::vector<double> gx(static_cast<std::size_t>(G * H)), gh(static_cast<std::size_t>(G * H));
  for (std::int64_t d = 0; d < dirs; ++d) {
    const bool reverse = direction == "reverse" || d == 1;
    const double* Wd = &w[static_cast<std::size_t>(d * G * H * I)];
    const double* Rd = &r[static_cast<std::size_t>(d * G * H * H)];
    const double* Wb = bias.empty() ? nullptr : &bias[static_cast<std::size_t>(d * 2 * G * H)];
    const double* Rb = Wb ? Wb + G * H : nullptr;
    const double* P = peep.empty() ? nullptr : &peep[static_cast<std::size_t>(d * 3 * H)];
    const Activation* a = &act[static_cast<std::size_t>(d) * defaults.size()];
    for (std::int64_t b = 0; b < B; ++b) {
      std::vector<double> h(static_cast<std::size_t>(H), 0.0), c(static_cast<std::size_t>(H), 0.0);
      if (!h0.empty()) std::copy_n(&h0[static_cast<std::size_t>((d * B + b) * H)], H, h.begin());
      if (!c0.empty()) std::copy_n(&c0[static_cast<std::size_t>((d * B + b) * H)], H, c.begin());
      const std::int64_t len = lens.empty() ? T : std::clamp<std::int64_t>(lens[static_cast<std::size_t>(b)], 0, T);
      for (std::int64_t step = 0; step < len; ++step) {
        const std::int64_t t = reverse ? len - 1 - step : step;
        const double* xt = x_at(t, b);
        // gx = W·x_t + Wb; gh = R·h + Rb, per gate row.
        for (std::int64_t k = 0; k < G * H; ++k) {
          double sx = Wb ? Wb[k] : 0.0, sh = Rb ? Rb[k] : 0.0;
          for (std::int64_t i = 0; i < I; ++i) sx += Wd[k * I + i] * xt[i];
          for (std::int64_t j = 0; j < H; ++j) sh += Rd[k * H + j] * h[static_cast<std::size_t>(j)];
          gx[static_cast<std::size_t>(k)] = sx;
          gh[static_cast<std::size_t>(k)] = sh;
        }
        auto clipped = [&](double v) { return clip > 0 ? std::clamp(v, -clip, clip) : v; };
        std::vector<double> next(static_cast<std::size_t>(H));
        if (cell == Cell::Rnn) {
          for (std::int64_t j = 0; j < H; ++j) next[static_cast<std::size_t>(j)] = a[0](clipped(gx[static_cast<std::size_t>(j)] + gh[static_cast<std::size_t>(j)]));
        } else if (cell == Cell::Gru) {
          std::vector<double> z(static_cast<std::size_t>(H)), rg(static_cast<std::size_t>(H));
          for (std::int64_t j = 0; j < H; ++j) {
            const auto z_i = static_cast<std::size_t>(j), r_i = static_cast<std::size_t>(H + j);
            z[z_i] = a[0](clipped(gx[z_i] + gh[z_i]));
            rg[z_i] = a[0](clipped(gx[r_i] + gh[r_i]));
          }
          for (std::int64_t j = 0; j < H; ++j) {
            const auto ji = static_cast<std::size_t>(j), h_i = static_cast<std::size_t>(2 * H + j);
            double s = gh[h_i];
            if (!linear_before_reset) {
              // (r ⊙ h)·R_hᵀ + Rb_h: the candidate's recurrent product on the reset state.
              s = Rb ? Rb[2 * H + j] : 0.0;
              for (std::int64_t m = 0; m < H; ++m) s += Rd[(2 * H + j) * H + m] * rg[static_cast<std::size_t>(m)] * h[static_cast<std::size_t>(m)];
            } else {
              s *= rg[ji];
            }
            const double hh = a[1](clipped(gx[h_i] + s));
            next[ji] = (1 - z[ji]) * hh + z[ji] * h[ji];
          }
        } else {
          for (std::int64_t j = 0; j < H; ++j) {
            const auto ji = static_cast<std::size_t>(j);
            const double cp = c[ji];
            double ig = gx[ji] + gh[ji] + (P ? P[j] * cp : 0.0);
            double fg = gx[static_cast<std::size_t>(2 * H + j)] + gh[static_cast<std::size_t>(2 * H + j)] + (P ? P[2 * H + j] * cp : 0.0);
            const double cg = a[1](clipped(gx[static_cast<std::size_t>(3 * H + j)] + gh[static_cast<std::size_t>(3 * H + j)]));
            fg = a[0](clipped(fg));
            ig = input_forget ? 1 - fg : a[0](clipped(ig));
            const double cn = fg * cp + ig * cg;
            const double og = a[0](clipped(gx[static_cast<std::size_t>(H + j)] + gh[static_cast<std::size_t>(H + j)] + (P ? P[H + j] * cn : 0.0)));
            c[ji] = cn;
            next[ji] = og * a[2](cn);
          }
        }
        h = next;
        std::copy(h.begin(), h.end(), y_at(t, d, b));
      }
      std::copy(h.begin(), h.end(), yh.begin() + static_cast<std::ptrdiff_t>(state_index(d, b)));
      std::copy(c.begin(), c.end(), yc.begin() + static_cast<std::ptrdiff_t>(state_index(d, b)));
    }
  }
  const DType dtype = X.dtype;
  auto write = [&](std::size_t i, const std::vector<double>& v, Shape shape) -> Status {
    if (!ctx.wants_output(i)) return {};
    WEFT_KERNEL_OUTPUT(out, ctx.output(i, dtype, std::move(shape)));
    for (std::size_t k = 0; k < v.size(); ++k) store_double(out, static_cast<std::int64_t>(k), v[k]);
    return {};
  };
  WEFT_TRY(write(0, y, layout ? Shape{B, T, dirs, H} : Shape{T, dirs, B, H}));
  WEFT_TRY(write(1, yh, layout ? Shape{B, dirs, H} : Shape{dirs, B, H}));
  if (cell == Cell::Lstm)
    WEFT_TRY(write(2, yc, layout ? Shape{B, dirs, H} : Shape{dirs, B, H}));
  return {};
}

}  // namespace

void register_rnn_kernels(KernelRegistry& r) {
  r.add("GRU", [](KernelContext& ctx) { return recurrent_kernel(ctx, Cell::Gru); });
  r.add("LSTM", [](KernelContext& ctx) { return recurrent_kernel(ctx, Cell::Lstm); });
  r.add("RNN", [](KernelContext& ctx) { return recurrent_kernel(ctx, Cell::Rnn); });
}

}  // namespace weft::core::detail
