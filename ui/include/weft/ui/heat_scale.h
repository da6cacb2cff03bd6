#pragma once
// The heat scale of measured node times (the graph view's colouring by a profile, and its legend):
// the logarithm of the time from the fastest measured node to the slowest, node times spanning
// orders of magnitude, onto a ramp from dark blue through green to yellow (viridis' stops). The
// ramp holds no red, which marks the critical path, and stays ordered in lightness for
// colour-blind eyes and greyscale prints.
#include <QColor>
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace weft::ui {

struct HeatScale {
  double lo_us = 0;  ///< the fastest measured time (> 0), position 0
  double hi_us = 0;  ///< the slowest, position 1

  /// The scale over the measured times (nullopt and non-positive times are left out). O(n).
  static HeatScale of(const std::vector<std::optional<double>>& times) {
    HeatScale s;
    for (const auto& t : times)
      if (t && *t > 0) {
        s.lo_us = s.lo_us > 0 ? std::min(s.lo_us, *t) : *t;
        s.hi_us = std::max(s.hi_us, *t);
      }
    return s;
  }
  bool empty() const { return !(hi_us > 0); }
  /// Where `us` falls, 0 (fastest) to 1 (slowest), on the logarithmic scale.
  double position(double us) const {
    if (empty() || !(hi_us > lo_us)) return 1.0;
    return std::clamp(std::log(std::max(us, lo_us) / lo_us) / std::log(hi_us / lo_us), 0.0, 1.0);
  }
  /// The ramp's colour at `position` (0..1).
  static QColor color(double position) {
    static const QColor kStops[] = {QColor(0x44, 0x01, 0x54), QColor(0x3b, 0x52, 0x8b), QColor(0x21, 0x91, 0x8c),
                                    QColor(0x5e, 0xc9, 0x62), QColor(0xfd, 0xe7, 0x25)};
    const double x = std::clamp(position, 0.0, 1.0) * 4;
    const int i = std::min(3, static_cast<int>(x));
    const double f = x - i;
    const QColor &a = kStops[i], &b = kStops[i + 1];
    return QColor::fromRgbF(static_cast<float>(a.redF() + f * (b.redF() - a.redF())),
                            static_cast<float>(a.greenF() + f * (b.greenF() - a.greenF())),
                            static_cast<float>(a.blueF() + f * (b.blueF() - a.blueF())));
  }
  QColor colorOf(double us) const { return color(position(us)); }
  /// Text drawn on a node of `position`: light on the dark end of the ramp, dark on the light end.
  static QColor textColor(double position) { return position < 0.45 ? QColor(Qt::white) : QColor(Qt::black); }
};

/// The fill of a node the profile has no time for.
inline QColor unmeasured_color() { return QColor(0xd4, 0xd4, 0xd4); }

}  // namespace weft::ui
