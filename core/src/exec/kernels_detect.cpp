// Detection kernels: NonMaxSuppression (greedy, per batch and class), RoiAlign (bilinear samples
// averaged or maxed per bin, as Mask R-CNN's RoIAlign), GridSample (2-D, bilinear / nearest /
// bicubic, zeros / border / reflection padding, as PyTorch's grid_sample). Computed in double.
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "kernel.h"

namespace weft::core::detail {
namespace {

Status nms_kernel(KernelContext& ctx) {
  const View& boxes = ctx.in(0);
  const View& scores = ctx.in(1);
  if (boxes.shape.size() != 3 || boxes.shape[2] != 4 || scores.shape.size() != 3 || scores.shape[0] != boxes.shape[0] ||
      scores.shape[2] != boxes.shape[1])
    return kernel_error(ctx, "boxes must be [batch, boxes, 4] and scores [batch, classes, boxes]");
  if (!is_numeric(boxes.dtype) || !is_numeric(scores.dtype)) return unsupported(ctx, "dtype");
  std::int64_t max_out = 0;
  double iou_threshold = 0, score_threshold = -INFINITY;
  if (ctx.has_input(2) && ctx.in(2).elements() > 0) max_out = static_cast<std::int64_t>(load_double(ctx.in(2), 0));
  if (ctx.has_input(3) && ctx.in(3).elements() > 0) iou_threshold = load_double(ctx.in(3), 0);
  const bool has_score_threshold = ctx.has_input(4) && ctx.in(4).elements() > 0;
  if (has_score_threshold) score_threshold = load_double(ctx.in(4), 0);
  const bool center = ctx.node().attr_int("center_point_box", 0) != 0;
  const std::int64_t batches = boxes.shape[0], n = boxes.shape[1], classes = scores.shape[1];

  // Corners (y1, x1, y2, x2) with y1 <= y2 and x1 <= x2, whatever the box format or order.
  auto corners = [&](std::int64_t b, std::int64_t i) {
    std::array<double, 4> v;
    for (int k = 0; k < 4; ++k) v[static_cast<std::size_t>(k)] = load_double(boxes, (b * n + i) * 4 + k);
    if (center) {  // (x_center, y_center, width, height)
      return std::array<double, 4>{v[1] - v[3] / 2, v[0] - v[2] / 2, v[1] + v[3] / 2, v[0] + v[2] / 2};
    }
    return std::array<double, 4>{std::min(v[0], v[2]), std::min(v[1], v[3]), std::max(v[0], v[2]), std::max(v[1], v[3])};
  };
  auto iou = [](const std::array<double, 4>& a, const std::array<double, 4>& b) {
    const double ih = std::min(a[2], b[2]) - std::max(a[0], b[0]);
    const double iw = std::min(a[3], b[3]) - std::max(a[1], b[1]);
    if (ih <= 0 || iw <= 0) return 0.0;
    const double inter = ih * iw;
    const double uni = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
    return uni > 0 ? inter / uni : 0.0;
  };

  std::vector<std::array<std::int64_t, 3>> selected;
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::vector<std::array<double, 4>> box(static_cast<std::size_t>(n));
  for (std::int64_t b = 0; b < batches; ++b) {
    for (std::int64_t i = 0; i < n; ++i) box[static_cast<std::size_t>(i)] = corners(b, i);
    for (std::int64_t c = 0; c < classes; ++c) {
      auto score = [&](std::int64_t i) { return load_double(scores, (b * classes + c) * n + i); };
      order.clear();
      for (std::int64_t i = 0; i < n; ++i)
        if (!has_score_threshold || score(i) > score_threshold) order.push_back(i);
      std::stable_sort(order.begin(), order.end(), [&](std::int64_t x, std::int64_t y) { return score(x) > score(y); });
      std::vector<std::int64_t> kept;
      for (std::int64_t i : order) {
        if (static_cast<std::int64_t>(kept.size()) >= max_out) break;
        bool keep = true;
        for (std::int64_t k : kept)
          if (iou(box[static_cast<std::size_t>(i)], box[static_cast<std::size_t>(k)]) > iou_threshold) {
            keep = false;
            break;
          }
        if (keep) kept.push_back(i);
      }
      for (std::int64_t i : kept) selected.push_back({b, c, i});
    }
  }
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, DType::Int64, {static_cast<std::int64_t>(selected.size()), 3}));
  for (std::size_t s = 0; s < selected.size(); ++s)
    for (std::size_t k = 0; k < 3; ++k) y.as<std::int64_t>()[s * 3 + k] = selected[s][k];
  return {};
}

Status roi_align_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  const View& rois = ctx.in(1);
  std::vector<std::int64_t> batch_index;
  if (x.shape.size() != 4 || rois.shape.size() != 2 || rois.shape[1] != 4 || !read_ints(ctx.in(2), batch_index) ||
      static_cast<std::int64_t>(batch_index.size()) != rois.shape[0])
    return kernel_error(ctx, "X must be [N, C, H, W], rois [R, 4] and batch_indices [R] int64");
  if (!is_numeric(x.dtype) || !is_numeric(rois.dtype)) return unsupported(ctx, "dtype");
  const Node& node = ctx.node();
  const std::string mode = node.attr_string("mode", "avg");
  if (mode != "avg" && mode != "max") return unsupported(ctx, "mode " + mode);
  const std::string ctm = node.attr_string("coordinate_transformation_mode", ctx.opset_before(16) ? "output_half_pixel" : "half_pixel");
  if (ctm != "half_pixel" && ctm != "output_half_pixel") return unsupported(ctx, "coordinate_transformation_mode " + ctm);
  const std::int64_t ph = node.attr_int("output_height", 1), pw = node.attr_int("output_width", 1);
  const std::int64_t ratio = node.attr_int("sampling_ratio", 0);
  const double scale = node.attr_float("spatial_scale", 1.0f);
  const double offset = ctm == "half_pixel" ? 0.5 : 0.0;
  const std::int64_t R = rois.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, {R, C, ph, pw}));
  for (std::int64_t r = 0; r < R; ++r) {
    const std::int64_t b = batch_index[static_cast<std::size_t>(r)];
    if (b < 0 || b >= x.shape[0]) return kernel_error(ctx, "batch index out of range");
    const double x1 = load_double(rois, r * 4) * scale - offset, y1 = load_double(rois, r * 4 + 1) * scale - offset;
    const double x2 = load_double(rois, r * 4 + 2) * scale - offset, y2 = load_double(rois, r * 4 + 3) * scale - offset;
    double rw = x2 - x1, rh = y2 - y1;
    if (ctm == "output_half_pixel") {
      rw = std::max(rw, 1.0);
      rh = std::max(rh, 1.0);
    }
    const double bh = rh / static_cast<double>(ph), bw = rw / static_cast<double>(pw);
    const std::int64_t gh = ratio > 0 ? ratio : static_cast<std::int64_t>(std::ceil(rh / static_cast<double>(ph)));
    const std::int64_t gw = ratio > 0 ? ratio : static_cast<std::int64_t>(std::ceil(rw / static_cast<double>(pw)));
    const double count = static_cast<double>(std::max<std::int64_t>(gh * gw, 1));
    for (std::int64_t c = 0; c < C; ++c) {
      const std::int64_t plane = (b * C + c) * H * W;
      for (std::int64_t i = 0; i < ph; ++i)
        for (std::int64_t j = 0; j < pw; ++j) {
          double acc = 0;
          bool any = false;
          for (std::int64_t iy = 0; iy < gh; ++iy) {
            double yy = y1 + static_cast<double>(i) * bh + (static_cast<double>(iy) + 0.5) * bh / static_cast<double>(gh);
            for (std::int64_t ix = 0; ix < gw; ++ix) {
              double xx = x1 + static_cast<double>(j) * bw + (static_cast<double>(ix) + 0.5) * bw / static_cast<double>(gw);
              if (yy < -1.0 || yy > static_cast<double>(H) || xx < -1.0 || xx > static_cast<double>(W)) {
                any = true;  // a sample outside the map contributes zero
                acc = mode == "max" ? std::max(acc, 0.0) : acc;
                continue;
              }
              double sy = std::max(yy, 0.0), sx = std::max(xx, 0.0);
              auto y_lo = static_cast<std::int64_t>(sy), x_lo = static_cast<std::int64_t>(sx);
              std::int64_t y_hi = y_lo + 1, x_hi = x_lo + 1;
              if (y_lo >= H - 1) y_hi = y_lo = H - 1, sy = static_cast<double>(y_lo);
              if (x_lo >= W - 1) x_hi = x_lo = W - 1, sx = static_cast<double>(x_lo);
              const double ly = sy - static_cast<double>(y_lo), lx = sx - static_cast<double>(x_lo), hy = 1 - ly, hx = 1 - lx;
              const double v1 = hy * hx * load_double(x, plane + y_lo * W + x_lo), v2 = hy * lx * load_double(x, plane + y_lo * W + x_hi);
              const double v3 = ly * hx * load_double(x, plane + y_hi * W + x_lo), v4 = ly * lx * load_double(x, plane + y_hi * W + x_hi);
              if (mode == "avg") {
                acc += v1 + v2 + v3 + v4;
              } else {
                const double m = std::max({v1, v2, v3, v4});
                acc = any ? std::max(acc, m) : m;
              }
              any = true;
            }
          }
          store_double(y, ((r * C + c) * ph + i) * pw + j, mode == "avg" ? acc / count : acc);
        }
    }
  }
  return {};
}

// ---- GridSample (PyTorch's grid_sampler_2d semantics) ----

double unnormalize(double coord, std::int64_t size, bool align) {
  return align ? (coord + 1) / 2 * static_cast<double>(size - 1) : ((coord + 1) * static_cast<double>(size) - 1) / 2;
}

double reflect(double v, double twice_low, double twice_high) {
  if (twice_low == twice_high) return 0;
  const double lo = twice_low / 2, span = (twice_high - twice_low) / 2;
  v = std::fabs(v - lo);
  const double extra = std::fmod(v, span);
  const auto flips = static_cast<std::int64_t>(std::floor(v / span));
  return flips % 2 == 0 ? extra + lo : span - extra + lo;
}

/// Applies the padding mode to a source coordinate (border: clip; reflection: fold, then clip).
double pad_coordinate(double v, std::int64_t size, const std::string& padding, bool align) {
  const double hi = static_cast<double>(size - 1);
  if (padding == "border") return std::clamp(v, 0.0, hi);
  if (padding == "reflection") {
    v = align ? reflect(v, 0, 2 * hi) : reflect(v, -1, 2 * static_cast<double>(size) - 1);
    return std::clamp(v, 0.0, hi);
  }
  return v;
}

double cubic1(double t, double a) { return ((a + 2) * t - (a + 3)) * t * t + 1; }
double cubic2(double t, double a) { return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a; }

Status grid_sample_kernel(KernelContext& ctx) {
  const View& x = ctx.in(0);
  const View& grid = ctx.in(1);
  if (x.shape.size() != 4 || grid.shape.size() != 4 || grid.shape[3] != 2 || grid.shape[0] != x.shape[0])
    return unsupported(ctx, "only 2-D sampling: X [N, C, H, W] and grid [N, H_out, W_out, 2]");
  if (!is_numeric(x.dtype) || !is_numeric(grid.dtype)) return unsupported(ctx, "dtype");
  const Node& node = ctx.node();
  const std::string mode = node.attr_string("mode", "bilinear");
  const std::string padding = node.attr_string("padding_mode", "zeros");
  const bool align = node.attr_int("align_corners", 0) != 0;
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic") return unsupported(ctx, "mode " + mode);
  if (padding != "zeros" && padding != "border" && padding != "reflection") return unsupported(ctx, "padding_mode " + padding);
  const std::int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3], Ho = grid.shape[1], Wo = grid.shape[2];
  WEFT_KERNEL_OUTPUT(y, ctx.output(0, x.dtype, {N, C, Ho, Wo}));
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t c = 0; c < C; ++c) {
      const std::int64_t plane = (n * C + c) * H * W;
      auto at = [&](std::int64_t yy, std::int64_t xx) {
        return yy >= 0 && yy < H && xx >= 0 && xx < W ? load_double(x, plane + yy * W + xx) : 0.0;
      };
      // A tap of the bicubic stencil: padded per tap, zero outside.
      auto tap = [&](std::int64_t yy, std::int64_t xx) {
        const double py = pad_coordinate(static_cast<double>(yy), H, padding, align);
        const double px = pad_coordinate(static_cast<double>(xx), W, padding, align);
        return at(static_cast<std::int64_t>(py), static_cast<std::int64_t>(px)) *
               (padding == "zeros" && (yy < 0 || yy >= H || xx < 0 || xx >= W) ? 0.0 : 1.0);
      };
      for (std::int64_t i = 0; i < Ho; ++i)
        for (std::int64_t j = 0; j < Wo; ++j) {
          const std::int64_t g = ((n * Ho + i) * Wo + j) * 2;
          double sx = unnormalize(load_double(grid, g), W, align), sy = unnormalize(load_double(grid, g + 1), H, align);
          double v = 0;
          if (mode == "bicubic") {
            const double fx = std::floor(sx), fy = std::floor(sy), tx = sx - fx, ty = sy - fy;
            const double a = -0.75;
            const std::array<double, 4> wx = {cubic2(tx + 1, a), cubic1(tx, a), cubic1(1 - tx, a), cubic2(2 - tx, a)};
            const std::array<double, 4> wy = {cubic2(ty + 1, a), cubic1(ty, a), cubic1(1 - ty, a), cubic2(2 - ty, a)};
            const auto x0 = static_cast<std::int64_t>(fx) - 1, y0 = static_cast<std::int64_t>(fy) - 1;
            for (std::size_t r = 0; r < 4; ++r) {
              double row = 0;
              for (std::size_t k = 0; k < 4; ++k) row += wx[k] * tap(y0 + static_cast<std::int64_t>(r), x0 + static_cast<std::int64_t>(k));
              v += wy[r] * row;
            }
          } else {
            sx = pad_coordinate(sx, W, padding, align);
            sy = pad_coordinate(sy, H, padding, align);
            if (mode == "nearest") {
              v = at(static_cast<std::int64_t>(std::nearbyint(sy)), static_cast<std::int64_t>(std::nearbyint(sx)));
            } else {
              const double fx = std::floor(sx), fy = std::floor(sy), lx = sx - fx, ly = sy - fy;
              const auto x0 = static_cast<std::int64_t>(fx), y0 = static_cast<std::int64_t>(fy);
              v = (1 - ly) * ((1 - lx) * at(y0, x0) + lx * at(y0, x0 + 1)) + ly * ((1 - lx) * at(y0 + 1, x0) + lx * at(y0 + 1, x0 + 1));
            }
          }
          store_double(y, ((n * C + c) * Ho + i) * Wo + j, v);
        }
    }
  return {};
}

}  // namespace

void register_detect_kernels(KernelRegistry& r) {
  r.add("GridSample", grid_sample_kernel);
  r.add("NonMaxSuppression", nms_kernel);
  r.add("RoiAlign", roi_align_kernel);
}

}  // namespace weft::core::detail
