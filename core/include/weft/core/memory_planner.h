#pragma once
// Memory planning under concurrency: partial-order liveness, planners, bounds, checker.
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/graph.h"
#include "weft/core/memory_plan.h"
#include "weft/core/schedule.h"

namespace weft::core {

struct PlanOptions {
  std::int64_t alignment = kDefaultAlignment;
  bool outputs_in_arena = false;
};

/// Planner names: greedy-by-size, greedy-by-breadth, best-fit, best.
std::vector<std::string> planner_names();

/// Plans the arena for `schedule` (liveness over its happens-before partial order).
/// Errors: Usage for an unknown planner; InvalidInput for an invalid schedule.
Expected<MemoryPlan> plan_memory(const Graph& graph, const Schedule& schedule, std::string_view planner = "best",
                                 const PlanOptions& options = {});

/// Verifies: every planned tensor placed, offsets aligned, no two conflicting tensors overlap
/// (conflict = neither dead-before the other under the schedule's happens-before).
Status check_plan(const Graph& graph, const Schedule& schedule, const MemoryPlan& plan);

/// A topological order whose peak live bytes is no higher than the file order's (memory-aware
/// sequential order).
std::vector<NodeId> memory_aware_order(const Graph& graph);

}  // namespace weft::core
