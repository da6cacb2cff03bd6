#pragma once
// Live bytes and arena high-water along a run (the studio's chart and the CLI).
#include <cstdint>
#include <vector>

#include "weft/core/schedule/execution_order.h"
#include "weft/core/graph/graph.h"
#include "weft/core/memory/memory_plan.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/schedule/timeline.h"

namespace weft::core {

/// Live bytes and arena high-water along a run. Steps follow a linearisation of the schedule's
/// happens-before (or the timeline's start times when given).
struct MemoryGrowth {
  std::vector<NodeId> steps;                 ///< node run at each step
  std::vector<std::int64_t> live_bytes;      ///< per step: planned bytes live during the step
  std::vector<std::int64_t> high_water;      ///< per step: max offset+size of any tensor allocated so far
  std::vector<CounterSample> live_over_time;       ///< with a timeline: step function samples
  std::vector<CounterSample> high_water_over_time; ///< with a timeline
};

/// Growth of `plan` under `schedule`; with `timeline`, also over time (a tensor lives from its
/// producer's start to its last reader's end). O(V + E + T + items log items).
Expected<MemoryGrowth> memory_growth(const Graph& graph, const Schedule& schedule, const MemoryPlan& plan,
                                     const Timeline* timeline = nullptr);
/// The same along the steps of an execution order already built (any build; unused with a
/// timeline). Errors (InvalidInput): a plan or timeline that does not match the model.
Expected<MemoryGrowth> memory_growth(const Graph& graph, const ExecutionOrder& order, const MemoryPlan& plan,
                                     const Timeline* timeline = nullptr);

/// Only the series over time of memory_growth with a timeline (steps, live_bytes and high_water
/// left empty), the same samples. Errors as memory_growth. O(V + T log T).
Expected<MemoryGrowth> memory_growth_over_time(const Graph& graph, const MemoryPlan& plan, const Timeline& timeline);

}  // namespace weft::core
