// Calibration: measured per-node times (a run's timeline) replace the cost model's predictions.
#include <algorithm>

#include "weft/core/calibrate.h"

namespace weft::core {

CostTable calibrate_costs(const CostTable& predicted, const Timeline& measured) {
  CostTable out = predicted;
  std::vector<double> sum(out.nodes.size(), 0.0);
  std::vector<int> count(out.nodes.size(), 0);
  for (const TimelineItem& it : measured.items) {
    if (it.node < 0 || static_cast<std::size_t>(it.node) >= out.nodes.size()) continue;
    sum[static_cast<std::size_t>(it.node)] += std::max(0.0, it.end_us - it.start_us);
    ++count[static_cast<std::size_t>(it.node)];
  }
  for (std::size_t v = 0; v < out.nodes.size(); ++v) {
    if (count[v] == 0) continue;
    out.nodes[v].time_us = sum[v] / count[v];
    out.nodes[v].measured = true;
  }
  return out;
}

}  // namespace weft::core
