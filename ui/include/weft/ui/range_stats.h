#pragma once
// Statistics of a run over a selected time range (the timeline's Shift+drag): per-stream busy
// share, overlap and the range's speedup.
#include <string>
#include <vector>

#include "weft/core/schedule/timeline.h"

namespace weft::ui {

/// Statistics of one run over a time range.
struct RangeStats {
  std::string label;
  double t0_us = 0, t1_us = 0;
  std::vector<double> busy_share;  ///< per stream: busy time in the range / range length
  double active_share = 0;         ///< some stream busy / range length
  double overlap_share = 0;        ///< two or more streams busy / range length
  /// Busy time summed over streams / time some stream is busy: how much faster the range ran than
  /// its work would one after another (1 when nothing overlaps, 0 when idle).
  double speedup = 0;
};
/// Clips every item to [t0, t1] and sweeps the per-stream busy unions. O(items log items).
RangeStats range_stats(const core::Timeline& timeline, double t0_us, double t1_us);

}  // namespace weft::ui
