// Calibration: measured per-node times (a run's timeline) replace the cost model's predictions.
#include <algorithm>

#include "weft/core/sim/calibrate.h"

namespace weft::core {

CostTable calibrate_costs(const CostTable& predicted, std::span<const double> node_us) {
  CostTable out = predicted;
  for (std::size_t v = 0; v < std::min(out.nodes.size(), node_us.size()); ++v) {
    if (node_us[v] < 0) continue;
    out.nodes[v].time_us = node_us[v];
    out.nodes[v].measured = true;
  }
  return out;
}

CostTable calibrate_costs(const CostTable& predicted, const Timeline& measured) {
  return calibrate_costs(predicted, node_times(measured, predicted.nodes.size()));
}

std::vector<double> node_times(const Timeline& run, std::size_t node_count) {
  std::vector<double> sum(node_count, 0.0);
  std::vector<int> count(node_count, 0);
  for (const TimelineItem& it : run.items) {
    if (it.node < 0 || static_cast<std::size_t>(it.node) >= node_count) continue;
    sum[static_cast<std::size_t>(it.node)] += std::max(0.0, it.end_us - it.start_us);
    ++count[static_cast<std::size_t>(it.node)];
  }
  for (std::size_t v = 0; v < node_count; ++v) sum[v] = count[v] > 0 ? sum[v] / count[v] : -1.0;
  return sum;
}

}  // namespace weft::core
