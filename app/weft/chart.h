#pragma once
// Line and scatter charts for the command line (`weft sweep --png`, `weft frontier --png`),
// drawn with cairo (lines, markers, text, PNG and SVG output): no hand-made raster or encoder.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "weft/core/base/expected.h"

namespace weft::cli {

struct ChartSeries {
  std::string name;                              ///< legend entry (empty: none)
  std::vector<std::pair<double, double>> points; ///< (x, y), drawn in this order
  int colour = 0;                                ///< index into the palette
  bool line = true;                              ///< join the points
  bool dashed = false;
  bool hollow = false;                           ///< hollow markers (measured values)
  double marker = 4;                             ///< marker radius, px (0: none)
};

struct Chart {
  std::string title, x_label, y_label;
  bool log2_x = false;                 ///< x spaced by log2 (batch sizes)
  std::vector<double> x_ticks;         ///< where to put x labels (empty: about six round steps)
  std::string x_suffix, y_suffix;      ///< appended to tick labels ("x" for speedups)
  std::optional<double> y_rule;        ///< a dashed grey line across at this y (1.0x)
  bool y_from_zero = false;
  std::vector<ChartSeries> series;
  /// Extra legend rows drawn as a dashed ink line (e.g. "measured").
  std::vector<std::string> dashed_legend;
};

enum class ChartFormat { Png, Svg };

/// The chart's bytes at width × height (PNG: 8-bit RGB; SVG: one document). Errors (Runtime) when
/// cairo cannot make the surface.
core::Expected<std::string> render_chart(const Chart& chart, ChartFormat format, int width = 900, int height = 540);

}  // namespace weft::cli
