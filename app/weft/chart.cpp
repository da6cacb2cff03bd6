#include "chart.h"

// cairo's headers give the types; the library itself is loaded (dlopen) the first time a chart is
// drawn, so `weft` starts without it and its two dozen dependencies (about 9 ms on a 2-core
// machine: the startup goal is < 30 ms).
#include <cairo-svg.h>
#include <cairo.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>

namespace weft::cli {
namespace {

#define WEFT_CAIRO_FUNCTIONS(X) \
  X(cairo_arc) \
  X(cairo_clip) \
  X(cairo_create) \
  X(cairo_fill) \
  X(cairo_fill_preserve) \
  X(cairo_image_surface_create) \
  X(cairo_line_to) \
  X(cairo_move_to) \
  X(cairo_paint) \
  X(cairo_rectangle) \
  X(cairo_restore) \
  X(cairo_save) \
  X(cairo_select_font_face) \
  X(cairo_set_dash) \
  X(cairo_set_font_size) \
  X(cairo_set_line_width) \
  X(cairo_set_source_rgb) \
  X(cairo_show_text) \
  X(cairo_status) \
  X(cairo_status_to_string) \
  X(cairo_stroke) \
  X(cairo_surface_finish) \
  X(cairo_surface_status) \
  X(cairo_surface_write_to_png_stream) \
  X(cairo_svg_surface_create_for_stream) \
  X(cairo_text_extents) \
  X(cairo_surface_destroy) \
  X(cairo_destroy)

/// The cairo functions the charts call, resolved from libcairo.so.2.
struct Cairo {
#define WEFT_CAIRO_MEMBER(name) decltype(&::name) name = nullptr;
  WEFT_CAIRO_FUNCTIONS(WEFT_CAIRO_MEMBER)
#undef WEFT_CAIRO_MEMBER
};

core::Expected<const Cairo*> load_cairo() {
  static Cairo cairo;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
    // Never dlclosed: loaded once per process.
    void* handle = dlopen("libcairo.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* e = dlerror();
      error = std::string("charts are drawn with cairo, which could not be loaded (install libcairo2): ") + (e ? e : "dlopen failed");
      return;
    }
#define WEFT_CAIRO_RESOLVE(name)                                                      \
  cairo.name = reinterpret_cast<decltype(cairo.name)>(dlsym(handle, #name));          \
  if (!cairo.name && error.empty()) error = "libcairo.so.2 has no " #name " (cairo too old?)";
    WEFT_CAIRO_FUNCTIONS(WEFT_CAIRO_RESOLVE)
#undef WEFT_CAIRO_RESOLVE
    // At exit, cairo's font caches and then fontconfig's configuration are released, so that the
    // process ends with nothing left allocated (LeakSanitizer counts fontconfig's caches as leaks).
    static void (*reset_cairo)() = reinterpret_cast<void (*)()>(dlsym(handle, "cairo_debug_reset_static_data"));
    static void (*fc_fini)() = reinterpret_cast<void (*)()>(dlsym(handle, "FcFini"));
    if (reset_cairo && error.empty())
      std::atexit([] {
        reset_cairo();
        if (fc_fini) fc_fini();
      });
  });
  if (!error.empty()) return core::make_error(core::ErrorKind::Runtime, error);
  return &cairo;
}

struct Rgb {
  double r, g, b;
};
constexpr Rgb kInk{0.16, 0.16, 0.16}, kGrid{0.88, 0.88, 0.88}, kRule{0.55, 0.55, 0.55};
constexpr Rgb kPalette[] = {{0.12, 0.47, 0.71}, {1.00, 0.50, 0.05}, {0.17, 0.63, 0.17}, {0.84, 0.15, 0.16},
                            {0.58, 0.40, 0.74}, {0.55, 0.34, 0.29}, {0.89, 0.47, 0.76}, {0.09, 0.75, 0.81}};

void colour(const Cairo& C, cairo_t* cr, Rgb c) { C.cairo_set_source_rgb(cr, c.r, c.g, c.b); }

/// About six round steps over [lo, hi].
double round_step(double lo, double hi) {
  const double raw = std::max(1e-12, (hi - lo) / 6);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * mag >= raw) return m * mag;
  return 10 * mag;
}

std::string tick(double v, const std::string& suffix) {
  char buf[48];
  const double a = std::fabs(v);
  std::snprintf(buf, sizeof buf, a >= 100 || a == std::floor(a) ? "%.0f" : a >= 10 ? "%.1f" : "%.2f", v);
  return buf + suffix;
}

void text_at(const Cairo& C, cairo_t* cr, double x, double y, const std::string& s, double align_x, double align_y) {
  cairo_text_extents_t e;
  C.cairo_text_extents(cr, s.c_str(), &e);
  C.cairo_move_to(cr, x - align_x * e.width - e.x_bearing, y - align_y * e.height - e.y_bearing);
  C.cairo_show_text(cr, s.c_str());
}

/// The plot area and the data range it shows, with the mapping from data to pixels.
struct Frame {
  const Chart* chart = nullptr;
  double xlo = 0, xhi = 1, ylo = 0, yhi = 1, ystep = 1;
  double left = 90, right = 0, top = 60, bottom = 0;
  double fx(double x) const { return chart->log2_x ? std::log2(std::max(x, 1e-12)) : x; }
  double px(double x) const { return left + (fx(x) - xlo) / (xhi - xlo) * (right - left); }
  double py(double y) const { return bottom - (y - ylo) / (yhi - ylo) * (bottom - top); }
};

/// The data ranges (the rule and, optionally, zero inside), rounded to tick steps, in a
/// width x height image.
Frame frame_of(const Chart& chart, int width, int height) {
  Frame f;
  f.chart = &chart;
  const auto fx = [&](double x) { return f.fx(x); };
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  for (const ChartSeries& s : chart.series)
    for (const auto& [x, y] : s.points) {
      xlo = std::min(xlo, fx(x));
      xhi = std::max(xhi, fx(x));
      ylo = std::min(ylo, y);
      yhi = std::max(yhi, y);
    }
  if (!std::isfinite(xlo)) xlo = 0, xhi = 1, ylo = 0, yhi = 1;
  if (chart.y_rule) ylo = std::min(ylo, *chart.y_rule), yhi = std::max(yhi, *chart.y_rule);
  if (chart.y_from_zero) ylo = std::min(ylo, 0.0);
  const double yspan = std::max(yhi - ylo, std::max(1e-9, std::fabs(yhi) * 0.1));
  ylo = chart.y_from_zero && ylo >= 0 ? 0 : ylo - 0.08 * yspan;
  yhi += 0.08 * yspan;
  const double ystep = round_step(ylo, yhi);
  ylo = std::floor(ylo / ystep) * ystep;
  yhi = std::ceil(yhi / ystep) * ystep;
  if (xhi <= xlo) xlo -= 0.5, xhi += 0.5;
  const double xpad = 0.04 * (xhi - xlo);  // markers at the ends clear the axes
  xlo -= xpad;
  xhi += xpad;

  f.xlo = xlo;
  f.xhi = xhi;
  f.ylo = ylo;
  f.yhi = yhi;
  f.ystep = ystep;
  f.right = width - 30;
  f.bottom = height - 70;
  return f;
}

/// Grid, tick labels, the rule, the axes and their labels, the title.
void draw_axes(const Cairo& C, cairo_t* cr, const Chart& chart, const Frame& f) {
  const double left = f.left, right = f.right, top = f.top, bottom = f.bottom;
  const double xlo = f.xlo, xhi = f.xhi, ylo = f.ylo, yhi = f.yhi, ystep = f.ystep;
  const auto px = [&](double x) { return f.px(x); };
  const auto py = [&](double y) { return f.py(y); };
  // Grid and tick labels.
  C.cairo_set_line_width(cr, 1);
  for (double y = ylo; y <= yhi + ystep * 1e-6; y += ystep) {
    colour(C, cr, kGrid);
    C.cairo_move_to(cr, left, std::round(py(y)) + 0.5);
    C.cairo_line_to(cr, right, std::round(py(y)) + 0.5);
    C.cairo_stroke(cr);
    colour(C, cr, kInk);
    text_at(C, cr, left - 8, py(y), tick(y, chart.y_suffix), 1.0, 0.5);
  }
  std::vector<double> xt = chart.x_ticks;
  if (xt.empty()) {
    const double step = round_step(xlo, xhi);
    for (double x = std::ceil(xlo / step) * step; x <= xhi + step * 1e-6; x += step) xt.push_back(x);
  }
  for (double x : xt) {
    const double X = chart.log2_x ? px(x) : left + (x - xlo) / (xhi - xlo) * (right - left);
    colour(C, cr, kGrid);
    C.cairo_move_to(cr, std::round(X) + 0.5, top);
    C.cairo_line_to(cr, std::round(X) + 0.5, bottom);
    C.cairo_stroke(cr);
    colour(C, cr, kInk);
    text_at(C, cr, X, bottom + 8, tick(x, chart.x_suffix), 0.5, 0.0);
  }
  if (chart.y_rule) {
    colour(C, cr, kRule);
    C.cairo_set_line_width(cr, 2);
    const double dash[] = {8, 8};
    C.cairo_set_dash(cr, dash, 2, 0);
    C.cairo_move_to(cr, left, py(*chart.y_rule));
    C.cairo_line_to(cr, right, py(*chart.y_rule));
    C.cairo_stroke(cr);
    C.cairo_set_dash(cr, nullptr, 0, 0);
  }
  colour(C, cr, kInk);
  C.cairo_set_line_width(cr, 2);
  C.cairo_move_to(cr, left, top);
  C.cairo_line_to(cr, left, bottom);
  C.cairo_line_to(cr, right, bottom);
  C.cairo_stroke(cr);
  text_at(C, cr, (left + right) / 2, bottom + 34, chart.x_label, 0.5, 0.0);
  text_at(C, cr, 10, top - 22, chart.y_label, 0.0, 0.0);
  C.cairo_set_font_size(cr, 15);
  text_at(C, cr, left, 14, chart.title, 0.0, 0.0);
  C.cairo_set_font_size(cr, 13);
}

/// Each series' line, then its markers, clipped to the plot area.
void draw_series(const Cairo& C, cairo_t* cr, const Chart& chart, const Frame& f) {
  const double left = f.left, right = f.right, top = f.top, bottom = f.bottom;
  const auto px = [&](double x) { return f.px(x); };
  const auto py = [&](double y) { return f.py(y); };
  // Series: lines, then markers.
  C.cairo_save(cr);
  C.cairo_rectangle(cr, left, top - 6, right - left + 6, bottom - top + 12);
  C.cairo_clip(cr);
  for (const ChartSeries& s : chart.series) {
    const Rgb c = kPalette[static_cast<std::size_t>(s.colour) % std::size(kPalette)];
    if (s.line && s.points.size() > 1) {
      colour(C, cr, c);
      C.cairo_set_line_width(cr, 2.5);
      const double dash[] = {10, 6};
      if (s.dashed) C.cairo_set_dash(cr, dash, 2, 0);
      C.cairo_move_to(cr, px(s.points[0].first), py(s.points[0].second));
      for (std::size_t i = 1; i < s.points.size(); ++i) C.cairo_line_to(cr, px(s.points[i].first), py(s.points[i].second));
      C.cairo_stroke(cr);
      C.cairo_set_dash(cr, nullptr, 0, 0);
    }
    if (s.marker > 0)
      for (const auto& [x, y] : s.points) {
        C.cairo_arc(cr, px(x), py(y), s.marker, 0, 2 * M_PI);
        if (s.hollow) {
          colour(C, cr, {1, 1, 1});
          C.cairo_fill_preserve(cr);
          colour(C, cr, c);
          C.cairo_set_line_width(cr, 2);
          C.cairo_stroke(cr);
        } else {
          colour(C, cr, c);
          C.cairo_fill(cr);
        }
      }
  }
  C.cairo_restore(cr);
}

/// The legend, top right, on white: one row per named series, then the dashed rows.
void draw_legend(const Cairo& C, cairo_t* cr, const Chart& chart, const Frame& f) {
  const double right = f.right, top = f.top;
  std::vector<const ChartSeries*> named;
  for (const ChartSeries& s : chart.series)
    if (!s.name.empty()) named.push_back(&s);
  const std::size_t rows = named.size() + chart.dashed_legend.size();
  if (rows == 0) return;
  double text_w = 0;
  for (const ChartSeries* s : named) {
    cairo_text_extents_t e;
    C.cairo_text_extents(cr, s->name.c_str(), &e);
    text_w = std::max(text_w, e.x_advance);
  }
  for (const std::string& l : chart.dashed_legend) {
    cairo_text_extents_t e;
    C.cairo_text_extents(cr, l.c_str(), &e);
    text_w = std::max(text_w, e.x_advance);
  }
  const double box_w = 60 + text_w, box_h = 12 + 20 * static_cast<double>(rows);
  const double bx = right - box_w - 6, by = top + 4;
  C.cairo_rectangle(cr, bx, by, box_w, box_h);
  colour(C, cr, {1, 1, 1});
  C.cairo_fill_preserve(cr);
  colour(C, cr, kGrid);
  C.cairo_set_line_width(cr, 1);
  C.cairo_stroke(cr);
  double ly = by + 16;
  for (const ChartSeries* s : named) {
    colour(C, cr, kPalette[static_cast<std::size_t>(s->colour) % std::size(kPalette)]);
    if (s->line) {
      C.cairo_set_line_width(cr, 2.5);
      C.cairo_move_to(cr, bx + 10, ly);
      C.cairo_line_to(cr, bx + 40, ly);
      C.cairo_stroke(cr);
    }
    if (s->marker > 0) {
      C.cairo_arc(cr, bx + 25, ly, s->marker, 0, 2 * M_PI);
      C.cairo_fill(cr);
    }
    colour(C, cr, kInk);
    text_at(C, cr, bx + 50, ly, s->name, 0.0, 0.5);
    ly += 20;
  }
  for (const std::string& l : chart.dashed_legend) {
    colour(C, cr, kInk);
    C.cairo_set_line_width(cr, 2.5);
    const double dash[] = {10, 6};
    C.cairo_set_dash(cr, dash, 2, 0);
    C.cairo_move_to(cr, bx + 10, ly);
    C.cairo_line_to(cr, bx + 40, ly);
    C.cairo_stroke(cr);
    C.cairo_set_dash(cr, nullptr, 0, 0);
    text_at(C, cr, bx + 50, ly, l, 0.0, 0.5);
    ly += 20;
  }
}

void draw(const Cairo& C, cairo_t* cr, const Chart& chart, int width, int height) {
  colour(C, cr, {1, 1, 1});
  C.cairo_paint(cr);
  C.cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  C.cairo_set_font_size(cr, 13);
  const Frame f = frame_of(chart, width, height);
  draw_axes(C, cr, chart, f);
  draw_series(C, cr, chart, f);
  draw_legend(C, cr, chart, f);
}

cairo_status_t append(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

}  // namespace

core::Expected<std::string> render_chart(const Chart& chart, ChartFormat format, int width, int height) {
  WEFT_TRY_ASSIGN(const Cairo* loaded, load_cairo());
  const Cairo& C = *loaded;
  std::string bytes;
  using Surface = std::unique_ptr<cairo_surface_t, decltype(C.cairo_surface_destroy)>;
  Surface surface(format == ChartFormat::Png ? C.cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height)
                                             : C.cairo_svg_surface_create_for_stream(append, &bytes, width, height),
                  C.cairo_surface_destroy);
  if (C.cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS)
    return core::make_error(core::ErrorKind::Runtime,
                            std::string("cairo could not make the chart surface: ") + C.cairo_status_to_string(C.cairo_surface_status(surface.get())));
  {
    std::unique_ptr<cairo_t, decltype(C.cairo_destroy)> cr(C.cairo_create(surface.get()), C.cairo_destroy);
    draw(C, cr.get(), chart, width, height);
    if (C.cairo_status(cr.get()) != CAIRO_STATUS_SUCCESS)
      return core::make_error(core::ErrorKind::Runtime, std::string("cairo could not draw the chart: ") + C.cairo_status_to_string(C.cairo_status(cr.get())));
  }
  cairo_status_t status = CAIRO_STATUS_SUCCESS;
  if (format == ChartFormat::Png) status = C.cairo_surface_write_to_png_stream(surface.get(), append, &bytes);
  C.cairo_surface_finish(surface.get());  // an SVG surface writes its document here
  if (status == CAIRO_STATUS_SUCCESS) status = C.cairo_surface_status(surface.get());
  if (status != CAIRO_STATUS_SUCCESS)
    return core::make_error(core::ErrorKind::Runtime, std::string("cairo could not write the chart: ") + C.cairo_status_to_string(status));
  return bytes;
}

}  // namespace weft::cli
