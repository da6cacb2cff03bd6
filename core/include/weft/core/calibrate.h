#pragma once
// Calibration: measured per-node times (a run's timeline) replace the cost model's predictions.
#include "weft/core/cost_model.h"
#include "weft/core/timeline.h"

namespace weft::core {

/// Replaces predicted node times by measured ones: each node with items in `measured` gets the
/// mean of their durations and NodeCost::measured = true; others keep their prediction. O(V + items).
CostTable calibrate_costs(const CostTable& predicted, const Timeline& measured);

}  // namespace weft::core
