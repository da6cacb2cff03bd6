#include "weft/ui/time_axis.h"

#include <algorithm>
#include <cmath>

namespace weft::ui {

QString format_time(double us, double step) {
  const bool ms = step >= 1000;
  const double v = ms ? us / 1000 : us;
  const double s = ms ? step / 1000 : step;
  const int decimals = !(s > 0) ? 1 : s >= 1 ? 0 : std::min(4, static_cast<int>(std::ceil(-std::log10(s) - 1e-9)));
  return QString("%1 %2").arg(v, 0, 'f', decimals).arg(ms ? "ms" : "µs");
}

double TimeAxis::fitPxPerUs() const { return m_extent > 0 ? m_width / m_extent : 1.0; }

void TimeAxis::clamp() {
  const double lo = fitPxPerUs();
  m_px_per_us = std::clamp(m_px_per_us, lo, std::max(lo, kMaxPxPerUs));
  m_start = std::clamp(m_start, 0.0, std::max(0.0, m_extent - m_width / m_px_per_us));
}

void TimeAxis::setExtent(double end_us) {
  m_extent = std::max(0.0, end_us);
  clamp();
}

void TimeAxis::setWidth(double px) {
  m_width = std::max(1.0, px);
  clamp();
}

void TimeAxis::fit() {
  m_px_per_us = fitPxPerUs();
  m_start = 0;
  clamp();
}

void TimeAxis::zoomAt(double anchor_px, double factor) {
  if (!(factor > 0)) return;
  const double anchor_time = toTime(anchor_px);
  const double lo = fitPxPerUs();
  m_px_per_us = std::clamp(m_px_per_us * factor, lo, std::max(lo, kMaxPxPerUs));
  m_start = anchor_time - anchor_px / m_px_per_us;
  clamp();
}

void TimeAxis::pan(double dx_px) {
  m_start -= dx_px / m_px_per_us;
  clamp();
}

void TimeAxis::setStart(double time_us) {
  m_start = time_us;
  clamp();
}

void TimeAxis::setVisibleRange(double t0_us, double t1_us) {
  if (t1_us < t0_us) std::swap(t0_us, t1_us);
  if (t1_us - t0_us <= 0) return;
  m_px_per_us = m_width / (t1_us - t0_us);
  m_start = t0_us;
  clamp();
}

double TimeAxis::tickStep(double min_spacing_px) const {
  const double raw = std::max(min_spacing_px, 1.0) / m_px_per_us;
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * decade >= raw * (1 - 1e-12)) return m * decade;
  return 10 * decade;
}

std::vector<double> TimeAxis::ticks(double min_spacing_px) const {
  const double step = tickStep(min_spacing_px);
  std::vector<double> out;
  const double first = std::ceil(m_start / step - 1e-9);
  const double last = end() + step * 1e-9;
  for (double k = first;; k += 1) {
    const double t = k * step;  // multiples, not repeated sums: no drift
    if (t > last) break;
    out.push_back(t);
  }
  return out;
}

}  // namespace weft::ui
