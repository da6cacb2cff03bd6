#pragma once
// The timeline's horizontal axis: time ↔ pixel mapping with clamped zoom and pan, 1-2-5 ticks,
// and the time labels drawn on it.
#include <QString>
#include <vector>

namespace weft::ui {

/// Time ↔ pixel mapping of a horizontal axis showing part of [0, extent] µs in `width` pixels.
/// Pure (no widgets) so it is tested on its own. Every change clamps: pixels per µs between the
/// zoom that fits the extent and kMaxPxPerUs, the visible range inside [0, extent].
class TimeAxis {
 public:
  static constexpr double kMaxPxPerUs = 2000;  ///< 0.5 ns per pixel

  /// Data range [0, end_us]; keeps the visible start, re-clamped.
  void setExtent(double end_us);
  /// Plot width in pixels; keeps the zoom and start, re-clamped.
  void setWidth(double px);
  double extent() const { return m_extent; }
  double width() const { return m_width; }
  double pxPerUs() const { return m_px_per_us; }
  /// Time at the left edge / right edge of the plot.
  double start() const { return m_start; }
  double end() const { return m_start + m_width / m_px_per_us; }
  /// Zoom that shows the whole extent.
  double fitPxPerUs() const;

  double toPixel(double time_us) const { return (time_us - m_start) * m_px_per_us; }
  double toTime(double px) const { return m_start + px / m_px_per_us; }

  /// Shows the whole extent.
  void fit();
  /// Multiplies the zoom by `factor`, keeping the time under `anchor_px` there (unless clamped).
  void zoomAt(double anchor_px, double factor);
  /// Moves the content by `dx_px` pixels (positive: right, showing earlier times).
  void pan(double dx_px);
  void setStart(double time_us);
  /// Shows [t0, t1] (clamped).
  void setVisibleRange(double t0_us, double t1_us);

  /// A 1-2-5 × 10^k µs step whose ticks are at least `min_spacing_px` apart.
  double tickStep(double min_spacing_px = 90) const;
  /// Multiples of tickStep() inside the visible range, ascending.
  std::vector<double> ticks(double min_spacing_px = 90) const;

 private:
  void clamp();
  double m_extent = 0;
  double m_width = 1;
  double m_px_per_us = 1;
  double m_start = 0;
};

/// "12.5 µs" / "3.25 ms" with as many decimals as a tick `step` (µs) needs.
QString format_time(double us, double step);

}  // namespace weft::ui
