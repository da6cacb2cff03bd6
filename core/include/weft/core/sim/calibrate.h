#pragma once
// Calibration: measured per-node times (a run's timeline) replace the cost model's predictions.
#include <span>
#include <vector>

#include "weft/core/cost/cost_model.h"
#include "weft/core/schedule/timeline.h"

namespace weft::core {

/// Replaces predicted node times by measured ones: each node v with node_us[v] >= 0 gets that
/// time and NodeCost::measured = true; others (and nodes past node_us's end) keep their
/// prediction. O(V).
CostTable calibrate_costs(const CostTable& predicted, std::span<const double> node_us);

/// The same from a run's timeline: each node with items gets the mean of their durations.
/// O(V + items).
CostTable calibrate_costs(const CostTable& predicted, const Timeline& measured);

/// Per node of a graph of `node_count` nodes, the mean duration of its items in `run`, µs; -1
/// where it has none. O(V + items).
std::vector<double> node_times(const Timeline& run, std::size_t node_count);

}  // namespace weft::core
