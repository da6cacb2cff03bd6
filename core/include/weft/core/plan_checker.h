#pragma once
// Checks of placements and memory plans: aligned, placed, no two conflicting blocks overlap.

#include "weft/core/allocation_problem.h"
#include "weft/core/execution_order.h"
#include "weft/core/graph.h"
#include "weft/core/memory_plan.h"
#include "weft/core/schedule.h"

namespace weft::core {

/// Every block placed at an aligned, non-negative offset, no two conflicting blocks overlap,
/// arena_bytes covers every block. O(Σ degree).
Status check_placement(const AllocationProblem& problem, const Placement& placement);

/// Verifies: every planned tensor placed, offsets aligned, no two conflicting tensors overlap
/// (conflict = neither dead-before the other under the schedule's happens-before).
/// The error names the two tensors (or the unplaced one).
Status check_plan(const Graph& graph, const Schedule& schedule, const MemoryPlan& plan);
/// The same under an execution order already built (with clocks: build or validate).
Status check_plan(const Graph& graph, const ExecutionOrder& order, const MemoryPlan& plan);

}  // namespace weft::core
