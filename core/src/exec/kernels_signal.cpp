// Signal kernels: DFT and STFT (a direct O(n²) transform in double with an exact twiddle
// table; a reference, not an FFT), the Hann, Hamming and Blackman windows, MelWeightMatrix.
#include <cmath>
#include <numbers>

#include "kernel.h"

namespace weft::core::detail {
namespace {

/// A scalar integer input (any integer dtype).
bool scalar_int(const View& v, std::int64_t& out) {
  if (v.elements() != 1 || !is_numeric(v.dtype)) return false;
  out = static_cast<std::int64_t>(load_double(v, 0));
  return true;
}

/// One transform of length n over complex input (re, im) with `count` valid samples (zero beyond),
/// writing `bins` output bins. Angles come from k·j mod n so that cos/sin stay exact for large k·j.
void dft_1d(const std::vector<double>& re, const std::vector<double>& im, std::int64_t n, std::int64_t bins, bool inverse,
            std::vector<double>& out_re, std::vector<double>& out_im) {
  out_re.assign(static_cast<std::size_t>(bins), 0.0);
  out_im.assign(static_cast<std::size_t>(bins), 0.0);
  if (n == 0) return;
  std::vector<double> c(static_cast<std::size_t>(n)), s(static_cast<std::size_t>(n));
  for (std::int64_t m = 0; m < n; ++m) {
    const double a = 2 * std::numbers::pi * static_cast<double>(m) / static_cast<double>(n);
    c[static_cast<std::size_t>(m)] = std::cos(a);
    s[static_cast<std::size_t>(m)] = inverse ? std::sin(a) : -std::sin(a);
  }
  const auto count = static_cast<std::int64_t>(re.size());
  for (std::int64_t k = 0; k < bins; ++k) {
    double sr = 0, si = 0;
    for (std::int64_t j = 0; j < count; ++j) {
      const auto m = static_cast<std::size_t>((k * j) % n);
      const double xr = re[static_cast<std::size_t>(j)], xi = im[static_cast<std::size_t>(j)];
      sr += xr * c[m] - xi * s[m];
      si += xr * s[m] + xi * c[m];
    }
    const double scale = inverse ? 1.0 / static_cast<double>(n) : 1.0;
    out_re[static_cast<std::size_t>(k)] = sr * scale;
    out_im[static_cast<std::size_t>(k)] = si * scale;
  }
}

Status dft_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  if (x.shape.size() < 3 || (x.shape.back() != 1 && x.shape.back() != 2)) return kernel_error(ctx, "input must be [batch, ..., 1 or 2]");
  const bool complex_in = x.shape.back() == 2;
  const bool inverse = ctx.node().attr_int("inverse", 0) != 0;
  const bool onesided = ctx.node().attr_int("onesided", 0) != 0;
  std::int64_t axis = ctx.node().attr_int("axis", 1);
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  if (axis < 0) axis += rank;
  if (axis <= 0 || axis >= rank - 1) return kernel_error(ctx, "axis must name a signal dim");
  const auto ax = static_cast<std::size_t>(axis);
  std::int64_t n = x.shape[ax];
  if (ctx.has_input(1) && !scalar_int(ctx.in(1), n)) return kernel_error(ctx, "dft_length must be a scalar integer");
  if (onesided && complex_in) return kernel_error(ctx, "onesided needs a real input");
  const std::int64_t bins = onesided ? n / 2 + 1 : n;
  Shape out = x.shape;
  out[ax] = bins;
  out.back() = 2;
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, out));
  if (!is_numeric(x.dtype)) return unsupported(ctx, "dtype");
  const std::int64_t len = x.shape[ax];
  const std::int64_t inner = shape_elements(std::span(x.shape).subspan(ax + 1, x.shape.size() - ax - 2));
  const std::int64_t outer = shape_elements(std::span(x.shape).first(ax));
  const std::int64_t comps = x.shape.back();
  const std::int64_t count = std::min(len, n);
  std::vector<double> re(static_cast<std::size_t>(count)), im(static_cast<std::size_t>(count)), ore, oim;
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      for (std::int64_t j = 0; j < count; ++j) {
        const std::int64_t at = ((o * len + j) * inner + i) * comps;
        re[static_cast<std::size_t>(j)] = load_double(x, at);
        im[static_cast<std::size_t>(j)] = complex_in ? load_double(x, at + 1) : 0.0;
      }
      dft_1d(re, im, n, bins, inverse, ore, oim);
      for (std::int64_t k = 0; k < bins; ++k) {
        const std::int64_t at = ((o * bins + k) * inner + i) * 2;
        store_double(y, at, ore[static_cast<std::size_t>(k)]);
        store_double(y, at + 1, oim[static_cast<std::size_t>(k)]);
      }
    }
  return {};
}

Status stft_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  if (x.shape.size() != 3 || (x.shape[2] != 1 && x.shape[2] != 2)) return kernel_error(ctx, "signal must be [batch, length, 1 or 2]");
  std::int64_t step = 0;
  if (!scalar_int(ctx.in(1), step) || step <= 0) return kernel_error(ctx, "frame_step must be a positive scalar");
  std::vector<double> window;
  if (ctx.has_input(2) && !read_doubles(ctx.in(2), window)) return kernel_error(ctx, "window must be numeric");
  std::int64_t frame = static_cast<std::int64_t>(window.size());
  if (ctx.has_input(3) && !scalar_int(ctx.in(3), frame)) return kernel_error(ctx, "frame_length must be a scalar integer");
  if (frame <= 0 || (!window.empty() && static_cast<std::int64_t>(window.size()) != frame))
    return kernel_error(ctx, "frame_length and window disagree (or neither is given)");
  const bool complex_in = x.shape[2] == 2;
  const bool onesided = ctx.node().attr_int("onesided", 1) != 0 && !complex_in;
  const std::int64_t len = x.shape[1];
  if (len < frame) return kernel_error(ctx, "signal shorter than one frame");
  const std::int64_t frames = (len - frame) / step + 1;
  const std::int64_t bins = onesided ? frame / 2 + 1 : frame;
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, {x.shape[0], frames, bins, 2}));
  if (!is_numeric(x.dtype)) return unsupported(ctx, "dtype");
  std::vector<double> re(static_cast<std::size_t>(frame)), im(static_cast<std::size_t>(frame)), ore, oim;
  for (std::int64_t b = 0; b < x.shape[0]; ++b)
    for (std::int64_t f = 0; f < frames; ++f) {
      for (std::int64_t j = 0; j < frame; ++j) {
        const double w = window.empty() ? 1.0 : window[static_cast<std::size_t>(j)];
        const std::int64_t at = (b * len + f * step + j) * x.shape[2];
        re[static_cast<std::size_t>(j)] = w * load_double(x, at);
        im[static_cast<std::size_t>(j)] = complex_in ? w * load_double(x, at + 1) : 0.0;
      }
      dft_1d(re, im, frame, bins, false, ore, oim);
      for (std::int64_t k = 0; k < bins; ++k) {
        const std::int64_t at = ((b * frames + f) * bins + k) * 2;
        store_double(y, at, ore[static_cast<std::size_t>(k)]);
        store_double(y, at + 1, oim[static_cast<std::size_t>(k)]);
      }
    }
  return {};
}

/// Generalised cosine window a0 - a1·cos(2πn/N) + a2·cos(4πn/N), N = size (periodic) or size - 1.
KernelFn cosine_window(double a0, double a1, double a2) {
  return [a0, a1, a2](KernelContext& ctx) -> Status {
    std::int64_t size = 0;
    if (!scalar_int(ctx.in(0), size) || size < 0) return kernel_error(ctx, "size must be a non-negative scalar");
    const auto dtype = static_cast<DType>(ctx.node().attr_int("output_datatype", static_cast<std::int64_t>(DType::Float32)));
    if (!is_numeric(dtype)) return unsupported(ctx, "output_datatype");
    WEFT_KERNEL_OUTPUT(y, ctx.output(0, dtype, {size}));
    const bool periodic = ctx.node().attr_int("periodic", 1) != 0;
    const double N = static_cast<double>(periodic ? size : size - 1);
    for (std::int64_t i = 0; i < size; ++i) {
      const double t = N > 0 ? 2 * std::numbers::pi * static_cast<double>(i) / N : 0.0;
      store_double(y, i, a0 - a1 * std::cos(t) + a2 * std::cos(2 * t));
    }
    return {};
  };
}

// Follows the reference construction of ONNX's MelWeightMatrix: num_mel_bins + 2 points evenly
// spaced on the mel scale (step = range / (num_mel_bins + 2)), mapped to DFT bins by floor
// ((dft_length + 1) · hz / sample_rate), triangles between neighbouring points.
Status mel_weight_matrix_kernel(KernelContext& ctx) {
  std::int64_t mels = 0, dft_length = 0, rate = 0;
  if (!scalar_int(ctx.in(0), mels) || !scalar_int(ctx.in(1), dft_length) || !scalar_int(ctx.in(2), rate) || mels < 0 ||
      dft_length <= 0 || rate <= 0)
    return kernel_error(ctx, "num_mel_bins, dft_length and sample_rate must be positive scalars");
  if (ctx.in(3).elements() != 1 || ctx.in(4).elements() != 1) return kernel_error(ctx, "edges must be scalars");
  const double lower = load_double(ctx.in(3), 0), upper = load_double(ctx.in(4), 0);
  const auto dtype = static_cast<DType>(ctx.node().attr_int("output_datatype", static_cast<std::int64_t>(DType::Float32)));
  if (!is_numeric(dtype)) return unsupported(ctx, "output_datatype");
  const std::int64_t spectrogram_bins = dft_length / 2 + 1;
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, dtype, {spectrogram_bins, mels}));
  auto to_mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  const double low_mel = to_mel(lower), step = (to_mel(upper) - low_mel) / static_cast<double>(mels + 2);
  std::vector<std::int64_t> bin(static_cast<std::size_t>(mels + 2));
  for (std::int64_t i = 0; i < mels + 2; ++i) {
    const double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * step + low_mel) / 2595.0) - 1.0);
    bin[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(std::floor(static_cast<double>(dft_length + 1) * hz / static_cast<double>(rate)));
  }
  std::vector<double> w(static_cast<std::size_t>(spectrogram_bins * mels), 0.0);
  auto at = [&](std::int64_t j, std::int64_t i) -> double* {
    return j >= 0 && j < spectrogram_bins ? &w[static_cast<std::size_t>(j * mels + i)] : nullptr;
  };
  for (std::int64_t i = 0; i < mels; ++i) {
    const std::int64_t lo = bin[static_cast<std::size_t>(i)], c = bin[static_cast<std::size_t>(i + 1)], hi = bin[static_cast<std::size_t>(i + 2)];
    if (c == lo) {
      if (double* p = at(c, i)) *p = 1;
    } else {
      for (std::int64_t j = lo; j <= c; ++j)
        if (double* p = at(j, i)) *p = static_cast<double>(j - lo) / static_cast<double>(c - lo);
    }
    if (hi > c)
      for (std::int64_t j = c; j < hi; ++j)
        if (double* p = at(j, i)) *p = static_cast<double>(hi - j) / static_cast<double>(hi - c);
  }
  for (std::size_t k = 0; k < w.size(); ++k) store_double(y, static_cast<std::int64_t>(k), w[k]);
  return {};
}

}  // namespace

void register_signal_kernels(KernelRegistry& r) {
  r.add("BlackmanWindow", cosine_window(0.42, 0.5, 0.08));
  r.add("DFT", dft_kernel);
  r.add("HammingWindow", cosine_window(25.0 / 46.0, 21.0 / 46.0, 0.0));
  r.add("HannWindow", cosine_window(0.5, 0.5, 0.0));
  r.add("MelWeightMatrix", mel_weight_matrix_kernel);
  r.add("STFT", stft_kernel);
}

}  // namespace weft::core::detail
