#pragma once
// Multi-stream simulator (host issue thread + fluid device model) and its baselines.
#include <string>

#include "weft/core/cost_model.h"
#include "weft/core/graph.h"
#include "weft/core/memory_plan.h"
#include "weft/core/schedule.h"
#include "weft/core/timeline.h"

namespace weft::core {

struct SimOptions {
  bool cuda_graph = false;             ///< the whole schedule launched as one CUDA Graph
  const MemoryPlan* plan = nullptr;    ///< when set, the timeline carries arena bytes over time
};

/// Predicted timeline of `schedule` (its events included) on `device` with `costs`.
Timeline simulate(const Graph& graph, const Schedule& schedule, const CostTable& costs, const DeviceSpec& device,
                  const SimOptions& options = {});

}  // namespace weft::core
